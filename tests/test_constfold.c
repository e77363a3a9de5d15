/* With constant m, n, k the table's decision tree folds to a compile-time constant at -O2, for the
 * public CPU and every CPU of the build (this file is compiled with -O2 whatever the build type).
 * __builtin_constant_p on the selected index is resolved after inlining and constant propagation. */
#include "tk/gemm.h"
#include "tk/gen/all.h"
#include "tktest.h"

#define TKT_FOLD(sym, token, isa)                                                                \
    {                                                                                            \
        int s1 = tki_gemm_f32_select_##sym(64, 64, 64);                                          \
        int s2 = tki_gemm_f32_select_##sym(1, 4096, 4096);                                       \
        int s3 = tki_gemm_f32_select_##sym(2048, 2048, 2048);                                    \
        TKT_CHECK(__builtin_constant_p(s1) && __builtin_constant_p(s2) && __builtin_constant_p(s3), \
                  "%s: selection is not a compile-time constant", token);                       \
    }

int main(void)
{
    volatile size_t vm = 64;
    size_t m = vm;
    int s;
    tkt_init();
    TKI_GEN_CPUS(TKT_FOLD)
    /* the check can fail: a shape known only at run time is not a constant */
    s = TKI_SEL(tki_gemm_f32_select)(m, 64, 64);
    TKT_CHECK(!__builtin_constant_p(s), "a run-time m was reported as folded");
    return tkt_finish("test_constfold");
}
