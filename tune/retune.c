/* retune.c - one tuning run for one CPU, the phases in order:
 *   1. machine: the host's bandwidths (op=machine record), unless the log has them;
 *   2. level 0: profile the best-ranked microkernels (profile.c);
 *   3. plan: for every cell of the sample-free grid (buckets.c) and every shape of the optional
 *      shape list, the model's top few configurations plus the previous table's own choice;
 *   4. measure: every planned configuration on the cell's shape at two depths (measure.c), in
 *      rounds (A B C, A B C) so that a slow spell of a shared machine hits every candidate alike, each
 *      scored by its best round (the second round only for the KEEP best of the first); the
 *      fastest wins, the previous choice is kept unless beaten by more than the noise margin;
 *   5. table: exact-shape rows first, then the grid's winners with equal neighbours merged, written
 *      through a temporary file and a rename under a lock;
 *   6. report: text and an SVG chart, old against new against the peak, and each phase's time.
 * Every measurement is a line of the record log before anything uses it, so an interrupted run
 * (SIGINT, kill, a crash) leaves the old table as it was and a rerun measures only what is missing.
 *
 * Estimated mode, for a CPU this machine cannot run: level 0 comes from llvm-mca (estimate.c), each
 * point takes the model's first choice (nothing can be measured), and instead of step 4 every chosen
 * configuration is run under qemu on shapes that exercise its edges and checked; a wrong result
 * stops the run before the table is written. Rows and table say `estimated`. */
#include "retune.h"

#include "buckets.h"
#include "calibrate.h"
#include "estimate.h"
#include "machine.h"
#include "measure.h"

#include "../bench/cold.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXPTS 512
#define MAXC 40 /* candidates per point: the previous choice, the model's, and their variants */
#define GEN_CHUNK0 32 /* grid points in a measured run's first generic probe; each next chunk twice the last */
#define GEN_CHUNKS 16
#define NOISE 1.03 /* a challenger must beat the previous choice by this factor */
#define ROUNDS 2   /* rounds of measurements, interleaved over the point's candidates */
#define KEEP 6     /* candidates measured again after the first round: the fastest and the previous choice */
#define CONFIRM 5  /* paired re-measurements (previous, challenger) a changed choice must win */
#define RUN_REPS 10 /* repetition numbers one run may use (ROUNDS + CONFIRM of them) */
#define STREAM_M 16 /* cells of at most this many rows are measured with the operands out of cache */
#define STREAM_N 4096 /* ... and, where n is open, this wide */
#define STREAM_WIDE 11008 /* ... and this wide too (an FFN width, LLaMA-7B's), */
#define STREAM_K1 512 /* ... at these depths (shallow: GPT-2's 768 falls between; deep: LLaMA-7B's 4096) */
#define STREAM_K2 4096
#define BIGB_FLOP 2e10 /* the largest shape a wide open cell's large-B corner may be (flop) */
#define PF_TWINS 8  /* candidates of a streamed point that get a prefetching twin */
#define TALL_MIN_M 2 /* a tile taller than a point's m may stay only where m is at least this (retune_keep_tall) */
#define TALL_SIBLINGS 2 /* candidates of a streamed point of TALL_MIN_M rows or more tried taller too */
#define SHORT_SIBLINGS 2 /* candidates as tall as a point of SHORT_MIN_M..STREAM_M rows also tried half as tall, wider */
#define SHORT_MIN_M 8
#define WHOLE_K_TWINS 6 /* candidates of an exact point with k <= 16 that get a ku = k twin */
#define DOT_MAX_N 64 /* points at most this wide (exact) or cells no wider also try the dot form */
#define SMALL_MN 64 /* cells of at most SMALL_MN x SMALL_MN (m x n at the top corner) measure their middle shape shallow (SMALL_K deep at least) */
#define SMALL_K 16
#define SHALLOW_K 32 /* cells with a large C split their depths here and at half (grid_cells); measured at 32, 17, 23 and 16, 4, 8 */
#define ORDER_TWINS 8 /* candidates of a shallow point that are also tried in the other order */
#define NARROW_VECTORS 4 /* ... and of a point of NARROW_MIN_M rows or more at most this many vectors wide (few_columns) */
#define NARROW_MIN_M 257
#define MC_SIBLINGS 6 /* candidates packing B, at a point twice their row block tall, also tried with the block reshaped taller */
#define MC_SIBLING_KC 128 /* ... never shallower than this */
#define TALL_BLOCKS 3 /* candidates reading A and B in place, at a point twice their row block tall, also tried with one block of all its rows */
#define DEEP_TWINS 2 /* direct candidates one column tile wide also tried in one k block ... */
#define DEEP_KC 8192 /* ... this deep */
#define PRIOR_CUT 0.92 /* a candidate recent runs read under this fraction of the point's best is left out */
/* a streamed cell past GRID_DECODE_WARM_N is also measured in cache (its row must hold there) this
 * wide: half again its narrowest width (6144 from 4097, 12288 from 8193) */
#define WARM_SIDE_N(lo) (3 * ((double)(lo) - 1) / 2)
#define OPEN_TOP_MIN 512 /* an open cell's top corner is a power of two at least this wide (floats: rows 2 KiB apart or more) */

typedef struct {
    unsigned long long sm[3], sn[3], sk[3]; /* the shapes that stand for the point */
    int nsh;
    int exact;              /* 1: a shape of the list (an exact row), 0: a grid cell */
    int stream;             /* a few rows against a B that streams from memory (LLM decode): its shapes measured cold, */
    int warmsh;             /* ... but for this one (index + 1; 0: none), B in cache (see WARM_SIDE_N) */
    unsigned coldsh;        /* a deep warm cell's point: bit d set where the bench times shape d cold, measured so */
    int bigb;               /* sm[1] is the large-B corner (a weight matrix past the cache) */
    int wide;               /* sm[1] is the wide streamed shape of an open decode cell */
    range rm, rn, rk;       /* the cell's ranges */
    tkt_row cand[MAXC];     /* cand[0] is the previous table's choice */
    int nc;
    double score[MAXC];     /* geometric mean GFLOP/s over the depths; 0 failed; -1 not measured */
    int out[MAXC];          /* 1: left out by the record-log prior (prior_cut), not measured */
    int nout, nnew;         /* how many out; how many the recent runs did not measure here */
    double confirmed;       /* a changed choice: median challenger/previous ratio of the paired re-measurements */
    int win;
    int inc;                /* the incumbent a challenger must beat: 0, or the twin of a tall cand[0] */
    int noisy;              /* a streamed point measured while another machine used the memory: kept */
    int skipped;            /* an exact shape outside --rows or past the budget: not decided, its row kept */
    int shallow;            /* the shallow side of a cell with a large C: candidates in both orders */
} point;

/* One run per record log (so per CPU) at a time: an exclusive lock on the log itself, held for the
 * whole run and released by the kernel however the run ends (a kill leaves nothing to clean up).
 * The table's own lock covers only its write; two runs that overlapped otherwise both measured, each
 * disturbing the other's figures, and both wrote the table. The descriptor stays open until exit. */
void retune_lock(const char *log)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644); /* probes must not inherit it */
    if (fd < 0) die("%s: cannot open the record log: %s", log, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        die("%s: another tktune run is using this record log (one run per CPU at a time)", log);
}

/* the odd depth just under x (x itself minus one where x is even), but not under lo (then the odd
 * depth at or just past lo): a narrow cell's depths (retune_run) */
static double odd_below(double x, double lo)
{
    const double o = 2 * floor(x / 2) - 1;
    return o >= lo ? o : 2 * floor(lo / 2) + 1;
}

/* The depth (a multiple of 256) at which a B `width` floats wide is twice the last-level cache: a
 * weight matrix that streams from memory rather than one the cache keeps. */
static double depth_past_llc(const cand_caps *k, double width)
{
    return ceil(2.0 * (double)k->l3 / (4.0 * width) / 256) * 256;
}

/* Runs of this CPU the log says were completed. A run's measurements carry repetition numbers
 * from RUN_REPS * (this count): an interrupted run resumes with its own measurements, a new run
 * measures afresh (a stale figure from another day must not judge a fresh one). */
static int completed_runs(const char *log, const char *cpu, int *next_cell)
{
    FILE *f = fopen(log, "r");
    char line[1024], want[128];
    int n = 0;
    *next_cell = 0;
    if (!f) return 0;
    snprintf(want, sizeof want, "tk-record 1 op=retune cpu=%s ", cpu);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, want, strlen(want))) {
            const char *at = strstr(line, " next=");
            n++;
            *next_cell = at ? atoi(at + 6) : 0;
        }
    fclose(f);
    return n;
}

/* Sets fresh[c] for each of the n cells at pts one of whose shapes the log has no whole-shape
 * measurement of for this CPU, by any code: the cells a changed grid added or reshaped (the n edge
 * at 8, session 21: the rotation would have reached the new cells of 129 rows and more some four
 * runs later, and until then they kept the old cells' row). Returns how many. */
static int fresh_cells(const char *log, const char *cpu, const point *pts, int n, int *fresh)
{
    FILE *f = fopen(log, "r");
    char line[1024], want[64];
    int seen[GRID_MAX][3], nfresh = 0;
    for (int c = 0; c < n; c++) fresh[c] = 0;
    memset(seen, 0, sizeof seen);
    snprintf(want, sizeof want, " cpu=%s ", cpu);
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, " level=full m=");
        unsigned long long m, nn, k;
        if (!at || !strstr(line, want) || sscanf(at, " level=full m=%llu n=%llu k=%llu", &m, &nn, &k) != 3) continue;
        for (int c = 0; c < n; c++)
            for (int d = 0; d < pts[c].nsh; d++)
                if (pts[c].sm[d] == m && pts[c].sn[d] == nn && pts[c].sk[d] == k) seen[c][d] = 1;
    }
    if (f) fclose(f);
    for (int c = 0; c < n; c++) {
        for (int d = 0; d < pts[c].nsh; d++) fresh[c] |= !seen[c][d];
        nfresh += fresh[c];
    }
    return nfresh;
}

/* 1 when shape d of point p is measured with its operands rotated out of cache */
static int shape_cold(const point *p, int d) { return (p->stream && p->warmsh != d + 1) || (p->coldsh >> d & 1); }

/* 1 when any of p's shapes is measured cold */
static int point_cold(const point *p) { return p->stream || p->coldsh; }

/* a candidate's score: the geometric mean of its best round over the point's depths; 0 if one failed */
static double depth_score(const double *best, int nsh)
{
    double lg = 0;
    for (int d = 0; d < nsh; d++) {
        if (best[d] <= 0) return 0;
        lg += log(best[d]);
    }
    return exp(lg / nsh);
}

/* 1 when a challenger's speed over the previous choice's, shape by shape (r[d], nsh of them), makes
 * a change: faster by the noise margin on the whole (geometric mean), or faster by the margin on
 * one shape and within it everywhere else, not slower on the whole. A cell's shapes differ in kind:
 * the deep side of a wide cell has its corner at the grid's edge (B in the last-level cache) and
 * one with B twice that cache; at 512 rows the packed 6x64 ran 1.08-1.11x the direct 4x96 there and
 * tied in cache (1.03 on the whole, at the margin), and the cell kept 4x96, which ran 512x4096x4096
 * and 512x11008x4096 at 0.89-0.91 of 6x64 in the bench. A gain on the whole must also outweigh the
 * loss at the worst shape (lo * g >= 1): the 16 x 1025.. x 65.. cell of x86-64-v3 went to pf n32 at
 * 1.058 on the whole while its 16x11008x4096 corner lost 0.86 (probe and bench alike, session 70),
 * the kind of trade a retune must not make unasked (a suite shape below 0.98 of the table before);
 * a large gain still buys a smaller loss (1.2, 1.2, 0.95). (Declared in retune.h for its test.) */
int retune_beats(const double *r, int nsh)
{
    double lg = 0, hi = 0, lo = 1e30;
    for (int d = 0; d < nsh; d++) {
        if (!(r[d] > 0)) return 0;
        lg += log(r[d]), hi = fmax(hi, r[d]), lo = fmin(lo, r[d]);
    }
    const double g = exp(lg / nsh);
    return (g > NOISE && lo * g >= 1) || (g >= 1 && hi > NOISE && lo * NOISE >= 1);
}

static int overlaps(range a, range b) { return a.lo <= b.hi && b.lo <= a.hi; }

/* --rows and --cols: a cell of m rows and n columns is measured when it overlaps both (an unset
 * one, lo 0, takes all); an exact shape when its m and n fall in them */
static int in_band(const retune_opts *o, range m, range n)
{
    return (!o->rows.lo || overlaps(m, o->rows)) && (!o->cols.lo || overlaps(n, o->cols));
}
static int exact_in_band(const retune_opts *o, const point *p)
{
    const range m = {p->sm[0], p->sm[0]}, n = {p->sn[0], p->sn[0]};
    return in_band(o, m, n);
}
/* ... a point of either kind */
static int point_in_band(const retune_opts *o, const point *p)
{
    return p->exact ? exact_in_band(o, p) : !o->shapes_only && in_band(o, p->rm, p->rn);
}
/* " rows=LO..HI" (or LO..*) for the record log, nothing for an unset band */
static void band_text(const char *key, range r, char *out, size_t cap)
{
    if (!r.lo) *out = 0;
    else if (r.hi == TK_SIZE_INF) snprintf(out, cap, "%s%llu..*", key, r.lo);
    else snprintf(out, cap, "%s%llu..%llu", key, r.lo, r.hi);
}

/* the measurements a point's rounds take: every candidate the prior keeps once, the KEEP best and
 * the previous again */
static double point_plan(const point *p)
{
    const int nc = p->nc - p->nout;
    return (double)(nc + (ROUNDS - 1) * (nc < KEEP + 1 ? nc : KEEP + 1)) * p->nsh;
}

/* keep[j] stays set for the previous choice (j = 0) and the KEEP best-scoring candidates of those
 * still set */
static void keep_fastest(double (*best)[3], int nc, int nsh, int *keep)
{
    double s[MAXC];
    for (int j = 0; j < nc; j++) s[j] = keep[j] ? depth_score(best[j], nsh) : -1;
    for (int j = 1; j < nc; j++) {
        int ahead = 0;
        for (int i = 0; i < nc; i++) ahead += s[i] > s[j] || (s[i] == s[j] && i < j);
        keep[j] = keep[j] && ahead < KEEP;
    }
}

/* The dry run's plan, a line per point: its cell (or exact shape), the shapes that stand for it and
 * how each is measured (cold: operands rotated out of cache; cache: an ordinary point) and its
 * number of candidates; then a line per candidate, its decisions and whether the prior left it out. */
static void print_plan(const isa_desc *isa, const point *pts, int np)
{
    for (int i = 0; i < np; i++) {
        const point *p = &pts[i];
        char m[64], n[64], k[64];
        if (p->exact) printf("point =%llux%llux%llu:", p->sm[0], p->sn[0], p->sk[0]);
        else {
            range_text(&p->rm, m, sizeof m), range_text(&p->rn, n, sizeof n), range_text(&p->rk, k, sizeof k);
            printf("point %s x %s x %s:", m, n, k);
        }
        for (int d = 0; d < p->nsh; d++)
            printf("%s %llux%llux%llu %s", d ? "," : "", p->sm[d], p->sn[d], p->sk[d],
                   shape_cold(p, d) ? "cold" : "cache");
        printf("; candidates: %d", p->nc);
        if (p->nout || p->nnew) printf(" (%d left out by the record-log prior, %d new here)", p->nout, p->nnew);
        printf("\n");
        for (int j = 0; j < p->nc; j++) {
            char text[128];
            row_text(isa, &p->cand[j], text, sizeof text);
            printf("  candidate %s order %c%s\n", text, p->cand[j].order, p->out[j] ? " (left out)" : "");
        }
    }
}

/* the point's largest m: a tile taller than that computes dead rows */
static unsigned long long point_mmax(const point *p)
{
    return p->exact ? p->sm[0] : (unsigned long long)p->rm.hi;
}

/* ... and its largest n */
static unsigned long long point_nmax(const point *p)
{
    return p->exact ? p->sn[0] : (unsigned long long)p->rn.hi;
}

/* r cut to the point's height (mc keeps its count of tiles) */
static tkt_row cut_to_point(const point *p, const tkt_row *r)
{
    tkt_row c = *r;
    unsigned long long mmax = point_mmax(p);
    if (c.mr > mmax) c.mc = c.mc / c.mr * mmax, c.mr = (unsigned)mmax;
    return c;
}

/* The index of cand[j]'s twin cut to the point's height (add_cand adds it, once), or -1 when
 * cand[j] is no taller than the point or the twin is not a candidate. */
static int twin_of(const point *p, int j)
{
    tkt_row c = cut_to_point(p, &p->cand[j]);
    for (int t = 0; t < p->nc && c.mr != p->cand[j].mr; t++)
        if (same_choice(&p->cand[t], &c)) return t;
    return -1;
}

static void add_one(point *p, const tkt_row *r)
{
    for (int i = 0; i < p->nc; i++)
        if (same_choice(&p->cand[i], r)) return;
    if (p->nc < MAXC) p->cand[p->nc++] = *r;
}

/* The model ranks configurations in one order, row tiles inner (the BLIS order, which keeps a B
 * micro-panel in L1); at a shallow point, where writing C sets the pace (grid_cells), the first
 * ORDER_TWINS candidates are also tried with column tiles inner, which write C a row tile at a time.
 * The dot form has no twin: it runs its columns in one block, column tiles inner, by design
 * (dot_whole_width). */
static void add_order_twins(point *p)
{
    int n = p->nc;
    for (int j = 0; j < n && j < ORDER_TWINS; j++) {
        tkt_row r = p->cand[j];
        if (r.packa == TKT_DOT) continue;
        r.order = r.order == 'm' ? 'n' : 'm';
        add_one(p, &r);
    }
}

/* A cell of NARROW_MIN_M rows or more at most NARROW_VECTORS vectors wide: its C is tall and
 * narrow, one to a few column tiles, and there the order of the tiles sets how often A's rows are
 * read (row tiles inner: once per column tile, from L2; column tiles inner: once, from L1) while
 * B's few panels stay in L1 or L2 either way. Its C outgrows the shallow split's threshold only at
 * heights past the grid (grid_cells: 1025.. x 25..32 is 32000 floats at a 1280-row edge), so
 * such a point had no order twins, and 1025.. x 25..32 took order m by hand in session 72
 * (5000x32x32 1.06x, 8000x32x8 1.17-1.20x). An exact shape of that form too. */
static int few_columns(const point *p, const cand_caps *k)
{
    const unsigned long long m = p->exact ? p->sm[0] : p->rm.lo, n = p->exact ? p->sn[0] : p->rn.hi;
    return m >= NARROW_MIN_M && n != TK_SIZE_INF && n <= NARROW_VECTORS * k->lanes_per_vector;
}

/* A tile taller than every m the point serves also brings its twin cut to the point's height, which
 * reads B no less and skips the dead rows' FMAs; see drop_tall. At a streamed point the tall one
 * itself is left out (the previous choice excepted): its measurements are the run's slowest, it
 * rarely beats its twin, and the places it took kept the prefetching twins out of the 2..4-row
 * decode cells (add_prefetch_twins). */
static void add_cand(point *p, const tkt_row *r)
{
    tkt_row c = cut_to_point(p, r);
    if (!(p->stream && p->nc > 0 && c.mr != r->mr)) add_one(p, r);
    add_one(p, &c);
}

int retune_keep_tall(const double *tall, const double *twin, int nsh, unsigned long long mmax)
{
    double r[3];
    if (mmax < TALL_MIN_M) return 0;
    for (int d = 0; d < nsh; d++) r[d] = twin[d] > 0 && tall[d] > 0 ? tall[d] / twin[d] : 0;
    return retune_beats(r, nsh);
}

/* A tall candidate is out wherever its twin ran and it did not beat the twin (retune_keep_tall):
 * where B streams from memory the dead FMAs hide under the loads, and at m = 1 measurement cannot
 * be trusted to drop it (the zen4 table had come to run 2x128 for m = 1; at 1x768x768 from memory,
 * kernels called directly, 2x128 ran 7.3 GFLOP/s and 1x128 8.7). A tall previous choice that is
 * out leaves its twin to stand in for it as the incumbent (incumbent()). It stays where its twin
 * failed (a crashing kernel): the rows' heights are not a correctness matter. */
static void drop_tall(point *p, double (*best)[3])
{
    for (int j = 0; j < p->nc; j++) {
        const int t = twin_of(p, j);
        if (t >= 0 && p->score[t] > 0 && !retune_keep_tall(best[j], best[t], p->nsh, point_mmax(p))) p->score[j] = 0;
    }
}

/* What a challenger must beat by the noise margin, and in the paired re-measurement: the previous
 * choice, or, where drop_tall took that out as tall, its twin, the same decisions less the dead
 * rows. Until session 16 a tall previous choice left the point's best to win outright, never
 * paired against anything: the 2-, 3- and 5-row decode cells went to 2x112, 3x80 and 5x80 pf8,
 * and on twenty shapes of those cells the new rows read a geomean 0.998-1.011 of the tall ones,
 * with losses to 0.95 (tune/results/zen5-retune-s16b.txt). */
static int incumbent(const point *p)
{
    const int t = twin_of(p, 0);
    return p->score[0] <= 0 && t > 0 && p->score[t] > 0 ? t : 0;
}

/* The record-log prior (TLM-style: the log's past decisions steer this one). Every run measures its
 * candidates afresh (a figure from another day must not judge today's), so a run covered the exact
 * shapes and a few dozen cells in its budget; yet most of a point's candidates are the same as in the
 * runs before, and most of those read far behind the point's best there. A candidate whose best
 * quiet reading over the recent runs' records (o->prior_runs of them, by any code: a driver
 * change alters the fingerprint, rarely the order) is under PRIOR_CUT of the best such reading among
 * the point's candidates, at every shape of the point, is left out. Never left out: the previous
 * choice, the twin cut from any candidate that stays (drop_tall needs it), and every candidate
 * those runs did not measure there (a new kernel, a new cell); a candidate left out for
 * o->prior_runs runs has no recent record any more and is measured again. Returns how many. */
static int prior_cut(point *p, const isa_desc *isa, unsigned long long cold_bytes)
{
    double pr[MAXC], top = 0;
    for (int j = 0; j < p->nc; j++) {
        double lg = 0;
        pr[j] = 1;
        for (int d = 0; d < p->nsh && pr[j] > 0; d++) {
            double g = shape_prior(isa, p->exact, &p->cand[j], p->sm[d], p->sn[d], p->sk[d], shape_cold(p, d) ? cold_bytes : 0);
            if (g > 0) lg += log(g);
            else pr[j] = -1;
        }
        if (pr[j] > 0) pr[j] = exp(lg / p->nsh), top = fmax(top, pr[j]);
        p->out[j] = 0;
    }
    for (int j = 1; j < p->nc; j++) p->out[j] = pr[j] > 0 && pr[j] < PRIOR_CUT * top;
    for (int j = 0; j < p->nc; j++) {
        const int t = twin_of(p, j);
        if (!p->out[j] && t >= 0) p->out[t] = 0;
    }
    p->nout = p->nnew = 0;
    for (int j = 0; j < p->nc; j++) p->nout += p->out[j], p->nnew += pr[j] < 0;
    return p->nout;
}

/* the most rows a tile of nv vectors holds in the register file (32 at most) */
static unsigned tallest_rows(const isa_desc *isa, unsigned nv)
{
    unsigned mr = 0;
    while (mr < 32 && tile_vregs(isa, mr + 1, nv) <= isa->vregs) mr++;
    return mr;
}
/* the tallest row count that divides m and is at least half of mrmax; 0 if none */
static unsigned rows_dividing(unsigned long long m, unsigned mrmax)
{
    for (unsigned d = mrmax; d > 0 && 2 * d >= mrmax; d--)
        if (m % d == 0) return d;
    return 0;
}

/* An exact shape is one call: what costs there is the part of each tile that computes nothing, so
 * besides the model's picks (kernels profiled for their asymptotic speed) it tries tiles that cut
 * the shape evenly: for the vector counts that cover n in one or two column tiles, the row counts
 * that split m into as few (and one more) equal tiles as the register file allows, and the one
 * that divides m. 32x32x32 takes three 14x32 tiles, 42 rows of work for 32; 11x32 or 8x32 waste
 * one or none; 32x64x32, six 6x64 (36 rows) or eight 4x64 (32). Fixed-width ISAs with the
 * direct form only (A and B read in place, one k block). */
static void add_even_tiles(point *p, const isa_desc *isa)
{
    unsigned long long m = p->sm[0], n = p->sn[0], k = p->sk[0];
    if (isa->vla || !isa->direct) return;
    for (unsigned cols = 1; cols <= 2; cols++) {
        unsigned long long nvl = (n + (unsigned long long)isa->lanes * cols - 1) / ((unsigned long long)isa->lanes * cols);
        if (nvl < 1 || nvl > 8 || (cols == 2 && nvl * isa->lanes >= n)) continue;
        const unsigned nv = (unsigned)nvl, mrmax = tallest_rows(isa, nv), d = rows_dividing(m, mrmax);
        if (!mrmax) continue;
        /* the fewest tiles, one more, and the tallest row count that divides m, if at least half
         * the tallest the registers hold: 64 rows of 64 columns take eleven 6x64 tiles (66 rows of
         * work) or sixteen 4x64 (64); pinned from session 36 to 50, 4x64 ran 64^3 at 1.00-1.05x the
         * 6x64 in make bench */
        unsigned long long tiles[3] = {(m + mrmax - 1) / mrmax, (m + mrmax - 1) / mrmax + 1, d ? m / d : 0};
        for (int i = 0; i < 3; i++) {
            const unsigned long long t = tiles[i];
            if (!t || t > m) continue;
            tkt_row r;
            memset(&r, 0, sizeof r);
            r.mr = (unsigned)((m + t - 1) / t), r.nr = nv * isa->lanes, r.ku = 4;
            r.kc = (k + 3) / 4 * 4, r.mc = (unsigned long long)r.mr * t, r.nc = (unsigned long long)r.nr * cols;
            r.packb = 0, r.packa = 0, r.split = 'm', r.order = 'n';
            snprintf(r.evidence, sizeof r.evidence, "measured");
            add_cand(p, &r);
        }
    }
}

/* A wide exact shape (n past two column tiles of any vector count) is cut into column tiles
 * anyway, so add_even_tiles has nothing to offer; what its rows cost is still the row tile that
 * divides m or leaves dead rows. For each vector count from 2 to DIVISOR_NV_MAX, the tallest row
 * count that divides m (at least half the tallest the registers hold), run the way a small-matrix
 * library runs it: A and B in place, the whole k in one block, one tile's rows per block (that
 * block's A stays in L2 while B goes by; a block of all m rows would need the static workspace
 * to hold a copy of all of A where A's rows collide in L1). ResNet-50's last stage on the Zen 4,
 * the tuner's probe: 49x512x4608 7x48 whole k with 7-row blocks 110-111 GFLOP/s, with 49-row
 * blocks 106-108, the band's 4x96 kc 512 (13 row tiles, one of them 1 row) 101-102, and libxsmm
 * 108 (tk_bench). */
#define DIVISOR_NV_MAX 6
static void add_divisor_tiles(point *p, const isa_desc *isa)
{
    unsigned long long m = p->sm[0], n = p->sn[0], k = p->sk[0];
    if (isa->vla || !isa->direct || n <= 16ull * isa->lanes) return; /* 2 x 8 vectors: add_even_tiles */
    for (unsigned nv = 2; nv <= DIVISOR_NV_MAX; nv++) {
        const unsigned d = rows_dividing(m, tallest_rows(isa, nv));
        if (!d) continue;
        tkt_row r;
        memset(&r, 0, sizeof r);
        r.mr = d, r.nr = nv * isa->lanes, r.ku = 4, r.kc = (k + 3) / 4 * 4, r.nc = r.nr;
        r.packb = 0, r.packa = 0, r.split = 'm', r.order = 'n';
        snprintf(r.evidence, sizeof r.evidence, "measured");
        r.mc = d;
        add_one(p, &r);
    }
}

/* The dot form (vectors along k) fills every lane whatever n is, where the broadcast form fills n
 * of each vector's lanes rounded up; it pays a reduction per element of C and a copy of B by
 * columns. The model has no term for either, so a narrow point tries it by measurement: for each
 * width the point is measured at, the dot tile of at most 8 columns that wastes the fewest columns
 * there (the wider on a tie, 3 at least), with as many rows as the registers hold, as deep as L1 holds both
 * operands' slices (at most 512, and k rounded up to a vector at an exact point). An exact point
 * whose width the vectors divide fills them anyway; cells are split in n where the vectors divide,
 * so a cell no wider than DOT_MAX_N always tries it (its narrow middle shape decides with its top).
 * 640x17x1200 on the Zen 4: 4x6 dot 78-87 GFLOP/s, the table's broadcast row 61-66 (tk_bench).
 *
 * Every dot candidate, these and the previous choice, runs all the point's columns in one block
 * (nc past its widest n, DOT_MAX_N at most) with the column tiles inner (order 'm'): the kernel
 * reads A's rows in place along k, A is the large operand of so narrow a product and B's few
 * columns stay in L1, so each block of A rows is then read once for all its column tiles, not once
 * per tile. On spr (session 52, the tuner's probe) the table's 6x4 nc 4 order 'n' read A once per
 * four columns: 6x4 nc 8 order 'm' ran 1500x7x600 at 66 GFLOP/s against 45, 2048x6x2048 50 against
 * 32, 700x7x911 75 against 56, 1024x8x256 126 against 116; order 'm' alone took 4x6 nc 12 from 75
 * to 81 at 1000x11x900 and from 80 to 88 at 2048x12x2048 (1.00 where A fits the L2). */
static void dot_whole_width(tkt_row *r, unsigned long long nmax)
{
    r->nc = ((nmax < DOT_MAX_N ? nmax : DOT_MAX_N) + r->nr - 1) / r->nr * r->nr;
    r->order = 'm';
}

static void add_dot_tiles(point *p, const isa_desc *isa, const cand_caps *k)
{
    const unsigned long long nmax = point_nmax(p);
    if (!isa->dot || nmax > DOT_MAX_N || (p->exact && nmax % isa->lanes == 0) || p->stream) return;
    for (int j = 0, n0 = p->nc; j < n0; j++)
        if (p->cand[j].packa == TKT_DOT) {
            tkt_row r = p->cand[j];
            dot_whole_width(&r, nmax);
            add_one(p, &r);
        }
    for (int d = 0; d < p->nsh; d++) {
        const unsigned long long n = p->sn[d];
        /* at least 3 columns where n has them: a tile of one or two columns loads an A vector for
         * every one or two FMAs (640x17x1200: 16x1 ran 43 GFLOP/s where 4x6 ran 78-87) */
        unsigned nb = n < 3 ? (unsigned)n : 3, mr = 1;
        for (unsigned b = nb + 1; b <= isa->lanes / 2; b++)
            if ((n + b - 1) / b * b <= (n + nb - 1) / nb * nb) nb = b;
        while (mr < 16 && (mr + 1) * nb + nb + 1 <= isa->vregs) mr++;
        tkt_row r;
        memset(&r, 0, sizeof r);
        r.mr = mr, r.nr = nb, r.ku = 2, r.pf = 0;
        r.kc = 512;
        while (r.kc > 64 && (mr + nb) * r.kc * 4 > k->l1) r.kc /= 2;
        if (p->exact && p->sk[0] < r.kc) r.kc = (p->sk[0] + 15) / 16 * 16;
        r.mc = (unsigned long long)mr * ((64 + mr - 1) / mr);
        r.packb = 1, r.packa = TKT_DOT, r.split = 'm';
        dot_whole_width(&r, nmax);
        snprintf(r.evidence, sizeof r.evidence, "measured");
        add_cand(p, &r);
    }
}

/* The model sizes a block of A (mc x kc) to fill its share of L2 and then favours depth: a long k
 * loop per tile and a short row block (6x64 kc 2048 mc 96 at 512x2048x1600 on spr). What a taller,
 * shallower block of the same size saves, each B micro-panel fetched from L3 once for more row
 * tiles, it prices low. On spr (session 51, the tuner's probe, three alternating rounds) 6x64
 * packed ran 512x2048x1600 at 156-164 GFLOP/s with kc 512 mc 192 and 145-154 with kc 512 mc 96;
 * 512x4096x4096 at 154-159 against the table's 4x96 kc 1024 mc 128, 138-143; 2048^3 at 164-177
 * with kc 256-512 and mc 192-384 against the catch-all's 9x48 kc 1024 mc 144, 151-158. So at a
 * point at least twice as tall as its block, the first MC_SIBLINGS candidates that pack B (whose
 * micro-panels the row tiles share) are also tried with the block reshaped: half as deep and
 * twice as tall, a quarter as deep and four times as tall (the same size: what fitted L2 fits),
 * while the point's rows fill it and kc stays at least MC_SIBLING_KC, a multiple of the unroll. */
static void add_row_blocks(point *p)
{
    const unsigned long long m = p->sm[0];
    int n = p->nc, made = 0, deep = 0;
    if (p->stream || p->exact) return;
    for (int d = 0; d < p->nsh; d++) /* a shallow point cuts every block to its depth */
        if (p->sk[d] >= 2 * MC_SIBLING_KC) deep = 1;
    if (!deep) return;
    for (int j = 0; j < n && made < MC_SIBLINGS; j++) {
        const tkt_row r = p->cand[j];
        if (!r.packb || r.packa == TKT_DOT || 2 * r.mc > m || r.kc < 2 * MC_SIBLING_KC) continue;
        made++;
        for (unsigned long long f = 2; f <= 4; f *= 2) {
            tkt_row s = r;
            s.mc = r.mc * f, s.kc = r.kc / f / r.ku * r.ku;
            if (s.mc > m || s.kc < MC_SIBLING_KC) break;
            add_one(p, &s);
        }
    }
}

/* A configuration that reads A and B in place reads each micro-panel of B once per block of mc
 * rows, from where B lives; the model prices that read under the tiles' FMAs, so it ranks such
 * configurations alike whatever their mc, and of a tie the shortest block came first and was
 * measured (the zen4 table's in-place rows took mc 24 to 96 at points 128 to 1024 tall). In the
 * tuner's probe on a Zen 4 (session 65, three alternating rounds, medians) one block of all the
 * rows ran 512x768x1024 (5x80 kc 768) at 110 GFLOP/s against 104 with mc 80, 688x768x2304 (6x64
 * kc 768) at 109 against 106 with mc 96, 256x2048x1024 (4x96 kc 256) at 103 against 100 with mc
 * 64, and 1024x384x512 (6x64 kc 128) alike. So at a point at least twice as tall as their block,
 * the first TALL_BLOCKS in-place candidates are also tried with one block of all its rows. */
static void add_tall_blocks(point *p)
{
    const unsigned long long m = p->sm[0];
    int n = p->nc, made = 0;
    if (p->stream || p->exact) return;
    for (int j = 0; j < n && made < TALL_BLOCKS; j++) {
        tkt_row r = p->cand[j];
        if (r.packb || r.packa || 2 * r.mc > m) continue;
        made++;
        r.mc = (m + r.mr - 1) / r.mr * r.mr; /* a multiple of the tile, as every block */
        add_one(p, &r);
    }
}

/* r at kc = from, 2 from, .. 32 (those its unroll divides), as further candidates */
static void add_shallow(point *p, const tkt_row *r, unsigned long long from)
{
    for (unsigned long long kc = from; kc <= 32; kc *= 2) {
        tkt_row s = *r;
        if (kc % s.ku || kc == s.kc) continue;
        s.kc = kc;
        add_one(p, &s);
    }
}

/* A streamed B is read once, a kc-deep slab of rows at a time, row by row: each row is a stream the
 * prefetchers must follow, so kc sets how many run at once. The model has no term for that: the
 * first two candidates no taller than the point (the previous choice and the model's first pick, or
 * their cut twins) are also tried at kc 8, 16 and 32 (1x4096x4096 on the
 * Zen 4: kc 8 ran 1.2-1.34x faster than the table's kc 64, in paired runs). */
static void add_stream_blocks(point *p)
{
    int n = p->nc, from = 0;
    for (int j = 0; j < n && from < 2; j++) {
        if (cut_to_point(p, &p->cand[j]).mr != p->cand[j].mr) continue; /* its twin follows it */
        from++;
        add_shallow(p, &p->cand[j], 8);
    }
}

/* A tile of several rows against a B streamed from memory keeps few B lines in flight: its loads
 * wait behind its FMAs, and a few k steps' FMAs fill the scheduler. A kernel that prefetches B
 * TUNE_PF_ROWS rows ahead retires its prefetches at once and keeps the misses going, but where B is in
 * cache the prefetches only cost issue slots. The model ranks such twins too (model_best at a cold
 * point), and measurement does not wait for it: at a streamed point the first PF_TWINS candidates
 * that read B in place and are no taller than the point are also tried prefetching, rows ahead and
 * (tiles of several rows) along their rows
 * (4x4096x11008 cold on the Zen 5: 4x64 over the whole depth ran 20 GFLOP/s, 48 prefetching 8 rows
 * ahead, 46-49 at 4 to 32 rows; 4x768x768 with B in cache ran 175 without, 125 with). */
static void add_prefetch_twins(point *p, const isa_desc *isa)
{
    int n = p->nc, made = 0;
    for (int j = 0; j < n && made < PF_TWINS; j++) {
        tkt_row r = p->cand[j];
        if (!tune_pf_twin(isa, point_cold(p), r.packb) || cut_to_point(p, &r).mr != r.mr) continue;
        /* each way of prefetching that the candidate does not take already: one the model or the
         * previous table chose prefetching rows ahead is tried along its rows as well */
        const unsigned had = r.pf;
        unsigned ways[3];
        const int nw = tune_pf_ways(isa, point_cold(p), r.packb, r.mr, ways);
        for (int w = 1; w < nw; w++) {
            if (ways[w] == had) continue;
            r.pf = ways[w];
            add_one(p, &r);
            /* the first two also shallow, as add_stream_blocks tries the plain ones: at decode shapes
             * off the grid's points the cold oracle's best was a prefetching tile at kc 16-32
             * (5x2801x331: 4x96 kc16 pf8 61.5 GFLOP/s, kc64 46.4; tktune evaluate, session 12) */
            if (made < 2) add_shallow(p, &r, 16);
        }
        made++;
    }
}

/* the vectors of r's tile (a VLA ISA's rows count them in nr already) */
static unsigned row_nv(const isa_desc *isa, const tkt_row *r)
{
    return isa->vla ? r->nr : r->nr / isa->lanes;
}

/* r with a tile of mr rows and nv vectors, its row and column blocks as many tiles as before (at
 * least one) */
static tkt_row reshaped(const isa_desc *isa, const tkt_row *r, unsigned mr, unsigned nv)
{
    const unsigned lanes = isa->vla ? 1 : isa->lanes;
    tkt_row s = *r;
    s.mc = r->mc / r->mr * mr, s.mr = mr;
    s.nc = r->nc / r->nr * nv * lanes, s.nr = nv * lanes;
    if (s.mc < mr) s.mc = mr;
    if (s.nc < s.nr) s.nc = s.nr;
    return s;
}

/* add_cand leaves a tile taller than the point out at a streamed point, but at m = 2 and 3 a 4-row
 * tile can read B faster than its cut twin: 2x11008x4096 cold on the Zen 4, 4x96 kc 8 ran 22.5 and
 * 23.6 GFLOP/s, 2x96 18.6-20.1 and 2x128 18.4-20.2, and make bench read the cut rows at 0.87-0.98 of
 * the 4-row ones on four 2- and 3-row decode shapes (session 23). So the first TALL_SIBLINGS
 * candidates of the point's height, at a streamed point of 2 rows or more, are also tried taller: as
 * wide, as tall as the registers allow up to twice the rows, and twice as tall, as wide as the
 * registers allow (2x128 gives 4x96). drop_tall keeps such a tile only where it beats its twin, the
 * same decisions cut to the point's rows, by the margin. */
static void add_tall_siblings(point *p, const isa_desc *isa)
{
    const unsigned long long mmax = point_mmax(p);
    int n = p->nc, made = 0;
    if (!p->stream || mmax < TALL_MIN_M) return; /* drop_tall would take them out */
    for (int j = 0; j < n && made < TALL_SIBLINGS; j++) {
        const tkt_row r = p->cand[j];
        if (r.mr != mmax || r.packa == TKT_DOT) continue;
        const unsigned nv = row_nv(isa, &r);
        unsigned mr = 2 * r.mr, nv2 = nv;
        while (mr > r.mr && tile_vregs(isa, mr, nv) > isa->vregs) mr--;
        while (nv2 > 0 && tile_vregs(isa, 2 * r.mr, nv2) > isa->vregs) nv2--;
        made++;
        for (int v = 0; v < 2; v++) {
            const unsigned smr = v ? 2 * r.mr : mr, snv = v ? nv2 : nv;
            if (smr == r.mr || snv == 0) continue;
            const tkt_row s = reshaped(isa, &r, smr, snv);
            add_one(p, &s);
            const tkt_row twin = cut_to_point(p, &s); /* what drop_tall weighs it against */
            add_one(p, &twin);
        }
    }
}

/* A tile as tall as a point of 8 to 16 rows has room for few columns (16 rows: 16x16, one vector
 * of B against 16 broadcasts of A per k step), and the model ranks such points' tiles mostly by
 * their blocks, so a tile half as tall and as wide as the registers allow (8x48) was never a
 * candidate there. In cache it loads a third as much of B per FMA: on spr (session 55, bench) the
 * 16-row warm deep cell's 16x16 ku4 kc128 ran at 0.74-0.98 of the same row as 8x48 (16x2048x96
 * 1.22x, 16x1600x128 1.25-1.35x, 16x1800x110 1.28x). So the first SHORT_SIBLINGS candidates of the
 * point's height are also tried ceil(rows / 2) tall, as wide as the registers allow, the rest of
 * their decisions kept. */
static void add_short_siblings(point *p, const isa_desc *isa)
{
    const unsigned long long mmax = point_mmax(p);
    int n = p->nc, made = 0;
    if (mmax < SHORT_MIN_M || mmax > STREAM_M) return;
    for (int j = 0; j < n && made < SHORT_SIBLINGS; j++) {
        const tkt_row r = p->cand[j];
        if (r.mr != mmax || r.packa == TKT_DOT) continue;
        const unsigned nv = row_nv(isa, &r), smr = (r.mr + 1) / 2;
        unsigned snv = nv;
        while (snv < CAND_MAX_NV && tile_vregs(isa, smr, snv + 1) <= isa->vregs) snv++;
        made++;
        if (snv == nv) continue; /* no wider: the registers held no more */
        const tkt_row s = reshaped(isa, &r, smr, snv);
        add_one(p, &s);
    }
}

/* An exact shape whose k fits one unrolled step of a kernel (k <= 16, the largest ku) runs that
 * kernel with no k loop: the instance keeps k a constant when k <= ku (docs/tables.md). The model
 * prices ku the same whatever k is, so the first WHOLE_K_TWINS candidates in the direct form are
 * also tried with ku = k and one k block (16x16x16 on the Zen 5: 8x16 ku16 ran 190-195 GFLOP/s
 * against ku4's 176-183, tk_bench, two runs). */
static void add_whole_k(point *p)
{
    const unsigned long long k = p->sk[0];
    int n = p->nc, made = 0;
    if (k < 2 || k > 16) return;
    for (int j = 0; j < n && made < WHOLE_K_TWINS; j++) {
        tkt_row r = p->cand[j];
        if (r.packa || r.ku == k) continue;
        r.ku = (unsigned)k, r.kc = k;
        add_one(p, &r);
        made++;
    }
}

/* A candidate in the direct form whose one column tile covers the point's widest n (a narrow B)
 * reuses no micro-panel of A across column tiles, so the model's rule that the micro-panel fit
 * in L1 (kc <= L1 / (4 MR): 768 for 14 rows on spr) buys it nothing; each k block only restarts
 * the tile's row streams of A and reloads its C. The first DEEP_TWINS such candidates are also
 * tried DEEP_KC deep (one k block for any k the grid measures). On spr (session 52, the tuner's
 * probe) 14x32 direct at kc 768 against kc 8192: 2048x10x2048 72 -> 90 GFLOP/s, 2048x16x2048 128
 * -> 151, 3000x16x3000 139 -> 183, 1500x8x5000 73 -> 101, 1024x12x1000 107 -> 116. The twin's row
 * block is cut to a quarter of the L2 at that depth (at least a tile): where A's rows collide in
 * L1 the driver copies a block of them, and the static workspace holds the largest such copy of
 * any row (mc 896 at kc 8192 made spr's 30 MB a thread); one column tile reuses nothing across
 * the row block, so its height does not matter otherwise. */
static void add_deep_twins(point *p, const cand_caps *k)
{
    const unsigned long long nmax = point_nmax(p);
    unsigned long long kmax = 0;
    int n = p->nc, made = 0;
    if (p->stream) return; /* B from memory: its rows are read a few deep on purpose */
    for (int d = 0; d < p->nsh; d++) kmax = p->sk[d] > kmax ? p->sk[d] : kmax;
    for (int j = 0; j < n && made < DEEP_TWINS; j++) {
        tkt_row r = p->cand[j];
        /* (one already a block as deep as every shape of the point would measure the same) */
        if (r.packa || r.packb || nmax > r.nr || r.kc >= kmax) continue;
        const unsigned long long tall = k->l2 / 4 / (4 * DEEP_KC) / r.mr * r.mr;
        r.kc = DEEP_KC;
        if (r.mc > tall) r.mc = tall > r.mr ? tall : r.mr;
        add_one(p, &r);
        made++;
    }
}

/* An exact row whose decisions are those of the row its shape meets without it, on a shape of at
 * least EXACT_KEEP_MNK multiply-adds, only costs: its instance (a whole driver compiled for the
 * shape, in every unit that includes the header) folds constants that save nanoseconds a call,
 * against calls of a millisecond or so. Such rows are left out of the table; the shape stays in the
 * list and is measured again by the next run. ResNet-50's 21 layers on the Zen 4 (session 66):
 * 17 kept the band's row. Returns how many rows it left out. */
#define EXACT_KEEP_MNK (1ull << 20)
static int drop_plain_exact(tkt_table *nt)
{
    int ne = 0, out = 0;
    while (ne < nt->n && tkt_row_is_exact(&nt->rows[ne])) ne++;
    for (int i = 0; i < nt->n; i++) {
        const tkt_row *e = &nt->rows[i];
        int drop = 0;
        if (i < ne && e->m.lo * e->n.lo * e->k.lo >= EXACT_KEEP_MNK && strcmp(e->evidence, "pinned"))
            for (int j = ne; j < nt->n; j++)
                if (tkt_row_has(&nt->rows[j], e->m.lo, e->n.lo, e->k.lo)) {
                    /* the same code on this shape (blocks past its size are the same blocks) */
                    drop = e->split == nt->rows[j].split &&
                           same_code(e, &nt->rows[j], (double)tkt_crowd_bytes(nt), (double)e->m.lo, (double)e->n.lo, (double)e->k.lo);
                    break;
                }
        if (!drop) nt->rows[out++] = *e;
    }
    const int dropped = nt->n - out;
    nt->n = out;
    return dropped;
}

/* the shape list's shapes as exact-row points after pts[at]; -1 on a malformed list */
static int read_shape_points(const char *path, point *pts, int at, int cap)
{
    static unsigned long long mnk[MAXPTS][3];
    int n = read_shapes(path, mnk, cap - at), first = at;
    for (int i = 0; i < n; i++, at++) {
        int again = 0; /* a shape listed twice is one row (and one probe, whose compiles must not race) */
        for (int j = first; j < at && !again; j++) again = pts[j].sm[0] == mnk[i][0] && pts[j].sn[0] == mnk[i][1] && pts[j].sk[0] == mnk[i][2];
        if (again) {
            at--;
            continue;
        }
        memset(&pts[at], 0, sizeof pts[at]);
        pts[at].sm[0] = mnk[i][0], pts[at].sn[0] = mnk[i][1], pts[at].sk[0] = mnk[i][2], pts[at].nsh = 1, pts[at].exact = 1;
    }
    return n < 0 ? -1 : at;
}

typedef struct {
    double t0, planned, done;
    int show;
} progress;

static void show(progress *pr, const char *what)
{
    double el = tune_now() - pr->t0, eta = pr->done > 0 ? el / pr->done * (pr->planned - pr->done) : 0;
    int w = 30, fill = pr->planned > 0 ? (int)(w * pr->done / pr->planned) : 0;
    if (!pr->show) return;
    fprintf(stderr, "\rtktune: %s [%.*s%*s] %.0f/%.0f, %ds elapsed, ETA %ds   ", what, fill,
            "##############################", w - fill, "", pr->done, pr->planned, (int)el, (int)(eta + 0.5));
}

static void write_svg(const char *path, const point *pts, int np, double peak, const char *cpu)
{
    FILE *f = fopen(path, "w");
    const int bw = 14, h = 320, top = 40, left = 60;
    double ymax = peak;
    if (!f) return;
    for (int i = 0; i < np; i++)
        if (pts[i].score[pts[i].win] > ymax) ymax = pts[i].score[pts[i].win];
    ymax *= 1.1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"10\">\n",
            left + np * (2 * bw + 6) + 20, top + h + 120);
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">tktune retune %s: GFLOP/s per grid point, previous table (grey) and new (blue); red line: measured kernel peak</text>\n",
            left, cpu);
    for (int g = 0; g <= 4; g++) {
        double v = ymax * g / 4;
        int y = top + h - (int)(h * v / ymax);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/><text x=\"5\" y=\"%d\">%.0f</text>\n", left,
                y, left + np * (2 * bw + 6), y, y + 3, v);
    }
    for (int i = 0; i < np; i++) {
        const point *p = &pts[i];
        int x = left + i * (2 * bw + 6);
        double o = p->score[p->inc] > 0 ? p->score[p->inc] : 0, n = p->score[p->win] > 0 ? p->score[p->win] : 0;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#aaa\"/>\n", x, top + h - (int)(h * o / ymax), bw,
                (int)(h * o / ymax));
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#36c\"/>\n", x + bw, top + h - (int)(h * n / ymax),
                bw, (int)(h * n / ymax));
        fprintf(f, "<text transform=\"translate(%d,%d) rotate(60)\">%s%llux%llux%llu</text>\n", x + 4, top + h + 6,
                p->exact ? "=" : "", p->sm[0], p->sn[0], p->sk[0]);
    }
    int yp = top + h - (int)(h * peak / ymax);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c33\"/>\n</svg>\n", left, yp, left + np * (2 * bw + 6), yp);
    fclose(f);
}

/* The model's GFLOP/s for row r on point p (the mean over its depths), from r's level-0 kernel. */
static double model_gflops(const model_machine *h, const cand_caps *k, const measured_l0 *ml, int nml, const isa_desc *isa,
                           const tkt_row *r, const point *p)
{
    const unsigned nv = row_nv(isa, r);
    for (int i = 0; i < nml; i++) {
        if (ml[i].c.mr != r->mr || ml[i].c.nv != nv || ml[i].c.direct != !r->packa) continue;
        model_config mc = {r->mr, (unsigned)(nv * k->lanes_per_vector), r->kc, r->mc,
                           isa->vla ? r->nc * k->lanes_per_vector : r->nc, ml[i].gflops, r->packa, r->packb, 1, r->split, k->narrow,
                           r->pf, p->stream, k->half_nv};
        double g = 0;
        for (int d = 0; d < p->nsh; d++) {
            mc.cold = shape_cold(p, d);
            double s = model_time(h, &mc, (double)p->sm[d], (double)p->sn[d], (double)p->sk[d]);
            g += isfinite(s) && s > 0 ? 2.0 * p->sm[d] * p->sn[d] * p->sk[d] / s * 1e-9 / p->nsh : 0;
        }
        return g;
    }
    return 0;
}

/* Estimated mode: every distinct chosen configuration, run under the probe's prefix (qemu) on a
 * shape that crosses its tile, block and depth edges and on a small cut of its point's shape.
 * Returns the number of checks, or -1 when one computed a wrong result. */
static int check_choices(const shape_probe *sp, const isa_desc *isa, const tkt_table *t, const point *pts, int np)
{
    int checks = 0;
    for (int i = 0; i < np; i++) {
        const tkt_row *r = &pts[i].cand[pts[i].win];
        int seen = 0;
        for (int q = 0; q < i && !seen; q++) seen = same_choice(&pts[q].cand[pts[q].win], r);
        if (seen) continue;
        unsigned long long nr = isa->vla ? r->nr * (t->vlen_bits / 32) : r->nr;
        unsigned long long m0 = pts[i].sm[0] < 97 ? pts[i].sm[0] : 97, n0 = pts[i].sn[0] < 131 ? pts[i].sn[0] : 131;
        unsigned long long k0 = pts[i].sk[0] < 300 ? pts[i].sk[0] : 300;
        if (!shape_check(sp, r, 2 * r->mr + 1, 2 * nr + 3, r->kc + 5) || !shape_check(sp, r, m0, n0, k0)) return -1;
        checks += 2;
        if (sp->o->progress) fprintf(stderr, "\rtktune: checked %d configurations under qemu   ", checks / 2);
    }
    if (sp->o->progress) fprintf(stderr, "\n");
    return checks;
}

static int is_pinned_note(const char *note) { return !strncmp(note, "pinned", 6); }

int retune_pinned_notes(const tkt_table *t)
{
    int n = 0;
    for (int i = 0; i < t->nnotes; i++) n += is_pinned_note(t->notes[i]);
    return n;
}

int retune_keep_pinned(const tkt_table *old, tkt_table *nt, char *why, size_t cap)
{
    static tkt_row pin[MAXROWS];
    int np = 0, ne = 0, w = 0;
    for (int i = 0; i < old->n; i++)
        if (row_pinned(&old->rows[i])) pin[np++] = old->rows[i];
    for (int i = 0; i < nt->n; i++) {
        tkt_row r = nt->rows[i];
        int replaced = 0;
        if (row_pinned(&r)) snprintf(r.evidence, sizeof r.evidence, "%s", old->source);
        for (int j = 0; j < np && tkt_row_is_exact(&r); j++)
            replaced |= tkt_row_is_exact(&pin[j]) && tkt_row_has(&pin[j], r.m.lo, r.n.lo, r.k.lo);
        if (!replaced) nt->rows[w++] = r;
    }
    nt->n = w;
    while (ne < nt->n && tkt_row_is_exact(&nt->rows[ne])) ne++;
    if (nt->n + np > MAXROWS) {
        snprintf(why, cap, "%d rows and %d pinned ones: more than a table holds (%d)", nt->n, np, MAXROWS);
        return 0;
    }
    memmove(nt->rows + ne + np, nt->rows + ne, (size_t)(nt->n - ne) * sizeof nt->rows[0]);
    memcpy(nt->rows + ne, pin, (size_t)np * sizeof pin[0]);
    nt->n += np;
    for (int i = 0; i < old->nnotes; i++) {
        if (!is_pinned_note(old->notes[i])) continue;
        if (nt->nnotes == TKT_MAX_NOTES) {
            snprintf(why, cap, "%d pinned notes: only %d fit beside the retune's own", retune_pinned_notes(old),
                     TKT_MAX_NOTES - RETUNE_OWN_NOTES);
            return 0;
        }
        snprintf(nt->notes[nt->nnotes++], sizeof nt->notes[0], "%s", old->notes[i]);
    }
    return 1;
}

/* 1 when a pinned row of t holds every shape of m x n x k (both corners of the box) */
static int under_pin(const tkt_table *t, range m, range n, range k)
{
    for (int i = 0; i < t->n; i++)
        if (row_pinned(&t->rows[i]) && tkt_row_has(&t->rows[i], m.lo, n.lo, k.lo) && tkt_row_has(&t->rows[i], m.hi, n.hi, k.hi))
            return 1;
    return 0;
}

/* 1 when a pinned row of t holds m x n x k: the box of that one shape */
static int pinned_at(const tkt_table *t, unsigned long long m, unsigned long long n, unsigned long long k)
{
    const range rm = {m, m}, rn = {n, n}, rk = {k, k};
    return under_pin(t, rm, rn, rk);
}

/* The candidates of p this run may measure, into rows (returns how many): those the record-log
 * prior left out are never measured, so no probe compiles their kernels or instances (a probe's
 * compile was most of a short run: spr's 4 x 513..1024 band, 150 of its 175 s) */
static int measured_cands(const point *p, tkt_row *rows)
{
    int n = 0;
    for (int j = 0; j < p->nc; j++)
        if (!p->out[j]) rows[n++] = p->cand[j];
    return n;
}

/* The generic probe of the grid points order[from..to) (cells), in the work folder's full (chunk 0,
 * compiled by the caller with the exact-shape probes) or fullN (compiled here) */
static int gen_chunk_build(shape_probe *sp, const profile_opts *po, const isa_desc *isa, const tkt_table *t,
                           const point *cells, const int *order, int from, int to, int chunk)
{
    static tkt_row rows[MAXPTS * MAXC];
    char sub[32];
    int n = 0;
    for (int q = from; q < to; q++) n += measured_cands(&cells[order[q]], rows + n);
    snprintf(sub, sizeof sub, chunk ? "full%d" : "full", chunk);
    return shape_probe_build(sp, po, isa, t, rows, n, sub, chunk > 0);
}

int retune_run(const retune_opts *o, const isa_desc *isa, const tkt_table *t, const cand_caps *k,
               const cand_l0 *l0, int n0)
{
    static point pts[MAXPTS];
    static grid_cell cells[GRID_MAX];
    static measured_l0 ml[4096];
    static cand_l0 pick[8192];
    static unsigned long long kcs[8192];
    static tkt_row all[MAXPTS * MAXC], cellwin[GRID_MAX];
    static tkt_table nt;
    const profile_opts *po = &o->po;
    double phase[6] = {0}, t0 = tune_now(), bw2, bw3, bwd;
    int np = 0, nall = 0, measured = 0;
    char line[512], path[1200], err[1300];
    model_machine h;

    /* the pinned rows' notes must fit beside the retune's own, known before hours of measuring */
    if (retune_pinned_notes(t) > TKT_MAX_NOTES - RETUNE_OWN_NOTES)
        die("%s: %d notes start with \"pinned\": at most %d fit beside the retune's own", t->path, retune_pinned_notes(t),
            TKT_MAX_NOTES - RETUNE_OWN_NOTES);
    mkdir(po->work, 0777);
    if (!o->dry_run) retune_lock(po->log); /* held until exit */
    /* 1. machine (a dry or estimated run assumes bandwidths from the table's dram_gbs instead) */
    if (!read_machine(po->log, po->cpu, &bw2, &bw3, &bwd, NULL, NULL) && !o->dry_run && !o->estimated &&
        (!machine_record(po->cpu, k, po->log, line, sizeof line) || !read_machine(po->log, po->cpu, &bw2, &bw3, &bwd, NULL, NULL)))
        die("could not measure this machine's bandwidths");
    phase[0] = tune_now() - t0;

    /* 2. level 0 */
    double t1 = tune_now();
    int nl0 = level0_plan(l0, n0, k, o->l0_budget, 512, pick, kcs);
    if (!o->dry_run && o->estimated) estimate_level0(po, isa, t, pick, nl0, kcs);
    else if (!o->dry_run) profile_level0(po, isa, pick, nl0, kcs);
    int nml = read_level0(po->log, po->cpu, ml, 4096);
    phase[1] = tune_now() - t1;

    /* 3. plan */
    t1 = tune_now();
    /* the model, its constants fitted to the measurements earlier runs left in the log */
    calib_info ci;
    char calib_line[600];
    h = calib_machine(po->log, po->cpu, t, k, ml, nml, &ci);
    calib_describe(&h, &ci, calib_line, sizeof calib_line);
    /* the largest dimension a grid point uses: about 50 ms per call at the table's peak, at most 2048 */
    double maxdim = o->max_dim > 0 ? o->max_dim : floor(cbrt(t->peak_gflops * 1e9 * 0.05 / 2) / 64) * 64;
    if (maxdim > 2048) maxdim = 2048;
    if (maxdim < 16) maxdim = 16;
    /* A weight matrix STREAM_N wide is twice the last-level cache at depth kb; the wide cells of
     * bands whose rows keep a shape that deep under BIGB_FLOP are split at half that depth (where it
     * outgrows the cache), their deep side measured at the large-B corner. An estimated run has no
     * such corner: its cells stay whole. */
    const double kb = depth_past_llc(k, STREAM_N);
    const unsigned long long deep_k = o->estimated ? 0 : (unsigned long long)(kb / 2);
    /* an estimated run has no order twins (the model does not tell the orders apart): no shallow cells */
    const unsigned long long shallow_k = o->estimated ? 0 : SHALLOW_K;
    /* nor warm sides of the streamed cells: the model has no warm and cold B apart */
    const unsigned long long warm_l2 = o->estimated ? 0 : k->l2;
    int ncells = grid_cells(cells, GRID_MAX, maxdim, deep_k, (unsigned long long)(BIGB_FLOP / (2.0 * STREAM_N * kb)),
                            shallow_k, warm_l2);
    if (o->shapes && (np = read_shape_points(o->shapes, pts, 0, MAXPTS - ncells)) < 0) return 1;
    int nexact = np;
    /* An exact shape the bench times cold (bench/cold.h: at most 16 rows, A, B and C past the L2, a
     * decode step whose weights come from memory) is measured cold, as a decode cell's streamed
     * corners are, and gets their candidates (shallow k blocks, prefetching twins). Measured in
     * cache, ResNet-50's classifier, 1x1000x2048, took 1x48 ku 2 kc 16 at 25.7 GFLOP/s with B in
     * the L3 (session 70); the bench reads that row at 7.4-8.1 with B from memory. */
    for (int i = 0; i < nexact; i++)
        pts[i].stream = !o->estimated && tkb_bandwidth_bound(pts[i].sm[0], pts[i].sn[0], pts[i].sk[0], k->l2);
    for (int i = 0; i < ncells; i++, np++) {
        point *p = &pts[np];
        memset(p, 0, sizeof *p);
        /* the cell's top corner at two depths, and its middle (geometric, in m, n and k): a winner
         * must hold across the bucket, not only at its edge */
        const int deep = deep_k && cells[i].k.lo == deep_k + 1;
        /* the shallow side of a streamed cell (grid_cells): B in cache (warm 1), or past
         * GRID_DECODE_WARM_N streamed (warm 2) */
        const int warm = cells[i].warm;
        double hm = fmin(cells[i].ms, maxdim), hn = fmin(cells[i].ns, maxdim), k1 = fmin(256, maxdim), k2 = fmin(2048, maxdim);
        /* An open cell (n past the grid's edge) stands for the widths models use, whose rows of B lie
         * a multiple of 1 KiB apart or more (768, 2048, 3072, 4096, 11008, 14336 floats) and alias
         * in L1 and L2 sets. Measured at the grid's edge (1600: rows 6400 bytes apart), the 33..64
         * and 65..128 x 1025.. cells of the spr table chose tiles that read B in place, which ran
         * 128x3072x768, 128x4096x4096 and 49x2048x512 at 0.32-0.66 of a packed B (session 32). So
         * the top corner goes up to the next power of two (2048 from 1600 or 1408) in a full-size
         * grid; the middle stays at a width that aliases little, and a choice must hold at both.
         * Until session 39 it went to the next multiple of 512, which from the Zen 4's edge (1408)
         * was 1536: rows 6 KiB apart, whose L2 sets keep 4x the rows of 8 KiB ones (the driver's
         * depth cap, tki_b_rows_fit, cut kc 384 to 256 there and to 64 at 2048), so the 1025..
         * cells were chosen where their rows at 2048 and 4096 columns do not run. */
        if (cells[i].n.hi == TK_SIZE_INF && !o->estimated && hn >= (double)cells[i].n.lo) {
            double top = OPEN_TOP_MIN;
            while (top < hn) top *= 2;
            hn = top;
        }
        if (deep) k1 = k2 = kb;
        /* a cell of few depths (a large C's sides up to GRID_MID_K and a narrow cell's up to
         * GRID_NARROW_K, in both orders; a streamed cell's shallow side with B in cache): its deepest,
         * and a quarter of that or its shallowest, the middle between (1..16: 16, 4, 8; 17..32: 32,
         * 17, 23; 33..256: 256, 64, 128; a narrow cell's odd, below) */
        if (cells[i].shallow || warm == 1)
            k1 = (double)cells[i].k.hi, k2 = fmax((double)(cells[i].k.hi / 4), (double)cells[i].k.lo), p->shallow = cells[i].shallow;
        /* the depths past GRID_MID_K: their top corner twice as deep as its */
        else if (shallow_k && shallow_k < GRID_MID_K && cells[i].k.lo == GRID_MID_K + 1) k1 = fmin(2 * GRID_MID_K, maxdim);
        double mm = round(sqrt((double)cells[i].m.lo * hm)), mn = round(sqrt((double)cells[i].n.lo * hn));
        /* LLM decode: up to STREAM_M rows against a weight matrix that comes from memory, as every
         * layer's weights do once per token. Such a cell is measured with its operands rotated out of
         * cache (operands=cold, a slot of the bench's arena further each call), at its corner 512 and
         * 4096 deep and at its middle: a B that stays in cache wants other blocks (kc 64 against kc
         * 8 for 1x1408: 1.25x faster at depth 256, 0.87x at depth 12032). Measured instead with one
         * B twice the LLC (16384 deep for n = 1024), the cell 1 x 513..1024 chose 1x112 kc 512, which
         * ran 1x768x768 cold slower than 1x128 kc 16: depth sets how many B rows stream at once. */
        if (cells[i].m.hi <= STREAM_M && hn >= 512 && !o->estimated && warm != 1) {
            /* the open end stands for a model's widths (4096 to 14336), not for the grid's edge: a
             * B row of 1408 floats is a stream too short for the prefetchers' ramp to matter */
            int open = cells[i].n.hi == TK_SIZE_INF;
            if (open) hn = fmax(hn, STREAM_N), mn = round(sqrt((double)cells[i].n.lo * hn));
            /* An open cell takes its deep corner at an FFN width that is no power of two: there the
             * C block of many rows outgrows L2 while B streams, and the two widths disagree (16 rows:
             * kc 16 tied kc 64 at 16x4096x4096 and ran 0.81-0.83x as fast at 16x11008x4096, in
             * three bench runs; the table had taken kc 16 from the 4096-wide corner alone). */
            k1 = STREAM_K1, k2 = STREAM_K2, p->stream = 1, p->wide = open;
            /* Its depths where B stays in cache are a cell of their own, measured with B in cache
             * (grid_cells' warm sides; until session 48 the top corner of a cell at most 512 wide
             * was measured warm instead, docs/tuner.md). The deep side of such a split: its corner
             * twice as deep as the split where STREAM_K1 is not past it (257..512: 1024). */
            if (k1 < (double)cells[i].k.lo) k1 = 2.0 * (double)(cells[i].k.lo - 1);
            /* The third shape takes the cell's fewest rows, not its middle: a decode cell is a few
             * rows wide, and a tile chosen at its top wastes most at its bottom (9..12 rows took
             * 6x64 at 12 and 10 rows, and 9x2048x1536 ran at 0.73 of the oracle's 9x48) */
            mm = (double)cells[i].m.lo;
            /* and its width an odd multiple of 16 floats (2064 for 1025.., 720 for 513..1024): rows
             * on 64-byte lines, as a model's widths keep them, a stride that aliases little. At
             * 2049 each row began a line early and cost a line more: on the Zen 4, 2x64 with mc 4
             * read 4x11008x4096 cold 1.05x as fast as 4x48 and make bench 4x4096 to 4x14336 wide
             * 1.02-1.14x, but 4x2049x1448 0.89-0.93x, and no run took it (session 39) */
            const double aligned = 16 * (2 * floor(mn / 32) + 1);
            if (aligned >= (double)cells[i].n.lo && aligned <= hn) mn = aligned; /* a narrow cell keeps its own */
            /* a streamed cell's shallow side past GRID_DECODE_WARM_N: its deepest at twice STREAM_N
             * (twice its narrowest width where it starts past GRID_DECODE_WIDE_N) and at STREAM_WIDE
             * (B 2 or 4 and 2.8 MiB at 64 deep), both streamed, no middle */
            if (warm == 2)
                hn = mn = fmax(2.0 * STREAM_N, 2.0 * (double)(cells[i].n.lo - 1)), k1 = k2 = (double)cells[i].k.hi, p->wide = 1;
        }
        /* The deep side of a wide open cell (n past the grid's edge) with more rows: a weight matrix
         * larger than the last-level cache, as a prefill or a large layer multiplies. The grid's own
         * corner (n at the grid's edge) keeps B in cache, where reading it in place wins; at
         * 512x11008x4096 that row ran at 0.89 of a packed one (one bench run). The large-B corner is
         * taken STREAM_N wide and deep enough that B is twice the cache (kb); the grid splits only
         * the bands where that shape stays under BIGB_FLOP (about 0.2 s), so every deep cell has it. */
        if (cells[i].narrow) k2 = odd_below(k2, (double)cells[i].k.lo); /* (odd, as its middle below) */
        p->nsh = 0;
        p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = (unsigned long long)hn, p->sk[p->nsh++] = (unsigned long long)k1;
        if (deep) p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = STREAM_N, p->sk[p->nsh++] = (unsigned long long)kb, p->bigb = 1;
        else if (p->wide) p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = STREAM_WIDE, p->sk[p->nsh++] = k2;
        else if (k2 != k1) p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = (unsigned long long)hn, p->sk[p->nsh++] = (unsigned long long)k2;
        /* A small cell's middle is measured as shallow as it is tall and wide: such cells serve small
         * products, where a tile's calls and edges cost more than its k loop, and the top corner
         * measures the deep ones twice already. Measured at depth 600 only, 17..32 x 9..12 kept the dot
         * form's 4x6, whose reduction does not pay on short rows: 20x10x20 ran at half the speed of the
         * 6x64 the shallow middle chose (session 29, zen4, tk_bench, two runs). Since session 71 the
         * rule is by area, not by side (a cell of every depth whose top corner holds at most
         * SMALL_MN x SMALL_MN of C): 2 x 97..128, measured 256, 1280 and 572 deep, chose 1x56 kc 64,
         * which ran 2x120x120 at 0.81x and 2x100x100 at 0.92x the 2x24 it replaced (k past kc: two
         * blocks through the generic driver) while 2x100x300 ran 1.28x. */
        const int small = hm * hn <= SMALL_MN * SMALL_MN && cells[i].k.lo == 1 && cells[i].k.hi == TK_SIZE_INF;
        double km = !p->stream && small ? fmax(SMALL_K, fmax(mm, mn)) : sqrt(k1 * k2);
        /* The grid's depths are multiples of 16 (64, 256, 512, 1600): there a row of k blocks of 16
         * never runs a short last block, which a depth such as 30 or 100 runs in every row tile. The
         * narrow cell 2 x 9..12 took 2x16 kc 16 at 2x12x32, 2x10x64 and 2x12x128 (38-43 GFLOP/s
         * against 33-38), which ran 2x10x30 at 0.60 and 2x12x100 at 0.81 of the 2x64 kc 1024 before
         * it in make bench, twice (session 79). So a narrow cell's shallower corner and middle are
         * odd depths (15 and 29 for 1..64, 65 and 127 for 65..256; 1599 and 903 deeper). (The larger part of that miss
         * was the probe's path, found after: every call through the partition driver, measure.c.) */
        if (cells[i].narrow) km = odd_below(km, (double)cells[i].k.lo);
        if (mm != hm || mn != hn)
            p->sm[p->nsh] = (unsigned long long)mm, p->sn[p->nsh] = (unsigned long long)mn, p->sk[p->nsh++] = (unsigned long long)round(km);
        /* A streamed cell's shallow side past GRID_DECODE_WARM_N also holds products whose B fits the
         * L2 (6x6000x40: 0.96 MB), which the bench times in cache (tkb_bandwidth_bound); its streamed
         * corners alone chose rows that read B 8 deep, prefetching, made for B from memory. On spr
         * (session 53, the generic probe) 6x64 pf8 kc 8 ran 6x6000x40 at 92 GFLOP/s in cache, kc 64
         * without prefetching 165, kc 16-32 prefetching 119-123; cold, 6x11008x64 at 40, 15, 35-36. So
         * such a cell is also measured at WARM_SIDE_N columns half its depth (at most what fits 3/4 of
         * the L2 with A and C, so under tkb_bandwidth_bound's L2), in cache, and a row must hold there too. */
        if (warm == 2 && p->nsh < 3) {
            const double ws = WARM_SIDE_N(cells[i].n.lo), wk = grid_warm_depth(k->l2, hm, ws, cells[i].k.hi / 2);
            if (wk >= 8 && wk >= (double)cells[i].k.lo) {
                p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = (unsigned long long)ws, p->sk[p->nsh++] = (unsigned long long)wk;
                p->warmsh = p->nsh;
            }
        }
        /* The warm cell past GRID_DECODE_WARM_N (grid_cells, up to GRID_DECODE_WIDE_N): in cache at its
         * widest as deep as B fits (8192 wide: 40 on spr), at its deepest as wide as B fits (64 deep:
         * 6144), and at its fewest rows in the middle a quarter as deep; the grid's corner (hn, capped
         * at the grid's edge) lies outside it. */
        if (warm == 1 && cells[i].n.lo > GRID_DECODE_WARM_N) {
            const double w = (double)cells[i].n.hi, lo = (double)cells[i].n.lo, kd = (double)cells[i].k.hi;
            const double nd = grid_warm_width(k->l2, hm, kd, w);
            const double mid = 16 * round(sqrt(lo * w) / 16);
            p->nsh = 0;
            p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = (unsigned long long)w, p->sk[p->nsh++] = (unsigned long long)grid_warm_depth(k->l2, hm, w, kd);
            /* (an L2 too small for B that deep at the cell's narrowest: there, as deep as fits) */
            p->sm[p->nsh] = (unsigned long long)hm, p->sn[p->nsh] = (unsigned long long)fmax(nd, lo);
            p->sk[p->nsh++] = (unsigned long long)(nd >= lo ? kd : grid_warm_depth(k->l2, hm, lo, kd));
            p->sm[p->nsh] = cells[i].m.lo, p->sn[p->nsh] = (unsigned long long)mid, p->sk[p->nsh++] = (unsigned long long)fmax(8, kd / 4);
        }
        /* A warm cell can still hold shapes the bench times cold (bench/cold.h: at most 16 rows, A,
         * B and C past the L2): the L2 side of a finite band (add_warm_split) ends where B fits the
         * L2 at the band's middle width, so its widest corner lies past it. Those shapes are
         * measured cold, as the bench times them, and the point gets prefetching twins. Measured
         * in cache, 4 x 513..1024 x 257..712 and 5..6 x 257..512 x 513..1416 took kc 128 without
         * prefetching (spr, session 81): 1.1-1.8x the rows before on shapes the bench times in
         * cache, 0.59-0.77x on those it times cold (4x1024x512, 6x512x1024, 6x448x1200); the same
         * rows prefetching 8 rows ahead read the cold ones 1.24-1.38x faster, the warm ones
         * 0.88-1.0x. Only the deep warm cells: a warm shallow side is measured at depths chosen
         * for its B alone (grid_hot_depth), and the rule over every cell also took shapes of the
         * portable table's cells cold (its L2 256 KiB); neither has been tried. */
        if (!o->estimated && warm == 1 && cells[i].k.lo > 1)
            for (int d = 0; d < p->nsh; d++)
                if (tkb_bandwidth_bound(p->sm[d], p->sn[d], p->sk[d], k->l2)) p->coldsh |= 1u << d;
        p->rm = cells[i].m, p->rn = cells[i].n, p->rk = cells[i].k;
    }
    /* The previous choice is the row the previous table runs at the point: where a row's tile is
     * taller than some of its row counts, tkgen runs those on the tile cut to them (tkt_short_rows).
     * Taken as written, a cell of one row count split from such a row got the whole tile and kept
     * a dead row's work: on spr (session 78) the cells 3 and 4 split from 2..4, unmeasured, took
     * 2..4's 4x64 where m = 3 had run 3x64, and 3x100x100 ran at 0.79. */
    static tkt_table ran;
    ran = *t;
    if (!tkt_short_rows(isa, &ran)) return 1;
    for (int i = 0; i < np; i++) {
        point *p = &pts[i];
        tkt_row best[MAXC - 1];
        /* the model ranks at the top corner's depths */
        double ks[2] = {(double)p->sk[0], (double)p->sk[p->nsh > 1 && p->sm[1] == p->sm[0] && p->sn[1] == p->sn[0]]};
        int nks = ks[1] != ks[0] ? 2 : 1;
        /* the previous choice first: the row of the first of the point's shapes that no pinned row
         * holds. A cell split by hand, its top corner pinned (x86-64-v3's 17..32 x 1025.. at 2048
         * columns, session 72), took the row past the pin at that corner: the other side's row was
         * lost from every run that left the cell unmeasured (a scratch run of session 73 wrote 4x24
         * packed kc 512 over 17..32 x 1025..2047, measured nowhere there) */
        int first = 0;
        while (first < p->nsh && pinned_at(t, p->sm[first], p->sn[first], p->sk[first])) first++;
        if (first == p->nsh) first = 0;
        add_cand(p, table_match(&ran, p->sm[first], p->sn[first], p->sk[first], 1));
        for (int d = 0; d < p->nsh; d++) add_cand(p, table_match(t, p->sm[d], p->sn[d], p->sk[d], 1));
        int want = o->estimated ? 1 : o->topk < MAXC - 1 ? o->topk : MAXC - 1;
        int nb = nml > 0 ? model_best(isa, k, &h, ml, nml, (double)p->sm[0], (double)p->sn[0], ks, nks, p->stream, best, want) : 0;
        for (int j = 0; j < nb; j++) add_cand(p, &best[j]);
        if (p->exact && !o->estimated) add_even_tiles(p, isa);
        if (p->exact && !o->estimated) add_divisor_tiles(p, isa);
        if (p->exact && !o->estimated) add_whole_k(p);
        if (!o->estimated) add_dot_tiles(p, isa, k);
        if (!o->estimated) add_deep_twins(p, k);
        if (p->stream) add_stream_blocks(p);
        add_prefetch_twins(p, isa);
        add_tall_siblings(p, isa);
        add_short_siblings(p, isa);
        if (p->shallow || (!o->estimated && few_columns(p, k))) add_order_twins(p);
        add_row_blocks(p);
        add_tall_blocks(p);
        /* the model's own ranking at the large-B corner too (there it weighs packing B differently),
         * and in cache at a streamed cell's warm shape (it ranks blocks for a B that stays) */
        for (int d = 1; d < p->nsh && nml > 0; d++) {
            if (!(d == 1 && p->bigb) && d != p->warmsh - 1) continue;
            tkt_row more[MAXC - 1];
            double kd = (double)p->sk[d];
            int nmore = model_best(isa, k, &h, ml, nml, (double)p->sm[d], (double)p->sn[d], &kd, 1, shape_cold(p, d), more, (want + 1) / 2);
            for (int j = 0; j < nmore; j++) add_cand(p, &more[j]);
        }
        /* estimated: the model's first choice is the choice */
        for (int j = 0; j < p->nc && nb > 0 && o->estimated; j++)
            if (same_choice(&p->cand[j], &best[0])) p->win = j;
        /* ... cut to the point's height if it is taller */
        for (int j = 0; j < p->nc && nb > 0 && o->estimated; j++) {
            tkt_row c = cut_to_point(p, &best[0]);
            if (same_choice(&p->cand[j], &c)) p->win = j;
        }
        for (int j = 0; j < p->nc; j++) p->score[j] = -1;
        /* an estimated run checks every point's choice through one generic probe (a measured run
         * builds its probes in chunks, below) */
        if (o->estimated)
            for (int j = 0; j < p->nc; j++) all[nall++] = p->cand[j];
    }
    /* the record-log prior: the readings of the runs before this one (not its own: a resumed run
     * decides as the interrupted one would have) leave out the candidates far behind */
    int next_cell, nout = 0, nprior = 0;
    const int run = completed_runs(po->log, po->cpu, &next_cell), rep0 = RUN_REPS * run;
    if (!o->estimated && o->prior_runs > 0 && (nprior = shape_prior_read(po, rep0 - RUN_REPS * o->prior_runs, rep0)) > 0) {
        const unsigned long long cold_bytes = shape_cold_bytes(po, t); /* sysfs, read once */
        for (int i = 0; i < np; i++) nout += prior_cut(&pts[i], isa, cold_bytes);
    }
    phase[2] = tune_now() - t1;
    double planned = 0;
    for (int i = 0; i < np; i++)
        planned += point_plan(&pts[i]);
    printf("tktune retune %s (%s): level 0 %d kernels (%d in the log); grid %d cells + %d exact shapes; "
           "%.0f whole-shape measurements planned (top %d of the model + the previous choice; %d candidates left out by "
           "the record-log prior of the last %d runs, %d keys); budget %.0f s\n",
           po->cpu, isa->name, nl0, nml, ncells, nexact, planned, o->topk, nout, o->prior_runs, nprior, o->budget_s);
    if (o->dry_run) {
        print_plan(isa, pts, np);
        return 0;
    }
    if (nml == 0) die("no level-0 kernel could be %s", o->estimated ? "estimated" : "measured on this machine");

    /* 4. measure (estimated: check) */
    t1 = tune_now();
    /* The exact shapes first, then the grid's cells never measured (fresh_cells), then the others
     * from where the last completed run's budget ran out, round the grid: cells are in m order, and
     * starting each run at the first left the large ones (m > 128 on the Zen 4 under load)
     * unmeasured run after run. A resumed run starts where the interrupted one did. */
    const int start_cell = ncells > 0 && next_cell > 0 && next_cell < ncells ? next_cell : 0;
    static int fresh[GRID_MAX], order[GRID_MAX];
    int cells_done = 0, nord = 0;
    const int nfresh = fresh_cells(po->log, po->cpu, pts + nexact, ncells, fresh);
    if (nfresh > 0 && po->progress) fprintf(stderr, "tktune: %d grid cells never measured go first\n", nfresh);
    /* --rows, --cols: only the cells of those row and column counts, and the run leaves the
     * rotation where it was */
    const int some = o->rows.lo > 0 || o->cols.lo > 0 || o->shapes_only;
    for (int c = 0; c < ncells; c++)
        if (fresh[c] && point_in_band(o, &pts[nexact + c])) order[nord++] = c;
    for (int c = 0; c < ncells; c++) {
        const int at = (c + start_cell) % ncells;
        if (!fresh[at] && point_in_band(o, &pts[nexact + at])) order[nord++] = at;
    }
    /* A measured run's generic probes come in chunks of that order: 32 points, then twice as many
     * as the chunk before, each compiled when the run reaches it (the budget counts its compile). One
     * probe of every point's kernels took 5 minutes of -O3 before the first measurement on the spr
     * host (the 421 cells' candidates named 519 kernels), and the 540 s budget then reached 17
     * points. A point is measured through one probe: its chunk's. The first chunk's probe and the
     * exact-shape probes of the listed shapes (a listed shape becomes an exact-shape row: its
     * candidates are measured as that row's instance, the code users get, a constant shape with the
     * kernel inlined, not the generic driver) are compiled on every core at once before anything is
     * timed. */
    static shape_probe sp, eps[MAXPTS], gps[GEN_CHUNKS];
    static shape_probe *build[MAXPTS + 1];
    static int chunk_end[GEN_CHUNKS];
    int first_point = o->estimated ? np : 0, nbuild = 0, nchunk = 0, chunk = 0;
    if (o->estimated) {
        if (!shape_probe_build(&sp, po, isa, t, all, nall, "full", 0)) return 1;
        build[nbuild++] = &sp;
    } else {
        for (int end = 0, size = GEN_CHUNK0; end < nord; size *= 2) chunk_end[nchunk++] = end = end + size < nord ? end + size : nord;
        if (nchunk > 0) {
            if (!gen_chunk_build(&gps[0], po, isa, t, pts + nexact, order, 0, chunk_end[0], 0)) return 1;
            build[nbuild++] = &gps[0];
        }
    }
    for (int i = 0; i < nexact && !o->estimated; i++) {
        if (!exact_in_band(o, &pts[i])) continue; /* not measured in this run */
        static tkt_row kept[MAXC];
        if (!exact_probe_build(&eps[i], po, isa, t, kept, measured_cands(&pts[i], kept), pts[i].sm[0], pts[i].sn[0], pts[i].sk[0], 0))
            return 1;
        build[nbuild++] = &eps[i];
    }
    if (!probes_compile(build, nbuild, (int)sysconf(_SC_NPROCESSORS_ONLN))) return 1;
    if (o->estimated) {
        int checked = check_choices(&sp, isa, t, pts, np);
        if (checked < 0) die("a chosen configuration computed a wrong result under %s: the table was not written", po->run_prefix);
        measured = checked;
        for (int i = 0; i < np; i++) { /* the report's figures are the model's */
            point *p = &pts[i];
            for (int j = 0; j < p->nc; j++) p->score[j] = model_gflops(&h, k, ml, nml, isa, &p->cand[j], p);
            /* a cut twin's kernel may have no level-0 estimate: it does the tall tile's work less the
             * dead rows, so the tall tile's figure stands for it */
            for (int j = 0; j < p->nc; j++) {
                const int t = twin_of(p, j);
                if (t >= 0 && p->score[t] <= 0) p->score[t] = p->score[j];
            }
        }
    }
    if (some) { /* the progress bar counts the band's points only */
        planned = 0;
        for (int q = 0; q < nexact + nord; q++) {
            const point *p = &pts[q < nexact ? q : nexact + order[q - nexact]];
            if (q >= nexact || exact_in_band(o, p))
                planned += point_plan(p);
        }
    }
    progress pr = {tune_now(), planned, 0, po->progress};
    int out_of_time = 0;
    /* tests/tune_retune.sh's stand-in for a budget that runs out: after this many grid cells, as the
     * clock stops a run, but at the same cell on a fast or a loaded machine (the clock's cut moved
     * with the probes' compile time, which a loaded 2-core host stretched past a 6 s budget) */
    const int test_cells = getenv("TKTUNE_TEST_CELLS") ? atoi(getenv("TKTUNE_TEST_CELLS")) : -1;
    for (int q = first_point; q < nexact + nord; q++) {
        const int i = q < nexact ? q : nexact + order[q - nexact];
        point *p = &pts[i];
        if (q < nexact && !exact_in_band(o, p)) {
            p->skipped = 1;
            continue;
        }
        if (test_cells >= 0 && i >= nexact && cells_done >= test_cells) out_of_time = 1;
        double best[MAXC][3];
        int keep[MAXC];
        if (q >= nexact && q - nexact >= chunk_end[chunk] && !out_of_time) {
            /* the next chunk's probe, compiled now (one compile; nothing is timed meanwhile) */
            if (!gen_chunk_build(&gps[chunk + 1], po, isa, t, pts + nexact, order, chunk_end[chunk], chunk_end[chunk + 1], chunk + 1))
                return 1;
            chunk++; /* (its compile time counts: the clock is read before each candidate below) */
        }
        const shape_probe *pp = i < nexact ? &eps[i] : &gps[chunk];
        const int noisy0 = shape_noisy();
        memset(best, 0, sizeof best);
        for (int j = 0; j < p->nc; j++) keep[j] = !p->out[j];
        for (int rep = 0; rep < ROUNDS && !out_of_time; rep++) {
            /* successive halving: a candidate far behind after the first round cannot win on its
             * best round, so only the fastest few and the previous choice are measured again */
            if (rep == 1) keep_fastest(best, p->nc, p->nsh, keep);
            for (int j = 0; j < p->nc; j++) {
                if (!keep[j]) continue;
                if (tune_now() - t0 > o->budget_s) out_of_time = 1;
                if (out_of_time) break;
                for (int d = 0; d < p->nsh; d++) {
                    int fresh;
                    double g = shape_measure(pp, &p->cand[j], p->sm[d], p->sn[d], p->sk[d], shape_cold(p, d), rep0 + rep, &fresh);
                    measured += fresh;
                    pr.done++;
                    show(&pr, "measuring");
                    if (g <= 0) best[j][d] = -1; /* a failure in any round disqualifies */
                    else if (best[j][d] >= 0 && g > best[j][d]) best[j][d] = g;
                }
            }
        }
        /* an exact shape the budget cut short keeps its row, as a cell keeps its own (until session
         * 50 it lost it: a run of 300 s dropped four exact rows of the spr table it never reached) */
        if (out_of_time && i < nexact) p->skipped = 1;
        for (int j = 0; j < p->nc && !out_of_time; j++) p->score[j] = p->out[j] ? -1 : depth_score(best[j], p->nsh);
        if (!out_of_time) drop_tall(p, best);
        /* the incumbent stays unless a challenger beats it by more than the noise */
        p->inc = p->win = incumbent(p);
        for (int j = 0; j < p->nc; j++) {
            double r[3];
            for (int d = 0; d < p->nsh; d++) r[d] = best[p->inc][d] > 0 ? best[j][d] / best[p->inc][d] : 0;
            if (p->score[j] > 0 && p->score[j] > p->score[p->win] && (p->score[p->inc] <= 0 || retune_beats(r, p->nsh))) p->win = j;
        }
        if (p->score[p->inc] <= 0 && p->score[p->win] <= 0) p->win = 0;
        /* A change must hold up once more: previous and challenger measured back to back, CONFIRM
         * times, and the medians of the pairs' ratios, shape by shape, must beat the previous choice
         * as above. A slow spell of a shared machine lasts seconds and can crown a loser in the
         * rounds above; it hits both members of a back-to-back pair alike. */
        if (p->win != p->inc && p->score[p->inc] > 0 && !out_of_time) {
            double ratio[3][CONFIRM], med[3];
            int nr = 0;
            pr.planned += 2.0 * CONFIRM * p->nsh;
            for (int r = 0; r < CONFIRM; r++) {
                int ok = 1;
                for (int d = 0; d < p->nsh && ok; d++) {
                    int fresh;
                    double g[2];
                    /* who goes first alternates: a pair's second run must not be the challenger's
                     * every time */
                    for (int q = 0; q < 2; q++) {
                        const int who = (q + r) % 2; /* 0: the previous choice, 1: the challenger */
                        g[who] = shape_measure(pp, &p->cand[who ? p->win : p->inc], p->sm[d], p->sn[d], p->sk[d],
                                               shape_cold(p, d), rep0 + ROUNDS + r, &fresh);
                        measured += fresh;
                    }
                    double gp = g[0], gw = g[1];
                    pr.done += 2;
                    show(&pr, "confirming");
                    if (gp <= 0 || gw <= 0) ok = 0;
                    else ratio[d][nr] = gw / gp;
                }
                nr += ok;
            }
            double lg = 0;
            for (int d = 0; d < p->nsh && nr == CONFIRM; d++) {
                qsort(ratio[d], (size_t)nr, sizeof ratio[d][0], cmp_double);
                med[d] = ratio[d][nr / 2];
                lg += log(med[d]);
            }
            p->confirmed = nr == CONFIRM ? exp(lg / p->nsh) : 0;
            if (nr < CONFIRM || !retune_beats(med, p->nsh)) p->win = p->inc;
        }
        /* a streamed point is decided on quiet memory or not at all (shape_measure, measure.c) */
        if (shape_noisy() > noisy0 && p->win != 0) p->win = 0, p->noisy = 1;
        if (!out_of_time && i >= nexact) cells_done++;
    }
    if (po->progress) fprintf(stderr, "\n");
    phase[3] = tune_now() - t1;

    /* 5. table */
    t1 = tune_now();
    nt = *t;
    nt.n = 0;
    for (int i = 0; i < nexact; i++) {
        tkt_row r = pts[i].cand[pts[i].win];
        if (pts[i].skipped) {
            /* outside --rows or not reached: its exact row, if the table has one, stays as it was */
            const tkt_row *was = table_match(t, pts[i].sm[0], pts[i].sn[0], pts[i].sk[0], 0);
            if (tkt_row_is_exact(was) && tkt_row_has(was, pts[i].sm[0], pts[i].sn[0], pts[i].sk[0]))
                nt.rows[nt.n++] = *was;
            continue;
        }
        if (pts[i].score[pts[i].win] <= 0) continue; /* nothing measured: no exact row */
        r.m.lo = r.m.hi = pts[i].sm[0], r.n.lo = r.n.hi = pts[i].sn[0], r.k.lo = r.k.hi = pts[i].sk[0];
        snprintf(r.evidence, sizeof r.evidence, "%s", o->estimated ? "estimated" : "measured");
        nt.rows[nt.n++] = r;
    }
    int nwin = 0;
    for (int i = 0; i < ncells; i++) {
        const point *p = &pts[nexact + i];
        /* A cell this run did not measure, wholly under a pinned row, whose previous row has the
         * catch-all's decisions: where the pin replaced the tuner's own row, the catch-all is that
         * previous row, and its decisions would come back as a row of the cell's ranges that no
         * shape reaches, saying "measured" (x86-64-v3's ROWS=513..1024 run, session 69, wrote three
         * such one-row rows), or merged into a neighbour of the same decisions. Such a row an
         * earlier run wrote goes too; a row of the tuner's own with those decisions would send its
         * shapes, unpinned, to the row below it, in a table of m bands the catch-all. No row (the
         * last cell, the catch-all itself, always has one). */
        if (p->score[p->win] <= 0 && i + 1 < ncells && under_pin(t, p->rm, p->rn, p->rk) && same_choice(&p->cand[p->win], &t->rows[t->n - 1]))
            continue;
        tkt_row *w = &cellwin[nwin++];
        *w = p->cand[p->win];
        w->m = p->rm, w->n = p->rn, w->k = p->rk;
        /* a point kept because memory was busy was measured, not decided: its row keeps its word */
        if (p->score[p->win] > 0 && !p->noisy)
            snprintf(w->evidence, sizeof w->evidence, "%s", o->estimated ? "estimated" : "measured");
    }
    int ng = merge_grid(cellwin, nwin, nt.rows + nt.n, MAXROWS - nt.n);
    if (ng < 0) die("too many rows for one table");
    nt.n += ng;
    snprintf(nt.source, sizeof nt.source, "%s", o->estimated ? "estimated" : "measured");
    if (o->estimated)
        snprintf(nt.tuner, sizeof nt.tuner, "tktune 0.2 (level 0 estimated by llvm-mca-19 -mcpu=%s; per grid point the model's first choice)", t->mca_cpu);
    else
        snprintf(nt.tuner, sizeof nt.tuner, "tktune 0.2 (level 0 profiled; per grid point the model's top %d and the previous row, measured)", o->topk);
    {
        time_t tt = time(NULL);
        strftime(nt.date, sizeof nt.date, "%Y-%m-%d", gmtime(&tt));
    }
    nt.nnotes = 0;
    if (o->estimated) {
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "estimated, not measured: caches, cores and peak as in the previous table (%s)", t->source);
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "level 0: %d microkernels estimated; %d checks of the chosen rows under %s; log %s", nml, measured, po->run_prefix, po->log);
    } else {
        char host[96];
        machine_cpu_name(host, sizeof host);
        /* the host, not the table's CPU: a class table (x86-64-v3) is measured on whatever runs its ISA */
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "retuned on %s: caches, cores and peak as in the previous table (%s)", host, t->source);
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "level 0: %d microkernels measured; %d whole-shape measurements, record log %s", nml, measured, po->log);
    }
    if (o->estimated)
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "grid: %d cells (dimensions up to %.0f), %d exact shapes; every row the model's first choice", ncells, maxdim, nexact);
    else
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "grid: %d cells (dimensions up to %.0f), %d exact shapes; best of %d rounds; a change must win by %.0f%% there and in %d back-to-back pairs", ncells, maxdim, nexact, ROUNDS, (NOISE - 1) * 100, CONFIRM);
    if (out_of_time)
        snprintf(nt.notes[nt.nnotes++], sizeof nt.notes[0], "budget of %.0f s ran out: unmeasured cells kept the previous rows", o->budget_s);
    if (!retune_keep_pinned(t, &nt, err, sizeof err)) die("%s: %s", t->path, err);
    const int left_out = drop_plain_exact(&nt);
    for (int i = 0; i < nt.nnotes && left_out > 0; i++) {
        char *at = strstr(nt.notes[i], " exact shapes"), was[sizeof nt.notes[0]];
        if (strncmp(nt.notes[i], "grid: ", 6) || !at) continue;
        snprintf(was, sizeof was, "%s", nt.notes[i]);
        at = was + (at - nt.notes[i]);
        snprintf(nt.notes[i], sizeof nt.notes[0], "%.*s exact shapes (%d run by range rows)%s", (int)(at - was), was,
                 left_out, at + strlen(" exact shapes"));
    }
    /* tkgen checks the table before it replaces the old one: session 44 wrote a catch-all that the
     * build then refused, after nine minutes of measurements */
    if (!table_replace(po, isa, &nt, o->out, "this run", err, sizeof err)) die("%s", err);
    {
        FILE *lf = fopen(po->log, "a");
        if (!lf) die("cannot append to %s", po->log);
        /* next: the cell the next run starts at (where this one's budget ran out) */
        char bands[128] = "";
        band_text(" rows=", o->rows, bands, sizeof bands);
        band_text(" cols=", o->cols, bands + strlen(bands), sizeof bands - strlen(bands));
        if (o->shapes_only) snprintf(bands + strlen(bands), sizeof bands - strlen(bands), " shapes-only=1");
        fprintf(lf, "tk-record 1 op=retune cpu=%s run=%d result=done points=%d measurements=%d next=%d%s evidence=%s date=%ld\n", po->cpu,
                run, np, measured, some ? next_cell : out_of_time && cells_done < nord ? order[cells_done] : 0, bands,
                o->estimated ? "estimated" : "measured", (long)time(NULL));
        if (fclose(lf)) die("cannot append to %s", po->log);
    }
    phase[4] = tune_now() - t1;

    /* 6. report */
    double peak = 0;
    for (int i = 0; i < nml; i++)
        if (ml[i].gflops > peak) peak = ml[i].gflops;
    snprintf(path, sizeof path, "%s/report.txt", po->work);
    FILE *rf = fopen(path, "w");
    double lsum = 0;
    int nsum = 0, better = 0, rejected = 0, noisy = 0;
    for (int i = 0; i < np; i++) rejected += pts[i].confirmed > 0 && pts[i].win == pts[i].inc && !pts[i].noisy, noisy += pts[i].noisy;
    for (int pass = 0; pass < 2; pass++) {
        FILE *f = pass ? rf : stdout;
        if (!f) continue;
        fprintf(f, "tktune retune %s: wrote %s (%d rows)\n", po->cpu, o->out, nt.n);
        fprintf(f, "model: %s\n", calib_line);
        fprintf(f, "peak: best %s microkernel %.1f GFLOP/s (table's peak_gflops %.0f)%s\n", o->estimated ? "estimated" : "measured",
                peak, t->peak_gflops, o->estimated ? "; GFLOP/s below are the model's estimates" : "");
        fprintf(f, "%-22s %9s %9s %7s %7s  %s\n", "point (m x n x k..)", "old GF/s", "new GF/s", "new/old", "%peak", "new choice");
        for (int i = 0; i < np; i++) {
            const point *p = &pts[i];
            const tkt_row *w = &p->cand[p->win];
            char shape[96];
            double o1 = p->score[p->inc], n1 = p->score[p->win];
            snprintf(shape, sizeof shape, "%s%llux%llux%llu", p->exact ? "=" : "", p->sm[0], p->sn[0], p->sk[0]);
            int last = p->nsh - 1, deeper = p->nsh > 1 && p->sm[1] == p->sm[0] && p->sn[1] == p->sn[0];
            if (deeper) snprintf(shape + strlen(shape), sizeof shape - strlen(shape), ",%llu", p->sk[1]);
            if (p->bigb || p->wide) snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "+%llux%llu", p->sn[1], p->sk[1]);
            if (last > 0 && (p->sm[last] != p->sm[0] || p->sn[last] != p->sn[0]))
                snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "+mid");
            if (p->stream) snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "*");
            char text[128];
            row_text(isa, w, text, sizeof text);
            fprintf(f, "%-22s %9.1f %9.1f %7.3f %6.1f%%  %s%s\n", shape, o1, n1, o1 > 0 ? n1 / o1 : 0,
                    peak > 0 ? 100 * n1 / peak : 0, text, p->noisy ? " (kept: memory busy)" : !p->win ? " (kept)" : p->win == p->inc ? " (cut to its rows)" : "");
            if (!pass && o1 > 0 && n1 > 0) lsum += log(n1 / o1), nsum++, better += p->win != 0;
        }
        fprintf(f, "* operands cold: A and B rotated through %.0f MiB, a slot further each call\n", (double)shape_cold_bytes(po, t) / (1 << 20));
        fprintf(f, "geometric mean new/old over %d measured points: %.3f (%d changed; %d challengers that won the rounds lost the paired re-measurement; %d kept because the memory was busy)\n",
                nsum, nsum ? exp(lsum / nsum) : 0, better, rejected, noisy);
        fprintf(f, "cold runs disturbed by other memory traffic in every try (quiet=no in the log): %d\n", shape_noisy());
        fprintf(f, "phases (s): machine %.1f, level 0 %.1f, plan %.1f, measure %.1f, table %.1f; total %.1f%s\n", phase[0],
                phase[1], phase[2], phase[3], phase[4], tune_now() - t0, out_of_time ? " (budget ran out)" : "");
    }
    if (rf) fclose(rf);
    snprintf(path, sizeof path, "%s/report.svg", po->work);
    write_svg(path, pts, np, peak, po->cpu);
    printf("report: %s/report.txt and %s/report.svg\n", po->work, po->work);
    return 0;
}
