/* tk/ref.h - the naive reference GEMM for tests: plain loops, no blocking, no packing, no tables.
 * Accumulates in double so it is the more accurate side of every comparison. */
#ifndef TK_REF_H
#define TK_REF_H
#include "tk/types.h"
#include "tk/internal.h"

/* C[i][j0..j0+w) of d from the sums s[0..w) (alpha, beta, bias, the activation) */
static inline void tki_ref_store_f32(const tk_gemm_desc *d, size_t i, size_t j0, size_t w, const double *s)
{
    size_t j;
    for (j = j0; j < j0 + w; j++) {
        double r = (double)d->alpha * s[j - j0];
        if (d->beta != 0.0f) r += (double)d->beta * d->c[i * d->ldc + j];
        if (d->bias) r += d->bias[j];
        d->c[i * d->ldc + j] = tki_act((float)r, d->epilogue, d->clamp_lo, d->clamp_hi);
    }
}

/* Every C[i][j] is the sum over p = 0, 1, ... k-1 of A[i][p] B[p][j] in double, in that order, from
 * 0, several sums at a time: TK_REF_COLS of them along a row of an untransposed B, 8 columns of a
 * transposed one (eight chains of additions, not one waiting on the last). Read down its columns
 * one sum at a time, a wide B missed the cache on every product, and the references of the large
 * exact-shape rows (49x512x4608, 784x128x1152) took 27 of test_gemm's 32 s (86 of 100 under ASan).
 * Each sum adds the same products in the same order either way, so the results are the same. */
#define TK_REF_COLS 256
static inline void tk_ref_gemm_f32(const tk_gemm_desc *d)
{
    double s[TK_REF_COLS];
    const size_t cols = d->transb == TK_NO_TRANS ? TK_REF_COLS : 8;
    size_t i, j0, j, p, w;
    for (i = 0; i < d->m; i++)
        for (j0 = 0; j0 < d->n; j0 += w) {
            w = d->n - j0 < cols ? d->n - j0 : cols;
            for (j = 0; j < w; j++) s[j] = 0.0;
            for (p = 0; p < d->k && d->alpha != 0.0f; p++) {
                const double av = d->transa == TK_NO_TRANS ? d->a[i * d->lda + p] : d->a[p * d->lda + i];
                for (j = 0; j < w; j++)
                    s[j] += av * (double)(d->transb == TK_NO_TRANS ? d->b[p * d->ldb + j0 + j] : d->b[(j0 + j) * d->ldb + p]);
            }
            tki_ref_store_f32(d, i, j0, w, s);
        }
}
#endif
