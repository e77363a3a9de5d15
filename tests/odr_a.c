/* ODR test, first unit: built as a user's unit is, with the ISA's flags at -O3 (and OpenMP where
 * test_omp is built). It also holds the calls test_omp makes: a unit that calls tk compiles the
 * whole table (about 80 s for spr's at -O3), and a second such unit for test_omp alone made make
 * test's native build that much longer. */
#include "tk/gemm.h"
float tkt_odr_a(const float *a, const float *b, float *c, size_t n)
{
    return tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n) == TK_OK ? c[n * n - 1] : -1.0f;
}
#if defined(_OPENMP)
tk_status tkt_a_ex(const tk_gemm_desc *d);
tk_status tkt_a_omp(const tk_gemm_desc *d);
size_t tkt_a_parts(const tk_gemm_desc *d, size_t max_parts);
tk_status tkt_a_ex(const tk_gemm_desc *d) { return tk_gemm_f32_ex(d); }
tk_status tkt_a_omp(const tk_gemm_desc *d) { return tk_gemm_f32_omp(d); }
size_t tkt_a_parts(const tk_gemm_desc *d, size_t max_parts) { return tk_gemm_f32_parts(d, max_parts); }
#endif
