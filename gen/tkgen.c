/* tkgen - the tk generator: parses and validates ISA descriptors (isa.tkarch), the CPU registry
 * (registry.tkr) and tuning tables (.tkt), then drives GNU m4 -P over the templates to write the
 * generated headers. Every malformed input line is reported as `file:line: message`.
 *
 * Usage:
 *   tkgen check  --root DIR FILE...          validate files (kind from the extension)
 *   tkgen detect --root DIR                  print the registry token of the host CPU
 *   tkgen info   --root DIR --cpu CPU KEY    print isa | family | cflags | emulator | fallback | table
 *   tkgen build  --root DIR --cpus A,B,.. --default A --out DIR [--m4 PROG]
 *
 * The generator emits only m4 calls and data; all C code comes from templates/ and arch/. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define TKGEN_VERSION "0.1"
#define MAXTOK 64
#define MAXROWS 256
#define MAXCPU 64
#define MAXISA 16
#define TK_SIZE_INF ((unsigned long long)-1)

static int n_errors;

static void err_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    n_errors++;
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tkgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- line reader: one logical line = whitespace-separated tokens, '#' starts a comment ---- */
typedef struct {
    const char *path;
    FILE *f;
    int line;
    char buf[4096];
    char *tok[MAXTOK];
    int ntok;
    char *rest; /* text after the first token, for free-text keys */
} reader;

static int reader_open(reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    return r->f != NULL;
}

static int reader_next(reader *r)
{
    for (;;) {
        if (!fgets(r->buf, sizeof r->buf, r->f)) return 0;
        r->line++;
        size_t len = strlen(r->buf);
        if (len == sizeof r->buf - 1 && r->buf[len - 1] != '\n') {
            err_at(r->path, r->line, "line longer than %d characters", (int)sizeof r->buf - 2);
            int ch;
            while ((ch = fgetc(r->f)) != EOF && ch != '\n') {}
            continue;
        }
        char *hash = strchr(r->buf, '#');
        if (hash) *hash = 0;
        r->ntok = 0;
        r->rest = NULL;
        char *p = r->buf;
        while (*p) {
            while (*p && isspace((unsigned char)*p)) p++;
            if (!*p) break;
            if (r->ntok == 1 && !r->rest) r->rest = p;
            if (r->ntok == MAXTOK) {
                err_at(r->path, r->line, "more than %d fields", MAXTOK);
                break;
            }
            r->tok[r->ntok++] = p;
            while (*p && !isspace((unsigned char)*p)) p++;
            if (*p) *p++ = 0;
        }
        if (r->ntok > 0) return 1;
    }
}

static int parse_uint(const char *s, unsigned long long *out)
{
    if (!*s || !isdigit((unsigned char)*s)) return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

/* ---- ISA descriptor ---- */
typedef struct {
    char path[512];
    char name[32], family[32], predication[16];
    unsigned vector_bits, vregs, lanes;
    int vla;
    char target_attr[256], cflags[256], require_macro[64], host_feature[64], emulator[256],
        template_path[256];
    char a_regs[8]; /* registers holding A per k step: one (a broadcast), lanes (MR/lanes vectors), none */
    int direct; /* the template also provides the direct form (A and B read in place) */
} isa_desc;

static const char *const isa_keys[] = {"isa", "family", "vector_bits", "vregs", "vla", "predication",
                                       "target_attr", "cflags", "require_macro", "host_feature",
                                       "emulator", "template", "a_regs", "direct", NULL};

static void copy_rest(reader *r, char *dst, size_t cap)
{
    /* the tokens after the key, joined by single spaces */
    dst[0] = 0;
    for (int i = 1; i < r->ntok; i++) {
        if (strlen(dst) + strlen(r->tok[i]) + 2 > cap) {
            err_at(r->path, r->line, "value too long");
            return;
        }
        if (i > 1) strcat(dst, " ");
        strcat(dst, r->tok[i]);
    }
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *g_root = ".";

static int parse_isa(const char *path, isa_desc *d)
{
    reader r;
    int before = n_errors;
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    if (!reader_open(&r, path)) {
        err_at(path, 0, "cannot open: %s", strerror(errno));
        return 0;
    }
    unsigned seen = 0;
    while (reader_next(&r)) {
        int key = -1;
        for (int i = 0; isa_keys[i]; i++)
            if (!strcmp(r.tok[0], isa_keys[i])) key = i;
        if (key < 0) {
            err_at(path, r.line, "unknown key '%s'", r.tok[0]);
            continue;
        }
        if (seen & (1u << key)) err_at(path, r.line, "key '%s' given twice", r.tok[0]);
        seen |= 1u << key;
        if (r.ntok < 2) {
            err_at(path, r.line, "key '%s' has no value", r.tok[0]);
            continue;
        }
        unsigned long long v = 0;
        switch (key) {
        case 0: snprintf(d->name, sizeof d->name, "%s", r.tok[1]); break;
        case 1: snprintf(d->family, sizeof d->family, "%s", r.tok[1]); break;
        case 2:
        case 3:
            if (!parse_uint(r.tok[1], &v) || v == 0 || v > 65536) {
                err_at(path, r.line, "'%s' must be a positive integer", r.tok[0]);
                break;
            }
            if (key == 2) d->vector_bits = (unsigned)v; else d->vregs = (unsigned)v;
            break;
        case 4:
            if (!strcmp(r.tok[1], "yes")) d->vla = 1;
            else if (!strcmp(r.tok[1], "no")) d->vla = 0;
            else err_at(path, r.line, "'vla' must be yes or no");
            break;
        case 5: snprintf(d->predication, sizeof d->predication, "%s", r.tok[1]); break;
        case 6: copy_rest(&r, d->target_attr, sizeof d->target_attr); break;
        case 7: copy_rest(&r, d->cflags, sizeof d->cflags); break;
        case 8: snprintf(d->require_macro, sizeof d->require_macro, "%s", r.tok[1]); break;
        case 9: snprintf(d->host_feature, sizeof d->host_feature, "%s", r.tok[1]); break;
        case 10: copy_rest(&r, d->emulator, sizeof d->emulator); break;
        case 11: snprintf(d->template_path, sizeof d->template_path, "%s", r.tok[1]); break;
        case 12:
            if (strcmp(r.tok[1], "one") && strcmp(r.tok[1], "lanes") && strcmp(r.tok[1], "none"))
                err_at(path, r.line, "a_regs must be one, lanes or none");
            snprintf(d->a_regs, sizeof d->a_regs, "%s", r.tok[1]);
            break;
        case 13:
            if (!strcmp(r.tok[1], "yes")) d->direct = 1;
            else if (!strcmp(r.tok[1], "no")) d->direct = 0;
            else err_at(path, r.line, "direct must be yes or no");
            break;
        }
    }
    fclose(r.f);
    for (int i = 0; isa_keys[i]; i++)
        if (!(seen & (1u << i))) err_at(path, r.line, "missing key '%s'", isa_keys[i]);
    if (d->vector_bits && d->vector_bits % 32) err_at(path, 1, "vector_bits must be a multiple of 32");
    d->lanes = d->vector_bits / 32;
    if (d->template_path[0]) {
        char full[1024];
        snprintf(full, sizeof full, "%s/%s", g_root, d->template_path);
        if (!file_exists(full)) err_at(path, 1, "template '%s' does not exist", d->template_path);
    }
    return n_errors == before;
}

/* ---- registry ---- */
typedef struct {
    char cpu[32], family[32], isa[32], fallback[32], match[256];
    int line;
} reg_row;

typedef struct {
    char path[512];
    reg_row rows[MAXCPU];
    int n;
} registry;

static int valid_token(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-')) return 0;
    return 1;
}

static const char *const reg_cols[] = {"cpu", "family", "isa", "fallback", "match", NULL};

static int parse_registry(const char *path, registry *g)
{
    reader r;
    int before = n_errors, have_cols = 0, colmap[8];
    memset(g, 0, sizeof *g);
    snprintf(g->path, sizeof g->path, "%s", path);
    if (!reader_open(&r, path)) {
        err_at(path, 0, "cannot open: %s", strerror(errno));
        return 0;
    }
    while (reader_next(&r)) {
        if (!strcmp(r.tok[0], "columns")) {
            if (have_cols) err_at(path, r.line, "'columns' given twice");
            have_cols = 1;
            for (int c = 0; reg_cols[c]; c++) {
                colmap[c] = -1;
                for (int i = 1; i < r.ntok; i++)
                    if (!strcmp(r.tok[i], reg_cols[c])) colmap[c] = i;
                if (colmap[c] < 0) err_at(path, r.line, "missing column '%s'", reg_cols[c]);
            }
            for (int i = 1; i < r.ntok; i++) {
                int known = 0;
                for (int c = 0; reg_cols[c]; c++) known |= !strcmp(r.tok[i], reg_cols[c]);
                if (!known) err_at(path, r.line, "unknown column '%s'", r.tok[i]);
            }
            if (r.ntok - 1 != 5) have_cols = -1;
            continue;
        }
        if (strcmp(r.tok[0], "cpu")) {
            err_at(path, r.line, "unknown key '%s' (expected 'columns' or 'cpu')", r.tok[0]);
            continue;
        }
        if (have_cols != 1) {
            err_at(path, r.line, "'cpu' row before a valid 'columns' line");
            continue;
        }
        if (r.ntok - 1 != 5) {
            err_at(path, r.line, "expected 5 fields after 'cpu', found %d", r.ntok - 1);
            continue;
        }
        if (g->n == MAXCPU) {
            err_at(path, r.line, "more than %d CPUs", MAXCPU);
            continue;
        }
        reg_row *w = &g->rows[g->n];
        char *dst[] = {w->cpu, w->family, w->isa, w->fallback, w->match};
        size_t cap[] = {sizeof w->cpu, sizeof w->family, sizeof w->isa, sizeof w->fallback,
                        sizeof w->match};
        for (int c = 0; c < 5; c++) snprintf(dst[c], cap[c], "%s", r.tok[colmap[c]]);
        w->line = r.line;
        if (!valid_token(w->cpu)) err_at(path, r.line, "CPU token '%s' must be [a-z0-9-]", w->cpu);
        for (int i = 0; i < g->n; i++)
            if (!strcmp(g->rows[i].cpu, w->cpu)) err_at(path, r.line, "CPU '%s' listed twice", w->cpu);
        g->n++;
    }
    fclose(r.f);
    if (!have_cols) err_at(path, r.line, "no 'columns' line");
    /* fallbacks must name a listed CPU and end in a self-loop-free chain at 'generic' */
    for (int i = 0; i < g->n; i++) {
        const char *fb = g->rows[i].fallback;
        if (!strcmp(fb, "-")) {
            if (strcmp(g->rows[i].isa, "scalar"))
                err_at(path, g->rows[i].line, "only a scalar CPU may end the fallback chain");
            continue;
        }
        int hops = 0, cur = i;
        while (cur >= 0 && strcmp(g->rows[cur].fallback, "-") && hops <= g->n) {
            int nx = -1;
            for (int j = 0; j < g->n; j++)
                if (!strcmp(g->rows[j].cpu, g->rows[cur].fallback)) nx = j;
            if (nx < 0) {
                err_at(path, g->rows[cur].line, "fallback '%s' is not a listed CPU", g->rows[cur].fallback);
                break;
            }
            cur = nx;
            hops++;
        }
        if (hops > g->n) err_at(path, g->rows[i].line, "fallback chain of '%s' loops", g->rows[i].cpu);
    }
    return n_errors == before;
}

static const reg_row *reg_find(const registry *g, const char *cpu)
{
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->rows[i].cpu, cpu)) return &g->rows[i];
    return NULL;
}

/* ---- tuning tables ---- */
typedef struct {
    unsigned long long lo, hi;
} range;

typedef struct {
    range m, n, k;
    unsigned mr, nr, ku;            /* nr: lanes for fixed-width ISAs, vectors for VLA (nr_v) */
    unsigned long long mc, nc, kc;  /* nc in the same unit as nr */
    int packb;                      /* 0 no, 1 yes */
    int packa;                      /* 0: A read in place by the direct kernel form */
    char split;                     /* partition cut: m or n */
    char order;                     /* inner loop order: m (A panel kept in L1) or n (B panel kept) */
    char evidence[16];
    int line;
} tkt_row;

typedef struct {
    char path[512];
    char cpu[32], isa[32], source[16], tuner[256], date[32], compiler[256];
    char notes[8][160];
    int nnotes;
    unsigned long long l1d, l2, l3, vlen_bits, cores;
    double peak_gflops, dram_gbs;
    tkt_row rows[MAXROWS];
    int n;
    uint32_t hash;
} tkt_table;

static const char *const tkt_cols[] = {"m", "n", "k", "tile", "ku", "mc", "nc", "kc",
                                       "packb", "split", "evidence", "order", "packa", NULL};
#define TKT_NCOLS 13

static int parse_range(const char *s, range *out)
{
    if (!strcmp(s, "*")) {
        out->lo = 1;
        out->hi = TK_SIZE_INF;
        return 1;
    }
    const char *dots = strstr(s, "..");
    char a[64], b[64];
    if (!dots) {
        if (!parse_uint(s, &out->lo)) return 0;
        out->hi = out->lo;
        return out->lo >= 1;
    }
    size_t la = (size_t)(dots - s);
    if (la == 0 || la >= sizeof a || strlen(dots + 2) >= sizeof b) return 0;
    memcpy(a, s, la);
    a[la] = 0;
    strcpy(b, dots + 2);
    if (!parse_uint(a, &out->lo) || out->lo < 1) return 0;
    if (!strcmp(b, "*")) out->hi = TK_SIZE_INF;
    else if (!parse_uint(b, &out->hi)) return 0;
    return out->lo <= out->hi;
}

/* "14x32" (lanes) or, for vector-length-agnostic ISAs, "8x2v" (vectors) */
static int parse_tile(const char *s, const isa_desc *isa, unsigned *mr, unsigned *nr, char *why,
                      size_t whycap)
{
    unsigned long long a, b;
    char tmp[64];
    const char *x = strchr(s, 'x');
    if (!x || (size_t)(x - s) >= sizeof tmp) return snprintf(why, whycap, "tile '%s' is not MRxNR", s), 0;
    memcpy(tmp, s, (size_t)(x - s));
    tmp[x - s] = 0;
    if (!parse_uint(tmp, &a) || a == 0 || a > 64) return snprintf(why, whycap, "bad MR in tile '%s'", s), 0;
    snprintf(tmp, sizeof tmp, "%s", x + 1);
    size_t l = strlen(tmp);
    int vec = l > 0 && tmp[l - 1] == 'v';
    if (vec) tmp[l - 1] = 0;
    if (!parse_uint(tmp, &b) || b == 0 || b > 512) return snprintf(why, whycap, "bad NR in tile '%s'", s), 0;
    if (isa->vla && !vec)
        return snprintf(why, whycap, "ISA %s is vector-length agnostic: write NR in vectors, e.g. %llux%uv",
                        isa->name, a, 2u), 0;
    if (!isa->vla && vec)
        return snprintf(why, whycap, "ISA %s has fixed vectors: write NR in lanes (multiple of %u)",
                        isa->name, isa->lanes), 0;
    unsigned nv = vec ? (unsigned)b : (unsigned)(b / isa->lanes);
    if (!vec && b % isa->lanes)
        return snprintf(why, whycap, "NR %llu is not a multiple of the %u lanes of %s", b, isa->lanes,
                        isa->name), 0;
    /* accumulators + one register per B vector + the registers that hold A (a_regs) */
    unsigned need = (unsigned)a * nv + nv;
    if (!strcmp(isa->a_regs, "one")) need += 1;
    else if (!strcmp(isa->a_regs, "lanes")) need += ((unsigned)a + isa->lanes - 1) / isa->lanes;
    if (need > isa->vregs)
        return snprintf(why, whycap, "tile %s needs %u vector registers, %s has %u", s, need, isa->name,
                        isa->vregs), 0;
    *mr = (unsigned)a;
    *nr = (unsigned)b;
    return 1;
}

static uint32_t fnv1a_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint32_t h = 2166136261u;
    int ch;
    if (!f) return 0;
    while ((ch = fgetc(f)) != EOF) h = (h ^ (uint32_t)ch) * 16777619u;
    fclose(f);
    return h;
}

static const char *const tkt_keys[] = {"tkt", "cpu", "isa", "source", "tuner", "date", "compiler",
                                       "note", "l1d_bytes", "l2_bytes", "l3_bytes", "vlen_bits",
                                       "cores", "peak_gflops", "dram_gbs", "columns", "row", NULL};

static int parse_table(const char *path, const isa_desc *isa, tkt_table *t)
{
    reader r;
    int before = n_errors, colmap[TKT_NCOLS], have_cols = 0;
    unsigned seen = 0;
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    if (!reader_open(&r, path)) {
        err_at(path, 0, "cannot open: %s", strerror(errno));
        return 0;
    }
    while (reader_next(&r)) {
        int key = -1;
        for (int i = 0; tkt_keys[i]; i++)
            if (!strcmp(r.tok[0], tkt_keys[i])) key = i;
        if (key < 0) {
            err_at(path, r.line, "unknown key '%s'", r.tok[0]);
            continue;
        }
        if (key != 7 && key != 16 && (seen & (1u << key))) err_at(path, r.line, "key '%s' given twice", r.tok[0]);
        seen |= 1u << key;
        if (r.ntok < 2) {
            err_at(path, r.line, "key '%s' has no value", r.tok[0]);
            continue;
        }
        unsigned long long v;
        char *end;
        switch (key) {
        case 0:
            if (strcmp(r.tok[1], "1")) err_at(path, r.line, "unsupported table format version '%s'", r.tok[1]);
            break;
        case 1: snprintf(t->cpu, sizeof t->cpu, "%s", r.tok[1]); break;
        case 2:
            snprintf(t->isa, sizeof t->isa, "%s", r.tok[1]);
            if (isa && strcmp(t->isa, isa->name))
                err_at(path, r.line, "table says isa '%s' but the registry says '%s'", t->isa, isa->name);
            break;
        case 3:
            snprintf(t->source, sizeof t->source, "%s", r.tok[1]);
            if (strcmp(r.tok[1], "modelled") && strcmp(r.tok[1], "estimated") && strcmp(r.tok[1], "measured"))
                err_at(path, r.line, "source must be modelled, estimated or measured");
            break;
        case 4: copy_rest(&r, t->tuner, sizeof t->tuner); break;
        case 5: snprintf(t->date, sizeof t->date, "%s", r.tok[1]); break;
        case 6: copy_rest(&r, t->compiler, sizeof t->compiler); break;
        case 7:
            if (t->nnotes < 8) copy_rest(&r, t->notes[t->nnotes++], sizeof t->notes[0]);
            else err_at(path, r.line, "more than 8 notes");
            break;
        case 8: case 9: case 10: case 11: case 12:
            if (!parse_uint(r.tok[1], &v) || v == 0) {
                err_at(path, r.line, "'%s' must be a positive integer", r.tok[0]);
                break;
            }
            if (key == 8) t->l1d = v;
            else if (key == 9) t->l2 = v;
            else if (key == 10) t->l3 = v;
            else if (key == 11) t->vlen_bits = v;
            else t->cores = v;
            break;
        case 13: case 14: {
            double d = strtod(r.tok[1], &end);
            if (*end || !(d > 0)) {
                err_at(path, r.line, "'%s' must be a positive number", r.tok[0]);
                break;
            }
            if (key == 13) t->peak_gflops = d; else t->dram_gbs = d;
            break;
        }
        case 15:
            have_cols = 1;
            for (int c = 0; c < TKT_NCOLS; c++) {
                colmap[c] = -1;
                for (int i = 1; i < r.ntok; i++)
                    if (!strcmp(r.tok[i], tkt_cols[c])) colmap[c] = i;
                if (colmap[c] < 0) {
                    err_at(path, r.line, "missing column '%s'", tkt_cols[c]);
                    have_cols = -1;
                }
            }
            for (int i = 1; i < r.ntok; i++) {
                int known = 0;
                for (int c = 0; c < TKT_NCOLS; c++) known |= !strcmp(r.tok[i], tkt_cols[c]);
                if (!known) {
                    err_at(path, r.line, "unknown column '%s'", r.tok[i]);
                    have_cols = -1;
                }
            }
            break;
        case 16: {
            if (have_cols != 1) {
                err_at(path, r.line, "'row' before a valid 'columns' line");
                break;
            }
            if (r.ntok - 1 != TKT_NCOLS) {
                err_at(path, r.line, "expected %d columns, found %d", TKT_NCOLS, r.ntok - 1);
                break;
            }
            if (t->n == MAXROWS) {
                err_at(path, r.line, "more than %d rows", MAXROWS);
                break;
            }
            if (!isa) break;
            tkt_row *w = &t->rows[t->n];
            const char *f[TKT_NCOLS];
            char why[256];
            int ok = 1;
            for (int c = 0; c < TKT_NCOLS; c++) f[c] = r.tok[colmap[c]];
            w->line = r.line;
            if (!parse_range(f[0], &w->m)) ok = 0, err_at(path, r.line, "bad m range '%s' (use N, LO..HI, LO..* or *)", f[0]);
            if (!parse_range(f[1], &w->n)) ok = 0, err_at(path, r.line, "bad n range '%s'", f[1]);
            if (!parse_range(f[2], &w->k)) ok = 0, err_at(path, r.line, "bad k range '%s'", f[2]);
            if (!parse_tile(f[3], isa, &w->mr, &w->nr, why, sizeof why)) ok = 0, err_at(path, r.line, "%s", why);
            if (!parse_uint(f[4], &v) || v < 1 || v > 16) ok = 0, err_at(path, r.line, "ku must be 1..16");
            else w->ku = (unsigned)v;
            if (!parse_uint(f[5], &w->mc) || w->mc == 0) ok = 0, err_at(path, r.line, "bad mc '%s'", f[5]);
            {
                char tmp[64];
                snprintf(tmp, sizeof tmp, "%s", f[6]);
                size_t l = strlen(tmp);
                int vec = l && tmp[l - 1] == 'v';
                if (vec) tmp[l - 1] = 0;
                if (vec != isa->vla) ok = 0, err_at(path, r.line, "nc '%s' must be in %s", f[6], isa->vla ? "vectors (e.g. 64v)" : "lanes");
                else if (!parse_uint(tmp, &w->nc) || w->nc == 0) ok = 0, err_at(path, r.line, "bad nc '%s'", f[6]);
            }
            if (!parse_uint(f[7], &w->kc) || w->kc == 0) ok = 0, err_at(path, r.line, "bad kc '%s'", f[7]);
            if (!strcmp(f[8], "yes")) w->packb = 1;
            else if (!strcmp(f[8], "no")) w->packb = 0;
            else ok = 0, err_at(path, r.line, "packb must be yes or no");
            if (!strcmp(f[9], "m") || !strcmp(f[9], "n")) w->split = f[9][0];
            else ok = 0, err_at(path, r.line, "split must be m or n");
            if (strcmp(f[10], "modelled") && strcmp(f[10], "estimated") && strcmp(f[10], "measured"))
                ok = 0, err_at(path, r.line, "evidence must be modelled, estimated or measured");
            snprintf(w->evidence, sizeof w->evidence, "%s", f[10]);
            if (!strcmp(f[11], "m") || !strcmp(f[11], "n")) w->order = f[11][0];
            else ok = 0, err_at(path, r.line, "order must be m or n");
            if (!strcmp(f[12], "yes")) w->packa = 1;
            else if (!strcmp(f[12], "no")) w->packa = 0;
            else ok = 0, err_at(path, r.line, "packa must be yes or no");
            if (ok && !w->packa && !isa->direct)
                ok = 0, err_at(path, r.line, "packa no needs the direct kernel form, which ISA %s does not provide", isa->name);
            if (ok) {
                if (w->mc % w->mr) err_at(path, r.line, "mc %llu is not a multiple of MR %u", w->mc, w->mr);
                if (w->nc % w->nr) err_at(path, r.line, "nc %llu is not a multiple of NR %u", w->nc, w->nr);
                if (w->kc > 65536) err_at(path, r.line, "kc %llu is larger than 65536", w->kc);
                if (w->mc > 65536 || w->nc > 65536) err_at(path, r.line, "mc/nc larger than 65536");
            }
            t->n++;
            break;
        }
        }
    }
    fclose(r.f);
    static const int required[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(seen & (1u << required[i]))) err_at(path, r.line, "missing key '%s'", tkt_keys[required[i]]);
    if (t->n == 0) err_at(path, r.line, "no rows");
    else {
        tkt_row *last = &t->rows[t->n - 1];
        if (last->m.lo != 1 || last->m.hi != TK_SIZE_INF || last->n.lo != 1 || last->n.hi != TK_SIZE_INF ||
            last->k.lo != 1 || last->k.hi != TK_SIZE_INF)
            err_at(path, last->line, "the last row must be the catch-all (m n k all '*')");
    }
    /* the workspace must stay addressable on small targets: packed A + packed B under 64 MiB */
    for (int i = 0; i < t->n; i++) {
        const tkt_row *w = &t->rows[i];
        unsigned long long vl = isa && isa->vla ? (t->vlen_bits / 32) : 1;
        if ((w->mc * w->kc + w->kc * w->nc * vl) * 4 > (64ull << 20))
            err_at(path, w->line, "blocks need more than 64 MiB of workspace");
    }
    if (isa && isa->vla && t->vlen_bits % isa->vector_bits)
        err_at(path, 1, "vlen_bits must be a multiple of the ISA's %u", isa->vector_bits);
    t->hash = fnv1a_file(path);
    return n_errors == before;
}

/* ---- project loading ---- */
typedef struct {
    registry reg;
    isa_desc isas[MAXISA];
    int nisa;
} project;

static int find_isa_path(const char *isa, char *out, size_t cap)
{
    static const char *const fams[] = {"x86", "arm", "riscv", "generic", "cuda", NULL};
    for (int i = 0; fams[i]; i++) {
        snprintf(out, cap, "%s/arch/%s/%s/isa.tkarch", g_root, fams[i], isa);
        if (file_exists(out)) return 1;
    }
    return 0;
}

static const isa_desc *load_isa(project *p, const char *name, const char *where, int line)
{
    for (int i = 0; i < p->nisa; i++)
        if (!strcmp(p->isas[i].name, name)) return &p->isas[i];
    char path[1024];
    if (!find_isa_path(name, path, sizeof path)) {
        err_at(where, line, "unknown ISA '%s' (no arch/*/%s/isa.tkarch)", name, name);
        return NULL;
    }
    if (p->nisa == MAXISA) die("too many ISAs");
    isa_desc *d = &p->isas[p->nisa];
    if (!parse_isa(path, d)) return NULL;
    if (strcmp(d->name, name)) {
        err_at(path, 1, "descriptor names isa '%s' but lives in directory '%s'", d->name, name);
        return NULL;
    }
    p->nisa++;
    return d;
}

static void load_project(project *p)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tuning_tables/registry.tkr", g_root);
    memset(p, 0, sizeof *p);
    if (!parse_registry(path, &p->reg)) exit(1);
    for (int i = 0; i < p->reg.n; i++) {
        const isa_desc *d = load_isa(p, p->reg.rows[i].isa, p->reg.path, p->reg.rows[i].line);
        if (d && strcmp(d->family, p->reg.rows[i].family))
            err_at(p->reg.path, p->reg.rows[i].line, "CPU '%s' is family '%s' but ISA '%s' is family '%s'",
                   p->reg.rows[i].cpu, p->reg.rows[i].family, d->name, d->family);
    }
    if (n_errors) exit(1);
}

static void table_path(const reg_row *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s/tuning_tables/%s/%s.tkt", g_root, c->family, c->cpu);
}

static int load_table(project *p, const reg_row *c, tkt_table *t)
{
    char path[1024];
    table_path(c, path, sizeof path);
    const isa_desc *d = load_isa(p, c->isa, p->reg.path, c->line);
    if (!d) return 0;
    if (!parse_table(path, d, t)) return 0;
    if (strcmp(t->cpu, c->cpu)) {
        err_at(path, 1, "table is for cpu '%s' but is filed as '%s'", t->cpu, c->cpu);
        return 0;
    }
    if (!d->vla) t->vlen_bits = t->vlen_bits ? t->vlen_bits : d->vector_bits;
    return 1;
}

/* ---- host detection from /proc/cpuinfo ---- */
static int cpuinfo_field(const char *key, char *out, size_t cap)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    if (!f) return 0;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == '\t' || line[kl] == ':')) {
            char *colon = strchr(line, ':');
            if (!colon) continue;
            colon++;
            while (*colon == ' ') colon++;
            size_t l = strlen(colon);
            while (l && (colon[l - 1] == '\n' || colon[l - 1] == ' ')) colon[--l] = 0;
            snprintf(out, cap, "%s", colon);
            fclose(f);
            return 1;
        }
    }
    fclose(f);
    return 0;
}

static int has_word(const char *list, const char *w)
{
    size_t wl = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p += wl)
        if ((p == list || p[-1] == ' ') && (p[wl] == 0 || p[wl] == ' ')) return 1;
    return 0;
}

static const char *host_arch(void)
{
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
    return "riscv64";
#else
    return "other";
#endif
}

/* match: '-' never, 'any' always, else comma list of arch=, x86vendor=, x86family=, feat=, armpart= */
static int host_matches(const char *match)
{
    char buf[256], val[8192];
    if (!strcmp(match, "-")) return 0;
    if (!strcmp(match, "any")) return 1;
    snprintf(buf, sizeof buf, "%s", match);
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '=');
        if (!eq) return 0;
        *eq = 0;
        const char *k = it, *v = eq + 1;
        if (!strcmp(k, "arch")) {
            if (strcmp(v, host_arch())) return 0;
        } else if (!strcmp(k, "x86vendor")) {
            if (!cpuinfo_field("vendor_id", val, sizeof val) || strcmp(val, v)) return 0;
        } else if (!strcmp(k, "x86family")) {
            if (!cpuinfo_field("cpu family", val, sizeof val) || strtol(val, NULL, 0) != strtol(v, NULL, 0)) return 0;
        } else if (!strcmp(k, "armpart")) {
            if (!cpuinfo_field("CPU part", val, sizeof val) || strtol(val, NULL, 0) != strtol(v, NULL, 0)) return 0;
        } else if (!strcmp(k, "feat")) {
            if (!(cpuinfo_field("flags", val, sizeof val) || cpuinfo_field("Features", val, sizeof val) ||
                  cpuinfo_field("isa", val, sizeof val)))
                return 0;
            if (!has_word(val, v)) {
                /* riscv: 'isa : rv64imafdcv_...' lists single-letter extensions in one word */
                if (!(strlen(v) == 1 && !strncmp(val, "rv64", 4) && strchr(val + 4, v[0]) &&
                      strchr(val + 4, v[0]) < (strchr(val, '_') ? strchr(val, '_') : val + strlen(val))))
                    return 0;
            }
        } else {
            return 0;
        }
    }
    return 1;
}

static void validate_match(const registry *g)
{
    static const char *const keys[] = {"arch", "x86vendor", "x86family", "feat", "armpart", NULL};
    for (int i = 0; i < g->n; i++) {
        const char *m = g->rows[i].match;
        if (!strcmp(m, "-") || !strcmp(m, "any")) continue;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", m);
        for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(it, '=');
            int ok = 0;
            if (eq) {
                *eq = 0;
                for (int k = 0; keys[k]; k++) ok |= !strcmp(it, keys[k]);
                ok &= eq[1] != 0;
            }
            if (!ok) err_at(g->path, g->rows[i].line, "bad match clause '%s' (keys: arch x86vendor x86family feat armpart)", it);
        }
    }
}

/* ---- m4 driving ---- */
static const char *g_m4 = "m4";

static void sanitize(const char *cpu, char *out, size_t cap)
{
    size_t i = 0;
    for (; cpu[i] && i + 1 < cap; i++) out[i] = cpu[i] == '-' ? '_' : cpu[i];
    out[i] = 0;
}

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
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "w");
    if (!f) die("cannot write %s", tmp);
    fprintf(f, "%s", provenance);
    fwrite(body, 1, olen, f);
    if (fclose(f)) die("write error on %s", tmp);
    free(body);
    if (rename(tmp, out)) die("cannot rename %s: %s", tmp, strerror(errno));
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

static void emit_isa_defs(FILE *f, const isa_desc *d)
{
    fprintf(f, "m4_define(<@TKM_ISA@>, <@%s@>)m4_dnl\n", d->name);
    fprintf(f, "m4_define(<@TKM_LANES@>, <@%u@>)m4_dnl\n", d->lanes);
    fprintf(f, "m4_define(<@TKM_VLA@>, <@%d@>)m4_dnl\n", d->vla);
    /* the whole attribute, so that commas in the list never reach m4 as argument separators */
    if (strcmp(d->target_attr, "none"))
        fprintf(f, "m4_define(<@TKM_TARGET@>, <@__attribute__((target(\"%s\")))@>)m4_dnl\n", d->target_attr);
    else
        fprintf(f, "m4_define(<@TKM_TARGET@>, <@@>)m4_dnl\n");
    fprintf(f, "m4_define(<@TKM_REQUIRE_MACRO@>, <@%s@>)m4_dnl\n", d->require_macro);
    fprintf(f, "m4_define(<@TKM_CFLAGS@>, <@%s@>)m4_dnl\n", d->cflags);
    fprintf(f, "m4_include(<@%s/%s@>)m4_dnl\n", g_root, d->template_path);
}

typedef struct {
    unsigned mr, nr, ku;
} tile;

static int tile_add(tile *ts, int n, unsigned mr, unsigned nr, unsigned ku)
{
    for (int i = 0; i < n; i++)
        if (ts[i].mr == mr && ts[i].nr == nr && ts[i].ku == ku) return n;
    ts[n].mr = mr;
    ts[n].nr = nr;
    ts[n].ku = ku;
    return n + 1;
}

static const char *rel(const char *path)
{
    size_t l = strlen(g_root);
    return !strncmp(path, g_root, l) && path[l] == '/' ? path + l + 1 : path;
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
        load_table(p, c, &tables[i]);
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
        static tile tiles[MAXROWS * 4], dtiles[MAXROWS * 4];
        int nt = 0, ndt = 0;
        char prov_tables[2048] = "";
        for (int r = 0; r < p->reg.n; r++) {
            if (strcmp(p->reg.rows[r].isa, d->name)) continue;
            static tkt_table t;
            if (!load_table(p, &p->reg.rows[r], &t)) exit(1);
            for (int j = 0; j < t.n; j++) nt = tile_add(tiles, nt, t.rows[j].mr, t.rows[j].nr, t.rows[j].ku);
            for (int j = 0; j < t.n; j++)
                if (!t.rows[j].packa) ndt = tile_add(dtiles, ndt, t.rows[j].mr, t.rows[j].nr, t.rows[j].ku);
            char one[128];
            snprintf(one, sizeof one, " %s(%08x)", t.cpu, t.hash);
            if (strlen(prov_tables) + strlen(one) < sizeof prov_tables) strcat(prov_tables, one);
        }
        char drv[1200], out[1200], prov[4096];
        snprintf(drv, sizeof drv, "%s/ukr_f32_%s.h.m4", drvdir, d->name);
        snprintf(out, sizeof out, "%s/ukr_f32_%s.h", gdir, d->name);
        FILE *f = open_driver(drv);
        emit_isa_defs(f, d);
        fprintf(f, "tkm_ukr_header_begin\n");
        fprintf(f, "#define TKI_VL_F32_%s() ((size_t)(tkm_vl_f32))\n", d->name);
        for (int j = 0; j < nt; j++) {
            unsigned nv = d->vla ? tiles[j].nr : tiles[j].nr / d->lanes;
            fprintf(f, "tkm_ukr_gemm_f32(%u, %u, %u)\n", tiles[j].mr, nv, tiles[j].ku);
        }
        for (int j = 0; j < ndt; j++) {
            unsigned nv = d->vla ? dtiles[j].nr : dtiles[j].nr / d->lanes;
            fprintf(f, "tkm_ukr_gemm_f32_direct(%u, %u, %u)\n", dtiles[j].mr, nv, dtiles[j].ku);
        }
        fprintf(f, "/* Every instantiated microkernel: X(name, mr, nr_vectors, ku) */\n");
        fprintf(f, "#define TKI_UKR_LIST_F32_%s(X) m4_dnl\n", d->name);
        for (int j = 0; j < nt; j++) {
            unsigned nv = d->vla ? tiles[j].nr : tiles[j].nr / d->lanes;
            fprintf(f, "    X(tkm_ukr_name(%u, %u, %u), %u, %u, %u) m4_dnl\n", tiles[j].mr, nv, tiles[j].ku,
                    tiles[j].mr, nv, tiles[j].ku);
        }
        fprintf(f, "\n/* Every instantiated direct-form microkernel (A and B read in place) */\n");
        fprintf(f, "#define TKI_UKR_DIRECT_LIST_F32_%s(X) m4_dnl\n", d->name);
        for (int j = 0; j < ndt; j++) {
            unsigned nv = d->vla ? dtiles[j].nr : dtiles[j].nr / d->lanes;
            fprintf(f, "    X(tkm_ukr_direct_name(%u, %u, %u), %u, %u, %u) m4_dnl\n", dtiles[j].mr, nv, dtiles[j].ku,
                    dtiles[j].mr, nv, dtiles[j].ku);
        }
        fprintf(f, "\ntkm_ukr_header_end\n");
        fclose(f);
        snprintf(prov, sizeof prov,
                 "/* Generated by tkgen %s from %s and the tables%s; do not edit. */\n", TKGEN_VERSION,
                 d->template_path, prov_tables);
        run_m4(drv, out, prov);
    }

    /* One framework instance per CPU: its configurations, decision tree and blocked driver. */
    for (int i = 0; i < ncpu; i++) {
        const tkt_table *t = &tables[i];
        const isa_desc *d = load_isa(p, t->isa, t->path, 1);
        char sym[40], drv[1200], out[1200], prov[8192];
        sanitize(t->cpu, sym, sizeof sym);
        snprintf(drv, sizeof drv, "%s/gemm_f32_%s.h.m4", drvdir, sym);
        snprintf(out, sizeof out, "%s/gemm_f32_%s.h", gdir, sym);
        FILE *f = open_driver(drv);
        emit_isa_defs(f, d);
        fprintf(f, "m4_define(<@TKM_CPU@>, <@%s@>)m4_dnl\n", sym);
        fprintf(f, "m4_define(<@TKM_CPU_TOKEN@>, <@%s@>)m4_dnl\n", t->cpu);
        fprintf(f, "m4_define(<@TKM_VLEN_BITS@>, <@%llu@>)m4_dnl\n", t->vlen_bits);
        fprintf(f, "m4_define(<@TKM_SOURCE@>, <@%s@>)m4_dnl\n", t->source);
        fprintf(f, "m4_define(<@TKM_NCFG@>, <@%d@>)m4_dnl\n", t->n);
        {
            /* the static default workspace: the largest packed A block plus packed B block of any row */
            unsigned long long ws = 0, vl = d->vla ? t->vlen_bits / 32 : d->lanes;
            for (int j = 0; j < t->n; j++) {
                const tkt_row *w = &t->rows[j];
                unsigned long long nr = d->vla ? w->nr * vl : w->nr;
                unsigned long long nce = d->vla ? w->nc * vl : w->nc;
                unsigned long long need = w->mc * w->kc + w->kc * (w->packb ? nce : nr) + 32;
                if (need > ws) ws = need;
            }
            fprintf(f, "m4_define(<@TKM_WS_FLOATS@>, <@%llu@>)m4_dnl\n", ws);
        }
        fprintf(f, "m4_include(<@%s/templates/gemm-f32-blocked.h.m4@>)m4_dnl\n", g_root);
        fprintf(f, "tkm_gemm_begin\n");
        for (int j = 0; j < t->n; j++) {
            const tkt_row *w = &t->rows[j];
            unsigned nv = d->vla ? w->nr : w->nr / d->lanes;
            unsigned long long nc_units = d->vla ? w->nc / w->nr : w->nc / w->nr; /* NR panels per nc */
            fprintf(f, "tkm_gemm_config(%d, %u, %u, %u, %llu, %llu, %llu, %d, %c, %c, %d, %s, %s:%d)\n", j, w->mr, nv,
                    w->ku, w->mc, nc_units, w->kc, w->packb, w->split, w->order, w->packa, w->evidence, rel(t->path), w->line);
        }
        fprintf(f, "tkm_gemm_select_begin\n");
        for (int j = 0; j < t->n; j++) {
            const tkt_row *w = &t->rows[j];
#define HI(x) ((x) == TK_SIZE_INF ? 0ull : (x))
            fprintf(f, "tkm_gemm_bucket(%d, %llu, %llu, %llu, %llu, %llu, %llu)\n", j, w->m.lo, HI(w->m.hi),
                    w->n.lo, HI(w->n.hi), w->k.lo, HI(w->k.hi));
        }
        fprintf(f, "tkm_gemm_select_end\n");
        fprintf(f, "tkm_gemm_end\n");
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
        snprintf(allt, sizeof allt, "%s.tmp", allp);
        FILE *fa = fopen(allt, "w");
        if (!fa) die("cannot write %s", allt);
        fprintf(fa, "/* Generated by tkgen %s: every CPU and ISA header of this build; do not edit. */\n", TKGEN_VERSION);
        fprintf(fa, "#ifndef TK_GEN_ALL_H\n#define TK_GEN_ALL_H\n");
        for (int i = 0; i < ncpu; i++) {
            char s[40];
            sanitize(tables[i].cpu, s, sizeof s);
            fprintf(fa, "#include \"gemm_f32_%s.h\"\n", s);
        }
        fprintf(fa, "#define TKI_GEN_CPUS(X)");
        for (int i = 0; i < ncpu; i++) {
            char s[40];
            sanitize(tables[i].cpu, s, sizeof s);
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
        if (fclose(fa) || rename(allt, allp)) die("cannot write %s", allp);
    }

    /* The selected CPU: what <tk/gemm.h> binds to. Plain C, no template needed. */
    char sym[40], out[1200], tmp[1300];
    sanitize(deflt, sym, sizeof sym);
    snprintf(out, sizeof out, "%s/config.h", gdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "w");
    if (!f) die("cannot write %s", tmp);
    fprintf(f, "/* Generated by tkgen %s: the CPU this build of tk is for; do not edit. */\n", TKGEN_VERSION);
    fprintf(f, "#ifndef TK_GEN_CONFIG_H\n#define TK_GEN_CONFIG_H\n");
    fprintf(f, "#include \"gemm_f32_%s.h\"\n", sym);
    fprintf(f, "#define TKI_CPU_NAME \"%s\"\n", deflt);
    fprintf(f, "#define TKI_SEL(name) name##_%s\n", sym);
    fprintf(f, "#endif\n");
    if (fclose(f) || rename(tmp, out)) die("cannot write %s", out);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: tkgen check  --root DIR FILE...\n"
            "       tkgen detect --root DIR\n"
            "       tkgen info   --root DIR --cpu CPU (isa|family|cflags|emulator|fallback|table|vlen)\n"
            "       tkgen build  --root DIR --cpus A,B --default A --out DIR [--m4 PROG]\n");
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
    const char *cmd = argv[1], *cpus = NULL, *deflt = NULL, *out = NULL, *cpu = NULL;
    const char *pos[64];
    int npos = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) g_root = argv[++i];
        else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) cpus = argv[++i];
        else if (!strcmp(argv[i], "--default") && i + 1 < argc) deflt = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--m4") && i + 1 < argc) g_m4 = argv[++i];
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = argv[++i];
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
                if (d || !n_errors) parse_table(pos[i], d, &t);
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
        else if (!strcmp(k, "vlen")) {
            static tkt_table t;
            if (!load_table(&p, c, &t)) return 1;
            printf("%llu\n", t.vlen_bits);
        } else usage();
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
