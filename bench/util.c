/* bench/util.c - small platform helpers shared by the driver and the adapters: clocks, aligned
 * memory, deterministic random data, what the OS says about CPUs, caches and memory, and a tiny
 * spinning thread pool for adapters that split the work themselves. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TKB_CPU_RELAX() _mm_pause()
#else
#define TKB_CPU_RELAX() ((void)0)
#endif

double tkb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tkb_sleep(double seconds)
{
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* 64 bytes: one cache line and one AVX-512 vector, and TK_WORKSPACE_ALIGN. */
void *tkb_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0)
        return NULL;
    return p;
}

void tkb_free(void *p) { free(p); }

/* xorshift64*: fast enough to fill gigabytes, and the same seed gives the same matrix, so every
 * library sees identical inputs and a shape's reference can be rebuilt at will. */
void tkb_fill_random(float *x, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (s == 0)
        s = 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint64_t r = s * 0x2545F4914F6CDD1Dull;
        /* top 24 bits -> [0, 1) exactly representable, then to [-1, 1) */
        x[i] = (float)(r >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    }
}

int tkb_num_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

size_t tkb_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb * 1024;
}

double tkb_loadavg(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double v = -1.0;
    if (f) {
        if (fscanf(f, "%lf", &v) != 1) v = -1.0;
        fclose(f);
    }
    return v;
}

void tkb_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *v = strchr(line, ':');
            if (v) {
                v++;
                while (*v == ' ' || *v == '\t')
                    v++;
                snprintf(buf, len, "%s", v);
                buf[strcspn(buf, "\n")] = 0;
            }
            break;
        }
    }
    fclose(f);
}

/* ---- thread pool -----------------------------------------------------------------------------
 * Workers spin on a generation counter instead of sleeping on a condition variable: a futex wake
 * costs several microseconds, which would swamp the small shapes. Spinning is only acceptable
 * while a multi-threaded case is being timed, so adapters start the pool in prepare() and stop it
 * in release(). After a long idle spin the workers yield, to stay polite on a shared machine.
 *
 * The caller, once its own part is done, spins only briefly for the others: a worker that has not
 * finished by then has usually been descheduled (another process wants the core), and waiting for
 * it with `pause` would burn the rest of a scheduler tick (4 ms) on every call. A `pause` costs up
 * to ~140 cycles on recent Intel cores, so 2^10 of them are some 50 us. */
#ifndef TKB_SPIN_CALLER
#define TKB_SPIN_CALLER (1ul << 10)
#endif
#ifndef TKB_SPIN_WORKER
#define TKB_SPIN_WORKER (1ul << 14)
#endif
static struct {
    pthread_t threads[TKB_MAX_THREADS];
    int nthreads;                 /* including the caller; 0 when stopped */
    tkb_task_fn fn;
    void *arg;
    atomic_uint generation;       /* bumped by tkb_pool_run to hand out a task */
    atomic_int done;              /* workers finished with the current generation */
    atomic_int quit;
    unsigned start_generation;    /* the generation workers start from (see worker_main) */
} pool;

typedef struct {
    int tid;
} worker_arg;
static worker_arg worker_args[TKB_MAX_THREADS];

static void *worker_main(void *p)
{
    int tid = ((worker_arg *)p)->tid;
    /* Not the current generation: the caller may already have handed out the first task before
     * this thread got to run, and that task must not be missed. */
    unsigned seen = pool.start_generation;
    for (;;) {
        unsigned long spins = 0;
        unsigned g;
        while ((g = atomic_load_explicit(&pool.generation, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&pool.quit, memory_order_relaxed))
                return NULL;
            if (++spins > TKB_SPIN_WORKER)
                sched_yield();
            else
                TKB_CPU_RELAX();
        }
        seen = g;
        pool.fn(pool.arg, tid, pool.nthreads);
        atomic_fetch_add_explicit(&pool.done, 1, memory_order_acq_rel);
    }
}

int tkb_pool_start(int nthreads)
{
    if (pool.nthreads)
        tkb_pool_stop();
    if (nthreads < 1 || nthreads > TKB_MAX_THREADS)
        return -1;
    atomic_store(&pool.quit, 0);
    atomic_store(&pool.done, 0);
    pool.nthreads = nthreads;
    pool.start_generation = atomic_load(&pool.generation);
    for (int t = 1; t < nthreads; t++) {
        worker_args[t].tid = t;
        if (pthread_create(&pool.threads[t], NULL, worker_main, &worker_args[t]) != 0) {
            pool.nthreads = t; /* stop the ones already running */
            tkb_pool_stop();
            return -1;
        }
    }
    return 0;
}

void tkb_pool_run(tkb_task_fn fn, void *arg)
{
    int n = pool.nthreads ? pool.nthreads : 1;
    if (n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pool.fn = fn;
    pool.arg = arg;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    /* release: the workers see fn/arg/done before they see the new generation */
    atomic_fetch_add_explicit(&pool.generation, 1u, memory_order_release);
    fn(arg, 0, n);
    unsigned long spins = 0;
    while (atomic_load_explicit(&pool.done, memory_order_acquire) != n - 1) {
        if (++spins > TKB_SPIN_CALLER)
            sched_yield(); /* a worker is not running: let it have this core */
        else
            TKB_CPU_RELAX();
    }
}

void tkb_pool_stop(void)
{
    if (!pool.nthreads)
        return;
    atomic_store(&pool.quit, 1);
    for (int t = 1; t < pool.nthreads; t++)
        pthread_join(pool.threads[t], NULL);
    pool.nthreads = 0;
}
