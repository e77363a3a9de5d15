/* retune.h - the whole tuning run behind `make retune ARCH=<cpu>` (see retune.c). */
#ifndef TK_TUNE_RETUNE_H
#define TK_TUNE_RETUNE_H
#include "profile.h"

typedef struct {
    profile_opts po;        /* cpu, log, work, tkgen, cc, timeout, progress */
    const char *out;        /* the table to write */
    const char *shapes;     /* optional: shapes that get exact rows */
    double budget_s;        /* wall-clock budget of the measuring phases */
    int l0_budget;          /* level-0 tiles to profile (each at every unroll) */
    int topk;               /* model candidates measured per grid point */
    int dry_run;            /* print the plan, measure nothing */
    double max_dim;         /* largest dimension of a grid point; 0: from the table's peak */
    int estimated;          /* 1: a CPU this machine cannot run: llvm-mca, model, qemu checks */
    range rows;             /* lo > 0: measure only the cells and exact shapes of these row counts (m) */
    range cols;             /* lo > 0: ... and of these column counts (n) */
    int shapes_only;        /* 1: measure the listed shapes only; every grid cell keeps its row */
    int prior_runs;         /* the record-log prior reads this many recent runs (0: no prior, measure all) */
} retune_opts;

/* Locks the record log for this process (until it exits); dies when another tktune run holds it. */
void retune_lock(const char *log);
/* Runs every phase for the CPU whose current table is t; returns the process exit status. */
int retune_run(const retune_opts *o, const isa_desc *isa, const tkt_table *t, const cand_caps *k,
               const cand_l0 *l0, int n0);
/* 1 when a challenger's speeds over the previous choice's on a point's nsh shapes (r[d] > 0; 0: a
 * failure) make a change: faster by the noise margin on the whole, or on one shape and within the
 * margin on the others, not slower on the whole. */
int retune_beats(const double *r, int nsh);
/* 1 when a tile taller than the point's largest m (mmax) stays in the race beside its twin cut to
 * mmax rows: at m >= 2 only, and only where its speeds tall[d] beat the twin's twin[d] as a
 * challenger must (retune_beats). At m = 2 and 3 a 4-row tile reading B once per four broadcasts
 * ran 2x11008x4096 at 22.5-23.6 GFLOP/s and its 2-row twin at 18.6-20.1 (zen4, session 23). */
int retune_keep_tall(const double *tall, const double *twin, int nsh, unsigned long long mmax);
/* How many notes a retune writes of its own at most; the rest of a table's TKT_MAX_NOTES hold `pinned` notes. */
#define RETUNE_OWN_NOTES 4
/* Carries the rows set by hand (evidence `pinned`) of the previous table `old` into the retune's
 * new table `nt` (exact rows first, then the grid's rows): each in its old order, right after the
 * exact rows, so that it wins over the grid's rows it overlaps and never hides an exact row; a
 * pinned exact row replaces the retune's row of its shape. A copy of a pinned row that the retune
 * kept as a cell's previous row says the old table's `source` instead: only the hand pins. The
 * notes that start with "pinned" (why a row is pinned) follow the retune's own. 0, with why, when
 * they no longer fit (MAXROWS rows, 8 notes). */
int retune_keep_pinned(const tkt_table *old, tkt_table *nt, char *why, size_t cap);
/* Notes of t that start with "pinned". */
int retune_pinned_notes(const tkt_table *t);
#endif
