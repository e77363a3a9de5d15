/* bench/verify.c - the naive reference every case is checked against before it is timed.
 *
 * The reference is computed in double precision straight from the definition (no blocking, no
 * packing, no library), so it shares no code path with anything under test.
 *
 * Cheap shapes (m*n*k <= TKB_FULL_CHECK_MNK) are checked entry by entry. For larger ones a full
 * reference would cost more than the benchmark itself, so a sample is checked instead, chosen where
 * blocked GEMMs go wrong: whole first/middle/last rows and columns (block boundaries in every
 * loop), the bottom-right corner (the m % MR and n % NR edge tiles) and random entries. The sample
 * is taken from the same call that is then timed, so the timed kernel is the one verified.
 *
 * Tolerance: |c - ref| <= 4 * k * FLT_EPSILON * max|a| * max|b| (the design's "about
 * k * eps * max|a||b|"). With random inputs of both signs, the rounding error of a length-k float
 * dot product is a random walk of k steps of about eps * |partial sum| ~ eps * sqrt(k) * max|a||b|
 * each, so about k * eps * max|a||b| / 5 in all; blocked or reordered summation only makes it
 * smaller. A wrong result (a lost k block, an edge tile done twice, a stale C) is off by
 * O(max|a||b|) or more: hundreds of times the tolerance even at k = 11008. */
#include "bench.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TKB_FULL_CHECK_MNK ((size_t)1 << 27) /* ~0.1 s of double-precision reference */
#define TKB_RANDOM_COLS 64 /* random entries: 64 random columns x 64 random rows each */
#define TKB_RANDOM_ROWS 64
#define TKB_EDGE_ROWS 16   /* covers MR up to 16 */
#define TKB_EDGE_COLS 64   /* covers NR up to 64 */

typedef struct {
    size_t i, j;
    double ref;
} entry;

struct tkb_check {
    size_t m, n, k;
    double tol;
    double *full;   /* m*n reference values, or NULL when sampled */
    entry *e;       /* sampled entries */
    size_t ne, cap;
};

/* Row i of A times B: out[0..n) = sum_l a[i][l] * b[l][:], accumulated in double. */
static void ref_row(size_t n, size_t k, const float *arow, const float *b, double *out)
{
    for (size_t j = 0; j < n; j++)
        out[j] = 0.0;
    for (size_t l = 0; l < k; l++) {
        double al = arow[l];
        const float *bl = b + l * n;
        for (size_t j = 0; j < n; j++)
            out[j] += al * (double)bl[j];
    }
}

static int push(tkb_check *ck, size_t i, size_t j, double ref)
{
    if (ck->ne == ck->cap) {
        size_t cap = ck->cap ? 2 * ck->cap : 1024;
        entry *e = realloc(ck->e, cap * sizeof *e);
        if (!e)
            return 0;
        ck->e = e;
        ck->cap = cap;
    }
    ck->e[ck->ne].i = i;
    ck->e[ck->ne].j = j;
    ck->e[ck->ne].ref = ref;
    ck->ne++;
    return 1;
}

static float max_abs(const float *x, size_t n)
{
    float mx = 0.0f;
    for (size_t i = 0; i < n; i++)
        mx = fabsf(x[i]) > mx ? fabsf(x[i]) : mx;
    return mx;
}

/* Reference entries (rows[t], j) for one column j. Column j of B is gathered once into a
 * contiguous buffer: a strided walk down B per entry would miss the cache k times per entry. */
static int push_column(tkb_check *ck, const float *a, const float *b, size_t j, const size_t *rows,
                       size_t nrows, double *colbuf)
{
    for (size_t l = 0; l < ck->k; l++)
        colbuf[l] = b[l * ck->n + j];
    for (size_t t = 0; t < nrows; t++) {
        const float *ai = a + rows[t] * ck->k;
        double s = 0.0;
        for (size_t l = 0; l < ck->k; l++)
            s += (double)ai[l] * colbuf[l];
        if (!push(ck, rows[t], j, s))
            return 0;
    }
    return 1;
}

/* The sampled reference for shapes too big to check whole. Returns 0 when out of memory. */
static int build_sample(tkb_check *ck, const float *a, const float *b)
{
    const size_t m = ck->m, n = ck->n, k = ck->k;
    double *row = malloc(n * sizeof *row);
    double *colbuf = malloc(k * sizeof *colbuf);
    /* row indexes: all m for whole columns, TKB_RANDOM_ROWS for the random sample */
    size_t *rows = malloc((m > TKB_RANDOM_ROWS ? m : TKB_RANDOM_ROWS) * sizeof *rows);
    int ok = row && colbuf && rows;

    /* Whole rows: first, middle, last. */
    const size_t some_rows[3] = {0, m / 2, m - 1};
    for (int r = 0; ok && r < 3; r++) {
        if (r > 0 && some_rows[r] == some_rows[r - 1])
            continue;
        ref_row(n, k, a + some_rows[r] * k, b, row);
        for (size_t j = 0; ok && j < n; j++)
            ok = push(ck, some_rows[r], j, row[j]);
    }

    /* Whole columns: first, middle, last. */
    for (size_t i = 0; ok && i < m; i++)
        rows[i] = i;
    const size_t some_cols[3] = {0, n / 2, n - 1};
    for (int c = 0; ok && c < 3; c++)
        if (c == 0 || some_cols[c] != some_cols[c - 1])
            ok = push_column(ck, a, b, some_cols[c], rows, m, colbuf);

    /* The bottom-right corner, where the partial edge tiles (m % MR, n % NR) live. */
    size_t i0 = m > TKB_EDGE_ROWS ? m - TKB_EDGE_ROWS : 0;
    size_t j0 = n > TKB_EDGE_COLS ? n - TKB_EDGE_COLS : 0;
    for (size_t j = j0; ok && j < n; j++)
        ok = push_column(ck, a, b, j, rows + i0, m - i0, colbuf);

    /* Random columns on random rows (a fixed LCG: the same sample on every run). */
    uint64_t s = 0x1234567ull ^ (m * 131 + n * 137 + k * 139);
    for (int c = 0; ok && c < TKB_RANDOM_COLS; c++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)((s >> 33) % n);
        for (int r = 0; r < TKB_RANDOM_ROWS; r++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            rows[r] = (size_t)((s >> 33) % m);
        }
        ok = push_column(ck, a, b, j, rows, TKB_RANDOM_ROWS, colbuf);
    }

    free(row);
    free(colbuf);
    free(rows);
    return ok;
}

tkb_check *tkb_check_new(size_t m, size_t n, size_t k, const float *a, const float *b)
{
    tkb_check *ck = calloc(1, sizeof *ck);
    if (!ck)
        return NULL;
    ck->m = m;
    ck->n = n;
    ck->k = k;
    ck->tol = 4.0 * (double)k * FLT_EPSILON * max_abs(a, m * k) * max_abs(b, k * n);

    if (m * n * k > TKB_FULL_CHECK_MNK) {
        if (!build_sample(ck, a, b)) {
            tkb_check_free(ck);
            return NULL;
        }
        return ck;
    }
    ck->full = malloc(m * n * sizeof *ck->full);
    if (!ck->full) {
        tkb_check_free(ck);
        return NULL;
    }
    for (size_t i = 0; i < m; i++)
        ref_row(n, k, a + i * k, b, ck->full + i * n);
    return ck;
}

void tkb_check_free(tkb_check *ck)
{
    if (!ck)
        return;
    free(ck->full);
    free(ck->e);
    free(ck);
}

int tkb_check_is_full(const tkb_check *ck) { return ck->full != NULL; }

/* !(err <= tol) rather than (err > tol): NaN, from a stale or unwritten C, must fail. */
static int bad(double got, double ref, double tol) { return !(fabs(got - ref) <= tol); }

int tkb_check_result(const tkb_check *ck, const float *c, char *msg, size_t msglen)
{
    if (ck->full) {
        for (size_t i = 0; i < ck->m; i++)
            for (size_t j = 0; j < ck->n; j++) {
                double ref = ck->full[i * ck->n + j], got = c[i * ck->n + j];
                if (bad(got, ref, ck->tol)) {
                    snprintf(msg, msglen, "C[%zu][%zu] = %.7g, expected %.7g (tolerance %.2g)", i,
                             j, got, ref, ck->tol);
                    return 0;
                }
            }
        return 1;
    }
    for (size_t t = 0; t < ck->ne; t++) {
        const entry *e = &ck->e[t];
        double got = c[e->i * ck->n + e->j];
        if (bad(got, e->ref, ck->tol)) {
            snprintf(msg, msglen, "C[%zu][%zu] = %.7g, expected %.7g (tolerance %.2g)", e->i, e->j,
                     got, e->ref, ck->tol);
            return 0;
        }
    }
    return 1;
}
