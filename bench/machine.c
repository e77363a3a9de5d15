/* bench/machine.c - what this machine can do, measured in the same run as the benchmarks:
 * f32 FMA throughput (the compute roof) and streaming-read bandwidth from DRAM (the memory roof).
 *
 * Datasheet peaks are no use on a shared or virtualised host (clock, turbo, AVX-512 licence, the
 * hypervisor), so both roofs are measured with small kernels compiled for the widest ISA the CPU
 * reports. The ISA-specific functions carry target attributes, so this file needs no -m flags and
 * the binary still runs on older x86 CPUs and builds on other architectures (portable C there). */
#define _GNU_SOURCE
#include "bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define TKB_X86 1
#include <immintrin.h>
#endif

/* ---- FMA throughput ----------------------------------------------------------------------------
 * Enough independent accumulators to cover FMA latency x FMA ports (4 x 2 on current x86 cores),
 * all kept in registers: 16 zmm for AVX-512 (of 32), 12 ymm for AVX2 (of 16, leaving room for the
 * two constants). acc = acc * x + y converges to y / (1 - x): no overflow, no denormals. */

#ifdef TKB_X86
__attribute__((target("avx512f"))) static double fma_avx512(long iters)
{
    __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-6f);
    /* distinct starting values: identical chains would be merged into one by the compiler */
    __m512 a0 = _mm512_set1_ps(0.10f), a1 = _mm512_set1_ps(0.11f), a2 = _mm512_set1_ps(0.12f);
    __m512 a3 = _mm512_set1_ps(0.13f), a4 = _mm512_set1_ps(0.14f), a5 = _mm512_set1_ps(0.15f);
    __m512 a6 = _mm512_set1_ps(0.16f), a7 = _mm512_set1_ps(0.17f), a8 = _mm512_set1_ps(0.18f);
    __m512 a9 = _mm512_set1_ps(0.19f), a10 = _mm512_set1_ps(0.20f), a11 = _mm512_set1_ps(0.21f);
    __m512 a12 = _mm512_set1_ps(0.22f), a13 = _mm512_set1_ps(0.23f), a14 = _mm512_set1_ps(0.24f);
    __m512 a15 = _mm512_set1_ps(0.25f);
    for (long i = 0; i < iters; i++) {
        a0 = _mm512_fmadd_ps(a0, x, y);   a1 = _mm512_fmadd_ps(a1, x, y);
        a2 = _mm512_fmadd_ps(a2, x, y);   a3 = _mm512_fmadd_ps(a3, x, y);
        a4 = _mm512_fmadd_ps(a4, x, y);   a5 = _mm512_fmadd_ps(a5, x, y);
        a6 = _mm512_fmadd_ps(a6, x, y);   a7 = _mm512_fmadd_ps(a7, x, y);
        a8 = _mm512_fmadd_ps(a8, x, y);   a9 = _mm512_fmadd_ps(a9, x, y);
        a10 = _mm512_fmadd_ps(a10, x, y); a11 = _mm512_fmadd_ps(a11, x, y);
        a12 = _mm512_fmadd_ps(a12, x, y); a13 = _mm512_fmadd_ps(a13, x, y);
        a14 = _mm512_fmadd_ps(a14, x, y); a15 = _mm512_fmadd_ps(a15, x, y);
        /* an empty asm the compiler cannot see through: no chain may be merged or dropped */
        __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                         "+v"(a6), "+v"(a7));
        __asm__ volatile("" : "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11), "+v"(a12), "+v"(a13),
                         "+v"(a14), "+v"(a15));
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                                       _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
    return (double)_mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters)
{
    __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-6f);
    __m256 a0 = _mm256_set1_ps(0.10f), a1 = _mm256_set1_ps(0.11f), a2 = _mm256_set1_ps(0.12f);
    __m256 a3 = _mm256_set1_ps(0.13f), a4 = _mm256_set1_ps(0.14f), a5 = _mm256_set1_ps(0.15f);
    __m256 a6 = _mm256_set1_ps(0.16f), a7 = _mm256_set1_ps(0.17f), a8 = _mm256_set1_ps(0.18f);
    __m256 a9 = _mm256_set1_ps(0.19f), a10 = _mm256_set1_ps(0.20f), a11 = _mm256_set1_ps(0.21f);
    for (long i = 0; i < iters; i++) {
        a0 = _mm256_fmadd_ps(a0, x, y);   a1 = _mm256_fmadd_ps(a1, x, y);
        a2 = _mm256_fmadd_ps(a2, x, y);   a3 = _mm256_fmadd_ps(a3, x, y);
        a4 = _mm256_fmadd_ps(a4, x, y);   a5 = _mm256_fmadd_ps(a5, x, y);
        a6 = _mm256_fmadd_ps(a6, x, y);   a7 = _mm256_fmadd_ps(a7, x, y);
        a8 = _mm256_fmadd_ps(a8, x, y);   a9 = _mm256_fmadd_ps(a9, x, y);
        a10 = _mm256_fmadd_ps(a10, x, y); a11 = _mm256_fmadd_ps(a11, x, y);
        __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5),
                         "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float t[8];
    _mm256_storeu_ps(t, s);
    return (double)(t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]);
}
#endif

/* Portable fallback: whatever the compiler vectorises; a lower bound on the true peak. */
static double fma_portable(long iters)
{
    float acc[64];
    for (int j = 0; j < 64; j++)
        acc[j] = 0.1f + 0.001f * (float)j;
    for (long i = 0; i < iters; i++) {
        for (int j = 0; j < 64; j++)
            acc[j] = acc[j] * 0.999999f + 1e-6f;
    }
    double s = 0;
    for (int j = 0; j < 64; j++)
        s += acc[j];
    return s;
}

/* Many short trials, keeping the fastest: on a shared or virtualised machine a long trial is
 * likely to be preempted, while a ~1 ms one usually runs undisturbed, and interference can only
 * make a trial slower. Threads run their trials at the same time (one barrier) so that the
 * multi-thread figure includes any clock drop from loading every core. */
#define TKB_FMA_TRIAL_S 0.001
#define TKB_FMA_TOTAL_S 0.25

typedef struct {
    double (*fn)(long);
    double flops_per_iter;
    long iters;
    pthread_barrier_t *start;
    double best_gflops;
    double sink;
} fma_job;

static void *fma_thread(void *p)
{
    fma_job *j = p;
    if (j->start)
        pthread_barrier_wait(j->start);
    double until = tkb_now() + TKB_FMA_TOTAL_S;
    do {
        double t0 = tkb_now();
        j->sink += j->fn(j->iters);
        double dt = tkb_now() - t0;
        double g = j->flops_per_iter * (double)j->iters / dt * 1e-9;
        if (dt > 0 && g > j->best_gflops)
            j->best_gflops = g;
    } while (tkb_now() < until);
    return NULL;
}

double tkb_measure_peak_gflops(int nthreads, const char **isa)
{
    double (*fn)(long) = fma_portable;
    double fpi = 64 * 2;
    const char *name = "portable C";
#ifdef TKB_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        fn = fma_avx512, fpi = 16 * 16 * 2, name = "avx512f";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        fn = fma_avx2, fpi = 12 * 8 * 2, name = "avx2+fma";
    }
#endif
    if (isa)
        *isa = name;
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > TKB_MAX_THREADS)
        nthreads = TKB_MAX_THREADS;

    /* Warm up (the core reaches its full, possibly AVX-512-reduced, clock) while finding the
     * iteration count of one trial. */
    long iters = 1 << 10;
    double per_iter = 1.0, t_end = tkb_now() + 0.05;
    while (tkb_now() < t_end) {
        double t0 = tkb_now();
        volatile double sink = fn(iters);
        (void)sink;
        double dt = tkb_now() - t0;
        if (dt > 0 && dt / (double)iters < per_iter)
            per_iter = dt / (double)iters;
        if (dt < TKB_FMA_TRIAL_S)
            iters *= 2;
    }
    iters = (long)(TKB_FMA_TRIAL_S / per_iter) + 1;

    fma_job jobs[TKB_MAX_THREADS];
    pthread_t th[TKB_MAX_THREADS];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (fma_job){fn, fpi, iters, nthreads > 1 ? &bar : NULL, 0, 0};
        if (t > 0)
            pthread_create(&th[t], NULL, fma_thread, &jobs[t]);
    }
    fma_thread(&jobs[0]);
    double total = jobs[0].best_gflops;
    for (int t = 1; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        total += jobs[t].best_gflops;
    }
    pthread_barrier_destroy(&bar);
    return total;
}

/* ---- streaming read ------------------------------------------------------------------------------
 * Sum the buffer with several independent vector accumulators so the loads, not the adds, are the
 * limit. The sum is returned, so the loads cannot be removed. */

#ifdef TKB_X86
__attribute__((target("avx512f"))) static double read_avx512(const float *p, size_t n)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(p + i));
        s1 = _mm512_add_ps(s1, _mm512_load_ps(p + i + 16));
        s2 = _mm512_add_ps(s2, _mm512_load_ps(p + i + 32));
        s3 = _mm512_add_ps(s3, _mm512_load_ps(p + i + 48));
    }
    double r = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < n; i++)
        r += p[i];
    return r;
}

__attribute__((target("avx2"))) static double read_avx2(const float *p, size_t n)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_add_ps(s0, _mm256_load_ps(p + i));
        s1 = _mm256_add_ps(s1, _mm256_load_ps(p + i + 8));
        s2 = _mm256_add_ps(s2, _mm256_load_ps(p + i + 16));
        s3 = _mm256_add_ps(s3, _mm256_load_ps(p + i + 24));
    }
    float t[8];
    _mm256_storeu_ps(t, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    double r = t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
    for (; i < n; i++)
        r += p[i];
    return r;
}
#endif

static double read_portable(const float *p, size_t n)
{
    float s[16] = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++)
            s[j] += p[i + j];
    double r = 0;
    for (int j = 0; j < 16; j++)
        r += s[j];
    for (; i < n; i++)
        r += p[i];
    return r;
}

/* Each thread reads its part of the buffer in chunks of TKB_BW_CHUNK bytes and times every chunk;
 * its bandwidth is the median chunk rate over all passes, so chunks slowed down by preemption on
 * a shared machine do not count, while no chunk can come from cache: the whole buffer, several
 * times the LLC, is read between two visits of any chunk. Threads read concurrently. */
#define TKB_BW_CHUNK ((size_t)8 << 20)

typedef struct {
    double (*fn)(const float *, size_t);
    const float *p;
    size_t n;          /* floats in this thread's part */
    int passes;
    pthread_barrier_t *start;
    double gbs, sink;
} read_job;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void *read_thread(void *arg)
{
    read_job *j = arg;
    size_t chunk = TKB_BW_CHUNK / sizeof(float);
    size_t nchunks = j->n / chunk;
    if (nchunks == 0)
        nchunks = 1, chunk = j->n;
    double *rates = malloc(nchunks * (size_t)j->passes * sizeof *rates);
    size_t nr = 0;
    if (j->start)
        pthread_barrier_wait(j->start);
    for (int pass = 0; pass < j->passes; pass++)
        for (size_t c = 0; c < nchunks; c++) {
            double t0 = tkb_now();
            j->sink += j->fn(j->p + c * chunk, chunk);
            double dt = tkb_now() - t0;
            if (rates && dt > 0)
                rates[nr++] = (double)(chunk * sizeof(float)) / dt * 1e-9;
        }
    if (rates && nr) {
        qsort(rates, nr, sizeof *rates, cmp_double);
        j->gbs = rates[nr / 2];
    }
    free(rates);
    return NULL;
}

double tkb_measure_read_bw(const float *buf, size_t bytes, int nthreads, int passes)
{
    double (*fn)(const float *, size_t) = read_portable;
#ifdef TKB_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        fn = read_avx512;
    else if (__builtin_cpu_supports("avx2"))
        fn = read_avx2;
#endif
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > TKB_MAX_THREADS)
        nthreads = TKB_MAX_THREADS;
    if (passes < 1)
        passes = 1;
    /* per-thread parts stay 64-byte aligned: whole multiples of 16 floats */
    size_t part = (bytes / sizeof(float) / (size_t)nthreads) & ~(size_t)15;

    read_job jobs[TKB_MAX_THREADS];
    pthread_t th[TKB_MAX_THREADS];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (read_job){fn, buf + (size_t)t * part, part, passes, nthreads > 1 ? &bar : NULL, 0, 0};
        if (t > 0)
            pthread_create(&th[t], NULL, read_thread, &jobs[t]);
    }
    read_thread(&jobs[0]);
    double total = jobs[0].gbs;
    for (int t = 1; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        total += jobs[t].gbs;
    }
    pthread_barrier_destroy(&bar);
    return total;
}
