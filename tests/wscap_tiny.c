/* test_wscap's second unit: tk with a static buffer of 64 bytes (TK_STATIC_WORKSPACE_BYTES, set
 * before tk is included, as a firmware build that passes its own workspaces would). A call whose
 * operands are read in place needs no buffer, and runs; that includes a call whose B's rows crowd
 * the L2, which a larger buffer copies (tki_b_rows_copy): with 64 bytes it must read B in place. */
#define TK_STATIC_WORKSPACE_BYTES 64
#include <tk/gemm.h>

tk_status wscap_tiny(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc);

/* The one shape test_wscap runs here, literal: the unit compiles that row's kernels alone (45 s of
 * make test's build as a call of run-time shape, which compiles the whole table; docs/api.md), and
 * tests the way firmware that passes constant shapes reaches the static buffer. */
tk_status wscap_tiny(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc)
{
    return tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, 16, 2000, 700, 1.0f, a, lda, b, ldb, 0.5f, c, ldc);
}
