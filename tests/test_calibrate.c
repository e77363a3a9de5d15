/* The model's calibration (tune/calibrate.c): a record log written here from a known machine (fixed
 * costs the default constants get wrong) is read back with every usable measurement in its group and
 * every unusable line skipped; the fit must then rank the log's groups as well as that machine does,
 * where the defaults rank them badly; readings of the same code in a group are read as their mean;
 * a log with too few groups keeps the defaults; while the current code has too few, the records of
 * earlier code count too; an oracle sweep kept in the log counts whatever code ran it. */
#include "../tune/calibrate.h"
#include "../tune/machine.h"
#include "../tune/profile.h"
#include "tktest.h"

#define NSHAPES 60
#define PER 6

static const cand_l0 kernels[] = {{14, 2, 4, 0}, {14, 2, 4, 1}, {6, 4, 4, 0}, {6, 4, 4, 1},
                                   {2, 8, 4, 1}, {30, 1, 4, 1}, {30, 1, 4, 0}, {4, 6, 4, 1}};
#define NK ((int)(sizeof kernels / sizeof kernels[0]))

int main(int argc, char **argv)
{
    static calib_rec recs[NSHAPES * PER + 8];
    static measured_l0 l0[NK];
    const cand_caps caps = {16, 32768, 1048576, 33554432, 2, 0, 0, 524288};
    tkt_table t;
    char path[1024];
    int written = 0, groups = 0;
    tkt_init();
    if (argc < 2) return fprintf(stderr, "usage: test_calibrate DIR\n"), 2;
    memset(&t, 0, sizeof t);
    t.dram_gbs = 40;
    /* the machine the log is measured on: calls and packing cost far more than the defaults say */
    model_machine truth = {32768, 1048576, 33554432, 70e9, 50e9, 28e9, 5e-9, 20e-9, 90e-9, 400e-9, 2, 60e-9, 6e9, 0, 0, 0, 524288};
    snprintf(path, sizeof path, "%s/calib.records", argv[1]);
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, "cannot write %s\n", path), 2;
    char host[160];
    machine_host(host, sizeof host);
    fprintf(f, "tk-record 1 op=machine cpu=x host=%s sweep=%d bw_l2=7e+10 bw_l3=5e+10 bw_dram=2.8e+10 lat_l2=5 lat_l3=20 lat_dram=90 half=1 dram_set=1 evidence=measured date=1\n",
            host, machine_sweep_bytes());
    for (int i = 0; i < NK; i++) {
        l0[i].c = kernels[i], l0[i].kc = 128, l0[i].gflops = 100.0 + 3.0 * (i % 3);
        fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=0 tile=%ux%uvec ku=4 form=%s kc=128 result=ok gflops=%.2f spread=0.01 timed=tki_ukr_test evidence=measured load=0.1 date=1\n",
                kernels[i].mr, kernels[i].nv, kernels[i].direct ? "direct" : "packed", l0[i].gflops);
    }
    for (int s = 0; s < NSHAPES; s++) {
        double m = (double)tkt_range(1, 300), n = (double)tkt_range(1, 300), k = (double)tkt_range(8, 600);
        for (int j = 0; j < PER; j++) {
            const cand_l0 *c = &kernels[tkt_range(0, NK - 1)];
            unsigned long long kcs[64], mcs[64], ncs[64];
            int nk = cand_kc(c, &caps, kcs, 64), x = (int)tkt_range(0, (size_t)(nk < 64 ? nk : 64) - 1);
            int nm = cand_mc(c, kcs[x], &caps, mcs, 64), nn = cand_nc(c, kcs[x], &caps, ncs, 64);
            unsigned long long mc = mcs[tkt_range(0, (size_t)(nm < 64 ? nm : 64) - 1)];
            unsigned long long nc = ncs[tkt_range(0, (size_t)(nn < 64 ? nn : 64) - 1)];
            double g = 0;
            for (int q = 0; q < NK; q++)
                if (l0[q].c.mr == c->mr && l0[q].c.nv == c->nv && l0[q].c.direct == c->direct) g = l0[q].gflops;
            model_config mcfg = {c->mr, c->nv * 16, kcs[x], mc, nc, g, !c->direct, !c->direct, 1, 'm', 0, 0, 0, 0};
            double gf = 2 * m * n * k / model_time(&truth, &mcfg, m, n, k) * 1e-9;
            fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=%.0f n=%.0f k=%.0f tile=%ux%uvec ku=4 form=%s kc=%llu mc=%llu nc=%llu packb=%d split=m order=n rep=3 result=ok gflops=%.4f spread=0.01 evidence=measured load=0.1 date=1\n",
                    m, n, k, c->mr, c->nv, c->direct ? "direct" : "packed", kcs[x], mc, nc / (c->nv * 16), !c->direct, gf);
            written++;
        }
    }
    /* lines the fit must not use: an exact-shape instance, a crash, another CPU, an unprofiled kernel */
    fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=5 n=5 k=5 tile=14x2vec ku=4 form=direct kc=8 mc=14 nc=1 packb=0 split=m order=n rep=3 path=exact result=ok gflops=9.0 spread=0.01 evidence=measured load=0.1 date=1\n");
    fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=5 n=5 k=5 tile=14x2vec ku=4 form=direct kc=8 mc=14 nc=1 packb=0 split=m order=n rep=3 result=crash signal=11 evidence=measured load=0.1 date=1\n");
    fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=y isa=avx512f level=full m=5 n=5 k=5 tile=14x2vec ku=4 form=direct kc=8 mc=14 nc=1 packb=0 split=m order=n rep=3 result=ok gflops=9.0 spread=0.01 evidence=measured load=0.1 date=1\n");
    fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=5 n=5 k=5 tile=9x3vec ku=4 form=direct kc=8 mc=9 nc=1 packb=0 split=m order=n rep=3 result=ok gflops=9.0 spread=0.01 evidence=measured load=0.1 date=1\n");
    fclose(f);

    int n = calib_read(path, "x", &caps, l0, NK, recs, NSHAPES * PER + 8, &groups, 0);
    TKT_CHECK(n == written, "read %d whole-shape measurements, wrote %d usable ones", n, written);
    TKT_CHECK(groups >= NSHAPES - 2 && groups <= NSHAPES, "%d groups for %d shapes", groups, NSHAPES);
    for (int i = 1; i < n; i++) TKT_CHECK(recs[i].group >= recs[i - 1].group, "record %d out of its group's order", i);
    TKT_CHECK(calib_score(&truth, recs, n) > 0.9999, "the true machine ranks its own log at %.4f",
              calib_score(&truth, recs, n));

    calib_info info;
    model_machine h = calib_machine(path, "x", &t, &caps, l0, NK, &info);
    TKT_CHECK(info.have_bw && h.bw_l2 == 7e10 && h.bw_dram == 2.8e10, "bandwidths not taken from the machine record");
    TKT_CHECK(info.records == written && info.groups == groups, "the fit used %d records in %d groups", info.records, info.groups);
    /* not vacuous: the default constants must rank this log badly for the fit to show anything */
    TKT_CHECK(info.before < 0.97, "the defaults already rank the log at %.3f", info.before);
    TKT_CHECK(info.after >= 0.99 && info.after > info.before, "fitted %.3f, defaults %.3f", info.after, info.before);
    TKT_CHECK(fabs(calib_score(&h, recs, n) - info.after) < 1e-9, "the returned machine is not the fitted one");
    /* measured latencies are the record's, in seconds, and the fit leaves them */
    TKT_CHECK(fabs(h.lat_l2 - 5e-9) < 1e-15 && fabs(h.lat_l3 - 20e-9) < 1e-15 && fabs(h.lat_dram - 90e-9) < 1e-15,
              "latencies %g %g %g, not the machine record's", h.lat_l2, h.lat_l3, h.lat_dram);

    /* readings of the same code in one group (kc 512 and 1024 at k = 300) are one rate, their mean;
     * another depth keeps its own reading */
    snprintf(path, sizeof path, "%s/calib-same.records", argv[1]);
    f = fopen(path, "w");
    if (!f) return fprintf(stderr, "cannot write %s\n", path), 2;
    {
        static const int kcs[3] = {512, 1024, 128}, gfs[3] = {50, 150, 120};
        for (int j = 0; j < 3; j++)
            fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=100 n=100 k=300 tile=6x4vec ku=4 form=direct kc=%d mc=96 nc=1 packb=0 split=m order=n rep=0 result=ok gflops=%d spread=0.01 evidence=measured load=0.1 date=1\n",
                    kcs[j], gfs[j]);
    }
    fclose(f);
    n = calib_read(path, "x", &caps, l0, NK, recs, NSHAPES * PER + 8, &groups, 0);
    TKT_CHECK(n == 3 && groups == 1, "read %d records in %d groups, wrote 3 in 1", n, groups);
    for (int i = 0; i < n; i++)
        TKT_CHECK(recs[i].gflops == (recs[i].c.kc == 128 ? 120.0 : 100.0), "kc %llu read %g GFLOP/s", recs[i].c.kc,
                  recs[i].gflops);
    /* a log with a few groups only: the defaults stay */
    snprintf(path, sizeof path, "%s/calib-small.records", argv[1]);
    f = fopen(path, "w");
    if (!f) return fprintf(stderr, "cannot write %s\n", path), 2;
    for (int s = 0; s < 5; s++)
        for (int j = 0; j < 3; j++)
            fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=%d n=64 k=64 tile=6x4vec ku=4 form=direct kc=%d mc=6 nc=1 packb=0 split=m order=n rep=0 result=ok gflops=%d spread=0.01 evidence=measured load=0.1 date=1\n",
                    10 + s, 16 << j, 50 + j);
    fclose(f);
    h = calib_machine(path, "x", &t, &caps, l0, NK, &info);
    TKT_CHECK(info.groups == 5 && h.call == 0 && h.launch == info.base.launch && !info.have_bw,
              "a 5-group log changed the constants (call %g)", h.call);
    TKT_CHECK(h.bw_dram == 40e9, "bandwidths not assumed from dram_gbs without a machine record");

    /* right after a template change: the first log's measurements by earlier code (kernels=0000000a),
     * 5 groups by the current code (0000000b). The current code's records alone are too few, so
     * the fit takes the earlier code's too, and ranks as it did on them */
    {
        char old_path[1024], line[1024];
        snprintf(old_path, sizeof old_path, "%s/calib.records", argv[1]);
        snprintf(path, sizeof path, "%s/calib-two-codes.records", argv[1]);
        FILE *in = fopen(old_path, "r");
        f = fopen(path, "w");
        if (!in || !f) return fprintf(stderr, "cannot copy %s to %s\n", old_path, path), 2;
        while (fgets(line, sizeof line, in)) {
            char *ev = strstr(line, " evidence=");
            if (!ev) continue;
            *ev = 0;
            fprintf(f, "%s kernels=0000000a evidence=%s", line, ev + 10);
        }
        fclose(in);
        for (int s = 0; s < 5; s++)
            for (int j = 0; j < 3; j++)
                fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=%d n=64 k=64 tile=6x4vec ku=4 form=direct kc=%d mc=6 nc=1 packb=0 split=m order=n rep=0 result=ok gflops=%d spread=0.01 kernels=0000000b evidence=measured load=0.1 date=1\n",
                        10 + s, 16 << j, 50 + j);
        fclose(f);
        records_set_kernels(0xb);
        n = calib_read(path, "x", &caps, l0, NK, recs, NSHAPES * PER + 8, &groups, 0);
        TKT_CHECK(n == 15 && groups == 5, "the current code: %d records in %d groups, not 15 in 5", n, groups);
        h = calib_machine(path, "x", &t, &caps, l0, NK, &info);
        TKT_CHECK(info.earlier && info.groups >= NSHAPES - 2 && info.after >= 0.99 && info.after > info.before,
                  "with the earlier code's records: %d groups, fitted %.3f, defaults %.3f (earlier %d)", info.groups,
                  info.after, info.before, info.earlier);
        /* then 110 more groups of the current code, enough to fit alone, where every configuration
         * read the same: no fit ranks them better than the defaults, so the earlier code's count too */
        f = fopen(path, "a");
        if (!f) return fprintf(stderr, "cannot append to %s\n", path), 2;
        for (int s = 0; s < 110; s++)
            for (int j = 0; j < 3; j++)
                fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=%d n=64 k=64 tile=6x4vec ku=4 form=direct kc=%d mc=6 nc=1 packb=0 split=m order=n rep=0 result=ok gflops=50 spread=0.01 kernels=0000000b evidence=measured load=0.1 date=1\n",
                        100 + s, 16 << j);
        fclose(f);
        n = calib_read(path, "x", &caps, l0, NK, recs, NSHAPES * PER + 8, &groups, 0);
        TKT_CHECK(groups == 115, "the current code: %d groups, not 115", groups);
        h = calib_machine(path, "x", &t, &caps, l0, NK, &info);
        TKT_CHECK(info.earlier && info.groups >= 115 + NSHAPES - 2 && info.after > info.before,
                  "no fit to the current code's 115 groups: %d groups, fitted %.3f, defaults %.3f (earlier %d)",
                  info.groups, info.after, info.before, info.earlier);
        /* an oracle sweep kept by tktune keep (sweep=oracle), run by the earlier code: read with the
         * current code's records, and its group apart from the current code's group of the same
         * shape and repetition (m = 10, rep 0) */
        f = fopen(path, "a");
        if (!f) return fprintf(stderr, "cannot append to %s\n", path), 2;
        for (int j = 0; j < 3; j++)
            fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=full m=10 n=64 k=64 tile=6x4vec ku=4 form=direct kc=%d mc=6 nc=1 packb=0 split=m order=n sweep=oracle rep=0 result=ok gflops=%d spread=0.01 kernels=0000000a evidence=measured load=0.1 date=1\n",
                    16 << j, 60 + 10 * j);
        fclose(f);
        int n2 = calib_read(path, "x", &caps, l0, NK, recs, NSHAPES * PER + 8, &groups, 0), kept = 0;
        for (int i = 0; i < n2; i++) kept += recs[i].m == 10 && recs[i].gflops >= 60;
        TKT_CHECK(n2 == n + 3 && groups == 116 && kept == 3,
                  "with an earlier code's oracle sweep: %d records in %d groups (%d of the sweep), not %d in 116 (3)", n2, groups,
                  kept, n + 3);
    }
    /* a kernel profiled again (profile_level0 measures a tile's unrolls together) is read at its
     * last record, once */
    snprintf(path, sizeof path, "%s/calib-l0.records", argv[1]);
    f = fopen(path, "w");
    if (!f) return fprintf(stderr, "cannot write %s\n", path), 2;
    {
        static const int kus[3] = {4, 1, 4}, gfs[3] = {200, 180, 170};
        for (int j = 0; j < 3; j++)
            fprintf(f, "tk-record 1 op=gemm dtype=f32 cpu=x isa=avx512f level=0 tile=6x4vec ku=%d form=direct kc=128 result=ok gflops=%d spread=0.01 timed=tki_ukr_test %sevidence=measured load=0.1 date=1\n",
                    kus[j], gfs[j], records_kernels());
    }
    fclose(f);
    {
        measured_l0 again[4];
        int nl = read_level0(path, "x", again, 4);
        TKT_CHECK(nl == 2 && again[0].c.ku == 4 && again[0].gflops == 170 && again[1].c.ku == 1 && again[1].gflops == 180,
                  "read %d kernels (first ku %u at %g): not ku 4 at its last reading, 170, and ku 1", nl, again[0].c.ku,
                  again[0].gflops);
    }
    return tkt_finish("test_calibrate");
}
