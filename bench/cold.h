/* cold.h - when a shape is timed with its operands cold, and through how large a buffer. One rule
 * for the bench (bench/shim.cc), the tuner's cold measurements and tktune evaluate (tune/), so that
 * a row tuned cold is judged cold and a shape the bench times warm is evaluated warm. C and C++. */
#ifndef TK_BENCH_COLD_H
#define TK_BENCH_COLD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Few rows of A (at most 16): each element of B is used at most 16 times, so B's traffic, not the
 * FMAs, bounds the rate once A, B and C no longer fit in the core's own L2 (l2: bytes, 0 unknown,
 * taken as 1 MiB). Such a shape is an LLM decode step: its weights come from memory, as every
 * layer's do once per token, so it is timed with A and B taken from a buffer larger than the LLC. */
static inline int tkb_bandwidth_bound(unsigned long long m, unsigned long long n, unsigned long long k,
                                      unsigned long long l2)
{
    double bytes = 4.0 * ((double)m * (double)k + (double)k * (double)n + (double)m * (double)n);
    return m <= 16 && bytes > (double)(l2 ? l2 : 1ull << 20);
}

/* The buffer cold operands rotate through: 4 x the last-level cache, at least 256 MiB, at most
 * 2 GiB. Twice the Zen 4's 32 MiB L3 still left part of each slot in it (1x768x768 ran 18 GFLOP/s
 * there against 16 through 256 or 512 MiB, which agreed with each other). */
static inline unsigned long long tkb_cold_buffer_bytes(unsigned long long llc)
{
    unsigned long long b = 4 * llc;
    if (b < 256ull << 20) b = 256ull << 20;
    return b > 2048ull << 20 ? 2048ull << 20 : b;
}

/* The host's largest data or unified cache at `level` (bytes; 0 when sysfs does not say): the bench
 * sizes its cold buffer from it, and so does the tuner when its probes run on this host, because a
 * CPU table's l3 can be smaller than the machine's (a VM on an Emerald Rapids shows 260 MiB against
 * spr's 64: until session 62 the bench rotated through 1040 MiB there and the tuner through 256). */
static inline unsigned long long tkb_host_cache(int level)
{
    unsigned long long best = 0;
    for (int i = 0; i < 16; i++) {
        static const char *const field[3] = {"level", "type", "size"};
        char line[3][64];
        int got = 0;
        for (; got < 3; got++) {
            char path[96];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, field[got]);
            FILE *f = fopen(path, "r");
            if (!f) break;
            int ok = fgets(line[got], sizeof line[got], f) != NULL;
            fclose(f);
            if (!ok) break;
            line[got][strcspn(line[got], "\n")] = 0;
        }
        if (got == 0) break; /* no such index: the list has ended */
        if (got < 3 || atoi(line[0]) != level || !strcmp(line[1], "Instruction")) continue;
        /* sysfs writes sizes as "2048K" or "480M" */
        char *end;
        unsigned long long v = strtoull(line[2], &end, 10);
        v <<= *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
        if (v > best) best = v;
    }
    return best;
}

/* The host's last-level cache: its L3, else its L2 (bytes, 0 unknown). */
static inline unsigned long long tkb_host_llc(void)
{
    unsigned long long l3 = tkb_host_cache(3);
    return l3 ? l3 : tkb_host_cache(2);
}

/* The cold buffer for a CPU table whose last-level cache is table_llc bytes, on this host (here
 * nonzero: the measurements run here) or elsewhere (a board through a run prefix, whose caches the
 * host's sysfs does not describe): the larger of the two caches decides. */
static inline unsigned long long tkb_cold_buffer_for(unsigned long long table_llc, int here)
{
    unsigned long long host = here ? tkb_host_llc() : 0;
    return tkb_cold_buffer_bytes(host > table_llc ? host : table_llc);
}
#endif
