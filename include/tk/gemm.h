/* tk/gemm.h - f32 GEMM, row-major: C = act(alpha * op(A) op(B) + beta * C + bias).
 *
 *   #include <tk/gemm.h>
 *   tk_status s = tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
 *
 * Header-only: nothing to link, no allocation, no threads, no global state to initialise. The kernels
 * and blocking come from the tuning table of the CPU this copy was generated for (tk_cpu_name()).
 * Every function and object is static (functions inline, or out of line where they must be), so
 * translation units built with different flags never clash.
 * Errors are tk_status values; on any error C is left untouched. See docs/api.md. */
#ifndef TK_GEMM_H
#define TK_GEMM_H

#include "tk/types.h"
#include "tk/internal.h"
#include "tk/gen/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of workspace tk_gemm_f32_ex needs for d's shape (0 when there is nothing to do). Pass at
 * least that much, aligned to TK_WORKSPACE_ALIGN, in d->workspace, or leave it NULL to use tk's
 * static per-thread buffer. Each concurrently running part needs its own workspace. */
static inline TKI_ALWAYS_INLINE size_t tk_gemm_f32_workspace_size(const tk_gemm_desc *d)
{
    return TKI_SEL(tki_gemm_f32_workspace_size_entry)(d);
}

/* How many parts of d are worth running concurrently, at most max_parts (at least 1): no more than
 * d has tiles along the table's split dimension, and at least TK_GEMM_MIN_PART_FLOPS each. Run
 * parts 0..P-1 of P; results are bitwise the same for any P. */
static inline TKI_ALWAYS_INLINE size_t tk_gemm_f32_parts(const tk_gemm_desc *d, size_t max_parts)
{
    return TKI_SEL(tki_gemm_f32_parts_entry)(d, max_parts);
}

/* Descriptor form: epilogue, explicit workspace and the work partition (part of nparts). These
 * three are always inlined, as tk_gemm_f32 is (below): a descriptor filled with literal sizes then
 * compiles only its row's kernels (docs/api.md, "Compile time"). */
static inline TKI_ALWAYS_INLINE tk_status tk_gemm_f32_ex(const tk_gemm_desc *d)
{
    return TKI_SEL(tki_gemm_f32_ex_entry)(d);
}

static inline TKI_ALWAYS_INLINE tk_status tk_gemm_f32(tk_trans transa, tk_trans transb, size_t m, size_t n,
                                                      size_t k, float alpha, const float *a, size_t lda,
                                                      const float *b, size_t ldb, float beta, float *c,
                                                      size_t ldc)
{
    /* Inlined here: the exact-shape tests run in the caller, which then calls the chosen instance
     * with every argument in a register (a call through an out-of-line entry of 13 arguments cost
     * 1.2 ns of a 3-ns 4x4x4 call); a literal shape folds to that one call. Always inlined: GCC
     * otherwise inlines it only after deciding what to compile, and a unit whose calls all have
     * literal shapes then compiled the whole table for the paths they had folded away (docs/api.md,
     * "Compile time"). */
    return TKI_SEL(tki_gemm_f32_plain_body)(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* The CPU table this copy of tk was generated for, e.g. "zen5". */
static inline const char *tk_cpu_name(void) { return TKI_CPU_NAME; }

#if defined(_OPENMP)
#include <omp.h>
/* Optional helper, compiled only with OpenMP: runs parts 0..T-1 of T on OpenMP threads, each with
 * its own static workspace (d->workspace must be NULL), T = tk_gemm_f32_parts(d, the OpenMP thread
 * limit): a small problem runs on the calling thread. d->part / d->nparts are ignored. The split is
 * the table's, so results are bitwise those of one thread. */
static inline tk_status tk_gemm_f32_omp(const tk_gemm_desc *d)
{
    tk_status st = TK_OK;
    tk_gemm_desc probe;
    int parts;
    if (!d) return TK_ERR_NULL;
    if (d->workspace) return TK_ERR_WORKSPACE;
    probe = *d;
    probe.part = 0;
    probe.nparts = 1;
    {
        /* validate once up front so that no thread writes C when another would fail */
        tki_gemm_args g;
        int nothing;
        st = tki_gemm_check(&probe, &g, &nothing);
        if (st != TK_OK || nothing) return st;
    }
    parts = (int)tk_gemm_f32_parts(&probe, (size_t)omp_get_max_threads());
    if (parts <= 1) return tk_gemm_f32_ex(&probe);
#pragma omp parallel num_threads(parts)
    {
        tk_gemm_desc mine = *d;
        tk_status s;
        mine.part = (size_t)omp_get_thread_num();
        mine.nparts = (size_t)omp_get_num_threads();
        s = tk_gemm_f32_ex(&mine);
        if (s != TK_OK) {
#pragma omp critical(tk_gemm_f32_omp)
            st = s;
        }
    }
    return st;
}
#endif

#ifdef __cplusplus
}
#endif
#endif /* TK_GEMM_H */
