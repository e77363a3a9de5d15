/* tkgen - the tk generator: parses and validates ISA descriptors (isa.tkarch), the CPU registry
 * (registry.tkr) and tuning tables (.tkt), then drives GNU m4 -P over the templates to write the
 * generated headers. Every malformed input line is reported as `file:line: message`.
 *
 * Usage:
 *   tkgen check  --root DIR FILE...          validate files (kind from the extension)
 *   tkgen detect --root DIR [--cpuinfo FILE] print the registry token of the host CPU (or of the CPU
 *                                            whose /proc/cpuinfo FILE is)
 *   tkgen info   --root DIR --cpu CPU KEY    print isa | family | cflags | emulator | fallback | table |
 *                                            vlen | qemu_cpu | mca_cpu
 *   tkgen build  --root DIR --cpus A,B,.. --default A --out DIR [--m4 PROG] [--table CPU=FILE]
 *
 * The generator emits only m4 calls and data; all C code comes from templates/ and arch/. */
#include "tkio.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define TKGEN_VERSION "0.1"

static const char *g_m4 = "m4";

static void ensure_dir(const char *d)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", d);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0777);
            *p = '/';
        }
    if (mkdir(tmp, 0777) && errno != EEXIST) die("cannot create %s: %s", d, strerror(errno));
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 >= cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    if (!b) die("out of memory");
    b[n] = 0;
    if (len) *len = n;
    return b;
}

/* Generated files are written to `path`.tmp and renamed into place, so a failed or interrupted
 * run never leaves a half-written header behind. */
static FILE *begin_output(const char *path, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) die("cannot write %s: %s", tmp, strerror(errno));
    return f;
}

static void end_output(FILE *f, const char *tmp, const char *path)
{
    if (fclose(f) || rename(tmp, path)) die("cannot write %s: %s", path, strerror(errno));
}

/* Run m4 on `driver`, check it printed nothing on stderr and left no TKM_/tkm_ name, then write
 * `provenance` + output to `out` through a temporary file and rename. */
static void run_m4(const char *driver, const char *out, const char *provenance)
{
    char outtmp[1100], errtmp[1100], cmd[4096];
    snprintf(outtmp, sizeof outtmp, "%s.m4out", out);
    snprintf(errtmp, sizeof errtmp, "%s.m4err", out);
    snprintf(cmd, sizeof cmd, "%s -P -I '%s' '%s' > '%s' 2> '%s'", g_m4, g_root, driver, outtmp, errtmp);
    int rc = system(cmd);
    size_t elen = 0, olen = 0;
    char *errs = slurp(errtmp, &elen);
    if (rc != 0 || elen > 0) {
        fprintf(stderr, "%s", errs ? errs : "");
        die("m4 failed on %s (exit %d%s)", driver, WIFEXITED(rc) ? WEXITSTATUS(rc) : -1,
            elen ? ", warnings are errors" : "");
    }
    free(errs);
    char *body = slurp(outtmp, &olen);
    if (!body) die("cannot read %s", outtmp);
    int line = 1;
    for (size_t i = 0; i < olen; i++) {
        if (body[i] == '\n') line++;
        if ((!strncmp(body + i, "TKM_", 4) || !strncmp(body + i, "tkm_", 4)) &&
            (i == 0 || !(isalnum((unsigned char)body[i - 1]) || body[i - 1] == '_'))) {
            char name[64];
            size_t j = 0;
            while (j < 63 && (isalnum((unsigned char)body[i + j]) || body[i + j] == '_')) name[j] = body[i + j], j++;
            name[j] = 0;
            err_at(out, line, "unexpanded m4 name '%s' in generated output", name);
        }
    }
    if (n_errors) exit(1);
    char tmp[1100];
    FILE *f = begin_output(out, tmp, sizeof tmp);
    fprintf(f, "%s", provenance);
    fwrite(body, 1, olen, f);
    end_output(f, tmp, out);
    free(body);
    remove(outtmp);
    remove(errtmp);
}

static FILE *open_driver(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s", path);
    /* the helper library switches quotes to <@ @> and turns comments off */
    /* includes name the root explicitly: m4 looks in the current directory before any -I */
    fprintf(f, "m4_include(`%s/gen/tkm.m4')m4_dnl\n", g_root);
    return f;
}

/* A row's range along one dimension as the decision tree reads it (docs/tables.md): a range that
 * starts at 1 takes 0 too (m or n of 0 is a call with nothing to do, k of 0 only scales C); a
 * single value is that value alone. */
static range tree_range(const tkt_row *w, int dim)
{
    range r = dim == 0 ? w->m : dim == 1 ? w->n : w->k;
    if (r.lo == 1 && r.hi != 1) r.lo = 0;
    return r;
}

/* The decision tree over the rows cand[0..nc) (in table order) for the shapes in box: the first
 * row that meets the box wins wherever it covers all of it; otherwise the box is cut in two at the
 * middle one of the row edges inside it, along m if any lie there, else n, else k, and each half
 * gets a tree of the rows that meet it. The first-match order of the table is kept exactly, and a
 * shape takes a few compares (about log2 of the edges per dimension) instead of one per row. */
static void emit_tree(FILE *f, const tkt_table *t, const range *box, const int *cand, int nc, int depth)
{
    static const char var[3] = {'m', 'n', 'k'};
    unsigned long long cut[2 * MAXROWS];
    int ncut = 0, dim;
    int *sub = malloc(sizeof *sub * (size_t)(nc ? nc : 1));
    if (!sub) die("out of memory");
    if (nc == 0) {
        char b[3][64];
        for (int d = 0; d < 3; d++) range_text(&box[d], b[d], sizeof b[d]);
        die("%s: no row covers m %s, n %s, k %s (the last row must be the catch-all)", t->path, b[0], b[1], b[2]);
    }
    int covers = 1;
    for (int d = 0; d < 3; d++) {
        range r = tree_range(&t->rows[cand[0]], d);
        covers = covers && r.lo <= box[d].lo && box[d].hi <= r.hi;
    }
    if (covers) {
        fprintf(f, "tkm_gemm_leaf(%d, %d)\n", depth, cand[0]);
        free(sub);
        return;
    }
    for (dim = 0; dim < 3 && ncut == 0; dim++)
        for (int i = 0; i < nc; i++) {
            range r = tree_range(&t->rows[cand[i]], dim);
            /* a cut at c splits the box into x <= c and x > c */
            if (r.lo > box[dim].lo && r.lo - 1 < box[dim].hi) cut[ncut++] = r.lo - 1;
            if (r.hi >= box[dim].lo && r.hi < box[dim].hi) cut[ncut++] = r.hi;
        }
    dim--;
    if (ncut == 0) die("%s: internal error: the decision tree found no cut", t->path);
    for (int i = 1; i < ncut; i++) /* insertion sort: a few dozen values */
        for (int j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            unsigned long long x = cut[j];
            cut[j] = cut[j - 1], cut[j - 1] = x;
        }
    int nu = 0;
    for (int i = 0; i < ncut; i++)
        if (nu == 0 || cut[nu - 1] != cut[i]) cut[nu++] = cut[i];
    unsigned long long at = cut[(nu - 1) / 2];
    fprintf(f, "tkm_gemm_split(%d, %c, %llu)\n", depth, var[dim], at);
    for (int half = 0; half < 2; half++) {
        range part[3] = {box[0], box[1], box[2]};
        int ns = 0;
        if (half) part[dim].lo = at + 1, fprintf(f, "tkm_gemm_else(%d)\n", depth);
        else part[dim].hi = at;
        for (int i = 0; i < nc; i++) {
            int meets = 1;
            for (int d = 0; d < 3; d++) {
                range r = tree_range(&t->rows[cand[i]], d);
                meets = meets && r.lo <= part[d].hi && part[d].lo <= r.hi;
            }
            if (meets) sub[ns++] = cand[i];
        }
        emit_tree(f, t, part, sub, ns, depth + 1);
    }
    fprintf(f, "tkm_gemm_fi(%d)\n", depth);
    free(sub);
}

/* The select function's tree: over the range rows; the exact ones are tested before it (the parser
 * has made sure that no range row before an exact row covers its shape). Dies where a shape has no row. */
static void emit_select_tree(FILE *f, const tkt_table *t)
{
    static int cand[MAXROWS];
    range all[3] = {{0, TK_SIZE_INF}, {0, TK_SIZE_INF}, {0, TK_SIZE_INF}};
    int nc = 0;
    for (int j = 0; j < t->n; j++)
        if (!tkt_row_is_exact(&t->rows[j])) cand[nc++] = j;
    emit_tree(f, t, all, cand, nc, 0);
}

static void emit_isa_defs(FILE *f, const isa_desc *d)
{
    fprintf(f, "m4_define(<@TKM_ISA@>, <@%s@>)m4_dnl\n", d->name);
    /* the whole attribute, so that commas in the list never reach m4 as argument separators */
    if (strcmp(d->target_attr, "none"))
        fprintf(f, "m4_define(<@TKM_TARGET@>, <@__attribute__((target(\"%s\")))@>)m4_dnl\n", d->target_attr);
    else
        fprintf(f, "m4_define(<@TKM_TARGET@>, <@@>)m4_dnl\n");
    fprintf(f, "m4_define(<@TKM_REQUIRE_MACRO@>, <@%s@>)m4_dnl\n", d->require_macro);
    /* the framework has the dot form's loops only where the ISA has its kernels */
    fprintf(f, "m4_define(<@TKM_ISA_DOT@>, <@%d@>)m4_dnl\n", d->dot);
    /* the widest tile whose ragged last vector runs at half width: the tuner's model reads the same key */
    fprintf(f, "m4_define(<@TKM_ISA_HALF@>, <@%u@>)m4_dnl\n", d->half);
    fprintf(f, "m4_define(<@TKM_CFLAGS@>, <@%s@>)m4_dnl\n", d->cflags);
    fprintf(f, "m4_include(<@%s/%s@>)m4_dnl\n", g_root, d->template_path);
}

typedef struct {
    unsigned mr, nr, ku, pf;
} tile;

static int tile_add(tile *ts, int n, unsigned mr, unsigned nr, unsigned ku, unsigned pf)
{
    for (int i = 0; i < n; i++)
        if (ts[i].mr == mr && ts[i].nr == nr && ts[i].ku == ku && ts[i].pf == pf) return n;
    ts[n].mr = mr;
    ts[n].nr = nr;
    ts[n].ku = ku;
    ts[n].pf = pf;
    return n + 1;
}

/* A table as the generator instantiates it: the file's rows, then the short rows derived from them. */
static int load_gen_table(project *p, const reg_row *c, tkt_table *t)
{
    const isa_desc *d;
    if (!load_table(p, c, t)) return 0;
    d = load_isa(p, t->isa, t->path, 1);
    return d && tkt_short_rows(d, t);
}

static const char *rel(const char *path)
{
    size_t l = strlen(g_root);
    return !strncmp(path, g_root, l) && path[l] == '/' ? path + l + 1 : path;
}

/* One m4 call per tile (`list` NULL: instantiate with `macro`), or the X-macro list `list`_<isa>
 * naming each kernel through `macro`. NR is written in vectors (`cols`: as it is, the columns of a
 * dot tile). A kernel macro gets the prefetch distance only where it is not 0: templates without
 * prefetch take three arguments. */
static void emit_tiles(FILE *f, const isa_desc *d, const tile *ts, int n, const char *macro, const char *list,
                       const char *comment, int cols)
{
    if (list) fprintf(f, "\n/* %s */\n#define %s_%s(X) m4_dnl\n", comment, list, d->name);
    for (int j = 0; j < n; j++) {
        unsigned nv = d->vla || cols ? ts[j].nr : ts[j].nr / d->lanes;
        char pf[8];
        tkt_pf_text(ts[j].pf, pf); /* m4 takes the table's token (the kernel name's suffix), C the number */
        if (list)
            fprintf(f, "    X(%s(%u, %u, %u, %s), %u, %u, %u, %u) m4_dnl\n", macro, ts[j].mr, nv, ts[j].ku, pf, ts[j].mr,
                    nv, ts[j].ku, ts[j].pf);
        else if (ts[j].pf) fprintf(f, "%s(%u, %u, %u, %s)\n", macro, ts[j].mr, nv, ts[j].ku, pf);
        else fprintf(f, "%s(%u, %u, %u)\n", macro, ts[j].mr, nv, ts[j].ku);
    }
}

/* The microkernel header of one ISA: every tile of tiles[] in the packed form, of dtiles[] in the
 * direct form and of otiles[] in the dot form, plus the lists tests and tools expand. `what` names the
 * source of the tile set. */
static void emit_ukr_header(const isa_desc *d, const tile *tiles, int nt, const tile *dtiles, int ndt,
                            const tile *otiles, int nod, const char *drvdir, const char *gdir, const char *what)
{
    char drv[1200], out[1200], prov[4096];
    snprintf(drv, sizeof drv, "%s/ukr_f32_%s.h.m4", drvdir, d->name);
    snprintf(out, sizeof out, "%s/ukr_f32_%s.h", gdir, d->name);
    FILE *f = open_driver(drv);
    emit_isa_defs(f, d);
    fprintf(f, "tkm_ukr_header_begin\n");
    fprintf(f, "#define TKI_VL_F32_%s() ((size_t)(tkm_vl_f32))\n", d->name);
    /* the ISA's own A packing, where its template has one: X(function, largest mr) */
    fprintf(f, "#define TKI_PACK_A_LIST_F32_%s(X) m4_ifdef(<@tkm_pack_a_name@>, <@X(tkm_pack_a_name, tkm_pack_a_max_mr)@>)\n", d->name);
    /* and its transposing copy with a column stride (the dot form's copies): X(function) */
    fprintf(f, "#define TKI_PACK_T_LIST_F32_%s(X) m4_ifdef(<@tkm_pack_t_name@>, <@X(tkm_pack_t_name)@>)\n", d->name);
    emit_tiles(f, d, tiles, nt, "tkm_ukr_gemm_f32", NULL, NULL, 0);
    emit_tiles(f, d, dtiles, ndt, "tkm_ukr_gemm_f32_direct", NULL, NULL, 0);
    emit_tiles(f, d, otiles, nod, "tkm_ukr_gemm_f32_dot", NULL, NULL, 1);
    emit_tiles(f, d, tiles, nt, "tkm_ukr_name", "TKI_UKR_LIST_F32",
               "Every instantiated microkernel: X(name, mr, nr_vectors, ku, pf)", 0);
    emit_tiles(f, d, dtiles, ndt, "tkm_ukr_direct_name", "TKI_UKR_DIRECT_LIST_F32",
               "Every instantiated direct-form microkernel (A and B read in place)", 0);
    emit_tiles(f, d, dtiles, ndt, "tkm_ukr_sweep_name", "TKI_UKR_SWEEP_LIST_F32",
               "The column sweep of every direct-form microkernel (all NR-column tiles of n in one call)", 0);
    emit_tiles(f, d, otiles, nod, "tkm_ukr_dot_name", "TKI_UKR_DOT_LIST_F32",
               "Every instantiated dot-form microkernel: X(name, mr, nb_columns, ku, 0)", 1);
    fprintf(f, "\ntkm_ukr_header_end\n");
    fclose(f);
    snprintf(prov, sizeof prov, "/* Generated by tkgen %s from %s and %s; do not edit. */\n", TKGEN_VERSION,
             d->template_path, what);
    run_m4(drv, out, prov);
}

static void build(project *p, const char *cpus_csv, const char *deflt, const char *outdir)
{
    char cpus[MAXCPU][32];
    int ncpu = 0;
    static tkt_table tables[MAXCPU];
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cpus_csv);
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        if (ncpu == MAXCPU) die("too many CPUs");
        int dup = 0;
        for (int i = 0; i < ncpu; i++) dup |= !strcmp(cpus[i], it);
        if (!dup) snprintf(cpus[ncpu++], 32, "%s", it);
    }
    if (!reg_find(&p->reg, deflt)) die("--default CPU '%s' is not in the registry", deflt);
    int found_default = 0;
    for (int i = 0; i < ncpu; i++) found_default |= !strcmp(cpus[i], deflt);
    if (!found_default) die("--default CPU '%s' is not among --cpus", deflt);
    for (int i = 0; i < ncpu; i++) {
        const reg_row *c = reg_find(&p->reg, cpus[i]);
        if (!c) die("CPU '%s' is not in %s", cpus[i], rel(p->reg.path));
        load_gen_table(p, c, &tables[i]);
    }
    if (n_errors) exit(1);

    char gdir[1024], drvdir[1100];
    snprintf(gdir, sizeof gdir, "%s/tk/gen", outdir);
    snprintf(drvdir, sizeof drvdir, "%s/m4", outdir);
    ensure_dir(gdir);
    ensure_dir(drvdir);

    /* One microkernel header per ISA, with the union of the tiles that any table of that ISA in the
     * whole registry uses, so tests see every kernel a CPU of this ISA could select. */
    for (int ii = 0; ii < p->nisa; ii++) {
        const isa_desc *d = &p->isas[ii];
        int used = 0;
        for (int i = 0; i < ncpu; i++) used |= !strcmp(tables[i].isa, d->name);
        if (!used) continue;
        static tile tiles[MAXROWS * 4], dtiles[MAXROWS * 4], otiles[MAXROWS * 4];
        int nt = 0, ndt = 0, nod = 0;
        char prov_tables[2048] = "";
        for (int r = 0; r < p->reg.n; r++) {
            if (strcmp(p->reg.rows[r].isa, d->name)) continue;
            static tkt_table t;
            if (!load_gen_table(p, &p->reg.rows[r], &t)) exit(1);
            for (int j = 0; j < t.n; j++) {
                const tkt_row *w = &t.rows[j];
                if (w->packa == TKT_DOT) {
                    nod = tile_add(otiles, nod, w->mr, w->nr, w->ku, 0);
                    continue;
                }
                /* a direct row runs only the direct form (a transposed A on a copy): its tile's
                 * packed form is compiled where a packed row asks for it */
                if (w->packa) nt = tile_add(tiles, nt, w->mr, w->nr, w->ku, w->pf);
                else ndt = tile_add(dtiles, ndt, w->mr, w->nr, w->ku, w->pf);
            }
            char one[128];
            snprintf(one, sizeof one, " %s(%08x)", t.cpu, t.hash);
            if (strlen(prov_tables) + strlen(one) < sizeof prov_tables) strcat(prov_tables, one);
        }
        char what[2100];
        snprintf(what, sizeof what, "the tables%s", prov_tables);
        emit_ukr_header(d, tiles, nt, dtiles, ndt, otiles, nod, drvdir, gdir, what);
    }

    /* One framework instance per CPU: its configurations, decision tree and blocked driver. */
    for (int i = 0; i < ncpu; i++) {
        const tkt_table *t = &tables[i];
        const isa_desc *d = load_isa(p, t->isa, t->path, 1);
        char sym[40], drv[1200], out[1200], prov[8192];
        cpu_symbol(t->cpu, sym, sizeof sym);
        snprintf(drv, sizeof drv, "%s/gemm_f32_%s.h.m4", drvdir, sym);
        snprintf(out, sizeof out, "%s/gemm_f32_%s.h", gdir, sym);
        FILE *f = open_driver(drv);
        emit_isa_defs(f, d);
        fprintf(f, "m4_define(<@TKM_CPU@>, <@%s@>)m4_dnl\n", sym);
        fprintf(f, "m4_define(<@TKM_CPU_TOKEN@>, <@%s@>)m4_dnl\n", t->cpu);
        fprintf(f, "m4_define(<@TKM_NCFG@>, <@%d@>)m4_dnl\n", t->n);
        /* the L1 as ways of 4 KiB (tki_rows_collide): a table's l1d_bytes / 4096, at least 1 */
        fprintf(f, "m4_define(<@TKM_L1_WAYS@>, <@%llu@>)m4_dnl\n", t->l1d / 4096 ? t->l1d / 4096 : 1);
        /* the cache a panel of B read in place may fill when its rows crowd a few sets
         * (tki_b_rows_fit; 0: a table without an L2) */
        fprintf(f, "m4_define(<@TKM_B_CROWD_BYTES@>, <@%llu@>)m4_dnl\n", tkt_crowd_bytes(t));
        {
            /* the static default workspace: the largest packed A block plus packed B block of any row,
             * each block as large as the shapes the row serves make it (tki_gemm_f32_ws_need takes
             * kc no deeper than k, mc no taller than m and as many panels as n needs): sized by
             * the rows' kc, mc and nc alone, spr's was 4.4M floats (17.6 MB of thread-local storage
             * per thread) for a row of kc 2048 that serves depths of at most 32 (session 52) */
            unsigned long long ws = 0, ws_min = 0, vl = d->vla ? t->vlen_bits / 32 : d->lanes;
            for (int j = 0; j < t->n; j++) {
                const tkt_row *w = &t->rows[j];
                unsigned long long nr = d->vla ? w->nr * vl : w->nr;
                unsigned long long kc = w->kc < w->k.hi ? w->kc : w->k.hi;
                /* (mc is a multiple of MR, so m.hi rounded up to MR is no taller) */
                unsigned long long mc = w->m.hi < w->mc ? (w->m.hi + w->mr - 1) / w->mr * w->mr : w->mc;
                unsigned long long nce = d->vla ? w->nc * vl : w->nc;
                if (w->n.hi < nce) nce = (w->n.hi + nr - 1) / nr * nr;
                /* a direct row may copy A's rows a vector or two further apart (tki_rows_ld) */
                unsigned long long ka = w->packa == 0 ? (kc + 15) / 16 * 16 + 32 : kc, kb = kc;
                /* the dot form's copies keep their rows (of A and of B's columns) one vector and a
                 * bit further apart (tki_gemm_dot_ld: at most 31 floats more than kc), B always copied */
                if (w->packa == TKT_DOT) ka = kb = kc + 32;
                const unsigned long long a = mc * ka, cols = w->packb || w->packa == TKT_DOT ? nce : nr;
                if (a + kb * cols + 32 > ws) ws = a + kb * cols + 32;
                /* ... and the least it runs in: one panel of B (the loops narrow nc to the buffer) */
                if (a + kb * nr + 32 > ws_min) ws_min = a + kb * nr + 32;
            }
            fprintf(f, "m4_define(<@TKM_WS_FLOATS@>, <@%llu@>)m4_dnl\n", ws);
            fprintf(f, "m4_define(<@TKM_WS_MIN_FLOATS@>, <@%llu@>)m4_dnl\n", ws_min);
        }
        fprintf(f, "m4_include(<@%s/templates/gemm-f32-blocked.h.m4@>)m4_dnl\n", g_root);
        fprintf(f, "tkm_gemm_begin\n");
        for (int j = 0; j < t->n; j++) {
            const tkt_row *w = &t->rows[j];
            /* a dot tile's NR is its columns */
            unsigned nv = d->vla || w->packa == TKT_DOT ? w->nr : w->nr / d->lanes;
            unsigned long long nc_units = d->vla ? w->nc / w->nr : w->nc / w->nr; /* NR panels per nc */
            char pf[8];
            fprintf(f, "tkm_gemm_config(%d, %u, %u, %u, %llu, %llu, %llu, %d, %c, %c, %d, %s, %s:%d, %s)\n", j, w->mr, nv,
                    w->ku, w->mc, nc_units, w->kc, w->packb, w->split, w->order, w->packa, w->evidence, rel(t->path), w->line,
                    tkt_pf_text(w->pf, pf));
        }
        {
            fprintf(f, "tkm_gemm_select_begin\n");
            emit_select_tree(f, t);
            fprintf(f, "tkm_gemm_select_end\n");
            for (int j = 0; j < t->n; j++)
                if (tkt_row_is_exact(&t->rows[j]))
                    fprintf(f, "tkm_gemm_select_exact(%d, %llu, %llu, %llu)\n", j, t->rows[j].m.lo, t->rows[j].n.lo,
                            t->rows[j].k.lo);
            fprintf(f, "tkm_gemm_select_exact_end\n");
        }
        fprintf(f, "tkm_gemm_rows_begin\n");
        for (int j = 0; j < t->n; j++) {
            const tkt_row *w = &t->rows[j];
#define HI(x) ((x) == TK_SIZE_INF ? 0ull : (x))
            fprintf(f, "tkm_gemm_row(%d, %llu, %llu, %llu, %llu, %llu, %llu)\n", j, w->m.lo, HI(w->m.hi), w->n.lo,
                    HI(w->n.hi), w->k.lo, HI(w->k.hi));
        }
        fprintf(f, "tkm_gemm_rows_end\n");
        fprintf(f, "tkm_gemm_driver\n");
        fprintf(f, "tkm_gemm_exact_begin\n");
        for (int j = 0; j < t->n; j++) {
            const tkt_row *w = &t->rows[j];
            char pf[8];
            if (tkt_row_is_exact(w))
                fprintf(f, "tkm_gemm_exact(%d, %llu, %llu, %llu, %u, %u, %u, %d, %s)\n", j, w->m.lo, w->n.lo, w->k.lo, w->mr,
                        d->vla || w->packa == TKT_DOT ? w->nr : w->nr / d->lanes, w->ku, w->packa, tkt_pf_text(w->pf, pf));
        }
        fprintf(f, "tkm_gemm_exact_end\n");
        fprintf(f, "tkm_gemm_entry\n");
        fclose(f);
        char notes[2048] = "";
        for (int k = 0; k < t->nnotes; k++) {
            strncat(notes, " * note: ", sizeof notes - strlen(notes) - 1);
            strncat(notes, t->notes[k], sizeof notes - strlen(notes) - 1);
            strncat(notes, "\n", sizeof notes - strlen(notes) - 1);
        }
        snprintf(prov, sizeof prov,
                 "/* Generated by tkgen %s from templates/gemm-f32-blocked.h.m4, %s and %s (fnv1a %08x);\n"
                 " * do not edit. Table rows: %s (tuner: %s, date %s, compiler: %s).\n%s */\n",
                 TKGEN_VERSION, d->template_path, rel(t->path), t->hash,
                 !strcmp(t->source, "modelled") ? "modelled, not measured" : t->source, t->tuner, t->date,
                 t->compiler[0] ? t->compiler : "-", notes);
        run_m4(drv, out, prov);
    }

    /* Everything generated in this build, for tests and tools: X(cpu_symbol, "token", isa) and
     * X(isa, runnable): runnable is 1 or TKI_CPU_SUPPORTS("feature"), which the includer defines. */
    {
        char allp[1200], allt[1300];
        snprintf(allp, sizeof allp, "%s/all.h", gdir);
        FILE *fa = begin_output(allp, allt, sizeof allt);
        fprintf(fa, "/* Generated by tkgen %s: every CPU and ISA header of this build; do not edit. */\n", TKGEN_VERSION);
        fprintf(fa, "#ifndef TK_GEN_ALL_H\n#define TK_GEN_ALL_H\n");
        for (int i = 0; i < ncpu; i++) {
            char s[40];
            cpu_symbol(tables[i].cpu, s, sizeof s);
            fprintf(fa, "#include \"gemm_f32_%s.h\"\n", s);
        }
        fprintf(fa, "#define TKI_GEN_CPUS(X)");
        for (int i = 0; i < ncpu; i++) {
            char s[40];
            cpu_symbol(tables[i].cpu, s, sizeof s);
            fprintf(fa, " X(%s, \"%s\", %s)", s, tables[i].cpu, tables[i].isa);
        }
        fprintf(fa, "\n#define TKI_GEN_ISAS(X)");
        for (int ii = 0; ii < p->nisa; ii++) {
            int used = 0;
            for (int i = 0; i < ncpu; i++) used |= !strcmp(tables[i].isa, p->isas[ii].name);
            if (!used) continue;
            if (!strcmp(p->isas[ii].host_feature, "none")) fprintf(fa, " X(%s, 1)", p->isas[ii].name);
            else fprintf(fa, " X(%s, TKI_CPU_SUPPORTS(\"%s\"))", p->isas[ii].name, p->isas[ii].host_feature);
        }
        fprintf(fa, "\n#endif\n");
        end_output(fa, allt, allp);
    }

    /* The selected CPU: what <tk/gemm.h> binds to. Plain C, no template needed. */
    char sym[40], out[1200], tmp[1300];
    cpu_symbol(deflt, sym, sizeof sym);
    snprintf(out, sizeof out, "%s/config.h", gdir);
    FILE *f = begin_output(out, tmp, sizeof tmp);
    fprintf(f, "/* Generated by tkgen %s: the CPU this build of tk is for; do not edit. */\n", TKGEN_VERSION);
    fprintf(f, "#ifndef TK_GEN_CONFIG_H\n#define TK_GEN_CONFIG_H\n");
    fprintf(f, "#include \"gemm_f32_%s.h\"\n", sym);
    fprintf(f, "#define TKI_CPU_NAME \"%s\"\n", deflt);
    fprintf(f, "#define TKI_SEL(name) name##_%s\n", sym);
    fprintf(f, "#endif\n");
    end_output(f, tmp, out);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: tkgen check  --root DIR FILE...\n"
            "       tkgen detect --root DIR [--cpuinfo FILE]\n"
            "       tkgen info   --root DIR --cpu CPU (isa|family|cflags|emulator|fallback|table|vlen|qemu_cpu|mca_cpu)\n"
            "       tkgen build  --root DIR --cpus A,B --default A --out DIR [--m4 PROG] [--table CPU=FILE]\n"
            "       tkgen ukr    --root DIR --isa ISA [--tiles MRxNVxKU[pPF],..] [--direct MRxNVxKU[pPF],..]\n"
            "                    [--dot MRxNBxKU,..] --out DIR\n");
    exit(2);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    const char *cmd = argv[1], *cpus = NULL, *deflt = NULL, *out = NULL, *cpu = NULL, *cpuinfo = NULL;
    const char *isa_name = NULL, *tiles_csv = NULL, *direct_csv = NULL, *dot_csv = NULL;
    const char *pos[64];
    int npos = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) g_root = argv[++i];
        else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) cpus = argv[++i];
        else if (!strcmp(argv[i], "--default") && i + 1 < argc) deflt = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--m4") && i + 1 < argc) g_m4 = argv[++i];
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = argv[++i];
        else if (!strcmp(argv[i], "--cpuinfo") && i + 1 < argc) cpuinfo = argv[++i];
        else if (!strcmp(argv[i], "--isa") && i + 1 < argc) isa_name = argv[++i];
        else if (!strcmp(argv[i], "--tiles") && i + 1 < argc) tiles_csv = argv[++i];
        else if (!strcmp(argv[i], "--direct") && i + 1 < argc) direct_csv = argv[++i];
        else if (!strcmp(argv[i], "--dot") && i + 1 < argc) dot_csv = argv[++i];
        else if (!strcmp(argv[i], "--table") && i + 1 < argc && strchr(argv[i + 1], '=')) {
            /* CPU=FILE: that CPU's table comes from FILE (bench against a previous table) */
            char cpu_name[32];
            const char *eq = strchr(argv[++i], '=');
            snprintf(cpu_name, sizeof cpu_name, "%.*s", (int)(eq - argv[i]), argv[i]);
            set_table_override(cpu_name, eq + 1);
        }
        else if (argv[i][0] == '-' && argv[i][1] == '-') usage();
        else if (npos < 64) pos[npos++] = argv[i];
    }
    if (!strcmp(cmd, "check")) {
        if (npos == 0) usage();
        project p;
        memset(&p, 0, sizeof p);
        for (int i = 0; i < npos; i++) {
            if (ends_with(pos[i], ".tkarch")) {
                isa_desc d;
                parse_isa(pos[i], &d);
            } else if (ends_with(pos[i], ".tkr")) {
                registry g;
                if (parse_registry(pos[i], &g)) validate_match(&g);
            } else if (ends_with(pos[i], ".tkt")) {
                /* a table is checked against the ISA it names */
                static tkt_table t;
                reader r;
                const isa_desc *d = NULL;
                if (reader_open(&r, pos[i])) {
                    while (reader_next(&r))
                        if (!strcmp(r.tok[0], "isa") && r.ntok > 1) {
                            d = load_isa(&p, r.tok[1], pos[i], r.line);
                            break;
                        }
                    fclose(r.f);
                }
                /* and, where it parses, as the generator instantiates it: the cut rows, then the select
                 * tree, which stops where a shape has no row (a table that checks also builds) */
                if ((d || !n_errors) && parse_table(pos[i], d, &t) && d && tkt_short_rows(d, &t)) {
                    FILE *null = fopen("/dev/null", "w");
                    if (!null) die("cannot open /dev/null");
                    emit_select_tree(null, &t);
                    fclose(null);
                }
            } else {
                err_at(pos[i], 0, "unknown file kind (expected .tkarch, .tkr or .tkt)");
            }
        }
        return n_errors ? 1 : 0;
    }
    project p;
    load_project(&p);
    validate_match(&p.reg);
    if (n_errors) return 1;
    if (!strcmp(cmd, "detect")) {
        if (cpuinfo) {
            /* an unreadable file would match nothing but 'any' and print generic, as if detected */
            FILE *f = fopen(cpuinfo, "r");
            if (!f) die("cannot read %s: %s", cpuinfo, strerror(errno));
            fclose(f);
            set_cpuinfo_path(cpuinfo);
        }
        for (int i = 0; i < p.reg.n; i++)
            if (host_matches(p.reg.rows[i].match)) {
                printf("%s\n", p.reg.rows[i].cpu);
                return 0;
            }
        die("no registry row matches this host (the registry should end in a row matching 'any')");
    }
    if (!strcmp(cmd, "info")) {
        if (!cpu || npos != 1) usage();
        const reg_row *c = reg_find(&p.reg, cpu);
        if (!c) die("CPU '%s' is not in %s", cpu, rel(p.reg.path));
        const isa_desc *d = load_isa(&p, c->isa, p.reg.path, c->line);
        if (!d) return 1;
        const char *k = pos[0];
        char path[1024];
        if (!strcmp(k, "isa")) printf("%s\n", d->name);
        else if (!strcmp(k, "family")) printf("%s\n", c->family);
        else if (!strcmp(k, "cflags")) printf("%s\n", strcmp(d->cflags, "none") ? d->cflags : "");
        else if (!strcmp(k, "require")) printf("%s\n", d->require_macro);
        else if (!strcmp(k, "emulator")) printf("%s\n", strcmp(d->emulator, "none") ? d->emulator : "");
        else if (!strcmp(k, "fallback")) printf("%s\n", c->fallback);
        else if (!strcmp(k, "chain")) {
            const reg_row *x = c;
            printf("%s", x->cpu);
            while (strcmp(x->fallback, "-") && (x = reg_find(&p.reg, x->fallback))) printf(",%s", x->cpu);
            printf("\n");
        }
        else if (!strcmp(k, "table")) table_path(c, path, sizeof path), printf("%s\n", path);
        else if (!strcmp(k, "vlen") || !strcmp(k, "qemu_cpu") || !strcmp(k, "mca_cpu")) {
            static tkt_table t;
            if (!load_table(&p, c, &t)) return 1;
            if (!strcmp(k, "vlen")) printf("%llu\n", t.vlen_bits);
            else printf("%s\n", !strcmp(k, "qemu_cpu") ? t.qemu_cpu : t.mca_cpu);
        } else usage();
        return 0;
    }
    if (!strcmp(cmd, "ukr")) {
        /* the microkernels of an explicit tile list, for the tuner's probes: same templates, same code */
        const isa_desc *d;
        static tile tl[256], dl[256], ol[256];
        int nt = 0, nd = 0, no = 0;
        char gdir[1100], drvdir[1100], buf[4096];
        if (!isa_name || !out || (!tiles_csv && !direct_csv && !dot_csv)) usage();
        d = load_isa(&p, isa_name, "command line", 0);
        if (!d) return 1;
        for (int pass = 0; pass < 2; pass++) {
            const char *csv = pass ? direct_csv : tiles_csv;
            if (!csv) continue;
            if (pass && !d->direct) die("ISA %s has no direct form", d->name);
            snprintf(buf, sizeof buf, "%s", csv);
            for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
                unsigned mr, nv, ku, pf = 0;
                int used = 0;
                int got = sscanf(it, "%ux%ux%u%n", &mr, &nv, &ku, &used);
                if (got != 3 || !mr || !nv || !ku || ku > 16 || mr > 64 ||
                    (it[used] && (it[used] != 'p' || !tkt_pf_parse(it + used + 1, &pf))))
                    die("bad tile '%s' (want MRxNVxKU or MRxNVxKUpPF, NV in vectors, PF as the table's pf column)", it);
                if (pf && !d->prefetch) die("tile %s: ISA %s has no prefetching kernels", it, d->name);
                if (tile_vregs(d, mr, nv) > d->vregs) die("tile %s needs more than the %u registers of %s", it, d->vregs, d->name);
                if (pass) nd = tile_add(dl, nd, mr, d->vla ? nv : nv * d->lanes, ku, pf);
                else nt = tile_add(tl, nt, mr, d->vla ? nv : nv * d->lanes, ku, pf);
                if (nt >= 255 || nd >= 255) die("too many tiles");
            }
        }
        if (dot_csv) {
            if (!d->dot) die("ISA %s has no dot form", d->name);
            snprintf(buf, sizeof buf, "%s", dot_csv);
            for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
                unsigned mr, nb, ku;
                char tl_s[64], why[256];
                if (sscanf(it, "%ux%ux%u", &mr, &nb, &ku) != 3 || !ku || ku > 16) die("bad dot tile '%s' (want MRxNBxKU)", it);
                snprintf(tl_s, sizeof tl_s, "%ux%u", mr, nb);
                if (!parse_dot_tile(tl_s, d, &mr, &nb, why, sizeof why)) die("%s", why);
                no = tile_add(ol, no, mr, nb, ku, 0);
                if (no >= 255) die("too many tiles");
            }
        }
        snprintf(gdir, sizeof gdir, "%s/tk/gen", out);
        snprintf(drvdir, sizeof drvdir, "%s/m4", out);
        ensure_dir(gdir);
        ensure_dir(drvdir);
        emit_ukr_header(d, tl, nt, dl, nd, ol, no, drvdir, gdir, "an explicit tile list (tuner probe)");
        return 0;
    }
    if (!strcmp(cmd, "build")) {
        if (!cpus || !deflt || !out) usage();
        build(&p, cpus, deflt, out);
        return 0;
    }
    usage();
    return 2;
}
