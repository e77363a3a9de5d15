/* Calls of literal shape (constant m, n, k), the only calls of tk in this unit: every exact-shape
 * row of the build's table, untransposed and transposed, with alpha == 0 (which an exact instance
 * turns away), and shapes no exact row has, small, one-row, blocked and transposed; descriptors
 * filled with literal sizes, with a bias and an epilogue, in a workspace of the size
 * tk_gemm_f32_workspace_size asks for, and in the parts tk_gemm_f32_parts chooses. Each equals the
 * naive reference exactly (small integer operands), and bad arguments leave C as it was. The unit
 * is compiled at -O2 whatever the build type, where a literal shape names its row's configuration
 * alone: check_literal.sh then finds no table in its object and a fraction of the kernels of a unit
 * with run-time shapes (docs/api.md, "Compile time"). */
#include <string.h>
#include "tk/gemm.h"
#include "tk/ref.h"
#include "tktest.h"

#define CAP (128 * 128)
static float a[CAP], b[CAP], c[CAP], r[CAP], bias[128], ws[4 * CAP + 64];

/* operands for an m x n x k call (A m x k, or k x m transposed; B k x n, or n x k): small
 * integers, so every sum is exact in float and the result must equal the reference */
static void operands(size_t m, size_t n, size_t k, float beta)
{
    size_t i;
    for (i = 0; i < m * k; i++) a[i] = tkt_smallint();
    for (i = 0; i < k * n; i++) b[i] = tkt_smallint();
    for (i = 0; i < m * n; i++) c[i] = beta == 0.0f ? NAN : tkt_smallint(); /* beta == 0 must not read C */
}

/* the operands and, in r, the reference's result of the plain call */
static void prepare(size_t m, size_t n, size_t k, tk_trans ta, tk_trans tb, float alpha, float beta)
{
    tk_gemm_desc d;
    operands(m, n, k, beta);
    memset(&d, 0, sizeof d);
    d.transa = ta, d.transb = tb, d.m = m, d.n = n, d.k = k, d.alpha = alpha, d.beta = beta;
    d.a = a, d.lda = ta ? m : k, d.b = b, d.ldb = tb ? k : n, d.ldc = n, d.nparts = 1;
    memcpy(r, c, m * n * sizeof(float));
    d.c = r;
    tk_ref_gemm_f32(&d);
}

static void verify(size_t m, size_t n, size_t k, int ta, int tb, float alpha, tk_status st)
{
    size_t i, bad = 0;
    for (i = 0; i < m * n; i++) bad += !(c[i] == r[i]); /* exact; a zero's sign may differ (alpha = -1) */
    TKT_CHECK(st == TK_OK && bad == 0, "literal %zux%zux%zu ta=%d tb=%d alpha=%g: status %d, %zu elements off the reference",
              m, n, k, ta, tb, (double)alpha, (int)st, bad);
}

/* One literal call: M, N, K, TA, TB, ALPHA and BETA are constants where the macro is used. A shape
 * past the buffers (a table's large exact row) is left out, at compile time. */
#define LIT(M, N, K, TA, TB, ALPHA, BETA)                                                                    \
    do {                                                                                                     \
        if ((size_t)(M) * (K) <= CAP && (size_t)(K) * (N) <= CAP && (size_t)(M) * (N) <= CAP) {             \
            tk_status st_;                                                                                   \
            prepare(M, N, K, TA, TB, ALPHA, BETA);                                                           \
            st_ = tk_gemm_f32(TA, TB, M, N, K, ALPHA, a, (TA) ? (M) : (K), b, (TB) ? (K) : (N), BETA, c, N); \
            verify(M, N, K, TA, TB, ALPHA, st_);                                                             \
        }                                                                                                    \
    } while (0)
#define EXACT_NN(M, N, K) LIT(M, N, K, TK_NO_TRANS, TK_NO_TRANS, 1.0f, 0.0f);
#define EXACT_TN(M, N, K) LIT(M, N, K, TK_TRANS, TK_NO_TRANS, 2.0f, 0.5f);
#define EXACT_ALPHA0(M, N, K) LIT(M, N, K, TK_NO_TRANS, TK_NO_TRANS, 0.0f, 0.5f);

/* A descriptor call of literal shape, M x N x K untransposed with a bias and epilogue EPI: in a
 * workspace of the queried size if WS, else tk's own, run in the parts tk_gemm_f32_parts(&d, 3)
 * gives. The queries come right after the sizes are stored, and the sizes are stored again before
 * each part's call: d's address goes to tk's out-of-line code, and the compiler then takes any call
 * of the function to have changed them (docs/api.md, "Compile time"). */
#define LIT_EX(M, N, K, EPI, WS)                                                                        \
    do {                                                                                                \
        tk_gemm_desc d, ref;                                                                            \
        tk_status st_ = TK_OK;                                                                          \
        size_t parts_, p_, i_, bad_ = 0;                                                                \
        operands(M, N, K, 1.0f);                                                                        \
        for (i_ = 0; i_ < (N); i_++) bias[i_] = tkt_smallint();                                         \
        memset(&d, 0, sizeof d);                                                                        \
        d.m = M, d.n = N, d.k = K, d.alpha = 1.0f, d.beta = 1.0f, d.a = a, d.lda = K, d.b = b, d.ldb = N; \
        d.c = c, d.ldc = N, d.bias = bias, d.epilogue = EPI, d.clamp_lo = -20.0f, d.clamp_hi = 30.0f;   \
        d.nparts = 1;                                                                                   \
        if (WS) {                                                                                       \
            d.workspace_size = tk_gemm_f32_workspace_size(&d);                                          \
            d.workspace = (void *)(((uintptr_t)ws + TK_WORKSPACE_ALIGN - 1) / TK_WORKSPACE_ALIGN * TK_WORKSPACE_ALIGN); \
        }                                                                                               \
        parts_ = tk_gemm_f32_parts(&d, 3);                                                              \
        TKT_CHECK(d.workspace_size <= 4 * CAP * sizeof(float), "literal %dx%dx%d: workspace of %zu bytes", M, N, K, \
                  d.workspace_size);                                                                    \
        ref = d, ref.c = r;                                                                             \
        memcpy(r, c, (size_t)(M) * (N) * sizeof(float));                                                \
        tk_ref_gemm_f32(&ref);                                                                          \
        for (p_ = 0; p_ < parts_ && st_ == TK_OK && d.workspace_size <= 4 * CAP * sizeof(float); p_++) { \
            d.m = M, d.n = N, d.k = K, d.part = p_, d.nparts = parts_;                                  \
            st_ = tk_gemm_f32_ex(&d);                                                                   \
        }                                                                                               \
        for (i_ = 0; i_ < (size_t)(M) * (N); i_++) bad_ += !(c[i_] == r[i_]);                           \
        TKT_CHECK(st_ == TK_OK && bad_ == 0, "literal descriptor %dx%dx%d epilogue %d workspace %d, %zu parts: status %d, " \
                  "%zu elements off the reference", M, N, K, (int)(EPI), WS, parts_, (int)st_, bad_);   \
    } while (0)
#define EXACT_EX(M, N, K)                                                                               \
    if ((size_t)(M) * (K) <= CAP && (size_t)(K) * (N) <= CAP && (size_t)(M) * (N) <= CAP && (N) <= 128) \
        LIT_EX(M, N, K, TK_EPI_RELU, 0);

int main(void)
{
    tk_status st;
    tkt_init();
    TKI_SEL(TKI_GEMM_F32_EXACT_SHAPES)(EXACT_NN)
    TKI_SEL(TKI_GEMM_F32_EXACT_SHAPES)(EXACT_TN)
    TKI_SEL(TKI_GEMM_F32_EXACT_SHAPES)(EXACT_ALPHA0)
    /* shapes of no exact row (should a table have one, the calls above and these still agree) */
    LIT(5, 5, 5, TK_NO_TRANS, TK_NO_TRANS, 1.0f, 0.0f);
    LIT(7, 9, 5, TK_NO_TRANS, TK_NO_TRANS, 1.0f, 1.0f);
    LIT(3, 40, 17, TK_NO_TRANS, TK_NO_TRANS, -1.0f, 0.0f);
    LIT(1, 300, 40, TK_NO_TRANS, TK_NO_TRANS, 1.0f, 0.0f);
    LIT(17, 19, 23, TK_NO_TRANS, TK_NO_TRANS, 1.0f, 0.0f);
    LIT(100, 70, 90, TK_NO_TRANS, TK_NO_TRANS, 0.5f, 2.0f);
    LIT(33, 20, 17, TK_TRANS, TK_TRANS, 1.0f, 0.0f);
    LIT(9, 11, 13, TK_NO_TRANS, TK_NO_TRANS, 0.0f, 0.0f);
    /* descriptors: every exact row (its descriptor instance), and rows of ranges */
    TKI_SEL(TKI_GEMM_F32_EXACT_SHAPES)(EXACT_EX)
    LIT_EX(5, 7, 9, TK_EPI_NONE, 0);
    LIT_EX(100, 70, 90, TK_EPI_CLAMP, 1);
    LIT_EX(64, 128, 96, TK_EPI_RELU, 1);
    /* bad arguments: an error, C untouched */
    operands(6, 7, 8, 1.0f);
    memcpy(r, c, 6 * 7 * sizeof(float));
    st = tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, 6, 7, 8, 1.0f, a, 7, b, 7, 1.0f, c, 7);
    TKT_CHECK(st == TK_ERR_LDA && memcmp(c, r, 6 * 7 * sizeof(float)) == 0, "literal 6x7x8 with lda 7 < k: status %d",
              (int)st);
    st = tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, 6, 7, 8, 1.0f, NULL, 8, b, 7, 1.0f, c, 7);
    TKT_CHECK(st == TK_ERR_NULL && memcmp(c, r, 6 * 7 * sizeof(float)) == 0, "literal 6x7x8 with A NULL: status %d",
              (int)st);
    return tkt_finish("test_literal");
}
