/* bench/case_xsmm.c - libxsmm 1.17 as a peer: one JIT-generated kernel per shape.
 *
 * libxsmm is column-major. A row-major C[m x n] = A[m x k] B[k x n] is, read column-major, the
 * n x m matrix C^T = B^T A^T, and the row-major arrays B and A already are B^T (n x k, ld n) and
 * A^T (k x m, ld k) in column-major. So the kernel is dispatched for (M, N, K) = (n, m, k) and
 * called as kernel(B, A, C): no copies, no transposes.
 *
 * The kernel is single-threaded (libxsmm leaves threading to the caller), so only the 1-thread
 * column has libxsmm. Shapes libxsmm's JIT declines (dispatch returns NULL) are reported n/a.
 * Linked statically: -lxsmm -lxsmmnoblas -lpthread -lrt -ldl -lm, in that order. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include <libxsmm.h>

typedef struct {
    libxsmm_smmfunction kernel;
} xsmm_case;

static void describe(char *buf, size_t len)
{
    libxsmm_init();
    snprintf(buf, len, "libxsmm %s (%s), JIT target %s, libxsmm_smmdispatch per shape, 1 thread",
             LIBXSMM_CONFIG_VERSION, LIBXSMM_CONFIG_BRANCH, libxsmm_get_target_arch());
}

static int prepare(const tkb_problem *p, void **state, char *why, size_t whylen)
{
    if (p->nthreads > 1) {
        snprintf(why, whylen, "single-threaded kernels");
        return TKB_UNSUPPORTED;
    }
    const libxsmm_blasint m = (libxsmm_blasint)p->n, n = (libxsmm_blasint)p->m,
                          k = (libxsmm_blasint)p->k;
    const libxsmm_blasint lda = m, ldb = k, ldc = m;
    const float alpha = 1.0f, beta = 0.0f; /* beta 0: C is written without being read */
    const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
    libxsmm_smmfunction f =
        libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
    if (!f) {
        snprintf(why, whylen, "libxsmm_smmdispatch returned no kernel");
        return TKB_UNSUPPORTED;
    }
    xsmm_case *s = malloc(sizeof *s);
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return TKB_FAILED;
    }
    s->kernel = f;
    *state = s;
    return TKB_OK;
}

static int run(void *state, const float *a, const float *b, float *c)
{
    ((xsmm_case *)state)->kernel(b, a, c); /* column-major C^T = B^T A^T, see the top */
    return 0;
}

static void release(void *state) { free(state); }

const tkb_lib tkb_lib_xsmm = {
    "libxsmm", 1, 1, 0, describe, prepare, run, release,
};
