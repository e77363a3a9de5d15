/* estimate.c - level 0 for a CPU this machine cannot run: a static estimate from llvm-mca-19 with the
 * scheduling model the CPU's table names (`mca_cpu`). The candidate kernels come from the real
 * templates (tkgen ukr), are compiled for the target with the flags users get, and the k loop of
 * each (the loop with the most FMAs) is handed to llvm-mca twice: as it is, for the cycles one
 * iteration takes with its dependencies and port pressure, and as its FMAs alone, for the cycles
 * the FMA pipes need. Their ratio is the kernel's share of the FMA peak; times the table's
 * `peak_gflops` it is the estimate, recorded as `evidence=estimated`. */
#include "estimate.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int cross_toolchain(const isa_desc *isa, cross_tc *tc)
{
    memset(tc, 0, sizeof *tc);
    if (!strcmp(isa->family, "arm")) {
        tc->triple = "aarch64-linux-gnu";
        tc->mca_triple = "aarch64";
        tc->cc = "aarch64-linux-gnu-gcc";
        tc->fma = "fmla";
        tc->comment = "//";
        tc->mattr = !strcmp(isa->name, "sve") ? "+sve" : "";
        return 1;
    }
    if (!strcmp(isa->family, "riscv")) {
        tc->triple = "riscv64-linux-gnu";
        tc->mca_triple = "riscv64";
        tc->cc = "clang-19 --target=riscv64-linux-gnu -fuse-ld=lld";
        tc->fma = "vfmacc";
        tc->comment = "#";
        tc->mattr = "+v";
        return 1;
    }
    return 0;
}

/* One llvm-mca run over `path`: cycles per iteration (0 when it fails); block throughput in *rt. */
static double mca(const cross_tc *tc, const char *mca_cpu, const char *path, double *rt)
{
    char cmd[1600], line[512];
    double total = 0, iters = 0;
    snprintf(cmd, sizeof cmd, "llvm-mca-19 -mtriple=%s -mcpu=%s %s%s -iterations=200 '%s' 2>/dev/null", tc->mca_triple,
             mca_cpu, tc->mattr[0] ? "-mattr=" : "", tc->mattr, path);
    FILE *p = popen(cmd, "r");
    *rt = 0;
    if (!p) return 0;
    while (fgets(line, sizeof line, p)) {
        sscanf(line, "Iterations: %lf", &iters);
        sscanf(line, "Total Cycles: %lf", &total);
        sscanf(line, "Block RThroughput: %lf", rt);
    }
    if (pclose(p) != 0) return 0;
    return iters > 0 ? total / iters : 0;
}

static int is_fma(const char *ins, const char *fma)
{
    while (*ins == ' ' || *ins == '\t') ins++;
    return !strncmp(ins, fma, strlen(fma));
}

/* The k loop of function `fn` in the assembly listing: the backward branch with the most FMAs
 * between its target label and itself. Writes its instructions (and its FMAs alone) to two files;
 * returns the FMA count. */
static int extract_loop(const char *asmfile, const char *fn, const cross_tc *tc, const char *out_all,
                        const char *out_fma)
{
    const char *fma = tc->fma;
    static char lines[20000][160];
    int n = 0, in = 0, best = 0, bs = 0, be = 0;
    char want[96], line[512];
    FILE *f = fopen(asmfile, "r");
    if (!f) return 0;
    snprintf(want, sizeof want, "%s:", fn);
    while (fgets(line, sizeof line, f)) {
        if (!in) {
            in = !strncmp(line, want, strlen(want));
            continue;
        }
        if (!strncmp(line, ".Lfunc_end", 10) || n == 20000) break;
        line[strcspn(line, "\n")] = 0;
        /* drop the comment and trailing blanks: labels then end in ':' */
        char *cm = strstr(line, tc->comment);
        if (cm) *cm = 0;
        for (size_t l = strlen(line); l && (line[l - 1] == ' ' || line[l - 1] == '\t'); l--) line[l - 1] = 0;
        snprintf(lines[n++], sizeof lines[0], "%s", line);
    }
    fclose(f);
    for (int e = 0; e < n; e++) {
        /* a branch to a label defined above it closes a loop */
        for (int s = 0; s < e; s++) {
            size_t ll = strlen(lines[s]);
            char label[96];
            if (ll < 2 || lines[s][0] != '.' || lines[s][ll - 1] != ':') continue;
            snprintf(label, sizeof label, "%.*s", (int)(ll - 1), lines[s]);
            const char *at = strstr(lines[e], label);
            if (!at || lines[e][0] == '.' || at[strlen(label)] != 0) continue;
            int fmas = 0;
            for (int i = s; i <= e; i++) fmas += is_fma(lines[i], fma);
            if (fmas > best) best = fmas, bs = s, be = e;
        }
    }
    if (!best) return 0;
    FILE *a = fopen(out_all, "w"), *b = fopen(out_fma, "w");
    if (!a || !b) return 0;
    for (int i = bs; i <= be; i++) {
        const char *t = lines[i];
        while (*t == ' ' || *t == '\t') t++;
        if (!*t || *t == '.' || *t == '#' || strchr(lines[i], ':')) continue; /* labels, directives */
        fprintf(a, "%s\n", lines[i]);
        if (is_fma(lines[i], fma)) fprintf(b, "%s\n", lines[i]);
    }
    fclose(a);
    fclose(b);
    return best;
}

int estimate_level0(const profile_opts *o, const isa_desc *isa, const tkt_table *t, const cand_l0 *cands, int n,
                    const unsigned long long *kcs)
{
    cross_tc tc;
    char tiles[4096] = "", cmd[8192], gen[1024], src[1100], asmf[1100], one[64];
    int done = 0;
    if (!cross_toolchain(isa, &tc)) die("no cross toolchain is known for ISA %s", isa->name);
    if (!t->mca_cpu[0]) die("%s has no mca_cpu: no scheduling model to estimate it with", t->path);
    for (int i = 0; i < n; i++) {
        snprintf(one, sizeof one, "%s%ux%ux%u", i ? "," : "", cands[i].mr, cands[i].nv, cands[i].ku);
        strncat(tiles, one, sizeof tiles - strlen(tiles) - 1);
    }
    snprintf(gen, sizeof gen, "%s/est", o->work);
    snprintf(cmd, sizeof cmd, "'%s' ukr --root '%s' --isa %s --tiles %s --out '%s'", o->tkgen, g_root, isa->name, tiles, gen);
    if (system(cmd) != 0) die("tkgen could not generate the kernels to estimate (%s)", cmd);
    snprintf(src, sizeof src, "%s/est.c", gen);
    snprintf(asmf, sizeof asmf, "%s/est.s", gen);
    FILE *f = fopen(src, "w");
    if (!f) die("cannot write %s", src);
    fprintf(f, "/* written by tktune: each kernel once, with its packed operands' strides, for llvm-mca */\n"
               "#include \"tk/gen/ukr_f32_%s.h\"\n"
               "#define E(name, mr, nv, ku, pf) void tkp_##mr##_##nv##_##ku(size_t k, const float *a, const float *b, float *c, const tki_ukr_aux *x);\\\n"
               "  void tkp_##mr##_##nv##_##ku(size_t k, const float *a, const float *b, float *c, const tki_ukr_aux *x) {\\\n"
               "    size_t nr = nv * TKI_VL_F32_%s(); name(k, a, b, nr, c, nr, mr, nr, x); }\n"
               "TKI_UKR_LIST_F32_%s(E)\n",
            isa->name, isa->name, isa->name);
    fclose(f);
    snprintf(cmd, sizeof cmd, "clang-19 --target=%s %s -O2 -std=c11 -S -I '%s/include' -I '%s' '%s' -o '%s'", tc.triple,
             strcmp(isa->cflags, "none") ? isa->cflags : "", g_root, gen, src, asmf);
    if (system(cmd) != 0) die("the kernels do not compile for %s (%s)", tc.triple, cmd);
    FILE *log = fopen(o->log, "a");
    if (!log) die("cannot append to %s", o->log);
    for (int i = 0; i < n; i++) {
        char fn[64], all[1200], fmaf[1200], key[256];
        double rt_all, rt_fma, cyc;
        snprintf(fn, sizeof fn, "tkp_%u_%u_%u", cands[i].mr, cands[i].nv, cands[i].ku);
        snprintf(all, sizeof all, "%s/%s.s", gen, fn);
        snprintf(fmaf, sizeof fmaf, "%s/%s.fma.s", gen, fn);
        cand_key(isa, &cands[i], kcs[i], key, sizeof key);
        int fmas = extract_loop(asmf, fn, &tc, all, fmaf);
        if (fmas == 0 || (cyc = mca(&tc, t->mca_cpu, all, &rt_all)) <= 0 || mca(&tc, t->mca_cpu, fmaf, &rt_fma) <= 0 ||
            rt_fma <= 0) {
            fprintf(log, "tk-record 1 op=gemm dtype=f32 cpu=%s isa=%s level=0 %s result=failed output=no-estimate %sevidence=estimated mca_cpu=%s date=%ld\n",
                    o->cpu, isa->name, key, records_kernels(), t->mca_cpu, (long)time(NULL));
            continue;
        }
        /* the kernel's share of the FMA pipes, at most all of them */
        double share = rt_fma / cyc > 1 ? 1 : rt_fma / cyc;
        fprintf(log, "tk-record 1 op=gemm dtype=f32 cpu=%s isa=%s level=0 %s result=ok gflops=%.2f spread=0 %sevidence=estimated mca_cpu=%s cycles=%.2f fma_cycles=%.2f fmas=%d date=%ld\n",
                o->cpu, isa->name, key, share * t->peak_gflops, records_kernels(), t->mca_cpu, cyc, rt_fma, fmas, (long)time(NULL));
        done++;
    }
    fclose(log);
    return done;
}
