/* A capped static workspace (TK_STATIC_WORKSPACE_BYTES, 1 MiB here, 64 KiB under emulation): a
 * call without a workspace whose row's blocks of B outgrow the static buffer runs them narrower, to
 * the same bits as the same call given a workspace of tk_gemm_f32_workspace_size bytes; one whose
 * smallest blocks do not fit returns TK_ERR_WORKSPACE and leaves C as it was. A table whose blocks
 * all fit the cap at these shapes caps nothing: the test skips (77). Under emulation the shapes are
 * small (the 1 MiB ones took 70-80 s a stage under qemu with 256- and 512-bit vectors). */
#ifdef TK_TEST_SMALL
#define TK_STATIC_WORKSPACE_BYTES (64u << 10)
#else
#define TK_STATIC_WORKSPACE_BYTES (1u << 20)
#endif
#include <tk/gemm.h>

#include "tktest.h"

#ifdef TK_TEST_SMALL
static const size_t shapes[][3] = {{16, 1024, 128}, {8, 2048, 64}, {32, 512, 256}};
#else
static const size_t shapes[][3] = {{512, 2048, 512}, {256, 4096, 256}, {1024, 1024, 256}, {96, 3000, 700}};
#endif

/* 16 x 2000 x 700 (its m, n, k are literal there) */
tk_status wscap_tiny(const float *a, size_t lda, const float *b, size_t ldb, float *c, size_t ldc);

/* d run with a workspace of the size tk asks for, aligned as it must be */
static tk_status ex_queried_workspace(tk_gemm_desc *d)
{
    d->workspace_size = tk_gemm_f32_workspace_size(d);
    float *ws = tkt_alloc(d->workspace_size / sizeof(float) + 16);
    d->workspace = (void *)(((uintptr_t)ws + TK_WORKSPACE_ALIGN - 1) / TK_WORKSPACE_ALIGN * TK_WORKSPACE_ALIGN);
    const tk_status st = tk_gemm_f32_ex(d);
    free(ws);
    return st;
}

/* B's rows 32 KiB apart, 16 rows: the blocked loops copy B's rows into the static buffer
 * (tki_b_rows_copy) where it holds them. With a buffer of 64 bytes (wscap_tiny.c) the same call
 * reads B in place at the same depth: the same bits, and nothing written past the buffer (before
 * session 72's fix the copy's room was computed past its end). Or it is refused, C untouched. */
static void tiny_buffer(void)
{
    const size_t m = 16, n = 2000, k = 700, ldb = 8192;
    float *a = tkt_alloc(m * k), *b = tkt_alloc(k * ldb), *c = tkt_alloc(m * n), *want = tkt_alloc(m * n);
    size_t differ = 0;
    for (size_t i = 0; i < m * k; i++) a[i] = tkt_uniform();
    for (size_t i = 0; i < k * ldb; i++) b[i] = tkt_uniform();
    for (size_t i = 0; i < m * n; i++) c[i] = want[i] = (float)(i % 13);
    /* the product from this unit's static buffer (the rows copied where it holds them); a machine of
     * wider vectors than its table assumed may refuse that (TK_ERR_WORKSPACE, C untouched): then
     * from a workspace of the size tk asks for */
    if (tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, m, n, k, 1.0f, a, k, b, ldb, 0.5f, want, n) != TK_OK) {
        tk_gemm_desc d;
        memset(&d, 0, sizeof d);
        d.m = m, d.n = n, d.k = k, d.alpha = 1, d.beta = 0.5f;
        d.a = a, d.lda = k, d.b = b, d.ldb = ldb, d.c = want, d.ldc = n;
        TKT_CHECK(ex_queried_workspace(&d) == TK_OK, "16x2000x700, B's rows 32 KiB apart: failed with a workspace");
    }
    const tk_status st = wscap_tiny(a, k, b, ldb, c, n);
    if (st == TK_OK) {
        for (size_t i = 0; i < m * n; i++) differ += memcmp(&c[i], &want[i], sizeof c[i]) != 0;
        TKT_CHECK(differ == 0, "16x2000x700 with a 64-byte static buffer: %zu cells differ", differ);
    } else {
        for (size_t i = 0; i < m * n; i++) differ += c[i] != (float)(i % 13);
        TKT_CHECK(st == TK_ERR_WORKSPACE && differ == 0, "16x2000x700 with a 64-byte static buffer: status %d, %zu cells changed",
                  (int)st, differ);
    }
    printf("16x2000x700, B's rows 32 KiB apart, a 64-byte static buffer: %s\n", st == TK_OK ? "ran" : "refused");
    free(a), free(b), free(c), free(want);
}

int main(void)
{
    size_t narrowed = 0, refused = 0;
    tkt_init();
    tiny_buffer();
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        float *a = tkt_alloc(m * k), *b = tkt_alloc(k * n), *c = tkt_alloc(m * n), *want = tkt_alloc(m * n);
        tk_gemm_desc d;
        for (size_t i = 0; i < m * k; i++) a[i] = tkt_uniform();
        for (size_t i = 0; i < k * n; i++) b[i] = tkt_uniform();
        for (size_t i = 0; i < m * n; i++) c[i] = want[i] = (float)(i % 13);
        memset(&d, 0, sizeof d);
        d.m = m, d.n = n, d.k = k, d.alpha = 1, d.beta = 0.5f;
        d.a = a, d.lda = k, d.b = b, d.ldb = n, d.c = want, d.ldc = n;
        const size_t bytes = tk_gemm_f32_workspace_size(&d);
        TKT_CHECK(ex_queried_workspace(&d) == TK_OK, "%zux%zux%zu with a workspace of %zu bytes failed", m, n, k, bytes);
        const tk_status st = tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.5f, c, n);
        size_t differ = 0;
        if (st == TK_OK) {
            for (size_t i = 0; i < m * n; i++) differ += memcmp(&c[i], &want[i], sizeof c[i]) != 0;
            TKT_CHECK(differ == 0, "%zux%zux%zu: %zu cells differ from the call with a workspace", m, n, k, differ);
            narrowed += bytes > TK_STATIC_WORKSPACE_BYTES;
        } else {
            for (size_t i = 0; i < m * n; i++) differ += c[i] != (float)(i % 13);
            TKT_CHECK(st == TK_ERR_WORKSPACE, "%zux%zux%zu: status %d", m, n, k, (int)st);
            TKT_CHECK(differ == 0, "%zux%zux%zu refused, but %zu cells of C changed", m, n, k, differ);
            refused++;
        }
        printf("%zux%zux%zu: workspace %zu bytes, without one: %s\n", m, n, k, bytes,
               st == TK_OK ? (bytes > TK_STATIC_WORKSPACE_BYTES ? "ran in narrower blocks" : "fit") : "refused");
        free(a), free(b), free(c), free(want);
    }
    if (!narrowed && !refused && !tkt_fail) {
        printf("test_wscap: no shape's blocks outgrow %u bytes on this table: skipped\n", (unsigned)TK_STATIC_WORKSPACE_BYTES);
        return 77;
    }
    return tkt_finish("test_wscap");
}
