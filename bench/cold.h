/* cold.h - when a shape is timed with its operands cold, and through how large a buffer. One rule
 * for the bench (bench/shim.cc), the tuner's cold measurements and tktune evaluate (tune/), so that
 * a row tuned cold is judged cold and a shape the bench times warm is evaluated warm. C and C++. */
#ifndef TK_BENCH_COLD_H
#define TK_BENCH_COLD_H

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
#endif
