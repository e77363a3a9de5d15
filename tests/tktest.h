/* tktest.h - the little test harness of tk: a seeded RNG, counted checks, one summary line.
 * Every failure prints the seed so it can be replayed with TK_TEST_SEED=<seed>. */
#ifndef TKTEST_H
#define TKTEST_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk/internal.h" /* TKI_UNUSED */

static unsigned long tkt_pass, tkt_fail;
static uint64_t tkt_seed, tkt_state;

static TKI_UNUSED void tkt_init(void)
{
    const char *s = getenv("TK_TEST_SEED");
    tkt_seed = s ? strtoull(s, NULL, 0) : 0x7c3a9e2d51ull;
    tkt_state = tkt_seed * 2654435761ull + 1;
}

static TKI_UNUSED uint32_t tkt_rand(void)
{
    /* xorshift64*: tiny and identical on every platform */
    tkt_state ^= tkt_state >> 12;
    tkt_state ^= tkt_state << 25;
    tkt_state ^= tkt_state >> 27;
    return (uint32_t)((tkt_state * 2685821657736338717ull) >> 32);
}

static TKI_UNUSED size_t tkt_range(size_t lo, size_t hi) { return lo + tkt_rand() % (hi - lo + 1); }
static TKI_UNUSED float tkt_uniform(void) { return (float)tkt_rand() / 2147483648.0f - 1.0f; }
static TKI_UNUSED float tkt_smallint(void) { return (float)((int)(tkt_rand() % 7) - 3); }

#define TKT_CHECK(cond, ...)                                                                     \
    do {                                                                                         \
        if (cond) {                                                                              \
            tkt_pass++;                                                                          \
        } else {                                                                                 \
            tkt_fail++;                                                                          \
            if (tkt_fail <= 20) {                                                                \
                fprintf(stderr, "%s:%d: FAIL (seed 0x%llx): ", __FILE__, __LINE__,               \
                        (unsigned long long)tkt_seed);                                           \
                fprintf(stderr, __VA_ARGS__);                                                    \
                fputc('\n', stderr);                                                             \
            }                                                                                    \
        }                                                                                        \
    } while (0)

static TKI_UNUSED int tkt_finish(const char *what)
{
    printf("%s: %lu passed, %lu failed\n", what, tkt_pass, tkt_fail);
    return tkt_fail ? 1 : 0;
}

/* Test sizes shrink under emulation (qemu is 25-90x slower). */
#ifdef TK_TEST_SMALL
#define TKT_SCALE 1
#else
#define TKT_SCALE 4
#endif

#if defined(__x86_64__) || defined(__i386__)
#define TKI_CPU_SUPPORTS(f) __builtin_cpu_supports(f)
#else
#define TKI_CPU_SUPPORTS(f) 1 /* other targets run natively or under an emulator for that CPU */
#endif

static TKI_UNUSED float *tkt_alloc(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}
#endif
