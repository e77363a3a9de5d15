/* The OpenMP helper: bitwise equal to one thread on shapes that split into several parts, and
 * tk_gemm_f32_parts, which decides how many parts a problem is worth. The calls are compiled in
 * odr_a.c (the ISA's flags, -O3, OpenMP), so that the table's kernels are compiled once for both. */
#include "tk/types.h"
#include "tktest.h"
tk_status tkt_a_ex(const tk_gemm_desc *d);
tk_status tkt_a_omp(const tk_gemm_desc *d);
size_t tkt_a_parts(const tk_gemm_desc *d, size_t max_parts);

int main(void)
{
    static const size_t shapes[][3] = {{1, 300, 200}, {64, 64, 64}, {257, 129, 300}, {16, 1000, 77}, {4, 4, 4}};
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
        /* never more parts than asked for, nor than there is work or tiles for */
        TKT_CHECK(tkt_a_parts(&d, 8) >= 1 && tkt_a_parts(&d, 8) <= 8 && tkt_a_parts(&d, 1) == 1 &&
                      tkt_a_parts(&d, 0) == 1,
                  "%zux%zux%zu: parts out of range", m, n, k);
        d.c = c1;
        TKT_CHECK(tkt_a_ex(&d) == TK_OK, "one thread");
        d.c = c2;
        TKT_CHECK(tkt_a_omp(&d) == TK_OK, "omp");
        TKT_CHECK(memcmp(c1, c2, m * n * sizeof(float)) == 0, "%zux%zux%zu: OpenMP result differs from one thread",
                  m, n, k);
        free(a), free(b), free(c1), free(c2);
    }
    {
        tk_gemm_desc d;
        memset(&d, 0, sizeof d);
        TKT_CHECK(tkt_a_parts(NULL, 4) == 1, "parts of NULL");
        d.m = 4, d.n = 4, d.k = 4;
        TKT_CHECK(tkt_a_parts(&d, 4) == 1, "4x4x4 is not worth a second part");
        d.m = 257, d.n = 129, d.k = 300;
        TKT_CHECK(tkt_a_parts(&d, 2) == 2, "257x129x300 is worth two parts");
        d.m = 1, d.n = 16, d.k = 100000; /* plenty of work, but one tile whichever way it is split */
        TKT_CHECK(tkt_a_parts(&d, 4) == 1, "1x16 has one tile");
    }
    return tkt_finish("test_omp");
}
