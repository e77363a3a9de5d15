/* model.c - see model.h. The loop nest it models is templates/gemm-f32-blocked.h.m4:
 *   level 3 (threads, then jc by nc and pc by kc): pack a kc x nc block of B, from DRAM;
 *   level 2 (ic by mc): pack an mc x kc block of A, from DRAM, into L2;
 *   level 1 (the tiles of the block): each microkernel call loads its B micro-panel (from L3, where
 *            the B block lives) and its A micro-panel (from L2), and reads and writes its C tile;
 *   level 0: the microkernel itself, profiled (ukr_gflops), never modelled. */
#include "model.h"

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

int model_fits(const model_machine *h, const model_config *c)
{
    const double f = 4.0;
    return c->mr && c->nr && c->kc && c->mc % c->mr == 0 && c->nc % c->nr == 0 &&
           (double)c->mr * c->kc * f <= h->l1_bytes &&            /* level 1: A micro-panel in L1, */
           (double)c->kc * c->nr * f <= h->l2_bytes / 4 &&         /* B micro-panel streams from L2 */
           (double)c->mc * c->kc * f <= h->l2_bytes &&             /* level 2: A block in L2 */
           (double)c->kc * c->nc * f <= h->l3_bytes;               /* level 3: B block in L3 */
}

double model_time(const model_machine *h, const model_config *c, double m, double n, double k)
{
    const double f = 4.0;
    const unsigned p = c->threads ? c->threads : 1;
    if (!model_fits(h, c) || c->ukr_gflops <= 0) return INFINITY;
    if (m <= 0 || n <= 0 || k <= 0) return h->launch;
    /* eqs. 6-7: the partition gives each thread whole tiles of the split dimension and every thread
     * runs the same loop nest on its share, so the time is that of the largest share */
    if (c->split == 'm') m = cdiv(cdiv(m, c->mr), p) * c->mr;
    else n = cdiv(cdiv(n, c->nr), p) * c->nr;
    const double kc = fmin((double)c->kc, k), mc = fmin((double)c->mc, cdiv(m, c->mr) * c->mr);
    const double nc = fmin((double)c->nc, cdiv(n, c->nr) * c->nr);
    /* level 0 (eq. 3, profiled): one microkernel call over a kc-deep tile */
    const double t0 = 2.0 * c->mr * c->nr * kc / (c->ukr_gflops * 1e9);
    /* level 1 (eqs. 4-5): the tiles of one mc x nc block, in sequence */
    const double tiles1 = cdiv(mc, c->mr) * cdiv(nc, c->nr);
    const double load1 = transfer((double)c->nr * kc * f, h->lat_l3, h->bw_l3) / cdiv(mc, c->mr) +
                         transfer((double)c->mr * kc * f, h->lat_l2, h->bw_l2);
    /* each call reads its C tile (beta 1 after the first k block) and writes it back, from where the
     * mc x nc block of C lives, and the kernel waits for it: a cost per tile, not overlapped (charged
     * once per block, as before, made the model blind to it and pick kc 64 over kc 512 at 1024^3,
     * where measured back to back kc 512 is 10% faster) */
    const int c_in_l2 = mc * nc * f <= h->l2_bytes / 2;
    const double ctile = transfer(2.0 * c->mr * c->nr * f, c_in_l2 ? h->lat_l2 : h->lat_l3, c_in_l2 ? h->bw_l2 : h->bw_l3);
    const double t1 = temporal(tiles1, load1, t0 + ctile, 0.0);
    /* level 2: the ic loop, each step packing (or streaming) an A block from memory */
    const double iters2 = cdiv(m, mc);
    const double load2 = transfer(mc * kc * f * (c->pack_a ? 2.0 : 1.0), h->lat_dram, h->bw_dram);
    const double t2 = temporal(iters2, load2, t1, 0.0);
    /* level 3: the jc and pc loops, each step packing (or streaming) a kc x nc block of B */
    const double jc = cdiv(n, nc), pc = cdiv(k, kc);
    const double load3 = transfer(kc * nc * f * (c->pack_b ? 2.0 : 1.0), h->lat_dram, h->bw_dram);
    const double t3 = temporal(jc * pc, load3, t2, 0.0);
    return h->launch + t3; /* eq. 8 */
}
