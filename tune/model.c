/* model.c - see model.h. The loop nest it models is templates/gemm-f32-blocked.h.m4:
 *   level 3 (threads, then jc by nc and pc by kc): pack a kc x nc block of B (or read B in place);
 *   level 2 (ic by mc): pack an mc x kc block of A into L2 (or read A in place);
 *   level 1 (the tiles of the block): each microkernel call loads its B micro-panel and its A
 *            micro-panel and reads and writes its C tile;
 *   level 0: the microkernel itself, profiled (ukr_gflops), never modelled.
 * Each loop ends with a shorter step when its bound is not a multiple of its block; operands come
 * from the smallest cache level that holds them all (docs/tuner.md, "The model"). */
#include "model.h"
#include "../gen/tkio.h" /* TKT_PF_ALONG: a model_config's pf that prefetches along the rows */
#include "tk/internal.h" /* tki_kc_b_in_place: the driver's own rule for the depth of B read in place */

#include <math.h>

static double cdiv(double a, double b) { return ceil(a / b); }

/* eq. 2 */
static double transfer(double bytes, double latency, double bandwidth)
{
    return bytes > 0 ? latency + bytes / bandwidth : 0.0;
}

/* eq. 5: a pipelined loop of `iters` iterations whose loads overlap the previous compute */
static double temporal(double iters, double load, double compute, double store)
{
    if (iters <= 0) return 0.0;
    return load + (iters - 1) * fmax(load, compute) + compute + store;
}

/* copying `bytes` into a packed panel: read from where they live, written at the core's copy rate */
static double pack(const model_machine *h, double bytes, double latency, double bandwidth)
{
    return transfer(bytes, latency, bandwidth) + (h->pack_bw > 0 ? bytes / h->pack_bw : 0.0);
}

/* where a loop's operands come from: that level's bandwidth and latency, and the access streams its
 * prefetchers follow at full rate (0: any) */
typedef struct {
    double bw, lat, streams;
} source;

int model_fits(const model_machine *h, const model_config *c)
{
    const double f = 4.0;
    return c->mr && c->nr && c->kc && c->mc % c->mr == 0 && c->nc % c->nr == 0 &&
           (double)c->mr * c->kc * f <= h->l1_bytes &&            /* level 1: A micro-panel in L1, */
           (double)c->kc * c->nr * f <= h->l2_bytes / 4 &&         /* B micro-panel streams from L2 */
           (double)c->mc * c->kc * f <= h->l2_bytes &&             /* level 2: A block in L2 */
           (double)c->kc * c->nc * f <= h->l3_bytes;               /* level 3: B block in L3 */
}

/* level 1: the tiles of one mcur x ncur block at depth kcur, in sequence (eqs. 4-5). Rows past the
 * shape's edge are computed with the rest of their tile (masked, not skipped); so are its columns,
 * unless the kernels narrow a ragged column tile to the vectors it needs (c->narrow). */
static double level1(const model_machine *h, const model_config *c, double mcur, double ncur, double kcur,
                     double nblock, const source *src)
{
    const double f = 4.0, ti = cdiv(mcur, c->mr), tj = cdiv(ncur, c->nr);
    /* the mean width computed per tile: the last column tile may be narrower */
    const double rest = ncur - (tj - 1) * c->nr;
    double wlast = c->narrow ? fmin((double)c->nr, cdiv(rest, c->narrow) * c->narrow) : c->nr;
    /* ... and its last vector half-width, where the kernels have such a body and the core runs a
     * half-width FMA faster (a Zen 4: 256-bit FMAs at twice the rate of 512-bit ones) */
    if (c->narrow && c->half_nv && h->half > 0 && h->half < 1) {
        const double vlast = cdiv(rest, c->narrow), cols = rest - (vlast - 1) * c->narrow;
        if (vlast <= c->half_nv && 2 * cols <= c->narrow) wlast -= c->narrow * (1 - h->half);
    }
    const double wmean = ((tj - 1) * c->nr + wlast) / tj;
    const double t0 = 2.0 * c->mr * wmean * kcur / (c->ukr_gflops * 1e9) + h->call;
    double load;
    if (c->pack_a) {
        /* B micro-panel from the packed block (L2 when it fits half of it, else L3), reused by the
         * block's row tiles; A micro-panel from the packed A block in L2 */
        const int b_in_l2 = kcur * nblock * f <= h->l2_bytes / 2;
        load = transfer(c->nr * kcur * f, b_in_l2 ? h->lat_l2 : h->lat_l3, b_in_l2 ? h->bw_l2 : h->bw_l3) / ti +
               transfer(c->mr * kcur * f, h->lat_l2, h->bw_l2);
    } else {
        /* read in place: each B micro-panel once per block from where B lives, reused by the row
         * tiles; A micro-panels from L2 after the block's first column of tiles read them. A panel
         * is kcur rows of B, one access stream each (the next panel continues them): past the
         * prefetchers' stream capacity the rows arrive at a fraction of the bandwidth (1 x 4096 x
         * 4096 ran 1.3x faster at kc 8 than at kc 64); a kernel that prefetches B rows itself
         * (c->pf) keeps its own lines in flight past the limit, pf rows of its tile per latency (see
         * below), and a panel as wide as B (one column tile) is its rows back to back, one stream
         * (the limit had the model take kc 64 at 13 x 13 x 2003, at 0.68 of kc 768). Rows out of
         * the L3 have a limit of their own, fitted apart: on a Zen 4 they came soon enough without
         * the prefetchers (one limit for both fitted to none at all, and
         * the model then could not tell a decode kernel that prefetches from one that does not:
         * 0.26-0.38 of the oracle at 2x2003x401 and 5x2801x331 cold); on a Sapphire Rapids-class
         * Xeon (L3 145 ns away) kc 24-32 ran 2-6x faster than kc 512-1024 at 7 x 11008 x 512 and
         * 16 x 4864 x 896 in cache, and the limit there fitted to 64 streams. Until session 36 a
         * prefetching kernel escaped the limit altogether, and the model ranked 13x32 pf8 at kc 512
         * with kc 32-64 at 13 x 1024 x 512 cold; on this Xeon kc 512 ran 41-42 GFLOP/s and kc 32-64
         * 75-78 (its own prefetches, 8 rows of 128 bytes per 191 ns, cover 5.4 of the 12.6 GB/s).
         * On the spr log's groups the first choice rose 0.829 -> 0.841, on that retune's 0.841 ->
         * 0.890, and the warm held-out lists (whose candidates do not prefetch) did not move */
        const int limited = src->streams > 0 && tj > 1 && kcur > src->streams;
        double rows_bw = src->bw;
        if (limited) {
            rows_bw = src->bw * src->streams / kcur;
            /* prefetching along the rows, L lines ahead in each of the kcur rows it reads, it has all of
             * them in flight: kcur * L lines per latency (docs/microkernel.md, "Prefetching B") */
            if (c->pf & TKT_PF_ALONG) rows_bw = fmax(rows_bw, fmin(src->bw, kcur * (c->pf & ~TKT_PF_ALONG) * 64.0 / src->lat));
            else if (c->pf) rows_bw = fmax(rows_bw, fmin(src->bw, c->pf * c->nr * f / src->lat));
        }
        load = transfer(c->nr * kcur * f, src->lat, rows_bw) / ti + transfer(c->mr * kcur * f, h->lat_l2, h->bw_l2) +
               transfer(mcur * kcur * f, src->lat, src->bw) / (ti * tj);
    }
    /* the row tiles after the first find the B micro-panel in L1 only when it fits half of it;
     * otherwise each reads it again from L2 (6x64 at kc 1024 ran at half the rate of 14x32 at kc
     * 384 for 12 x 896 x 4864) */
    if (c->nr * kcur * f > h->l1_bytes / 2) load += transfer(c->nr * kcur * f, h->lat_l2, h->bw_l2) * (ti - 1) / ti;
    /* each call reads its C tile (beta 1 after the first k block) and writes it back, from where the
     * block of C lives, and the kernel waits for it: a cost per tile, not overlapped (charged once
     * per block, the model was blind to it and picked kc 64 over kc 512 at 1024^3, where kc 512 is
     * 10% faster) */
    const int c_in_l2 = mcur * ncur * f <= h->l2_bytes / 2;
    const double ctile = transfer(2.0 * c->mr * c->nr * f, c_in_l2 ? h->lat_l2 : h->lat_l3, c_in_l2 ? h->bw_l2 : h->bw_l3);
    return temporal(ti * tj, load, t0 + ctile, 0.0);
}

/* level 2: the ic loop over m for one kcur x ncur block of B. Packing is work of the core itself,
 * so it adds to the time (read from where A lives, written at the copy rate). */
static double level2(const model_machine *h, const model_config *c, double m, double mc, double ncur, double kcur,
                     double nblock, const source *src)
{
    const double f = 4.0, full = floor(m / mc), rest = m - full * mc;
    const double t1 = full > 0 ? level1(h, c, mc, ncur, kcur, nblock, src) : 0;
    const double t1r = rest > 0 ? level1(h, c, rest, ncur, kcur, nblock, src) : 0;
    if (!c->pack_a) return full * t1 + t1r; /* the tiles' own loads stream A in place */
    return full * (t1 + pack(h, mc * kcur * f, src->lat, src->bw)) +
           (rest > 0 ? t1r + pack(h, rest * kcur * f, src->lat, src->bw) : 0);
}

double model_time(const model_machine *h, const model_config *c, double m, double n, double k)
{
    const double f = 4.0;
    const unsigned p = c->threads ? c->threads : 1;
    if (!model_fits(h, c) || c->ukr_gflops <= 0) return INFINITY;
    if (m <= 0 || n <= 0 || k <= 0) return h->launch;
    /* B read in place or copied: the driver decides on the whole call (tki_gemm_b_in_place; rows
     * n floats apart here, row tiles inner, the order the tuner proposes) */
    const size_t crowd = (size_t)(h->crowd_bytes > 0 ? h->crowd_bytes : h->l2_bytes / 2);
    const int pack_b = c->pack_b || tki_b_copy_pays(c->kc, (size_t)m, c->mr, c->mc, (size_t)n, crowd);
    /* a call of one tile in place runs all of k in one block (tki_gemm_kc) */
    const int whole_k = tki_one_tile_whole_k((size_t)m, (size_t)n, c->mr, c->nr, !c->pack_a, !pack_b);
    /* eqs. 6-7: the partition gives each thread whole tiles of the split dimension and every thread
     * runs the same loop nest on its share, so the time is that of the largest share */
    if (c->split == 'm') m = fmin(m, cdiv(cdiv(m, c->mr), p) * c->mr);
    else n = fmin(n, cdiv(cdiv(n, c->nr), p) * c->nr);
    /* where the operands come from at the start of a call: the smallest level that holds all three
     * (a product run again and again keeps them there; a weight matrix larger than the last-level
     * cache streams from memory each time; c->cold: memory, whatever the size). Charging memory
     * for operands that sit in L2 made the model pay latencies a small product never sees, and
     * favour tall tiles that waste rows. */
    const double foot = c->cold ? INFINITY : (m * k + k * n + m * n) * f;
    /* the blocks: mc rows of A; nc columns of packed B (read in place, B is one block of all n);
     * kc deep. A loop whose bound is not a multiple of its block ends with a shorter step, which
     * costs what it computes (charging it a whole block made the model prefer blocks that happen to
     * divide the shape: kc 128 over kc 256 at k = 600) */
    const double mc = fmin((double)c->mc, m);
    /* A call that reads A and B where they lie finds them in L2, call after call, when B and a
     * block of A fit half of it, although C pushes the footprint past it: a line of C is touched
     * once a call, a panel of B by every row tile, a row of A by every panel. Sent to the L3 with
     * the rest, such a call paid the L3's stream limit on B's rows, and the model preselected the
     * packed forms only (spr, 129..256 x 513..1024 x 33..256: the direct kc 128 row the tuner took
     * then ran 1.04-1.19x the packed one at 196x1024x256 to 150x800x64, session 58) */
    const double reused = (k * n + mc * k) * f;
    const int in_l2 = foot <= h->l2_bytes || (!c->cold && !pack_b && !c->pack_a && reused <= h->l2_bytes / 2);
    const source src = in_l2                 ? (source){h->bw_l2, h->lat_l2, 0}
                       : foot <= h->l3_bytes ? (source){h->bw_l3, h->lat_l3, h->streams_l3}
                                             : (source){h->bw_dram, h->lat_dram, h->streams};
    /* where row tiles reuse a panel of B read in place whose rows crowd the L2's sets, the driver
     * takes shallower blocks, or a direct row at most TKI_B_ROWS_KC deep reads a copy of B's rows
     * (tki_gemm_kc: rows n floats apart here); the model times the depth that runs, B as in place */
    const double kc = whole_k ? k
                              : fmin(pack_b ? (double)c->kc
                                            : (double)tki_kc_b_in_place(c->kc, (size_t)m, c->mr, c->mc, (size_t)n, crowd, !c->pack_a),
                                     k);
    const double nc = pack_b ? fmin((double)c->nc, n) : n;
    const double kfull = floor(k / kc), krest = k - kfull * kc, nfull = floor(n / nc), nrest = n - nfull * nc;
    double t3 = 0;
    /* level 3: the jc loop (full blocks, then the rest) around the pc loop (full depths, then the rest) */
    for (int jn = 0; jn < 2; jn++) {
        const double ncur = jn ? nrest : nc, nsteps = jn ? (nrest > 0) : nfull;
        if (nsteps <= 0) continue;
        double step[2], load[2];
        for (int jk = 0; jk < 2; jk++) {
            const double kcur = jk ? krest : kc;
            step[jk] = kcur > 0 ? level2(h, c, m, mc, ncur, kcur, nc, &src) : 0;
            load[jk] = kcur > 0 ? (pack_b ? pack(h, kcur * ncur * f, src.lat, src.bw) : 0) : 0;
        }
        /* packed B adds its copy to each step; B read in place streams under the tiles */
        t3 += nsteps * (kfull * (step[0] + load[0]) + (krest > 0 ? step[1] + load[1] : 0));
    }
    return h->launch + t3; /* eq. 8 */
}
