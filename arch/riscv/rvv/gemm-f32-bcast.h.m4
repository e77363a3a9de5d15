m4_divert(-1)
m4_dnl # RISC-V Vector 1.0 f32 GEMM microkernel, broadcast form, vector-length agnostic, LMUL=1: per k
m4_dnl # step, NV vector loads of B (vle32 at VLMAX) and MR scalar loads of A feeding vfmacc.vf, so A needs
m4_dnl # no vector register. NR = NV * VLMAX is known only at run time; one binary runs at every VLEN.
m4_dnl # Edges: rows are guarded by m; columns by vl: the last vector of a row is loaded and stored with
m4_dnl # vl = the columns left (vl <= VLMAX gives exactly that many elements), vectors wholly past n are
m4_dnl # skipped, so C and the bias are never touched past column n. B is read at VLMAX (the contract
m4_dnl # guarantees NR readable floats). Uses the __riscv_-prefixed intrinsics (clang >= 16; gcc 12 has none).
m4_dnl # Instantiated by the tile macro with (MR, NV, KU). Contract: docs/microkernel.md.

m4_dnl # lanes of one vector register, as a C expression (run-time for this ISA)
m4_define(<@tkm_vl_f32@>, <@__riscv_vsetvlmax_e32m1()@>)

m4_define(<@tkm_ukr_name@>, <@tki_ukr_gemm_f32_$1x$2v_rvv_bcast_u$3@>)

m4_define(<@tkm_ukr_header_begin@>, <@#ifndef TK_GEN_UKR_F32_RVV_H
#define TK_GEN_UKR_F32_RVV_H
#if !defined(__riscv_v_intrinsic) || __riscv_v_intrinsic < 11000
#error "tk: the RVV kernels need the __riscv_-prefixed intrinsics of riscv_vector.h (__riscv_v_intrinsic >= 11000): use clang >= 16 (gcc 12 has no RVV intrinsics)"
#endif
#include <riscv_vector.h>
#include "tk/internal.h"
@>)
m4_define(<@tkm_ukr_header_end@>, <@#endif /* TK_GEN_UKR_F32_RVV_H */@>)

m4_dnl # V * vl as a C term to add to a pointer (empty for vector 0)
m4_define(<@_tkm_rvv_off@>, <@m4_ifelse($1, 0, <@@>, <@ + $1 * vl@>)@>)

m4_define(<@_tkm_rvv_step@>, <@        {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            const vfloat32m1_t b_<@@>TKM_V = __riscv_vle32_v_f32m1(b<@@>_tkm_rvv_off(TKM_V), vl);
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            {
                const float ai = a[TKM_I];
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                tkm_acc(TKM_I, TKM_V) = __riscv_vfmacc_vf_f32m1(tkm_acc(TKM_I, TKM_V), ai, b_<@@>TKM_V, vl);
@>)m4_dnl
            }
@>)m4_dnl
            a += TKM_MR;
            b += ldb;
        }
@>)

m4_dnl # rows(STMT): STMT once per vector of every valid row (row and vector indexes are the loop names);
m4_dnl # vectors after the first are skipped when no column of theirs is inside the tile
m4_define(<@_tkm_rvv_rows@>, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            if (m > TKM_I) {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                m4_ifelse(TKM_V, 0, <@@>, <@if (n_<@@>TKM_V) @>)$1
@>)m4_dnl
            }
@>)@>)

m4_dnl # the C pointer of the current row and vector
m4_define(<@_tkm_rvv_cp@>, <@c + TKM_I * ldc<@@>_tkm_rvv_off(TKM_V)@>)

m4_define(<@tkm_ukr_gemm_f32@>, <@tkm_nargs(<@tkm_ukr_gemm_f32@>, 3, $#)m4_dnl
m4_pushdef(<@TKM_MR@>, <@$1@>)m4_pushdef(<@TKM_NV@>, <@$2@>)m4_pushdef(<@TKM_KU@>, <@$3@>)m4_dnl
static inline TKM_TARGET void tkm_ukr_name($1, $2, $3)(TKI_UKR_PARAMS)
{
    const size_t vl = __riscv_vsetvlmax_e32m1();
    size_t p = 0;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@    vfloat32m1_t tkm_acc(TKM_I, TKM_V) = __riscv_vfmv_v_f_f32m1(0.0f, vl);
@>)@>)m4_dnl
tkm_kloop(<@_tkm_rvv_step@>)m4_dnl
    {
        const float alpha = aux->alpha, beta = aux->beta;
        const float *bias = aux->bias;
        /* n_V: columns of vector V inside the tile (0 to vl), the vl of its loads and stores */
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@m4_ifelse(TKM_V, 0, <@m4_dnl
        const size_t n_0 = n < vl ? n : vl;
@>, <@m4_dnl
        const size_t n_<@@>TKM_V = n > TKM_V * vl ? (n - TKM_V * vl < vl ? n - TKM_V * vl : vl) : 0;
@>)m4_dnl
        const vfloat32m1_t bias_<@@>TKM_V = bias && n_<@@>TKM_V ? __riscv_vle32_v_f32m1(bias<@@>_tkm_rvv_off(TKM_V), n_<@@>TKM_V) : __riscv_vfmv_v_f_f32m1(0.0f, vl);
@>)m4_dnl
        if (beta == 0.0f) {
_tkm_rvv_rows(<@__riscv_vse32_v_f32m1(_tkm_rvv_cp, __riscv_vfmacc_vf_f32m1(bias_<@@>TKM_V, alpha, tkm_acc(TKM_I, TKM_V), n_<@@>TKM_V), n_<@@>TKM_V);@>)m4_dnl
        } else {
_tkm_rvv_rows(<@__riscv_vse32_v_f32m1(_tkm_rvv_cp, __riscv_vfmacc_vf_f32m1(__riscv_vfmacc_vf_f32m1(bias_<@@>TKM_V, alpha, tkm_acc(TKM_I, TKM_V), n_<@@>TKM_V), beta, __riscv_vle32_v_f32m1(_tkm_rvv_cp, n_<@@>TKM_V), n_<@@>TKM_V), n_<@@>TKM_V);@>)m4_dnl
        }
    }
}
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NV@>)m4_popdef(<@TKM_KU@>)m4_dnl
@>)
m4_divert(0)m4_dnl
