/* measure.h - measuring whole configurations on whole shapes (see measure.c). */
#ifndef TK_TUNE_MEASURE_H
#define TK_TUNE_MEASURE_H
#include "profile.h"

#define TUNE_PF_ROWS 8 /* how far ahead (B rows) the tuner's prefetching kernels fetch */

/* 1 when a configuration is also tried as its twin that prefetches B TUNE_PF_ROWS rows ahead: the
 * operands are cold (B streams from memory), B is read in place, and the ISA's kernels prefetch.
 * The one rule for the retune's candidates, the model's ranking and evaluate's oracle. */
static inline int tune_pf_twin(const isa_desc *isa, int cold, int packb) { return cold && isa->prefetch && !packb; }

/* A tile of several rows (mr > 1) with a TUNE_PF_ROWS twin also gets one that prefetches B along its
 * rows, TUNE_PF_ALONG: 32 lines (2 KiB) further along each row it reads, into L2. On a Zen 4, cold,
 * 4x32 at 4x4096x4096 kc 8 read 41-43 GFLOP/s prefetching 1-3 KiB ahead (2 KiB best, 4 KiB 38) against
 * 38 without, and 4x96 at 16x4096x4096 kc 512 68-83 against 44-54 with pf 8; a one-row tile, which the
 * hardware streams already, gained nothing (1x64 at 1x4096x4096: 10.8 against 10.6). */
#define TUNE_PF_ALONG (TKT_PF_ALONG | 32u)

/* The ways a configuration of mr rows is tried prefetching B, in this order: not at all, then (a
 * tune_pf_twin) TUNE_PF_ROWS rows ahead and, for several rows, TUNE_PF_ALONG; returns how many. */
static inline int tune_pf_ways(const isa_desc *isa, int cold, int packb, unsigned mr, unsigned ways[3])
{
    int n = 0;
    ways[n++] = 0;
    if (tune_pf_twin(isa, cold, packb)) {
        ways[n++] = TUNE_PF_ROWS;
        if (mr > 1) ways[n++] = TUNE_PF_ALONG;
    }
    return n;
}

/* One probe binary for a CPU: the framework header generated for its table, with every tile of
 * `rows` (and of the table) instantiated, so any of those configurations can run on any shape. */
typedef struct {
    const profile_opts *o;
    const isa_desc *isa;
    const tkt_table *t;
    char bin[1100];
    int exact; /* 1: built by exact_probe_build; its records say path=literal (path=plain before
                * session 50: alpha and beta read at run time; path=exact before session 12: the
                * descriptor instance) */
    unsigned long long cold_bytes; /* the arena cold measurements rotate their operands through */
    char compile[4096];            /* built with compile 0: the command that compiles it */
} shape_probe;

/* The arena a cold measurement rotates A and B through (bench/cold.h): sized from the larger of the
 * table's last-level cache and, when the probes run on this host (no run prefix), the host's. */
unsigned long long shape_cold_bytes(const profile_opts *o, const tkt_table *t);

/* Generates and compiles the probe in the work folder's sub (one generic probe per sub); 0 with a
 * message on stderr when that fails. compile 0: all but the compile, whose command is left in
 * p->compile for probes_compile. */
int shape_probe_build(shape_probe *p, const profile_opts *o, const isa_desc *isa, const tkt_table *t,
                      const tkt_row *rows, int nrows, const char *sub, int compile);

/* A probe of one shape as users get it: a table of one exact-shape row per candidate (and the
 * catch-all), so each candidate runs as its exact-shape instance (docs/tables.md), which the
 * generic probe does not time; then shape_measure through it. 0 with a message when that fails.
 * compile 0: all but the compile, whose command is left in p->compile for probes_compile. */
int exact_probe_build(shape_probe *p, const profile_opts *o, const isa_desc *isa, const tkt_table *t,
                      const tkt_row *cands, int nc, unsigned long long m, unsigned long long n, unsigned long long k,
                      int compile);
/* 1 when tkgen takes table t as a build would (`tkgen check`: the rows, their cut rows, the select
 * tree); t is written to WORK/checked.tkt first and stays there, so a table tkgen refuses is kept
 * for the reader. A tuner writes no table that the build then stops on. */
int table_builds(const profile_opts *o, const isa_desc *isa, const tkt_table *t, char *path, size_t cap);
/* Replaces the table at `out` with t (write_table_atomically) once table_builds passes it; 0 with
 * a message in err otherwise (naming `chooser`, what chose t), `out` unchanged. The one way the
 * tuner writes a table. */
int table_replace(const profile_opts *o, const isa_desc *isa, const tkt_table *t, const char *out, const char *chooser,
                  char *err, size_t errcap);
/* Runs the compile commands of n probes built with compile 0, up to `jobs` at once; 0 with a message
 * when one fails. */
int probes_compile(shape_probe *const *ps, int n, int jobs);

/* The record-log key of one whole-shape measurement: the shape, then every decision in order. */
void full_key(const isa_desc *isa, const tkt_row *r, unsigned long long m, unsigned long long n,
              unsigned long long k, char *out, size_t cap);

/* GFLOP/s of configuration r on m x n x k in repetition `rep` (0, 1, ..): from the log when it is
 * there (resume), else measured in a child process with a time limit, checked against a
 * double-precision reference on sampled elements, and appended to the log. 0 when the candidate
 * crashed, hung or computed wrong values (recorded as such). *fresh is set when it ran now. cold:
 * each timed call takes A and B from the next slot of a p->cold_bytes arena (the record says
 * operands=cold), so the operands come from memory however small they are. */
double shape_measure(const shape_probe *p, const tkt_row *r, unsigned long long m, unsigned long long n,
                     unsigned long long k, int cold, int rep, int *fresh);
/* The record-log prior: reads the best rate of every measurement key of this CPU that the runs of
 * repetitions from_rep to to_rep - 1 recorded, quiet, by any code (a fingerprint change keeps the
 * prior); returns how many keys. shape_prior: that rate for configuration r on m x n x k as an
 * exact-shape probe (exact) or the generic one would run it, with its operands cold through a
 * cold_bytes arena (0: warm), -1 when no such run recorded it. */
int shape_prior_read(const profile_opts *o, int from_rep, int to_rep);
double shape_prior(const isa_desc *isa, int exact, const tkt_row *r, unsigned long long m, unsigned long long n,
                   unsigned long long k, unsigned long long cold_bytes);
/* A cold run reads the memory bandwidth around its timed calls and is run again while that was
 * under 0.8 x the usual (another machine's traffic on a shared host); shape_noisy() counts the cold
 * measurements, this run's and resumed ones, whose every run was so disturbed (record: quiet=no). */
int shape_noisy(void);
/* Runs configuration r once on m x n x k and checks the result exactly on sampled elements (no
 * timing; under the run prefix, e.g. qemu); a level=check record; 1 when it was right. */
int shape_check(const shape_probe *p, const tkt_row *r, unsigned long long m, unsigned long long n,
                unsigned long long k);

/* Shapes, one per line: "M N K" or "LABEL M N K" (../shared/bench/shapes.tsv works as it is), into
 * mnk[]; returns how many, or -1 after a file:line message. */
int read_shapes(const char *path, unsigned long long (*mnk)[3], int cap);

/* The row of table t that serves m x n x k: the first that matches, as the decision tree does.
 * unpinned: the row the shape had from the tuner, the first that holds it with pinned rows passed
 * over (else the first that holds it). A pinned row shadows the tuner's own row beneath it, and
 * retune_keep_pinned puts the pins back in front of the new rows; taken as a cell's previous row,
 * the pin's decisions were written into the row beneath on every retune that left the cell
 * unmeasured (1025.. x 129..256 x 33..256, sessions 59 and 60). */
const tkt_row *table_match(const tkt_table *t, unsigned long long m, unsigned long long n, unsigned long long k,
                           int unpinned);
/* 1 for a row the table pins (evidence "pinned"), which retunes keep as it is */
int row_pinned(const tkt_row *r);
#endif
