/* measure.c - whole configurations on whole shapes: what the tuner trusts over its model. The probe
 * runs the CPU's generated blocked driver (tki_gemm_f32_part_<cpu>, the code every table row runs)
 * with a configuration given at run time, so one compiled probe measures every candidate. A shape
 * that gets an exact-shape row has a probe of its own (exact_probe_build) that runs each candidate
 * as its exact-shape instance (docs/tables.md): folding the shape into the code changes which
 * candidate is fastest (48x48x48: 9x48 kc24 won through the generic driver, lost 0.74x as an
 * instance). Each measurement runs in a child process with a time limit (one that serves a run's
 * measurements, srv_run; under a run prefix one a measurement), checks its result, and becomes one
 * line of the record log. */
#include "measure.h"
#include "buckets.h"

#include "../bench/cold.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Writes the probe's C source: argv = m n k mr nv ku mc ncp kc packb packa split order pf [check | cold=BYTES]
 * (pf as tkt_row holds it: TKT_PF_ALONG | L, 288 for n32, along the row); or argv = serve: one such
 * argument list per line of standard input, each answered with its output and a line exit=STATUS.
 * cold=BYTES times the calls with A and B taken from consecutive slots of a BYTES arena, a slot further
 * each call, as the bench rotates bandwidth-bound shapes (bench/shim.cc) and as a model's layers come
 * round once per token: every call finds its operands out of cache, whatever their size. A cold run
 * also reads a separate buffer just before and just after the timed calls and prints the slower
 * reading as dram=GB/s: the memory bandwidth this core had while it was timed (see shape_measure).
 * exact 0: RUN() is the generic blocked driver with the configuration given at run time; exact > 0:
 * the table's first `exact` rows are exact-shape rows, and RUN() calls the plain instance
 * (tk_gemm_f32's, every argument in a register) of the one that has that configuration
 * (exact_probe_build). */
static int write_source(const char *path, const char *sym, const char *isa, int exact, const tkt_row *rows,
                        const char *const want[3])
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    char header[64];
    snprintf(header, sizeof header, "gemm_f32_%s", sym);
    write_probe_prelude(f, exact ? "times one exact-shape instance of its table on its shape"
                                 : "times one configuration of the generated driver on one shape", header, isa, !exact,
                        want);
    if (exact) {
        /* found by its decisions, not by kernel pointers: the kernel lists would compile every
         * kernel of the ISA into the probe. The prefetch distance is the one decision the
         * configuration does not hold (it is part of the kernel), so the probe's table lists it. */
        fprintf(f, "static const unsigned row_pf[] = {");
        for (int j = 0; j < exact; j++) fprintf(f, "%s%u", j ? ", " : "", rows[j].pf);
        fprintf(f,
                "};\n"
                "/* the row of this probe's table with configuration q, whose exact-shape instance runs */\n"
                "static int row_of(const tki_gemm_cfg *q, unsigned pf, int packa) {\n"
                "    int j;\n"
                "    for (j = 0; j < %d; j++) {\n"
                "        const tki_gemm_cfg *r = &tki_gemm_f32_cfgs_%s()[j];\n"
                "        if (r->mr == q->mr && r->nv == q->nv && r->ku == q->ku && row_pf[j] == pf && r->mc == q->mc &&\n"
                "            r->ncp == q->ncp && r->kc == q->kc && r->packb == q->packb && r->split == q->split &&\n"
                "            r->order == q->order && (r->dot ? 2 : !r->ukr_direct) == packa) return j;\n"
                "    }\n"
                "    return -1;\n}\n",
                exact, sym);
    }
    /* the kernels of the configuration on the command line (generic probe), or its row (exact) */
    char lookup[1024];
    if (exact)
        snprintf(lookup, sizeof lookup,
                 "    row = row_of(&cfg, pf, packa);\n"
                 "    if (row < 0) return 3;\n"
                 "    cfg = tki_gemm_f32_cfgs_%s()[row];\n", sym);
    else
        snprintf(lookup, sizeof lookup, "%s",
                 "    cfg.dot = packa == 2; /* the dot form: its own kernel list, nv counts columns */\n"
                 "    cfg.ukr = find(cfg.dot ? dot : packed, mr, nv, ku, pf); cfg.ukr_direct = packa ? 0 : find(direct, mr, nv, ku, pf);\n"
                 "    cfg.ukr_sweep = packa ? 0 : find(sweep, mr, nv, ku, pf);\n"
                 "    cfg.ukr_row1 = packa || mr < 2 ? 0 : find(row1, mr, nv, ku, pf);\n"
                 "    cfg.ukr_row1_sweep = packa || mr < 2 ? 0 : find(row1_sweep, mr, nv, ku, pf);\n"
                 "    if (!cfg.ukr || (!packa && (!cfg.ukr_direct || !cfg.ukr_sweep))) return 3;\n"
                 "    if (!packa && mr > 1 && (!cfg.ukr_row1 || !cfg.ukr_row1_sweep)) return 3;\n");
    if (exact) {
        /* the plain instance, as tk_gemm_f32 runs it: the descriptor instance that the probe timed
         * until session 12 folds less (16x16x16 on the Zen 5: ku 16 lost to ku 4 there, 150 against
         * 158 GFLOP/s, and won through tk_gemm_f32, 190-195 against 176-183). Alpha 1 and beta 0
         * as constants, as an application writes them (and the bench calls tk_gemm_f32): the
         * instance is inlined into the caller and folds them. Read from the descriptor until
         * session 50, they were not folded: 13x17x33 on 13x32 ran 54 GFLOP/s here and 105-110
         * called as users call it, where 13x16 ku8 ran 83 either way, and the retune chose 13x16
         * (spr) */
        fprintf(f, "static tk_status plain(int row, const tk_gemm_desc *q) {\n    switch (row) {\n");
        for (int j = 0; j < exact; j++)
            fprintf(f, "    case %d: return tki_gemm_f32_exactnn_%s_%d(1.0f, q->a, q->lda, q->b, q->ldb, 0.0f, q->c, q->ldc);\n",
                    j, sym, j);
        fprintf(f, "    default: return TK_ERR_NULL; /* no such row */\n    }\n}\n"
                   "#define RUN() do { if (plain(row, &d) != TK_OK) return 6; } while (0)\n");
    } else
        /* the configuration as tk_gemm_f32 runs a row of it: a call that one direct tile (or the
         * sweeps) covers takes the plain entry's single-tile path, anything else the generic driver
         * (checks, descriptor, the static workspace). Until session 79 every call went through the
         * partition driver, which cost the one-block rows of small products their advantage: 2 x
         * 1..8 took 2x16 kc 16 over 2x64 kc 768 (+6% here), which read 2x8x50 at 0.64-0.71 of it in
         * make bench; until session 80 what the single tile turned away went to the partition
         * alone, without the generic driver's cost (4 x 9..12 x 1..64 took 4x16 kc 16, 4x11x20
         * 0.62 of the row before it in make bench). A refused call (a static buffer too small for
         * the configuration's blocks, as a user's plain call would be) fails the probe. */
        fprintf(f, "#define RUN() do { if (tki_gemm_f32_plain_cfg_call_%s(&cfg, d.m, d.n, d.k, 1.0f, d.a, d.lda, d.b, d.ldb, 0.0f, d.c, d.ldc) != TK_OK) return 6; } while (0)\n"
                   "static tki_ukr_fn find(const entry *e, unsigned mr, unsigned nv, unsigned ku, unsigned pf) {\n"
                   "    const entry *x = find_entry(e, mr, nv, ku, pf);\n"
                   "    return x ? x->f : 0;\n}\n", sym);
    fprintf(f,
            /* the cold arena and the bandwidth buffer (64 MiB and more) come mapped and faulted in at
             * once: faulting 256 MiB page by page on first write took about a quarter of a cold
             * measurement (a probe 0.31 s, 0.24 s populated; 4 KiB pages either way, as the bench's) */
            "#include <sys/mman.h>\n"
            "static float *falloc(size_t n) {\n"
            "    size_t bytes = (n * 4 + 63) / 64 * 64;\n"
            "#ifdef MAP_POPULATE\n"
            "    if (bytes >= ((size_t)64 << 20)) {\n"
            "        void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);\n"
            "        return p == MAP_FAILED ? 0 : (float *)p;\n"
            "    }\n"
            "#endif\n"
            "    return aligned_alloc(64, bytes);\n}\n"
            "static void ffree(float *p, size_t n) {\n"
            "    size_t bytes = (n * 4 + 63) / 64 * 64;\n"
            "#ifdef MAP_POPULATE\n"
            "    if (p && bytes >= ((size_t)64 << 20)) { munmap(p, bytes); return; }\n"
            "#endif\n"
            "    free(p);\n}\n"
            /* a slot anywhere: the arena holds the pattern of A throughout, so A and B taken from any
             * offset of it are exact, and a probe serving many measurements fills it once (its
             * mapping and first fill were most of a cold measurement: 0.9 s of 1 GiB, session 84) */
            "/* the cold arena: every float a multiple of 1/4 in [-0.75, 0.75], A's pattern, so A and B may sit at\n"
            " * any offset and every sum stays exact. Filled once per size and kept while the probe serves; each\n"
            " * call takes the slot after the last one's, so no call finds a slot a recent one touched. */\n"
            "static float *arena; static size_t arena_floats, arena_pos;\n"
            "static int arena_get(size_t bytes) {\n"
            "    size_t i, n = bytes / 4; int r = 0;\n"
            "    if (arena && arena_floats == n) return 1;\n"
            "    ffree(arena, arena_floats);\n"
            "    arena_floats = 0, arena_pos = 0;\n"
            "    if (!(arena = falloc(n))) return 0;\n"
            "    for (i = 0; i < n; i++) { arena[i] = 0.25f * (float)(r - 3); if (++r == 7) r = 0; }\n"
            "    arena_floats = n;\n"
            "    return 1;\n}\n"
            "/* 64 sampled elements of C against a double-precision sum: 4 (and where) unless all are exact */\n"
            "static int check(const float *a, const float *b, const float *c, size_t m, size_t n, size_t k) {\n"
            "    size_t i, j, p; int s;\n"
            "    for (s = 0; s < 64; s++) {\n"
            "        double want = 0; i = (size_t)s * 7919 %% m; j = (size_t)s * 104729 %% n;\n"
            "        if (s == 0) i = m - 1, j = n - 1;\n"
            "        for (p = 0; p < k; p++) want += (double)a[i * k + p] * (double)b[p * n + j];\n"
            "        if ((double)c[i * n + j] != want) { printf(\"wrong at %%zu,%%zu: %%g, want %%g\\n\", i, j, (double)c[i * n + j], want); return 4; }\n"
            "    }\n"
            "    return 0;\n}\n"
            "/* GB/s of one core reading memory: the median of 5 reads of 16 MiB chunks of an 80 MiB buffer, each\n"
            " * chunk read last 64 MiB ago and so out of the last-level cache of the CPUs tk tunes on. Vectors\n"
            " * of 64 bytes in 4 sums, so the loads, not the adds, set the pace. */\n"
            "typedef float tkp_v16 __attribute__((vector_size(64)));\n"
            "#define DRAM_CHUNK ((size_t)16 << 20)\n"
            "static double dram_read(const float *buf) {\n"
            "    double g[5], t0; int r; size_t i, n = DRAM_CHUNK / 64;\n"
            "    for (r = 0; r < 5; r++) {\n"
            "        const tkp_v16 *q = (const tkp_v16 *)(buf + (size_t)r * (DRAM_CHUNK / 4));\n"
            "        tkp_v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};\n"
            "        t0 = now();\n"
            "        for (i = 0; i + 4 <= n; i += 4) { s0 += q[i]; s1 += q[i + 1]; s2 += q[i + 2]; s3 += q[i + 3]; }\n"
            "        g[r] = (double)DRAM_CHUNK / (now() - t0) * 1e-9;\n"
            "        s0 += s1 + s2 + s3;\n"
            "        if (s0[0] == -1.0f) g[r] = 0; /* never: the sums are of non-negative values; keeps the loads */\n"
            "    }\n"
            "    qsort(g, 5, sizeof g[0], cmp);\n"
            "    return g[2];\n}\n"
            "static float *dbuf; /* the bandwidth reading's buffer, kept while the probe serves */\n"
            "/* the timed part of a measurement, on operands a (m x k), b (k x n) and c (m x n) */\n"
            "static int timed(size_t m, size_t n, size_t k, unsigned mr, tki_gemm_cfg cfg, int row, size_t arena_bytes,\n"
            "                 const float *a, const float *b, float *c, int check_only) {\n"
            "    size_t reps, r, boff, slot; int s, ns, use = 0; double g[7], t0, t1, smp, bw0 = 0, bw1 = 0;\n"
            "    tk_gemm_desc d;\n"
            "    memset(&d, 0, sizeof d);\n"
            "    d.transa = d.transb = TK_NO_TRANS; d.m = m; d.n = n; d.k = k; d.alpha = 1; d.a = a; d.lda = k;\n"
            "    d.b = b; d.ldb = n; d.c = c; d.ldc = n; d.nparts = 1;\n"
            "    (void)row; /* (the exact probe's RUN() reads it) */\n"
            "    RUN();\n"
            "    if (getenv(\"TKTUNE_TEST_WRONG_MR\") && (unsigned)atoi(getenv(\"TKTUNE_TEST_WRONG_MR\")) == mr) c[m * n - 1] += 1;\n"
            "    if (check(a, b, c, m, n, k)) return 4;\n"
            "    if (check_only) { printf(\"check=ok\\n\"); return 0; }\n"
            "    /* cold: A and B from the arena, a slot further each call; a B larger than half the arena is\n"
            "     * out of cache by its own size and stays where it is */\n"
            "    boff = (m * k + 15) / 16 * 16; /* B's offset in a slot: 64-byte aligned, as A */\n"
            "    slot = boff + (k * n + 15) / 16 * 16;\n"
            "    if (arena_bytes / 4 / slot >= 2) {\n"
            "        if (!arena_get(arena_bytes)) return 5;\n"
            "        use = 1;\n"
            "    }\n"
            "    if (arena_bytes && !dbuf) {\n"
            "        if (!(dbuf = falloc(5 * DRAM_CHUNK / 4))) return 5;\n"
            "        memset(dbuf, 0, 5 * DRAM_CHUNK); /* written: every page its own, none the shared zero page */\n"
            "    }\n"
            "#define NEXT() do { if (use) { if (arena_pos + slot > arena_floats) arena_pos = 0;\\\n"
            "    d.a = arena + arena_pos; d.b = d.a + boff; arena_pos += slot; } } while (0)\n"
            "    /* the first read only evicts the dirty lines of the fills above: their write-back halved it */\n"
            "    if (arena_bytes) dram_read(dbuf), bw0 = dram_read(dbuf);\n"
            "    NEXT(); t0 = now(); RUN(); t1 = now() - t0;\n"
            "    /* samples of 4 ms unless tktune --sample-ms says otherwise (a test's quick runs) */\n"
            "    smp = getenv(\"TKTUNE_SAMPLE_MS\") ? atof(getenv(\"TKTUNE_SAMPLE_MS\")) * 1e-3 : 0.004;\n"
            "    if (!(smp > 0)) smp = 0.004;\n"
            "    reps = t1 > smp ? 1 : (size_t)(smp / (t1 > 1e-8 ? t1 : 1e-8)) + 1;\n"
            "    /* a call of 20 ms or more: 3 samples, and the call above was its warm-up */\n"
            "    ns = t1 > 0.02 ? 3 : 7;\n"
            "    for (s = ns == 3 ? 0 : -1; s < ns; s++) {\n"
            "        t0 = now();\n"
            "        for (r = 0; r < reps; r++) { NEXT(); RUN(); }\n"
            "        if (s >= 0) g[s] = 2.0 * m * n * k * reps / (now() - t0) * 1e-9;\n"
            "    }\n"
            "    if (arena_bytes) bw1 = dram_read(dbuf);\n"
            "    /* tests: memory another machine keeps busy, as the reading shows it */\n"
            "    if (getenv(\"TKTUNE_TEST_BUSY_MR\") && (unsigned)atoi(getenv(\"TKTUNE_TEST_BUSY_MR\")) == mr) bw0 /= 4, bw1 /= 4;\n"
            "    /* the timed calls computed right too (cold: on the last call's slot) */\n"
            "    if (check(d.a, d.b, c, m, n, k)) return 4;\n"
            "    qsort(g, (size_t)ns, sizeof g[0], cmp);\n"
            "    printf(\"gflops=%%.2f spread=%%.3f\", g[ns / 2], (g[ns - 1 - ns / 4] - g[ns / 4]) / g[ns / 2]);\n"
            "    if (arena_bytes) printf(\" dram=%%.1f\", bw0 < bw1 ? bw0 : bw1);\n"
            "    printf(\"\\n\");\n"
            "    return 0;\n}\n"
            "/* one measurement: argv as the file's head says */\n"
            "static int measure(int argc, char **argv) {\n"
            "    size_t m, n, k, i, arena_bytes = 0;\n"
            "    unsigned mr, nv, ku, pf; int packa, rc; cpu_set_t set;\n"
            "    tki_gemm_cfg cfg; float *a, *b, *c; int row;\n"
            "    if (argc != 15 && argc != 16) return 2; /* a 15th argument: check only (or cold=BYTES) */\n"
            "    if (argc == 16 && !strncmp(argv[15], \"cold=\", 5)) arena_bytes = strtoull(argv[15] + 5, 0, 10), argc = 15;\n"
            "    m = strtoul(argv[1], 0, 10); n = strtoul(argv[2], 0, 10); k = strtoul(argv[3], 0, 10);\n"
            "    mr = atoi(argv[4]); nv = atoi(argv[5]); ku = atoi(argv[6]); packa = atoi(argv[11]); pf = atoi(argv[14]);\n"
            "    memset(&cfg, 0, sizeof cfg);\n"
            "    cfg.mr = mr; cfg.nv = nv; cfg.ku = ku; cfg.mc = atoi(argv[7]); cfg.ncp = atoi(argv[8]); cfg.kc = atoi(argv[9]);\n"
            "    cfg.packb = atoi(argv[10]); cfg.split = argv[12][0]; cfg.order = argv[13][0];\n"
            "%s%s"
            "    if (row < 0) return 7;\n"
            "    if (getenv(\"TKTUNE_TEST_CRASH_MR\") && (unsigned)atoi(getenv(\"TKTUNE_TEST_CRASH_MR\")) == mr) raise(SIGSEGV);\n"
            "    if (getenv(\"TKTUNE_TEST_HANG_MR\") && (unsigned)atoi(getenv(\"TKTUNE_TEST_HANG_MR\")) == mr) for (;;) {}\n"
            "    CPU_ZERO(&set); CPU_SET(0, &set); sched_setaffinity(0, sizeof set, &set);\n"
            "    /* (no workspace: a configuration runs in the plain entry's static buffer, as users' calls do) */\n"
            "    a = falloc(m * k); b = falloc(k * n); c = falloc(m * n);\n"
            "    rc = 5;\n"
            "    if (a && b && c) {\n"
            "        /* multiples of 1/4 in [-0.75, 0.75]: every sum below 2^20 terms is exact in float */\n"
            "        for (i = 0; i < m * k; i++) a[i] = 0.25f * (float)((int)(i %% 7) - 3);\n"
            "        for (i = 0; i < k * n; i++) b[i] = 0.25f * (float)((int)(i %% 5) - 2);\n"
            "        rc = timed(m, n, k, mr, cfg, row, arena_bytes, a, b, c, argc == 16);\n"
            "    }\n"
            "    ffree(a, m * k); ffree(b, k * n); ffree(c, m * n);\n"
            "    return rc;\n}\n"
            "int main(int argc, char **argv) {\n"
            "    char line[512], *av[17]; int ac;\n"
            "    if (argc != 2 || strcmp(argv[1], \"serve\")) return measure(argc, argv);\n"
            "    /* serving: one measurement per line of standard input (its arguments), each answered with its\n"
            "     * output and a last line exit=STATUS; the arena and the bandwidth buffer stay mapped */\n"
            "    while (fgets(line, sizeof line, stdin)) {\n"
            "        char *t;\n"
            "        av[0] = argv[0], ac = 1;\n"
            "        for (t = strtok(line, \" \\n\"); t && ac < 16; t = strtok(0, \" \\n\")) av[ac++] = t;\n"
            "        av[ac] = 0;\n"
            "        printf(\"exit=%%d\\n\", measure(ac, av));\n"
            "        fflush(stdout);\n"
            "    }\n"
            "    return 0;\n}\n",
            lookup, exact ? "" : "    row = 0;\n");
    return fclose(f) == 0;
}

/* "MRxNVxKU" of row r (with "pPF" for a prefetching kernel, PF as the table's pf column writes it),
 * for tkgen's --tiles and --direct lists; "MRxNBxKU" of a dot row, for --dot */
static void tile_arg(const isa_desc *isa, const tkt_row *r, char *out, size_t cap)
{
    snprintf(out, cap, "%ux%ux%u", r->mr, isa->vla || r->packa == TKT_DOT ? r->nr : r->nr / isa->lanes, r->ku);
    char pf[8];
    if (r->pf) snprintf(out + strlen(out), cap - strlen(out), "p%s", tkt_pf_text(r->pf, pf));
}

static void add_tile(char *list, size_t cap, const char *tile)
{
    char padded[80];
    snprintf(padded, sizeof padded, ",%s,", tile);
    /* the list is kept as ",a,b," while it grows, so membership is one search */
    if (!*list) snprintf(list, cap, ",");
    if (!strstr(list, padded) && strlen(list) + strlen(tile) + 2 < cap) {
        strcat(list, tile);
        strcat(list, ",");
    }
}

/* the bench sizes its buffer from the host's cache, so a probe run here does too */
unsigned long long shape_cold_bytes(const profile_opts *o, const tkt_table *t)
{
    return tkb_cold_buffer_for(t->l3 > t->l2 ? t->l3 : t->l2, !o->run_prefix);
}

/* The kernels a generic probe may be asked for, those of rows[] (the candidates), as the conditions
 * write_probe_prelude takes: packed (every form but the dot form runs its packed kernel), direct
 * and dot; NULL (every kernel) when they would not fit. */
static const char *const *probe_want(const isa_desc *isa, const tkt_row *rows, int n)
{
    static char list[3][65536];
    static const char *want[3];
    char term[128];
    for (int l = 0; l < 3; l++) snprintf(list[l], sizeof list[l], "0");
    for (int i = 0; i < n; i++) {
        const tkt_row *r = &rows[i];
        int dot = r->packa == TKT_DOT;
        snprintf(term, sizeof term, " || (mr == %u && nv == %u && ku == %u && pf == %u)", r->mr,
                 isa->vla || dot ? r->nr : r->nr / isa->lanes, r->ku, r->pf);
        for (int l = 0; l < 3; l++) {
            if (l == 0 ? dot : l == 1 ? dot || r->packa : !dot) continue;
            if (strstr(list[l], term)) continue;
            if (strlen(list[l]) + strlen(term) + 1 > sizeof list[l]) return NULL;
            strcat(list[l], term);
        }
    }
    for (int l = 0; l < 3; l++) want[l] = list[l];
    return want;
}

int shape_probe_build(shape_probe *p, const profile_opts *o, const isa_desc *isa, const tkt_table *t,
                      const tkt_row *rows, int nrows, const char *sub, int compile)
{
    static char tiles[16384], direct[16384], dot[4096];
    static tkt_table cut;
    char cmd[40000], gen[1024], src[1100], sym[40], one[64];
    tiles[0] = direct[0] = dot[0] = 0;
    p->o = o, p->isa = isa, p->t = t, p->cold_bytes = shape_cold_bytes(o, t);
    /* the table's rows as tkgen instantiates them, the cut ones included (tkt_short_rows): the
     * framework built below names their kernels */
    cut = *t;
    if (!tkt_short_rows(isa, &cut)) return 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < (pass ? nrows : cut.n); i++) {
            const tkt_row *r = pass ? &rows[i] : &cut.rows[i];
            tile_arg(isa, r, one, sizeof one);
            if (r->packa == TKT_DOT) {
                add_tile(dot, sizeof dot, one);
                continue;
            }
            add_tile(tiles, sizeof tiles, one); /* every other tile has its packed form */
            if (!r->packa) add_tile(direct, sizeof direct, one);
        }
    cpu_symbol(t->cpu, sym, sizeof sym);
    snprintf(gen, sizeof gen, "%s/%s", o->work, sub);
    /* the framework for the CPU's table, then the kernel header again with every candidate tile */
    snprintf(cmd, sizeof cmd, "'%s' build --root '%s' --cpus %s --default %s --out '%s' && '%s' ukr --root '%s' --isa %s --tiles %.*s%s%.*s%s%.*s --out '%s'",
             o->tkgen, g_root, t->cpu, t->cpu, gen, o->tkgen, g_root, isa->name, (int)strlen(tiles + 1) - 1, tiles + 1,
             direct[0] ? " --direct " : "", direct[0] ? (int)strlen(direct + 1) - 1 : 0, direct[0] ? direct + 1 : "",
             dot[0] ? " --dot " : "", dot[0] ? (int)strlen(dot + 1) - 1 : 0, dot[0] ? dot + 1 : "", gen);
    if (system(cmd) != 0) {
        fprintf(stderr, "tktune: generating the shape probe failed (%s)\n", cmd);
        return 0;
    }
    snprintf(src, sizeof src, "%s/probe.c", gen);
    snprintf(p->bin, sizeof p->bin, "%s/probe", gen);
    p->exact = 0;
    if (!write_source(src, sym, isa->name, 0, NULL, probe_want(isa, rows, nrows))) {
        fprintf(stderr, "tktune: cannot write %s\n", src);
        return 0;
    }
    /* its headers are in gen, not beside the source */
    probe_compile_cmd(o, isa, gen, src, p->bin, p->compile, sizeof p->compile);
    return !compile || probes_compile(&p, 1, 1);
}

int exact_probe_build(shape_probe *p, const profile_opts *o, const isa_desc *isa, const tkt_table *t,
                      const tkt_row *cands, int nc, unsigned long long m, unsigned long long n, unsigned long long k,
                      int compile)
{
    static tkt_table et;
    char dir[1100], tab[1200], src[1200], cmd[5000], sym[40];
    FILE *f;
    et = *t;
    et.n = 0;
    for (int j = 0; j < nc && et.n < MAXROWS - 1; j++) {
        tkt_row r = cands[j];
        r.m.lo = r.m.hi = m, r.n.lo = r.n.hi = n, r.k.lo = r.k.hi = k;
        if (!r.evidence[0]) snprintf(r.evidence, sizeof r.evidence, "modelled"); /* a candidate of the model */
        et.rows[et.n++] = r;
    }
    et.rows[et.n++] = t->rows[t->n - 1]; /* the catch-all every table ends with */
    p->o = o, p->isa = isa, p->t = t, p->exact = 1, p->cold_bytes = shape_cold_bytes(o, t);
    snprintf(dir, sizeof dir, "%s/exact-%llux%llux%llu", o->work, m, n, k);
    snprintf(tab, sizeof tab, "%s/table.tkt", dir);
    mkdir(dir, 0777);
    if (!(f = fopen(tab, "w")) || !write_table(f, &et, isa) || fclose(f) != 0) {
        fprintf(stderr, "tktune: cannot write %s\n", tab);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "'%s' build --root '%s' --cpus %s --default %s --out '%s' --table '%s=%s'", o->tkgen, g_root,
             t->cpu, t->cpu, dir, t->cpu, tab);
    if (system(cmd) != 0) {
        fprintf(stderr, "tktune: generating the exact-shape probe failed (%s)\n", cmd);
        return 0;
    }
    cpu_symbol(t->cpu, sym, sizeof sym);
    snprintf(src, sizeof src, "%s/probe.c", dir);
    snprintf(p->bin, sizeof p->bin, "%s/probe", dir);
    if (!write_source(src, sym, isa->name, et.n - 1, et.rows, NULL)) {
        fprintf(stderr, "tktune: cannot write %s\n", src);
        return 0;
    }
    probe_compile_cmd(o, isa, dir, src, p->bin, p->compile, sizeof p->compile);
    return !compile || probes_compile(&p, 1, 1);
}

/* A compile is one process that keeps one core busy: 30 s for the generic probe, 10-15 s for an
 * exact-shape one on the Zen 4; one after another, the probes took 265 of a run's 540 s there. */
int probes_compile(shape_probe *const *ps, int n, int jobs)
{
    pid_t pid[64];
    int who[64], running = 0, next = 0, ok = 1;
    if (jobs < 1) jobs = 1;
    if (jobs > 64) jobs = 64;
    while (next < n || running > 0) {
        if (ok && next < n && running < jobs) {
            pid_t c = fork();
            if (c == 0) {
                execl("/bin/sh", "sh", "-c", ps[next]->compile, (char *)NULL);
                _exit(127);
            }
            if (c < 0) {
                fprintf(stderr, "tktune: cannot start a compile: %s\n", strerror(errno));
                ok = 0;
                continue;
            }
            pid[running] = c, who[running++] = next++;
            continue;
        }
        int st;
        pid_t done = wait(&st);
        if (done < 0) break;
        for (int i = 0; i < running; i++)
            if (pid[i] == done) {
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    fprintf(stderr, "tktune: a probe does not compile (%s)\n", ps[who[i]]->compile);
                    ok = 0;
                }
                pid[i] = pid[running - 1], who[i] = who[running - 1], running--;
                break;
            }
    }
    return ok;
}

void full_key(const isa_desc *isa, const tkt_row *r, unsigned long long m, unsigned long long n,
              unsigned long long k, char *out, size_t cap)
{
    char pf[24] = "", tok[8];
    /* a kernel that prefetches says so after its unroll (as the table's pf column writes it); records
     * before the decision lack it */
    if (r->pf) snprintf(pf, sizeof pf, " pf=%s", tkt_pf_text(r->pf, tok));
    /* a dot tile counts columns, not vectors */
    snprintf(out, cap, "m=%llu n=%llu k=%llu tile=%ux%u%s ku=%u%s form=%s kc=%llu mc=%llu nc=%llu packb=%d split=%c order=%c",
             m, n, k, r->mr, isa->vla || r->packa == TKT_DOT ? r->nr : r->nr / isa->lanes,
             r->packa == TKT_DOT ? "col" : isa->vla ? "v" : "vec", r->ku, pf,
             r->packa == TKT_DOT ? "dot" : r->packa ? "packed" : "direct", r->kc, r->mc, r->nc / r->nr, r->packb, r->split, r->order);
}

/* Quiet memory for cold runs. A cold run's rate is the memory bandwidth the core gets, and on a
 * shared host another machine's traffic takes part of it: on the Zen 5, with the other core reading
 * memory, 4x1024x512 kc 8 ran 27-29 GFLOP/s and kc 1024 19-23, and 43 against 59 without. Such a
 * spell changes the ranking, not only the rate, so paired runs do not undo it: session 12's three
 * retunes chose kc 8 decode rows that lost 20% in the bench. So each cold run reads the bandwidth
 * around its timed calls (the probe's dram=), and a run that read under QUIET x the reference is
 * run again, up to COLD_TRIES times, COLD_PAUSE_S apart. Every run is a record, a disturbed one
 * marked quiet=no; the last decides (it is the one a resumed run reads), and when it too was
 * disturbed shape_noisy() counts it, so the caller can refuse to decide on it. The
 * reference is a high percentile of every reading of this CPU in the log and in this run (one fast
 * outlier does not raise it). */
#define QUIET 0.8
#define COLD_TRIES 3
#define COLD_PAUSE_S 0.5
#define DRAM_KEEP 65536
static double g_dram[DRAM_KEEP];
static int g_ndram, g_noisy;

static void dram_add(double gbs)
{
    if (gbs > 0 && g_ndram < DRAM_KEEP) g_dram[g_ndram++] = gbs;
}

/* The log's full-level records of this CPU, read once per run (with their dram= readings, the
 * reference's history) and kept up to date by shape_measure: a retune asks for thousands of
 * measurements, and scanning the log (tens of thousands of lines) for each took longer than many
 * of the measurements. A record is found by a
 * 64-bit hash of its decisions and repetition (the text from " level=full " up to " result=");
 * the last record of a key wins, as it did when the log was scanned. */
#define SEEN_CAP (1u << 19)
typedef struct {
    unsigned long long h; /* 0: empty slot */
    double gflops;        /* 0: the measurement failed */
    int noisy;            /* the record says quiet=no */
} seen_rec;
static seen_rec g_seen[SEEN_CAP];
static unsigned g_nseen;
static char g_seen_of[1200]; /* "log cpu" the index holds; empty: not read yet */

static unsigned long long span_hash(const char *s, size_t n)
{
    unsigned long long h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h ? h : 1;
}

static seen_rec *slot_in(seen_rec *tab, unsigned long long h)
{
    unsigned i = (unsigned)h & (SEEN_CAP - 1);
    while (tab[i].h && tab[i].h != h) i = (i + 1) & (SEEN_CAP - 1);
    return &tab[i];
}

static seen_rec *seen_slot(unsigned long long h) { return slot_in(g_seen, h); }

static void seen_put(const profile_opts *o, unsigned long long h, double gflops, int noisy)
{
    seen_rec *s = seen_slot(h);
    if (!s->h && ++g_nseen > SEEN_CAP / 4 * 3) die("%s: more than %u measurements of %s; start a new log", o->log, SEEN_CAP / 4 * 3, o->cpu);
    s->h = h, s->gflops = gflops, s->noisy = noisy;
}

/* the hash of " level=full KEY rep=REP" */
static unsigned long long key_hash(const char *key, int rep)
{
    char span[600];
    int n = snprintf(span, sizeof span, " level=full %s rep=%d", key, rep);
    return span_hash(span, n < (int)sizeof span ? (size_t)n : sizeof span - 1);
}

static void seen_read(const profile_opts *o)
{
    FILE *f = fopen(o->log, "r");
    char line[1024];
    memset(g_seen, 0, sizeof g_seen), g_nseen = 0, g_ndram = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, " level=full "), *res = at ? strstr(at, " result=") : NULL, *gf, *d;
        if (!res || !record_of(line, o->cpu)) continue;
        gf = strstr(res, " gflops=");
        if ((d = strstr(res, " dram="))) dram_add(strtod(d + 6, NULL));
        seen_put(o, span_hash(at, (size_t)(res - at)), !strncmp(res + 8, "ok ", 3) && gf ? strtod(gf + 8, NULL) : 0.0,
                 strstr(res, " quiet=no") != NULL);
    }
    if (f) fclose(f);
}

/* gflops of the full-level record of this key and repetition, -1 when there is none (0: failed);
 * *noisy: that record says quiet=no (see shape_measure) */
static double logged(const profile_opts *o, const char *key, int rep, int *noisy)
{
    char of[sizeof g_seen_of];
    snprintf(of, sizeof of, "%s %s", o->log, o->cpu);
    if (strcmp(of, g_seen_of)) seen_read(o), strcpy(g_seen_of, of);
    const seen_rec *s = seen_slot(key_hash(key, rep));
    if (!s->h) return -1;
    *noisy = s->noisy;
    return s->gflops;
}

/* The record-log prior (see retune.c): per measurement key, by any code, the best rate the recent
 * runs read (repetitions from_rep up to to_rep, quiet and ok); a key is the text from
 * " level=full " up to " rep=". */
static seen_rec g_prior[SEEN_CAP];
static unsigned g_nprior;

int shape_prior_read(const profile_opts *o, int from_rep, int to_rep)
{
    FILE *f = fopen(o->log, "r");
    char line[1024];
    memset(g_prior, 0, sizeof g_prior), g_nprior = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, " level=full "), *rep = at ? strstr(at, " rep=") : NULL, *gf;
        if (!rep || !record_cpu(line, o->cpu) || atoi(rep + 5) < from_rep || atoi(rep + 5) >= to_rep || !strstr(rep, " result=ok ") ||
            strstr(rep, " quiet=no") || !(gf = strstr(rep, " gflops=")))
            continue;
        const unsigned long long h = span_hash(at, (size_t)(rep - at));
        seen_rec *s = slot_in(g_prior, h);
        if (!s->h && ++g_nprior > SEEN_CAP / 4 * 3) break; /* a prior of the first keys is still one */
        const double g = strtod(gf + 8, NULL);
        if (!s->h || g > s->gflops) s->h = h, s->gflops = g;
    }
    if (f) fclose(f);
    return (int)g_nprior;
}

/* the key of a measurement as the log spells it: decisions, then how it ran. cold_bytes: the arena
 * of a cold run (0: warm). Every cold record written before the arena followed the host's cache used
 * 256 MiB, so that size keeps the plain "operands=cold" and any other is named: a reading through one
 * buffer does not stand for one through another (the prior and a resumed run read them by key). */
static void measure_key(const isa_desc *isa, int exact, const tkt_row *r, unsigned long long m, unsigned long long n,
                        unsigned long long k, unsigned long long cold_bytes, char *key, size_t cap)
{
    full_key(isa, r, m, n, k, key, cap);
    if (exact) strncat(key, " path=literal", cap - strlen(key) - 1);
    if (cold_bytes) strncat(key, " operands=cold", cap - strlen(key) - 1);
    if (cold_bytes && cold_bytes != 256ull << 20) {
        size_t len = strlen(key);
        snprintf(key + len, cap - len, " arena=%lluMiB", cold_bytes >> 20);
    }
}

double shape_prior(const isa_desc *isa, int exact, const tkt_row *r, unsigned long long m, unsigned long long n,
                   unsigned long long k, unsigned long long cold_bytes)
{
    char key[512], span[600];
    measure_key(isa, exact, r, m, n, k, cold_bytes, key, sizeof key);
    int len = snprintf(span, sizeof span, " level=full %s", key);
    const seen_rec *s = slot_in(g_prior, span_hash(span, len < (int)sizeof span ? (size_t)len : sizeof span - 1));
    return s->h ? s->gflops : -1;
}

/* the probe's command line for configuration r on m x n x k (a[] holds the strings); mode 1 checks
 * only, 2 times with the operands cold */
static void probe_args(const shape_probe *p, const tkt_row *r, unsigned long long m, unsigned long long n,
                       unsigned long long k, char a[15][24], char *argv[17], int mode)
{
    snprintf(a[0], 24, "%llu", m), snprintf(a[1], 24, "%llu", n), snprintf(a[2], 24, "%llu", k);
    snprintf(a[3], 24, "%u", r->mr), snprintf(a[4], 24, "%u", p->isa->vla || r->packa == TKT_DOT ? r->nr : r->nr / p->isa->lanes);
    snprintf(a[5], 24, "%u", r->ku), snprintf(a[6], 24, "%llu", r->mc), snprintf(a[7], 24, "%llu", r->nc / r->nr);
    snprintf(a[8], 24, "%llu", r->kc), snprintf(a[9], 24, "%d", r->packb), snprintf(a[10], 24, "%d", r->packa);
    snprintf(a[11], 24, "%c", r->split), snprintf(a[12], 24, "%c", r->order), snprintf(a[13], 24, "%u", r->pf);
    if (mode == 2) snprintf(a[14], 24, "cold=%llu", p->cold_bytes);
    else snprintf(a[14], 24, "check");
    argv[0] = (char *)p->bin;
    for (int i = 0; i < 14 + (mode != 0); i++) argv[i + 1] = a[i];
    argv[15 + (mode != 0)] = NULL;
}

/* "result=..." for a probe's exit status; *dram: the bandwidth a cold run read (0: none) */
static void result_of(int st, const char *out, double timeout_s, char *result, size_t cap, double *gf, double *dram)
{
    double spread = 0;
    int got;
    *gf = 0, *dram = 0;
    if (st == -1) snprintf(result, cap, "result=timeout limit=%gs", timeout_s);
    else if (st < 0) snprintf(result, cap, "result=error");
    else if (WIFSIGNALED(st)) snprintf(result, cap, "result=crash signal=%d", WTERMSIG(st));
    else if (WEXITSTATUS(st) == 4) snprintf(result, cap, "result=wrong");
    else if (WEXITSTATUS(st) != 0) snprintf(result, cap, "result=failed exit=%d", WEXITSTATUS(st));
    else if (!strncmp(out, "check=ok", 8)) snprintf(result, cap, "result=ok");
    else if ((got = sscanf(out, "gflops=%lf spread=%lf dram=%lf", gf, &spread, dram)) >= 2) {
        snprintf(result, cap, "result=ok gflops=%.2f spread=%.3f", *gf, spread);
        if (got == 3) snprintf(result + strlen(result), cap - strlen(result), " dram=%.1f", *dram);
    }
    else snprintf(result, cap, "result=failed output=unreadable");
    if (strncmp(result, "result=ok", 9)) *gf = 0, *dram = 0;
}

static void append(const shape_probe *p, const char *level, const char *key, int rep, const char *result)
{
    const profile_opts *o = p->o;
    FILE *log = fopen(o->log, "a");
    if (!log) die("cannot append to %s", o->log);
    char smp[32] = "";
    if (o->sample_ms > 0) snprintf(smp, sizeof smp, "sample_ms=%g ", o->sample_ms); /* not the default: said */
    fprintf(log, "tk-record 1 op=gemm dtype=f32 cpu=%s isa=%s level=%s %s rep=%d %s %s%sevidence=%s load=%.2f date=%ld\n",
            o->cpu, p->isa->name, level, key, rep, result, smp, records_kernels(), o->evidence ? o->evidence : "measured", loadavg(),
            (long)time(NULL));
    if (fclose(log)) die("cannot append to %s", o->log);
}

/* the reference bandwidth (GB/s), 0 while there is no reading; the log's readings come with the
 * record index (seen_read, read before any measurement) */
static double dram_reference(void)
{
    static double sorted[DRAM_KEEP];
    if (g_ndram == 0) return 0;
    memcpy(sorted, g_dram, (size_t)g_ndram * sizeof sorted[0]);
    qsort(sorted, (size_t)g_ndram, sizeof sorted[0], cmp_double);
    return sorted[(size_t)g_ndram * 9 / 10];
}

int shape_noisy(void) { return g_noisy; }

/* The probe that serves measurements here (`probe serve`, one argument list a line): started for a
 * probe binary at its first measurement and kept until another binary's comes, so a cold arena is
 * mapped and filled once, not once a measurement (a cold measurement of 2x3700x16 took 0.9 s, all
 * but 7 ms of it the 1 GiB arena's mapping, fill and unmapping; a retune of spr's decode cells made
 * 2430 of them in 2846 s, session 83). A probe that crashes or hangs takes only its measurement
 * with it: the next starts a new one. Under a run prefix (an emulator, a board) each measurement
 * is a process of its own, as before. */
static struct {
    pid_t pid; /* 0: none running */
    int to, from;
    char bin[1100];
} g_srv;

/* Ends the serving probe (killed first with kill_it); returns its status as waitpid gives it, -2
 * when none could be read */
static int srv_close(int kill_it)
{
    int st = -2;
    if (!g_srv.pid) return st;
    if (kill_it) kill(g_srv.pid, SIGKILL);
    close(g_srv.to), close(g_srv.from); /* a serving probe ends at the end of its input */
    if (waitpid(g_srv.pid, &st, 0) != g_srv.pid) st = -2;
    g_srv.pid = 0;
    return st;
}

static int srv_start(const char *bin)
{
    int in[2], out[2];
    if (pipe(in)) return 0;
    if (pipe(out)) {
        close(in[0]), close(in[1]);
        return 0;
    }
    /* no other child (a compile, tkgen) holds the probe's input open: it ends when this end closes */
    fcntl(in[1], F_SETFD, FD_CLOEXEC), fcntl(out[0], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return 0;
    }
    if (pid == 0) {
        dup2(in[0], 0), dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(bin, bin, "serve", (char *)NULL);
        _exit(127);
    }
    close(in[0]), close(out[1]);
    g_srv.pid = pid, g_srv.to = in[1], g_srv.from = out[0];
    snprintf(g_srv.bin, sizeof g_srv.bin, "%s", bin);
    return 1;
}

/* One measurement by the serving probe: its output in out, and its status as run_limited gives it
 * (an exit status, a crash's signal, -1 on timeout, -2 when no probe could start). */
static int srv_run(const char *bin, char *const argv[], double timeout_s, char *out, size_t cap)
{
    char line[512] = "", buf[4096];
    size_t len = 0, got = 0;
    int st;
    if (g_srv.pid && strcmp(g_srv.bin, bin)) srv_close(0);
    if (!g_srv.pid && !srv_start(bin)) return -2;
    for (int i = 1; argv[i]; i++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", i > 1 ? " " : "", argv[i]);
    snprintf(line + len, sizeof line - len, "\n");
    double t0 = tune_now();
    /* a write to a probe that has just crashed fails (EPIPE), and its status below says why: SIGPIPE
     * is held off meanwhile, and taken if it came, so tktune goes on (blocked, not ignored: an
     * ignored signal stays so in every program tktune starts later) */
    sigset_t pipe_sig, was;
    sigemptyset(&pipe_sig), sigaddset(&pipe_sig, SIGPIPE);
    sigprocmask(SIG_BLOCK, &pipe_sig, &was);
    for (size_t done = 0, n = strlen(line); done < n;) {
        ssize_t w = write(g_srv.to, line + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EPIPE) {
            struct timespec none = {0, 0};
            sigtimedwait(&pipe_sig, NULL, &none);
        }
        if (w <= 0) break;
        done += (size_t)w;
    }
    sigprocmask(SIG_SETMASK, &was, NULL);
    /* its answer: the output, then a line exit=STATUS */
    int ended = 0;
    for (;;) {
        char *end = NULL;
        buf[got] = 0;
        for (char *at = buf; (at = strstr(at, "exit=")) != NULL; at++)
            if ((at == buf || at[-1] == '\n') && strchr(at, '\n')) {
                end = at;
                break;
            }
        if (end) {
            int code = atoi(end + 5);
            *end = 0;
            snprintf(out, cap, "%s", buf);
            return (code & 0xff) << 8; /* as waitpid reports an exit */
        }
        double left = timeout_s - (tune_now() - t0);
        if (left <= 0) {
            srv_close(1);
            out[0] = 0;
            return -1;
        }
        if (got == sizeof buf - 1) break; /* talk past any answer: stopped, its output unreadable */
        struct pollfd pf = {g_srv.from, POLLIN, 0};
        if (poll(&pf, 1, left < 1 ? (int)(left * 1e3) + 1 : 1000) < 0 && errno != EINTR) break;
        if (!(pf.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t r = read(g_srv.from, buf + got, sizeof buf - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            ended = r == 0;
            break;
        }
        got += (size_t)r;
    }
    /* no answer: it ended, and its status says how (a crash's signal), or it is stopped here */
    buf[got] = 0;
    snprintf(out, cap, "%s", buf);
    st = srv_close(!ended);
    return ended ? st : 0; /* (0: an exit with output result_of cannot read) */
}

/* one run of the probe p with argv: served here, or a process of its own under a run prefix */
static int probe_run(const shape_probe *p, char *const argv[], char *out, size_t cap)
{
    if (p->o->run_prefix && *p->o->run_prefix) return run_limited(p->o->run_prefix, argv, p->o->timeout_s, out, cap);
    return srv_run(p->bin, argv, p->o->timeout_s, out, cap);
}

double shape_measure(const shape_probe *p, const tkt_row *r, unsigned long long m, unsigned long long n,
                     unsigned long long k, int cold, int rep, int *fresh)
{
    const profile_opts *o = p->o;
    char key[512], out[512], result[160], a[15][24];
    char *argv[17];
    double gf, have, dram;
    int noisy = 0;
    measure_key(p->isa, p->exact, r, m, n, k, cold ? p->cold_bytes : 0, key, sizeof key);
    *fresh = 0;
    if ((have = logged(o, key, rep, &noisy)) >= 0) {
        g_noisy += noisy;
        return have;
    }
    probe_args(p, r, m, n, k, a, argv, cold ? 2 : 0);
    for (int attempt = 1;; attempt++) {
        int st = probe_run(p, argv, out, sizeof out);
        result_of(st, out, o->timeout_s, result, sizeof result, &gf, &dram);
        double ref = dram > 0 ? dram_reference() : 0;
        dram_add(dram);
        noisy = ref > 0 && dram < QUIET * ref;
        if (noisy) snprintf(result + strlen(result), sizeof result - strlen(result), " quiet=no");
        append(p, "full", key, rep, result);
        if (!noisy || attempt == COLD_TRIES) break;
        struct timespec pause = {0, (long)(COLD_PAUSE_S * 1e9)};
        nanosleep(&pause, NULL);
    }
    seen_put(o, key_hash(key, rep), gf, noisy);
    g_noisy += noisy;
    *fresh = 1;
    return gf;
}

int shape_check(const shape_probe *p, const tkt_row *r, unsigned long long m, unsigned long long n,
                unsigned long long k)
{
    char key[512], out[512], result[160], a[15][24];
    char *argv[17];
    double gf, dram;
    full_key(p->isa, r, m, n, k, key, sizeof key);
    probe_args(p, r, m, n, k, a, argv, 1);
    int st = probe_run(p, argv, out, sizeof out);
    result_of(st, out, p->o->timeout_s, result, sizeof result, &gf, &dram);
    append(p, "check", key, 0, result);
    return !strcmp(result, "result=ok");
}

int read_shapes(const char *path, unsigned long long (*mnk)[3], int cap)
{
    reader r;
    int n = 0;
    if (!reader_open(&r, path)) return -1;
    while (reader_next(&r)) {
        int first = r.ntok == 4 ? 1 : 0;
        if (r.ntok != 3 && r.ntok != 4) {
            err_at(path, r.line, "expected 'M N K' or 'LABEL M N K', found %d fields", r.ntok);
            return -1;
        }
        if (n >= cap) {
            err_at(path, r.line, "more than %d shapes", cap);
            return -1;
        }
        for (int i = 0; i < 3; i++)
            if (!parse_uint(r.tok[first + i], &mnk[n][i]) || mnk[n][i] == 0 || mnk[n][i] > (1ull << 20)) {
                err_at(path, r.line, "'%s' is not a dimension (1..1048576)", r.tok[first + i]);
                return -1;
            }
        n++;
    }
    return n;
}


int row_pinned(const tkt_row *r) { return !strcmp(r->evidence, "pinned"); }

const tkt_row *table_match(const tkt_table *t, unsigned long long m, unsigned long long n, unsigned long long k,
                           int unpinned)
{
    /* pass 0 (unpinned only) passes over pinned rows; pass 1 takes the first row that holds it */
    for (int pass = !unpinned; pass < 2; pass++)
        for (int i = 0; i < t->n; i++)
            if ((pass || !row_pinned(&t->rows[i])) && tkt_row_has(&t->rows[i], m, n, k)) return &t->rows[i];
    return &t->rows[t->n - 1];
}

int table_builds(const profile_opts *o, const isa_desc *isa, const tkt_table *t, char *path, size_t cap)
{
    char cmd[3500];
    FILE *f;
    snprintf(path, cap, "%s/checked.tkt", o->work);
    if (!(f = fopen(path, "w")) || !write_table(f, t, isa) || fclose(f) != 0) {
        fprintf(stderr, "tktune: cannot write %s\n", path);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "'%s' check --root '%s' '%s'", o->tkgen, g_root, path);
    return system(cmd) == 0;
}

int table_replace(const profile_opts *o, const isa_desc *isa, const tkt_table *t, const char *out, const char *chooser,
                  char *err, size_t errcap)
{
    char checked[1200];
    mkdir(o->work, 0777);
    if (!table_builds(o, isa, t, checked, sizeof checked)) {
        snprintf(err, errcap, "%s: tkgen check refuses the table %s chose (above): %s is unchanged", checked, chooser, out);
        return 0;
    }
    return write_table_atomically(out, t, isa, err, errcap);
}
