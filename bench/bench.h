/* bench/bench.h - the contract between the benchmark driver (shim.cc) and the library adapters.
 *
 * Every library under test (tk and each peer) is one tkb_lib: a handful of plain C functions in its
 * own translation unit (case_<lib>.c / .cc), so that each library's headers and compiler flags stay
 * in that file. The driver prepares a case once per (shape, thread count), verifies one call against
 * a naive reference, and only then times run() through Google Benchmark.
 *
 * The helpers declared below (timing, aligned memory, data, reference, thread pool, machine
 * measurements) are plain C so that adapters and the driver share them. */
#ifndef TKB_BENCH_H
#define TKB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TKB_MAX_THREADS 64

/* The x86-64 level this CPU runs (4, 3) as far as the adapters' -march flags need it; 0 for less or
 * for another architecture. The driver asks it before calling an adapter built for a level, and
 * bench/CMakeLists.txt runs it on the build host to pick the level Eigen is built for. */
static inline int tkb_cpu_x86_level(void)
{
#if defined(__x86_64__)
    int v3, v4;
    __builtin_cpu_init();
    v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
    return v4 ? 4 : v3 ? 3 : 0;
#else
    return 0;
#endif
}

/* One problem as every adapter sees it: row-major C[m x n] = A[m x k] * B[k x n] with alpha = 1,
 * beta = 0 and dense operands (lda = k, ldb = n, ldc = n), computed by `nthreads` threads.
 * a, b, c point at representative operands of the right size (the ones verification uses); run()
 * may be handed other buffers of the same shape, because bandwidth-bound shapes rotate through
 * many copies to keep their operands out of cache. */
typedef struct tkb_problem {
    size_t m, n, k;
    int nthreads;
    const float *a, *b;
    float *c;
} tkb_problem;

/* prepare() results. */
enum {
    TKB_OK = 0,
    TKB_UNSUPPORTED = 1, /* the library cannot run this case (reported as n/a, not as a failure) */
    TKB_FAILED = -1      /* the library reported an error: shown as FAILED with the reason */
};

typedef struct tkb_lib {
    const char *name;   /* column name: "tk", "openblas", "libxsmm", "eigen" */
    int is_peer;        /* 0 for tk itself; the others are what tk is compared with */
    int max_threads;    /* largest thread count the adapter supports (1: single-threaded only) */
    int needs_x86_level;/* 4 or 3: the TU is compiled for x86-64-v4 or -v3; never call into it on a CPU
                         * below that level (0: runs anywhere) */
    /* One line about the build: version, kernel/core chosen, how threads are controlled. */
    void (*describe)(char *buf, size_t len);
    /* Set up for problem p (plans, JIT, workspaces, thread pools). On failure write why into
     * why[whylen] and return TKB_UNSUPPORTED or TKB_FAILED. */
    int (*prepare)(const tkb_problem *p, void **state, char *why, size_t whylen);
    /* The timed call. Returns 0, or the library's nonzero status (checked during verification). */
    int (*run)(void *state, const float *a, const float *b, float *c);
    /* Undo prepare(); also waits until the library's own threads have gone quiet, so that they do
     * not steal a core from the next case on a small machine. */
    void (*release)(void *state);
} tkb_lib;

/* The adapters. The driver only references those CMake found (TKB_HAVE_<LIB> definitions). */
extern const tkb_lib tkb_lib_tk;
/* tk built from a previous version of the CPU's table (TK_BENCH_PREV_TABLE): not a peer, shown as
 * tk/prev so that a retuned table is judged against the one it replaces in the same run */
extern const tkb_lib tkb_lib_tk_prev;
extern const tkb_lib tkb_lib_openblas;
extern const tkb_lib tkb_lib_xsmm;
extern const tkb_lib tkb_lib_eigen;

/* ---- util.c ------------------------------------------------------------------------------- */
double tkb_now(void);                              /* monotonic seconds */
void tkb_sleep(double seconds);
void *tkb_alloc(size_t bytes);                     /* 64-byte aligned, zeroed lazily by the OS; NULL on failure */
void tkb_free(void *p);
void tkb_fill_random(float *x, size_t n, uint64_t seed); /* uniform in [-1, 1), deterministic per seed */
int tkb_num_cpus(void);                            /* CPUs this process may run on */
size_t tkb_mem_available(void);                    /* MemAvailable from /proc/meminfo, 0 if unknown */
double tkb_loadavg(void);                          /* 1-minute load average, -1 if unknown */
void tkb_cpu_model(char *buf, size_t len);         /* "model name" from /proc/cpuinfo */

/* A minimal persistent thread pool for adapters that split work themselves (tk's part i of n).
 * Workers spin while the pool is started, so start it in prepare() and stop it in release(). */
typedef void (*tkb_task_fn)(void *arg, int tid, int nthreads);
int tkb_pool_start(int nthreads);                  /* 0 on success; nthreads includes the caller */
void tkb_pool_run(tkb_task_fn fn, void *arg);      /* fn on every thread (caller is tid 0); waits */
void tkb_pool_stop(void);

/* ---- verify.c ----------------------------------------------------------------------------- */
/* The reference answer for one shape: every entry of C when the product is cheap, otherwise a
 * sample chosen to cover the places blocked kernels get wrong (first/middle/last rows and columns,
 * the bottom-right edge tiles, random entries). Computed once per shape in double precision. */
typedef struct tkb_check tkb_check;
tkb_check *tkb_check_new(size_t m, size_t n, size_t k, const float *a, const float *b);
void tkb_check_free(tkb_check *ck);
int tkb_check_is_full(const tkb_check *ck);
/* Compare c against the reference; tolerance |err| <= 4 k eps max|a| max|b| (see verify.c).
 * Returns 1 if every checked entry passes, else 0 with the first bad entry described in msg. */
int tkb_check_result(const tkb_check *ck, const float *c, char *msg, size_t msglen);

/* ---- machine.c ---------------------------------------------------------------------------- */
/* Measured f32 FMA throughput of `nthreads` threads running together, in GFLOP/s (the fastest of
 * many ~1 ms trials per thread, summed). isa receives the instruction set used ("avx512f",
 * "avx2+fma", or "portable C"). */
double tkb_measure_peak_gflops(int nthreads, const char **isa);
/* Streaming-read bandwidth in GB/s (1e9 bytes/s) over buf[bytes], nthreads reading disjoint parts
 * together, `passes` times; per thread the median rate of 8 MiB chunks, summed over threads.
 * buf must be 64-byte aligned and already touched, and several times larger than the LLC. */
double tkb_measure_read_bw(const float *buf, size_t bytes, int nthreads, int passes);

#ifdef __cplusplus
}
#endif
#endif /* TKB_BENCH_H */
