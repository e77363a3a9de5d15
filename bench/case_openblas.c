/* bench/case_openblas.c - OpenBLAS cblas_sgemm as a peer.
 *
 * Threads: the bench links the pthread build of OpenBLAS and sets the thread count per case with
 * openblas_set_num_threads() (1 for the single-thread column, n for n threads). With one thread
 * OpenBLAS calls its kernels directly in the caller, as the serial build does. If the library at
 * run time turns out to be a sequential build (openblas_get_parallel() == 0), multi-thread cases
 * are reported n/a instead of silently running on one thread.
 *
 * Kernels: OpenBLAS picks its kernels at load time from the CPU, unless OPENBLAS_CORETYPE forces a
 * core; bench/run.sh unsets it (and OPENBLAS_L2_SIZE) for the benchmark so that the AVX-512 kernels
 * are used. describe() reports the core it chose (openblas_get_corename()). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include <cblas.h>

typedef struct {
    tkb_problem p;
} ob_case;

static void describe(char *buf, size_t len)
{
    int par = openblas_get_parallel();
    snprintf(buf, len, "%s; core %s; %s, thread count set per case with openblas_set_num_threads",
             openblas_get_config(), openblas_get_corename(),
             par == OPENBLAS_SEQUENTIAL ? "sequential build"
             : par == OPENBLAS_OPENMP   ? "OpenMP build"
                                        : "pthread build");
}

static int prepare(const tkb_problem *p, void **state, char *why, size_t whylen)
{
    if (p->nthreads > 1 && openblas_get_parallel() == OPENBLAS_SEQUENTIAL) {
        snprintf(why, whylen, "sequential OpenBLAS build");
        return TKB_UNSUPPORTED;
    }
    ob_case *s = malloc(sizeof *s);
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return TKB_FAILED;
    }
    s->p = *p;
    openblas_set_num_threads(p->nthreads);
    *state = s;
    return TKB_OK;
}

static int run(void *state, const float *a, const float *b, float *c)
{
    const tkb_problem *p = &((ob_case *)state)->p;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)p->m, (blasint)p->n,
                (blasint)p->k, 1.0f, a, (blasint)p->k, b, (blasint)p->n, 0.0f, c, (blasint)p->n);
    return 0;
}

static void release(void *state)
{
    ob_case *s = state;
    if (!s)
        return;
    if (s->p.nthreads > 1) {
        /* After a call, OpenBLAS's idle workers keep spinning (sched_yield) for 2^28 TSC ticks,
         * about 0.1 s, before they sleep. On a 2-core machine that would take a core away from
         * whatever is measured next, so wait them out. */
        tkb_sleep(0.2);
    }
    openblas_set_num_threads(1);
    free(s);
}

const tkb_lib tkb_lib_openblas = {
    "openblas", 1, TKB_MAX_THREADS, 0, describe, prepare, run, release,
};
