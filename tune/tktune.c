/* tktune - the offline tuner (docs/tuner.md).
 *
 *   tktune candidates  the candidate count per level for a CPU (a dry run; --list: every candidate)
 *   tktune machine     the host's bandwidths, as an op=machine record
 *   tktune profile     level 0: time the best-ranked microkernels (record log)
 *   tktune table       a table from the log by the model alone
 *   tktune calibrate   the model's constants fitted to the log's whole-shape measurements
 *   tktune retune      everything behind `make retune ARCH=<cpu>`: machine, level 0, the model's
 *                      top few and the previous choice measured on whole shapes per grid cell and
 *                      per listed shape, the table written atomically, a text and SVG report
 *   tktune evaluate    the model's pick and the table's row against an oracle, on a shape list
 *   tktune keep        an evaluate run's records into the record log, as calibration evidence */
#include "buckets.h"
#include "calibrate.h"
#include "estimate.h"
#include "evaluate.h"
#include "machine.h"
#include "measure.h"
#include "profile.h"
#include "retune.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void usage(void)
{
    fprintf(stderr, "usage: tktune candidates --root DIR --cpu CPU [--list]\n"
                    "       tktune machine --root DIR --cpu CPU [--log FILE]\n"
                    "       tktune table --root DIR --cpu CPU --log FILE --out TABLE --tkgen PATH --work DIR\n"
                    "       tktune calibrate --root DIR --cpu CPU --log FILE [--against FILE]\n"
                    "       tktune profile --root DIR --cpu CPU --log FILE --work DIR --tkgen PATH [--cc CC]\n"
                    "                      [--budget N] [--timeout S] [--kc K]\n"
                    "       tktune retune --root DIR --cpu CPU --work DIR --tkgen PATH [--log FILE] [--out TABLE]\n"
                    "                     [--shapes FILE] [--budget-s S] [--budget N] [--top K] [--max-dim D] [--sample-ms MS] [--cc CC]\n"
                    "                     [--rows M|LO..HI|LO..*] [--cols N|LO..HI|LO..*] [--prior-runs R] [--table TABLE] [--shapes-only] [--dry-run]\n"
                    "       tktune evaluate --root DIR --cpu CPU --work DIR --tkgen PATH --shapes FILE [--table TABLE] [--log FILE]\n"
                    "                       [--sample-ms MS] [--rounds R] [--cc CC] [--warm]\n"
                    "       tktune keep --root DIR --cpu CPU --log FILE --records FILE\n");
    exit(2);
}

/* 1 when this machine executes the ISA's code natively (its family, and its feature flag if any) */
static int isa_runs_here(const isa_desc *isa)
{
    char want[128];
    const char *arch = !strcmp(isa->family, "x86") ? "x86_64" : !strcmp(isa->family, "arm") ? "aarch64"
                       : !strcmp(isa->family, "riscv") ? "riscv64" : NULL;
    snprintf(want, sizeof want, "arch=%s", arch ? arch : "");
    if (arch && !host_matches(want)) return 0;
    snprintf(want, sizeof want, "feat=%s", isa->host_feature);
    return !strcmp(isa->host_feature, "none") || host_matches(want);
}

int main(int argc, char **argv)
{
    const char *cpu = NULL, *cmd = argc > 1 ? argv[1] : "";
    int list = 0, budget = 16;
    unsigned long long want_kc = 256;
    profile_opts o = {NULL, NULL, NULL, NULL, "cc", 30.0, 1, NULL, NULL, 0};
    const char *out_path = NULL, *table_file = NULL;
    const char *shapes = NULL;
    const char *against = NULL; /* calibrate: a second log whose groups the fitted model ranks, unfitted */
    const char *records = NULL; /* keep: an evaluate run's records */
    double budget_s = 540;
    int top = 16, dry = 0, warm = 0, prior_runs = 16, shapes_only = 0, rounds = 0;
    double max_dim = 0;
    range rows = {0, 0}, cols = {0, 0};
    if (strcmp(cmd, "candidates") && strcmp(cmd, "profile") && strcmp(cmd, "machine") && strcmp(cmd, "table") &&
        strcmp(cmd, "retune") && strcmp(cmd, "evaluate") && strcmp(cmd, "calibrate") && strcmp(cmd, "keep"))
        usage();
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) g_root = argv[++i];
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = argv[++i];
        else if (!strcmp(argv[i], "--list")) list = 1;
        else if (!strcmp(argv[i], "--log") && i + 1 < argc) o.log = argv[++i];
        else if (!strcmp(argv[i], "--work") && i + 1 < argc) o.work = argv[++i];
        else if (!strcmp(argv[i], "--tkgen") && i + 1 < argc) o.tkgen = argv[++i];
        else if (!strcmp(argv[i], "--cc") && i + 1 < argc) o.cc = argv[++i];
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) budget = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) o.timeout_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--kc") && i + 1 < argc) want_kc = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
        else if (!strcmp(argv[i], "--table") && i + 1 < argc) table_file = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) shapes = argv[++i];
        else if (!strcmp(argv[i], "--against") && i + 1 < argc) against = argv[++i];
        else if (!strcmp(argv[i], "--records") && i + 1 < argc) records = argv[++i];
        else if (!strcmp(argv[i], "--budget-s") && i + 1 < argc) budget_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--top") && i + 1 < argc) top = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--prior-runs") && i + 1 < argc) prior_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sample-ms") && i + 1 < argc) o.sample_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--dry-run")) dry = 1;
        else if (!strcmp(argv[i], "--shapes-only")) shapes_only = 1;
        else if (!strcmp(argv[i], "--warm")) warm = 1;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            /* evaluate's paired rounds: an odd count (each score a median) */
            rounds = atoi(argv[++i]);
            if (rounds < 1 || rounds > EVALUATE_MAX_ROUNDS || rounds % 2 == 0) usage();
        }
        else if (!strcmp(argv[i], "--max-dim") && i + 1 < argc) max_dim = atof(argv[++i]);
        else if (!strcmp(argv[i], "--rows") && i + 1 < argc) {
            if (!parse_range(argv[++i], &rows) || rows.lo == 0) usage();
        }
        else if (!strcmp(argv[i], "--cols") && i + 1 < argc) {
            if (!parse_range(argv[++i], &cols) || cols.lo == 0) usage();
        }
        else usage();
    }
    if (!cpu || (rounds && strcmp(cmd, "evaluate"))) usage();
    if (!strcmp(cmd, "keep")) {
        if (!o.log || !records) usage();
        return evaluate_keep(records, o.log, cpu);
    }
    /* the probes read it (their timed samples); a record says when it was not the default */
    if (o.sample_ms < 0) usage();
    if (o.sample_ms > 0) {
        char s[32];
        snprintf(s, sizeof s, "%g", o.sample_ms);
        setenv("TKTUNE_SAMPLE_MS", s, 1);
    } else unsetenv("TKTUNE_SAMPLE_MS");
    static project p;
    static tkt_table t;
    load_project(&p);
    const reg_row *c = reg_find(&p.reg, cpu);
    if (!c) die("CPU '%s' is not in the registry", cpu);
    if (!load_table(&p, c, &t)) return 1;
    const isa_desc *isa = load_isa(&p, c->isa, p.reg.path, c->line);
    if (!isa) return 1;
    records_bind_kernels(isa);
    cand_caps k = cand_caps_of(isa, &t);
    static cand_l0 l0[8192];
    int n0 = cand_level0(isa, l0, 8192);
    if (n0 > 8192) die("level 0 has %d candidates, more than this build can hold", n0);

    if (!strcmp(cmd, "retune") || !strcmp(cmd, "evaluate")) {
        /* the whole run behind `make retune` (retune.c); the log and the table sit side by side */
        static char tpath[1200], lpath[1200];
        retune_opts ro;
        if (!o.work || !o.tkgen || budget < 1 || top < 1 || budget_s <= 0 || prior_runs < 0) usage();
        static char prefix[700];
        cross_tc tc;
        const char *board = getenv("TK_RUN");
        int estimated = 0;
        if (!isa_runs_here(isa) && dry && !cross_toolchain(isa, &tc)) {
            /* a dry run measures nothing: with no way to run or estimate the ISA here, it prints the
             * plan of a machine that runs it (CI hosts without AVX-512 still check spr's plan) */
            printf("dry run: %s (%s) cannot run here; the plan is that of a machine that runs it\n", cpu, isa->name);
        } else if (!isa_runs_here(isa)) {
            /* another CPU: measured on its board through TK_RUN, or estimated here */
            if (!cross_toolchain(isa, &tc)) die("%s (%s) cannot run here and no cross toolchain is known for it", cpu, isa->name);
            o.cc = tc.cc;
            if (board && *board) {
                o.run_prefix = board;
            } else {
                if (!t.mca_cpu[0] || !t.qemu_cpu[0] || !strcmp(isa->emulator, "none"))
                    die("%s cannot run here: estimating it needs mca_cpu and qemu_cpu in %s and an emulator for %s "
                        "(or set TK_RUN to a command that runs binaries on the board)", cpu, t.path, isa->name);
                snprintf(prefix, sizeof prefix, "%s -cpu %s", isa->emulator, t.qemu_cpu);
                o.run_prefix = prefix;
                o.evidence = "emulated";
                estimated = 1;
            }
        }
        table_path(c, tpath, sizeof tpath);
        snprintf(lpath, sizeof lpath, "%.*s.records", (int)(strlen(tpath) - 4), tpath);
        if (!strcmp(cmd, "evaluate")) {
            static tkt_table other;
            if (!shapes) usage();
            o.cpu = cpu;
            if (!o.log) o.log = lpath;
            /* another version of the CPU's table (e.g. one a retune just wrote elsewhere) */
            if (table_file && !parse_table(table_file, isa, &other)) return 1;
            return evaluate_run(&o, shapes, isa, table_file ? &other : &t, &k, warm, rounds ? rounds : 5);
        }
        memset(&ro, 0, sizeof ro);
        ro.po = o;
        ro.po.cpu = cpu;
        if (!ro.po.log) ro.po.log = lpath;
        ro.out = out_path ? out_path : tpath;
        ro.shapes = shapes;
        ro.budget_s = budget_s;
        ro.l0_budget = budget;
        ro.topk = top;
        ro.prior_runs = prior_runs;
        ro.dry_run = dry;
        ro.estimated = estimated;
        ro.max_dim = max_dim;
        ro.rows = rows;
        ro.cols = cols;
        ro.shapes_only = shapes_only;
        {
            /* another version of the CPU's table to start from: its rows are the previous ones */
            static tkt_table from;
            if (table_file && !parse_table(table_file, isa, &from)) return 1;
            return retune_run(&ro, isa, table_file ? &from : &t, &k, l0, n0);
        }
    }

    if (!strcmp(cmd, "table") || !strcmp(cmd, "calibrate")) {
        /* measured level 0 + modelled blocks -> buckets -> a new table, written atomically; or only
         * the model's constants fitted to the log (calibrate) */
        static measured_l0 ml[4096];
        static tkt_table nt;
        calib_info ci;
        char err[1300], date[32], desc[600];
        time_t now = time(NULL);
        if (!o.log || (!strcmp(cmd, "table") && (!out_path || !o.tkgen || !o.work))) usage();
        int n = read_level0(o.log, cpu, ml, 4096);
        if (n == 0) die("%s has no successful level-0 record for %s: run tktune profile first", o.log, cpu);
        model_machine h = calib_machine(o.log, cpu, &t, &k, ml, n, &ci);
        calib_describe(&h, &ci, desc, sizeof desc);
        if (!strcmp(cmd, "calibrate")) {
            printf("model: %s\n", desc);
            if (against) {
                /* held-out shapes (an evaluate run's records): how the constants fitted above, and
                 * the defaults, rank groups the fit never saw; the kernels are this log's level 0 */
                static calib_rec held[1 << 16];
                int groups = 0, nh = calib_read(against, cpu, &k, ml, n, held, (int)(sizeof held / sizeof held[0]), &groups, 1);
                if (groups == 0) die("%s has no whole-shape measurement of %s with a kernel that %s profiled", against, cpu, o.log);
                printf("against %s: first choice %.3f of the group's best (defaults %.3f) over %d measurements in %d groups\n",
                       against, calib_score(&h, held, nh), calib_score(&ci.base, held, nh), nh, groups);
            }
            return 0;
        }
        nt = t;
        nt.n = choose_rows(isa, &k, &h, ml, n, nt.rows, MAXROWS);
        if (nt.n <= 0) die("no table rows could be chosen");
        snprintf(nt.source, sizeof nt.source, "measured");
        snprintf(nt.tuner, sizeof nt.tuner, "tktune 0.1 (level 0 measured, blocks chosen by the Helix model)");
        strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
        snprintf(nt.date, sizeof nt.date, "%s", date);
        nt.nnotes = 0;
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "level 0: %d microkernels measured on this machine (record log %s)", n, o.log);
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "blocks: Helix model over bandwidths %s (L2 %.3g, L3 %.3g, DRAM %.3g B/s)", ci.have_bw ? "measured" : "assumed from dram_gbs", h.bw_l2, h.bw_l3, h.bw_dram);
        /* rows set by hand stay, as a retune keeps them */
        if (!retune_keep_pinned(&t, &nt, err, sizeof err)) die("%s: %s", t.path, err);
        /* as a retune does: tkgen checks the table (and builds its select tree) before it replaces
         * the old one, so no table the build refuses is ever written */
        if (!table_replace(&o, isa, &nt, out_path, "the model", err, sizeof err)) die("%s", err);
        printf("tktune: wrote %s (%d rows)\n", out_path, nt.n);
        return 0;
    }

    if (!strcmp(cmd, "machine")) {
        /* the bandwidths the model needs, measured here; appended to the log when one is given */
        char line[512];
        int ok = machine_record(cpu, &k, o.log, line, sizeof line);
        fputs(line, stdout);
        return ok ? 0 : 1;
    }

    if (!strcmp(cmd, "profile")) {
        static cand_l0 pick[8192];
        static unsigned long long kcs[8192];
        if (!o.log || !o.work || !o.tkgen || budget < 1) usage();
        o.cpu = cpu;
        int np = level0_plan(l0, n0, &k, budget, want_kc, pick, kcs);
        mkdir(o.work, 0777);
        int ran = profile_level0(&o, isa, pick, np, kcs);
        printf("tktune: %d level-0 candidates measured for %s, log %s\n", ran, cpu, o.log);
        return 0;
    }

    unsigned long long n1 = 0, n2 = 0, n3 = 0;
    for (int i = 0; i < n0; i++) {
        unsigned long long kcs[64], mcs[64], ncs[64];
        int a = cand_kc(&l0[i], &k, kcs, 64);
        if (list)
            printf("%ux%u%s ku%u %s:", l0[i].mr, l0[i].nv, isa->vla ? "v" : "vec", l0[i].ku,
                   l0[i].direct ? "direct" : "packed");
        for (int j = 0; j < a && j < 64; j++) {
            int b = cand_mc(&l0[i], kcs[j], &k, mcs, 64), d = cand_nc(&l0[i], kcs[j], &k, ncs, 64);
            n1++;
            n2 += (unsigned long long)b;
            n3 += (unsigned long long)b * (unsigned long long)d;
            if (list) printf(" kc%llu(mc x%d, nc x%d)", kcs[j], b, d);
        }
        if (list) printf("\n");
    }
    unsigned long long threads = 2ull * (k.cores ? k.cores : 1);
    printf("cpu %s (%s, %llu f32 lanes per vector): L1 %llu B, L2 %llu B, L3 %llu B, %u cores\n", cpu, isa->name,
           k.lanes_per_vector, k.l1, k.l2, k.l3, k.cores);
    printf("records of this code carry %s\n", records_kernels());
    printf("level 0  register tile x k unroll x form   %d\n", n0);
    printf("level 1  + kc (micro-panels fit L1)         %llu\n", n1);
    printf("level 2  + mc (packed A fits L2/2)          %llu\n", n2);
    printf("level 3  + nc (packed B fits L3/2)          %llu\n", n3);
    printf("threads  x split m|n x 1..%u ways           %llu\n", k.cores, n3 * threads);
    return 0;
}
