/* The retune's decision between a cell's previous row and a challenger (retune_beats, tune/retune.c),
 * on the speed ratios challenger/previous at the cell's shapes: a change needs a gain beyond the
 * noise margin (3%), on the whole or on one shape with the others within the margin; a loss beyond
 * the margin anywhere, a failure anywhere, or ties everywhere keep the previous row. The same rule
 * decides whether a tile taller than the cell's rows stays in the race beside its twin cut to those
 * rows (retune_keep_tall). The depth of a narrow decode cell's warm corner keeps B in half of L2
 * (retune_hot_depth). */
#include "../tune/retune.h"
#include "tktest.h"

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
    TKT_CHECK(retune_hot_depth(1u << 20, 512) == 256, "1 MiB L2, B 512 wide: 256 deep (B 512 KiB), got %.0f",
              retune_hot_depth(1u << 20, 512));
    TKT_CHECK(retune_hot_depth(512u << 10, 300) == 192, "512 KiB L2, B 300 wide: 192 deep, got %.0f",
              retune_hot_depth(512u << 10, 300));
    TKT_CHECK(4.0 * 300 * retune_hot_depth(512u << 10, 300) <= (512u << 10) / 2, "B must fit half of L2");
    TKT_CHECK(retune_hot_depth(2u << 20, 512) == 512, "2 MiB L2: the full 512 deep, got %.0f", retune_hot_depth(2u << 20, 512));
    TKT_CHECK(retune_hot_depth(32u << 20, 512) == 512, "never deeper than 512, got %.0f", retune_hot_depth(32u << 20, 512));
    TKT_CHECK(retune_hot_depth(256u << 10, 4096) == 64, "never shallower than 64, got %.0f", retune_hot_depth(256u << 10, 4096));
    return tkt_finish("test_decide");
}
