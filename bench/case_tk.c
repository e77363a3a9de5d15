/* bench/case_tk.c - tk itself, called the way its users call it.
 *
 * 1 thread: the plain tk_gemm_f32() entry point, exactly what an application writes.
 * n threads: tk creates no threads of its own; the caller splits the work with the descriptor's
 * (part, nparts). By default P = tk_gemm_f32_parts(d, n) threads of the bench's own pool each call
 * tk_gemm_f32_ex() with part t of P and its own workspace of tk_gemm_f32_workspace_size() bytes; a
 * problem too small to be worth a second part (P = 1) runs on the calling thread, as OpenBLAS does.
 * When the bench is built with TK_BENCH_OPENMP=ON (TKB_TK_OPENMP defined and this file compiled with -fopenmp) the
 * tk_gemm_f32_omp() helper runs the parts on OpenMP threads instead.
 *
 * This is the only file that includes tk: its compile flags (whatever the tk_headers target
 * carries, plus TK_BENCH_TK_FLAGS) decide how tk's kernels are built. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tk/gemm.h>

#ifdef TKB_TK_OPENMP
#include <omp.h>
#define TKB_OMP 1
#else
#define TKB_OMP 0
#endif

typedef struct {
    tkb_problem p;
    tk_gemm_desc d[TKB_MAX_THREADS]; /* one descriptor (part) per thread */
    void *ws[TKB_MAX_THREADS];
    tk_status st[TKB_MAX_THREADS];
    int parts; /* tk_gemm_f32_parts: 1 runs on the calling thread */
    int pool_started;
} tk_case;

static void describe(char *buf, size_t len)
{
#ifdef TKB_TK_OPENMP
    const char *threads = "n threads: tk_gemm_f32_omp (OpenMP)";
#else
    const char *threads = "n threads: tk_gemm_f32_ex part t of n on bench pthreads";
#endif
#ifndef TKB_TK_PLACE
#define TKB_TK_PLACE ""
#endif
    /* the code placement flags (bench/CMakeLists.txt), which users' builds may not have */
    const char *place = TKB_TK_PLACE[0] ? "; built with " TKB_TK_PLACE : "";
#ifdef TKB_TK_PREV
    snprintf(buf, len, "tk built from the previous table (%s) for CPU \"%s\"; %s%s", TKB_TK_PREV, tk_cpu_name(),
             threads, place);
#else
    snprintf(buf, len, "tk header-only, CPU table \"%s\"; 1 thread: tk_gemm_f32; %s%s", tk_cpu_name(), threads,
             place);
#endif
}

static void fill_desc(tk_gemm_desc *d, const tkb_problem *p)
{
    memset(d, 0, sizeof *d); /* the documented way to default every extra */
    d->transa = TK_NO_TRANS;
    d->transb = TK_NO_TRANS;
    d->m = p->m;
    d->n = p->n;
    d->k = p->k;
    d->alpha = 1.0f;
    d->a = p->a;
    d->lda = p->k;
    d->b = p->b;
    d->ldb = p->n;
    d->beta = 0.0f;
    d->c = p->c;
    d->ldc = p->n;
    d->epilogue = TK_EPI_NONE;
}

static void release(void *state);

static int prepare(const tkb_problem *p, void **state, char *why, size_t whylen)
{
    tk_case *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return TKB_FAILED;
    }
    s->p = *p;
    *state = s;
    if (p->nthreads <= 1)
        return TKB_OK;

#ifdef TKB_TK_OPENMP
    fill_desc(&s->d[0], p); /* part 0 of 0: the helper splits across the team itself */
    omp_set_num_threads(p->nthreads);
    return TKB_OK;
#else
    /* as many parts as tk says are worth it: a small problem stays on the calling thread */
    fill_desc(&s->d[0], p);
    s->parts = (int)tk_gemm_f32_parts(&s->d[0], (size_t)p->nthreads);
    if (s->parts <= 1)
        return TKB_OK;
    for (int t = 0; t < s->parts; t++) {
        tk_gemm_desc *d = &s->d[t];
        fill_desc(d, p);
        d->part = (size_t)t;
        d->nparts = (size_t)s->parts;
        size_t bytes = tk_gemm_f32_workspace_size(d);
        if (bytes) {
            /* one workspace per thread: parts run concurrently and must not share packing buffers */
            s->ws[t] = tkb_alloc((bytes + TK_WORKSPACE_ALIGN - 1) / TK_WORKSPACE_ALIGN * TK_WORKSPACE_ALIGN);
            if (!s->ws[t]) {
                snprintf(why, whylen, "cannot allocate a %zu-byte workspace", bytes);
                release(s);
                *state = NULL;
                return TKB_FAILED;
            }
            d->workspace = s->ws[t];
            d->workspace_size = bytes;
        }
    }
    if (tkb_pool_start(s->parts) != 0) {
        snprintf(why, whylen, "cannot start %d threads", s->parts);
        release(s);
        *state = NULL;
        return TKB_FAILED;
    }
    s->pool_started = 1;
    return TKB_OK;
#endif
}

#ifndef TKB_TK_OPENMP
static void run_part(void *arg, int tid, int nthreads)
{
    (void)nthreads;
    tk_case *s = arg;
    s->st[tid] = tk_gemm_f32_ex(&s->d[tid]);
}
#endif

static int run(void *state, const float *a, const float *b, float *c)
{
    tk_case *s = state;
    const tkb_problem *p = &s->p;
    if (p->nthreads <= 1 || (!TKB_OMP && s->parts <= 1))
        return (int)tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, p->m, p->n, p->k, 1.0f, a, p->k, b, p->n,
                                0.0f, c, p->n);
#ifdef TKB_TK_OPENMP
    s->d[0].a = a;
    s->d[0].b = b;
    s->d[0].c = c;
    return (int)tk_gemm_f32_omp(&s->d[0]);
#else
    for (int t = 0; t < s->parts; t++) {
        s->d[t].a = a;
        s->d[t].b = b;
        s->d[t].c = c;
    }
    tkb_pool_run(run_part, s);
    for (int t = 0; t < s->parts; t++)
        if (s->st[t] != TK_OK)
            return (int)s->st[t];
    return 0;
#endif
}

static void release(void *state)
{
    tk_case *s = state;
    if (!s)
        return;
    if (s->pool_started)
        tkb_pool_stop();
    for (int t = 0; t < TKB_MAX_THREADS; t++)
        tkb_free(s->ws[t]);
    free(s);
}

#ifdef TKB_TK_PREV
const tkb_lib tkb_lib_tk_prev = {
    "tk-prev", 0, TKB_MAX_THREADS, 0, describe, prepare, run, release,
};
#else
const tkb_lib tkb_lib_tk = {
    "tk", 0, TKB_MAX_THREADS, 0, describe, prepare, run, release,
};
#endif
