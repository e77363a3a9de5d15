m4_divert(-1)
m4_dnl # AVX2 + FMA f32 GEMM microkernel, broadcast form (the x86-64-v3 level): per k step, NV ymm loads
m4_dnl # of B and MR broadcasts of A, MR*NV accumulators. Edge columns: vmaskmov loads, plain partial stores.
m4_dnl # Instantiated by tkm_ukr_gemm_f32(MR, NV, KU); NR = 8*NV. Contract: docs/microkernel.md.

m4_dnl # lanes of one vector register, as a C expression (a constant for fixed-width ISAs)
m4_define(<@tkm_vl_f32@>, <@8@>)

m4_define(<@tkm_ukr_name@>, <@tki_ukr_gemm_f32_$1x<@@>m4_eval($2 * 8)_avx2fma_bcast_u$3<@@>tkm_pf_suffix($4)@>)

m4_define(<@tkm_ukr_header_begin@>, <@#ifndef TK_GEN_UKR_F32_AVX2FMA_H
#define TK_GEN_UKR_F32_AVX2FMA_H
#include <immintrin.h>
#include "tk/internal.h"

/* Keeps a loaded vector of B in a register. Left to itself, GCC 12 folds a tile's B vectors into the
 * multiply-add of every row as memory operands, MR loads of each where one serves: 2x32 issued 10
 * loads for its 8 multiply-adds per k step, and the loads set the pace (level 0 on the Zen 4 VM,
 * 2x32 at 77 GFLOP/s against 97-99 for 3x24; 2 x 64..96 x 64..100 at 0.64-0.66 of libxsmm). The
 * AVX-512 kernels do the same since session 34. A masked load GCC does not fold. */
#if defined(__GNUC__)
#define TKI_KEEP_AVX2FMA(v) __asm__("" : "+x"(v))
#else
#define TKI_KEEP_AVX2FMA(v) ((void)0)
#endif

/* all-ones in the lanes of vector v that hold columns < n */
static inline TKM_TARGET __m256i tki_mask8_avx2fma(size_t n, size_t first)
{
    size_t left = n > first ? n - first : 0;
    int l = left >= 8 ? 8 : (int)left;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(l), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Stores lanes 0..l-1 of v at p (l < 8) with plain stores of 4, 2 and 1 lanes. A vmaskmov store
 * is microcoded on AMD cores (a Zen 4 took 16 cycles for one, against one cycle for a plain store:
 * 4x4x4, four such stores, ran at a third of libxsmm's speed); l is the same for every row of a
 * call, so the branches are predicted. */
static inline TKM_TARGET void tki_store_first_avx2fma(float *p, __m256 v, size_t l)
{
    __m128 x = _mm256_castps256_ps128(v);
    if (l & 4) {
        _mm_storeu_ps(p, x);
        x = _mm256_extractf128_ps(v, 1);
        p += 4;
    }
    if (l & 2) {
        _mm_storel_pi((__m64 *)p, x);
        x = _mm_movehl_ps(x, x);
        p += 2;
    }
    if (l & 1) _mm_store_ss(p, x);
}

/* Packs rows x kc of row-major A (rows lda apart) into dst[p*mr + i], rows..mr-1 zero, mr <= 8:
 * eight columns at a time, each row read as one vector and the 8x8 block transposed in registers
 * (the portable loop reads the rows element by element; see the AVX-512 kernel for what that cost).
 * Columns are stored in order, each as a whole vector: lanes past mr land on later columns of the
 * panel, which are written after. A store that would reach past the panel is exact instead. */
static inline TKM_TARGET void tki_pack_a_f32_avx2fma(const float *TKI_RESTRICT src, size_t lda, size_t rows,
                                                     size_t kc, size_t mr, float *TKI_RESTRICT dst)
{
    size_t p = 0, i, q;
    for (; p + 8 <= kc; p += 8) {
tkm_for(<@TKM_I@>, 0, 7, <@        const __m256 r<@@>TKM_I = rows > TKM_I ? _mm256_loadu_ps(src + TKM_I * lda + p) : _mm256_setzero_ps();
@>)m4_dnl
        /* element pairs of row pairs, then element quads of row quads (within 128-bit lanes) */
tkm_for(<@TKM_I@>, 0, 3, <@        const __m256 t<@@>m4_eval(2 * TKM_I) = _mm256_unpacklo_ps(r<@@>m4_eval(2 * TKM_I), r<@@>m4_eval(2 * TKM_I + 1));
        const __m256 t<@@>m4_eval(2 * TKM_I + 1) = _mm256_unpackhi_ps(r<@@>m4_eval(2 * TKM_I), r<@@>m4_eval(2 * TKM_I + 1));
@>)m4_dnl
tkm_for(<@TKM_I@>, 0, 1, <@        const __m256 s<@@>m4_eval(4 * TKM_I) = _mm256_shuffle_ps(t<@@>m4_eval(4 * TKM_I), t<@@>m4_eval(4 * TKM_I + 2), 0x44);
        const __m256 s<@@>m4_eval(4 * TKM_I + 1) = _mm256_shuffle_ps(t<@@>m4_eval(4 * TKM_I), t<@@>m4_eval(4 * TKM_I + 2), 0xEE);
        const __m256 s<@@>m4_eval(4 * TKM_I + 2) = _mm256_shuffle_ps(t<@@>m4_eval(4 * TKM_I + 1), t<@@>m4_eval(4 * TKM_I + 3), 0x44);
        const __m256 s<@@>m4_eval(4 * TKM_I + 3) = _mm256_shuffle_ps(t<@@>m4_eval(4 * TKM_I + 1), t<@@>m4_eval(4 * TKM_I + 3), 0xEE);
@>)m4_dnl
        /* column e: rows 0-3 from the low lane of s(e mod 4), rows 4-7 from s(4 + e mod 4) */
        __m256 col[8];
tkm_for(<@TKM_I@>, 0, 3, <@        col[TKM_I] = _mm256_permute2f128_ps(s<@@>TKM_I, s<@@>m4_eval(TKM_I + 4), 0x20);
        col[m4_eval(TKM_I + 4)] = _mm256_permute2f128_ps(s<@@>TKM_I, s<@@>m4_eval(TKM_I + 4), 0x31);
@>)m4_dnl
        for (i = 0; i < 8; i++) {
            if ((p + i) * mr + 8 <= kc * mr) {
                _mm256_storeu_ps(dst + (p + i) * mr, col[i]);
            } else {
                float last[8];
                size_t r;
                _mm256_storeu_ps(last, col[i]);
                for (r = 0; r < mr; r++) dst[(p + i) * mr + r] = last[r];
            }
        }
    }
    /* the last kc mod 8 columns; counted from kc & 7 (p is kc rounded down to 8 here) so that GCC
     * sees at most 7 iterations: with `p < kc` it warned of overflow at 2^62 (-Waggressive-loop-
     * optimizations) where an exact row (49x2048x512) inlined this with constant operands */
    for (q = kc & 7; q > 0; q--, p++)
        for (i = 0; i < mr; i++) dst[p * mr + i] = i < rows ? src[i * lda + p] : 0.0f;
}
@>)
m4_dnl # the framework packs untransposed A with this when MR <= tkm_pack_a_max_mr
m4_define(<@tkm_pack_a_name@>, <@tki_pack_a_f32_avx2fma@>)
m4_define(<@tkm_pack_a_max_mr@>, <@8@>)
m4_define(<@tkm_ukr_header_end@>, <@#endif /* TK_GEN_UKR_F32_AVX2FMA_H */@>)

m4_dnl # Split sums (tkm_ksplit, gen/tkm.m4): two multiply-adds a cycle, 4-5 cycles each, want 8 chains;
m4_dnl # one register of the 16 is kept for the mask of a ragged tile's last vector of B (vmaskmov masks
m4_dnl # are vectors, and only the last vector has one). Until session 67 every vector of B counted
m4_dnl # twice, for a mask each, and 3x16 and 1x32 ran at their chains' latency.
m4_dnl # _tkm_avx2_vregs: the registers a tile's accumulators, B's vectors and the broadcast may take
m4_define(<@_tkm_avx2_vregs@>, <@15@>)
m4_define(<@tkm_ksplit@>, <@8, _tkm_avx2_vregs, 1@>)
m4_define(<@_tkm_avx2_add@>, <@_mm256_add_ps($1, $2)@>)

m4_dnl # _tkm_avx2_keep: 1 where a tile keeps its plain B vectors in registers (TKI_KEEP_AVX2FMA): tiles
m4_dnl # of two rows, the ones GCC folded (2x32 ku 2: 56 of its 96 multiply-adds took B from memory;
m4_dnl # tiles of 3 rows and more kept B in registers by themselves), and only where the sums (every
m4_dnl # set), B's vectors and the broadcast leave a register of _tkm_avx2_vregs free: kept in a tile
m4_dnl # that takes all 16, GCC spilled a sum inside the loop instead (4x24 ku 4: 4x96x96 0.84x), and
m4_dnl # 2x40 ku 2 and 4x24 ku 2 fell to 0.6-0.8 of their level-0 figures. Kept in 3x24, which GCC did
m4_dnl # not fold, it ran 0.92-0.97x (a schedule moved). docs/microkernel.md, "B in registers on AVX2".
m4_define(<@_tkm_avx2_keep@>, <@m4_eval(TKM_MR == 2 && tkm_ksets * TKM_MR * TKM_NV + TKM_NV + 1 <= _tkm_avx2_vregs)@>)
m4_dnl # one k step (TKM_U of the unrolled group, 1 in the tail); the direct form (TKM_DIRECT 1) reads
m4_dnl # A in place through row pointers at column p + TKM_U - 1 and masks B
m4_define(<@_tkm_avx2_step@>, <@        {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@            __m256 b_<@@>TKM_V = m4_ifelse(m4_eval(TKM_MASKB == 1 && TKM_V == TKM_NV - 1), 1, <@_mm256_maskload_ps(b + m4_eval(TKM_V * 8), k_last)@>, <@_mm256_loadu_ps(b + m4_eval(TKM_V * 8))@>);
m4_ifelse(m4_eval(!(TKM_MASKB == 1 && TKM_V == TKM_NV - 1) && _tkm_avx2_keep), 1, <@            TKI_KEEP_AVX2FMA(b_<@@>TKM_V);
@>)m4_dnl
@>)m4_dnl
tkm_prefetch_b(m4_eval(TKM_NV * 8))m4_dnl
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            {
                const __m256 ai = _mm256_broadcast_ss(m4_ifelse(TKM_DIRECT, 1, <@a_<@@>TKM_I + p + m4_eval(TKM_U - 1)@>, <@a + TKM_I@>));
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                tkm_kacc(tkm_ksets) = _mm256_fmadd_ps(ai, b_<@@>TKM_V, tkm_kacc(tkm_ksets));
@>)m4_dnl
            }
@>)m4_dnl
            m4_ifelse(TKM_DIRECT, 1, <@@>, <@a += TKM_MR;@>)
            b += ldb;
        }
@>)

m4_define(<@_tkm_avx2_rows@>, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@            if (m > TKM_I) {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                $1
@>)m4_dnl
            }
@>)@>)

m4_dnl # _tkm_avx2_loops(MASKB): the unrolled k loop and its tail; MASKB 1 loads B through the masks
m4_define(<@_tkm_avx2_loops@>, <@m4_pushdef(<@TKM_MASKB@>, <@$1@>)m4_dnl
tkm_kloop(<@_tkm_avx2_step@>)m4_dnl
m4_popdef(<@TKM_MASKB@>)@>)

m4_dnl # _tkm_avx2_masked_loops: the k loop of a direct tile narrower than NR, B through its mask. A tile
m4_dnl # whose accumulators, B's vectors and the broadcast take _tkm_avx2_vregs or more (with that mask,
m4_dnl # all 16 registers or past them) leaves GCC 12 none to unroll with: it kept the mask and
m4_dnl # accumulators on the stack (reloaded every
m4_dnl # step) and read B as memory operands once per row; 4x24 ku 4 ran ragged shapes 0.75-0.8x as
m4_dnl # fast as ku 1, 6x16 ku 8 about 0.95x (docs/microkernel.md, "Ragged tiles with every register
m4_dnl # taken"). Such a tile runs this loop one k step at a time; with one set of sums (tkm_ksets) the
m4_dnl # unroll does not change any accumulator's order of additions, so the results are bitwise those
m4_dnl # of the unrolled loop. Tiles of one vector (14x8, 13x8) keep their unroll: 14x8 at ku 1 ran a
m4_dnl # 700-wide shape with B cold (its last tile 4 columns) 0.91x as fast.
m4_define(<@_tkm_avx2_masked_loops@>, <@m4_ifelse(m4_eval(TKM_NV > 1 && TKM_MR * TKM_NV + TKM_NV + 1 >= _tkm_avx2_vregs && tkm_ksets == 1), 1,
<@m4_pushdef(<@TKM_KU@>, 1)_tkm_avx2_loops(1)m4_popdef(<@TKM_KU@>)@>, <@_tkm_avx2_loops(1)@>)@>)

m4_dnl # _tkm_avx2_ragged: 1 for vector TKM_V of a ragged tile's epilogue (TKM_MASKC 1) when it is the
m4_dnl # last: a kernel of NV vectors runs only for n past (NV - 1) * 8 (tkm_ukr_narrow), so the others
m4_dnl # are whole and go to memory plainly
m4_define(<@_tkm_avx2_ragged@>, <@m4_eval(TKM_MASKC == 1 && TKM_V == TKM_NV - 1)@>)
m4_dnl # _tkm_avx2_loadc(PTR-EXPR), _tkm_avx2_storec(PTR-EXPR, VALUE): C's vector TKM_V at PTR; the
m4_dnl # ragged one loads through its mask (a vmaskmov load costs what a plain one does) and stores its
m4_dnl # first nl lanes with plain stores (tki_store_first_avx2fma)
m4_define(<@_tkm_avx2_loadc@>, <@m4_ifelse(_tkm_avx2_ragged, 1, <@_mm256_maskload_ps($1, k_last)@>, <@_mm256_loadu_ps($1)@>)@>)
m4_define(<@_tkm_avx2_storec@>, <@m4_ifelse(_tkm_avx2_ragged, 1, <@tki_store_first_avx2fma($1, $2, nl)@>, <@_mm256_storeu_ps($1, $2)@>)@>)

m4_dnl # _tkm_avx2_epilogue(MASKC): C = alpha*acc + bias (+ beta*C) for the valid rows; MASKC 1 for a
m4_dnl # ragged tile, whose last vector holds nl < 8 of the n columns.
m4_define(<@_tkm_avx2_epilogue@>, <@m4_pushdef(<@TKM_MASKC@>, <@$1@>)m4_dnl
m4_ifelse(TKM_MASKC, 1, <@        const size_t nl = n - m4_eval((TKM_NV - 1) * 8);
@>)m4_dnl
        if (aux->beta == 0.0f && aux->alpha == 1.0f && !aux->bias) {
            /* the plain product: one multiply-add less on every accumulator's path to memory */
_tkm_avx2_rows(<@_tkm_avx2_storec(c + TKM_I * ldc + m4_eval(TKM_V * 8), tkm_acc(TKM_I, TKM_V));@>)m4_dnl
        } else if (aux->beta == 0.0f) {
_tkm_avx2_rows(<@_tkm_avx2_storec(c + TKM_I * ldc + m4_eval(TKM_V * 8), _mm256_fmadd_ps(va, tkm_acc(TKM_I, TKM_V), bias_<@@>TKM_V));@>)m4_dnl
        } else {
            const __m256 vb = _mm256_set1_ps(aux->beta);
_tkm_avx2_rows(<@_tkm_avx2_storec(c + TKM_I * ldc + m4_eval(TKM_V * 8), _mm256_fmadd_ps(vb, _tkm_avx2_loadc(c + TKM_I * ldc + m4_eval(TKM_V * 8)), _mm256_fmadd_ps(va, tkm_acc(TKM_I, TKM_V), bias_<@@>TKM_V)));@>)m4_dnl
        }
m4_popdef(<@TKM_MASKC@>)@>)

m4_dnl # _tkm_avx2_kernel(NAME, MR, NV, KU, DIRECT, PF): the body both forms share; PF > 0 prefetches B
m4_dnl # that many rows ahead in every k step (tkm_prefetch_b)
m4_define(<@_tkm_avx2_kernel@>, <@m4_dnl
m4_pushdef(<@TKM_MR@>, <@$2@>)m4_pushdef(<@TKM_NV@>, <@$3@>)m4_pushdef(<@TKM_KU@>, <@$4@>)m4_pushdef(<@TKM_DIRECT@>, <@$5@>)m4_pushdef(<@TKM_PF@>, <@$6@>)m4_dnl
static inline TKM_TARGET tkm_ukr_attrs<@@>void $1(TKI_UKR_PARAMS)
{
    size_t p = 0;
tkm_ukr_narrow(8)m4_dnl
m4_ifelse(TKM_DIRECT, 1, <@m4_dnl
    /* direct form: A rows in place (rows past m re-read row 0, their results are never stored) */
tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@    const float *TKI_RESTRICT a_<@@>TKM_I = a + (m > TKM_I ? TKM_I : 0) * aux->rsa;
@>)m4_dnl
@>)m4_dnl
m4_dnl # C is touched only after the k loop: its rows are fetched into L1 before it, only for a long k
m4_dnl # loop. (The AVX-512 kernels fetch into L2 there and into L1 late in the loop; here neither the late
m4_dnl # fetch alone, 0.98-1.06x, nor both, 0.82-0.93x in a noisy hour, were worth it: docs/microkernel.md.)
    if (k >= 32)
tkm_fetch_c(8, 3)m4_dnl
    const __m256i k_last = tki_mask8_avx2fma(n, m4_eval((TKM_NV - 1) * 8)); /* the last vector's columns */
tkm_for(<@TKM_S@>, 0, tkm_ksets - 1, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@    __m256 tkm_acc_set(TKM_S) = _mm256_setzero_ps();
@>)@>)@>)m4_dnl
m4_dnl # vmaskmov loads cost more than plain ones: the direct form masks B only when n < NR
m4_ifelse(TKM_DIRECT, 1, <@    if (n >= m4_eval(TKM_NV * 8)) {
_tkm_avx2_loops(0)    } else {
_tkm_avx2_masked_loops    }
@>, <@_tkm_avx2_loops(0)@>)m4_dnl
tkm_kfold(tkm_ksets, <@_tkm_avx2_add@>)m4_dnl
    {
        const __m256 va = _mm256_set1_ps(aux->alpha);
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@        const __m256 bias_<@@>TKM_V = aux->bias ? m4_ifelse(m4_eval(TKM_V == TKM_NV - 1), 1, <@_mm256_maskload_ps(aux->bias + m4_eval(TKM_V * 8), k_last)@>, <@_mm256_loadu_ps(aux->bias + m4_eval(TKM_V * 8))@>) : _mm256_setzero_ps();
@>)m4_dnl
        if (n >= m4_eval(TKM_NV * 8)) {
_tkm_avx2_epilogue(0)        } else {
_tkm_avx2_epilogue(1)        }
    }
}
m4_popdef(<@TKM_MR@>)m4_popdef(<@TKM_NV@>)m4_popdef(<@TKM_KU@>)m4_popdef(<@TKM_DIRECT@>)m4_popdef(<@TKM_PF@>)m4_dnl
@>)

m4_define(<@tkm_ukr_gemm_f32@>, <@tkm_ukr_once(<@_tkm_avx2_kernel@>, $1, $2, $3, 0, tkm_ukr_pf_args(<@tkm_ukr_gemm_f32@>, $#, $4))@>)

m4_dnl # The direct form (docs/microkernel.md): A read in place, row i at a + i*aux->rsa, rows >= m
m4_dnl # never read; B read only in its first n columns (vmaskmov). Needs no packing at all. Each comes
m4_dnl # with its column sweep (tkm_ukr_sweep, gen/tkm.m4).
m4_define(<@tkm_ukr_direct_name@>, <@tki_ukr_gemm_f32_$1x<@@>m4_eval($2 * 8)_avx2fma_direct_u$3<@@>tkm_pf_suffix($4)@>)
m4_define(<@tkm_ukr_gemm_f32_direct@>, <@tkm_ukr_direct_sweep(<@_tkm_avx2_kernel@>, $1, $2, $3, tkm_ukr_pf_args(<@tkm_ukr_gemm_f32_direct@>, $#, $4))@>)
m4_divert(0)m4_dnl
