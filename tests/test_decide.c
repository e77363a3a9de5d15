/* The retune's decision between a cell's previous row and a challenger (retune_beats, tune/retune.c),
 * on the speed ratios challenger/previous at the cell's shapes: a change needs a gain beyond the
 * noise margin (3%), on the whole and larger than the loss at its worst shape, or on one shape with
 * the others within the margin; a failure anywhere or ties everywhere keep the previous row. The same rule
 * decides whether a tile taller than the cell's rows stays in the race beside its twin cut to those
 * rows (retune_keep_tall). The depth of a narrow decode cell's warm corner keeps B in half of L2
 * (grid_hot_depth). Rows set by hand (evidence `pinned`) and their notes survive the retune's new
 * table, after its exact rows and before its grid rows (retune_keep_pinned). */
#include "../tune/buckets.h"
#include "../tune/retune.h"
#include "tktest.h"

#include <string.h>

static tkt_row row(unsigned long long m0, unsigned long long m1, unsigned long long n0, unsigned long long n1,
                   unsigned long long k0, unsigned long long k1, unsigned mr, const char *evidence)
{
    tkt_row r;
    memset(&r, 0, sizeof r);
    r.m.lo = m0, r.m.hi = m1, r.n.lo = n0, r.n.hi = n1, r.k.lo = k0, r.k.hi = k1, r.mr = mr;
    snprintf(r.evidence, sizeof r.evidence, "%s", evidence);
    return r;
}

static void pinned_rows(void)
{
    static tkt_table old, nt;
    const unsigned long long inf = TK_SIZE_INF;
    char why[256] = "";
    snprintf(old.source, sizeof old.source, "measured");
    old.rows[old.n++] = row(4, 4, 4, 4, 4, 4, 4, "measured");
    old.rows[old.n++] = row(8, 8, 8, 8, 8, 8, 8, "pinned");
    old.rows[old.n++] = row(4, 4, 1025, inf, 1, inf, 2, "pinned");
    old.rows[old.n++] = row(2, 4, 1, inf, 1, inf, 4, "measured");
    old.rows[old.n++] = row(1, inf, 1, inf, 1, inf, 6, "measured");
    snprintf(old.notes[old.nnotes++], sizeof old.notes[0], "retuned on somewhere");
    snprintf(old.notes[old.nnotes++], sizeof old.notes[0], "pinned: 4 x 1025.. 2x64 by hand");
    snprintf(old.notes[old.nnotes++], sizeof old.notes[0], "grid: a note the retune writes anew");
    /* the retune's table: its exact rows (8x8x8 too), then its grid, one cell keeping the pinned
     * row's configuration as its previous row */
    snprintf(nt.source, sizeof nt.source, "measured");
    nt.rows[nt.n++] = row(4, 4, 4, 4, 4, 4, 14, "measured");
    nt.rows[nt.n++] = row(8, 8, 8, 8, 8, 8, 9, "measured");
    nt.rows[nt.n++] = row(2, 4, 1, inf, 1, inf, 2, "pinned");
    nt.rows[nt.n++] = row(1, inf, 1, inf, 1, inf, 6, "measured");
    for (int i = 0; i < 3; i++) snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "own note %d", i);
    TKT_CHECK(retune_pinned_notes(&old) == 1, "one pinned note, counted %d", retune_pinned_notes(&old));
    TKT_CHECK(retune_keep_pinned(&old, &nt, why, sizeof why), "keeping the pinned rows failed: %s", why);
    TKT_CHECK(nt.n == 5, "5 rows after the pins (4x4x4, 8x8x8 pinned, 4 x 1025.. pinned, 2..4, catch-all), got %d", nt.n);
    if (nt.n == 5) {
        TKT_CHECK(nt.rows[0].mr == 14 && !strcmp(nt.rows[0].evidence, "measured"), "the retune's exact 4x4x4 comes first");
        TKT_CHECK(nt.rows[1].mr == 8 && !strcmp(nt.rows[1].evidence, "pinned") && nt.rows[1].m.lo == 8,
                  "the pinned 8x8x8 replaces the retune's row of its shape (mr %u, %s)", nt.rows[1].mr, nt.rows[1].evidence);
        TKT_CHECK(nt.rows[2].mr == 2 && !strcmp(nt.rows[2].evidence, "pinned") && nt.rows[2].n.lo == 1025,
                  "the pinned range row follows the exact rows, before the grid's");
        TKT_CHECK(nt.rows[3].m.lo == 2 && !strcmp(nt.rows[3].evidence, "measured"),
                  "a grid row that kept a pinned row's configuration says the table's source, not pinned (%s)",
                  nt.rows[3].evidence);
        TKT_CHECK(nt.rows[4].m.hi == inf && nt.rows[4].n.hi == inf, "the catch-all stays last");
    }
    TKT_CHECK(nt.nnotes == 4 && !strcmp(nt.notes[3], "pinned: 4 x 1025.. 2x64 by hand") && !strcmp(nt.notes[0], "own note 0"),
              "the pinned note follows the retune's own (%d notes)", nt.nnotes);
    /* more pinned notes than fit beside the retune's own: refused, with the reason */
    for (int i = 0; i < TKT_MAX_NOTES - RETUNE_OWN_NOTES; i++)
        snprintf(old.notes[old.nnotes++], sizeof old.notes[0], "pinned: reason %d", i);
    nt.nnotes = RETUNE_OWN_NOTES;
    TKT_CHECK(!retune_keep_pinned(&old, &nt, why, sizeof why) && strstr(why, "pinned notes"),
              "%d pinned notes and %d of the retune's own should not fit in %d: %s", TKT_MAX_NOTES - RETUNE_OWN_NOTES + 1,
              RETUNE_OWN_NOTES, TKT_MAX_NOTES, why);
}

static void expect(double r0, double r1, double r2, int nsh, int want, const char *why)
{
    const double r[3] = {r0, r1, r2};
    TKT_CHECK(retune_beats(r, nsh) == want, "%s: ratios %.3f %.3f %.3f (%d shapes) %s", why, r0, r1, r2, nsh,
              want ? "should change the row" : "should keep the previous row");
}

int main(void)
{
    tkt_init();
    expect(1.05, 0, 0, 1, 1, "one shape, 5% faster");
    expect(1.02, 0, 0, 1, 0, "one shape, within the margin");
    expect(1.04, 1.04, 1.04, 3, 1, "faster everywhere");
    expect(1.00, 1.00, 1.00, 3, 0, "ties everywhere");
    expect(1.02, 1.02, 1.02, 3, 0, "faster everywhere, but within the margin");
    /* the deep side of a wide cell: B streamed at one corner, in cache at the others */
    expect(1.008, 1.088, 1.011, 3, 1, "8.8% faster where B streams, tied in cache");
    expect(0.99, 1.08, 0.99, 3, 1, "8% faster at one shape, 1% slower at two");
    expect(0.96, 1.10, 1.00, 3, 0, "10% faster at one shape but 4% slower at another");
    expect(0.98, 1.031, 0.98, 3, 0, "a gain at the margin, slower on the whole");
    expect(1.20, 1.20, 0.95, 3, 1, "much faster on the whole (geometric mean over the margin)");
    /* session 70's 16-row decode cell: 1.058 on the whole, 14% slower at the 11008-wide corner */
    expect(1.20, 1.17, 0.86, 3, 0, "over the margin on the whole, but the worst shape lost more than the whole gained");
    expect(1.40, 1.40, 0.88, 3, 1, "a large gain outweighs a loss at one shape");
    expect(1.20, 1.20, 0, 3, 0, "a failure at one shape");
    expect(1.20, -1, 1.20, 3, 0, "a failed measurement at one shape");
    /* the margin is strict: exactly 3% is noise */
    expect(1.03, 1.03, 1.03, 3, 0, "exactly the margin everywhere");
    /* a tile taller than the point's m against its twin cut to m rows (retune_keep_tall) */
    const double tall[3] = {23.0, 18.2, 30.0}, twin[3] = {19.5, 17.0, 29.5};
    TKT_CHECK(retune_keep_tall(tall, twin, 3, 2), "a 4-row tile beating its 2-row twin at m = 2 should stay");
    TKT_CHECK(retune_keep_tall(tall, twin, 2, 3), "... and at m = 3 (two shapes)");
    TKT_CHECK(!retune_keep_tall(tall, twin, 3, 1), "at m = 1 a tall tile never stays, however it measures");
    TKT_CHECK(!retune_keep_tall(twin, tall, 3, 2), "a tall tile slower than its twin should go");
    const double near[3] = {19.9, 17.3, 29.9}, lost[3] = {30.0, 30.0, 0};
    TKT_CHECK(!retune_keep_tall(near, twin, 3, 2), "a tall tile within the noise of its twin should go");
    TKT_CHECK(!retune_keep_tall(lost, twin, 3, 2), "a tall tile that failed at one shape should go");
    /* the warm corner: B in half of L2, a multiple of 64 deep, 64 to 512 */
    TKT_CHECK(grid_hot_depth(1u << 20, 512) == 256, "1 MiB L2, B 512 wide: 256 deep (B 512 KiB), got %.0f",
              grid_hot_depth(1u << 20, 512));
    TKT_CHECK(grid_hot_depth(512u << 10, 300) == 192, "512 KiB L2, B 300 wide: 192 deep, got %.0f",
              grid_hot_depth(512u << 10, 300));
    TKT_CHECK(4.0 * 300 * grid_hot_depth(512u << 10, 300) <= (512u << 10) / 2, "B must fit half of L2");
    TKT_CHECK(grid_hot_depth(2u << 20, 512) == 512, "2 MiB L2: the full 512 deep, got %.0f", grid_hot_depth(2u << 20, 512));
    TKT_CHECK(grid_hot_depth(32u << 20, 512) == 512, "never deeper than 512, got %.0f", grid_hot_depth(32u << 20, 512));
    TKT_CHECK(grid_hot_depth(256u << 10, 4096) == 64, "never shallower than 64, got %.0f", grid_hot_depth(256u << 10, 4096));
    pinned_rows();
    return tkt_finish("test_decide");
}
