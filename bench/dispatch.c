/* bench/dispatch.c - what tk's run-time dispatch costs on tiny shapes (make bench-dispatch).
 *
 * For every square shape s x s x s, s = 4..16, the same tk_gemm_f32 call two ways:
 *   run-time: m, n, k are values the compiler cannot see, so the decision tree over the table's
 *             rows (and the exact-shape switch) runs on every call;
 *   constant: a function per shape with literal m, n, k: the choice folds to one configuration at
 *             compile time (tests/test_constfold.c shows that it does), i.e. the chosen kernel
 *             called directly, with the same argument checks.
 * Both are timed in alternating rounds (a shared machine's slow spells hit both alike); the table
 * gives each one's median ns per call and the ratio, and the geometric mean over the shapes. */
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

#define SHAPES X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define X(S)                                                                                         \
    static NOOPT void constant_##S(size_t s, const float *a, const float *b, float *c)                \
    {                                                                                                \
        (void)s;                                                                                     \
        tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, S, S, S, 1.0f, a, S, b, S, 0.0f, c, S);                \
    }
SHAPES
#undef X

#define ROUNDS 21
#define CALLS 20000

int main(void)
{
    static float a[256], b[256], c[256];
    static const call_fn constant[] = {
#define X(S) constant_##S,
        SHAPES
#undef X
    };
    volatile size_t first = 4; /* the run-time column's shapes come from memory the compiler cannot read */
    double lsum = 0, worst = 0;
    int i, r, nshapes = (int)(sizeof constant / sizeof constant[0]);
    for (i = 0; i < 256; i++) a[i] = 0.01f * (float)(i % 13), b[i] = 0.02f * (float)(i % 7);
    printf("tk_dispatch: tk_gemm_f32 on s x s x s, CPU table \"%s\"; median of %d alternating rounds of %d calls\n",
           tk_cpu_name(), ROUNDS, CALLS);
    printf("%4s %14s %14s %10s\n", "s", "run-time ns", "constant ns", "rt/const");
    for (i = 0; i < nshapes; i++) {
        size_t s = first + (size_t)i;
        double t[2][ROUNDS], med[2];
        for (r = 0; r < ROUNDS; r++) {
            int way;
            for (way = 0; way < 2; way++) {
                double t0 = tkb_now();
                long n;
                if (way == 0)
                    for (n = 0; n < CALLS; n++) run_time(s, a, b, c);
                else
                    for (n = 0; n < CALLS; n++) constant[i](s, a, b, c);
                t[way][r] = (tkb_now() - t0) / CALLS * 1e9;
            }
        }
        qsort(t[0], ROUNDS, sizeof(double), cmp);
        qsort(t[1], ROUNDS, sizeof(double), cmp);
        med[0] = t[0][ROUNDS / 2], med[1] = t[1][ROUNDS / 2];
        printf("%4zu %14.2f %14.2f %10.3f\n", s, med[0], med[1], med[0] / med[1]);
        lsum += log(med[0] / med[1]);
        if (med[0] / med[1] > worst) worst = med[0] / med[1];
    }
    printf("geomean run-time / constant %.3f, worst %.3f (c[0] = %g)\n", exp(lsum / nshapes), worst,
           (double)c[0]);
    return 0;
}
