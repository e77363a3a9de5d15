m4_divert(-1)
# tkm.m4 - the m4 helper library every generated header starts from. Run with GNU `m4 -P`.
m4_dnl # Quotes become <@ @> (never valid C), comments are off so `#define` lines expand like any text.
m4_dnl # Template values are TKM_UPPER, helpers tkm_lower; tkgen fails the build if any survive expansion.
m4_changequote(<@,@>)
m4_changecom()

m4_dnl # tkm_error(MESSAGE): print `file:line: MESSAGE` and stop with a failure.
m4_define(<@tkm_error@>, <@m4_errprint(m4___file__:m4___line__: <@$1@>
)m4_m4exit(1)@>)

m4_dnl # tkm_nargs(NAME, EXPECTED, $#): fail loudly when a helper gets the wrong number of arguments.
m4_define(<@tkm_nargs@>, <@m4_ifelse(<@$2@>, <@$3@>, <@@>,
  <@tkm_error(<@$1: expected $2 arguments, got $3@>)@>)@>)

m4_dnl # tkm_for(VAR, FROM, TO, BODY): BODY once for each VAR in FROM..TO (nothing when FROM > TO).
m4_define(<@tkm_for@>, <@tkm_nargs(<@tkm_for@>, 4, $#)m4_ifelse(m4_eval(<@$2 > $3@>), 1, <@@>,
  <@m4_pushdef(<@$1@>, m4_eval(<@$2@>))_tkm_for(<@$1@>, m4_eval(<@$3@>), <@$4@>)m4_popdef(<@$1@>)@>)@>)
m4_define(<@_tkm_for@>, <@$3<@@>m4_ifelse($1, <@$2@>, <@@>,
  <@m4_define(<@$1@>, m4_incr($1))_tkm_for(<@$1@>, <@$2@>, <@$3@>)@>)@>)

m4_dnl # tkm_kloop(STEP): a microkernel's k loop: STEP TKM_KU times per iteration (TKM_U = 1..TKM_KU),
m4_dnl # then once per leftover k (TKM_U = 1). STEP is a macro name; p and k are the kernel's.
m4_define(<@tkm_kloop@>, <@tkm_nargs(<@tkm_kloop@>, 1, $#)m4_dnl
    for (; p < k - k % TKM_KU; p += TKM_KU) {
tkm_for(<@TKM_U@>, 1, TKM_KU, <@$1@>)m4_dnl
    }
_tkm_ktail(<@$1@>)@>)
m4_dnl # _tkm_ktail(STEP): the leftover k steps after an unrolled k loop, one at a time
m4_define(<@_tkm_ktail@>, <@    for (; p < k; p++) {
m4_pushdef(<@TKM_U@>, 1)$1<@@>m4_popdef(<@TKM_U@>)    }
@>)

m4_dnl # tkm_kloop_late(STEP, LATE, FMAS): tkm_kloop, with the statements LATE run once inside it, about FMAS
m4_dnl # multiply-adds (of TKM_MR * TKM_NV per k step) before the unrolled part ends: early enough that
m4_dnl # what LATE fetches arrives before the loop is over, late enough that the loop's own loads
m4_dnl # have not evicted it. A loop shorter than that runs LATE first; one shorter than 32 not at all.
m4_dnl # One loop with a test per unrolled iteration: two loops with LATE between them did no better, and
m4_dnl # a plain copy of the loop for k < 32 made the kernel headers 1.4x slower to compile.
m4_define(<@tkm_kloop_late@>, <@tkm_nargs(<@tkm_kloop_late@>, 3, $#)m4_dnl
m4_pushdef(<@_tkm_late_d@>, m4_eval(TKM_KU * (($3 + TKM_MR * TKM_NV * TKM_KU - 1) / (TKM_MR * TKM_NV * TKM_KU))))m4_dnl
    {
        const size_t kstop = k - k % TKM_KU;
        const size_t late = k < 32 ? (size_t)-1 : kstop > _tkm_late_d ? kstop - _tkm_late_d : 0;
        for (; p < kstop; p += TKM_KU) {
            if (p == late)
$2<@@>m4_dnl
tkm_for(<@TKM_U@>, 1, TKM_KU, <@$1@>)m4_dnl
        }
    }
_tkm_ktail(<@$1@>)m4_dnl
m4_popdef(<@_tkm_late_d@>)@>)

m4_dnl # tkm_pf_suffix(PF): the kernel-name suffix of a B prefetch distance: none for 0 (or none given),
m4_dnl # _pPF otherwise, so a kernel without prefetch keeps the name it had before the decision existed.
m4_define(<@tkm_pf_suffix@>, <@m4_ifelse(<@$1@>, <@@>, <@@>, <@$1@>, 0, <@@>, <@_p$1@>)@>)

m4_dnl # tkm_ukr_name_of(MR, NV, KU, DIRECT, PF): the template's kernel name, packed or direct form.
m4_define(<@tkm_ukr_name_of@>, <@m4_ifelse(<@$4@>, 1, <@tkm_ukr_direct_name($1, $2, $3, $5)@>, <@tkm_ukr_name($1, $2, $3, $5)@>)@>)

m4_dnl # tkm_ukr_once(EMIT, MR, NV, KU, DIRECT, PF): EMIT(NAME, MR, NV, KU, DIRECT, PF) emits a kernel;
m4_dnl # this calls it once per kernel and header, after the narrower kernels of the same rows that the
m4_dnl # kernel's ragged edge calls (tkm_ukr_narrow): a listed tile may be one of them already.
m4_define(<@tkm_ukr_once@>, <@tkm_nargs(<@tkm_ukr_once@>, 6, $#)m4_ifdef(<@_tkm_have_@>tkm_ukr_name_of($2, $3, $4, $5, $6), <@@>,
<@m4_define(<@_tkm_have_@>tkm_ukr_name_of($2, $3, $4, $5, $6))m4_dnl
tkm_for(<@TKM_W@>, 1, $3 - 1, <@tkm_ukr_once(<@$1@>, $2, TKM_W, $4, $5, $6)@>)m4_dnl
$1(tkm_ukr_name_of($2, $3, $4, $5, $6), $2, $3, $4, $5, $6)@>)@>)

m4_dnl # tkm_ukr_direct_ptr(MR, NV, KU, PF): the function a configuration points to for the direct kernel
m4_dnl # MRxNV: the ISA's tkm_ukr_direct_entry_name where it defines one (a kernel's entry for calls
m4_dnl # through a pointer), the kernel itself otherwise.
m4_define(<@tkm_ukr_direct_ptr@>, <@m4_ifdef(<@tkm_ukr_direct_entry_name@>, <@tkm_ukr_direct_entry_name($1, $2, $3, $4)@>, <@tkm_ukr_direct_name($1, $2, $3, $4)@>)@>)

m4_dnl # tkm_ukr_attrs: attributes between a kernel's qualifiers and its return type; none, except in a
m4_dnl # copy of a kernel (the inlined tile of a column sweep, tkm_ukr_sweep; a last row of one,
m4_dnl # tkm_ukr_direct_row1). A template gives a kernel its out-of-line body and entry only where they
m4_dnl # are none: a copy needs neither (a sweep inlines its tile; a last row of one is called itself).
m4_define(<@tkm_ukr_attrs@>, <@@>)

m4_dnl # tkm_ukr_sweep_name(MR, NV, KU, PF): the column sweep of a direct kernel.
m4_define(<@tkm_ukr_sweep_name@>, <@tkm_ukr_direct_name($1, $2, $3, $4)<@@>_sweep@>)

m4_dnl # tkm_ukr_sweep(EMIT, MR, NV, KU, PF): the column sweep of the direct kernel MRxNV (after it):
m4_dnl # one call runs the kernel on every NR-column tile of n columns, left to right, each tile exactly
m4_dnl # as a call of the kernel on it would (same FMAs in the same order). A one-row tile at shallow kc
m4_dnl # spent about 22 ns per call, about a tenth of its time (docs/microkernel.md), so a one-row
m4_dnl # sweep runs its full tiles in an inlined copy of the kernel (EMIT again, always inline) with n
m4_dnl # the constant NR. Tiles of several rows call the kernel, except those of a kernel without
m4_dnl # prefetch (PF 0) for k <= 16: there the call's frame, row pointers and masks, paid per tile,
m4_dnl # weigh on a few k steps, and the inlined copy sets them up once (session 61, spr, alternating
m4_dnl # builds, best of 5: 100x1000x8 1.12x, 300x3000x16 1.09x, 64x4096x8 1.04-1.05x; at k 20-24
m4_dnl # 0.98-1.00x, so not deeper). Prefetching kernels (the decode rows, B streamed from memory) keep
m4_dnl # the call: inlined too, cold 4-row decode lost in the bench (4x4096x4096 0.86x, 4x11008x4096
m4_dnl # 0.77x). The copy is the same code, so a tile sums as the kernel does. (Before session 36 the
m4_dnl # masked B loads of an inlined several-row kernel became FMA memory operands with n constant,
m4_dnl # 4x48 at 4x4096x4096: 0.82x; its whole vectors are plain loads since.)
m4_dnl # The tiles it calls go through the kernel's entry (tkm_ukr_direct_ptr), the function a
m4_dnl # configuration points to, so that no further copy of the kernel's body is compiled for the
m4_dnl # sweep: where an ISA gives its kernels an entry and an out-of-line body (x86 AVX-512), the sweep
m4_dnl # calling the kernel by name had GCC emit the whole kernel once more, out of line, beside that
m4_dnl # body (session 63: a unit including tk/gemm.h for spr held 98 such copies, 0.6 of its 2.4 MB
m4_dnl # of code). A template may define tkm_ukr_sweep_out_of_line(MR) as 1 for tiles whose kernel
m4_dnl # the sweep must call out of line whatever GCC's inliner would decide: a kernel whose entry is
m4_dnl # the kernel itself is then called through a noinline wrapper (NAME_call).
m4_define(<@tkm_ukr_sweep@>, <@tkm_nargs(<@tkm_ukr_sweep@>, 5, $#)m4_ifdef(<@_tkm_have_@>tkm_ukr_sweep_name($2, $3, $4, $5), <@@>,
<@m4_define(<@_tkm_have_@>tkm_ukr_sweep_name($2, $3, $4, $5))m4_dnl
m4_pushdef(<@_tkm_sweep_ool@>, m4_ifdef(<@tkm_ukr_sweep_out_of_line@>, <@tkm_ukr_sweep_out_of_line($2)@>, 0))m4_dnl
m4_dnl # the sweep's whole tiles through an inlined copy: one-row tiles, and shallow ones without prefetch
m4_pushdef(<@_tkm_sweep_inline@>, m4_eval($2 == 1 || (m4_ifelse($5, 0, 1, 0) && !_tkm_sweep_ool)))m4_dnl
m4_pushdef(<@_tkm_sweep_tile@>, <@tkm_ukr_direct_name($2, $3, $4, $5)<@@>_tile@>)m4_dnl
m4_dnl # the noinline wrapper: where the template asks for a call out of line and the entry is the kernel
m4_pushdef(<@_tkm_sweep_wrap@>, m4_ifelse(_tkm_sweep_ool/tkm_ukr_direct_ptr($2, $3, $4, $5), 1/tkm_ukr_direct_name($2, $3, $4, $5), 1, 0))m4_dnl
m4_pushdef(<@_tkm_sweep_call@>, m4_ifelse(_tkm_sweep_wrap, 1, <@tkm_ukr_direct_name($2, $3, $4, $5)<@@>_call@>, <@tkm_ukr_direct_ptr($2, $3, $4, $5)@>))m4_dnl
m4_ifelse(_tkm_sweep_inline, 1, <@m4_pushdef(<@tkm_ukr_attrs@>, <@TKI_ALWAYS_INLINE @>)m4_dnl
$1(_tkm_sweep_tile, $2, $3, $4, 1, $5)m4_dnl
m4_popdef(<@tkm_ukr_attrs@>)@>)m4_dnl
m4_ifelse(_tkm_sweep_wrap, 1, <@m4_dnl
/* the kernel called out of line, as the template asks for tiles of these rows */
TKI_STATIC TKI_NOINLINE TKM_TARGET void _tkm_sweep_call<@@>(TKI_UKR_PARAMS)
{
    tkm_ukr_direct_name($2, $3, $4, $5)(k, a, b, ldb, c, ldc, m, n, aux);
}
@>)m4_dnl
static inline TKM_TARGET void tkm_ukr_sweep_name($2, $3, $4, $5)(TKI_UKR_PARAMS)
m4_ifelse($2, 1, <@m4_dnl
_tkm_sweep_body($3, _tkm_sweep_tile, _tkm_sweep_call)m4_dnl
@>, _tkm_sweep_inline, 1, <@m4_dnl
_tkm_sweep_body($3, _tkm_sweep_call, _tkm_sweep_call, _tkm_sweep_tile, $2)m4_dnl
@>, <@m4_dnl
_tkm_sweep_body($3, _tkm_sweep_call, _tkm_sweep_call)m4_dnl
@>)m4_dnl
m4_popdef(<@_tkm_sweep_call@>)m4_popdef(<@_tkm_sweep_wrap@>)m4_popdef(<@_tkm_sweep_tile@>)m4_popdef(<@_tkm_sweep_inline@>)m4_popdef(<@_tkm_sweep_ool@>)m4_dnl
@>)@>)

m4_dnl # _tkm_sweep_body(NV, WHOLE, LAST[, SHALLOW, MR]): a column sweep's body: WHOLE on each whole tile
m4_dnl # of NV vectors, left to right (SHALLOW instead when given, k <= 16 and the tile has all its MR
m4_dnl # rows), then LAST on the ragged tile, if any; each tile's bias from its first column. SHALLOW
m4_dnl # gets m as the constant MR: with m a run-time value its inlined copy tested every row before
m4_dnl # storing it and spilled the sweep's own variables (2000x1500x4 on 6x64, session 66: cmp per
m4_dnl # row among the stores, stack reloads per tile); a sweep of the last, short row tile calls.
m4_define(<@_tkm_sweep_body@>, <@{
    const size_t nr = (size_t)$1 * (tkm_vl_f32);
    tki_ukr_aux tile = *aux;
    size_t j = 0;
m4_ifelse(<@$4@>, <@@>, <@@>, <@m4_dnl
    if (k <= 16 && m == $5)
        for (; j + nr <= n; j += nr) {
            tile.bias = aux->bias ? aux->bias + j : NULL;
            $4<@@>(k, a, b + j, ldb, c + j, ldc, $5, nr, &tile);
        }
@>)m4_dnl
    for (; j + nr <= n; j += nr) {
        tile.bias = aux->bias ? aux->bias + j : NULL;
        $2<@@>(k, a, b + j, ldb, c + j, ldc, m, nr, &tile);
    }
    if (j < n) {
        tile.bias = aux->bias ? aux->bias + j : NULL;
        $3<@@>(k, a, b + j, ldb, c + j, ldc, m, n - j, &tile);
    }
}
@>)

m4_dnl # tkm_ukr_direct_sweep(EMIT, MR, NV, KU, PF): the direct kernel MRxNV (tkm_ukr_once), its column sweep
m4_dnl # and its last row of one (tkm_ukr_direct_row1).
m4_define(<@tkm_ukr_direct_sweep@>, <@tkm_nargs(<@tkm_ukr_direct_sweep@>, 5, $#)m4_dnl
tkm_ukr_once(<@$1@>, $2, $3, $4, 1, $5)tkm_ukr_sweep(<@$1@>, $2, $3, $4, $5)tkm_ukr_direct_row1(<@$1@>, $2, $3, $4, $5)@>)

m4_dnl # tkm_ukr_row1_name(MR, NV, KU, PF), tkm_ukr_row1_sweep_name(MR, NV, KU, PF): the direct kernel MRxNV
m4_dnl # on a last row tile of one row, and its column sweep (a configuration's ukr_row1, ukr_row1_sweep).
m4_define(<@tkm_ukr_row1_name@>, <@tkm_ukr_direct_name($1, $2, $3, $4)<@@>_row1@>)
m4_define(<@tkm_ukr_row1_sweep_name@>, <@tkm_ukr_direct_name($1, $2, $3, $4)<@@>_row1_sweep@>)
m4_dnl # tkm_ukr_direct_row1(EMIT, MR, NV, KU, PF): the direct kernel MRxNV on a last row tile of one row
m4_dnl # (docs/microkernel.md, "A last row of one"): a one-row kernel (EMIT with MR 1) that adds exactly as
m4_dnl # row 0 of the tile does. It keeps the tile's split sums (TKM_SUMS_MR: tkm_ksets counts the tile's
m4_dnl # accumulators, not its own) and narrows a ragged edge to the tile's narrower kernels, called on
m4_dnl # one row at their MR rows' cost; the rest of what differs from the tile (fetching C, the k loop
m4_dnl # without a late fetch, registers) moves no sum. Until session 63 it was the tile's kernel
m4_dnl # inlined (flatten) with m = 1, leaving the compiler to drop the other rows: the same sums, but
m4_dnl # a unit calling tk_gemm_f32 for spr took 73 and 65 s to compile at -O2 against 59 and 54 now
m4_dnl # (alternating; its code 1.95 -> 1.76 MB). test_ukr checks every one against its tile on one
m4_dnl # row, bit for bit. A one-row kernel is its own.
m4_define(<@tkm_ukr_direct_row1@>, <@tkm_nargs(<@tkm_ukr_direct_row1@>, 5, $#)m4_ifdef(<@_tkm_have_@>tkm_ukr_row1_name($2, $3, $4, $5), <@@>,
<@m4_define(<@_tkm_have_@>tkm_ukr_row1_name($2, $3, $4, $5))m4_dnl
m4_ifelse($2, 1, <@m4_dnl
#define tkm_ukr_row1_name($2, $3, $4, $5) tkm_ukr_direct_name($2, $3, $4, $5)
#define tkm_ukr_row1_sweep_name($2, $3, $4, $5) tkm_ukr_sweep_name($2, $3, $4, $5)
@>, <@m4_dnl
/* the kernel above on a last row tile of one row, its sums as the tile's row 0 (gen/tkm.m4) */
m4_pushdef(<@TKM_SUMS_MR@>, $2)m4_pushdef(<@tkm_ukr_attrs@>, <@TKI_UNUSED @>)m4_dnl
$1(tkm_ukr_row1_name($2, $3, $4, $5), 1, $3, $4, 1, $5)m4_dnl
m4_popdef(<@tkm_ukr_attrs@>)m4_popdef(<@TKM_SUMS_MR@>)m4_dnl
/* and on every column tile of one row, each as the kernel's sweep runs it */
TKI_STATIC TKI_UNUSED TKM_TARGET void tkm_ukr_row1_sweep_name($2, $3, $4, $5)(TKI_UKR_PARAMS)
_tkm_sweep_body($3, tkm_ukr_row1_name($2, $3, $4, $5), tkm_ukr_row1_name($2, $3, $4, $5))m4_dnl
@>)@>)@>)

m4_dnl # tkm_ukr_pf_args(NAME, $#, $4): the prefetch distance of a kernel macro called with MR, NV, KU
m4_dnl # and an optional PF (0 when absent); other argument counts stop with an error.
m4_define(<@tkm_ukr_pf_args@>, <@m4_ifelse(<@$2@>, 3, 0, <@$2@>, 4, <@$3@>,
  <@tkm_error(<@$1: expected 3 or 4 arguments, got $2@>)@>)@>)

m4_dnl # tkm_ukr_narrow(LANES): the start of a kernel of TKM_NV > 1 vectors of LANES floats: a column
m4_dnl # tile that needs fewer vectors goes to the kernel of that many (same rows, unroll, form and
m4_dnl # prefetch distance).
m4_dnl # Masked vectors cost what full ones do: 6x64 at n = 67 computed 128 columns for 67.
m4_define(<@tkm_ukr_narrow@>, <@tkm_nargs(<@tkm_ukr_narrow@>, 1, $#)_tkm_ukr_narrow_to($1, <@tkm_ukr_name_of@>)@>)
m4_dnl # _tkm_ukr_narrow_to(LANES, NAMEOF): the same, calling NAMEOF(MR, W, KU, DIRECT, PF); the MR is the
m4_dnl # tile's (_tkm_sums_mr) in a last row of one (tkm_ukr_direct_row1)
m4_define(<@_tkm_ukr_narrow_to@>, <@m4_ifelse(m4_eval(TKM_NV > 1), 1, <@m4_dnl
    if (n <= m4_eval((TKM_NV - 1) * $1)) {
        switch ((n + m4_eval($1 - 1)) / $1) {
        case 0: return; /* no columns: the body would store its whole vectors */
tkm_for(<@TKM_W@>, 1, TKM_NV - 1, <@        case TKM_W: $2(_tkm_sums_mr, TKM_W, TKM_KU, TKM_DIRECT, TKM_PF)(k, a, b, ldb, c, ldc, m, n, aux); return;
@>)m4_dnl
        default: break;
        }
    }
@>)@>)

m4_dnl # tkm_prefetch_b(FLOATS): inside a k step, a prefetch of each 64-byte line of the FLOATS floats of
m4_dnl # B that the step TKM_PF steps later reads (B rows are ldb apart), into L1; where TKM_PF is nL (the
m4_dnl # table's token), of the FLOATS floats L lines further along the row this step reads, into L2;
m4_dnl # nothing when TKM_PF is 0. Where B streams from memory, the loads of a many-row tile wait behind
m4_dnl # its FMAs, and the FMAs of a few k steps fill the scheduler: few B lines are in flight. A prefetch
m4_dnl # retires without waiting, so it keeps the misses going (docs/microkernel.md). Along the row, each
m4_dnl # of the kc rows a column sweep interleaves is fetched a few tiles ahead, as a lone stream would
m4_dnl # be by the hardware (on a Zen 4, 16x4096x4096 cold: 4x96 pf 8 kc 512 ran 44-52 GFLOP/s, n32
m4_dnl # 68-75; into L1 the lines evicted the tile's own). The last float's line is fetched too: where ldb
m4_dnl # is no multiple of 16 the rows are not 64-byte aligned, and FLOATS floats span one line more
m4_dnl # than FLOATS / 16; left to a demand miss on every row, that line halved the rate (3x725x1448 cold
m4_dnl # on the Zen 5, 4x48 pf 8 kc 1024: 23 GFLOP/s, against 50 at n = 720). Only then: on aligned
m4_dnl # rows it is the line before it again (4x4096x4096 read 0.87x with it issued anyway, once).
m4_define(<@tkm_prefetch_b@>, <@tkm_nargs(<@tkm_prefetch_b@>, 1, $#)m4_ifelse(TKM_PF, 0, <@@>, m4_substr(TKM_PF, 0, 1), n,
<@_tkm_prefetch_b_at(m4_eval(m4_substr(TKM_PF, 1) * 16), 2, $1)@>, <@_tkm_prefetch_b_at(<@TKM_PF * ldb@>, 3, $1)@>)@>)
m4_dnl # _tkm_prefetch_b_at(OFFSET, LOCALITY, FLOATS): the prefetches of tkm_prefetch_b, FLOATS floats at b + OFFSET
m4_define(<@_tkm_prefetch_b_at@>, <@m4_dnl
tkm_for(<@TKM_PFO@>, 0, ($3 - 1) / 16, <@            __builtin_prefetch((const char *)(b + $1 + m4_eval(TKM_PFO * 16)), 0, $2);
@>)            if ((uintptr_t)(b + $1) & 63) __builtin_prefetch((const char *)(b + $1 + m4_eval($3 - 1)), 0, $2);
@>)

m4_dnl # tkm_fetch_c(LANES, LOCALITY): statements that fetch the lines of the tile's m rows of C (TKM_NV
m4_dnl # vectors of LANES floats each), `__builtin_prefetch` LOCALITY 3 into L1, 2 into L2, for a kernel that
m4_dnl # touches C only after its k loop: the x86 kernels fetch into L2 before it and into L1 inside it
m4_dnl # (tkm_kloop_late; docs/microkernel.md, "Fetching C"). A loop over the rows (not unrolled: its
m4_dnl # count is not a constant) keeps the compiler from holding MR*NV row addresses in registers across
m4_dnl # the k loop, which made it spill accumulators.
m4_define(<@tkm_fetch_c@>, <@tkm_nargs(<@tkm_fetch_c@>, 2, $#)m4_dnl
            {
                const float *cp = c;
                size_t i;
                for (i = 0; i < m; i++, cp += ldc) {
tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@                    __builtin_prefetch((const char *)(cp + m4_eval(TKM_V * $1)), 0, $2);
@>)m4_dnl
                }
            }
@>)

m4_dnl # tkm_acc(I, V): the name of accumulator row I, vector V.
m4_define(<@tkm_acc@>, <@c$1_$2@>)

m4_dnl # Split sums. A k step adds one product into each of a tile's TKM_MR * TKM_NV accumulators, and an
m4_dnl # accumulator's next multiply-add waits for its last: a tile of fewer accumulators than the core
m4_dnl # keeps multiply-adds in flight (its issue rate times its latency: CHAINS) runs at its chains'
m4_dnl # latency, not at the FMA rate. An ISA template that defines tkm_ksplit as `CHAINS, VREGS, PERV' has
m4_dnl # such a kernel keep tkm_ksets_for(MR, NV, KU) sets of accumulators: the least power of two that
m4_dnl # gives CHAINS chains or more, at most KU, and no more accumulators than leave the broadcast and
m4_dnl # PERV registers per vector of B (the vector, and its mask where masks are vectors) a register of
m4_dnl # the VREGS: a spill in the loop costs more than the chains gain (AVX2's 1x48 in two sets, 12
m4_dnl # accumulators and 6 B vectors in 16 registers, ran 0.93-0.96x). Step TKM_U of an unrolled group adds into set (TKM_U - 1) mod SETS
m4_dnl # (tkm_kacc), a tail step into set 0, and after the k loop the sets are added pairwise into set 0
m4_dnl # (tkm_kfold). The count depends on the kernel alone, so a tile's sums do not depend on the call
m4_dnl # it serves, and a last row of one runs the tile's own code (tkm_ukr_direct_row1).
m4_define(<@tkm_ksets_for@>, <@m4_ifdef(<@tkm_ksplit@>, <@_tkm_ksets_from(1, m4_eval($1 * $2), $3, $2, tkm_ksplit)@>, <@1@>)@>)
m4_dnl # _tkm_ksets_from(SETS, ACC, KU, NV, CHAINS, VREGS, PERV): SETS doubled while it may be
m4_define(<@_tkm_ksets_from@>, <@m4_ifelse(m4_eval($2 * $1 < $5 && $1 * 2 <= $3 && $2 * $1 * 2 + $7 * $4 + 1 <= $6), 1, <@_tkm_ksets_from(m4_eval($1 * 2), $2, $3, $4, $5, $6, $7)@>, <@$1@>)@>)
m4_dnl # tkm_ksets: the sets of the kernel being emitted (TKM_MR, TKM_NV, TKM_KU); a last row of one
m4_dnl # (tkm_ukr_direct_row1) keeps its tile's, counted for TKM_SUMS_MR rows (_tkm_sums_mr)
m4_define(<@tkm_ksets@>, <@tkm_ksets_for(_tkm_sums_mr, TKM_NV, TKM_KU)@>)
m4_dnl # _tkm_sums_mr: the rows whose accumulators set the split sums and the narrower kernels of the
m4_dnl # kernel being emitted: TKM_SUMS_MR where a last row of one defines it, TKM_MR otherwise
m4_define(<@_tkm_sums_mr@>, <@m4_ifdef(<@TKM_SUMS_MR@>, <@TKM_SUMS_MR@>, <@TKM_MR@>)@>)
m4_dnl # tkm_acc_set(S): accumulator row TKM_I, vector TKM_V of set S (set 0 has tkm_acc's own name)
m4_define(<@tkm_acc_set@>, <@tkm_acc(TKM_I, TKM_V)<@@>m4_ifelse(<@$1@>, 0, <@@>, <@_s$1@>)@>)
m4_dnl # tkm_kacc(SETS): the accumulator (row TKM_I, vector TKM_V) that k step TKM_U adds into
m4_define(<@tkm_kacc@>, <@tkm_acc_set(m4_eval((TKM_U - 1) % ($1)))@>)
m4_dnl # tkm_kfold(SETS, ADD): statements that add the SETS sets into set 0, halves first; ADD(X, Y) is
m4_dnl # the template's vector sum (it may read TKM_V). Only after an unrolled step: with k < TKM_KU the
m4_dnl # other sets hold zeros, and adding them put a vector add on every sum's path for nothing (7x7x7
m4_dnl # at KU 8, 0.96-0.99x the time before split sums).
m4_define(<@tkm_kfold@>, <@tkm_nargs(<@tkm_kfold@>, 2, $#)m4_ifelse(m4_eval(($1) > 1), 1, <@    if (k >= TKM_KU) {
_tkm_kfold(m4_eval(($1) / 2), <@$2@>)    }
@>)@>)
m4_define(<@_tkm_kfold@>, <@m4_ifelse(m4_eval($1 >= 1), 1, <@m4_dnl
tkm_for(<@TKM_S@>, 0, $1 - 1, <@tkm_for(<@TKM_I@>, 0, TKM_MR - 1, <@tkm_for(<@TKM_V@>, 0, TKM_NV - 1, <@    tkm_acc_set(TKM_S) = $2(tkm_acc_set(TKM_S), tkm_acc_set(m4_eval(TKM_S + $1)));
@>)@>)@>)m4_dnl
_tkm_kfold(m4_eval($1 / 2), <@$2@>)@>)@>)
m4_divert(0)m4_dnl
