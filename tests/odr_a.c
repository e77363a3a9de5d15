/* ODR test, first unit: built with the ISA's flags and -O3. */
#include "tk/gemm.h"
float tkt_odr_a(const float *a, const float *b, float *c, size_t n)
{
    return tk_gemm_f32(TK_NO_TRANS, TK_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n) == TK_OK ? c[n * n - 1] : -1.0f;
}
