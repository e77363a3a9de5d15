/* tk/ref.h - the naive reference GEMM for tests: plain loops, no blocking, no packing, no tables.
 * Accumulates in double so it is the more accurate side of every comparison. */
#ifndef TK_REF_H
#define TK_REF_H
#include "tk/types.h"
#include "tk/internal.h"

static inline void tk_ref_gemm_f32(const tk_gemm_desc *d)
{
    size_t i, j, p;
    for (i = 0; i < d->m; i++)
        for (j = 0; j < d->n; j++) {
            double s = 0.0, r;
            for (p = 0; p < d->k && d->alpha != 0.0f; p++) {
                double av = d->transa == TK_NO_TRANS ? d->a[i * d->lda + p] : d->a[p * d->lda + i];
                double bv = d->transb == TK_NO_TRANS ? d->b[p * d->ldb + j] : d->b[j * d->ldb + p];
                s += av * bv;
            }
            r = (double)d->alpha * s;
            if (d->beta != 0.0f) r += (double)d->beta * d->c[i * d->ldc + j];
            if (d->bias) r += d->bias[j];
            d->c[i * d->ldc + j] = tki_act((float)r, d->epilogue, d->clamp_lo, d->clamp_hi);
        }
}
#endif
