/* bench/dispatch.c - what tk's run-time dispatch costs on tiny shapes (make bench-dispatch).
 *
 * For every square shape s x s x s, s = 4..16, the same product three ways:
 *   run-time: tk_gemm_f32 with m, n, k values the compiler cannot see: the plain entry tests the
 *             exact-shape rows, and a shape without one walks the decision tree over the table's
 *             rows, on every call;
 *   direct:   the row the tree chooses for s, chosen at compile time, and that row's code called
 *             directly with the shape still a run-time value: an exact-shape row's own instance (its
 *             shape is part of it), or the generic driver given the row's index. The index is hidden
 *             from the optimiser, so the driver is the one every row shares, as a dispatched call
 *             runs it, not a copy specialised to one row's blocks. This is "calling the chosen
 *             kernel directly"; run-time / direct is the cost of the dispatch;
 *   literal:  tk_gemm_f32 with literal m, n, k, as a program with fixed shapes writes it: the choice
 *             folds at compile time, and the driver may be specialised to the shape besides
 *             (shown for information; it is more than the dispatch).
 * The three are timed in alternating rounds (a shared machine's slow spells hit them alike); the
 * table gives each one's median ns per call, run-time / direct, and its geometric mean. */
#include <tk/gemm.h>

#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOOPT __attribute__((noipa))
#else
#define NOOPT __attribute__((noinline))
#endif
/* the value as the program has it, unknown to the optimiser from here on */
#define OPAQUE(x) __asm__("" : "+r"(x))

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*call_fn)(size_t s, const float *a, const float *b, float *c);

static NOOPT void run_time(size_t s, const float *a, const float *b, float *c)
{
    tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, s, s, s, 1.0f, a, s, b, s, 0.0f, c, s);
}

/* 1 when the CPU's table has an exact-shape row for s x s x s (a constant for a constant s) */
#define EXACT_EQ(M, N, K) || ((M) == s && (N) == s && (K) == s)
static inline int has_exact_row(size_t s)
{
    return 0 TKI_SEL(TKI_GEMM_F32_EXACT_SHAPES)(EXACT_EQ);
}

/* s reaches these as an argument (noipa: never a constant inside); S is the literal. An exact row's
 * instance is reached through tk_gemm_f32 with m, n, k literal, which folds to one call of it (the
 * leading dimensions stay run-time values, as in run_time). */
#define SHAPES X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define X(S)                                                                                         \
    static NOOPT void direct_##S(size_t s, const float *a, const float *b, float *c)                  \
    {                                                                                                \
        int row = TKI_SEL(tki_gemm_f32_select)(S, S, S);                                             \
        if (has_exact_row(S)) {                                                                      \
            tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, S, S, S, 1.0f, a, s, b, s, 0.0f, c, s);            \
            return;                                                                                  \
        }                                                                                            \
        OPAQUE(row);                                                                                 \
        TKI_SEL(tki_gemm_f32_plain_slow)(TK_NO_TRANS, TK_NO_TRANS, s, s, s, 1.0f, a, s, b, s, 0.0f, c, s, row); \
    }                                                                                                \
    static NOOPT void literal_##S(size_t s, const float *a, const float *b, float *c)                 \
    {                                                                                                \
        (void)s;                                                                                     \
        tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, S, S, S, 1.0f, a, S, b, S, 0.0f, c, S);                \
    }
SHAPES
#undef X

#define ROUNDS 101
#define CALLS 10000
#define WAYS 3

int main(void)
{
    static float a[256], b[256], c[256];
    static const call_fn direct[] = {
#define X(S) direct_##S,
        SHAPES
#undef X
    };
    static const call_fn literal[] = {
#define X(S) literal_##S,
        SHAPES
#undef X
    };
    volatile size_t first = 4; /* the shapes come from memory the compiler cannot read */
    double lsum = 0, worst = 0;
    int i, r, nshapes = (int)(sizeof direct / sizeof direct[0]);
    for (i = 0; i < 256; i++) a[i] = 0.01f * (float)(i % 13), b[i] = 0.02f * (float)(i % 7);
    printf("tk_dispatch: tk_gemm_f32 on s x s x s, CPU table \"%s\"; median of %d alternating rounds of %d calls\n",
           tk_cpu_name(), ROUNDS, CALLS);
    printf("%4s %6s %12s %12s %12s %10s\n", "s", "exact", "run-time ns", "direct ns", "literal ns", "rt/direct");
    for (i = 0; i < nshapes; i++) {
        size_t s = first + (size_t)i;
        double t[WAYS][ROUNDS], med[WAYS];
        int way;
        for (r = 0; r < ROUNDS; r++)
            for (way = 0; way < WAYS; way++) {
                const call_fn f = way == 0 ? run_time : way == 1 ? direct[i] : literal[i];
                double t0 = tkb_now();
                long n;
                for (n = 0; n < CALLS; n++) f(s, a, b, c);
                t[way][r] = (tkb_now() - t0) / CALLS * 1e9;
            }
        for (way = 0; way < WAYS; way++) {
            qsort(t[way], ROUNDS, sizeof(double), cmp);
            med[way] = t[way][ROUNDS / 2];
        }
        printf("%4zu %6s %12.2f %12.2f %12.2f %10.3f\n", s, has_exact_row(s) ? "yes" : "no", med[0], med[1], med[2],
               med[0] / med[1]);
        lsum += log(med[0] / med[1]);
        if (med[0] / med[1] > worst) worst = med[0] / med[1];
    }
    printf("geomean run-time / direct %.3f, worst %.3f (c[0] = %g)\n", exp(lsum / nshapes), worst, (double)c[0]);
    return 0;
}
