/* The generated decision tree chooses what the table says: for every CPU of the build, at every
 * shape built from the rows' edges (each edge, one either side, 0, 1 and large values, in every
 * combination), tki_gemm_f32_select_<cpu> returns the first row whose ranges contain the shape, as a
 * plain scan of the table's rows finds it (TKI_GEMM_F32_ROWS_<cpu>: hi 0 is unbounded; a range
 * that starts at 1 takes 0 as well, docs/tables.md). select_general agrees wherever no exact-shape
 * row matches, and the plain entry's hash filter passes every exact row's shape. A tree that dropped,
 * reordered or misplaced a row fails here. */
#include "chain.h"
#include "tktest.h"

#define MAXV 512

typedef tkt_bucket bucket;

static size_t vals[3][MAXV];
static int nvals[3];

static void add_val(int d, size_t v)
{
    for (int i = 0; i < nvals[d]; i++)
        if (vals[d][i] == v) return;
    if (nvals[d] < MAXV) vals[d][nvals[d]++] = v;
}

static int first_match(const bucket *b, int nb, const size_t *x)
{
    for (int i = 0; i < nb; i++) {
        int in = 1;
        for (int d = 0; d < 3; d++) {
            size_t lo = b[i].lo[d] == 1 && b[i].hi[d] != 1 ? 0 : b[i].lo[d];
            in = in && lo <= x[d] && (b[i].hi[d] == 0 || x[d] <= b[i].hi[d]);
        }
        if (in) return b[i].id;
    }
    return -1;
}

static int is_exact(const bucket *b)
{
    return b->lo[0] == b->hi[0] && b->lo[1] == b->hi[1] && b->lo[2] == b->hi[2];
}

static void check_cpu(const tkt_cpu *cpu)
{
    const tkt_cpu_fns *f = cpu->f;
    const bucket *rows = f->rows;
    const char *token = cpu->name;
    const int nb = (int)f->nrows;
    unsigned long bad = 0, bad_general = 0, points = 0;
    nvals[0] = nvals[1] = nvals[2] = 0;
    for (int d = 0; d < 3; d++) {
        static const size_t extra[] = {0, 1, 2, 3, 4096, 11008, 1000003, (size_t)1 << 40};
        for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++) add_val(d, extra[e]);
        for (int i = 0; i < nb; i++) {
            size_t lo = rows[i].lo[d], hi = rows[i].hi[d];
            add_val(d, lo), add_val(d, lo + 1), add_val(d, lo - 1);
            if (hi) add_val(d, hi), add_val(d, hi + 1), add_val(d, hi - 1);
        }
    }
    for (int i = 0; i < nvals[0]; i++)
        for (int j = 0; j < nvals[1]; j++)
            for (int l = 0; l < nvals[2]; l++) {
                size_t x[3] = {vals[0][i], vals[1][j], vals[2][l]};
                int want = first_match(rows, nb, x), got = f->select(x[0], x[1], x[2]);
                points++;
                if (got != want && bad++ == 0)
                    fprintf(stderr, "%s: %zux%zux%zu: the tree chose row %d, the table says %d\n", token, x[0], x[1],
                            x[2], got, want);
                if (want >= 0 && !is_exact(&rows[want]) && f->select_general(x[0], x[1], x[2]) != want &&
                    bad_general++ == 0)
                    fprintf(stderr, "%s: %zux%zux%zu: the general tree disagrees\n", token, x[0], x[1], x[2]);
            }
    TKT_CHECK(bad == 0, "%s: %lu of %lu shapes choose another row than the table's first match", token, bad, points);
    TKT_CHECK(bad_general == 0, "%s: the general tree disagrees at %lu of %lu shapes", token, bad_general, points);
    for (int i = 0; i < nb; i++) {
        /* tkgen cuts a direct range row to exactly m rows below its MR and top (tkt_short_rows); m = 0
         * never reaches a kernel (tki_gemm_check returns first), so a 1-row cut row may start there */
        const tki_gemm_cfg *cf = &f->cfgs()[rows[i].id];
        const int range = rows[i].hi[0] == 0 || rows[i].lo[0] < rows[i].hi[0];
        const int one_nk = rows[i].lo[1] == rows[i].hi[1] && rows[i].lo[2] == rows[i].hi[2];
        const size_t m_lo = rows[i].lo[0] == 0 ? 1 : rows[i].lo[0];
        TKT_CHECK(!(cf->ukr_direct && range && !one_nk && m_lo < cf->mr),
                  "%s: row %d (m from %zu) is a direct range row of %u-row tiles", token, rows[i].id, rows[i].lo[0],
                  cf->mr);
    }
    for (int i = 0; i < nb; i++) {
        /* the plain entry tests an exact row only where the hash filter lets the shape through */
        if (is_exact(&rows[i]))
            TKT_CHECK(f->exact_hashed(rows[i].lo[0], rows[i].lo[1], rows[i].lo[2]), "%s: exact row %d (%zux%zux%zu) "
                      "fails the plain entry's hash filter", token, rows[i].id, rows[i].lo[0], rows[i].lo[1],
                      rows[i].lo[2]);
    }
    printf("%s: %d rows, %lu shapes tried\n", token, nb, points);
}

int main(void)
{
    tkt_init();
    for (size_t c = 0; c < tkt_chain_len; c++) check_cpu(&tkt_chain[c]);
    return tkt_finish("test_select");
}
