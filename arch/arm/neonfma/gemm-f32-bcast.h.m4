m4_divert(-1)
m4_dnl # AArch64 Advanced SIMD (NEON) f32 GEMM microkernel, broadcast form with lane-indexed FMA: per k
m4_dnl # step, NV q-register loads of B, the MR values of A loaded as whole q-registers (MR/4 of them, then
m4_dnl # a d-register for two leftover rows and a dup-load for the last odd row), and MR*NV fmla by lane.
m4_dnl # Edges: rows are guarded by m; a tile with n < NR takes a separate store path where the partly
m4_dnl # covered vector is loaded and stored lane by lane, so nothing outside the m x n tile is touched
m4_dnl # and C (and the bias) is never read past column n. Full tiles use plain q-register stores.
m4_dnl # Instantiated by the tile macro with (MR, NV, KU); NR = 4*NV. Contract: docs/microkernel.md.

m4_dnl # lanes of one vector register, as a C expression (a constant for fixed-width ISAs)
m4_define(<@tkm_vl_f32@>, <@4@>)

m4_define(<@tkm_ukr_name@>, <@tki_ukr_gemm_f32_$1x<@@>m4_eval($2 * 4)_neonfma_bcast_u$3@>)

m4_define(<@tkm_ukr_header_begin@>, <@#ifndef TK_GEN_UKR_F32_NEONFMA_H
#define TK_GEN_UKR_F32_NEONFMA_H
#if !defined(__ARM_NEON)
#error "tk: the neonfma microkernels need AArch64 Advanced SIMD (arm_neon.h)"
#endif
#include <arm_neon.h>
#include "tk/internal.h"

/* Prefetch for writing (prfm pstl1keep); a hint, never a fault. */
#if defined(__GNUC__)
#define TKI_PREFETCH_W_NEONFMA(p) __builtin_prefetch((p), 1, 3)
#else
#define TKI_PREFETCH_W_NEONFMA(p) ((void)(p))
#endif

/* Between unrolled k steps: gcc 12 otherwise hoists the loads of later steps above the FMAs of
 * earlier ones and runs out of the 32 vector registers (spills in the inner loop); clang schedules
 * this kernel without spills and is left free. */
#if defined(__GNUC__) && !defined(__clang__)
#define TKI_KSTEP_FENCE_NEONFMA() __asm__ __volatile__("" ::: "memory")
#else
#define TKI_KSTEP_FENCE_NEONFMA() ((void)0)
#endif

/* The first cnt floats at p (cnt >= 1) in the low lanes, zeros above; never reads p[cnt..3]. */
static inline TKM_TARGET float32x4_t tki_ld_part_neonfma(const float *p, size_t cnt)
{
    float32x4_t v = vdupq_n_f32(0.0f);
    if (cnt >= 4) return vld1q_f32(p);
    v = vld1q_lane_f32(p, v, 0);
    if (cnt > 1) v = vld1q_lane_f32(p + 1, v, 1);
    if (cnt > 2) v = vld1q_lane_f32(p + 2, v, 2);
    return v;
}

/* Stores the low cnt lanes of v to p (cnt >= 1); never writes p[cnt..3]. */
static inline TKM_TARGET void tki_st_part_neonfma(float *p, float32x4_t v, size_t cnt)
{
    if (cnt >= 4) {
        vst1q_f32(p, v);
    } else if (cnt >= 2) {
        vst1_f32(p, vget_low_f32(v));
        if (cnt == 3) vst1q_lane_f32(p + 2, v, 2);
    } else {
        vst1q_lane_f32(p, v, 0);
    }
}
@>)
m4_define(<@tkm_ukr_header_end@>, <@#endif /* TK_GEN_UKR_F32_NEONFMA_H */@>)

m4_dnl # the A registers of one k step: full groups of four rows, then a pair, then a single row
m4_define(<@_tkm_neon_load_a@>, <@m4_dnl
tkm_for(<@TKM_G@>, 0, TKM_G4 - 1, <@            const float32x4_t a_<@@>TKM_G = vld1q_f32(a + m4_eval(TKM_G * 4));
@>)m4_dnl
m4_ifelse(TKM_H2, 1, <@            const float32x2_t ah = vld1_f32(a + m4_eval(TKM_G4 * 4));
@>)m4_dnl
m4_ifelse(TKM_T1, 1, <@            const float32x4_t at = vld1q_dup_f32(a + m4_eval(TKM_MR - 1));
@>)@>)

m4_dnl # one fused multiply-add of accumulator (ROW, VEC) with the A value of that row
m4_define(<@_tkm_neon_fma@>, <@m4_ifelse(m4_eval($1 < TKM_G4 * 4), 1,
<@tkm_acc($1, $2) = vfmaq_laneq_f32(tkm_acc($1, $2), b_$2, a_<@@>m4_eval($1 / 4), m4_eval($1 % 4));@>,
m4_eval($1 < TKM_G4 * 4 + TKM_H2 * 2), 1,
<@tkm_acc($1, $2) = vfmaq_lane_f32(tkm_acc($1, $2), b_$2, ah, m4_eval($1 - TKM_G4 * 4));@>,
<@tkm_acc($1, $2) = vfmaq_f32(tkm_acc($1, $2), b_$2, at);@>)@>)

m4_define(<@_tkm_neon_step@>, <@        {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            const float32x4_t b_<@@>TKM_V = vld1q_f32(b + m4_eval(TKM_V * 4));
@>)m4_dnl
_tkm_neon_load_a<@@>m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            _tkm_neon_fma(TKM_I, TKM_V)
@>)@>)m4_dnl
            a += TKM_MR;
            b += ldb;
            TKI_KSTEP_FENCE_NEONFMA();
        }
@>)

m4_dnl # rows(STMT): STMT once per vector of every valid row (the row and vector indexes are the loop names)
m4_define(<@_tkm_neon_rows@>, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@                if (m > TKM_I) {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                    $1
@>)m4_dnl
                }
@>)@>)

m4_dnl # the C pointer of the current row and vector
m4_define(<@_tkm_neon_cp@>, <@c + TKM_I * ldc + m4_eval(TKM_V * 4)@>)

m4_define(<@tkm_ukr_gemm_f32@>, <@tkm_nargs(<@tkm_ukr_gemm_f32@>, 3, $#)m4_dnl
m4_pushdef(<@TKM_MR@>, <@$1@>)m4_pushdef(<@TKM_NV@>, <@$2@>)m4_pushdef(<@TKM_KU@>, <@$3@>)m4_dnl
m4_pushdef(<@TKM_G4@>, m4_eval($1 / 4))m4_pushdef(<@TKM_H2@>, m4_eval(($1 % 4) / 2))m4_dnl
m4_pushdef(<@TKM_T1@>, m4_eval($1 % 2))m4_dnl
static inline TKM_TARGET void tkm_ukr_name($1, $2, $3)(TKI_UKR_PARAMS)
{
    size_t p = 0;
    {
        /* C is touched only after the k loop: start fetching the tile's rows now */
        const size_t last = n == 0 ? 0 : (n < m4_eval(TKM_NV * 4) ? n : m4_eval(TKM_NV * 4)) - 1;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@        if (m > TKM_I) TKI_PREFETCH_W_NEONFMA(c + TKM_I * ldc), TKI_PREFETCH_W_NEONFMA(c + TKM_I * ldc + last);
@>)m4_dnl
    }
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@    float32x4_t tkm_acc(TKM_I, TKM_V) = vdupq_n_f32(0.0f);
@>)@>)m4_dnl
tkm_kloop(<@_tkm_neon_step@>)m4_dnl
    {
        const float32x4_t va = vdupq_n_f32(aux->alpha);
        const float *bias = aux->bias;
        if (n >= m4_eval(TKM_NV * 4)) {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            const float32x4_t bias_<@@>TKM_V = bias ? vld1q_f32(bias + m4_eval(TKM_V * 4)) : vdupq_n_f32(0.0f);
@>)m4_dnl
            if (aux->beta == 0.0f) {
_tkm_neon_rows(<@vst1q_f32(_tkm_neon_cp, vfmaq_f32(bias_<@@>TKM_V, va, tkm_acc(TKM_I, TKM_V)));@>)m4_dnl
            } else {
                const float32x4_t vb = vdupq_n_f32(aux->beta);
_tkm_neon_rows(<@vst1q_f32(_tkm_neon_cp, vfmaq_f32(vfmaq_f32(bias_<@@>TKM_V, va, tkm_acc(TKM_I, TKM_V)), vb, vld1q_f32(_tkm_neon_cp)));@>)m4_dnl
            }
        } else {
            /* column edge: n_V columns of vector V are inside the tile (0 to 4) */
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            const size_t n_<@@>TKM_V = m4_ifelse(TKM_V, 0, <@n@>, <@n > m4_eval(TKM_V * 4) ? n - m4_eval(TKM_V * 4) : 0@>);
            const float32x4_t bias_<@@>TKM_V = bias && n_<@@>TKM_V ? tki_ld_part_neonfma(bias + m4_eval(TKM_V * 4), n_<@@>TKM_V) : vdupq_n_f32(0.0f);
@>)m4_dnl
            if (aux->beta == 0.0f) {
_tkm_neon_rows(<@if (n_<@@>TKM_V) tki_st_part_neonfma(_tkm_neon_cp, vfmaq_f32(bias_<@@>TKM_V, va, tkm_acc(TKM_I, TKM_V)), n_<@@>TKM_V);@>)m4_dnl
            } else {
                const float32x4_t vb = vdupq_n_f32(aux->beta);
_tkm_neon_rows(<@if (n_<@@>TKM_V) tki_st_part_neonfma(_tkm_neon_cp, vfmaq_f32(vfmaq_f32(bias_<@@>TKM_V, va, tkm_acc(TKM_I, TKM_V)), vb, tki_ld_part_neonfma(_tkm_neon_cp, n_<@@>TKM_V)), n_<@@>TKM_V);@>)m4_dnl
            }
        }
    }
}
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NV@>)m4_popdef(<@TKM_KU@>)m4_dnl
m4_popdef(<@TKM_G4@>)m4_popdef(<@TKM_H2@>)m4_popdef(<@TKM_T1@>)m4_dnl
@>)
m4_divert(0)m4_dnl
