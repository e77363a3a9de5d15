m4_divert(-1)
m4_dnl # AVX-512 f32 GEMM microkernel, broadcast form: per k step, NV zmm loads of B and MR broadcasts of
m4_dnl # A (folded by the compiler into embedded-broadcast FMA operands), MR*NV accumulators.
m4_dnl # Edges: rows are guarded by m, columns by AVX-512 masks, so there is no scalar tail.
m4_dnl # Instantiated by tkm_ukr_gemm_f32(MR, NV, KU); NR = 16*NV. Contract: docs/microkernel.md.

m4_dnl # lanes of one vector register, as a C expression (a constant for fixed-width ISAs)
m4_define(<@tkm_vl_f32@>, <@16@>)

m4_define(<@tkm_ukr_name@>, <@tki_ukr_gemm_f32_$1x<@@>m4_eval($2 * 16)_avx512f_bcast_u$3<@@>tkm_pf_suffix($4)@>)

m4_define(<@tkm_ukr_header_begin@>, <@#ifndef TK_GEN_UKR_F32_AVX512F_H
#define TK_GEN_UKR_F32_AVX512F_H
#include <immintrin.h>
#include "tk/internal.h"

/* Keeps a loaded vector in a register. In a short tile GCC folds each B vector into the FMA of
 * every row as a memory operand, MR loads where one serves, and the loads, not the FMAs, set the
 * pace: 3x112 packed ran 87 GFLOP/s and 2x128 136 against 163-172 for the taller tiles (level 0,
 * spr, session 34). A masked load GCC does not fold, so the last vector of a ragged tile needs none. */
#if defined(__GNUC__)
#define TKI_KEEP_AVX512F(v) __asm__("" : "+v"(v))
#else
#define TKI_KEEP_AVX512F(v) ((void)0)
#endif

/* what a kernel reads for its bias when there is none: zeros for the widest tile (NV <= 15). A
 * static of a function, not of the file: gcc at -O0 emits every file-scope static object, used or
 * not (templates/gemm-f32-blocked.h.m4, tki_gemm_f32_cfgs). */
static inline TKI_ALWAYS_INLINE TKI_UNUSED const float *tki_zero_row_avx512f(void)
{
    static const float zeros[256] TKI_ALIGNED(64) = {0};
    return zeros;
}

/* the lanes of a vector of `lanes` (8 or 16) whose columns first.. are < n */
static inline TKM_TARGET unsigned tki_mask_avx512f(size_t n, size_t first, size_t lanes)
{
    size_t left = n > first ? n - first : 0;
    return left >= lanes ? (1u << lanes) - 1u : (1u << left) - 1u;
}

/* The sums of v0..v7, in that order: each vector's 16 lanes added up (the dot form's reduction).
 * Halves, then quarters, then pairs of lanes are added across vectors, so a vector's lanes only ever
 * meet each other: a sum does not depend on which vectors share the call. */
static inline TKM_TARGET __m256 tki_dot_sum8_avx512f(__m512 v0, __m512 v1, __m512 v2, __m512 v3, __m512 v4, __m512 v5,
                                                   __m512 v6, __m512 v7)
{
    const __m512 t01 = _mm512_add_ps(_mm512_shuffle_f32x4(v0, v1, 0x44), _mm512_shuffle_f32x4(v0, v1, 0xEE));
    const __m512 t23 = _mm512_add_ps(_mm512_shuffle_f32x4(v2, v3, 0x44), _mm512_shuffle_f32x4(v2, v3, 0xEE));
    const __m512 t45 = _mm512_add_ps(_mm512_shuffle_f32x4(v4, v5, 0x44), _mm512_shuffle_f32x4(v4, v5, 0xEE));
    const __m512 t67 = _mm512_add_ps(_mm512_shuffle_f32x4(v6, v7, 0x44), _mm512_shuffle_f32x4(v6, v7, 0xEE));
    /* 128-bit block q of x holds four partial sums of v(q), of y those of v(q+4) */
    const __m512 x = _mm512_add_ps(_mm512_shuffle_f32x4(t01, t23, 0x88), _mm512_shuffle_f32x4(t01, t23, 0xDD));
    const __m512 y = _mm512_add_ps(_mm512_shuffle_f32x4(t45, t67, 0x88), _mm512_shuffle_f32x4(t45, t67, 0xDD));
    const __m512 s = _mm512_add_ps(_mm512_unpacklo_ps(x, y), _mm512_unpackhi_ps(x, y));
    /* lane 0 of block q: the sum of v(q); lane 1: of v(q+4) */
    const __m512 r = _mm512_add_ps(s, _mm512_permute_ps(s, 0x4E));
    return _mm512_castps512_ps256(_mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0), r));
}

/* Copies rows x cols of row-major src (rows lda apart) transposed: column p to dst + p*ds, the rows
 * as lanes, lanes rows..mr-1 zero (mr <= 16 <= ... ds >= mr; lanes past mr are not written).
 * Sixteen columns at a time, each row read as one vector (the last, shorter block through a mask)
 * and the 16x16 block transposed in registers. The portable loops read the rows element by
 * element; rows 4 KiB apart share L1 sets, and at 1024^3 packing A so took 11% of the whole call
 * (measured). Packs A panels (ds = mr) and the dot form's columns of B (ds = the column stride). */
static inline TKM_TARGET void tki_pack_t_f32_avx512f(const float *TKI_RESTRICT src, size_t lda, size_t rows,
                                                     size_t cols, size_t mr, size_t ds, float *TKI_RESTRICT dst)
{
    const __mmask16 keep = (__mmask16)tki_mask_avx512f(mr, 0, 16);
    size_t p = 0;
    for (; p < cols; p += 16) {
        const __mmask16 have = (__mmask16)tki_mask_avx512f(cols, p, 16);
tkm_for(<@TKM_I@>, 0, 15, <@        const __m512 r<@@>TKM_I = rows > TKM_I ? _mm512_maskz_loadu_ps(have, src + TKM_I * lda + p) : _mm512_setzero_ps();
@>)m4_dnl
        /* pairs of rows interleaved by element, then by element pair: lane L of u(4q+e) holds
         * element 4L+e of rows 4q..4q+3 */
tkm_for(<@TKM_I@>, 0, 7, <@        const __m512 t<@@>m4_eval(2 * TKM_I) = _mm512_unpacklo_ps(r<@@>m4_eval(2 * TKM_I), r<@@>m4_eval(2 * TKM_I + 1));
        const __m512 t<@@>m4_eval(2 * TKM_I + 1) = _mm512_unpackhi_ps(r<@@>m4_eval(2 * TKM_I), r<@@>m4_eval(2 * TKM_I + 1));
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, 3, <@        const __m512 u<@@>m4_eval(4 * TKM_I) = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t<@@>m4_eval(4 * TKM_I)), _mm512_castps_pd(t<@@>m4_eval(4 * TKM_I + 2))));
        const __m512 u<@@>m4_eval(4 * TKM_I + 1) = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t<@@>m4_eval(4 * TKM_I)), _mm512_castps_pd(t<@@>m4_eval(4 * TKM_I + 2))));
        const __m512 u<@@>m4_eval(4 * TKM_I + 2) = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t<@@>m4_eval(4 * TKM_I + 1)), _mm512_castps_pd(t<@@>m4_eval(4 * TKM_I + 3))));
        const __m512 u<@@>m4_eval(4 * TKM_I + 3) = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t<@@>m4_eval(4 * TKM_I + 1)), _mm512_castps_pd(t<@@>m4_eval(4 * TKM_I + 3))));
@>)m4_dnl
        /* 128-bit lanes: column e + 4L gathers lane L of u(e), u(4+e), u(8+e), u(12+e) */
tkm_for(<@TKM_I@>, 0, 3, <@        {
            const __m512 lo = _mm512_shuffle_f32x4(u<@@>TKM_I, u<@@>m4_eval(TKM_I + 4), 0x88), hi = _mm512_shuffle_f32x4(u<@@>TKM_I, u<@@>m4_eval(TKM_I + 4), 0xDD);
            const __m512 lo2 = _mm512_shuffle_f32x4(u<@@>m4_eval(TKM_I + 8), u<@@>m4_eval(TKM_I + 12), 0x88), hi2 = _mm512_shuffle_f32x4(u<@@>m4_eval(TKM_I + 8), u<@@>m4_eval(TKM_I + 12), 0xDD);
            if (p + TKM_I < cols) _mm512_mask_storeu_ps(dst + (p + TKM_I) * ds, keep, _mm512_shuffle_f32x4(lo, lo2, 0x88));
            if (p + m4_eval(TKM_I + 4) < cols) _mm512_mask_storeu_ps(dst + (p + m4_eval(TKM_I + 4)) * ds, keep, _mm512_shuffle_f32x4(hi, hi2, 0x88));
            if (p + m4_eval(TKM_I + 8) < cols) _mm512_mask_storeu_ps(dst + (p + m4_eval(TKM_I + 8)) * ds, keep, _mm512_shuffle_f32x4(lo, lo2, 0xDD));
            if (p + m4_eval(TKM_I + 12) < cols) _mm512_mask_storeu_ps(dst + (p + m4_eval(TKM_I + 12)) * ds, keep, _mm512_shuffle_f32x4(hi, hi2, 0xDD));
        }
@>)m4_dnl
    }
}

/* Packs rows x kc of row-major A (rows lda apart) into dst[p*mr + i], rows..mr-1 zero, mr <= 16. */
static inline TKM_TARGET void tki_pack_a_f32_avx512f(const float *TKI_RESTRICT src, size_t lda, size_t rows,
                                                     size_t kc, size_t mr, float *TKI_RESTRICT dst)
{
    tki_pack_t_f32_avx512f(src, lda, rows, kc, mr, mr, dst);
}
@>)
m4_dnl # the framework packs untransposed A with this when MR <= tkm_pack_a_max_mr
m4_define(<@tkm_pack_a_name@>, <@tki_pack_a_f32_avx512f@>)
m4_define(<@tkm_pack_a_max_mr@>, <@16@>)
m4_dnl # the dot form's loops copy columns of B (and rows of a transposed A) with this, 16 deep at a time
m4_define(<@tkm_pack_t_name@>, <@tki_pack_t_f32_avx512f@>)
m4_define(<@tkm_ukr_header_end@>, <@#endif /* TK_GEN_UKR_F32_AVX512F_H */@>)

m4_dnl # The vector flavour of a kernel body (TKM_FL): z, 512-bit vectors of 16 lanes; y, 256-bit vectors
m4_dnl # of 8 lanes with AVX-512VL masks, which one-vector tiles use when n <= 8 (Zen 4 issues two
m4_dnl # 256-bit FMAs per cycle but one 512-bit: eight lanes at twice the rate); h, 512-bit vectors but
m4_dnl # the last one 256-bit, which tiles of several vectors use when their last vector holds at most 8
m4_dnl # of the n columns (n = 19, 24, 40: a quarter to a sixth of the FMAs at half the cost on a Zen 4,
m4_dnl # the same cost where 512-bit FMAs are native). Only tiles of up to TKM_ISA_HALF vectors (the ISA
m4_dnl # descriptor's `half`, 3, which the tuner's model reads too) have an h body: a
m4_dnl # wider tile narrows to them for n <= 48, and past that the half vector saves at most a twelfth
m4_dnl # of one ragged tile, where the h bodies of all tiles made the test builds' kernel units 1.25x
m4_dnl # slower to compile.
m4_dnl # _tkm_fv: the flavour of vector TKM_V (inside a tkm_for over TKM_V), y or z.
m4_define(<@_tkm_fv@>, <@m4_ifelse(TKM_FL, y, y, TKM_FL, h, <@m4_ifelse(m4_eval(TKM_V == TKM_NV - 1), 1, y, z)@>, z)@>)
m4_define(<@_tkm_w@>, <@m4_ifelse(_tkm_fv, y, <@_mm256@>, <@_mm512@>)@>)
m4_define(<@_tkm_vt@>, <@m4_ifelse(_tkm_fv, y, <@__m256@>, <@__m512@>)@>)
m4_define(<@_tkm_mt@>, <@m4_ifelse(_tkm_fv, y, <@__mmask8@>, <@__mmask16@>)@>)
m4_define(<@_tkm_lanes@>, <@m4_ifelse(_tkm_fv, y, 8, 16)@>)
m4_dnl # a scalar broadcast (outside the loops over TKM_V): 256-bit only in a y body; _tkm_sc(NAME) is
m4_dnl # such a broadcast as vector TKM_V's type (its low half, free, for the last vector of an h body)
m4_define(<@_tkm_sw@>, <@m4_ifelse(TKM_FL, y, <@_mm256@>, <@_mm512@>)@>)
m4_define(<@_tkm_svt@>, <@m4_ifelse(TKM_FL, y, <@__m256@>, <@__m512@>)@>)
m4_define(<@_tkm_sc@>, <@m4_ifelse(TKM_FL, h, <@m4_ifelse(_tkm_fv, y, <@_mm512_castps512_ps256($1)@>, <@$1@>)@>, <@$1@>)@>)

m4_dnl # Direct tiles of _tkm_group_min rows or more (TKM_GROUPED) read A through one pointer per group of
m4_dnl # four rows (g_Q, advanced one column per k step) and three row offsets shared by the groups
m4_dnl # (o_1..o_3, base + index * 4 operands): 14 rows take 4 + 3 registers instead of 14 pointers, which
m4_dnl # with the loop's own registers outnumbered x86's 15 and spilled inside the loop (14x16 direct: 16.6
m4_dnl # cycles per k step for 14 FMAs; grouped 14.2; prototype). A group that would reach past row m
m4_dnl # moves up to end at row m - 1 (r_Q: its first row), so nothing past A is read; accumulator I then
m4_dnl # holds row r_Q + I % 4 and is stored only when that row is its own (>= 4Q) and below m. Fewer than
m4_dnl # four rows in all (m < 4): the offsets stop at row m - 1.
m4_define(<@_tkm_group_min@>, <@9@>)
m4_dnl # Their sweeps call them out of line (tkm_ukr_sweep_out_of_line, gen/tkm.m4): smaller without the
m4_dnl # spills, a grouped kernel was inlined into its sweep, and there, its B cold, 14x32 pf8 ran
m4_dnl # 14x1000x500 at 0.72x and 13x1000x1000 at 0.77x the speed of the out-of-line call (tk_bench,
m4_dnl # alternating builds).
m4_define(<@tkm_ukr_sweep_out_of_line@>, <@m4_eval($1 >= _tkm_group_min)@>)
m4_define(<@_tkm_ngroups@>, <@m4_eval((TKM_MR + 3) / 4)@>)
m4_dnl # the element of A that row TKM_I multiplies in k step TKM_U
m4_define(<@_tkm_a_elt@>, <@m4_ifelse(TKM_DIRECT, 1, <@m4_ifelse(TKM_GROUPED, 1, <@g_<@@>m4_eval(TKM_I / 4)[m4_ifelse(m4_eval(TKM_I % 4), 0, <@0@>, <@o_<@@>m4_eval(TKM_I % 4)@>)]@>, <@a_<@@>TKM_I<@@>[p + m4_eval(TKM_U - 1)]@>)@>, <@a[TKM_I]@>)@>)
m4_dnl # the row of C that accumulator row TKM_I holds, and whether it is stored
m4_define(<@_tkm_crow@>, <@m4_ifelse(TKM_GROUPED, 1, <@(r_<@@>m4_eval(TKM_I / 4) + m4_eval(TKM_I % 4))@>, <@TKM_I@>)@>)
m4_dnl # (the first group never moves: its rows are TKM_I, and a test of >= 0 would warn)
m4_define(<@_tkm_keep@>, <@m4_ifelse(m4_eval(TKM_GROUPED && TKM_I >= 4), 1, <@_tkm_crow >= m4_eval(TKM_I / 4 * 4) && _tkm_crow < m@>, <@m > TKM_I@>)@>)

m4_dnl # one k step (TKM_U of the unrolled group, 1 in the tail); the direct form (TKM_DIRECT 1) reads
m4_dnl # A in place (_tkm_a_elt: row pointers at column p + TKM_U - 1, or the groups of four rows
m4_dnl # above, advanced after each step), and B's last vector through its column mask when
m4_dnl # TKM_MASKB is 1 (a ragged tile). Only the last: a kernel runs at NV vectors only when n is past
m4_dnl # (NV - 1) * 16 (tkm_ukr_narrow gives fewer columns to a narrower kernel), so its other vectors
m4_dnl # are whole. Until session 36 a direct tile of several rows loaded every vector through its
m4_dnl # mask, and in L1 ran at 0.80-0.86 of its packed twin (4x96, 5x80, 6x64; 0.96 for 9x48 and
m4_dnl # 14x32); with the whole vectors plain and kept in registers, 0.98-1.01 (paired runs, spr).
m4_dnl # Split sums (tkm_ksplit, gen/tkm.m4): x86 cores issue two multiply-adds a cycle, each 4 cycles
m4_dnl # from its operands to its sum, so 8 chains keep them busy (docs/microkernel.md, "Split sums").
m4_define(<@tkm_ksplit@>, <@8, 32, 1@>)
m4_define(<@_tkm_avx512_add@>, <@_tkm_w<@@>_add_ps($1, $2)@>)

m4_define(<@_tkm_avx512_masked_v@>, <@m4_eval(TKM_MASKB && TKM_V == TKM_NV - 1)@>)
m4_define(<@_tkm_avx512_step@>, <@        {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            _tkm_vt b_<@@>TKM_V = m4_ifelse(_tkm_avx512_masked_v, 1, <@_tkm_w<@@>_maskz_loadu_ps(k_<@@>TKM_V, b + m4_eval(TKM_V * 16))@>, <@_tkm_w<@@>_loadu_ps(b + m4_eval(TKM_V * 16))@>);
m4_ifelse(m4_eval(!_tkm_avx512_masked_v && TKM_MR > 1), 1, <@            TKI_KEEP_AVX512F(b_<@@>TKM_V);
@>)@>)m4_dnl
tkm_prefetch_b(m4_eval(TKM_NV * 16))m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            {
                const _tkm_svt ai = _tkm_sw<@@>_set1_ps(_tkm_a_elt);
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                tkm_kacc(tkm_ksets) = _tkm_w<@@>_fmadd_ps(_tkm_sc(ai), b_<@@>TKM_V, tkm_kacc(tkm_ksets));
@>)m4_dnl
            }
@>)m4_dnl
            m4_ifelse(TKM_DIRECT, 1, <@m4_ifelse(TKM_GROUPED, 1, <@tkm_for(<@TKM_Q@>, 0, _tkm_ngroups - 1, <@g_<@@>TKM_Q<@@>++; @>)@>)@>, <@a += TKM_MR;@>)
            b += ldb;
m4_dnl # B rows in place are ldb apart, a run-time stride: in a one-row direct tile, GCC gives every
m4_dnl # row of an unrolled group and every vector its own address register, more than x86 has, and
m4_dnl # spills them into vector registers (1x128: 1.15x faster with the pointer kept opaque, paired
m4_dnl # runs; 4x96 was 0.92x with it)
m4_ifelse(TKM_ONEROW, 1, <@            TKI_OPAQUE(b);
@>)m4_dnl
        }
@>)

m4_dnl # C is touched only after the k loop: a multi-row tile fetches its rows into L2 before the loop and
m4_dnl # into L1 about 512 multiply-adds before its end (tkm_fetch_c, tkm_kloop_late; docs/microkernel.md,
m4_dnl # "Fetching C"). Fetched into L1 before the loop, as before, a 6x64 tile swept over 256 columns of B
m4_dnl # spent 76-77 cycles a tile beyond its FMAs at k = 64 and 128, and 38-39 late; late only, the
m4_dnl # shapes whose C lives in L3 lost 2-7%. Not for a k loop shorter than 32: it has no time to hide
m4_dnl # the fetch (4x4x4 took 0.90x the time with it).

m4_dnl # _tkm_avx512_loops(MASKB): the unrolled k loop and its tail; MASKB 1 loads B through the masks
m4_define(<@_tkm_avx512_loops@>, <@m4_pushdef(<@TKM_MASKB@>, <@$1@>)m4_dnl
m4_ifelse(TKM_MR, 1, <@tkm_kloop(<@_tkm_avx512_step@>)@>, <@tkm_kloop_late(<@_tkm_avx512_step@>, <@tkm_fetch_c(16, 3)@>, 512)@>)m4_dnl
m4_popdef(<@TKM_MASKB@>)@>)

m4_dnl # _tkm_avx512_rows(EXPR-OF-ROW-I-VECTOR-V[, ROW-PROLOGUE]): one masked store per accumulator of
m4_dnl # the valid rows, the prologue's statements first in each row
m4_define(<@_tkm_avx512_rows@>, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            if (_tkm_keep) {
$2<@@>m4_dnl
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                $1
@>)m4_dnl
            }
@>)@>)

m4_dnl # The bias of a tile whose accumulators, B vectors, alpha and beta leave no room for NV bias
m4_dnl # vectors (4x96, 5x80: MR * NV + NV + 2 = 32) is read again for every row (an L1 hit, a memory
m4_dnl # operand of the multiply-add) through a pointer the compiler cannot see through: with NV bias
m4_dnl # vectors live beside the accumulators GCC 12 spilled some of them inside the k loop, and level 0
m4_dnl # on spr ran 1.04-1.07x faster so (in L1, k = 64 and 256). Other tiles keep them in registers:
m4_dnl # per row, 8x48 and 12x32 ran 0.95-0.99x. No bias reads zeros (tki_zero_row_avx512f()).
m4_define(<@_tkm_avx512_bias_per_row@>, <@m4_eval(TKM_NV > TKM_ISA_HALF && TKM_MR * TKM_NV + TKM_NV + 2 > 31)@>)
m4_dnl # the bias's statements before the stores, each row's (_tkm_avx512_rows' prologue), and vector
m4_dnl # TKM_V of it in a row
m4_define(<@_tkm_avx512_bias_setup@>, <@m4_ifelse(_tkm_avx512_bias_per_row, 1, <@m4_dnl
        const float *const bias = aux->bias ? aux->bias : tki_zero_row_avx512f();
@>, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@        const _tkm_vt bias_<@@>TKM_V = aux->bias ? _tkm_avx512_ld(<@aux->bias + m4_eval(TKM_V * 16)@>) : _tkm_w<@@>_setzero_ps();
@>)@>)@>)
m4_define(<@_tkm_avx512_bias_row@>, <@m4_ifelse(_tkm_avx512_bias_per_row, 1, <@m4_dnl
                const float *bias_row = bias;
                TKI_OPAQUE(bias_row);
@>)@>)
m4_define(<@_tkm_avx512_bias@>, <@m4_ifelse(_tkm_avx512_bias_per_row, 1, <@_tkm_avx512_ld(<@bias_row + m4_eval(TKM_V * 16)@>)@>, <@bias_<@@>TKM_V@>)@>)

m4_dnl # the columns of a whole tile of flavour y (8 lanes) or z (an h body is never whole: below)
m4_define(<@_tkm_avx512_full@>, <@m4_eval(TKM_NV * m4_ifelse(TKM_FL, y, 8, 16))@>)
m4_dnl # Only the last vector of a tile may be ragged: a kernel of NV vectors runs only for n past
m4_dnl # (NV - 1) * 16 (_tkm_ukr_narrow_to hands fewer columns to a narrower kernel), so the others are
m4_dnl # whole and are loaded and stored plain, and only the last has a mask (k_<NV-1>). On a Zen 4 a
m4_dnl # masked store costs far more than a plain one: 64x64x64 (sixteen 4x64 tiles) ran 1.034-1.037x
m4_dnl # faster so (docs/microkernel.md, "Ragged column tiles"). The last vector stays masked even in a
m4_dnl # whole tile: a test of n per row to store it plain gained nothing.
m4_define(<@_tkm_avx512_masks@>, <@tkm_for(<@TKM_V@>, TKM_NV - 1, TKM_NV - 1, <@    const _tkm_mt k_<@@>TKM_V = (_tkm_mt)tki_mask_avx512f(n, m4_eval(TKM_V * 16), _tkm_lanes);
@>)@>)
m4_dnl # _tkm_avx512_ld(ADDR), _tkm_avx512_st(ADDR, VALUE): vector TKM_V of a row, through the mask
m4_dnl # only if it is the last
m4_define(<@_tkm_avx512_ld@>, <@m4_ifelse(m4_eval(TKM_V == TKM_NV - 1), 1, <@_tkm_w<@@>_maskz_loadu_ps(k_<@@>TKM_V, $1)@>, <@_tkm_w<@@>_loadu_ps($1)@>)@>)
m4_define(<@_tkm_avx512_st@>, <@m4_ifelse(m4_eval(TKM_V == TKM_NV - 1), 1, <@_tkm_w<@@>_mask_storeu_ps($1, k_<@@>TKM_V, $2)@>, <@_tkm_w<@@>_storeu_ps($1, $2)@>);@>)

m4_dnl # the accumulators, the k loop and the stores, in the flavour TKM_FL
m4_define(<@_tkm_avx512_body@>, <@m4_dnl
m4_dnl # the direct form needs the column masks inside the k loop; the packed form only when storing
m4_ifelse(TKM_DIRECT, 1, <@_tkm_avx512_masks<@@>@>)m4_dnl
tkm_for(<@TKM_S@>, 0, tkm_ksets - 1, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@    _tkm_vt tkm_acc_set(TKM_S) = _tkm_w<@@>_setzero_ps();
@>)@>)@>)m4_dnl
m4_dnl # A direct tile masks B only when it is ragged (an h body always: it is whole at one n only, not
m4_dnl # worth a second loop), and then only its last vector. Masked loads of
m4_dnl # whole rows cost a one-row tile mask registers (eight masks and the loop's own do not fit in
m4_dnl # k1..k7), and on a Zen 4 a masked load in the loop costs a two-vector tile about a twentieth
m4_dnl # of its speed (a scratch 4x32 kernel in L1 at k = 320: 0.93 of the FMA peak with the mask,
m4_dnl # 0.99 without; tk's 4x32 0.93 -> 0.98 when whole tiles of several rows stopped masking:
m4_dnl # shapes, old and new code in one process, alternating, minimum of 60: 32x32x320 1.04x, 32^3
m4_dnl # 1.03x, 16^3 1.03x, ragged ones unchanged). A ragged tile reading its last vector whole in
m4_dnl # every k step but the last (a row's columns past n, before the last row, are still B's memory)
m4_dnl # moved no whole shape and read B past its columns: not kept. Tiles of several rows keep their
m4_dnl # plain vectors in registers (TKI_KEEP_AVX512F), since GCC folds plain loads into every row's
m4_dnl # FMA as a memory operand, MR loads instead of one (2x128 at 3x700x300: 0.89x the speed, 4x96
m4_dnl # at 4x4096x4096: 0.93x, paired runs, before the keep).
m4_ifelse(TKM_DIRECT/TKM_FL, 1/h, <@_tkm_avx512_loops(1)@>, TKM_DIRECT, 1, <@    if (n >= _tkm_avx512_full) {
_tkm_avx512_loops(0)    } else {
_tkm_avx512_loops(1)    }
@>, <@_tkm_avx512_loops(0)@>)m4_dnl
tkm_kfold(tkm_ksets, <@_tkm_avx512_add@>)m4_dnl
    {
        const _tkm_svt va = _tkm_sw<@@>_set1_ps(aux->alpha);
m4_ifelse(TKM_DIRECT, 1, <@@>, <@_tkm_avx512_masks<@@>@>)m4_dnl
_tkm_avx512_bias_setup<@@>m4_dnl
        if (aux->beta == 0.0f && aux->alpha == 1.0f && !aux->bias) {
            /* the plain product: one multiply-add less on every accumulator's path to memory */
_tkm_avx512_rows(<@_tkm_avx512_st(<@c + _tkm_crow * ldc + m4_eval(TKM_V * 16)@>, <@tkm_acc(TKM_I, TKM_V)@>)@>)m4_dnl
        } else if (aux->beta == 0.0f) {
_tkm_avx512_rows(<@_tkm_avx512_st(<@c + _tkm_crow * ldc + m4_eval(TKM_V * 16)@>, <@_tkm_w<@@>_fmadd_ps(_tkm_sc(va), tkm_acc(TKM_I, TKM_V), _tkm_avx512_bias)@>)@>, <@_tkm_avx512_bias_row@>)m4_dnl
        } else {
            const _tkm_svt vb = _tkm_sw<@@>_set1_ps(aux->beta);
_tkm_avx512_rows(<@_tkm_avx512_st(<@c + _tkm_crow * ldc + m4_eval(TKM_V * 16)@>, <@_tkm_w<@@>_fmadd_ps(_tkm_sc(vb), _tkm_avx512_ld(<@c + _tkm_crow * ldc + m4_eval(TKM_V * 16)@>), _tkm_w<@@>_fmadd_ps(_tkm_sc(va), tkm_acc(TKM_I, TKM_V), _tkm_avx512_bias))@>)@>, <@_tkm_avx512_bias_row@>)m4_dnl
        }
    }
@>)

m4_dnl # A tile of 28 accumulators or more (14x32) has its half flavour (n <= (NV - 1) * 16 + 8) out of
m4_dnl # line: in the same function, the two bodies' accumulators made GCC 12 spill some of the full
m4_dnl # body's inside its k loop (15 multiply-adds from the stack), and level 0 on spr ran 1.07-1.09x
m4_dnl # faster out of line (in L1, k = 64 and 256). Smaller tiles keep it in line, with no call on the
m4_dnl # way to a few columns: out of line, 8x48 and 12x32 ran the same, and 9x48 0.97-0.98x (it then
m4_dnl # spilled more, not less).
m4_define(<@_tkm_avx512_half_ool@>, <@m4_eval(TKM_NV > 1 && TKM_NV <= TKM_ISA_HALF && TKM_MR * TKM_NV >= 28)@>)
m4_dnl # the most columns the half flavour takes: its last vector holds at most 8
m4_define(<@_tkm_avx512_half_max@>, <@m4_eval((TKM_NV - 1) * 16 + 8)@>)

m4_dnl # _tkm_avx512_kernel(NAME, MR, NV, KU, DIRECT, PF): the body both forms share; PF > 0 prefetches B
m4_dnl # that many rows ahead in every k step (tkm_prefetch_b)
m4_define(<@_tkm_avx512_kernel@>, <@m4_dnl
m4_pushdef(<@TKM_MR@>, <@$2@>)m4_pushdef(<@TKM_NV@>, <@$3@>)m4_pushdef(<@TKM_KU@>, <@$4@>)m4_pushdef(<@TKM_DIRECT@>, <@$5@>)m4_pushdef(<@TKM_PF@>, <@$6@>)m4_dnl
m4_pushdef(<@TKM_ONEROW@>, m4_eval(TKM_DIRECT && TKM_MR == 1))m4_dnl
m4_pushdef(<@TKM_GROUPED@>, m4_eval(TKM_DIRECT && TKM_MR >= _tkm_group_min))m4_dnl
m4_pushdef(<@TKM_KNAME@>, <@$1@>)m4_dnl
m4_ifelse(_tkm_avx512_half_ool, 1, <@m4_dnl
/* the tile's flavour for n <= (NV - 1) * 16 + 8 columns (a 256-bit last vector), out of line */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET void $1<@@>_h(TKI_UKR_PARAMS)
{
_tkm_avx512_prelude<@@>m4_pushdef(<@TKM_FL@>, <@h@>)_tkm_avx512_body<@@>m4_popdef(<@TKM_FL@>)m4_dnl
}
@>)m4_dnl
static inline TKM_TARGET tkm_ukr_attrs<@@>void $1(TKI_UKR_PARAMS)
{
_tkm_ukr_narrow_to(16, <@_tkm_avx512_narrow_of@>)m4_dnl
_tkm_avx512_kernel_body}
m4_ifelse(m4_eval(TKM_DIRECT && TKM_NV > 1), 1, <@m4_ifelse(m4_defn(<@tkm_ukr_attrs@>), <@@>, <@m4_dnl
/* The kernel's body out of line, and its entry for calls through a configuration's pointer: the
 * column test first, then a jump, so that a call that narrows skips the wide kernel's frame (GCC
 * set up its registers and realigned stack before that test: a 7x7x7 call spent 3 of its 27 ns
 * in 7x48's prologue and epilogue on its way to 7x16; docs/microkernel.md, "Ragged column tiles"). */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET void $1<@@>_ool(TKI_UKR_PARAMS)
{
_tkm_avx512_kernel_body}
TKI_STATIC TKI_UNUSED TKM_TARGET void $1<@@>_entry(TKI_UKR_PARAMS)
{
_tkm_ukr_narrow_to(16, <@_tkm_avx512_narrow_of@>)m4_dnl
    $1<@@>_ool(k, a, b, ldb, c, ldc, m, n, aux);
}
@>)@>)m4_dnl
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NV@>)m4_popdef(<@TKM_KU@>)m4_popdef(<@TKM_DIRECT@>)m4_popdef(<@TKM_PF@>)m4_popdef(<@TKM_ONEROW@>)m4_popdef(<@TKM_GROUPED@>)m4_popdef(<@TKM_KNAME@>)m4_dnl
@>)
m4_dnl # the kernel a tile that needs W vectors narrows to (W, KU, DIRECT, PF after MR): a direct one of
m4_dnl # several vectors out of line (its own column test would pass; only its body runs), so that the
m4_dnl # by-name kernel is compiled only where sweeps and exact-shape instances inline it
m4_define(<@_tkm_avx512_narrow_of@>, <@m4_ifelse(m4_eval($4 && $2 > 1), 1, <@tkm_ukr_direct_name($1, $2, $3, $5)<@@>_ool@>, <@tkm_ukr_name_of($1, $2, $3, $4, $5)@>)@>)

m4_dnl # _tkm_avx512_prelude: the statements before a kernel's k loops, its flavours' common start
m4_define(<@_tkm_avx512_prelude@>, <@m4_dnl
    size_t p = 0;
m4_ifelse(TKM_GROUPED, 1, <@m4_dnl
    /* direct form, A rows in place through groups of four rows (the template says why) */
    const size_t last = m ? m - 1 : 0;
    const size_t o_1 = (m > 1 ? 1 : last) * aux->rsa, o_2 = (m > 2 ? 2 : last) * aux->rsa, o_3 = (m > 3 ? 3 : last) * aux->rsa;
tkm_for(<@TKM_Q@>, 0, _tkm_ngroups - 1, <@m4_pushdef(<@_tkm_gs@>, m4_ifelse(m4_eval(TKM_MR - 4 * TKM_Q < 4), 1, m4_eval(TKM_MR - 4 * TKM_Q), 4))m4_dnl
    const size_t r_<@@>TKM_Q = m4_ifelse(TKM_Q, 0, <@0@>, <@m >= m4_eval(4 * TKM_Q + _tkm_gs) ? TKM_Q * 4 : m >= _tkm_gs ? m - _tkm_gs : 0@>);
    const float *TKI_RESTRICT g_<@@>TKM_Q = a + r_<@@>TKM_Q * aux->rsa;
m4_popdef(<@_tkm_gs@>)@>)m4_dnl
@>, TKM_DIRECT, 1, <@m4_dnl
    /* direct form: A rows in place (rows past m re-read row 0, their results are never stored) */
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@    const float *TKI_RESTRICT a_<@@>TKM_I = a + (m > TKM_I ? TKM_I : 0) * aux->rsa;
@>)m4_dnl
@>)m4_dnl
m4_dnl # before the k loop: C into L2, whose latency a deep tile hides (a one-row tile: into L1, and not again)
    if (k >= 32)
tkm_fetch_c(16, m4_ifelse(TKM_MR, 1, 3, 2))m4_dnl
@>)

m4_dnl # _tkm_avx512_kernel_body: a kernel's statements after its column test (TKM_MR, ... pushed):
m4_dnl # a tile of many accumulators calls its half flavour out of line, before its own prelude
m4_define(<@_tkm_avx512_kernel_body@>, <@m4_dnl
m4_ifelse(_tkm_avx512_half_ool, 1, <@m4_dnl
    if (n <= _tkm_avx512_half_max) {
        TKM_KNAME<@@>_h(k, a, b, ldb, c, ldc, m, n, aux);
        return;
    }
@>)m4_dnl
_tkm_avx512_prelude<@@>m4_dnl
m4_ifelse(TKM_NV, 1, <@m4_dnl
    if (n <= 8) {
m4_pushdef(<@TKM_FL@>, <@y@>)_tkm_avx512_body<@@>m4_popdef(<@TKM_FL@>)m4_dnl
        return;
    }
@>, m4_eval(TKM_NV <= TKM_ISA_HALF && !_tkm_avx512_half_ool), 1, <@m4_dnl
    /* a narrower tile took n <= (NV - 1) * 16 above */
    if (n <= _tkm_avx512_half_max) {
m4_pushdef(<@TKM_FL@>, <@h@>)_tkm_avx512_body<@@>m4_popdef(<@TKM_FL@>)m4_dnl
        return;
    }
@>)m4_dnl
    {
m4_pushdef(<@TKM_FL@>, <@z@>)_tkm_avx512_body<@@>m4_popdef(<@TKM_FL@>)m4_dnl
    }
@>)

m4_define(<@tkm_ukr_gemm_f32@>, <@tkm_ukr_once(<@_tkm_avx512_kernel@>, $1, $2, $3, 0, tkm_ukr_pf_args(<@tkm_ukr_gemm_f32@>, $#, $4))@>)

m4_dnl # The direct form (docs/microkernel.md): A read in place, row i at a + i*aux->rsa, rows >= m
m4_dnl # never read; B read only in its first n columns (masked). Needs no packing at all. Each comes
m4_dnl # with its column sweep (tkm_ukr_sweep, gen/tkm.m4).
m4_define(<@tkm_ukr_direct_name@>, <@tki_ukr_gemm_f32_$1x<@@>m4_eval($2 * 16)_avx512f_direct_u$3<@@>tkm_pf_suffix($4)@>)
m4_dnl # what a configuration points to (tkm_ukr_direct_ptr): a kernel of several vectors through its entry
m4_define(<@tkm_ukr_direct_entry_name@>, <@tkm_ukr_direct_name($1, $2, $3, $4)<@@>m4_ifelse(m4_eval($2 > 1), 1, <@_entry@>)@>)
m4_define(<@tkm_ukr_gemm_f32_direct@>, <@tkm_ukr_direct_sweep(<@_tkm_avx512_kernel@>, $1, $2, $3, tkm_ukr_pf_args(<@tkm_ukr_gemm_f32_direct@>, $#, $4))@>)

m4_dnl # The dot form (docs/microkernel.md): vectors along k. C[i][j] is the dot product of row i of A
m4_dnl # and column j of B: A rows in place (aux->rsa apart), B columns ldb apart (the framework's
m4_dnl # k-major copy, or a transposed B in place), MR x NB accumulators of 16 partial sums each, added
m4_dnl # up after the k loop (tki_dot_sum8_avx512f). All lanes of every FMA do work whatever n is, so it
m4_dnl # is for tiles a few columns wide, which the broadcast form fills a fraction of (640x17x1200 on
m4_dnl # the Zen 4: 97 GFLOP/s against the broadcast form's 65, prototype). Rows past m re-read row 0
m4_dnl # and columns past n column 0; neither is stored. The k tail is masked: nothing past k is read.
m4_define(<@tkm_ukr_dot_name@>, <@tki_ukr_gemm_f32_$1x$2_avx512f_dot_u$3@>)
m4_define(<@_tkm_dot_step@>, <@        {
tkm_for(<@TKM_J@>, 0, TKM_NB - 1, <@            const __m512 bv_<@@>TKM_J = $1(bc_<@@>TKM_J + $2);
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            {
                const __m512 ai = $1(a_<@@>TKM_I + $2);
tkm_for(<@TKM_J@>, 0, TKM_NB - 1, <@                tkm_acc(TKM_I, TKM_J) = _mm512_fmadd_ps(ai, bv_<@@>TKM_J, tkm_acc(TKM_I, TKM_J));
@>)m4_dnl
            }
@>)m4_dnl
        }
@>)
m4_define(<@_tkm_dot_tail_load@>, <@_mm512_maskz_loadu_ps(kt, $1)@>)
m4_define(<@_tkm_dot_sum@>, <@tki_dot_sum8_avx512f(tkm_for(<@TKM_J@>, 0, 7, <@m4_ifelse(m4_eval(TKM_J < TKM_NB), 1, <@tkm_acc($1, TKM_J)@>, <@z@>)<@@>m4_ifelse(TKM_J, 7, <@@>, <@, @>)@>))@>)
m4_define(<@_tkm_avx512_dot@>, <@m4_dnl
m4_pushdef(<@TKM_MR@>, <@$2@>)m4_pushdef(<@TKM_NB@>, <@$3@>)m4_pushdef(<@TKM_KU@>, <@$4@>)m4_dnl
static inline TKM_TARGET void $1(TKI_UKR_PARAMS)
{
    size_t p = 0;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@    const float *TKI_RESTRICT a_<@@>TKM_I = a + (m > TKM_I ? TKM_I : 0) * aux->rsa;
@>)m4_dnl
tkm_for(<@TKM_J@>, 0, TKM_NB - 1, <@    const float *TKI_RESTRICT bc_<@@>TKM_J = b + (n > TKM_J ? TKM_J : 0) * ldb;
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_J@>, 0, TKM_NB - 1, <@    __m512 tkm_acc(TKM_I, TKM_J) = _mm512_setzero_ps();
@>)@>)m4_dnl
    for (; p + m4_eval(16 * TKM_KU) <= k; p += m4_eval(16 * TKM_KU)) {
tkm_for(<@TKM_U@>, 0, TKM_KU - 1, <@_tkm_dot_step(<@_mm512_loadu_ps@>, <@p + m4_eval(16 * TKM_U)@>)@>)m4_dnl
    }
m4_ifelse(TKM_KU, 1, <@@>, <@    for (; p + 16 <= k; p += 16) {
_tkm_dot_step(<@_mm512_loadu_ps@>, <@p@>)m4_dnl
    }
@>)m4_dnl
    if (p < k) {
        const __mmask16 kt = (__mmask16)tki_mask_avx512f(k, p, 16);
_tkm_dot_step(<@_tkm_dot_tail_load@>, <@p@>)m4_dnl
    }
    {
        const __m512 z = _mm512_setzero_ps();
        const __mmask8 kn = (__mmask8)tki_mask_avx512f(n, 0, 8);
        const __m256 va = _mm256_set1_ps(aux->alpha), vb = _mm256_set1_ps(aux->beta);
        const __m256 bias = aux->bias ? _mm256_maskz_loadu_ps(kn, aux->bias) : _mm256_setzero_ps();
        (void)z;
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@        if (m > TKM_I) {
            const __m256 s = _tkm_dot_sum(TKM_I);
            float *ci = c + TKM_I * ldc;
            if (aux->beta == 0.0f && aux->alpha == 1.0f && !aux->bias) _mm256_mask_storeu_ps(ci, kn, s);
            else if (aux->beta == 0.0f) _mm256_mask_storeu_ps(ci, kn, _mm256_fmadd_ps(va, s, bias));
            else _mm256_mask_storeu_ps(ci, kn, _mm256_fmadd_ps(vb, _mm256_maskz_loadu_ps(kn, ci), _mm256_fmadd_ps(va, s, bias)));
        }
@>)m4_dnl
    }
}
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NB@>)m4_popdef(<@TKM_KU@>)m4_dnl
@>)
m4_define(<@tkm_ukr_gemm_f32_dot@>, <@tkm_nargs(<@tkm_ukr_gemm_f32_dot@>, 3, $#)m4_ifdef(<@_tkm_have_@>tkm_ukr_dot_name($1, $2, $3), <@@>,
<@m4_define(<@_tkm_have_@>tkm_ukr_dot_name($1, $2, $3))_tkm_avx512_dot(tkm_ukr_dot_name($1, $2, $3), $1, $2, $3)@>)@>)
m4_divert(0)m4_dnl
