/* ODR test, second unit: built with no ISA flags at -O0, as a debug build is. Both units inline
 * their own copies of tk; nothing of tk has external linkage, so they link and each computes
 * correctly. */
#include "tk/gemm.h"
float tkt_odr_b(const float *a, const float *b, float *c, size_t n)
{
    return tk_gemm_f32(TK_TRANS, TK_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n) == TK_OK ? c[0] : -1.0f;
}
