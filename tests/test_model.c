/* The tuner's model (tune/model.c, Helix eqs. 1-8): configurations that break a capacity cost
 * infinity; predicted time never beats the profiled microkernel's rate; it grows with every
 * dimension; a faster microkernel, more bandwidth or more threads never make it slower; and two
 * threads on a large shape come close to half the time. Operands that come from memory (cold) never
 * make it faster, and a kernel that prefetches B read in place is never slower than one that does
 * not: past the prefetchers' stream limit it keeps its own lines in flight, and escapes the limit
 * where they cover the bandwidth, not where they fall short (a far L3); the limit for a B in the L3
 * is its own (none unless set). A half-width last vector (where the core runs it at half the cost)
 * lowers the time of exactly the tiles whose last vector it fits, and keeps the time monotonic in n. */
#include "../tune/model.h"
#include "../gen/tkio.h" /* TKT_PF_ALONG */
#include "tktest.h"

int main(void)
{
    model_machine h = {48e3, 2e6, 32e6, 200e9, 100e9, 20e9, 5e-9, 20e-9, 90e-9, 50e-9, 2, 10e-9, 30e9, 32, 0, 0, 0};
    model_config c = {14, 32, 256, 336, 2048, 180.0, 1, 1, 1, 'n', 0, 0, 0, 0};
    model_config nar = c; /* the same kernels, narrowing a ragged column tile to 16-float vectors */
    nar.narrow = 16;
    /* and running its last vector at half width when half-filled, on a core where that costs half */
    model_config hv = nar;
    model_machine hh = h;
    hv.half_nv = 3, hh.half = 0.5;
    static const double sizes[] = {1, 7, 64, 100, 333, 1024, 4096};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    tkt_init();
    TKT_CHECK(model_fits(&h, &c), "the reference configuration must fit");
    {
        model_config bad = c;
        bad.kc = 4096; /* 14 * 4096 * 4 bytes of A micro-panel > 48 KB of L1 */
        TKT_CHECK(!model_fits(&h, &bad) && isinf(model_time(&h, &bad, 64, 64, 64)), "L1 overflow accepted");
        bad = c, bad.mc = 100; /* not a multiple of MR */
        TKT_CHECK(!model_fits(&h, &bad), "mc not a multiple of MR accepted");
    }
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++)
            for (int d = 0; d < ns; d++) {
                double m = sizes[a], n = sizes[b], k = sizes[d], t = model_time(&h, &c, m, n, k);
                TKT_CHECK(t >= 2 * m * n * k / (c.ukr_gflops * 1e9), "%gx%gx%g: faster than the microkernel", m, n, k);
                if (a + 1 < ns) TKT_CHECK(model_time(&h, &c, sizes[a + 1], n, k) >= t, "not monotonic in m at %g", m);
                if (b + 1 < ns) TKT_CHECK(model_time(&h, &c, m, sizes[b + 1], k) >= t, "not monotonic in n at %g", n);
                if (d + 1 < ns) TKT_CHECK(model_time(&h, &c, m, n, sizes[d + 1]) >= t, "not monotonic in k at %g", k);
                model_config fast = c;
                fast.ukr_gflops *= 1.5;
                TKT_CHECK(model_time(&h, &fast, m, n, k) <= t, "a faster kernel made %gx%gx%g slower", m, n, k);
                model_machine wide = h;
                wide.bw_dram *= 2, wide.bw_l2 *= 2, wide.bw_l3 *= 2;
                TKT_CHECK(model_time(&wide, &c, m, n, k) <= t, "more bandwidth made %gx%gx%g slower", m, n, k);
                model_machine cheap = h;
                cheap.pack_bw *= 2, cheap.call /= 2;
                TKT_CHECK(model_time(&cheap, &c, m, n, k) <= t, "cheaper packing and calls made %gx%gx%g slower", m, n, k);
                model_config two = c;
                two.threads = 2;
                TKT_CHECK(model_time(&h, &two, m, n, k) <= t, "two threads slower at %gx%gx%g", m, n, k);
                TKT_CHECK(model_time(&h, &nar, m, n, k) <= t, "narrowing made %gx%gx%g slower", m, n, k);
                if (b + 1 < ns)
                    TKT_CHECK(model_time(&h, &nar, m, sizes[b + 1], k) >= model_time(&h, &nar, m, n, k),
                              "narrowing: not monotonic in n at %g", n);
                TKT_CHECK(model_time(&hh, &hv, m, n, k) <= model_time(&h, &nar, m, n, k),
                          "a half-width last vector made %gx%gx%g slower", m, n, k);
            }
    {
        model_config two = c;
        two.threads = 2;
        double t1 = model_time(&h, &c, 2048, 2048, 2048), t2 = model_time(&h, &two, 2048, 2048, 2048);
        TKT_CHECK(t2 < 0.6 * t1, "2 threads on 2048^3: %g of one thread", t2 / t1);
    }
    {
        /* a whole tile costs the same either way; a tile of 1 column past 2 full ones costs less narrowed */
        double whole = model_time(&h, &c, 256, 64, 256), whole_n = model_time(&h, &nar, 256, 64, 256);
        double rag = model_time(&h, &c, 256, 65, 256), rag_n = model_time(&h, &nar, 256, 65, 256);
        TKT_CHECK(whole_n == whole, "narrowing changed a shape without a ragged tile: %g against %g", whole_n, whole);
        TKT_CHECK(rag_n < rag && rag_n > whole, "n = 65 narrowed: %g, whole tiles %g, n = 64 %g", rag_n, rag, whole);
    }
    {
        /* the 2-vector tile (32 columns): a last vector of at most 8 columns costs less at half width,
         * one of 9 or more and a whole tile cost what they did; no gain where the core gains none or
         * past the vectors the kernels have such a body for; never less for more columns */
        model_machine same = hh;
        model_config one = hv;
        same.half = 1, one.half_nv = 1;
        TKT_CHECK(model_time(&hh, &hv, 256, 24, 256) < model_time(&h, &nar, 256, 24, 256), "n = 24: no gain");
        TKT_CHECK(model_time(&hh, &hv, 256, 8, 256) < model_time(&h, &nar, 256, 8, 256), "n = 8: no gain");
        TKT_CHECK(model_time(&hh, &hv, 256, 25, 256) == model_time(&h, &nar, 256, 25, 256), "n = 25 changed");
        TKT_CHECK(model_time(&hh, &hv, 256, 32, 256) == model_time(&h, &nar, 256, 32, 256), "n = 32 changed");
        TKT_CHECK(model_time(&same, &hv, 256, 24, 256) == model_time(&h, &nar, 256, 24, 256), "n = 24 at half 1");
        TKT_CHECK(model_time(&hh, &one, 256, 24, 256) == model_time(&h, &nar, 256, 24, 256), "n = 24, one vector");
        TKT_CHECK(model_time(&hh, &one, 256, 8, 256) < model_time(&h, &nar, 256, 8, 256), "n = 8, one vector");
        for (double n = 1; n < 100; n++)
            TKT_CHECK(model_time(&hh, &hv, 64, n + 1, 64) >= model_time(&hh, &hv, 64, n, 64),
                      "half width: not monotonic in n at %g", n);
    }
    {
        /* a decode step: 4 rows against a B streamed from memory, read in place, with the kernels
         * that prefetch and those that do not */
        model_config d = {4, 96, 512, 4, 768, 150.0, 0, 0, 1, 'n', 16, 0, 1, 0}, dpf = d;
        dpf.pf = 8;
        model_config dal = d; /* prefetching 32 lines along the rows instead */
        dal.pf = TKT_PF_ALONG | 32;
        for (int a = 0; a < ns; a++)
            for (int b = 0; b < ns; b++) {
                double m = sizes[a], n = sizes[b], k = 4096, t = model_time(&h, &d, m, n, k);
                model_config hot = d;
                hot.cold = 0;
                TKT_CHECK(model_time(&h, &hot, m, n, k) <= t, "%gx%gx%g: faster with the operands in memory", m, n, k);
                TKT_CHECK(model_time(&h, &dpf, m, n, k) <= t, "%gx%gx%g: prefetching made it slower", m, n, k);
                TKT_CHECK(model_time(&h, &dal, m, n, k) <= t, "%gx%gx%g: prefetching along the rows made it slower", m, n, k);
            }
        double t = model_time(&h, &d, 4, 4096, 4096), tpf = model_time(&h, &dpf, 4, 4096, 4096);
        TKT_CHECK(tpf < 0.9 * t, "4x4096x4096 at kc 512 past %g streams: prefetching %g of plain", h.streams, tpf / t);
        /* along the rows all kc rows are in flight: as fast as a lone stream (the rows-ahead twin, 8 rows
         * of the tile, keeps fewer) */
        const double tal = model_time(&h, &dal, 4, 4096, 4096);
        TKT_CHECK(tal <= tpf && tal < 0.9 * t, "4x4096x4096 at kc 512: along the rows %g of plain, rows ahead %g", tal / t, tpf / t);
        /* a B no wider than the tile is its rows back to back: one stream, whatever the depth, so
         * the stream limit must not make a deep block dearer than a shallow one */
        model_config deep = d, shallow = d;
        deep.kc = 1024, shallow.kc = 64;
        double td = model_time(&h, &deep, 4, 80, 4096), ts = model_time(&h, &shallow, 4, 80, 4096);
        TKT_CHECK(td <= ts, "4x80x4096, one column tile: kc 1024 %g of kc 64 past %g streams", td / ts, h.streams);
    }
    {
        /* 16 rows against a 16 MB B that the 32 MB L3 keeps (in cache; rows 4000 floats apart, which
         * spread over the L2's sets), read in place at kc 512: the memory's limit never reaches it;
         * the L3's, once set, does, and a prefetching kernel and a depth within the limit escape it */
        model_config w = {8, 96, 512, 16, 768, 150.0, 0, 0, 1, 'n', 16, 0, 0, 0}, wpf = w, wshallow = w;
        model_machine none = h, some = h;
        none.streams = 4, some.streams_l3 = 32;
        wpf.pf = 8, wshallow.kc = 32;
        const double t = model_time(&h, &w, 16, 4000, 1024);
        TKT_CHECK(model_time(&none, &w, 16, 4000, 1024) == t, "the memory's stream limit changed a B in the L3");
        TKT_CHECK(model_time(&some, &w, 16, 4000, 1024) > 1.5 * t, "past the L3's stream limit: %g of no limit",
                  model_time(&some, &w, 16, 4000, 1024) / t);
        TKT_CHECK(model_time(&some, &wpf, 16, 4000, 1024) == model_time(&h, &wpf, 16, 4000, 1024),
                  "a prefetching kernel whose prefetches cover the L3's bandwidth paid its stream limit");
        TKT_CHECK(model_time(&some, &wshallow, 16, 4000, 1024) == model_time(&h, &wshallow, 16, 4000, 1024),
                  "kc 32, within the L3's limit of 32 streams, paid it");
        TKT_CHECK(model_time(&some, &w, 16, 64, 64) == model_time(&h, &w, 16, 64, 64), "a B in L2 paid the L3's limit");
        /* an L3 as far away as a server mesh's (145 ns): the kernel's own prefetches, 8 rows of 96
         * floats per latency, no longer cover the L3's bandwidth, so past the limit it pays part of
         * it (13x32 pf8 at 13 x 1024 x 512 cold on a Xeon: kc 512 0.55x the speed of kc 32-64), and
         * within the limit nothing. One row tile (8 rows), so no second tile's FMAs hide the rows */
        model_machine far = some, nolimit;
        far.lat_l3 = 145e-9;
        nolimit = far, nolimit.streams_l3 = 0;
        model_config wpf_shallow = wpf;
        wpf_shallow.kc = 32;
        const double tfar = model_time(&far, &wpf, 8, 4096, 1024), tfree = model_time(&nolimit, &wpf, 8, 4096, 1024);
        TKT_CHECK(tfar > 1.2 * tfree, "a prefetching kernel past the limit, prefetches short of the L3: %g of no limit",
                  tfar / tfree);
        TKT_CHECK(tfar < model_time(&far, &w, 8, 4096, 1024), "prefetching did not help past the limit");
        TKT_CHECK(model_time(&far, &wpf_shallow, 8, 4096, 1024) == model_time(&nolimit, &wpf_shallow, 8, 4096, 1024),
                  "a prefetching kernel within the limit paid it");
    }
    {
        /* B in place, rows n floats apart: where row tiles reuse its panels and the rows crowd the
         * L2's sets (n = 1024: 4 KiB apart, 244 rows of a 2 MB L2), the model times the depth the
         * driver runs (tki_kc_b_in_place), not the row's kc: the fit for a row that packs A, and
         * TKI_B_ROWS_KC for a direct row, which reads a copy of B's rows there (tki_b_rows_copy);
         * one row tile, or rows that spread, keep it */
        model_config deep = {4, 96, 512, 32, 96, 150.0, 1, 0, 1, 'n', 16, 0, 0, 0}, shallow = deep;
        model_config direct = deep, direct_rows = deep;
        direct.pack_a = direct_rows.pack_a = 0;
        direct_rows.kc = TKI_B_ROWS_KC;
        TKT_CHECK(model_time(&h, &direct, 32, 1024, 3072) == model_time(&h, &direct_rows, 32, 1024, 3072),
                  "32x1024x3072, a direct row, B's rows copied: kc 512 not timed at %d", TKI_B_ROWS_KC);
        shallow.kc = 244;
        TKT_CHECK(model_time(&h, &deep, 32, 1024, 3072) == model_time(&h, &shallow, 32, 1024, 3072),
                  "32x1024x3072, B in place: kc 512 not timed at the driver's 244");
        TKT_CHECK(model_time(&h, &deep, 32, 1040, 3072) != model_time(&h, &shallow, 32, 1040, 3072),
                  "32x1040x3072: kc 512 timed at 244");
        TKT_CHECK(model_time(&h, &deep, 4, 1024, 3072) != model_time(&h, &shallow, 4, 1024, 3072),
                  "4x1024x3072, one row tile: kc 512 timed at 244");
        deep.pack_b = shallow.pack_b = 1;
        TKT_CHECK(model_time(&h, &deep, 32, 1024, 3072) != model_time(&h, &shallow, 32, 1024, 3072),
                  "32x1024x3072, B packed: kc 512 timed at 244");
        /* 512 rows or more: the driver copies such a B (tki_b_copy_pays), so `packb no` times as `yes` */
        shallow = deep, shallow.pack_b = 0;
        TKT_CHECK(model_time(&h, &deep, 1024, 1024, 3072) == model_time(&h, &shallow, 1024, 1024, 3072),
                  "1024x1024x3072: B read in place timed, the driver copies it");
        TKT_CHECK(model_time(&h, &deep, 1024, 1040, 3072) != model_time(&h, &shallow, 1024, 1040, 3072),
                  "1024x1040x3072 (rows that spread): B timed as copied");
    }
    return tkt_finish("test_model");
}
