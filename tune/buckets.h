/* buckets.h - from the record log to a table (see buckets.c). */
#ifndef TK_TUNE_BUCKETS_H
#define TK_TUNE_BUCKETS_H
#include "candidates.h"
#include "model.h"

typedef struct {
    cand_l0 c;
    unsigned long long kc; /* depth it was measured at */
    double gflops;
} measured_l0;

/* The successful level-0 records of `cpu` in the log, a kernel measured more than once at its last
 * record; returns how many kernels were read (<= cap). */
int read_level0(const char *log, const char *cpu, measured_l0 *out, int cap);
/* The last op=machine record of `cpu` measured on this host (host=, machine_host) with this build's
 * sweep: 1 when found. Bandwidths in bytes/s; lat (when not NULL): L2, L3, DRAM load latency, seconds;
 * half (when not NULL): the time of a half-width FMA against a full one (measure_half_cost). */
int read_machine(const char *log, const char *cpu, double *bw_l2, double *bw_l3, double *bw_dram, double lat[3],
                 double *half);
/* One bucket of the sample-free shape grid: its m, n and k ranges and the shape that stands for it
 * (k: every depth, or one side of the deep split). */
typedef struct {
    range m, n, k;
    double ms, ns;
    int warm; /* a streamed cell's shallow side (add_warm_split): 1 measured with B in cache, 2 streamed; 0 */
    int shallow; /* 1: a large C's depth side up to GRID_MID_K, or a narrow cell's two up to GRID_NARROW_K (grid_cells), measured at its own depths */
    int narrow;  /* 1: either depth side of a narrow cell of few rows (grid_cells), its middle measured at an odd depth */
} grid_cell;

/* The grid's buckets, m-major (for each m band its shallow cells, then its cells in n order, then its
 * decode cells, one m range each), an open-ended range represented by `open`; returns how many there
 * are (<= GRID_MAX). deep_k > 0: the open-n cell of each band of more than 16 rows and at most
 * deep_m is two cells, depths up to deep_k and deep_k + 1 and up (shallow first). shallow_k > 0:
 * each cell whose C holds GRID_SHALLOW_C floats or more at its band's tallest row count (`open`
 * for the open band) and narrowest columns is four, depths
 * 1..shallow_k / 2 and shallow_k / 2 + 1..shallow_k (the band's thin and shallow cells, first),
 * shallow_k + 1..GRID_MID_K (the band's middle cells, after them) and GRID_MID_K + 1 and up; and
 * each narrow cell of few rows (GRID_NARROW_M rows at most, two or more; at most GRID_NARROW_N
 * columns) is three, depths up to GRID_NARROW_K0 and up to GRID_NARROW_K (its shallow sides, first)
 * and deeper.
 * warm_l2 > 0 (the L2's bytes):
 * each cell of at most 16 rows and n past 256 (the band's 257..512 cell, each row count's decode
 * cells past 512) is two, depths up to grid_hot_depth at its widest n (GRID_DECODE_WARM_N where n
 * is open) and deeper, the shallow one (warm 1) also split in n past GRID_DECODE_WARM_N where n is
 * open (warm 2); where grid_decode_wide_warm(warm_l2), the widths past GRID_DECODE_WARM_N up to
 * GRID_DECODE_WIDE_N are another warm cell (warm 1) and only those past it are streamed (warm 2);
 * where grid_decode_deep_warm(warm_l2), the deep side of an open cell is three: widths up to
 * GRID_DECODE_DEEP_WARM_N to that depth (warm 1) and deeper, and the wider widths; the deep side of
 * a finite band (257..512, 513..1024) is two where the L2 holds B at the band's middle width a quarter
 * deeper than the warm side or more (grid_l2_depth, beside the rows' A and C): that depth's L2 side (warm
 * 1), which the bench times in cache, and deeper.
 * The cells partition the shapes: every m x n x k lies in exactly one. */
#define GRID_MAX 448
#define GRID_SHALLOW_C 32768
#define GRID_MID_K 256
#define GRID_NARROW_M 4
#define GRID_NARROW_N 12
#define GRID_NARROW_K0 64
#define GRID_NARROW_K 256
#define GRID_DECODE_WARM_N 4096
#define GRID_DECODE_WIDE_N 8192
#define GRID_DECODE_DEEP_WARM_N 2048
/* 1 when an L2 of l2 bytes holds, in 3/4 of it, B 16 rows deep at GRID_DECODE_WIDE_N columns beside
 * a C of 16 rows (grid_warm_depth): the shallow decode widths up to there then stay in cache between
 * calls for every row count (spr's 2 MiB does; a Zen 4's 1 MiB does not, its 16-row C alone is
 * half of it) */
int grid_decode_wide_warm(unsigned long long l2);
/* The depth up to which the deep side of an open decode cell is warm at widths up to
 * GRID_DECODE_DEEP_WARM_N: grid_hot_depth there where it is deeper than at GRID_DECODE_WARM_N (spr's
 * 2 MiB: 128 against 64), else 0 (a 1 MiB L2: 64 at both) and no such cell. */
unsigned long long grid_decode_deep_warm(unsigned long long l2);
/* The depth, a multiple of 8 and at most kmax, at which B `width` floats wide beside an m x width C
 * fills 3/4 of an L2 of l2 bytes: a product the bench times in cache (tkb_bandwidth_bound counts
 * bytes past the L2). Below 8 (0 or less) when not even 8 rows fit. */
double grid_warm_depth(unsigned long long l2, double m, double width, double kmax);
/* The depth, a multiple of 8, at which A, B and C of m rows, `width` columns, fill the whole L2 of l2
 * bytes: past it the bench times a product of at most 16 rows cold (tkb_bandwidth_bound). */
double grid_l2_depth(unsigned long long l2, double m, double width);
/* The width, a multiple of 16 and at most wmax, at which B k deep beside an m-row C fills the same
 * 3/4 of the L2 (A's few floats aside). */
double grid_warm_width(unsigned long long l2, double m, double k, double wmax);
int grid_cells(grid_cell *cells, int cap, double open, unsigned long long deep_k, unsigned long long deep_m,
               unsigned long long shallow_k, unsigned long long warm_l2);
/* The depth at which B, `width` floats wide, fills half of an L2 of `l2` bytes: a multiple of 64,
 * 64 to GRID_HOT_MAX. A B that shallow is in cache between calls as a layer's weights often are. */
#define GRID_HOT_MAX 512
double grid_hot_depth(unsigned long long l2, double width);
/* 1 when two rows make the same decisions (ranges aside). */
int same_choice(const tkt_row *a, const tkt_row *b);
/* a row's decisions as text (tile, unroll, prefetch, blocks, form): "6x64 ku4 kc512 mc192 nc2048 packed" */
void row_text(const isa_desc *isa, const tkt_row *w, char *out, size_t cap);
/* The blocks the driver runs an m x n x k product with, one thread (templates/gemm-f32-blocked.h.m4):
 * kc past k is k, and with B read in place kc past the depth its rows, n floats apart, may span in
 * crowd bytes of cache (tkt_crowd_bytes) is that depth (tki_kc_b_in_place; row tiles inner, the
 * order the tuner proposes), unless the driver copies B all the same (tki_b_copy_pays: then as
 * packed); a call of one tile reading A and B in place (packa and packb 0) takes all of k
 * (tki_one_tile_whole_k); mc past m's tiles is their rows, nc past n's tiles is their columns, and
 * a B read in place has no nc (0).
 * Configurations whose tiles, kernels and forms agree and whose blocks come out equal here run the
 * same code on that shape: their measurements are readings of one rate. */
void run_blocks(unsigned mr, unsigned nr, unsigned long long kc, unsigned long long mc, unsigned long long nc,
                int packa, int packb, double crowd, double m, double n, double k, double out[3]);
/* 1 when two rows run the same code on m x n x k with one thread (same_choice, the blocks as
 * run_blocks gives them, the split aside). */
int same_code(const tkt_row *a, const tkt_row *b, double crowd, double m, double n, double k);
/* 1 when l0[i] is the unroll its tile is ranked at: the unroll is a level-0 decision (level0_plan
 * profiles each tile at several), taken by the kernel's measured speed, the unroll of 4 kept unless
 * another ran 2% faster (a tie: the first record). */
int l0_chosen_ku(const measured_l0 *l0, int n0, int i);
/* The model's `want` best configurations for an ms x ns shape over the depths ks (one per measured
 * tile at its chosen unroll, its best blocks), best first; returns how many. Ranges are left for
 * the caller. cold: the operands come from memory at every call (bench/cold.h); then each kernel
 * that reads B in place is also ranked prefetching B (pf = TUNE_PF_ROWS), where the ISA has
 * prefetching kernels. */
int model_best(const isa_desc *isa, const cand_caps *k, const model_machine *h, const measured_l0 *l0, int n0,
               double ms, double ns, const double *ks, int nks, int cold, tkt_row *out, int want);
/* One winner per grid cell (as grid_cells orders them) to rows: a cell with the winner of its deeper
 * side (same m and n ranges, the next depths) joined to it, then cells next to each other in that
 * order, of one m range and one k range and adjacent in n, with the same winner merged, the last row
 * made the catch-all; returns the count (-1: cap too small). */
int merge_grid(const tkt_row *cells, int ncells, tkt_row *rows, int cap);
/* Rows for the grid's buckets, merged, last row the catch-all; returns the count (-1: cap too small). */
int choose_rows(const isa_desc *isa, const cand_caps *k, const model_machine *h, const measured_l0 *l0, int n0,
                tkt_row *rows, int cap);
/* Writes `path` through a temporary file and a rename, holding `path`.lock: the old table is
 * intact whatever happens; 0 with a message in err on failure (also when the lock is taken). */
int write_table_atomically(const char *path, const tkt_table *t, const isa_desc *isa, char *err, size_t errcap);
#endif
