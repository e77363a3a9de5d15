/* Built against a `make dist` folder alone: the plain headers compute exact small-integer products
 * for a spread of shapes, transposes and an epilogue. */
#include <tk/gemm.h>
#include <tk/ref.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static const size_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {16, 16, 16}, {17, 33, 65}, {1, 130, 70}, {64, 48, 100}, {100, 3, 9}};
    unsigned pass = 0, fail = 0, seed = 12345u;
    size_t s, i, t;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (t = 0; t < 4; t++) {
            size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            float *a = (float *)malloc(m * k * sizeof(float)), *b = (float *)malloc(k * n * sizeof(float));
            float *c = (float *)malloc(m * n * sizeof(float)), *r = (float *)malloc(m * n * sizeof(float));
            tk_gemm_desc d = {TK_NO_TRANS, TK_NO_TRANS, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, TK_EPI_NONE, 0, 0, 0, 0, 0, 0, 0};
            for (i = 0; i < m * k; i++) seed = seed * 1103515245u + 12345u, a[i] = (float)((int)(seed >> 16) % 7 - 3);
            for (i = 0; i < k * n; i++) seed = seed * 1103515245u + 12345u, b[i] = (float)((int)(seed >> 16) % 7 - 3);
            for (i = 0; i < m * n; i++) c[i] = r[i] = 1.0f;
            d.transa = (tk_trans)(t & 1), d.transb = (tk_trans)(t >> 1);
            d.m = m, d.n = n, d.k = k, d.alpha = 1.0f, d.beta = 2.0f, d.epilogue = TK_EPI_RELU;
            d.a = a, d.lda = d.transa ? m : k, d.b = b, d.ldb = d.transb ? k : n, d.ldc = n;
            d.c = r;
            tk_ref_gemm_f32(&d);
            d.c = c;
            if (tk_gemm_f32_ex(&d) == TK_OK && memcmp(c, r, m * n * sizeof(float)) == 0) pass++;
            else fail++, printf("FAIL %zux%zux%zu trans %zu\n", m, n, k, t);
            free(a), free(b), free(c), free(r);
        }
    printf("dist_smoke (%s): %u passed, %u failed\n", tk_cpu_name(), pass, fail);
    return fail != 0;
}
