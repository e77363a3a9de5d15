m4_divert(-1)
m4_dnl # Portable scalar f32 GEMM microkernel ("bcast": one A value times a row of B per step).
m4_dnl # Instantiated by tkm_ukr_gemm_f32(MR, NR, KU); for this ISA a "vector" is one float, so NR is in
m4_dnl # floats. The contract is docs/microkernel.md; this is also the second reference of the tests.

m4_dnl # lanes of one vector register, as a C expression (a constant for fixed-width ISAs)
m4_define(<@tkm_vl_f32@>, <@1@>)

m4_define(<@tkm_ukr_name@>, <@tki_ukr_gemm_f32_$1x$2_scalar_bcast_u$3@>)

m4_define(<@tkm_ukr_header_begin@>, <@#ifndef TK_GEN_UKR_F32_SCALAR_H
#define TK_GEN_UKR_F32_SCALAR_H
#include "tk/internal.h"
@>)
m4_define(<@tkm_ukr_header_end@>, <@#endif /* TK_GEN_UKR_F32_SCALAR_H */@>)

m4_dnl # one k step: NR values of B, then MR rows of rank-1 update
m4_define(<@_tkm_scalar_step@>, <@        {
tkm_for(<@TKM_J@>, 0, TKM_NR - 1, <@            const float b_<@@>TKM_J = b[TKM_J];
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            {
                const float ai = a[TKM_I];
tkm_for(<@TKM_J@>, 0, TKM_NR - 1, <@                tkm_acc(TKM_I, TKM_J) += ai * b_<@@>TKM_J;
@>)m4_dnl
            }
@>)m4_dnl
            a += TKM_MR;
            b += ldb;
        }
@>)

m4_define(<@tkm_ukr_gemm_f32@>, <@tkm_nargs(<@tkm_ukr_gemm_f32@>, 3, $#)m4_dnl
m4_pushdef(<@TKM_MR@>, <@$1@>)m4_pushdef(<@TKM_NR@>, <@$2@>)m4_pushdef(<@TKM_KU@>, <@$3@>)m4_dnl
static inline void tkm_ukr_name($1, $2, $3)(TKI_UKR_PARAMS)
{
    size_t p = 0;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@    float tkm_for(<@TKM_J@>, 0, TKM_NR - 1, <@tkm_acc(TKM_I, TKM_J) = 0.0f<@@>m4_ifelse(TKM_J, m4_eval(TKM_NR - 1), <@;@>, <@, @>)@>)
@>)m4_dnl
tkm_kloop(<@_tkm_scalar_step@>)m4_dnl
    {
        const float alpha = aux->alpha, beta = aux->beta;
        const float *bias = aux->bias;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@        if (m > TKM_I) {
            float *cr = c + TKM_I * ldc;
tkm_for(<@TKM_J@>, 0, TKM_NR - 1, <@            if (n > TKM_J) {
                float r = alpha * tkm_acc(TKM_I, TKM_J);
                if (beta != 0.0f) r += beta * cr[TKM_J];
                if (bias) r += bias[TKM_J];
                cr[TKM_J] = r;
            }
@>)m4_dnl
        }
@>)m4_dnl
    }
}
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NR@>)m4_popdef(<@TKM_KU@>)m4_dnl
@>)
m4_divert(0)m4_dnl
