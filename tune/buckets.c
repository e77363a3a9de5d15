/* buckets.c - from the record log to a table: the sample-free shape grid (ranges derived from the
 * tile sizes and cache blocks, not from sampled shapes), the model's best configuration per grid
 * bucket over the measured level-0 candidates, neighbours with the same winner merged, and the table
 * written through a temporary file and a rename under a lock. */
#include "buckets.h"
#include "measure.h"
#include "machine.h"
#include "profile.h"
#include "tk/internal.h" /* tki_kc_b_in_place: the depth the driver runs B in place at */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int read_level0(const char *log, const char *cpu, measured_l0 *out, int cap)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    int n = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        measured_l0 m;
        char form[16], kind[8];
        const char *t = strstr(line, " tile="), *g = strstr(line, " gflops=");
        if (strncmp(line, "tk-record 1 op=gemm ", 20) || !record_of(line, cpu) || !strstr(line, " level=0 ") || !level0_trusted(line) ||
            !strstr(line, " result=ok ") || !t || !g)
            continue;
        if (sscanf(t, " tile=%ux%u%7[a-z] ku=%u form=%15s kc=%llu", &m.c.mr, &m.c.nv, kind, &m.c.ku, form, &m.kc) != 6)
            continue;
        m.c.direct = !strcmp(form, "direct");
        m.gflops = strtod(g + 8, NULL);
        /* a kernel measured again (profile_level0 measures a tile's unrolls together): the last reading */
        int at = 0;
        while (at < n && at < cap && !cand_same_kernel(&out[at].c, &m.c))
            at++;
        if (at < n && at < cap) {
            out[at] = m;
            continue;
        }
        if (n < cap) out[n] = m;
        n++;
    }
    fclose(f);
    return n < cap ? n : cap;
}

int read_machine(const char *log, const char *cpu, double *bw_l2, double *bw_l3, double *bw_dram, double lat[3],
                 double *half)
{
    FILE *f = fopen(log, "r");
    char line[1024], want[300], host[160];
    int found = 0;
    double b[3], l[3], hf;
    if (!f) return 0;
    machine_host(host, sizeof host);
    /* a record of narrower loads than this build's sweep is not the host's bandwidth (machine.c) */
    snprintf(want, sizeof want, "tk-record 1 op=machine cpu=%s host=%s sweep=%d ", cpu, host, machine_sweep_bytes());
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, want, strlen(want)) &&
            sscanf(line + strlen(want), "bw_l2=%lf bw_l3=%lf bw_dram=%lf lat_l2=%lf lat_l3=%lf lat_dram=%lf half=%lf",
                   &b[0], &b[1], &b[2], &l[0], &l[1], &l[2], &hf) == 7) {
            /* the last whole record wins; one without latencies (before session 15) or the half-width
             * FMA cost (before session 23) is measured again */
            found = 1, *bw_l2 = b[0], *bw_l3 = b[1], *bw_dram = b[2];
            if (half) *half = hf;
            for (int i = 0; lat && i < 3; i++) lat[i] = l[i] * 1e-9;
        }
    fclose(f);
    return found;
}

/* The grid: bucket upper bounds in m and n, from the register tiles (1, 4, 8, 16), 6 and 12 between
 * them (a row count just past a tile costs a second pass over B: m = 5 with the 4-row tile of the
 * bucket 5..8 ran at 0.60 of the oracle at 5x2801x331), and the sizes where a second tile, a second
 * cache block or the packing cost starts to matter; doubling steps past that, since a winner
 * measured at one corner of a wider bucket did not hold across it (a 256 x 512 winner lost a fifth
 * at 256 x 256). n ends at 8 too (half an AVX-512 vector, one of AVX2): below it the broadcast form
 * fills half its lanes or less and the dot form fills them all, and one row for 1..16 did not serve
 * both ends (zen4, session 21: at 1408 rows the dot form's 6x4 ran 86 GFLOP/s at n = 4 against the
 * broadcast 8x16's 42, and 90 against 113 at n = 16; the cell's geometric mean took 6x4 for both).
 * 12 and 24 (three quarters and one and a half AVX-512 vectors; one and a half and three of AVX2)
 * split the next two the same way: 9..16 took the broadcast 9x48 from its 16-wide top, and
 * 1024x12x1000 ran at 0.83 of the dot form's 6x4; 17..32 kept a broadcast row that ran 640x17x1200
 * at 66 GFLOP/s, where the dot form's 4x6 ran 78-87. 96 (six AVX-512 vectors, two 48-wide tiles)
 * splits 65..128 likewise: from its top, 128 columns, the spr retunes of session 58 took 6x64 for
 * 513.. rows, which ran 2000x128x64 1.10-1.12x and 1600x128x512 1.06-1.27x the 9x48 before, and
 * 1500x80x200 0.73-0.90x, 900x80x200 0.72-1.12x (a 64-wide tile and a 16-wide one where 9x48 runs
 * two of 48). 2 and 3 (since session 71): 2..4 took its 4-row top's 4x24 on the Zen 4, which two rows
 * run cut to 2x24 (six FMA chains, under the eight that keep the FMA units busy); a 2x32 row ran
 * 2x32x500 1.46x, 2x128x300 1.36x, 2x256x64 1.28x and 2x64x64 1.12x as fast (x86-64-v3, B hot). */
static const unsigned long long m_hi[] = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128, 256, 512, 1024, 0};
static const unsigned long long n_hi[] = {8, 12, 16, 24, 32, 64, 96, 128, 256, 512, 1024, 0};
#define NM (sizeof m_hi / sizeof m_hi[0])
#define NN (sizeof n_hi / sizeof n_hi[0])
/* band i of the upper bounds hi (0 ends them: open) */
static range band(const unsigned long long *hi, unsigned i)
{
    const range r = {i ? hi[i - 1] + 1 : 1, hi[i] ? hi[i] : TK_SIZE_INF};
    return r;
}
/* Decode (at most FINE_M rows against B rows wider than FINE_N floats) gets a cell per row count:
 * there a tile's dead rows cost a whole pass over a B that comes from memory, and the best tile at a
 * band's bottom is not the one at its top (9x48 against 6x64 at 9 rows of 9..12: 1.35x at
 * 9x2048x1536, while 6x64 wins at 12). */
#define FINE_M 16
#define FINE_N 512

/* A range's top (`open` for an open range): a cell's representative (add_cell), and a band's tallest
 * row count, where a large C's shallow side (grid_cells) is the band's if C at that height and the
 * band's narrowest columns holds GRID_SHALLOW_C floats. Until session 77 that rule took the band's
 * smallest corner, and the bands just under it (17..32 x
 * 1025.., 33..64 x 513..1024, 65..128 x 257..512, 129..256 x 129..256, 257..512 x 65..128,
 * 513..1024 x 33..64) had one row for every depth, chosen 256 and 2048 deep: packed rows or deep k
 * blocks, and the pins of 17..32 x 1025.. chosen at depths 64 and more. At depths 4 to 16 those
 * ran 24x1500x4 at 0.44 of libxsmm and 200x200x8 at 0.58 on the Zen 4 VM (x86-64-v3); the
 * shallow rows of the band above (6x16 ku 1 kc 16 direct, column tiles inner) ran 1.17-1.95x as
 * fast on 13 such shapes (bench/results/zen4-avx2-s77-shallow-probe.txt). */
static double range_top(range r, double open) { return r.hi != TK_SIZE_INF ? (double)r.hi : open; }

static int add_cell(grid_cell *cells, int cap, int n, range m, range nr, range k, double open, int warm)
{
    if (n < cap) {
        cells[n].m = m, cells[n].n = nr, cells[n].k = k, cells[n].warm = warm, cells[n].shallow = 0, cells[n].narrow = 0;
        /* representative: the top edge (tile and block fits are tightest there); open: `open` */
        cells[n].ms = range_top(m, open);
        cells[n].ns = range_top(nr, open);
    }
    return n + 1;
}

/* one of a large C's depth sides up to GRID_MID_K (grid_cells), which retune.c measures at its own
 * depths in both orders */
static int add_side(grid_cell *cells, int cap, int n, range m, range nr, range k, double open)
{
    n = add_cell(cells, cap, n, m, nr, k, open, 0);
    if (n <= cap) cells[n - 1].shallow = 1;
    return n;
}

double grid_hot_depth(unsigned long long l2, double width)
{
    double d = floor((double)l2 / (2.0 * 4.0 * width) / 64) * 64;
    return d < 64 ? 64 : d > GRID_HOT_MAX ? GRID_HOT_MAX : d;
}

/* A cell of at most FINE_M rows whose B is wider than a vector tile's reach (n past 256) is
 * measured with B streamed from memory (retune.c), and its rows read B a few rows deep (kc 8 to
 * 32, prefetching), which keeps DRAM's streams few and costs a B in cache half its speed. With
 * warm_l2 (the L2's bytes), such a cell's depths up to grid_hot_depth at its widest n are a cell of
 * their own, measured with B in cache (warm 1): B is then at most half the L2, and the bench times
 * such a shape warm too (tkb_bandwidth_bound). Where n is open the warm cell stops at
 * GRID_DECODE_WARM_N, and the shallow depths past that width are a streamed cell (warm 2). On spr
 * (session 48, tk_bench, one run): 6x6000x40, 6x4096x64, 5x2048x32 ran 1.6-1.9x faster at kc 64
 * without prefetching than on the 6x64 pf8 kc 8 row, 0.56 -> 0.93 of libxsmm; with B streamed,
 * 6x16384x64 ran 0.41x as fast so, hence the cut in n. Where the L2 holds B at GRID_DECODE_WIDE_N
 * columns 16 deep beside 16 rows of C (grid_decode_wide_warm), the widths up to GRID_DECODE_WIDE_N
 * are a warm cell too: the bench times their shallow products in cache (4x5000x32: 0.7 MB; tkb_bandwidth_bound counts
 * bytes past the L2), and the streamed cell's row, chosen mostly at its streamed corners, read B 8
 * deep prefetching: 4x5000x32 ran at 0.62 of OpenBLAS, 12x6000x24 at 0.68 of libxsmm (session 53),
 * and the probe ran 4x5000x32 in cache at 78 GFLOP/s so, 120 at kc 32 without prefetching, which
 * read 4x11008x64 cold at 0.78x (session 54). Past the warm depths, B at GRID_DECODE_DEEP_WARM_N
 * columns may still fit half the L2 (2 MiB: 128 deep): the deep side, chosen with B streamed (kc 8,
 * prefetching), ran 4x1800x120 in cache at 55-67 GFLOP/s on the probe, 103-110 at kc 128 without
 * prefetching, 16x2048x96 97 against 142 (session 55, an Emerald Rapids); so up to that width and
 * depth it is a warm cell of its own. The shallow cells come first (shallow = 1),
 * so that neighbours in n of one choice merge; the deep ones after (shallow = 0). */
static int add_warm_split(grid_cell *cells, int cap, int n, range m, range nr, unsigned long long warm_l2, int shallow,
                          double open)
{
    const range all = {1, TK_SIZE_INF};
    const double widest = nr.hi == TK_SIZE_INF ? (double)GRID_DECODE_WARM_N : (double)nr.hi;
    const unsigned long long d = warm_l2 ? (unsigned long long)grid_hot_depth(warm_l2, widest) : 0;
    const range low = {1, d}, deep = {d + 1, TK_SIZE_INF};
    if (!d) return shallow ? n : add_cell(cells, cap, n, m, nr, all, open, 0);
    if (!shallow) {
        /* where n is open (d is then the depth at GRID_DECODE_WARM_N) and half the L2 holds B
         * deeper at GRID_DECODE_DEEP_WARM_N (grid_decode_deep_warm), the deep side's narrow part up
         * to that depth is a warm cell too: two cells more stay streamed, the deeper depths of the
         * narrow part and the whole deep side of the wider */
        const unsigned long long d2 = nr.hi == TK_SIZE_INF ? grid_decode_deep_warm(warm_l2) : 0;
        if (d2 && nr.lo <= GRID_DECODE_DEEP_WARM_N) {
            const range narrow = {nr.lo, GRID_DECODE_DEEP_WARM_N}, wider = {GRID_DECODE_DEEP_WARM_N + 1, nr.hi};
            const range warm = {d + 1, d2}, deeper = {d2 + 1, TK_SIZE_INF};
            n = add_cell(cells, cap, n, m, narrow, warm, open, 1);
            n = add_cell(cells, cap, n, m, narrow, deeper, open, 0);
            return add_cell(cells, cap, n, m, wider, deep, open, 0);
        }
        /* A finite band's deep side still holds products the bench times in cache: B past half the
         * L2 at the widest n but A, B and C within the L2 (tkb_bandwidth_bound), which run from L2 and
         * L3, not memory. Measured streamed, 3 x 257..512 x 129.. took kc 16 prefetching, which ran
         * 3x400x200 at 0.74x and 5x300x300 at 0.66x a row of kc 512 without prefetching, 3x500x500
         * (B cold) 1.47x (session 74, x86-64-v3 on a Zen 4 with 512 KiB of L2). So its depths up to
         * where the bench's rule turns cold at the band's middle width (grid_l2_depth) are a warm cell
         * of their own, where that is a quarter deeper than the warm side or more. Cut where B fits
         * 3/4 of the L2 instead (grid_warm_depth: 264 deep for 3 rows), the bench's 3x400x300 and
         * 5x300x300 stayed on the streamed row (0.81-0.84x and 1.01x the table before) while the L2
         * side ran 1.16-1.74x. */
        if (nr.hi != TK_SIZE_INF) {
            const double mid = floor(sqrt((double)nr.lo * (double)nr.hi));
            const double dw = grid_l2_depth(warm_l2, (double)m.hi, mid);
            if (dw >= 1.25 * (double)d) {
                const range l2side = {d + 1, (unsigned long long)dw}, deeper = {(unsigned long long)dw + 1, TK_SIZE_INF};
                n = add_cell(cells, cap, n, m, nr, l2side, open, 1);
                return add_cell(cells, cap, n, m, nr, deeper, open, 0);
            }
        }
        return add_cell(cells, cap, n, m, nr, deep, open, 0);
    }
    if (nr.hi <= GRID_DECODE_WARM_N) return add_cell(cells, cap, n, m, nr, low, open, 1);
    {
        const range warm = {nr.lo, GRID_DECODE_WARM_N}, wide = {GRID_DECODE_WARM_N + 1, nr.hi};
        n = add_cell(cells, cap, n, m, warm, low, open, 1);
        if (grid_decode_wide_warm(warm_l2)) {
            const range warm2 = {GRID_DECODE_WARM_N + 1, GRID_DECODE_WIDE_N}, wider = {GRID_DECODE_WIDE_N + 1, nr.hi};
            n = add_cell(cells, cap, n, m, warm2, low, open, 1);
            return add_cell(cells, cap, n, m, wider, low, open, 2);
        }
        return add_cell(cells, cap, n, m, wide, low, open, 2);
    }
}

/* the floats of A, B and C a product may take to stay in an L2 of l2 bytes between calls: 3/4 of
 * it, under tkb_bandwidth_bound's whole L2 */
static double warm_room(unsigned long long l2) { return 0.75 * (double)l2 / 4.0; }

/* the depth, a multiple of 8, at which B `width` wide, an m-row A as deep and an m x width C take
 * `floats` */
static double depth_in(double floats, double m, double width) { return floor((floats - m * width) / (width + m) / 8) * 8; }

double grid_warm_depth(unsigned long long l2, double m, double width, double kmax)
{
    return fmin(floor(kmax / 8) * 8, depth_in(warm_room(l2), m, width));
}

double grid_l2_depth(unsigned long long l2, double m, double width) { return depth_in((double)l2 / 4.0, m, width); }

double grid_warm_width(unsigned long long l2, double m, double k, double wmax)
{
    return fmin(wmax, floor(warm_room(l2) / (k + m) / 16) * 16);
}

int grid_decode_wide_warm(unsigned long long l2)
{
    return grid_warm_depth(l2, FINE_M, GRID_DECODE_WIDE_N, 16) >= 16;
}

unsigned long long grid_decode_deep_warm(unsigned long long l2)
{
    const double d = grid_hot_depth(l2, GRID_DECODE_DEEP_WARM_N);
    return d > grid_hot_depth(l2, GRID_DECODE_WARM_N) ? (unsigned long long)d : 0;
}

/* A wide B with more than a few rows: read in place while it stays in the cache, packed once it
 * streams from memory (128x4096x4096: 6x64 in place 180 GFLOP/s, 4x96 packed 203-206; at depth 256
 * the in-place tile won, and the cell's one row had to serve both, so the geometric mean over its
 * shapes kept the in-place tile). The depth split lets each side keep its own.
 * A large C of few depths is another regime: each product writes C once and does a few FMAs per
 * element, so the order the tiles write C in sets the pace, and the grid measured every cell 256
 * deep or more. The BLIS order (row tiles inner) writes mc rows a few lines each before it moves
 * right, more streams than the prefetchers follow; column tiles inner (order 'm') write C row tile
 * by row tile. On the spr host, session 46, that order ran 1200x1200x8 1.7x, 2000x1500x4 1.7x,
 * 300x3000x16 1.5x and 64x4096x8 1.25x as fast, 1200x1200x64 1.10x, but 1200x1200x256 0.95x and
 * 1200x1200x1024 0.43x (B's kc x nc panel no longer in L2). Such cells get a shallow side of their
 * own, which the tuner measures at shallow depths with both orders (retune.c). */
int grid_cells(grid_cell *cells, int cap, double open, unsigned long long deep_k, unsigned long long deep_m,
               unsigned long long shallow_k, unsigned long long warm_l2)
{
    /* a large C's shallow depths are two cells, 1..shallow_k / 2 and the rest up to shallow_k */
    const range thin = {1, shallow_k / 2}, shallow = {shallow_k / 2 + 1, shallow_k};
    /* the depths past shallow_k up to GRID_MID_K: a cell of their own where shallow_k is below it */
    const unsigned long long mid_k = shallow_k < GRID_MID_K ? GRID_MID_K : shallow_k;
    const range mid = {shallow_k + 1, mid_k};
    const range sides[] = {thin, shallow, mid}; /* an empty one (lo > hi) is no cell */
    int n = 0;
    for (unsigned a = 0; a < NM; a++) {
        const range m = band(m_hi, a);
        const int decode = m.hi <= FINE_M;
        int big_c[NN];
        for (unsigned b = 0; b < NN; b++) {
            const range nr = band(n_hi, b);
            big_c[b] = shallow_k && !(decode && nr.lo > FINE_N) && range_top(m, open) * (double)nr.lo >= GRID_SHALLOW_C;
        }
        for (unsigned s = 0; s < sizeof sides / sizeof sides[0]; s++)
            for (unsigned b = 0; b < NN; b++)
                if (big_c[b] && sides[s].lo <= sides[s].hi) n = add_side(cells, cap, n, m, band(n_hi, b), sides[s], open);
        /* A narrow cell of few rows: a tile of one vector a row and at most 4 rows keeps few sums, and
         * the k blocks that win deep (kc 16: each block's sums a chain of their own, the blocks'
         * chains overlapping) lose where there are few of them. Measured 256 and 1600 deep with its
         * small middle 16 deep, such a cell took 2x16, 3x16 or 4x16 kc 16, which ran 2x10x30 at 0.62,
         * 3x6x30 at 0.65 and 4x6x100 at 0.81 of the rows before, and 2x11x2000 at 1.61, 3x8x2000 at
         * 1.15 (spr, sessions 78-79). Its depths up to GRID_NARROW_K are a shallow side of their own,
         * and the first GRID_NARROW_K0 of them another: kc 16 still won at 256 and lost below about
         * 64, and the cell 4 x 9..12 x 1..256 took 4x32 kc 16 there (+2% at its depths 256, 63 and
         * 125), which ran 4x12x40 at 0.75 of the 4x64 kc 1024 before it (spr, session 79). */
        int narrow[NN];
        const range thin_k[2] = {{1, GRID_NARROW_K0}, {GRID_NARROW_K0 + 1, GRID_NARROW_K}};
        for (unsigned b = 0; b < NN; b++)
            narrow[b] = shallow_k && !big_c[b] && m.lo >= 2 && m.hi <= GRID_NARROW_M && band(n_hi, b).hi <= GRID_NARROW_N;
        /* (a side's cells of every width together, so that merge_grid joins those of one choice) */
        for (unsigned s = 0; s < 2; s++)
            for (unsigned b = 0; b < NN; b++)
                if (narrow[b]) {
                    n = add_side(cells, cap, n, m, band(n_hi, b), thin_k[s], open);
                    if (n <= cap) cells[n - 1].narrow = 1;
                }
        for (unsigned b = 0; b < NN; b++) {
            const range nr = band(n_hi, b);
            const range rest = {big_c[b] ? mid_k + 1 : narrow[b] ? GRID_NARROW_K + 1 : 1, TK_SIZE_INF};
            if (decode && nr.lo > FINE_N) continue;
            if (decode && nr.hi == FINE_N) { /* streamed too (retune.c), a band for all its rows */
                n = add_warm_split(cells, cap, n, m, nr, warm_l2, 1, open);
                n = add_warm_split(cells, cap, n, m, nr, warm_l2, 0, open);
                continue;
            }
            if (deep_k && deep_k > rest.lo && nr.hi == TK_SIZE_INF && m.lo > FINE_M && m.hi <= deep_m) {
                const range upper = {rest.lo, deep_k}, deep = {deep_k + 1, TK_SIZE_INF};
                n = add_cell(cells, cap, n, m, nr, upper, open, 0);
                n = add_cell(cells, cap, n, m, nr, deep, open, 0);
            } else {
                n = add_cell(cells, cap, n, m, nr, rest, open, 0); /* (every depth where neither splits it) */
                if (narrow[b] && n <= cap) cells[n - 1].narrow = 1;
            }
        }
        /* the band's decode cells after its others, row count by row count (merge_grid joins a run
         * of cells of one m range) */
        for (unsigned long long r = m.lo; decode && r <= m.hi; r++)
            for (int side = 1; side >= 0; side--)
                for (unsigned b = 0; b < NN; b++) {
                    const range one = {r, r}, nr = band(n_hi, b);
                    if (nr.lo > FINE_N) n = add_warm_split(cells, cap, n, one, nr, warm_l2, side, open);
                }
    }
    return n;
}

/* a row's decisions as the tuner's reports and its dry run print them: 6x64 ku4 kc512 mc192 nc2048 packed */
void row_text(const isa_desc *isa, const tkt_row *w, char *out, size_t cap)
{
    char pf[16] = "";
    char tok[8];
    if (w->pf) snprintf(pf, sizeof pf, " pf%s", tkt_pf_text(w->pf, tok));
    snprintf(out, cap, "%ux%u%s ku%u%s kc%llu mc%llu nc%llu %s", w->mr, w->nr, isa->vla ? "v" : "", w->ku, pf, w->kc,
             w->mc, w->nc, w->packa == TKT_DOT ? "dot" : w->packa ? "packed" : "direct");
}

int same_choice(const tkt_row *a, const tkt_row *b)
{
    return a->mr == b->mr && a->nr == b->nr && a->ku == b->ku && a->pf == b->pf && a->mc == b->mc && a->nc == b->nc &&
           a->kc == b->kc && a->packa == b->packa && a->packb == b->packb && a->split == b->split &&
           a->order == b->order;
}

void run_blocks(unsigned mr, unsigned nr, unsigned long long kc, unsigned long long mc, unsigned long long nc,
                int packa, int packb, double crowd, double m, double n, double k, double out[3])
{
    const double mt = ceil(m / mr) * mr, nt = ceil(n / nr) * nr;
    /* B copied where the row says so or the driver copies it all the same (tki_gemm_b_in_place) */
    const int copied = packb || tki_b_copy_pays(kc, (size_t)m, mr, mc, (size_t)n, (size_t)crowd);
    out[0] = tki_one_tile_whole_k((size_t)m, (size_t)n, mr, nr, !packa, !copied)
                 ? k
                 : fmin(copied ? (double)kc : (double)tki_kc_b_in_place(kc, (size_t)m, mr, mc, (size_t)n, (size_t)crowd, !packa), k);
    out[1] = fmin((double)mc, mt);
    out[2] = copied ? fmin((double)nc, nt) : 0;
}

int same_code(const tkt_row *a, const tkt_row *b, double crowd, double m, double n, double k)
{
    double x[3], y[3];
    if (!(a->mr == b->mr && a->nr == b->nr && a->ku == b->ku && a->pf == b->pf && a->packa == b->packa &&
          a->packb == b->packb && a->order == b->order))
        return 0;
    run_blocks(a->mr, a->nr, a->kc, a->mc, a->nc, a->packa, a->packb, crowd, m, n, k, x);
    run_blocks(b->mr, b->nr, b->kc, b->mc, b->nc, b->packa, b->packb, crowd, m, n, k, y);
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

/* The unroll of 4, every table's before session 50, keeps a tile unless another ran KU_EDGE
 * faster: a kernel's level-0 figure moves by a few percent between runs. */
#define KU_EDGE 1.02

int l0_chosen_ku(const measured_l0 *l0, int n0, int i)
{
    const double mine = l0[i].gflops * (l0[i].c.ku == 4 ? KU_EDGE : 1.0);
    for (int j = 0; j < n0; j++) {
        const double other = l0[j].gflops * (l0[j].c.ku == 4 ? KU_EDGE : 1.0);
        if (j != i && cand_same_tile(&l0[j].c, &l0[i].c) && (other > mine || (other == mine && j < i)))
            return 0;
    }
    return 1;
}

int model_best(const isa_desc *isa, const cand_caps *k, const model_machine *h, const measured_l0 *l0, int n0,
               double ms, double ns, const double *ks, int nks, int cold, tkt_row *out, int want)
{
    double cost_of[64];
    int have = 0;
    if (want > 64) want = 64;
    for (int i = 0; i < n0 * 3; i++) {
        const cand_l0 *c = &l0[i / 3].c;
        /* each kernel, then (cold, B in place) the same kernel prefetching B rows ahead, and along them */
        unsigned ways[3];
        if (i % 3 >= tune_pf_ways(isa, cold, !c->direct, c->mr, ways)) continue;
        const unsigned pf = ways[i % 3];
        if (!l0_chosen_ku(l0, n0, i / 3)) continue;
        unsigned long long kcs[64], mcs[64], ncs[64];
        double best = INFINITY;
        tkt_row win;
        int nk = cand_kc(c, k, kcs, 64);
        memset(&win, 0, sizeof win);
        /* the best blocks for this kernel first ... */
        for (int x = 0; x < nk && x < 64; x++) {
            int nm = cand_mc(c, kcs[x], k, mcs, 64), nn = cand_nc(c, kcs[x], k, ncs, 64);
            for (int y = 0; y < nm && y < 64; y++)
                for (int z = 0; z < nn && z < 64; z++) {
                    model_config mc = {c->mr, (unsigned)(c->nv * k->lanes_per_vector), kcs[x], mcs[y], ncs[z],
                                       l0[i / 3].gflops, !c->direct, !c->direct, 1, 'n', k->narrow, pf, cold,
                                       k->half_nv};
                    double cost = 0;
                    for (int q = 0; q < nks; q++) cost += model_time(h, &mc, ms, ns, ks[q]) / (2.0 * ms * ns * ks[q]);
                    if (cost < best) {
                        best = cost;
                        win.mr = c->mr;
                        win.nr = isa->vla ? c->nv : c->nv * isa->lanes;
                        win.ku = c->ku;
                        win.pf = pf;
                        win.kc = kcs[x];
                        win.mc = mcs[y];
                        win.nc = isa->vla ? ncs[z] / k->lanes_per_vector : ncs[z];
                        win.packa = win.packb = !c->direct;
                        /* two threads cut the larger dimension */
                        win.split = ms >= ns ? 'm' : 'n';
                        win.order = 'n';
                    }
                }
        }
        if (best == INFINITY) continue;
        /* ... then this kernel's place among the others, best first */
        int at = have < want ? have++ : want;
        if (at == want && !(best < cost_of[want - 1])) continue;
        if (at == want) at = want - 1;
        while (at > 0 && cost_of[at - 1] > best) {
            out[at] = out[at - 1];
            cost_of[at] = cost_of[at - 1];
            at--;
        }
        out[at] = win;
        cost_of[at] = best;
    }
    return have;
}

int merge_grid(const tkt_row *cells, int ncells, tkt_row *rows, int cap)
{
    static tkt_row kept[GRID_MAX];
    int n = 0, nk = 0;
    if (ncells > GRID_MAX) return -1;
    /* A cell whose choice is that of the cell on its deeper side (same m and n ranges, the depths
     * that follow its own) is joined to it: one row for both depths, as if the grid had not split
     * them. That side comes later in the grid, so the joined row keeps its place. */
    for (int i = 0; i < ncells; i++) kept[i] = cells[i];
    for (int i = 0; i < ncells; i++) {
        int j = i + 1;
        while (j < ncells && !(kept[j].m.lo == kept[i].m.lo && kept[j].m.hi == kept[i].m.hi &&
                               kept[j].n.lo == kept[i].n.lo && kept[j].n.hi == kept[i].n.hi &&
                               kept[i].k.hi != TK_SIZE_INF && kept[j].k.lo == kept[i].k.hi + 1))
            j++;
        if (j < ncells && same_choice(&kept[i], &kept[j])) kept[j].k.lo = kept[i].k.lo, kept[i].k.lo = 0;
    }
    for (int i = 0; i < ncells; i++)
        if (kept[i].k.lo) kept[nk++] = kept[i];
    /* a run of cells of one m range and one k range, adjacent in n, with one winner becomes one row */
    for (int b = 0; b < nk;) {
        int e = b;
        while (e + 1 < nk && kept[e + 1].m.lo == kept[b].m.lo && kept[e + 1].m.hi == kept[b].m.hi &&
               kept[e + 1].k.lo == kept[b].k.lo && kept[e + 1].k.hi == kept[b].k.hi &&
               kept[e + 1].n.lo == kept[e].n.hi + 1 && same_choice(&kept[b], &kept[e + 1]))
            e++;
        if (n < cap) {
            rows[n] = kept[b];
            rows[n].n.hi = kept[e].n.hi;
        }
        n++;
        b = e + 1;
    }
    if (n > cap || n == 0) return -1;
    /* the last row must be the catch-all */
    rows[n - 1].m.lo = rows[n - 1].n.lo = rows[n - 1].k.lo = 1;
    rows[n - 1].m.hi = rows[n - 1].n.hi = rows[n - 1].k.hi = TK_SIZE_INF;
    return n;
}

int choose_rows(const isa_desc *isa, const cand_caps *k, const model_machine *h, const measured_l0 *l0, int n0,
                tkt_row *rows, int cap)
{
    static grid_cell cells[GRID_MAX];
    static tkt_row grid[GRID_MAX];
    static const double ks[3] = {64, 512, 4096};
    int nc = grid_cells(cells, GRID_MAX, 4096, 0, 0, 0, 0);
    if (n0 <= 0) return 0;
    for (int i = 0; i < nc; i++) {
        tkt_row *win = &grid[i];
        if (model_best(isa, k, h, l0, n0, cells[i].ms, cells[i].ns, ks, 3, 0, win, 1) < 1) memset(win, 0, sizeof *win);
        win->m = cells[i].m;
        win->n = cells[i].n;
        win->k = cells[i].k;
        snprintf(win->evidence, sizeof win->evidence, "measured");
    }
    return merge_grid(grid, nc, rows, cap);
}

int write_table_atomically(const char *path, const tkt_table *t, const isa_desc *isa, char *err, size_t errcap)
{
    char tmp[1100], lock[1100];
    int fd;
    FILE *f;
    snprintf(lock, sizeof lock, "%s.lock", path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    fd = open(lock, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) {
        snprintf(err, errcap, "%s exists: another run is writing this table (remove it if none is)", lock);
        return 0;
    }
    dprintf(fd, "%ld\n", (long)getpid());
    close(fd);
    f = fopen(tmp, "w");
    if (!f || !write_table(f, t, isa) || fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errcap, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        remove(lock);
        return 0;
    }
    remove(lock);
    return 1;
}
