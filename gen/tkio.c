/* tkio.c - see tkio.h. */
#include "tkio.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int n_errors;

void err_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    n_errors++;
}

void die(const char *fmt, ...)
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

int reader_open(reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    return r->f != NULL;
}

int reader_next(reader *r)
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

int parse_uint(const char *s, unsigned long long *out)
{
    if (!*s || !isdigit((unsigned char)*s)) return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

int tkt_pf_parse(const char *s, unsigned *pf)
{
    unsigned long long v;
    const int along = *s == 'n';
    if (!parse_uint(s + along, &v) || v > 64 || (along && !v)) return 0;
    *pf = along ? TKT_PF_ALONG | (unsigned)v : (unsigned)v;
    return 1;
}

char *tkt_pf_text(unsigned pf, char *buf)
{
    if (pf & TKT_PF_ALONG) snprintf(buf, 8, "n%u", pf & ~TKT_PF_ALONG);
    else snprintf(buf, 8, "%u", pf);
    return buf;
}

/* ---- ISA descriptor ---- */

/* The index of the line's first token in the NULL-ended `keys`; -1 (reported) when unknown. */
static int key_index(const char *const *keys, const reader *r)
{
    for (int i = 0; keys[i]; i++)
        if (!strcmp(r->tok[0], keys[i])) return i;
    err_at(r->path, r->line, "unknown key '%s'", r->tok[0]);
    return -1;
}

static const char *const isa_keys[] = {"isa", "family", "vector_bits", "vregs", "vla", "predication",
                                       "target_attr", "cflags", "require_macro", "host_feature",
                                       "emulator", "template", "a_regs", "direct", "narrow", "prefetch", "dot", "half", NULL};

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

const char *g_root = ".";

int parse_isa(const char *path, isa_desc *d)
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
        int key = key_index(isa_keys, &r);
        if (key < 0) continue;
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
        case 14:
            if (!strcmp(r.tok[1], "yes")) d->narrow = 1;
            else if (!strcmp(r.tok[1], "no")) d->narrow = 0;
            else err_at(path, r.line, "narrow must be yes or no");
            break;
        case 15:
            if (!strcmp(r.tok[1], "yes")) d->prefetch = 1;
            else if (!strcmp(r.tok[1], "no")) d->prefetch = 0;
            else err_at(path, r.line, "prefetch must be yes or no");
            break;
        case 16:
            if (!strcmp(r.tok[1], "yes")) d->dot = 1;
            else if (!strcmp(r.tok[1], "no")) d->dot = 0;
            else err_at(path, r.line, "dot must be yes or no");
            break;
        case 17:
            /* tiles of up to this many vectors: a narrower vector for a last one half-filled (0: none) */
            if (!parse_uint(r.tok[1], &v) || v > 64) {
                err_at(path, r.line, "half must be a number of vectors, 0 to 64");
                break;
            }
            d->half = (unsigned)v;
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


static int valid_token(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-')) return 0;
    return 1;
}

static const char *const reg_cols[] = {"cpu", "family", "isa", "fallback", "match", NULL};

int parse_registry(const char *path, registry *g)
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

const reg_row *reg_find(const registry *g, const char *cpu)
{
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->rows[i].cpu, cpu)) return &g->rows[i];
    return NULL;
}

/* ---- tuning tables ---- */



static const char *const tkt_cols[] = {"m", "n", "k", "tile", "ku", "mc", "nc", "kc",
                                       "packb", "split", "evidence", "order", "packa", "pf", NULL};
#define TKT_NCOLS 14
#define TKT_COL_PF 13 /* optional: a table without it prefetches nowhere (tables before the column) */

int parse_range(const char *s, range *out)
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
/* vector registers an MR x NV tile needs: accumulators, one per B vector, and those holding A */
unsigned tile_vregs(const isa_desc *isa, unsigned mr, unsigned nv)
{
    unsigned need = mr * nv + nv;
    if (!strcmp(isa->a_regs, "one")) need += 1;
    else if (!strcmp(isa->a_regs, "lanes")) need += (mr + isa->lanes - 1) / isa->lanes;
    return need;
}

int parse_tile(const char *s, const isa_desc *isa, unsigned *mr, unsigned *nr, char *why,
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
    unsigned need = tile_vregs(isa, (unsigned)a, nv);
    if (need > isa->vregs)
        return snprintf(why, whycap, "tile %s needs %u vector registers, %s has %u", s, need, isa->name,
                        isa->vregs), 0;
    *mr = (unsigned)a;
    *nr = (unsigned)b;
    return 1;
}

/* A dot row's tile, "4x5": MR rows by NB columns (not lanes), NB at most half a vector's lanes (its
 * sums come out in one half-width vector); MR * NB accumulators, NB B vectors and one of A. */
int parse_dot_tile(const char *s, const isa_desc *isa, unsigned *mr, unsigned *nb, char *why, size_t whycap)
{
    unsigned long long a, b;
    char tmp[64];
    const char *x = strchr(s, 'x');
    if (!isa->dot) return snprintf(why, whycap, "packa dot needs the dot kernel form, which ISA %s does not provide", isa->name), 0;
    if (!x || (size_t)(x - s) >= sizeof tmp) return snprintf(why, whycap, "tile '%s' is not MRxNB", s), 0;
    memcpy(tmp, s, (size_t)(x - s));
    tmp[x - s] = 0;
    if (!parse_uint(tmp, &a) || a == 0 || a > 64) return snprintf(why, whycap, "bad MR in tile '%s'", s), 0;
    if (!parse_uint(x + 1, &b) || b == 0 || b > isa->lanes / 2)
        return snprintf(why, whycap, "a dot tile's NB (columns) must be 1..%u, not '%s'", isa->lanes / 2, x + 1), 0;
    if (a * b + b + 1 > isa->vregs)
        return snprintf(why, whycap, "dot tile %s needs %llu vector registers, %s has %u", s, a * b + b + 1, isa->name, isa->vregs), 0;
    *mr = (unsigned)a;
    *nb = (unsigned)b;
    return 1;
}

uint32_t fnv1a_file(const char *path)
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
                                       "cores", "peak_gflops", "dram_gbs", "columns", "row", "mca_cpu",
                                       "qemu_cpu", "b_crowd_bytes", NULL};

unsigned long long tkt_crowd_bytes(const tkt_table *t)
{
    return t->crowd ? t->crowd : t->l2 / 2;
}

int tkt_row_is_exact(const tkt_row *w)
{
    return w->m.lo == w->m.hi && w->n.lo == w->n.hi && w->k.lo == w->k.hi && w->k.hi != TK_SIZE_INF;
}

/* Short rows (docs/microkernel.md, "Tiles of exactly m rows"): a direct kernel of MR rows computes
 * MR rows whatever m is (rows past m re-read row 0 and are not stored), so a direct row whose m range
 * starts below its MR serves each m below both its MR and the range's top with the same kernel cut
 * to exactly m rows: same columns, unroll, prefetch, blocks and order, one row tile of m rows. The
 * table keeps the tuner's choice; the generator derives the cut rows from it, as the templates
 * narrow a ragged column tile to the vectors it needs. The top m keeps the row's tile: the tuner
 * measured the row there (a grid cell's representative is its top edge; an exact row or a decode
 * row of one m was measured at that m), and there a taller tile can win (14x32 on 12 rows of B
 * streamed from memory ran 12x4096x4096 at 1.0-1.4x the speed of 12x32, eight runs). A range row
 * whose n and k are single values is left whole: its cut rows would be exact rows, each one more
 * compare at every call site. The tuner's probes list the same cut tiles (shape_probe_build).
 * Returns 0 (with file:line) when the rows no longer fit. */
int tkt_short_rows(const isa_desc *d, tkt_table *t)
{
    static tkt_row out[MAXROWS];
    int n = 0;
    for (int j = 0; j < t->n; j++) {
        const tkt_row *w = &t->rows[j];
        unsigned long long r = w->m.lo;
        /* the loop's bounds leave whole a row whose m range starts at its MR or is one value */
        const int cut = d->direct && w->packa == 0 && (w->n.lo != w->n.hi || w->k.lo != w->k.hi);
        for (; cut && r < w->mr && r < w->m.hi; r++) {
            if (n == MAXROWS) break;
            out[n] = *w;
            out[n].m.lo = out[n].m.hi = r;
            /* a range from 1 takes m = 0 too (tkgen.c, tree_range), a single 1 does not: its cut row for
             * one row says so, or a direct catch-all left no row for m = 0 and tkgen stopped */
            if (r == 1 && w->m.lo <= 1) out[n].m.lo = 0;
            out[n].mr = (unsigned)r;
            out[n].mc = r;
            n++;
        }
        if (n == MAXROWS) {
            err_at(t->path, w->line, "more than %d rows once the direct rows are cut to exactly m rows", MAXROWS);
            return 0;
        }
        out[n] = *w;
        out[n++].m.lo = r;
    }
    memcpy(t->rows, out, (size_t)n * sizeof out[0]);
    t->n = n;
    return 1;
}

int tkt_row_has(const tkt_row *w, unsigned long long m, unsigned long long n, unsigned long long k)
{
    return w->m.lo <= m && m <= w->m.hi && w->n.lo <= n && n <= w->n.hi && w->k.lo <= k && k <= w->k.hi;
}

int parse_table(const char *path, const isa_desc *isa, tkt_table *t)
{
    reader r;
    int before = n_errors, colmap[TKT_NCOLS], have_cols = 0, ncols = TKT_NCOLS;
    unsigned seen = 0;
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    if (!reader_open(&r, path)) {
        err_at(path, 0, "cannot open: %s", strerror(errno));
        return 0;
    }
    while (reader_next(&r)) {
        int key = key_index(tkt_keys, &r);
        if (key < 0) continue;
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
        case 17: snprintf(t->mca_cpu, sizeof t->mca_cpu, "%s", r.tok[1]); break;
        case 18: snprintf(t->qemu_cpu, sizeof t->qemu_cpu, "%s", r.tok[1]); break;
        case 7:
            if (t->nnotes < TKT_MAX_NOTES) copy_rest(&r, t->notes[t->nnotes++], sizeof t->notes[0]);
            else err_at(path, r.line, "more than %d notes", TKT_MAX_NOTES);
            break;
        case 8: case 9: case 10: case 11: case 12: case 19:
            if (!parse_uint(r.tok[1], &v) || v == 0) {
                err_at(path, r.line, "'%s' must be a positive integer", r.tok[0]);
                break;
            }
            if (key == 8) t->l1d = v;
            else if (key == 9) t->l2 = v;
            else if (key == 10) t->l3 = v;
            else if (key == 11) t->vlen_bits = v;
            else if (key == 19) t->crowd = v;
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
            ncols = r.ntok - 1;
            for (int c = 0; c < TKT_NCOLS; c++) {
                colmap[c] = -1;
                for (int i = 1; i < r.ntok; i++)
                    if (!strcmp(r.tok[i], tkt_cols[c])) colmap[c] = i;
                if (colmap[c] < 0 && c != TKT_COL_PF) {
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
            if (r.ntok - 1 != ncols) {
                err_at(path, r.line, "expected %d columns, found %d", ncols, r.ntok - 1);
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
            for (int c = 0; c < TKT_NCOLS; c++) f[c] = colmap[c] < 0 ? "0" : r.tok[colmap[c]];
            w->line = r.line;
            if (!parse_range(f[0], &w->m)) ok = 0, err_at(path, r.line, "bad m range '%s' (use N, LO..HI, LO..* or *)", f[0]);
            if (!parse_range(f[1], &w->n)) ok = 0, err_at(path, r.line, "bad n range '%s'", f[1]);
            if (!parse_range(f[2], &w->k)) ok = 0, err_at(path, r.line, "bad k range '%s'", f[2]);
            if (!strcmp(f[12], "yes")) w->packa = 1;
            else if (!strcmp(f[12], "no")) w->packa = 0;
            else if (!strcmp(f[12], "dot")) w->packa = TKT_DOT;
            else ok = 0, w->packa = 1, err_at(path, r.line, "packa must be yes, no or dot");
            if (w->packa == TKT_DOT) {
                if (!parse_dot_tile(f[3], isa, &w->mr, &w->nr, why, sizeof why)) ok = 0, err_at(path, r.line, "%s", why);
            } else if (!parse_tile(f[3], isa, &w->mr, &w->nr, why, sizeof why)) ok = 0, err_at(path, r.line, "%s", why);
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
            if (strcmp(f[10], "modelled") && strcmp(f[10], "estimated") && strcmp(f[10], "measured") && strcmp(f[10], "pinned"))
                ok = 0, err_at(path, r.line, "evidence must be modelled, estimated, measured or pinned");
            snprintf(w->evidence, sizeof w->evidence, "%s", f[10]);
            if (!strcmp(f[11], "m") || !strcmp(f[11], "n")) w->order = f[11][0];
            else ok = 0, err_at(path, r.line, "order must be m or n");
            if (!tkt_pf_parse(f[TKT_COL_PF], &w->pf))
                ok = 0, err_at(path, r.line, "pf must be 0..64 (B rows prefetched ahead) or n1..n64 (lines along the row)");
            if (ok && w->pf && !isa->prefetch)
                ok = 0, err_at(path, r.line, "pf %s needs kernels that prefetch, which ISA %s does not provide", f[TKT_COL_PF], isa->name);
            if (ok && !w->packa && !isa->direct)
                ok = 0, err_at(path, r.line, "packa no needs the direct kernel form, which ISA %s does not provide", isa->name);
            if (ok && w->packa == TKT_DOT && (w->pf || !w->packb))
                ok = 0, err_at(path, r.line, "a dot row copies B by columns (packb yes) and does not prefetch (pf 0)");
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
    /* an exact row behind a range row that covers its shape would never be chosen, yet the entries
     * test the exact shapes before the other rows (in table order, so of two exact rows of one
     * shape the first wins, as in the table; the tuner's exact probe lists every candidate so) */
    for (int j = 0; j < t->n; j++) {
        const tkt_row *x = &t->rows[j];
        if (!tkt_row_is_exact(x)) continue;
        for (int i = 0; i < j; i++) {
            const tkt_row *w = &t->rows[i];
            if (!tkt_row_is_exact(w) && tkt_row_has(w, x->m.lo, x->n.lo, x->k.lo)) {
                err_at(path, x->line, "the exact row %llux%llux%llu is never chosen: the row of line %d before it covers that shape",
                       x->m.lo, x->n.lo, x->k.lo, w->line);
                break;
            }
        }
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

static int find_isa_path(const char *isa, char *out, size_t cap)
{
    static const char *const fams[] = {"x86", "arm", "riscv", "generic", "cuda", NULL};
    for (int i = 0; fams[i]; i++) {
        snprintf(out, cap, "%s/arch/%s/%s/isa.tkarch", g_root, fams[i], isa);
        if (file_exists(out)) return 1;
    }
    return 0;
}

const isa_desc *load_isa(project *p, const char *name, const char *where, int line)
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

void load_project(project *p)
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

static char g_override_cpu[32], g_override_path[1024];

void set_table_override(const char *cpu, const char *path)
{
    snprintf(g_override_cpu, sizeof g_override_cpu, "%s", cpu);
    snprintf(g_override_path, sizeof g_override_path, "%s", path);
}

void table_path(const reg_row *c, char *out, size_t cap)
{
    if (g_override_cpu[0] && !strcmp(c->cpu, g_override_cpu)) snprintf(out, cap, "%s", g_override_path);
    else snprintf(out, cap, "%s/tuning_tables/%s/%s.tkt", g_root, c->family, c->cpu);
}

int load_table(project *p, const reg_row *c, tkt_table *t)
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
static const char *g_cpuinfo_path = "/proc/cpuinfo";

void set_cpuinfo_path(const char *path) { g_cpuinfo_path = path; }

static int cpuinfo_field(const char *key, char *out, size_t cap)
{
    FILE *f = fopen(g_cpuinfo_path, "r");
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
int host_matches(const char *match)
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

void validate_match(const registry *g)
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

void range_text(const range *r, char *b, size_t cap)
{
    if (r->lo == 1 && r->hi == TK_SIZE_INF) snprintf(b, cap, "*");
    else if (r->lo == r->hi) snprintf(b, cap, "%llu", r->lo);
    else if (r->hi == TK_SIZE_INF) snprintf(b, cap, "%llu..*", r->lo);
    else snprintf(b, cap, "%llu..%llu", r->lo, r->hi);
}

static void write_range(FILE *f, const range *r)
{
    char b[64];
    range_text(r, b, sizeof b);
    fprintf(f, "%-7s ", b);
}

int write_table(FILE *f, const tkt_table *t, const isa_desc *isa)
{
    const char *v = isa->vla ? "v" : "";
    fprintf(f, "tkt          1\ncpu          %s\nisa          %s\nsource       %s\n", t->cpu, t->isa, t->source);
    if (t->tuner[0]) fprintf(f, "tuner        %s\n", t->tuner);
    if (t->date[0]) fprintf(f, "date         %s\n", t->date);
    if (t->compiler[0]) fprintf(f, "compiler     %s\n", t->compiler);
    if (t->mca_cpu[0]) fprintf(f, "mca_cpu      %s\n", t->mca_cpu);
    if (t->qemu_cpu[0]) fprintf(f, "qemu_cpu     %s\n", t->qemu_cpu);
    for (int i = 0; i < t->nnotes; i++) fprintf(f, "note         %s\n", t->notes[i]);
    fprintf(f, "l1d_bytes    %llu\nl2_bytes     %llu\nl3_bytes     %llu\nvlen_bits    %llu\ncores        %llu\n", t->l1d,
            t->l2, t->l3, t->vlen_bits, t->cores);
    fprintf(f, "peak_gflops  %.17g\ndram_gbs     %.17g\n", t->peak_gflops, t->dram_gbs);
    if (t->crowd) fprintf(f, "b_crowd_bytes %llu\n", t->crowd);
    fprintf(f, "columns      m       n       k       tile    ku  pf  mc    nc     kc     packb  split  order  packa  evidence\n");
    for (int i = 0; i < t->n; i++) {
        const tkt_row *w = &t->rows[i];
        char tile[64], nc[64], pf[8];
        snprintf(tile, sizeof tile, "%ux%u%s", w->mr, w->nr, w->packa == TKT_DOT ? "" : v);
        snprintf(nc, sizeof nc, "%llu%s", w->nc, v);
        fprintf(f, "row          ");
        write_range(f, &w->m);
        write_range(f, &w->n);
        write_range(f, &w->k);
        fprintf(f, "%-7s %-3u %-3s %-5llu %-6s %-6llu %-6s %-6c %-6c %-6s %s\n", tile, w->ku, tkt_pf_text(w->pf, pf), w->mc, nc, w->kc,
                w->packb ? "yes" : "no", w->split, w->order, w->packa == TKT_DOT ? "dot" : w->packa ? "yes" : "no", w->evidence);
    }
    return ferror(f) ? 0 : 1;
}

void cpu_symbol(const char *cpu, char *out, size_t cap)
{
    size_t i = 0;
    for (; cpu[i] && i + 1 < cap; i++) out[i] = cpu[i] == '-' ? '_' : cpu[i];
    out[i] = 0;
}
