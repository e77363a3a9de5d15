/* evaluate.c - how good the model and a table are, against an oracle, on shapes of a list (tktune
 * evaluate; docs/tuner.md). Per shape:
 *   oracle: every measured level-0 kernel (both forms) at every level-1 depth kc it allows (those
 *           deeper than the shape's k collapse into one), with the largest L2- and L3-fitting mc
 *           and nc (the driver trims them to the shape), all measured: the exhaustive search over
 *           kernels and depths, the decisions that move the time most;
 *   model:  the configuration the Helix model ranks first for the shape (what the tuner would pick
 *           by the model alone), with its calibrated constants and with the defaults;
 *   table:  the row the CPU's current table serves the shape with.
 * A shape the bench times with its operands cold (a few rows against a B past L2: an LLM decode
 * step, bench/cold.h) is measured cold here too, every candidate alike, and its oracle space holds
 * each in-place-B configuration also prefetching (as the tuner tries them at such shapes): the
 * table's decode rows were chosen for weights streamed from memory and are judged so. --warm
 * measures every shape in cache instead.
 * The sweep's fastest three, the models' picks and the table's row are measured again in paired
 * rounds (EVALUATE_MAX_ROUNDS at most); the oracle's best is the one that stands best against the others in
 * those rounds; the model's and the table's ratios to it are printed per shape, with the median
 * (model) and the mean and worst (table). */
#include "evaluate.h"

#include "buckets.h"
#include "calibrate.h"
#include "measure.h"
#include "retune.h" /* retune_lock */

#include "../bench/cold.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAXSHAPES 128
/* a shape's oracle space: every level-0 kernel (16 tiles at 4 unrolls) at every kc up to k (16 at
 * most), and its prefetching twins where B is streamed: 2048 at most; 512 cut it short once
 * unrolls came in (static: about 50 MB, touched as far as the shapes use them) */
#define MAXCAND 2048

/* one configuration of the oracle space as a table row */
static tkt_row oracle_row(const isa_desc *isa, const cand_caps *k, const cand_l0 *c, unsigned long long kc)
{
    unsigned long long mcs[64], ncs[64];
    int nm = cand_mc(c, kc, k, mcs, 64), nn = cand_nc(c, kc, k, ncs, 64);
    tkt_row r;
    memset(&r, 0, sizeof r);
    r.mr = c->mr;
    r.nr = isa->vla ? c->nv : c->nv * isa->lanes;
    r.ku = c->ku;
    r.kc = kc;
    r.mc = nm > 0 ? mcs[(nm < 64 ? nm : 64) - 1] : c->mr;
    r.nc = nn > 0 ? (isa->vla ? ncs[(nn < 64 ? nn : 64) - 1] / k->lanes_per_vector : ncs[(nn < 64 ? nn : 64) - 1]) : r.nr;
    r.packa = r.packb = !c->direct;
    r.split = 'm';
    r.order = 'n';
    return r;
}

/* The candidate of cand[0..*n) that runs the same code as r on the shape (same_code), or r added as a
 * new one: a configuration is measured once, whoever proposes it, and a model's pick or the table's
 * row that differs from a candidate only in blocks the shape cuts away (kc past k, mc past m) shares
 * its readings instead of being scored on other noise (equal configurations read 30-60% apart in
 * one run on a noisy host). */
static int same_code_at(tkt_row *cand, int *n, const tkt_row *r, double crowd, const unsigned long long mnk[3])
{
    for (int j = 0; j < *n; j++)
        if (same_code(&cand[j], r, crowd, (double)mnk[0], (double)mnk[1], (double)mnk[2])) return j;
    cand[*n] = *r;
    return (*n)++;
}

int evaluate_run(const profile_opts *po, const char *shapes, const isa_desc *isa, const tkt_table *t,
                 const cand_caps *k, int warm, int rounds)
{
    static unsigned long long mnk[MAXSHAPES][3];
    static measured_l0 ml[4096];
    static tkt_row cand[MAXSHAPES][MAXCAND], all[MAXSHAPES * 8];
    static int ncand[MAXSHAPES], model_at[2][MAXSHAPES], table_at[MAXSHAPES], cold[MAXSHAPES];
    static double gf[MAXSHAPES][MAXCAND], first[MAXSHAPES][MAXCAND], again[EVALUATE_MAX_ROUNDS][MAXSHAPES][MAXCAND];
    static double score[MAXSHAPES][MAXCAND];
    static char elog[1200];
    static char remeasure[MAXSHAPES][MAXCAND];
    double mratio[2][MAXSHAPES], tsum = 0, tworst = 2;
    int ns = read_shapes(shapes, mnk, MAXSHAPES), nml = read_level0(po->log, po->cpu, ml, 4096), nall = 0;
    int tworst_at = 0;
    calib_info ci;
    profile_opts eo = *po;
    char path[1200];
    if (ns < 0) return 1;
    if (nml == 0) die("%s has no level-0 record for %s: run `make retune ARCH=%s` (or tktune profile) first", po->log,
                      po->cpu, po->cpu);
    /* the model as the tuner has it: calibrated on the tuning log's measurements, never on these */
    model_machine h = calib_machine(po->log, po->cpu, t, k, ml, nml, &ci);
    printf("model: %s\n", calib_describe(&h, &ci, path, sizeof path));
    /* this run's measurements go to a log of its own: the tuning log stays the tuner's evidence */
    mkdir(po->work, 0777);
    snprintf(elog, sizeof elog, "%s/evaluate.records", po->work);
    eo.log = elog;
    po = &eo;

    /* the candidates of every shape; the probe is compiled once for all their tiles */
    for (int s = 0; s < ns; s++) {
        tkt_row best;
        double kd = (double)mnk[s][2];
        int n = 0;
        cold[s] = !warm && tkb_bandwidth_bound(mnk[s][0], mnk[s][1], mnk[s][2], t->l2);
        for (int i = 0; i < nml; i++) {
            unsigned long long kcs[64];
            int nk = cand_kc(&ml[i].c, k, kcs, 64), past = 0;
            for (int j = 0; j < nk && j < 64 && n < MAXCAND - 4; j++) {
                if (past) break; /* depths past k all run as one block of k */
                past = kcs[j] >= mnk[s][2];
                cand[s][n++] = oracle_row(isa, k, &ml[i].c, kcs[j]);
                const tkt_row plain = cand[s][n - 1];
                unsigned ways[3];
                const int nw = tune_pf_ways(isa, cold[s], plain.packb, plain.mr, ways);
                for (int w = 1; w < nw; w++) cand[s][n] = plain, cand[s][n++].pf = ways[w];
            }
        }
        for (int v = 0; v < 2; v++) { /* the calibrated model, then the one with default constants */
            model_at[v][s] = -1;
            if (model_best(isa, k, v ? &ci.base : &h, ml, nml, (double)mnk[s][0], (double)mnk[s][1], &kd, 1, cold[s], &best, 1) != 1)
                continue;
            best.split = 'm';
            model_at[v][s] = same_code_at(cand[s], &n, &best, (double)tkt_crowd_bytes(t), mnk[s]);
        }
        table_at[s] = same_code_at(cand[s], &n, table_match(t, mnk[s][0], mnk[s][1], mnk[s][2], 0), (double)tkt_crowd_bytes(t), mnk[s]);
        ncand[s] = n;
        /* one row per distinct tile is enough for the probe's kernel list */
        for (int j = 0; j < n; j++) {
            int seen = 0;
            for (int q = 0; q < nall && !seen; q++)
                seen = all[q].mr == cand[s][j].mr && all[q].nr == cand[s][j].nr && all[q].ku == cand[s][j].ku &&
                       all[q].packa == cand[s][j].packa && all[q].pf == cand[s][j].pf;
            if (!seen && nall < MAXSHAPES * 8) all[nall++] = cand[s][j];
        }
    }
    double planned = 0, done = 0;
    for (int s = 0; s < ns; s++) planned += ncand[s];
    printf("tktune evaluate %s: %d shapes, %.0f measurements (oracle: %d kernels x their depths), then up to 6 per "
           "shape in %d paired round%s\n", po->cpu, ns, planned, nml, rounds, rounds > 1 ? "s" : "");
    shape_probe sp;
    if (!shape_probe_build(&sp, po, isa, t, all, nall, "full", 1)) return 1;

    for (int s = 0; s < ns; s++)
        for (int j = 0; j < ncand[s]; j++) {
            int fresh;
            gf[s][j] = first[s][j] = shape_measure(&sp, &cand[s][j], mnk[s][0], mnk[s][1], mnk[s][2], cold[s], 0, &fresh);
            done++;
            if (po->progress) fprintf(stderr, "\rtktune: evaluating %.0f/%.0f   ", done, planned);
        }
    if (po->progress) fprintf(stderr, "\n");
    /* The best of a hundred single measurements is the luckiest of them (a quiet moment of a shared
     * machine), which a one-shot model pick cannot match; and on a shared host the rate of one
     * configuration moves 2x within seconds (session 38: 311x307x317, 6x64 kc 384 read 70, 63 and
     * 131 in three passes, the fastest 9x48 144, 94 and 144: the pass, not the configuration, set
     * the level). So the sweep only picks the three fastest; they, the models' picks and the table's
     * row are then measured in `rounds` rounds, back to back within a shape (the order rotated each
     * round), and each scored by the median over the rounds of its reading against the round's
     * fastest of them: paired readings, none from the sweep. The oracle is the best score; every
     * ratio printed is a score over the oracle's (at most 1). */
    for (int s = 0; s < ns; s++) {
        int top[3] = {-1, -1, -1};
        for (int j = 0; j < ncand[s]; j++)
            for (int q = 0; q < 3; q++)
                if (top[q] < 0 || first[s][j] > first[s][top[q]]) {
                    for (int r = 2; r > q; r--) top[r] = top[r - 1];
                    top[q] = j;
                    break;
                }
        for (int j = 0; j < ncand[s]; j++)
            remeasure[s][j] = j == top[0] || j == top[1] || j == top[2] || j == model_at[0][s] || j == model_at[1][s] ||
                              j == table_at[s];
    }
    for (int rep = 1; rep <= rounds; rep++)
        for (int s = 0; s < ns; s++)
            for (int q = 0; q < ncand[s]; q++) {
                int fresh, j = (q + rep) % ncand[s];
                if (remeasure[s][j])
                    again[rep - 1][s][j] = shape_measure(&sp, &cand[s][j], mnk[s][0], mnk[s][1], mnk[s][2], cold[s], rep, &fresh);
            }
    for (int s = 0; s < ns; s++) {
        double fastest[EVALUATE_MAX_ROUNDS] = {0};
        for (int r = 0; r < rounds; r++)
            for (int i = 0; i < ncand[s]; i++)
                if (remeasure[s][i] && again[r][s][i] > fastest[r]) fastest[r] = again[r][s][i];
        for (int j = 0; j < ncand[s]; j++) {
            double rel[EVALUATE_MAX_ROUNDS], rate[EVALUATE_MAX_ROUNDS];
            if (!remeasure[s][j]) {
                gf[s][j] = first[s][j], score[s][j] = 0;
                continue;
            }
            for (int r = 0; r < rounds; r++) {
                rate[r] = again[r][s][j];
                rel[r] = fastest[r] > 0 ? rate[r] / fastest[r] : 0;
            }
            qsort(rel, (size_t)rounds, sizeof rel[0], cmp_double);
            qsort(rate, (size_t)rounds, sizeof rate[0], cmp_double);
            score[s][j] = rel[rounds / 2], gf[s][j] = rate[rounds / 2];
        }
    }

    snprintf(path, sizeof path, "%s/evaluate.txt", po->work);
    FILE *rf = fopen(path, "w");
    int nm = 0;
    for (int pass = 0; pass < 2; pass++) {
        FILE *f = pass ? rf : stdout;
        if (!f) continue;
        fprintf(f, "%-18s %8s %-40s %8s %6s %7s %8s %6s  %s\n", "shape", "oracle", "oracle's best", "model", "ratio",
                "default", "table", "ratio", "table's row");
        for (int s = 0; s < ns; s++) {
            int b = 0;
            char shape[48], od[96], td[96];
            for (int j = 1; j < ncand[s]; j++)
                if (score[s][j] > score[s][b]) b = j;
            double best = gf[s][b], top = score[s][b], tg = gf[s][table_at[s]], tr = top > 0 ? score[s][table_at[s]] / top : 0;
            double mg[2], mr[2];
            for (int v = 0; v < 2; v++) {
                mg[v] = model_at[v][s] >= 0 ? gf[s][model_at[v][s]] : 0;
                mr[v] = model_at[v][s] >= 0 && top > 0 ? score[s][model_at[v][s]] / top : 0;
            }
            snprintf(shape, sizeof shape, "%llux%llux%llu%s", mnk[s][0], mnk[s][1], mnk[s][2], cold[s] ? "*" : "");
            row_text(isa, &cand[s][b], od, sizeof od);
            row_text(isa, &cand[s][table_at[s]], td, sizeof td);
            fprintf(f, "%-18s %8.1f %-40s %8.1f %6.3f %7.3f %8.1f %6.3f  %s\n", shape, best, od, mg[0], mr[0], mr[1],
                    tg, tr, td);
            if (!pass && top > 0) {
                mratio[0][nm] = mr[0], mratio[1][nm++] = mr[1];
                tsum += tr;
                if (tr < tworst) tworst = tr, tworst_at = s;
            }
        }
        for (int v = 0; !pass && v < 2; v++) qsort(mratio[v], (size_t)nm, sizeof mratio[v][0], cmp_double);
        for (int v = 0; v < 2; v++)
            fprintf(f, "model%s: median %.3f of the oracle over %d shapes (min %.3f)\n",
                    v ? " with default constants" : " (calibrated)", nm ? mratio[v][nm / 2] : 0, nm, nm ? mratio[v][0] : 0);
        fprintf(f, "table: mean %.3f of the oracle, worst %.3f (%llux%llux%llu)\n", nm ? tsum / nm : 0, tworst,
                mnk[tworst_at][0], mnk[tworst_at][1], mnk[tworst_at][2]);
        fprintf(f, "ratios: medians over %d paired round%s of each one's reading against the round's fastest, over the "
                   "oracle's; GFLOP/s: medians of those rounds\n", rounds, rounds > 1 ? "s" : "");
        if (warm) fprintf(f, "every shape measured with its operands in cache (--warm)\n");
        else {
            fprintf(f, "* operands cold, as the bench times them (bench/cold.h): A and B from a slot of the %.0f MiB cold "
                       "buffer further each call\n", (double)sp.cold_bytes / (1 << 20));
            fprintf(f, "cold measurements disturbed by other memory traffic in every try (quiet=no in the log): %d\n",
                    shape_noisy());
        }
        fprintf(f, "the models' picks (calibrated; with default constants):\n");
        for (int s = 0; s < ns; s++) {
            char md[2][96];
            for (int v = 0; v < 2; v++)
                if (model_at[v][s] >= 0) row_text(isa, &cand[s][model_at[v][s]], md[v], sizeof md[v]);
                else snprintf(md[v], sizeof md[v], "none");
            fprintf(f, "  %llux%llux%llu: %s; %s\n", mnk[s][0], mnk[s][1], mnk[s][2], md[0], md[1]);
        }
    }
    if (rf) fclose(rf);
    printf("report: %s\n", path);
    return 0;
}

/* the position of " rep=" in a whole-shape record of cpu not yet kept, or NULL */
static const char *keepable(const char *line, const char *cpu)
{
    const char *full = strstr(line, " level=full "), *rep = full ? strstr(full, " rep=") : NULL;
    if (strncmp(line, "tk-record 1 op=gemm ", 20) || !record_cpu(line, cpu) || !rep || strstr(line, " sweep=")) return NULL;
    return rep;
}

int evaluate_keep(const char *records, const char *log, const char *cpu)
{
    char line[1024];
    int at = 0;
    FILE *in = fopen(records, "r");
    if (!in) die("%s: cannot read: %s", records, strerror(errno));
    /* every line checked before one is written: a bad file leaves the log as it was */
    while (fgets(line, sizeof line, in)) {
        at++;
        if (!strchr(line, '\n')) die("%s:%d: line longer than %d characters", records, at, (int)sizeof line - 2);
        if (!keepable(line, cpu))
            die("%s:%d: not a whole-shape record of %s, or kept already (sweep=)", records, at, cpu);
    }
    if (at == 0) die("%s: no records", records);
    retune_lock(log);
    FILE *out = fopen(log, "a");
    if (!out) die("%s: cannot append: %s", log, strerror(errno));
    rewind(in);
    /* the mark before the repetition: inside the span a resumed retune and the record-log prior
     * key measurements by (measure.c), so a kept sweep is never taken for a retune's reading */
    while (fgets(line, sizeof line, in)) {
        const char *rep = keepable(line, cpu);
        fprintf(out, "%.*s sweep=oracle%s", (int)(rep - line), line, rep);
    }
    fclose(in);
    if (fclose(out) != 0) die("%s: write failed: %s", log, strerror(errno));
    printf("tktune: %d records of %s appended to %s as an oracle sweep (sweep=oracle)\n", at, records, log);
    return 0;
}
