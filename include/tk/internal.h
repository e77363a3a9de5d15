/* tk/internal.h - what generated headers share: the microkernel contract (see docs/microkernel.md),
 * portability macros and the ISA-neutral epilogue math. Hand-written; internal names are tki_/TKI_. */
#ifndef TK_INTERNAL_H
#define TK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tk/types.h"

#if defined(__cplusplus)
#define TKI_RESTRICT __restrict
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define TKI_RESTRICT restrict
#else
#define TKI_RESTRICT
#endif

/* The default workspace is a static buffer per thread where the compiler offers thread storage, so
 * concurrent callers never share it; without it, concurrent tk calls must pass their own workspace. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define TKI_THREAD_LOCAL thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
#define TKI_THREAD_LOCAL _Thread_local
#elif defined(__GNUC__)
#define TKI_THREAD_LOCAL __thread
#else
#define TKI_THREAD_LOCAL
#endif

/* Hides a pointer's value from the optimiser at this point, so it keeps one pointer register and
 * advances it instead of deriving a separate address register per use (a template's choice, where
 * that derivation was measured to spill). Emits no instruction. */
#if defined(__GNUC__)
#define TKI_OPAQUE(p) __asm__("" : "+r"(p))
#else
#define TKI_OPAQUE(p) ((void)0)
#endif

/* How every function of tk that is not inline is declared: static, and under gcc without
 * optimisation static inline, with no noinline or flatten attribute (TKI_NOINLINE, TKI_FLATTEN).
 * gcc at -O0 emits every static function and object of a unit, used or not, and tk's reach every
 * kernel of the table: a unit that included tk/gemm.h and called nothing took 34 s to compile, to
 * 17 MB of code (spr, gcc 12). A static inline function is emitted only where something calls it,
 * and -O0 inlines nothing but the always_inline ones, so the code is the same; gcc warns of inline
 * beside noinline, which -O0 makes moot. Clang emits unused static functions at no level. (tk's
 * objects are statics of inline functions for the same reason: tki_gemm_f32_cfgs_<cpu>().) */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__)
#define TKI_STATIC static inline
#define TKI_GCC_O0 1
#else
#define TKI_STATIC static
#endif

/* Whether m, n and k are constants where this is inlined (a literal shape, or a descriptor filled
 * with literal sizes): the public entries, inlined into their caller, then choose the row at
 * compile time and name that row's configuration alone, so that a unit whose calls all have
 * literal shapes compiles only their rows' kernels (docs/api.md, "Compile time"). Only with the
 * optimiser, which folds the test; TKI_LITERAL_SHAPES says whether it is there. */
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define TKI_LITERAL_SHAPES 1
#define TKI_CONSTANT_SHAPE(m, n, k) (__builtin_constant_p(m) && __builtin_constant_p(n) && __builtin_constant_p(k))
#endif

#if defined(__GNUC__)
#define TKI_ALIGNED(n) __attribute__((aligned(n)))
#define TKI_UNUSED __attribute__((unused))
/* exact-shape instances inline the whole driver, so the shape's constants reach every loop, and
 * stay out of line, one function per shape, so that each keeps only its own registers */
#if defined(TKI_GCC_O0)
#define TKI_FLATTEN
#else
#define TKI_FLATTEN __attribute__((flatten, noinline))
#endif
/* the decision tree over a table's rows: inlined whatever its length, so constant shapes fold it
 * away (GCC's size heuristics gave up on an 82-row table and left a call) */
#define TKI_ALWAYS_INLINE __attribute__((always_inline))
#else
#define TKI_ALWAYS_INLINE
#define TKI_ALIGNED(n)
#define TKI_UNUSED
#define TKI_FLATTEN
#endif

/* What a microkernel needs besides its operands. The framework passes beta = 1 and bias = NULL for
 * every k block but the first (beta) and the last (bias), so the kernel itself never knows about
 * k blocking. */
typedef struct tki_ukr_aux {
    float alpha;
    float beta;          /* 0: C is never read */
    const float *bias;   /* n floats for this tile's columns, or NULL */
    size_t rsa;          /* direct kernels only: distance between rows of A (A read in place) */
} tki_ukr_aux;

/* The one microkernel signature (docs/microkernel.md):
 *   c[i*ldc + j] = alpha * sum_p a[p*MR + i] * b[p*ldb + j] + beta * c[i*ldc + j] + bias[j]
 * for i < m <= MR, j < n <= NR. `a` is packed (MR floats per p, zero padded); `b` is k rows of at
 * least NR readable floats, ldb apart (a packed panel has ldb == NR). */
#define TKI_UKR_PARAMS                                                                               \
    size_t k, const float *TKI_RESTRICT a, const float *TKI_RESTRICT b, size_t ldb,                 \
        float *TKI_RESTRICT c, size_t ldc, size_t m, size_t n, const tki_ukr_aux *TKI_RESTRICT aux
typedef void (*tki_ukr_fn)(TKI_UKR_PARAMS);

/* ---- epilogue activations: portable, no libm, so nothing needs linking ---- */

/* exp(x) for the activations: range reduction by ln2 and a degree-6 polynomial; relative error
 * about 2e-7 over the range that matters, saturating outside [-87, 88]. */
static inline float tki_expf(float x)
{
    if (x != x) return x;
    if (x > 88.0f) x = 88.0f;
    if (x < -87.0f) x = -87.0f;
    const float ln2_hi = 0.693145751953125f, ln2_lo = 1.428606765330187e-06f;
    float fn = x * 1.4426950408889634f;
    fn = fn >= 0.0f ? (float)(int)(fn + 0.5f) : (float)(int)(fn - 0.5f);
    float r = (x - fn * ln2_hi) - fn * ln2_lo;
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    union { uint32_t u; float f; } s;
    s.u = (uint32_t)((int32_t)fn + 127) << 23;
    return p * s.f;
}

static inline float tki_act(float x, tk_epilogue kind, float lo, float hi)
{
    switch (kind) {
    case TK_EPI_RELU: return x > 0.0f ? x : 0.0f;
    case TK_EPI_GELU: {
        /* tanh(u) = 1 - 2 / (exp(2u) + 1) */
        float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
        float t = 1.0f - 2.0f / (tki_expf(2.0f * u) + 1.0f);
        return 0.5f * x * (1.0f + t);
    }
    case TK_EPI_SILU: return x / (1.0f + tki_expf(-x));
    case TK_EPI_CLAMP: return x < lo ? lo : (x > hi ? hi : x);
    default: return x;
    }
}

#if defined(__GNUC__) && !defined(TKI_GCC_O0)
#define TKI_NOINLINE __attribute__((noinline))
#else
#define TKI_NOINLINE
#endif

/* Out of line: inlined, its vectorised loops made every caller (even a 4x4 kernel call) set up an
 * aligned stack frame, whether or not an activation was asked for. */
TKI_STATIC TKI_NOINLINE TKI_UNUSED void tki_act_rows(float *c, size_t ldc, size_t m, size_t n, tk_epilogue kind,
                                                float lo, float hi)
{
    size_t i, j;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) c[i * ldc + j] = tki_act(c[i * ldc + j], kind, lo, hi);
}

/* Applied to a finished tile while it is still in L1, right after its last k block. */
static inline void tki_act_tile(float *c, size_t ldc, size_t m, size_t n, tk_epilogue kind, float lo,
                                float hi)
{
    if (kind != TK_EPI_NONE) tki_act_rows(c, ldc, m, n, kind, lo, hi);
}

static inline size_t tki_min(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t tki_round_up(size_t a, size_t b) { return (a + b - 1) / b * b; }

/* (*jt, *it), the column and row tile of tile t of a block of nj x ni tiles in the row's order: 'm'
 * (0x6d) along each row of tiles, 'n' down each column. (*to, *ti), zero before the block's first
 * tile, count the tiles along, so that a block whose counts are known only at run time costs no
 * division per tile (t / ni, t % ni: 17x19x23 ran 7% faster without them, Zen 4). An exact-shape
 * instance (fixed 1, a literal) divides: its counts are constants, the divisions fold away, and its
 * code stays what compilers made of it before (counting there cost 23x23x23 the inlining of its
 * kernel at -O3, 0.90x the speed). */
static inline void tki_tile_at(size_t t, size_t nj, size_t ni, char order, int fixed, size_t *to, size_t *ti,
                               size_t *jt, size_t *it)
{
    const int jfast = order == 0x6d;
    if (fixed) {
        *jt = jfast ? t % nj : t / ni;
        *it = jfast ? t / nj : t % ni;
        return;
    }
    *jt = jfast ? *ti : *to;
    *it = jfast ? *to : *ti;
    if (++*ti == (jfast ? nj : ni)) *ti = 0, ++*to;
}

/* The distance between the rows the dot form copies (columns of B, rows of a transposed A), kc
 * floats each: a whole number of 16-float vectors and one more, so that rows never lie a multiple of
 * 4 KiB apart (copied 1024 deep, the columns of 13x13x4001 all fell in one set of L1: 9 GFLOP/s
 * instead of 57). */
static inline size_t tki_gemm_dot_ld(size_t kc) { return tki_round_up(kc, 16) + 16; }

/* Rows of a non-transposed B that tki_gemm_f32_pack_b_* copies together, each along the whole block
 * width: a panel at a time it walked a kc-row strip down B, one line a row, and where ldb is a
 * multiple of 4 KiB every line of the strip fell into the same cache sets. A few rows at once keep
 * the reads sequential (one prefetch stream a row) and the writes of each panel contiguous. */
#define TKI_PACK_B_ROWS 8

/* Everything the blocked driver needs from the validated call. */
typedef struct tki_gemm_args {
    tk_trans transa, transb;
    size_t m, n, k;
    float alpha, beta;
    const float *a; size_t lda;
    const float *b; size_t ldb;
    float *c; size_t ldc;
    tk_epilogue epi;
    const float *bias;
    float lo, hi;
} tki_gemm_args;



/* A tile configuration of one table row, as the generated decision tree returns it. */
typedef struct tki_gemm_cfg {
    tki_ukr_fn ukr;
    tki_ukr_fn ukr_direct;   /* the direct form of the same tile, or NULL: A (and B) read in place */
    tki_ukr_fn ukr_sweep;    /* with ukr_direct: its column sweep, n past NR in tiles left to right, or NULL */
    unsigned mr, nv, ku;     /* tile: MR rows x NV vectors; ku is the k unroll of the kernel */
    unsigned mc, ncp, kc;    /* cache blocks: mc rows, ncp NR-panels, kc depth */
    unsigned packb;          /* 0: B is read in place when it is not transposed */
    char split;              /* 'm' or 'n': the dimension the work partition cuts */
    char order;              /* 'n': row tiles inner (B micro-panel reused from L1), 'm': column tiles inner */
    unsigned dot;            /* 1: ukr is the dot form (vectors along k), nv counts columns; see the driver */
    tki_ukr_fn ukr_row1;     /* with ukr_direct and mr > 1: that kernel's code with m fixed at 1, which runs a last
                              * row tile of one row (docs/microkernel.md, "A last row of one"), or NULL */
    tki_ukr_fn ukr_row1_sweep; /* its column sweep, or NULL */
} tki_gemm_cfg;

/* 1 when `rows` rows ld floats apart, read side by side, need more than 5/4 of the ways of one L1
 * set, the L1 modelled as l1_ways ways of 4 KiB (a VIPT L1: Zen 4 32 KiB 8-way, Zen 5 48 KiB
 * 12-way): a row stride that is a multiple of a large power of two puts them all in a few sets,
 * and the steps along k miss L1. On the Zen 4, A's rows 4 KiB apart (one set), a direct tile on
 * MR x n x 1024 in place against a copy of A's rows, GFLOP/s at n = 16, 64, 256: 16 rows 54 53 53
 * against 91 106 108; 13 rows 74 95 94 against 91 110 114; 12 rows 85 105 104 against 90 109 114;
 * 11 rows 92 96 94 against 87 100 102; 10 rows 105 109 108 against 88 106 109; 9 rows 110 115 114
 * against 93 110 112: a set over by a row or two costs less than the copy. */
static inline int tki_rows_collide(size_t ld, size_t rows, size_t l1_ways)
{
    const size_t s = (ld * sizeof(float)) & 4095, low = s & (0 - s); /* the stride's lowest set bit, mod 4 KiB */
    /* the rows cycle through 4096 / low sets (a power of two: low is one, at least a line), so a set
     * holds rows / (4096 / low) of them, rounded up: rows * low / 4096, counted with a shift. With
     * divisions, as before session 38, every call of a tile of 16 rows or more divided twice
     * (tki_gemm_a_in_place); 16x16x16 ran 60-62 ns per call at best and 55-59 without them (a
     * scratch loop, alternating builds, the host busy: within its noise) */
    const size_t per_set = s ? (rows * (low < 64 ? 64 : low) + 4095) >> 12 : rows;
    return 4 * per_set > 5 * l1_ways;
}

/* The row stride of a copy of A's rows kc deep that a tile of mr rows reads without collisions:
 * kc rounded up to a vector of 16 floats, and one or two vectors more (one of two consecutive
 * multiples of 64 bytes is an odd one, whose rows spread over every set). */
static inline size_t tki_rows_ld(size_t kc, size_t mr, size_t l1_ways)
{
    const size_t ld = (kc + 15) / 16 * 16 + 16;
    return tki_rows_collide(ld, mr, l1_ways) ? ld + 16 : ld;
}

/* Which operands a configuration reads where they lie instead of copying them into panels: A when
 * the row runs the direct kernel form (tki_gemm_a_direct), A is not transposed and its rows do not
 * collide in L1 (otherwise the direct kernel runs on a copy of the block's rows, tki_rows_ld apart:
 * a transposed A copied transposed), B when the row says `packb no`, B is not transposed and copying
 * it does not pay (tki_b_copy_pays; tki_gemm_b_in_place, below the L2 rules it uses). The
 * blocked loops, the single-tile path and the workspace check all ask here. A direct row has no
 * packed kernel: its tile's packed form is compiled only where a packed row uses it. */
static inline int tki_gemm_a_direct(const tki_gemm_cfg *cfg)
{
    return cfg->ukr_direct != 0;
}
static inline int tki_gemm_a_in_place(const tki_gemm_cfg *cfg, const tki_gemm_args *g, size_t l1_ways)
{
    /* a tile reads no row past m: a 14-row tile on 10 rows reads 10. The first test repeats the
     * last one of tki_rows_collide at its worst (one set) so that it folds where mr and m are
     * constants (exact-shape instances of short tiles keep no stride arithmetic). */
    const size_t rows = g->m < cfg->mr ? g->m : cfg->mr;
    return tki_gemm_a_direct(cfg) && g->transa == TK_NO_TRANS &&
           !(4 * rows > 5 * l1_ways && tki_rows_collide(g->lda, rows, l1_ways));
}
/* Rows of B, ld floats apart, that one column panel of B read in place may span while row tiles
 * reuse it (0: no limit): crowd_bytes / low, at least 32, where the stride is a multiple of a power
 * of two `low` bytes. Such rows share l2 / low lines per column of the panel, whatever the ways;
 * crowd_bytes is the table's b_crowd_bytes (the generated header passes it), half the L2 unless the table says
 * otherwise (docs/tables.md): on the Zen 4, whose L3 refills fast, twice its 1 MiB L2 ran
 * 128x4096x4096 1.11x, 64x4096x4096 1.09x, 16x4096x4096 1.07x, 49x2048x512 1.07x,
 * 100x2048x1000 1.06x, 32x1024x3072 0.99-1.03x the half (session 43). On the Xeon (2 MiB L2),
 * B in place, GFLOP/s at a quarter, half and all of those rows (medians of 5-7, host busy):
 * 32x1024x3072 4x96 69 67 41, 32x2048x3072 56 51 28, 128x4096x11008 9x48 51 58 (kc 96: 55),
 * 16x4096x4096 4x96 pf8 cold 47 56 (kc 512: 38), 128x512x2048 6x64 100 97 51; at n = 1040 kc 512
 * ran as fast as kc 128 (117-125). */
static inline size_t tki_b_rows_fit(size_t ld, size_t crowd_bytes)
{
    const size_t s = ld * sizeof(float), low = s & (0 - s), rows = low ? crowd_bytes / low : 0;
    if (!crowd_bytes || !low) return 0;
    return rows < 32 ? 32 : rows;
}

/* The deepest k block of B's rows copied (tki_b_rows_copy): the copy's C traffic is paid once a
 * block, and a deeper block narrows the copy's rows for the same workspace (measurements there). */
#define TKI_B_ROWS_KC 256

/* The distance between the rows of a copy of B's block `cols` wide: cols rounded up to 16 floats
 * and, if that is an even number of 64-byte lines, one line more, so that the rows spread over every
 * set of L1 and L2. */
static inline size_t tki_b_rows_ld(size_t cols)
{
    const size_t ld = (cols + 15) / 16 * 16;
    return (ld / 16) % 2 ? ld : ld + 16;
}

/* The depth of the k blocks of an m-row call whose tiles (mr rows, blocks of mc) read B in place,
 * rows ldb floats apart, row tiles inner: kc, or where several row tiles reuse each panel of B and
 * its rows crowd the L2's sets (tki_b_rows_fit), kc up to TKI_B_ROWS_KC for a direct row, which
 * reads a copy of B's rows there (tki_b_rows_copy), and the fit for a packed one. The driver and
 * the tuner's model both ask. */
static inline size_t tki_kc_b_in_place(size_t kc, size_t m, size_t mr, size_t mc, size_t ldb, size_t crowd_bytes,
                                       int a_direct)
{
    const size_t fit = m > mr && mc > mr ? tki_b_rows_fit(ldb, crowd_bytes) : 0;
    if (!fit || fit >= kc) return kc;
    return a_direct ? tki_min(kc, TKI_B_ROWS_KC) : fit;
}

/* Whether the row tiles of an m-row call whose direct tiles (mr rows, blocks of mc) would read B in
 * place, rows ldb floats apart, row tiles inner, read a copy of B's rows instead: where several row
 * tiles reuse each panel of B and its rows crowd the L2's sets (where tki_kc_b_in_place cuts a
 * packed row's kc). A panel read in place there is one line from each of kc rows a stride apart, a
 * miss each that no prefetcher follows; the copy reads B's rows whole, one stream each, and lays them out
 * tki_b_rows_ld apart, where they spread over the sets. Only the direct kernel form reads such a
 * copy: it masks B's last vector, so a ragged block needs no padding. On the Zen 4 (AVX2, B cold),
 * the 4x24 direct kernel, B read in place at kc 256 against rows copied whole-width at kc 32, 64,
 * 128, 256 (GFLOP/s): 16x4096x4096 35.6 against 34.6 38.8 41.1-47.3 39.4-47.3, 32x4096x4096 40.5
 * against 43.3 50.2 54.9-59.8 54.0-62.2; narrower or deeper blocks lost (2048 x 512: 41-53,
 * 1024 x 1024: 36-50). OpenBLAS, which copies B too: 49-55 and 66-70. */
static inline int tki_b_rows_copy(size_t kc, size_t m, size_t mr, size_t mc, size_t ldb, size_t crowd_bytes,
                                  int a_direct)
{
    return a_direct && tki_kc_b_in_place(kc, m, mr, mc, ldb, crowd_bytes, 0) < kc;
}

/* Whether a call of m rows copies B into panels although its row says `packb no`: where reading it
 * in place would cut the k blocks (tki_kc_b_in_place, rows that crowd the L2's sets) and the call
 * has rows enough to repay one copy of B. Copied, B's panels keep the row's kc and sit in the L2
 * without crowding. On the Zen 4, a 6x64 row (kc 768 cut to 128 at n = 1024 by the default
 * b_crowd_bytes, before zen4 had its own; 512 with it, and copied all the same), in place against
 * copied, one process, alternating: m x 1024 x 1024 at m = 1024 1.055x, 512 1.02x, 256 0.98x,
 * 128 0.98x, 64 0.94x, 16 0.83x; 800x1024x2048 1.045x, 1024x768x768 1.014x (kc 768 cut to 512). */
#define TKI_B_COPY_MIN_M 512
static inline int tki_b_copy_pays(size_t kc, size_t m, size_t mr, size_t mc, size_t ldb, size_t crowd_bytes)
{
    return m >= TKI_B_COPY_MIN_M && tki_kc_b_in_place(kc, m, mr, mc, ldb, crowd_bytes, 0) < kc;
}

/* B read where it lies by the blocked loops and the workspace check (see tki_gemm_a_in_place's
 * comment): the copy rule applies where the k blocks would be cut, row tiles inner, outside the dot
 * form (which copies B anyway). A property of the whole call, like tki_gemm_kc. Copied or not, a
 * tile computes the same sums, so the single-tile path and the sweeps, which run one k block,
 * read B in place wherever the row allows it (tki_gemm_b_direct) and skip the rule's tests: on
 * 7x7x7, 14x14x14 they cost 2-3% of a call. */
static inline int tki_gemm_b_direct(const tki_gemm_cfg *cfg, const tki_gemm_args *g)
{
    return !cfg->packb && g->transb == TK_NO_TRANS;
}
static inline int tki_gemm_b_in_place(const tki_gemm_cfg *cfg, const tki_gemm_args *g, size_t crowd_bytes)
{
    /* m first (tki_b_copy_pays tests it again): a call of fewer rows loads nothing more */
    return tki_gemm_b_direct(cfg, g) &&
           !(g->m >= TKI_B_COPY_MIN_M && cfg->order == 0x6e && !cfg->dot &&
             tki_b_copy_pays(cfg->kc, g->m, cfg->mr, cfg->mc, g->ldb, crowd_bytes));
}

/* B read in place by blocked loops whose row tiles are inner (order 'n', not the dot form): the
 * calls whose depth tki_kc_b_in_place sets (tki_gemm_kc), and whose B's rows the loops copy where
 * tki_b_rows_copy says so. */
static inline int tki_gemm_b_in_place_rows_inner(const tki_gemm_cfg *cfg, const tki_gemm_args *g, size_t crowd_bytes)
{
    return cfg->order == 0x6e && !cfg->dot && tki_gemm_b_in_place(cfg, g, crowd_bytes);
}

/* Whether a call of m x n is one tile of mr x nr whose operands the direct kernel reads in place
 * (a_direct: the row's direct form, A untransposed and its rows apart in L1; b_direct: B not
 * packed, not transposed). Such a call takes all of k in one block (tki_gemm_kc): the blocks keep a
 * block of A or a panel of B in cache for the other tiles that reuse it, and a call of one tile has
 * none, so each cut only stores its C and loads it back. On the spr host, tk_gemm_f32 before and
 * after (docs/decisions.md): 13x13x4001 1.18-1.25x, 13x13x1600 1.03-1.24x, 16x16x4000 1.03-1.05x.
 * Tiles of one or two accumulators (1x16, 1x8, 2x16) lose: their FMA chains' latency sets their
 * pace, and in blocks the next block's fresh chains start while the last block's drain (1x16x5000
 * 0.87-0.93x, 1x8x5000 0.87-0.89x, 2x16x5000 0.95-0.96x in one block). They take it all the same:
 * exempt, they ran the row's kc, which the tuner picks on the row's own tile, whose one-tile calls
 * never read it, while the generator cuts the row to tiles of one and two rows (a retune wrote
 * kc 16 on 2..4 x 1..8: 2x8x64 0.41-0.55x). Their split sums (docs/microkernel.md) since made up
 * for it: 1x16x5000 2.2-2.3x. The tuner's model and its grid ask here too. */
static inline int tki_one_tile_whole_k(size_t m, size_t n, size_t mr, size_t nr, int a_direct, int b_direct)
{
    return m <= mr && n <= nr && a_direct && b_direct;
}

/* The depth of the k blocks of a call: all of k for a call of one direct tile in place
 * (tki_one_tile_whole_k), the row's kc, or tki_kc_b_in_place's where the row reads B in place with
 * its row tiles inner (order 'n'). A property of the whole call, never of a part, so every
 * partition of it sums in the same blocks (bitwise the same results); the rounding can differ with
 * ldb. nr: the row's tile width in columns; l1_ways as tki_gemm_a_in_place. */
static inline size_t tki_gemm_kc(const tki_gemm_cfg *cfg, const tki_gemm_args *g, size_t nr, size_t l1_ways,
                                 size_t crowd_bytes)
{
    /* one row tile first: the test that settles a small call (the single-tile path asks); a call
     * no deeper than kc needs none of the one-tile tests */
    if (g->m <= cfg->mr)
        return g->k > cfg->kc && tki_one_tile_whole_k(g->m, g->n, cfg->mr, nr, tki_gemm_a_in_place(cfg, g, l1_ways),
                                                      tki_gemm_b_direct(cfg, g))
                   ? g->k
                   : cfg->kc;
    if (!tki_gemm_b_in_place_rows_inner(cfg, g, crowd_bytes)) return cfg->kc;
    return tki_kc_b_in_place(cfg->kc, g->m, cfg->mr, cfg->mc, g->ldb, crowd_bytes, tki_gemm_a_direct(cfg));
}

/* Byte extent of a rows x cols matrix with leading dimension ld; 0 when it would overflow. */
static inline size_t tki_extent(size_t rows, size_t cols, size_t ld)
{
    /* factors below 2^(bits/2) cannot overflow, so the division (tens of cycles, a noticeable part
     * of a 4x4x4 call) is only paid for huge operands */
    const size_t half = (size_t)1 << (sizeof(size_t) * 4);
    size_t r1 = rows - 1, e;
    if (rows == 0 || cols == 0) return 0;
    if (!(r1 < half && ld < half) && ld && r1 > (SIZE_MAX / 4) / ld) return 0;
    e = r1 * ld;
    if (e > SIZE_MAX / 4 - cols) return 0;
    return (e + cols) * 4;
}

static inline int tki_overlap(const void *p, size_t pn, const void *q, size_t qn)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return pn && qn && a < b + qn && b < a + pn;
}

/* The descriptor of a plain call: no epilogue, no bias, tk's own workspace, one part. Fields are set
 * one by one: a memset here compiles to `rep stos`, whose start-up cost was a third of a 4x4x4 call. */
static inline void tki_gemm_desc_plain(tk_gemm_desc *d, tk_trans transa, tk_trans transb, size_t m, size_t n,
                                       size_t k, float alpha, const float *a, size_t lda, const float *b,
                                       size_t ldb, float beta, float *c, size_t ldc)
{
    d->transa = transa; d->transb = transb;
    d->m = m; d->n = n; d->k = k;
    d->alpha = alpha; d->a = a; d->lda = lda; d->b = b; d->ldb = ldb;
    d->beta = beta; d->c = c; d->ldc = ldc;
    d->epilogue = TK_EPI_NONE; d->bias = NULL; d->clamp_lo = 0.0f; d->clamp_hi = 0.0f;
    d->workspace = NULL; d->workspace_size = 0; d->part = 0; d->nparts = 1;
}

/* Validates everything that does not depend on the CPU table; fills *g. *nothing is set when there
 * is no work (m or n zero): BLAS semantics, C untouched. The checks run before any write. Always
 * inlined: where the caller built d itself, its constant fields fold the checks that read them and
 * d never reaches memory (out of line, as gcc 12 chose in the plain entry's single-tile path, the
 * descriptor's stores and the call cost 5x5x5 about 10 ns of 30). */
static inline TKI_ALWAYS_INLINE tk_status tki_gemm_check(const tk_gemm_desc *d, tki_gemm_args *g, int *nothing)
{
    size_t ea, eb, ec, arows, acols, brows, bcols;
    int need_ab;
    *nothing = 0;
    if (!d) return TK_ERR_NULL;
    /* g is filled before any check, so every path that gets past the NULL test leaves it set */
    need_ab = d->k > 0 && d->alpha != 0.0f;
    g->transa = d->transa; g->transb = d->transb;
    g->m = d->m; g->n = d->n; g->k = need_ab ? d->k : 0;
    g->alpha = d->alpha; g->beta = d->beta;
    g->a = d->a; g->lda = d->lda; g->b = d->b; g->ldb = d->ldb;
    g->c = d->c; g->ldc = d->ldc;
    g->epi = d->epilogue; g->bias = d->bias; g->lo = d->clamp_lo; g->hi = d->clamp_hi;
    if ((d->transa != TK_NO_TRANS && d->transa != TK_TRANS) ||
        (d->transb != TK_NO_TRANS && d->transb != TK_TRANS))
        return TK_ERR_TRANS;
    if ((unsigned)d->epilogue > (unsigned)TK_EPI_CLAMP) return TK_ERR_EPILOGUE;
    if (d->epilogue == TK_EPI_CLAMP && !(d->clamp_lo <= d->clamp_hi)) return TK_ERR_EPILOGUE;
    if (d->nparts == 0 ? d->part != 0 : d->part >= d->nparts) return TK_ERR_PARTITION;
    /* stored shapes: op(A) is m x k, op(B) is k x n; a transposed operand is stored the other way */
    arows = d->transa == TK_NO_TRANS ? d->m : d->k;
    acols = d->transa == TK_NO_TRANS ? d->k : d->m;
    brows = d->transb == TK_NO_TRANS ? d->k : d->n;
    bcols = d->transb == TK_NO_TRANS ? d->n : d->k;
    if (d->m == 0 || d->n == 0) {
        *nothing = 1;
        return TK_OK;
    }
    if (!d->c || (need_ab && (!d->a || !d->b))) return TK_ERR_NULL;
    if (d->ldc < d->n) return TK_ERR_LDC;
    if (need_ab && d->lda < acols) return TK_ERR_LDA;
    if (need_ab && d->ldb < bcols) return TK_ERR_LDB;
    ec = tki_extent(d->m, d->n, d->ldc);
    ea = need_ab ? tki_extent(arows, acols, d->lda) : 0;
    eb = need_ab ? tki_extent(brows, bcols, d->ldb) : 0;
    if (!ec || (need_ab && (!ea || !eb))) return TK_ERR_OVERFLOW;
    if ((uintptr_t)d->c > UINTPTR_MAX - ec || (need_ab && ((uintptr_t)d->a > UINTPTR_MAX - ea ||
                                                          (uintptr_t)d->b > UINTPTR_MAX - eb)))
        return TK_ERR_OVERFLOW;
    if (tki_overlap(d->c, ec, d->a, ea) || tki_overlap(d->c, ec, d->b, eb) ||
        (d->bias && tki_overlap(d->c, ec, d->bias, d->n * 4)))
        return TK_ERR_ALIAS;
    if (d->workspace && ((uintptr_t)d->workspace % TK_WORKSPACE_ALIGN)) return TK_ERR_ALIGNMENT;
    return TK_OK;
}

/* k == 0 or alpha == 0: C = act(beta*C + bias) over rows [i0, i1) and columns [j0, j1); A and B are
 * not read (BLAS), and beta == 0 does not read C. */
static inline void tki_gemm_scale(const tki_gemm_args *g, size_t i0, size_t i1, size_t j0, size_t j1)
{
    size_t i, j;
    for (i = i0; i < i1; i++) {
        float *cr = g->c + i * g->ldc;
        for (j = j0; j < j1; j++) {
            float r = g->beta == 0.0f ? 0.0f : g->beta * cr[j];
            if (g->bias) r += g->bias[j];
            cr[j] = tki_act(r, g->epi, g->lo, g->hi);
        }
    }
}
#endif /* TK_INTERNAL_H */
