/* The OpenMP helper: bitwise equal to one thread on shapes that split into several parts. */
#include "tk/gemm.h"
#include "tktest.h"

int main(void)
{
    static const size_t shapes[][3] = {{1, 300, 200}, {64, 64, 64}, {257, 129, 300}, {16, 1000, 77}};
    size_t s, i;
    tkt_init();
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        float *a = tkt_alloc(m * k), *b = tkt_alloc(k * n), *c1 = tkt_alloc(m * n), *c2 = tkt_alloc(m * n);
        tk_gemm_desc d;
        for (i = 0; i < m * k; i++) a[i] = tkt_uniform();
        for (i = 0; i < k * n; i++) b[i] = tkt_uniform();
        memset(&d, 0, sizeof d);
        d.m = m, d.n = n, d.k = k, d.alpha = 1, d.a = a, d.lda = k, d.b = b, d.ldb = n, d.ldc = n;
        d.c = c1;
        TKT_CHECK(tk_gemm_f32_ex(&d) == TK_OK, "one thread");
        d.c = c2;
        TKT_CHECK(tk_gemm_f32_omp(&d) == TK_OK, "omp");
        TKT_CHECK(memcmp(c1, c2, m * n * sizeof(float)) == 0, "%zux%zux%zu: OpenMP result differs from one thread",
                  m, n, k);
        free(a), free(b), free(c1), free(c2);
    }
    return tkt_finish("test_omp");
}
