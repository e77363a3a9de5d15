/* machine.c - the host's own figures for the model: streaming-read bandwidth and load latency out of
 * each cache level and DRAM (a working set of half the level, or four times the last level), each
 * the median of repeated passes. Runs in this process: reading memory cannot crash. */
#define _POSIX_C_SOURCE 200809L
#include "machine.h"
#include "profile.h"
#include "../bench/cold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The bytes of the widest vector load the compiler was allowed (machine.c is built for the host):
 * recorded with the figures, so bandwidths measured with narrower loads are measured again. */
#if defined(__AVX512F__)
#define SWEEP_BYTES 64
#elif defined(__AVX__)
#define SWEEP_BYTES 32
#else
#define SWEEP_BYTES 16
#endif

int machine_sweep_bytes(void) { return SWEEP_BYTES; }

/* 64 independent sums (16 vectors of 4, or 8 of 8 where the compiler has them) so the loads, not the
 * add latency, set the pace. `salt` differs per call so no
 * compiler can fold repeated sweeps of the same data into one. */
static float sweep(const float *p, size_t n, float salt)
{
    float s[64] = {0}, t = salt;
    size_t i;
    for (i = 0; i + 64 <= n; i += 64)
        for (int j = 0; j < 64; j++) s[j] += p[i + j];
    for (int j = 0; j < 64; j++) t += s[j];
    return t;
}

double measure_read_bw(size_t bytes, int reps)
{
    size_t n = bytes / sizeof(float);
    void *mem = NULL;
    double g[31], sink = 0;
    /* on cache lines, as the kernels' packed panels are: malloc's 16-byte alignment split every
     * 64-byte load over two lines, and Zen 5's L2 read 122 GB/s instead of 277 */
    if (reps < 1 || posix_memalign(&mem, 64, n * sizeof(float))) return 0;
    float *p = mem;
    if (reps > 31) reps = 31;
    for (size_t i = 0; i < n; i++) p[i] = (float)(i & 7);
    sink += sweep(p, n, 0.0f); /* warm-up: page faults and the first fill */
    for (int r = 0; r < reps; r++) {
        /* enough passes over a small set for a measurable time */
        size_t passes = 1 + (64u << 20) / bytes, q;
        double t0 = tune_now();
        for (q = 0; q < passes; q++) sink += sweep(p, n, (float)q) * 0.5f;
        g[r] = (double)passes * (double)bytes / (tune_now() - t0);
    }
    free(p);
    qsort(g, (size_t)reps, sizeof g[0], cmp);
    return sink == -1.0 ? 0 : g[reps / 2];
}

/* Median nanoseconds of one dependent load out of a working set of `bytes`: a pointer chase over
 * its cache lines in a random cycle, so neither the prefetchers nor the out-of-order core can run
 * ahead (the loads the model charges a latency for: the first line of a panel, a row of B read in
 * place). Pages are the OS's own, as the kernels' operands are: past the TLB's reach the walk is
 * part of the latency, as it is for them. */
double measure_latency(size_t bytes, int reps)
{
    const size_t line = 64 / sizeof(size_t), n = bytes / 64, steps = (size_t)1 << 20;
    void *mem = NULL;
    size_t *order = malloc(n * sizeof *order), at = 0;
    double g[31];
    if (n < 2 || reps < 1 || !order || posix_memalign(&mem, 64, n * 64)) {
        free(order);
        free(mem);
        return 0;
    }
    if (reps > 31) reps = 31;
    size_t *p = mem;
    unsigned long long x = 0x9e3779b97f4a7c15ull; /* xorshift: a fixed shuffle, the same every run */
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = (size_t)(x % (i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t i = 0; i < n; i++) p[order[i] * line] = order[(i + 1) % n] * line;
    for (size_t i = 0; i < n; i++) at = p[at]; /* warm-up: page faults and the first fill */
    for (int r = 0; r < reps; r++) {
        double t0 = tune_now();
        for (size_t i = 0; i < steps; i++) at = p[at];
        g[r] = (tune_now() - t0) / (double)steps * 1e9;
    }
    free(order);
    free(mem);
    qsort(g, (size_t)reps, sizeof g[0], cmp);
    return at == (size_t)-1 ? 0 : g[reps / 2]; /* `at` used: the chase cannot be optimised away */
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
/* Seconds for `iters` rounds of 12 independent FMA chains on 512-bit (wide) or 256-bit vectors: more
 * chains than two FMA pipes times a 4-cycle latency, so the issue rate sets the pace. */
static double fma_seconds(int wide, long iters, float *sink)
{
    double t0 = tune_now();
    float s = 0;
    if (wide) {
        __m512 a[12];
        const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-3f);
        for (int j = 0; j < 12; j++) a[j] = _mm512_set1_ps((float)j);
        for (long i = 0; i < iters; i++)
            for (int j = 0; j < 12; j++) a[j] = _mm512_fmadd_ps(a[j], x, y);
        for (int j = 0; j < 12; j++) s += _mm512_reduce_add_ps(a[j]);
    } else {
        __m256 a[12];
        const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(1e-3f);
        for (int j = 0; j < 12; j++) a[j] = _mm256_set1_ps((float)j);
        for (long i = 0; i < iters; i++)
            for (int j = 0; j < 12; j++) a[j] = _mm256_fmadd_ps(a[j], x, y);
        for (int j = 0; j < 12; j++) s += _mm_cvtss_f32(_mm256_castps256_ps128(a[j]));
    }
    *sink += s;
    return tune_now() - t0;
}

double measure_half_cost(void)
{
    double g[7];
    float sink = 0;
    (void)fma_seconds(1, 1 << 18, &sink); /* warm-up: the 512-bit units wake up */
    for (int r = 0; r < 7; r++) {
        const double wide = fma_seconds(1, 1 << 20, &sink), half = fma_seconds(0, 1 << 20, &sink);
        g[r] = half / wide;
    }
    qsort(g, 7, sizeof g[0], cmp);
    return sink == -1.0f ? 0 : g[3];
}
#else
/* no 512-bit vectors in this build: nothing narrower to gain */
double measure_half_cost(void) { return 1.0; }
#endif

int machine_record(const char *cpu, const cand_caps *k, const char *log, char *line, size_t cap)
{
    double l2 = measure_read_bw((size_t)(k->l2 / 2), 9), l3 = measure_read_bw((size_t)(k->l3 / 2), 7);
    /* memory: the cold measurements' buffer (bench/cold.h), sized from the host's LLC where it is
     * larger than the table's, so that the set is past every cache the host reports */
    const unsigned long long big = tkb_cold_buffer_for(k->l3, 1);
    double dram = measure_read_bw((size_t)big, 5);
    /* the L3's latency over a quarter of it: over half of Zen 5's 32 MiB a random chase read 27-70 ns
     * (the L3 is shared with other tenants, and 16 MiB of random pages is the L2 TLB's whole reach)
     * against 12 ns over 8 MiB */
    double lat2 = measure_latency((size_t)(k->l2 / 2), 5), lat3 = measure_latency((size_t)(k->l3 / 4), 5),
           latd = measure_latency((size_t)big, 3);
    double half = measure_half_cost();
    char host[160];
    machine_host(host, sizeof host);
    snprintf(line, cap,
             "tk-record 1 op=machine cpu=%s host=%s sweep=%d bw_l2=%.3g bw_l3=%.3g bw_dram=%.3g lat_l2=%.3g "
             "lat_l3=%.3g lat_dram=%.3g half=%.3g dram_set=%llu evidence=measured date=%ld\n",
             cpu, host, SWEEP_BYTES, l2, l3, dram, lat2, lat3, latd, half, big, (long)time(NULL));
    if (log) {
        FILE *f = fopen(log, "a");
        if (!f || fputs(line, f) < 0 || fclose(f)) return 0;
    }
    return l2 > 0 && l3 > 0 && dram > 0 && lat2 > 0 && lat3 > 0 && latd > 0 && half > 0;
}

/* the value of the first /proc/cpuinfo line whose key is exactly `key`, into buf; 0 when none */
static int cpuinfo_value(const char *key, char *buf, size_t cap)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        size_t klen = strcspn(line, "\t:");
        const char *colon = strchr(line, ':');
        if (!colon || klen != strlen(key) || strncmp(line, key, klen)) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        snprintf(buf, cap, "%.*s", (int)strcspn(colon, "\n"), colon);
        fclose(f);
        return 1;
    }
    fclose(f);
    return 0;
}

void machine_cpu_name(char *buf, size_t cap)
{
    char name[128], family[16], model[16];
    /* virtual machines often shorten the name ("AMD EPYC"): family and model say which one */
    if (cpuinfo_value("model name", name, sizeof name)) {
        if (cpuinfo_value("cpu family", family, sizeof family) && cpuinfo_value("model", model, sizeof model))
            snprintf(buf, cap, "%s (family %s, model %s)", name, family, model);
        else
            snprintf(buf, cap, "%s", name);
    } else if (cpuinfo_value("CPU part", name, sizeof name)) {
        snprintf(buf, cap, "a processor of part %s", name);
    } else {
        snprintf(buf, cap, "an unnamed processor");
    }
}

void machine_host(char *buf, size_t cap)
{
    machine_cpu_name(buf, cap);
    for (char *p = buf; *p; p++)
        if (*p == ' ' || *p == '=') *p = '_';
}
