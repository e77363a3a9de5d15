m4_divert(-1)
m4_dnl # The ISA-neutral f32 GEMM framework for one CPU table (BLIS-style five loops around the
m4_dnl # microkernel): configurations, the decision tree over shape buckets, packing, cache blocking, edge
m4_dnl # tiles, the k-block beta/bias rule, the epilogue pass, the work partition and the public entry.
m4_dnl # Names carry the CPU suffix (TKM_CPU) so headers of several CPUs can meet in one program.
m4_dnl # Never names an ISA: the microkernels, tkm_ukr_name and tkm_vl_f32 come from the ISA template.

m4_define(<@tkm_gemm_begin@>, <@m4_dnl
#ifndef TK_GEN_GEMM_F32_<@@>TKM_CPU<@@>_H
#define TK_GEN_GEMM_F32_<@@>TKM_CPU<@@>_H
m4_ifelse(TKM_REQUIRE_MACRO, <@none@>, <@@>, <@#if !defined(TKM_REQUIRE_MACRO)
#error "tk: these headers were generated for TKM_CPU_TOKEN (TKM_ISA); compile with TKM_CFLAGS"
#endif
@>)m4_dnl
#include "tk/internal.h"
#include "ukr_f32_<@@>TKM_ISA.h"

/* The workspace this table's rows use at most: TKM_WS_FLOATS floats (m4_eval(TKM_WS_FLOATS * 4) bytes), and at
 * least (one panel of B): TKM_WS_MIN_FLOATS. The static per-thread buffer of a call without a workspace holds
 * the first, or TK_STATIC_WORKSPACE_BYTES if less (never less than the second unless the user set it). */
#define TKI_GEMM_F32_WS_FLOATS_<@@>TKM_CPU TKM_WS_FLOATS
#if TK_STATIC_WORKSPACE_BYTES / 4 >= TKM_WS_FLOATS
#define TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU TKM_WS_FLOATS
#elif defined(TKI_STATIC_WORKSPACE_DEFAULT) && TK_STATIC_WORKSPACE_BYTES / 4 < TKM_WS_MIN_FLOATS
#define TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU TKM_WS_MIN_FLOATS
#elif TK_STATIC_WORKSPACE_BYTES / 4 < 16
#define TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU 16
#else
#define TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU (TK_STATIC_WORKSPACE_BYTES / 4)
#endif

/* The table's rows, one configuration each, in row order; the decision tree below returns the
 * index. A static of the function that returns it, never of the file, as every object of tk is:
 * gcc at -O0 emits every file-scope static object, used or not, and this one refers to every
 * kernel (TKI_STATIC, tk/internal.h); a function's statics come only with the function. */
#define TKI_GEMM_F32_NCFG_<@@>TKM_CPU TKM_NCFG
static inline TKI_ALWAYS_INLINE TKI_UNUSED const tki_gemm_cfg *tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>(void)
{
    static const tki_gemm_cfg tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>_rows[TKM_NCFG] = {
@>)

m4_dnl # tkm_gemm_config(ID, MR, NV, KU, MC, NC_PANELS, KC, PACKB, SPLIT, ORDER, PACKA, EVIDENCE, WHERE, PF):
m4_dnl # PACKA 0 the direct form (no packed kernel: a transposed A runs it on a copy), 1 packed, 2 the dot
m4_dnl # form (NV then counts columns). A direct row of several rows names its kernel's code for a last
m4_dnl # row of one (tkm_ukr_direct_row1, gen/tkm.m4).
m4_dnl # Each row's configuration is also an object of its own (TKM_CFG_CASES: a static of its case in
m4_dnl # tki_gemm_f32_cfg_row, below), which a constant row index names instead of the array.
m4_define(<@TKM_CFG_CASES@>, <@@>)
m4_define(<@_tkm_cfg_init@>, <@{m4_ifelse($11, 2, <@tkm_ukr_dot_name($2, $3, $4), 0, 0@>, $11, 0, <@0, tkm_ukr_direct_ptr($2, $3, $4, $14), tkm_ukr_sweep_name($2, $3, $4, $14)@>, <@tkm_ukr_name($2, $3, $4, $14), 0, 0@>), $2, $3, $4, $5, $6, $7, $8, m4_ifelse($9, m, 0x6d, 0x6e), m4_ifelse($10, m, 0x6d, 0x6e), m4_ifelse($11, 2, 1, 0), m4_ifelse($11/m4_eval($2 > 1), 0/1, <@tkm_ukr_row1_name($2, $3, $4, $14), tkm_ukr_row1_sweep_name($2, $3, $4, $14)@>, <@0, 0@>)}@>)
m4_define(<@tkm_gemm_config@>, <@tkm_nargs(<@tkm_gemm_config@>, 14, $#)m4_dnl
m4_define(<@TKM_CFG_CASES@>, m4_defn(<@TKM_CFG_CASES@>)<@    case $1: {
        static const tki_gemm_cfg tki_gemm_f32_cfg_<@@>TKM_CPU<@@>_$1 = _tkm_cfg_init($@);
        return &tki_gemm_f32_cfg_<@@>TKM_CPU<@@>_$1;
    }
@>)m4_dnl
        _tkm_cfg_init($@), /* $1: $12, $13 */@>)

m4_dnl # tkm_gemm_select_begin ... tkm_gemm_select_end: the decision tree over the rows that are not
m4_dnl # exact shapes, which tkgen computes (gen/tkgen.c, emit_tree): tkm_gemm_split(DEPTH, VAR, AT)
m4_dnl # opens the branch VAR <= AT, tkm_gemm_else(DEPTH) the other, tkm_gemm_fi(DEPTH) closes them;
m4_dnl # tkm_gemm_leaf(DEPTH, ID) returns a row. Then tkm_gemm_select_exact(ID, M, N, K) per exact row
m4_dnl # and tkm_gemm_select_exact_end: the whole choice, the exact rows tested first.
m4_define(<@tkm_gemm_select_begin@>, <@m4_dnl
    };
    return tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>_rows;
}

/* Row idx's own configuration object, for a constant idx only (a literal shape's row: the switch
 * folds to one case). The array refers to every row's kernels, so a unit that refers to it
 * compiles them all (70 s for spr, docs/api.md); the exact-shape instances and a literal shape's
 * call name their row's object instead, and a unit whose calls all have literal shapes compiles
 * only their rows' kernels. Never with a run-time idx: compilers keep such a switch, and every
 * object it names, until after they have decided which functions to compile. */
static inline TKI_ALWAYS_INLINE TKI_UNUSED const tki_gemm_cfg *tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>(int idx)
{
    switch (idx) {
TKM_CFG_CASES<@@>    default: return &tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>()[idx];
    }
}

/* The row of a shape that matches no exact-shape row: the first of the other rows that contains
 * (m, n, k), as the table says, found by a tree of a few compares per dimension. */
static inline TKI_UNUSED TKI_ALWAYS_INLINE int tki_gemm_f32_select_general_<@@>TKM_CPU<@@>(size_t m, size_t n, size_t k)
{
    (void)m; (void)n; (void)k;
@>)
m4_define(<@TKM_SELECT_EXACT@>, <@@>)
m4_define(<@tkm_gemm_select_exact@>, <@tkm_nargs(<@tkm_gemm_select_exact@>, 4, $#)m4_dnl
m4_define(<@TKM_SELECT_EXACT@>, m4_defn(<@TKM_SELECT_EXACT@>)<@    if (m == $2 && n == $3 && k == $4) return $1;
@>)@>)
m4_define(<@tkm_gemm_select_exact_end@>, <@m4_dnl

/* The row of (m, n, k): the first row of the table that contains it. No range row before an
 * exact-shape row covers its shape (tkgen checks), so the exact rows can be tested first. Pure and inline, so
 * with constant m, n, k the whole choice folds to a constant at -O2. */
static inline TKI_UNUSED TKI_ALWAYS_INLINE int tki_gemm_f32_select_<@@>TKM_CPU<@@>(size_t m, size_t n, size_t k)
{
TKM_SELECT_EXACT<@@>    return tki_gemm_f32_select_general_<@@>TKM_CPU<@@>(m, n, k);
}
@>)
m4_define(<@_tkm_indent@>, <@m4_substr(<@                                                                                @>, 0, m4_eval(4 * ($1 + 1)))@>)
m4_define(<@tkm_gemm_split@>, <@_tkm_indent($1)if ($2 <= $3) {@>)
m4_define(<@tkm_gemm_else@>, <@_tkm_indent($1)} else {@>)
m4_define(<@tkm_gemm_fi@>, <@_tkm_indent($1)}@>)
m4_define(<@tkm_gemm_leaf@>, <@_tkm_indent($1)return $2;@>)
m4_define(<@tkm_gemm_select_end@>, <@m4_dnl
}
@>)

m4_dnl # tkm_gemm_rows_begin, tkm_gemm_row(ID, MLO, MHI, NLO, NHI, KLO, KHI) per row (HI 0: unbounded),
m4_dnl # tkm_gemm_rows_end: the rows' buckets as an X-list, for the tests of the tree
m4_define(<@TKM_ROWS@>, <@@>)
m4_define(<@tkm_gemm_rows_begin@>, <@m4_define(<@TKM_ROWS@>, <@@>)@>)
m4_define(<@tkm_gemm_row@>, <@tkm_nargs(<@tkm_gemm_row@>, 7, $#)m4_dnl
m4_define(<@TKM_ROWS@>, m4_defn(<@TKM_ROWS@>)<@ X($1, $2, $3, $4, $5, $6, $7)@>)@>)
m4_define(<@tkm_gemm_rows_end@>, <@m4_dnl

/* Every row's bucket X(id, m_lo, m_hi, n_lo, n_hi, k_lo, k_hi), hi 0 meaning unbounded, for tests. */
#define TKI_GEMM_F32_ROWS_<@@>TKM_CPU<@@>(X)<@@>TKM_ROWS
@>)

m4_dnl # _tkm_in_place(DEPTH): the test of a call (cfg, g) whose tiles the direct-form kernel can each make
m4_dnl # in one call: A and B read in place, k no deeper than DEPTH, the call's one block
m4_define(<@_tkm_in_place@>, <@tki_gemm_a_in_place(cfg, g, TKM_L1_WAYS) && tki_gemm_b_direct(cfg, g) && g->k &&
          g->k <= $1@>)
m4_define(<@_tkm_kc_call@>, <@tki_gemm_kc(cfg, g, (size_t)cfg->nv * (tkm_vl_f32), TKM_L1_WAYS, TKM_B_CROWD_BYTES)@>)
m4_dnl # _tkm_direct_in_place: the sweeps' and an exact row's tiles, at the call's depth (tki_gemm_kc)
m4_define(<@_tkm_direct_in_place@>, <@_tkm_in_place(<@_tkm_kc_call@>)@>)
m4_dnl # _tkm_tile1_in_place: the single-tile path's, which leaves a call of one tile deeper than kc (all
m4_dnl # of k one block there, tki_gemm_kc) to the sweeps: inlined into the plain entry, the tests of
m4_dnl # that rule spilled registers on every small call (the frame grew from 72 to 184 bytes; 3x3x3 to
m4_dnl # 10x10x10 0.91-0.97x, alternating runs on spr)
m4_define(<@_tkm_tile1_in_place@>, <@_tkm_in_place(<@(g->m <= cfg->mr ? (size_t)cfg->kc : _tkm_kc_call)@>)@>)

m4_dnl # _tkm_tile1_body(KERNEL): the single-tile path's statements, KERNEL being the direct-form
m4_dnl # microkernel (the row's pointer, or its name where the row is known, so it can be inlined)
m4_define(<@_tkm_tile1_body@>, <@m4_dnl
    tki_ukr_aux aux;
    float *ct;
    if (!(i1 - i0 <= cfg->mr && j1 - j0 <= (size_t)cfg->nv * (tkm_vl_f32) && _tkm_tile1_in_place))
        return 0;
    ct = g->c + i0 * g->ldc + j0;
    aux.alpha = g->alpha;
    aux.beta = g->beta;
    aux.bias = g->bias ? g->bias + j0 : NULL;
    aux.rsa = g->lda;
    $1(g->k, g->a + i0 * g->lda, g->b + j0, g->ldb, ct, g->ldc, i1 - i0, j1 - j0, &aux);
    tki_act_tile(ct, g->ldc, i1 - i0, j1 - j0, g->epi, g->lo, g->hi);
    return 1;
@>)

m4_define(<@tkm_gemm_driver@>, <@m4_dnl
/* Columns of one tile of a row's configuration: NV vectors, or NV columns in the dot form. */
static inline size_t tki_gemm_f32_nr_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg)
{
    return cfg->dot ? cfg->nv : (size_t)cfg->nv * (tkm_vl_f32);
}

/* Whether the blocked loops run the tiles of a rows x cols call row tile by row tile, each row
 * tile's column tiles one after another (order 'm', one column tile, or one row tile): the calls
 * a column sweep per row tile can make instead (tki_gemm_f32_sweeps and the plain entry's test). */
static inline int tki_gemm_f32_sweep_order_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, size_t rows, size_t cols)
{
    return cfg->order == 0x6d || cols <= tki_gemm_f32_nr_<@@>TKM_CPU<@@>(cfg) || rows <= cfg->mr;
}

/* The row tiles of `rows` rows of A (at ar, aux->rsa apart) against `cols` columns of B in place
 * (at b), into C at c: one column sweep per tile, or where `cols` is one column tile the kernel's
 * entry itself (the one call the sweep would make, without its frame); the one-row kernels for a
 * last tile of one row (an MR-row one would compute MR rows for it: docs/microkernel.md, "A last
 * row of one"); the epilogue activation after each when `act` (C's last k block). The blocked
 * loops and tki_gemm_f32_sweeps. */
static inline TKI_ALWAYS_INLINE TKM_TARGET void tki_gemm_f32_sweep_rows_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g,
                                                        const tki_ukr_aux *aux, size_t k, const float *ar,
                                                        const float *b, float *c, size_t rows, size_t cols, int act)
{
    size_t ir;
    const int one = cols <= tki_gemm_f32_nr_<@@>TKM_CPU<@@>(cfg);
    for (ir = 0; ir < rows; ir += cfg->mr) {
        const size_t mrows = tki_min(cfg->mr, rows - ir);
        float *ct = c + ir * g->ldc;
        const int row1 = mrows == 1 && cfg->ukr_row1;
        (one ? (row1 ? cfg->ukr_row1 : cfg->ukr_direct) : row1 ? cfg->ukr_row1_sweep : cfg->ukr_sweep)(
            k, ar + ir * aux->rsa, b, g->ldb, ct, g->ldc, mrows, cols, aux);
        if (act) tki_act_tile(ct, g->ldc, mrows, cols, g->epi, g->lo, g->hi);
    }
}

/* rows x kc floats of row-major src (rows lds apart) to dst, rows ld apart: A's rows for the direct
 * kernel where in place they would collide in L1 (tki_rows_collide), and B's where in place they
 * would crowd the L2 (tki_b_rows_copy); one row at a time, in order. */
static inline TKM_TARGET void tki_gemm_f32_copy_rows_<@@>TKM_CPU<@@>(const float *src, size_t lds, size_t rows, size_t kc,
                                                        size_t ld, float *TKI_RESTRICT dst)
{
    size_t i, p;
    for (i = 0; i < rows; i++)
        for (p = 0; p < kc; p++) dst[i * ld + p] = src[i * lds + p];
}

/* op(A)[i0 : i0+mc, p0 : p0+kc] into MR-row panels, p-major inside a panel, rows past mc zeroed. */
static inline TKM_TARGET void tki_gemm_f32_pack_a_<@@>TKM_CPU<@@>(const tki_gemm_args *g, size_t i0, size_t mc,
                                                     size_t p0, size_t kc, size_t mr, float *TKI_RESTRICT dst)
{
    size_t ib, i, p;
    for (ib = 0; ib < mc; ib += mr, dst += mr * kc) {
        size_t rows = tki_min(mr, mc - ib);
        if (g->transa == TK_NO_TRANS) {
            const float *src = g->a + (i0 + ib) * g->lda + p0;
m4_ifdef(<@tkm_pack_a_name@>, <@m4_dnl
            /* the ISA's own packing (whole panel, padding rows included) */
            if (mr <= tkm_pack_a_max_mr) {
                tkm_pack_a_name<@@>(src, g->lda, rows, kc, mr, dst);
                continue;
            }
@>)m4_dnl
            /* rows are read as parallel streams so the panel is written in order */
            for (p = 0; p < kc; p++)
                for (i = 0; i < rows; i++) dst[p * mr + i] = src[i * g->lda + p];
        } else {
            for (p = 0; p < kc; p++) {
                const float *src = g->a + (p0 + p) * g->lda + i0 + ib;
                for (i = 0; i < rows; i++) dst[p * mr + i] = src[i];
            }
        }
        for (i = rows; i < mr; i++)
            for (p = 0; p < kc; p++) dst[p * mr + i] = 0.0f;
    }
}

/* op(B)[p0 : p0+kc, j0 : j0+nc] into NR-column panels, row-major inside a panel, columns past nc zeroed.
 * B in place is read TKI_PACK_B_ROWS rows at a time across every panel; a transposed B, column by
 * column (each a row of the stored matrix). */
static inline TKM_TARGET void tki_gemm_f32_pack_b_<@@>TKM_CPU<@@>(const tki_gemm_args *g, size_t p0, size_t kc,
                                                     size_t j0, size_t nc, size_t nr, float *TKI_RESTRICT dst)
{
    size_t jb, j, p, pg;
    if (g->transb == TK_NO_TRANS) {
        for (pg = 0; pg < kc; pg += TKI_PACK_B_ROWS) {
            const size_t pe = tki_min(kc, pg + TKI_PACK_B_ROWS);
            float *panel = dst;
            for (jb = 0; jb < nc; jb += nr, panel += nr * kc) {
                size_t cols = tki_min(nr, nc - jb);
                for (p = pg; p < pe; p++) {
                    const float *src = g->b + (p0 + p) * g->ldb + j0 + jb;
                    for (j = 0; j < cols; j++) panel[p * nr + j] = src[j];
                    for (; j < nr; j++) panel[p * nr + j] = 0.0f;
                }
            }
        }
        return;
    }
    for (jb = 0; jb < nc; jb += nr, dst += nr * kc) {
        size_t cols = tki_min(nr, nc - jb);
        for (j = 0; j < cols; j++) {
            const float *src = g->b + (j0 + jb + j) * g->ldb + p0;
            for (p = 0; p < kc; p++) dst[p * nr + j] = src[p];
        }
        for (p = 0; p < kc; p++)
            for (j = cols; j < nr; j++) dst[p * nr + j] = 0.0f;
    }
}

/* Floats of workspace for one packed mc x kc block of A (kept 64-byte aligned) and `panels`
 * NR-wide panels of packed B, for an m-row, k-deep problem: the one rule the entry point, the
 * workspace query and the blocked loops all size by. The dot form copies the same blocks, their
 * rows tki_gemm_dot_ld apart. */
static inline size_t tki_gemm_f32_ws_need_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, size_t m, size_t k, size_t panels)
{
    size_t nr = tki_gemm_f32_nr_<@@>TKM_CPU<@@>(cfg);
    size_t kc = tki_min(cfg->kc, k ? k : 1);
    size_t mc = tki_min(cfg->mc, tki_round_up(m, cfg->mr));
    /* a direct row copies A's rows, tki_rows_ld apart, where in place they would collide in L1 */
    size_t ka = cfg->ukr_direct ? tki_rows_ld(kc, cfg->mr, TKM_L1_WAYS) : kc;
    if (cfg->dot) return tki_round_up(mc * tki_gemm_dot_ld(kc), 16) + tki_gemm_dot_ld(kc) * panels * nr + 16;
    return tki_round_up(mc * ka, 16) + kc * panels * nr + 16;
}

/* The panels of B a block of columns takes in a workspace of ws_floats: the row's ncp, or fewer
 * where the buffer holds fewer (the static one is capped by TK_STATIC_WORKSPACE_BYTES), then spread
 * evenly over the `panels` the columns make, so that a narrowed block leaves no sliver (2048 columns
 * in blocks of 1664 and 384). Blocks of B change no sum: results stay the same bits. */
static inline size_t tki_gemm_f32_fit_ncp_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g, size_t ncp,
                                                     size_t ws_floats, size_t panels)
{
    size_t fit = ncp, blocks;
    while (fit > 1 && tki_gemm_f32_ws_need_<@@>TKM_CPU<@@>(cfg, g->m, g->k, fit) > ws_floats) fit--;
    if (fit == ncp || panels <= fit) return fit;
    blocks = (panels + fit - 1) / fit;
    return (panels + blocks - 1) / blocks;
}

/* kc rows of nc floats of row-major src (rows lds apart), transposed: column j to dst + j*ld, kc
 * floats (and zeros up to a multiple of 16; ld must hold them). The dot form's copies, the columns
 * of an untransposed B and the rows of a transposed A, and a direct row's copy of a transposed A. */
static inline TKM_TARGET void tki_gemm_f32_pack_cols_<@@>TKM_CPU<@@>(const float *src, size_t lds, size_t kc, size_t nc,
                                                        size_t ld, float *TKI_RESTRICT dst)
{
    size_t j, p;
m4_ifdef(<@tkm_pack_t_name@>, <@m4_dnl
    /* the ISA's transposing copy, 16 rows (a vector of each column) at a time; it zeroes the
     * lanes past the last row, which stay inside the column's ld floats */
    (void)j;
    for (p = 0; p < kc; p += 16) tkm_pack_t_name<@@>(src + p * lds, lds, tki_min(16, kc - p), nc, 16, ld, dst + p);
@>, <@m4_dnl
    for (p = 0; p < kc; p++)
        for (j = 0; j < nc; j++) dst[j * ld + p] = src[p * lds + j];
@>)m4_dnl
}

m4_ifelse(TKM_ISA_DOT, 1, <@m4_dnl
/* The dot form's loops (docs/microkernel.md) over rows [i0, i1) and columns [j0, j1): panels of
 * ncp * NB columns, k blocks, blocks of mc rows, then MR x NB tiles. The kernel reads A by rows and B
 * by columns, both along k: A in place unless transposed (then copied row by row), B in place when
 * transposed (its rows are op(B)'s columns), else copied by columns once per panel and k block.
 * Every element is one kernel's dot product per k block, whatever tile or part it falls in. */
static inline TKM_TARGET void tki_gemm_f32_dot_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g,
                                                  size_t i0, size_t i1, size_t j0, size_t j1,
                                                  float *ws, size_t ws_floats, int fixed)
{
    const size_t mr = cfg->mr, nb = cfg->nv;
    const size_t kc = tki_min(cfg->kc, g->k), mc = tki_min(cfg->mc, tki_round_up(g->m, mr));
    const int a_copy = g->transa != TK_NO_TRANS, b_copy = g->transb == TK_NO_TRANS;
    size_t ncp = cfg->ncp, jc, pc, ic;
    const size_t ld = tki_gemm_dot_ld(kc);
    float *pa = ws, *pb = ws + tki_round_up(mc * ld, 16);
    ncp = tki_gemm_f32_fit_ncp_<@@>TKM_CPU<@@>(cfg, g, ncp, ws_floats, (j1 - j0 + nb - 1) / nb);
    for (jc = j0; jc < j1; jc += ncp * nb) {
        const size_t ncur = tki_min(ncp * nb, j1 - jc);
        for (pc = 0; pc < g->k; pc += kc) {
            const size_t kcur = tki_min(kc, g->k - pc);
            const int first = pc == 0, last = pc + kcur == g->k;
            const float *bt = b_copy ? pb : g->b + jc * g->ldb + pc;
            const size_t ldbt = b_copy ? ld : g->ldb;
            tki_ukr_aux aux;
            aux.alpha = g->alpha;
            aux.beta = first ? g->beta : 1.0f;
            if (b_copy) tki_gemm_f32_pack_cols_<@@>TKM_CPU<@@>(g->b + pc * g->ldb + jc, g->ldb, kcur, ncur, ld, pb);
            for (ic = i0; ic < i1; ic += mc) {
                const size_t mcur = tki_min(mc, i1 - ic);
                const size_t nj = (ncur + nb - 1) / nb, ni = (mcur + mr - 1) / mr;
                const float *ap = a_copy ? pa : g->a + ic * g->lda + pc;
                size_t t, to = 0, ti = 0;
                aux.rsa = a_copy ? ld : g->lda;
                if (a_copy) tki_gemm_f32_pack_cols_<@@>TKM_CPU<@@>(g->a + pc * g->lda + ic, g->lda, kcur, mcur, ld, pa);
                /* order 'n': the tile's B columns stay in L1 across the row tiles; 'm': its A rows */
                for (t = 0; t < nj * ni; t++) {
                    size_t jt, it;
                    tki_tile_at(t, nj, ni, cfg->order, fixed, &to, &ti, &jt, &it);
                    const size_t jr = jt * nb, ir = it * mr;
                    const size_t ncols = tki_min(nb, ncur - jr), mrows = tki_min(mr, mcur - ir);
                    float *ct = g->c + (ic + ir) * g->ldc + jc + jr;
                    aux.bias = last && g->bias ? g->bias + jc + jr : NULL;
                    cfg->ukr(kcur, ap + ir * aux.rsa, bt + jr * ldbt, ldbt, ct, g->ldc, mrows, ncols, &aux);
                    if (last) tki_act_tile(ct, g->ldc, mrows, ncols, g->epi, g->lo, g->hi);
                }
            }
        }
    }
}

@>)m4_dnl
/* The five loops (BLIS order jc, pc, ic, jr, ir) over rows [i0, i1) and columns [j0, j1).
 * ws holds ws_floats floats; nc shrinks to fit it (only the static buffer can be short, on a
 * vector-length-agnostic machine wider than the table assumed). fixed: 1 from an exact-shape instance,
 * whose shape is a constant (tki_tile_at). */
static inline TKM_TARGET void tki_gemm_f32_blocked_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g,
                                                      size_t i0, size_t i1, size_t j0, size_t j1,
                                                      float *ws, size_t ws_floats, int fixed)
{
    const size_t mr = cfg->mr, nr = (size_t)cfg->nv * (tkm_vl_f32);
    const size_t kc = tki_min(tki_gemm_kc(cfg, g, nr, TKM_L1_WAYS, TKM_B_CROWD_BYTES), g->k), mc = tki_min(cfg->mc, tki_round_up(g->m, mr));
    const int direct_b = tki_gemm_b_in_place(cfg, g, TKM_B_CROWD_BYTES);
    /* the direct kernel form reads A by rows (and masks B, so even a ragged B panel needs no copy):
     * in place, or from a copy of the block's rows where in place they would collide in L1 or A is
     * transposed (copied transposed; its rows hold kc rounded up to 16, which tki_rows_ld leaves) */
    const int direct_a = tki_gemm_a_direct(cfg);
    const int rows_copy = direct_a && !tki_gemm_a_in_place(cfg, g, TKM_L1_WAYS);
    const size_t lda_copy = tki_rows_ld(kc, mr, TKM_L1_WAYS);
    const size_t pa_floats = tki_round_up(mc * (direct_a ? lda_copy : kc), 16);
    size_t ncp = direct_b ? 1 : cfg->ncp, ncb = 0, jc, pc, ic;
    float *pa = ws, *pb = ws + pa_floats;
m4_ifelse(TKM_ISA_DOT, 1, <@m4_dnl
    if (cfg->dot) {
        tki_gemm_f32_dot_<@@>TKM_CPU<@@>(cfg, g, i0, i1, j0, j1, ws, ws_floats, fixed);
        return;
    }
@>)m4_dnl
    ncp = tki_gemm_f32_fit_ncp_<@@>TKM_CPU<@@>(cfg, g, ncp, ws_floats, (j1 - j0 + nr - 1) / nr);
    /* where B's rows in place would crowd the L2, the tiles read a copy of them (tki_b_rows_copy), in
     * blocks of columns as wide as the workspace holds, spread evenly; without room for one tile's
     * width, or in a part of one row tile (which reads each panel once), B is read in place at the
     * same kc: the same sums either way */
    if (i1 - i0 > mr && tki_gemm_b_in_place_rows_inner(cfg, g, TKM_B_CROWD_BYTES) &&
        tki_b_rows_copy(cfg->kc, g->m, mr, cfg->mc, g->ldb, TKM_B_CROWD_BYTES, direct_a)) {
        /* (a call that reads A and B in place runs in any buffer, even a static one of 16 floats,
         * TK_STATIC_WORKSPACE_BYTES set small: then there is no room, not a negative one) */
        const size_t room = ws_floats > pa_floats ? ws_floats - pa_floats : 0;
        const size_t row = room / kc, most = row > 31 + nr ? (row - 31) / nr * nr : 0;
        if (most) {
            const size_t blocks = (j1 - j0 + most - 1) / most;
            ncb = tki_round_up((j1 - j0 + blocks - 1) / blocks, nr);
        }
    }
    for (jc = j0; jc < j1; jc += ncb ? ncb : direct_b ? j1 - j0 : ncp * nr) {
        const size_t ncur = ncb ? tki_min(ncb, j1 - jc) : direct_b ? j1 - j0 : tki_min(ncp * nr, j1 - jc);
        const size_t ldr = tki_b_rows_ld(ncur);
        for (pc = 0; pc < g->k; pc += kc) {
            const size_t kcur = tki_min(kc, g->k - pc);
            const int first = pc == 0, last = pc + kcur == g->k;
            tki_ukr_aux aux;
            size_t edge = ncur % nr;
            aux.alpha = g->alpha;
            aux.beta = first ? g->beta : 1.0f;
            aux.rsa = rows_copy ? lda_copy : g->lda;
            if (ncb) {
                tki_gemm_f32_copy_rows_<@@>TKM_CPU<@@>(g->b + pc * g->ldb + jc, g->ldb, kcur, ncur, ldr, pb);
            } else if (direct_b) {
                /* B is read in place; only a ragged last panel is copied, so loads stay in bounds */
                if (edge && !direct_a) tki_gemm_f32_pack_b_<@@>TKM_CPU<@@>(g, pc, kcur, jc + ncur - edge, edge, nr, pb);
            } else {
                tki_gemm_f32_pack_b_<@@>TKM_CPU<@@>(g, pc, kcur, jc, ncur, nr, pb);
            }
            for (ic = i0; ic < i1; ic += mc) {
                const size_t mcur = tki_min(mc, i1 - ic);
                const size_t nj = (ncur + nr - 1) / nr, ni = (mcur + mr - 1) / mr;
                size_t t, to = 0, ti = 0;
                /* the rows the direct kernel reads: A's block in place, or its copy */
                const float *ar = rows_copy ? pa : g->a + ic * g->lda + pc;
                if (rows_copy && g->transa != TK_NO_TRANS)
                    tki_gemm_f32_pack_cols_<@@>TKM_CPU<@@>(g->a + pc * g->lda + ic, g->lda, kcur, mcur, lda_copy, pa);
                else if (rows_copy)
                    tki_gemm_f32_copy_rows_<@@>TKM_CPU<@@>(g->a + ic * g->lda + pc, g->lda, mcur, kcur, lda_copy, pa);
                if (!direct_a) tki_gemm_f32_pack_a_<@@>TKM_CPU<@@>(g, ic, mcur, pc, kcur, mr, pa);
                if (direct_a && direct_b && !ncb && cfg->ukr_sweep && (ni == 1 || cfg->order == 0x6d)) {
                    /* the loop below runs each row tile's column tiles one after another here: one
                     * sweep call per row tile makes the same tiles in the same order, without a call
                     * per tile (a shallow one-row tile lost about a tenth of its time to them) */
                    aux.bias = last && g->bias ? g->bias + jc : NULL;
                    tki_gemm_f32_sweep_rows_<@@>TKM_CPU<@@>(cfg, g, &aux, kcur, ar, g->b + pc * g->ldb + jc,
                                                        g->c + ic * g->ldc + jc, mcur, ncur, last);
                    continue;
                }
                /* order 'n': B micro-panel stays in L1 across the row tiles (BLIS); order 'm': the
                 * A micro-panel stays in L1 while B micro-panels stream from L2 */
                for (t = 0; t < nj * ni; t++) {
                    size_t jt, it;
                    tki_tile_at(t, nj, ni, cfg->order, fixed, &to, &ti, &jt, &it);
                    const size_t jr = jt * nr, ir = it * mr;
                    const size_t ncols = tki_min(nr, ncur - jr), mrows = tki_min(mr, mcur - ir);
                    float *ct = g->c + (ic + ir) * g->ldc + jc + jr;
                    const float *bp;
                    size_t ldb;
                    if (ncb) {
                        bp = pb + jr;
                        ldb = ldr;
                    } else if (!direct_b) {
                        bp = pb + jt * kcur * nr;
                        ldb = nr;
                    } else if (ncols < nr && !direct_a) {
                        bp = pb;
                        ldb = nr;
                    } else {
                        bp = g->b + pc * g->ldb + jc + jr;
                        ldb = g->ldb;
                    }
                    aux.bias = last && g->bias ? g->bias + jc + jr : NULL;
                    /* a last row tile of one row runs the one-row kernel: an MR-row one would compute MR
                     * rows for it (docs/microkernel.md, "A last row of one") */
                    if (direct_a)
                        (mrows == 1 && cfg->ukr_row1 ? cfg->ukr_row1 : cfg->ukr_direct)(
                            kcur, ar + ir * aux.rsa, bp, ldb, ct, g->ldc, mrows, ncols, &aux);
                    else
                        cfg->ukr(kcur, pa + it * kcur * mr, bp, ldb, ct, g->ldc, mrows, ncols, &aux);
                    if (last) tki_act_tile(ct, g->ldc, mrows, ncols, g->epi, g->lo, g->hi);
                }
            }
        }
    }
}

/* When one direct tile covers rows [i0, i1) and columns [j0, j1), make the one kernel call the
 * blocked loops would make, without them (small shapes are all overhead). Returns 0 otherwise. Always
 * inlined (into the generic driver and the partition), so that its arguments need no memory. */
static inline TKI_ALWAYS_INLINE TKM_TARGET int tki_gemm_f32_tile1_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g,
                                                  size_t i0, size_t i1, size_t j0, size_t j1)
{
_tkm_tile1_body(<@cfg->ukr_direct@>)m4_dnl
}

/* When A and B are read in place, k fits one block and the row tiles may run one after another
 * (order 'm', one column tile, or one row tile), the blocked loops make one column sweep per row
 * tile: make those calls without the loops' set-up (three divisions by run-time tile sizes, the
 * workspace and copy arithmetic: about 10 ns of a 17x19x23 call's 265 on the Zen 4; 2x64x64 on 2x24
 * tiles, order 'n', ran 1.17x faster so on the Zen 4 without AVX-512). The same tiles through the
 * same kernels, so the same results. Returns 0 otherwise. */
static inline TKI_ALWAYS_INLINE TKM_TARGET int tki_gemm_f32_sweeps_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g,
                                                   size_t i0, size_t i1, size_t j0, size_t j1)
{
    tki_ukr_aux aux;
    if (!(cfg->ukr_sweep && tki_gemm_f32_sweep_order_<@@>TKM_CPU<@@>(cfg, i1 - i0, j1 - j0) && _tkm_direct_in_place))
        return 0;
    aux.alpha = g->alpha;
    aux.beta = g->beta;
    aux.bias = g->bias ? g->bias + j0 : NULL;
    aux.rsa = g->lda;
    tki_gemm_f32_sweep_rows_<@@>TKM_CPU<@@>(cfg, g, &aux, g->k, g->a + i0 * g->lda, g->b + j0, g->c + i0 * g->ldc + j0,
                                        i1 - i0, j1 - j0, 1);
    return 1;
}

/* Part `part` of `nparts` of a validated problem. Parts cut whole tiles along the table's split
 * dimension, and every element is computed the same way whatever the cut: results do not depend
 * on the number of parts. Out of line: inlined into the plain entry's slow path, whose
 * single-tile calls never reach it, it made that function's frame large enough to spill the shape
 * the decision tree reads first (5x5x5 20.6 -> 20.2 ns, 10x10x10 43.0 -> 42.0 ns on the Zen 4). */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET void tki_gemm_f32_part_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tki_gemm_args *g, size_t part,
                                                   size_t nparts, float *ws, size_t ws_floats)
{
    size_t i0 = 0, i1 = g->m, j0 = 0, j1 = g->n;
    if (nparts > 1) {
        int by_n = cfg->split == 0x6e;
        size_t unit = by_n ? tki_gemm_f32_nr_<@@>TKM_CPU<@@>(cfg) : cfg->mr;
        size_t len = by_n ? g->n : g->m;
        size_t tiles = (len + unit - 1) / unit;
        size_t t0 = tiles * part / nparts, t1 = tiles * (part + 1) / nparts;
        size_t lo = tki_min(t0 * unit, len), hi = tki_min(t1 * unit, len);
        if (by_n) j0 = lo, j1 = hi; else i0 = lo, i1 = hi;
    }
    if (i0 >= i1 || j0 >= j1) return;
    if (g->k == 0) {
        tki_gemm_scale(g, i0, i1, j0, j1);
        return;
    }
    if (tki_gemm_f32_tile1_<@@>TKM_CPU<@@>(cfg, g, i0, i1, j0, j1)) return;
    if (tki_gemm_f32_sweeps_<@@>TKM_CPU<@@>(cfg, g, i0, i1, j0, j1)) return;
    tki_gemm_f32_blocked_<@@>TKM_CPU<@@>(cfg, g, i0, i1, j0, j1, ws, ws_floats, 0);
}
/* Bytes of workspace d's call needs with configuration cfg (0 when there is nothing to do) */
static inline TKI_UNUSED size_t tki_gemm_f32_ws_bytes_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tk_gemm_desc *d)
{
    size_t nr, panels;
    if (d->m == 0 || d->n == 0) return 0;
    nr = tki_gemm_f32_nr_<@@>TKM_CPU<@@>(cfg);
    panels = cfg->packb ? tki_min(cfg->ncp, (d->n + nr - 1) / nr) : 1;
    return tki_gemm_f32_ws_need_<@@>TKM_CPU<@@>(cfg, d->m, d->k, panels) * sizeof(float);
}
static inline TKI_UNUSED size_t tki_gemm_f32_workspace_size_<@@>TKM_CPU<@@>(const tk_gemm_desc *d)
{
    if (!d) return 0;
    return tki_gemm_f32_ws_bytes_<@@>TKM_CPU<@@>(&tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>()[tki_gemm_f32_select_<@@>TKM_CPU<@@>(d->m, d->n, d->k)], d);
}

/* The workspace a validated problem runs in: the caller's, checked against what cfg needs (the size
 * query's figure: cfg is the row of d's shape, or the tuner's candidate), or the static per-thread
 * buffer. */
static inline TKM_TARGET tk_status tki_gemm_f32_ws_pick_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tk_gemm_desc *d,
                                                          const tki_gemm_args *g, float **ws, size_t *ws_floats)
{
    static TKI_THREAD_LOCAL float tki_ws_static[TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU] TKI_ALIGNED(64);
    if (d->workspace) {
        if (g->k && d->workspace_size < tki_gemm_f32_ws_bytes_<@@>TKM_CPU<@@>(cfg, d)) return TK_ERR_WORKSPACE;
        *ws = (float *)d->workspace;
        *ws_floats = d->workspace_size / sizeof(float);
        return TK_OK;
    }
    /* the thread-local address is taken only here: in shared objects it costs a call */
    *ws = tki_ws_static;
    *ws_floats = TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU;
#if TKI_GEMM_F32_WS_STATIC_<@@>TKM_CPU < TKM_WS_MIN_FLOATS
    /* a buffer set below one panel of B (TK_STATIC_WORKSPACE_BYTES): the calls that would copy into it
     * are refused just below, but GCC cannot follow that test into the blocked loops and warns
     * (-Warray-bounds, an error under -Werror) of the copies it sees reach past the array: hide
     * which array the pointer names from it */
    TKI_OPAQUE(*ws);
#endif
    /* direct kernels on untransposed operands copy nothing, so need no buffer; a wider vector
     * machine than the table assumed may need more than the static buffer even at the narrowest
     * nc: then the caller must pass a workspace */
    if (g->k && !(tki_gemm_a_in_place(cfg, g, TKM_L1_WAYS) && tki_gemm_b_in_place(cfg, g, TKM_B_CROWD_BYTES)) &&
        tki_gemm_f32_ws_need_<@@>TKM_CPU<@@>(cfg, g->m, g->k, 1) > *ws_floats)
        return TK_ERR_WORKSPACE;
    return TK_OK;
}
@>)

m4_dnl # Exact-shape rows (docs/tables.md): a row whose m, n and k are single values gets the whole
m4_dnl # driver compiled for that one shape, so loop bounds, edge masks and the k unrolling are constants.
m4_dnl # Their plain instances end in the generic driver out of line (below, in tkm_gemm_entry) when they
m4_dnl # turn a call away, so it is declared first; tkm_gemm_exact_begin comes right after the driver.
m4_define(<@tkm_gemm_exact_begin@>, <@m4_dnl
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET tk_status tki_gemm_f32_desc_generic_<@@>TKM_CPU<@@>(tk_trans transa, tk_trans transb,
        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
        float *c, size_t ldc, const tki_gemm_cfg *cfg);
@>)
m4_define(<@TKM_EXACT_CASES@>, <@@>)
m4_define(<@TKM_EXACTNN_FIRST@>, <@@>)
m4_define(<@TKM_EXACTNN_TESTS@>, <@@>)
m4_define(<@TKM_EXACTNN_HASHES@>, <@@>)
m4_define(<@TKM_EXACT_SHAPES@>, <@@>)

m4_dnl # _tkm_exactnn_if(ID, M, N, K): the plain entry's test for exact row ID and the call of its instance
m4_define(<@_tkm_exactnn_if@>, <@if (m == $2 && n == $3 && k == $4) return tki_gemm_f32_exactnn_<@@>TKM_CPU<@@>_$1(alpha, a, lda, b, ldb, beta, c, ldc);@>)
m4_dnl # _tkm_exact_hash(M, N, K): the hash of a shape the plain entry filters exact rows by, before the
m4_dnl # mod 64; one expression for the mask the generator builds (m4_eval) and the C that tests it
m4_define(<@_tkm_exact_hash@>, <@$1 + 3 * ($2) + 5 * ($3)@>)
m4_dnl # _tkm_exact_tiles(M, MR): 1 when an exact row of M rows in tiles of MR runs its tiles itself
m4_dnl # (tki_gemm_f32_tiles): not when its last row tile is one row, which the blocked driver gives the
m4_dnl # one-row kernel
m4_define(<@_tkm_exact_tiles@>, <@m4_eval(!($1 > $2 && $1 % $2 == 1))@>)
m4_dnl # _tkm_exactnn_body(ID, M, N, K, LDA, LDB, LDC): the body of row ID's plain instance, written
m4_dnl # once for the instance on contiguous operands (leading dimensions constant) and the one on any
m4_dnl # others
m4_define(<@_tkm_exactnn_body@>, <@m4_dnl
    tk_gemm_desc d;
    tk_status st;
    tki_gemm_desc_plain(&d, TK_NO_TRANS, TK_NO_TRANS, $2, $3, $4, alpha, a, $5, b, $6, beta, c, $7);
    if (tki_gemm_f32_exact_body_<@@>TKM_CPU<@@>_$1(&d, &st)) return st;
    return tki_gemm_f32_desc_generic_<@@>TKM_CPU<@@>(TK_NO_TRANS, TK_NO_TRANS, $2, $3, $4, alpha, a, $5, b, $6, beta, c,
                                                 $7, tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>($1));
@>)
m4_dnl # _tkm_exact_inline_k: the deepest exact row whose tiles inline their microkernel. Inlined, a
m4_dnl # kernel saves its call and takes the instance's constant leading dimensions (no row pointers,
m4_dnl # no address arithmetic), which counts on a shallow tile; on a deep one the call is nothing
m4_dnl # against its k loop, and inside the flattened instance GCC 12 allocated the loop's registers
m4_dnl # worse: 49x512x4608 on 7x48, whole k in 7-row blocks, ran its k loop with vmovaps copies of
m4_dnl # accumulators and broadcasts, 88.7 GFLOP/s against 107.9 for the same row through the generic
m4_dnl # driver (the tuner's exact-shape and generic probes, alternating, Zen 4). Past this depth
m4_dnl # the tiles call the kernel's entry (tkm_ukr_direct_ptr), whose body is out of line.
m4_define(<@_tkm_exact_inline_k@>, 256)
m4_dnl # tkm_gemm_exact(ID, M, N, K, MR, NV, KU, PACKA, PF)
m4_define(<@tkm_gemm_exact@>, <@tkm_nargs(<@tkm_gemm_exact@>, 9, $#)m4_dnl
m4_ifelse($8, 0, <@m4_dnl
m4_ifelse(m4_eval($4 <= _tkm_exact_inline_k), 1, <@m4_dnl
/* Row $1's single-tile path with its microkernel named, not called through the row's pointer:
 * compilers resolve that pointer only after they have decided what to inline. */
@>, <@m4_dnl
/* Row $1's single-tile path with its microkernel called through the kernel's entry, its body out of
 * line: k ($4) is past _tkm_exact_inline_k. */
@>)m4_dnl
static inline TKM_TARGET int tki_gemm_f32_tile1_<@@>TKM_CPU<@@>_$1(const tki_gemm_cfg *cfg, const tki_gemm_args *g,
                                                  size_t i0, size_t i1, size_t j0, size_t j1)
{
_tkm_tile1_body(m4_ifelse(m4_eval($4 <= _tkm_exact_inline_k), 1, <@<@tkm_ukr_direct_name($5, $6, $7, $9)@>@>, <@<@tkm_ukr_direct_ptr($5, $6, $7, $9)@>@>))m4_dnl
}
m4_ifelse(_tkm_exact_tiles($2, $5), 1, <@m4_dnl
/* Row $1's tiles one after another, each a call of its microkernel named, where A and B are read in
 * place and k is one block: the blocked driver would make the same calls out of line, every size
 * and leading dimension a run-time value there; here they are constants, and the calls inline.
 * The single-tile path's tests are the one below and a tile of at most mr x nr, so each tile
 * passes them once this one has. */
static inline TKM_TARGET int tki_gemm_f32_tiles_<@@>TKM_CPU<@@>_$1(const tki_gemm_cfg *cfg, const tki_gemm_args *g)
{
    const size_t nr = (size_t)cfg->nv * (tkm_vl_f32), mc = cfg->mc > cfg->mr ? cfg->mc : cfg->mr;
    size_t ic, i, j;
    if (!(_tkm_direct_in_place)) return 0;
    /* blocks of mc rows, as the blocked driver makes them: order 'n' runs a block's row tiles under
     * each column tile, so the block's rows of A stay in L2 while B goes by once per block (until
     * session 66 the whole of m was one block here, whatever the row said: 49x512x4608 on 7x48 with
     * 7-row blocks ran 91 GFLOP/s here against 108 through the blocked driver) */
    for (ic = 0; ic < $2; ic += mc) {
        const size_t ie = tki_min(ic + mc, $2);
        if (cfg->order == 0x6d) {
            for (i = ic; i < ie; i += cfg->mr)
                for (j = 0; j < $3; j += nr)
                    tki_gemm_f32_tile1_<@@>TKM_CPU<@@>_$1(cfg, g, i, tki_min(i + cfg->mr, ie), j, tki_min(j + nr, $3));
        } else {
            for (j = 0; j < $3; j += nr)
                for (i = ic; i < ie; i += cfg->mr)
                    tki_gemm_f32_tile1_<@@>TKM_CPU<@@>_$1(cfg, g, i, tki_min(i + cfg->mr, ie), j, tki_min(j + nr, $3));
        }
    }
    return 1;
}
@>)m4_dnl
@>)m4_dnl
/* Row $1 matches $2 x $3 x $4 only: validates d with that shape constant (the checks fold to a few
 * compares), then computes into *st and returns 1; returns 0 when the generic entry must run instead.
 * The descriptor instance and the plain one below both inline it. */
static inline TKM_TARGET int tki_gemm_f32_exact_body_<@@>TKM_CPU<@@>_$1(const tk_gemm_desc *d0, tk_status *st)
{
    const tki_gemm_cfg *cfg = tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>($1);
    tk_gemm_desc d = *d0;
    tki_gemm_args g;
    float *ws;
    size_t ws_floats;
    int nothing;
    d.m = $2;
    d.n = $3;
    d.k = $4;
    *st = tki_gemm_check(&d, &g, &nothing);
    if (*st != TK_OK || nothing) return 1;
    *st = tki_gemm_f32_ws_pick_<@@>TKM_CPU<@@>(cfg, &d, &g, &ws, &ws_floats);
    if (*st != TK_OK) return 1;
    /* alpha == 0 zeroed k: the generic entry scales C */
    if (!g.k) return 0;
m4_ifelse(m4_eval($4 > $7), 1, <@m4_dnl
    /* k is a run-time value again: a constant k made compilers unroll the k loop completely and
     * spill the A elements they loaded up front */
    g.k = d0->k;
@>, <@m4_dnl
    /* k stays the constant: it fits one unrolled step of the kernel, so there is no loop to unroll
     * and no tail (4x4x4: 0.85x the time with k left to run time) */
@>)m4_dnl
    if (tki_gemm_f32_tile1_<@@>TKM_CPU<@@>m4_ifelse($8, 0, <@_$1@>)(cfg, &g, 0, $2, 0, $3)) return 1;
    /* a one-tile shape only misses the single-tile path when an operand is transposed: leave that
     * to the generic driver, so this instance stays a single kernel call (no frame, no spills) */
    if ($2 <= cfg->mr && $3 <= (size_t)cfg->nv * (tkm_vl_f32) && $4 <= cfg->kc && cfg->ukr_direct) return 0;
m4_ifelse($8, 0, <@m4_ifelse(_tkm_exact_tiles($2, $5), 1, <@m4_dnl
    if (tki_gemm_f32_tiles_<@@>TKM_CPU<@@>_$1(cfg, &g)) return 1;
@>)@>)m4_dnl
    tki_gemm_f32_blocked_<@@>TKM_CPU<@@>(cfg, &g, 0, $2, 0, $3, ws, ws_floats, 1);
    return 1;
}
TKI_STATIC TKI_UNUSED TKI_FLATTEN TKM_TARGET int tki_gemm_f32_exact_<@@>TKM_CPU<@@>_$1(const tk_gemm_desc *d0, tk_status *st)
{
    return tki_gemm_f32_exact_body_<@@>TKM_CPU<@@>_$1(d0, st);
}
/* Row $1 for the plain call (tk_gemm_f32, neither operand transposed): every argument arrives in a
 * register and the descriptor is built here, so its constant fields (no epilogue, no bias, one
 * part) fold the checks that look at them. A call it turns away (alpha == 0) goes on to the
 * generic driver from here, so the plain entry reaches it by a jump (no frame of its own).
 * Contiguous operands (lda = k, ldb = ldc = n: arrays declared [m][k], [k][n] and [m][n]), the
 * usual case, run here with the leading dimensions constant too: every element the kernel touches
 * is then a fixed offset from its array's base, so the kernel needs no row pointers, no address
 * arithmetic and no frame (16x16x16 on the Sapphire Rapids: 46 -> 38 ns a call). Other leading
 * dimensions jump to their own instance first thing: with that instance's body here, its frame
 * (stack realigned, six registers saved) was built before the test. (A third function for the
 * contiguous case, reached by a second jump, ran 4x4x4 at 4.30 ns a call against 4.22.) */
TKI_STATIC TKI_UNUSED TKI_FLATTEN TKM_TARGET tk_status tki_gemm_f32_exactld_<@@>TKM_CPU<@@>_$1(float alpha, const float *a, size_t lda,
        const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
_tkm_exactnn_body($1, $2, $3, $4, lda, ldb, ldc)}
TKI_STATIC TKI_UNUSED TKI_FLATTEN TKM_TARGET tk_status tki_gemm_f32_exactnn_<@@>TKM_CPU<@@>_$1(float alpha, const float *a, size_t lda,
        const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    if (lda != $4 || ldb != $3 || ldc != $3) return tki_gemm_f32_exactld_<@@>TKM_CPU<@@>_$1(alpha, a, lda, b, ldb, beta, c, ldc);
    {
_tkm_exactnn_body($1, $2, $3, $4, $4, $3, $3)    }
}
m4_define(<@TKM_EXACT_CASES@>, m4_defn(<@TKM_EXACT_CASES@>)<@    case $1: return tki_gemm_f32_exact_<@@>TKM_CPU<@@>_$1(d, st);
@>)m4_dnl
m4_ifelse(m4_defn(<@TKM_EXACTNN_FIRST@>), <@@>, <@m4_dnl
m4_define(<@TKM_EXACTNN_FIRST@>, <@        _tkm_exactnn_if($1, $2, $3, $4)
@>)@>, <@m4_dnl
m4_define(<@TKM_EXACTNN_TESTS@>, m4_defn(<@TKM_EXACTNN_TESTS@>)<@            _tkm_exactnn_if($1, $2, $3, $4)
@>)@>)m4_dnl
m4_define(<@TKM_EXACTNN_HASHES@>, m4_defn(<@TKM_EXACTNN_HASHES@>)<@ | (uint64_t)1 << @>m4_eval((_tkm_exact_hash($2 % 64, $3 % 64, $4 % 64)) % 64))m4_dnl
m4_define(<@TKM_EXACT_SHAPES@>, m4_defn(<@TKM_EXACT_SHAPES@>)<@ X($2, $3, $4)@>)@>)

m4_define(<@tkm_gemm_exact_end@>, <@m4_dnl
/* Every exact-shape row's (m, n, k), for tests and tools. */
#define TKI_GEMM_F32_EXACT_SHAPES_<@@>TKM_CPU<@@>(X)<@@>TKM_EXACT_SHAPES

/* 0 when (m, n, k) is the shape of no exact-shape row: its hash, (m + 3n + 5k) mod 64, is none of
 * theirs. The plain entry tests the rows after its first only when this says 1. */
static inline TKI_ALWAYS_INLINE TKI_UNUSED int tki_gemm_f32_exact_hashed_<@@>TKM_CPU<@@>(size_t m, size_t n, size_t k)
{
    return (int)((((uint64_t)0<@@>TKM_EXACTNN_HASHES) >> ((_tkm_exact_hash(m, n, k)) & 63)) & 1);
}

/* The exact-shape instance of row idx, if it has one (it sets *st); 0 when the generic entry must run.
 * No target attribute: it only calls, and so it inlines into the entry, leaving one call. */
static inline int tki_gemm_f32_exact_<@@>TKM_CPU<@@>(int idx, const tk_gemm_desc *d, tk_status *st)
{
    (void)d; (void)st;
    switch (idx) {
TKM_EXACT_CASES<@@>    default: return 0;
    }
}

@>)

m4_define(<@tkm_gemm_entry@>, <@m4_dnl


/* Everything but the exact-shape instances: validate, then compute; C is untouched on error. cfg is
 * the row of d's shape, from the caller, which needed it for the exact rows: the tree is walked once
 * per call (a second walk cost a few ns, on calls of 15-80 ns); or the tuner's candidate. With alpha == 0 the check zeroes k,
 * and the row of the real k still serves: k == 0 only scales C. It carries the CPU's target
 * attributes, so that the single-tile path inlines into it and the plain entry's slow path (also
 * compiled for the CPU), which inlines it in turn, keeps the descriptor it builds and the checked
 * arguments in registers: with the single-tile path out of line both lay in memory, about 40
 * stores and loads a call (5x5x5 23.2 -> 20.6 ns, 10x10x10 47.0 -> 43.6 ns on the Zen 4). */
static inline TKI_UNUSED TKM_TARGET tk_status tki_gemm_f32_generic_<@@>TKM_CPU<@@>(const tk_gemm_desc *d,
                                                                                 const tki_gemm_cfg *cfg)
{
    tki_gemm_args g, gp;
    int nothing;
    float *ws = NULL; /* set by tki_gemm_f32_ws_pick before the blocked loops run */
    size_t ws_floats = 0;
    tk_status st;
    /* here, not only in tki_gemm_check: gcc 12 at -O1 (aarch64) otherwise sees a path on which g is
     * never filled, and warns that it may be used uninitialized */
    if (!d) return TK_ERR_NULL;
    st = tki_gemm_check(d, &g, &nothing);
    if (st != TK_OK || nothing) return st;
    /* A caller's workspace is checked first, whatever runs. Without one, a call that one direct
     * tile covers (operands in place) needs none and runs before the static buffer is looked at. */
    if (d->workspace && (st = tki_gemm_f32_ws_pick_<@@>TKM_CPU<@@>(cfg, d, &g, &ws, &ws_floats)) != TK_OK) return st;
    if (d->nparts <= 1 && tki_gemm_f32_tile1_<@@>TKM_CPU<@@>(cfg, &g, 0, g.m, 0, g.n)) return TK_OK;
    /* the blocked loops take a copy: g's address taken would keep g in memory on the path above */
    gp = g;
    if (!d->workspace && (st = tki_gemm_f32_ws_pick_<@@>TKM_CPU<@@>(cfg, d, &gp, &ws, &ws_floats)) != TK_OK) return st;
    tki_gemm_f32_part_<@@>TKM_CPU<@@>(cfg, &gp, d->part, d->nparts ? d->nparts : 1, ws, ws_floats);
    return TK_OK;
}

/* The descriptor entry's call once its row is known (idx, configuration cfg): a whole call whose
 * shape has an exact-shape row runs that row's instance; everything else the generic driver. */
static inline TKI_ALWAYS_INLINE TKI_UNUSED tk_status tki_gemm_f32_ex_row_<@@>TKM_CPU<@@>(const tk_gemm_desc *d, int idx,
                                                                                   const tki_gemm_cfg *cfg)
{
    tk_status st;
    if (d->nparts <= 1 && tki_gemm_f32_exact_<@@>TKM_CPU<@@>(idx, d, &st)) return st;
    return tki_gemm_f32_generic_<@@>TKM_CPU<@@>(d, cfg);
}

/* The descriptor entry for this CPU (tk_gemm_f32_ex; ex_entry below is its way in) */
static inline TKI_UNUSED tk_status tki_gemm_f32_ex_<@@>TKM_CPU<@@>(const tk_gemm_desc *d)
{
    int idx;
    if (!d) return TK_ERR_NULL;
    idx = tki_gemm_f32_select_<@@>TKM_CPU<@@>(d->m, d->n, d->k);
    return tki_gemm_f32_ex_row_<@@>TKM_CPU<@@>(d, idx, &tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>()[idx]);
}

/* The generic driver for a plain call, with configuration cfg (its row's, or the tuner's candidate):
 * a call of more than one tile, an exact row's call turned away. Out of line: its descriptor lives
 * in memory (the blocked loops take its address) and its frame is large, which the small calls that
 * stop before it must not pay for. It names no row, so a literal shape's call reaches it without
 * the table (tki_gemm_f32_cfg_row). */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET tk_status tki_gemm_f32_desc_generic_<@@>TKM_CPU<@@>(tk_trans transa, tk_trans transb,
        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
        float *c, size_t ldc, const tki_gemm_cfg *cfg)
{
    tk_gemm_desc d;
    tki_gemm_desc_plain(&d, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return tki_gemm_f32_generic_<@@>TKM_CPU<@@>(&d, cfg);
}

/* The plain entry's way for what neither an exact-shape instance nor the single-tile path below
 * takes: a transposed call goes to the descriptor instance of its exact row, if it has one (they
 * handle transposes), everything else to the generic driver. cfg: row idx's configuration. Inlined
 * into plain_generic, and into a literal shape's call (plain_body), where idx is a constant and the
 * instances' switch folds. */
static inline TKI_ALWAYS_INLINE TKI_UNUSED tk_status tki_gemm_f32_plain_generic_body_<@@>TKM_CPU<@@>(tk_trans transa,
        tk_trans transb, size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b,
        size_t ldb, float beta, float *c, size_t ldc, const tki_gemm_cfg *cfg, int idx)
{
    if (!(transa == TK_NO_TRANS && transb == TK_NO_TRANS)) {
        tk_gemm_desc d;
        tk_status st;
        tki_gemm_desc_plain(&d, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        if (tki_gemm_f32_exact_<@@>TKM_CPU<@@>(idx, &d, &st)) return st;
    }
    return tki_gemm_f32_desc_generic_<@@>TKM_CPU<@@>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, cfg);
}
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET tk_status tki_gemm_f32_plain_generic_<@@>TKM_CPU<@@>(tk_trans transa, tk_trans transb,
        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
        float *c, size_t ldc, const tki_gemm_cfg *cfg, int idx)
{
    return tki_gemm_f32_plain_generic_body_<@@>TKM_CPU<@@>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                                       cfg, idx);
}

/* An untransposed plain call of several tiles that the sweeps run one after another (one column
 * tile, one row tile, or the row's order 'm'; A and B in place, k one block): validated and run as
 * the partition would after the generic driver's descriptor, workspace and frame (17x19x23 on the Sapphire
 * Rapids: 139 ns a call that way, its two tiles' kernel calls alone 126). Under TKI_B_COPY_MIN_M
 * rows, where the driver never copies B, so it would need no workspace either. Out of line: inlined
 * beside the single-tile path below, it cost that path's calls 4-14% (7x7x7 to 14x14x14, paired
 * runs). Returns 0, having validated the call or not, when the sweeps cannot take it. */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET int tki_gemm_f32_plain_sweeps_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, size_t m,
        size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta, float *c,
        size_t ldc, tk_status *st)
{
    tk_gemm_desc d;
    tki_gemm_args g;
    int nothing;
    tki_gemm_desc_plain(&d, TK_NO_TRANS, TK_NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    *st = tki_gemm_check(&d, &g, &nothing);
    if (*st != TK_OK || nothing) return 1;
    return tki_gemm_f32_sweeps_<@@>TKM_CPU<@@>(cfg, &g, 0, g.m, 0, g.n);
}

/* An untransposed plain call that one direct tile of configuration cfg covers: validated and run
 * with every argument in a register, the descriptor never in memory. Returns 0, having validated
 * nothing, when the single-tile path cannot take the call: the configuration's tests run first on
 * the raw arguments, so a larger call pays a few compares before the generic driver validates it.
 * Inside the generic driver the same single tile cost 5x5x5 24.3 ns a call against 13.1 for an
 * exact-shape instance of the same kernel (the driver's descriptor stores and frame; Zen 4,
 * alternating rounds). A call of several tiles goes to the sweeps above where they can take it.
 * Its configuration a parameter, not a row index, so that the tuner's probe times a candidate the
 * way tk_gemm_f32 runs its row (tune/measure.c): through the partition driver alone, 2x16 kc 16
 * read ahead of 2x64 kc 768 there, and 0.64-0.74x as fast at 2x8x50 and 2x4x100 in make bench. */
static inline TKI_ALWAYS_INLINE TKM_TARGET int tki_gemm_f32_plain_cfg_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, size_t m, size_t n,
        size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta, float *c, size_t ldc,
        tk_status *st)
{
    const size_t nr = (size_t)cfg->nv * (tkm_vl_f32);
    tk_gemm_desc d;
    tki_gemm_args g;
    int nothing;
    /* the single-tile path's and the sweeps' tests that need no validated call (a call of m <= mr
     * rows has the row's kc, tki_gemm_kc; the sweeps test the call's own); alpha == 0 goes on to
     * the generic driver, which scales C, and so does a single tile deeper than kc (which
     * tki_gemm_kc may run in one block: the sweeps take it there, _tkm_tile1_in_place) */
    if (!cfg->ukr_direct || cfg->packb || k == 0 || k > cfg->kc || alpha == 0.0f) return 0;
    if (m > cfg->mr || n > nr)
        return cfg->ukr_sweep && tki_gemm_f32_sweep_order_<@@>TKM_CPU<@@>(cfg, m, n) && m < TKI_B_COPY_MIN_M &&
               tki_gemm_f32_plain_sweeps_<@@>TKM_CPU<@@>(cfg, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, st);
    tki_gemm_desc_plain(&d, TK_NO_TRANS, TK_NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    *st = tki_gemm_check(&d, &g, &nothing);
    if (*st != TK_OK || nothing) return 1;
    return tki_gemm_f32_tile1_<@@>TKM_CPU<@@>(cfg, &g, 0, g.m, 0, g.n);
}

/* An untransposed plain call run with configuration cfg the way the plain entry runs a row (plain_slow
 * below, then plain_generic): the single-tile path or the sweeps, else the generic driver with its
 * checks, descriptor and workspace (the static buffer). The tuner's probe's way in, out of line,
 * from code compiled without this CPU's target attributes. Until session 80 the probe ran what the
 * single tile and the sweeps turn away through the partition alone, without the generic driver's
 * cost, and so overrated k blocks shorter than k at small products: 4 x 9..12 x 1..64 took 4x16
 * kc 16, which ran 4x11x20 at 0.62 and 4x12x40 at 0.77 of the 4x64 kc 1024 before it (spr). */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET tk_status tki_gemm_f32_plain_cfg_call_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg,
        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
        float *c, size_t ldc)
{
    tk_status st;
    if (tki_gemm_f32_plain_cfg_<@@>TKM_CPU<@@>(cfg, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &st)) return st;
    return tki_gemm_f32_desc_generic_<@@>TKM_CPU<@@>(TK_NO_TRANS, TK_NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                                 cfg);
}

/* The plain entry's way for what no exact-shape instance takes (idx: the row, where the caller
 * knows it; -1: find it here): the single-tile path or the sweeps (plain_cfg), else the generic
 * driver out of line. Compiled for the CPU (its target attributes), so that they inline here. */
TKI_STATIC TKI_NOINLINE TKI_UNUSED TKM_TARGET tk_status tki_gemm_f32_plain_slow_<@@>TKM_CPU<@@>(tk_trans transa, tk_trans transb,
        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
        float *c, size_t ldc, int idx)
{
    tk_status st;
    /* an untransposed call comes here only with a shape no exact row has */
    if (idx < 0)
        idx = transa == TK_NO_TRANS && transb == TK_NO_TRANS ? tki_gemm_f32_select_general_<@@>TKM_CPU<@@>(m, n, k)
                                                             : tki_gemm_f32_select_<@@>TKM_CPU<@@>(m, n, k);
    if (transa == TK_NO_TRANS && transb == TK_NO_TRANS &&
        tki_gemm_f32_plain_cfg_<@@>TKM_CPU<@@>(&tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>()[idx], m, n, k, alpha, a, lda, b, ldb, beta, c,
                                           ldc, &st))
        return st;
    return tki_gemm_f32_plain_generic_<@@>TKM_CPU<@@>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                                  &tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>()[idx], idx);
}

/* The plain entry (tk_gemm_f32): an untransposed call whose shape has an exact-shape row goes to
 * that row's plain instance; everything else to the slow path, which walks the tree without the
 * exact rows. Always inlined into tk_gemm_f32's caller: the compares run there, and the instance
 * is called with every argument in a register (through an out-of-line entry, the 13 arguments'
 * stack traffic and the extra call cost 4x4x4 1.39x the direct call's 3.1 ns; inlined, 1.00x).
 * With a literal shape it folds to one call of the instance. The first exact row is tested alone;
 * the others only when a hash of the shape, (m + 3n + 5k) mod 64, is one of theirs: a shape
 * without a row then pays one test and the hash instead of a compare per row (12 rows: 5x5x5
 * 1.055x the chosen driver's time, mostly those compares). The code this adds to a call site
 * is a compare per exact row and a call: keep exact rows few. */
static inline TKI_ALWAYS_INLINE TKI_UNUSED tk_status tki_gemm_f32_plain_body_<@@>TKM_CPU<@@>(tk_trans transa, tk_trans transb,
        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
        float *c, size_t ldc)
{
    if (transa == TK_NO_TRANS && transb == TK_NO_TRANS) {
TKM_EXACTNN_FIRST<@@>m4_ifelse(m4_defn(<@TKM_EXACTNN_TESTS@>), <@@>, <@@>, <@m4_dnl
        if (tki_gemm_f32_exact_hashed_<@@>TKM_CPU<@@>(m, n, k)) {
TKM_EXACTNN_TESTS<@@>        }
@>)m4_dnl
    }
#if defined(TKI_LITERAL_SHAPES)
    /* A literal shape that no exact row took: its row is a constant, and the call names that row's
     * configuration alone (tki_gemm_f32_cfg_row), never the table, so a unit whose calls all have
     * literal shapes compiles only their rows' kernels. An untransposed call runs the way the tuner
     * times a row (plain_cfg_call); a transposed one as plain_generic runs it. */
    if (TKI_CONSTANT_SHAPE(m, n, k)) {
        const int idx = tki_gemm_f32_select_<@@>TKM_CPU<@@>(m, n, k);
        if (transa == TK_NO_TRANS && transb == TK_NO_TRANS)
            return tki_gemm_f32_plain_cfg_call_<@@>TKM_CPU<@@>(tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>(idx), m, n, k, alpha, a, lda, b,
                                                            ldb, beta, c, ldc);
        return tki_gemm_f32_plain_generic_body_<@@>TKM_CPU<@@>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                                           tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>(idx), idx);
    }
#endif
    return tki_gemm_f32_plain_slow_<@@>TKM_CPU<@@>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, -1);
}

/* The plain entry out of line, for a function pointer (the tests call every CPU's entries so). */
TKI_STATIC TKI_NOINLINE TKI_UNUSED tk_status tki_gemm_f32_plain_<@@>TKM_CPU<@@>(tk_trans transa, tk_trans transb, size_t m,
        size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta, float *c,
        size_t ldc)
{
    return tki_gemm_f32_plain_body_<@@>TKM_CPU<@@>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* Parts of d worth running at once, 1 to max_parts: no more than the tiles along the row's split
 * dimension (a part past them gets nothing) and at least TK_GEMM_MIN_PART_FLOPS of work per part
 * (handing work to another thread costs microseconds; below that one thread is faster). */
static inline TKI_UNUSED size_t tki_gemm_f32_parts_cfg_<@@>TKM_CPU<@@>(const tki_gemm_cfg *cfg, const tk_gemm_desc *d,
                                                                      size_t max_parts)
{
    size_t unit, len, parts;
    double by_work;
    if (max_parts <= 1 || d->m == 0 || d->n == 0) return 1;
    unit = cfg->split == 0x6e ? tki_gemm_f32_nr_<@@>TKM_CPU<@@>(cfg) : cfg->mr;
    len = cfg->split == 0x6e ? d->n : d->m;
    parts = tki_min(max_parts, (len + unit - 1) / unit);
    by_work = 2.0 * (double)d->m * (double)d->n * (double)d->k / (double)TK_GEMM_MIN_PART_FLOPS;
    if (by_work < (double)parts) parts = (size_t)by_work;
    return parts ? parts : 1;
}
static inline TKI_UNUSED size_t tki_gemm_f32_parts_<@@>TKM_CPU<@@>(const tk_gemm_desc *d, size_t max_parts)
{
    if (!d) return 1;
    return tki_gemm_f32_parts_cfg_<@@>TKM_CPU<@@>(&tki_gemm_f32_cfgs_<@@>TKM_CPU<@@>()[tki_gemm_f32_select_<@@>TKM_CPU<@@>(d->m, d->n, d->k)],
                                                  d, max_parts);
}

/* The descriptor entries' ways in from tk/gemm.h, always inlined where it is called. A descriptor
 * whose sizes are constants there (filled with literal sizes) has its row chosen at compile time
 * and names that row's configuration alone (tki_gemm_f32_cfg_row), as a plain call of literal shape
 * does (plain_body), so that a unit whose calls all have literal shapes compiles only their rows'
 * kernels; any other call goes to the entries above, and its call site is the call alone: the
 * literal path folds away there (session 82 inlined the entries themselves, and every call site of
 * run-time shape inlined the whole decision tree, 12 KB a tk_gemm_f32_ex call). */
static inline TKI_ALWAYS_INLINE TKI_UNUSED tk_status tki_gemm_f32_ex_entry_<@@>TKM_CPU<@@>(const tk_gemm_desc *d)
{
#if defined(TKI_LITERAL_SHAPES)
    if (d && TKI_CONSTANT_SHAPE(d->m, d->n, d->k)) {
        const int idx = tki_gemm_f32_select_<@@>TKM_CPU<@@>(d->m, d->n, d->k);
        return tki_gemm_f32_ex_row_<@@>TKM_CPU<@@>(d, idx, tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>(idx));
    }
#endif
    return tki_gemm_f32_ex_<@@>TKM_CPU<@@>(d);
}
static inline TKI_ALWAYS_INLINE TKI_UNUSED size_t tki_gemm_f32_workspace_size_entry_<@@>TKM_CPU<@@>(const tk_gemm_desc *d)
{
#if defined(TKI_LITERAL_SHAPES)
    if (d && TKI_CONSTANT_SHAPE(d->m, d->n, d->k))
        return tki_gemm_f32_ws_bytes_<@@>TKM_CPU<@@>(
            tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>(tki_gemm_f32_select_<@@>TKM_CPU<@@>(d->m, d->n, d->k)), d);
#endif
    return tki_gemm_f32_workspace_size_<@@>TKM_CPU<@@>(d);
}
static inline TKI_ALWAYS_INLINE TKI_UNUSED size_t tki_gemm_f32_parts_entry_<@@>TKM_CPU<@@>(const tk_gemm_desc *d,
                                                                                     size_t max_parts)
{
#if defined(TKI_LITERAL_SHAPES)
    if (d && TKI_CONSTANT_SHAPE(d->m, d->n, d->k))
        return tki_gemm_f32_parts_cfg_<@@>TKM_CPU<@@>(
            tki_gemm_f32_cfg_row_<@@>TKM_CPU<@@>(tki_gemm_f32_select_<@@>TKM_CPU<@@>(d->m, d->n, d->k)), d, max_parts);
#endif
    return tki_gemm_f32_parts_<@@>TKM_CPU<@@>(d, max_parts);
}

static inline TKI_UNUSED const char *tki_cpu_name_<@@>TKM_CPU<@@>(void) { return "TKM_CPU_TOKEN"; }

#endif
@>)
m4_divert(0)m4_dnl
