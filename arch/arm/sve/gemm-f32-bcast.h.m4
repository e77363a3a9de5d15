m4_divert(-1)
m4_dnl # Arm SVE f32 GEMM microkernel, broadcast form, vector-length agnostic: per k step, NV predicated-
m4_dnl # true vector loads of B and MR broadcast loads of A (ld1rw), MR*NV fmla (the _m form, so the
m4_dnl # accumulator is the destination and compilers need fewer movprfx copies). NR = NV * svcntw() is
m4_dnl # known only at run time, so the same code runs at every vector length from 128 to 2048 bits.
m4_dnl # Edges: rows are guarded by m; columns by svwhilelt predicates on every load and store of C and
m4_dnl # the bias, so inactive lanes are neither read nor written (there is no scalar tail and no
m4_dnl # separate full-tile path). B is read in whole vectors: the contract guarantees NR readable floats.
m4_dnl # Addresses use the vnum forms (base + V vectors inside the instruction), so no C pointer past the
m4_dnl # tile is ever formed. Instantiated by the tile macro with (MR, NV, KU). Contract: docs/microkernel.md.

m4_dnl # lanes of one vector register, as a C expression (run-time for this ISA)
m4_define(<@tkm_vl_f32@>, <@svcntw()@>)

m4_define(<@tkm_ukr_name@>, <@tki_ukr_gemm_f32_$1x$2v_sve_bcast_u$3@>)

m4_define(<@tkm_ukr_header_begin@>, <@#ifndef TK_GEN_UKR_F32_SVE_H
#define TK_GEN_UKR_F32_SVE_H
#if !defined(__ARM_FEATURE_SVE)
#error "tk: the sve microkernels need SVE: compile with -march=armv8.2-a+sve (or any -march/-mcpu with SVE)"
#endif
#include <arm_sve.h>
#include "tk/internal.h"

/* Prefetch for writing (prfm pstl1keep); a hint, never a fault. */
#if defined(__GNUC__)
#define TKI_PREFETCH_W_SVE(p) __builtin_prefetch((p), 1, 3)
#else
#define TKI_PREFETCH_W_SVE(p) ((void)(p))
#endif

/* Between unrolled k steps: gcc 12 otherwise hoists the loads of later steps above the FMAs of
 * earlier ones and runs out of the 32 vector registers (spills in the inner loop); clang schedules
 * better without the fence and is left free. */
#if defined(__GNUC__) && !defined(__clang__)
#define TKI_KSTEP_FENCE_SVE() __asm__ __volatile__("" ::: "memory")
#else
#define TKI_KSTEP_FENCE_SVE() ((void)0)
#endif
@>)
m4_define(<@tkm_ukr_header_end@>, <@#endif /* TK_GEN_UKR_F32_SVE_H */@>)

m4_define(<@_tkm_sve_step@>, <@        {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            const svfloat32_t b_<@@>TKM_V = svld1_vnum_f32(pt, b, TKM_V);
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            {
                const svfloat32_t ai = svdup_n_f32(a[TKM_I]);
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                tkm_acc(TKM_I, TKM_V) = svmla_f32_m(pt, tkm_acc(TKM_I, TKM_V), b_<@@>TKM_V, ai);
@>)m4_dnl
            }
@>)m4_dnl
            a += TKM_MR;
            b += ldb;
            TKI_KSTEP_FENCE_SVE();
        }
@>)

m4_dnl # rows(STMT): STMT once per vector of every valid row (the row and vector indexes are the loop names)
m4_define(<@_tkm_sve_rows@>, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            if (m > TKM_I) {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                $1
@>)m4_dnl
            }
@>)@>)

m4_define(<@tkm_ukr_gemm_f32@>, <@tkm_nargs(<@tkm_ukr_gemm_f32@>, 3, $#)m4_dnl
m4_pushdef(<@TKM_MR@>, <@$1@>)m4_pushdef(<@TKM_NV@>, <@$2@>)m4_pushdef(<@TKM_KU@>, <@$3@>)m4_dnl
static inline TKM_TARGET void tkm_ukr_name($1, $2, $3)(TKI_UKR_PARAMS)
{
    const svbool_t pt = svptrue_b32();
    size_t p = 0;
    {
        /* C is touched only after the k loop: start fetching the tile's rows now */
        const size_t nr = TKM_NV * svcntw(), last = n == 0 ? 0 : (n < nr ? n : nr) - 1;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@        if (m > TKM_I) TKI_PREFETCH_W_SVE(c + TKM_I * ldc), TKI_PREFETCH_W_SVE(c + TKM_I * ldc + last);
@>)m4_dnl
    }
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@    svfloat32_t tkm_acc(TKM_I, TKM_V) = svdup_n_f32(0.0f);
@>)@>)m4_dnl
tkm_kloop(<@_tkm_sve_step@>)m4_dnl
    {
        const uint64_t vl = svcntw();
        const float alpha = aux->alpha, beta = aux->beta;
        const float *bias = aux->bias;
        (void)vl;
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@        const svbool_t k_<@@>TKM_V = svwhilelt_b32_u64(m4_ifelse(TKM_V, 0, <@0@>, <@TKM_V * vl@>), (uint64_t)n);
        const svfloat32_t bias_<@@>TKM_V = bias ? svld1_vnum_f32(k_<@@>TKM_V, bias, TKM_V) : svdup_n_f32(0.0f);
@>)m4_dnl
        if (beta == 0.0f) {
_tkm_sve_rows(<@svst1_vnum_f32(k_<@@>TKM_V, c + TKM_I * ldc, TKM_V, svmla_n_f32_x(pt, bias_<@@>TKM_V, tkm_acc(TKM_I, TKM_V), alpha));@>)m4_dnl
        } else {
_tkm_sve_rows(<@svst1_vnum_f32(k_<@@>TKM_V, c + TKM_I * ldc, TKM_V, svmla_n_f32_x(pt, svmla_n_f32_x(pt, bias_<@@>TKM_V, tkm_acc(TKM_I, TKM_V), alpha), svld1_vnum_f32(k_<@@>TKM_V, c + TKM_I * ldc, TKM_V), beta));@>)m4_dnl
        }
    }
}
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NV@>)m4_popdef(<@TKM_KU@>)m4_dnl
@>)
m4_divert(0)m4_dnl
