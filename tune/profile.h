/* profile.h - level-0 profiling of candidate microkernels (see profile.c). */
#ifndef TK_TUNE_PROFILE_H
#define TK_TUNE_PROFILE_H
#include "candidates.h"

typedef struct {
    const char *cpu, *log, *work, *tkgen, *cc;
    double timeout_s;
    int progress;
    const char *run_prefix; /* NULL: probes run here; else the command that runs them (qemu, a board) */
    const char *evidence;   /* what a record of a run says it is: NULL means "measured" */
    double sample_ms;       /* the time of each timed sample of a whole-shape probe; 0: the default, 4 ms */
} profile_opts;

/* Binds the record log to the code that measurements run: a fingerprint of the ISA's template,
 * the m4 helper library and the framework template (under g_root). Records written after it carry
 * `kernels=<fingerprint>`, and only records of the same code are reused on resume or fitted to:
 * records of earlier kernels describe other code (the ragged-tile kernels of 8fce2cd made the
 * model's fit to a log of both rank worse than to the new records alone). */
void records_bind_kernels(const isa_desc *isa);
/* Binds the fingerprint itself (tests: records of two codes in one log). */
void records_set_kernels(unsigned fingerprint);
/* "kernels=<fingerprint> " for a record line, or "" before records_bind_kernels. */
const char *records_kernels(void);
/* 1 when a record line is of `cpu`, by any code (the record-log prior of a retune reads those) */
int record_cpu(const char *line, const char *cpu);
/* 1 when a record line is of `cpu` and of the bound code (any code, before records_bind_kernels):
 * the one test every reader of measurements applies. */
int record_of(const char *line, const char *cpu);
/* qsort's comparison of doubles, ascending */
int cmp_double(const void *a, const void *b);
/* The record-log key of a level-0 measurement: every decision, in order. */
void cand_key(const isa_desc *isa, const cand_l0 *c, unsigned long long kc, char *out, size_t cap);
/* 0 for a level-0 record whose result cannot be used: measured by a probe that did not name the
 * kernel it timed (profile.c says why). */
int level0_trusted(const char *line);
/* 1 when the log already holds a level-0 record of `key` for `cpu` (resume). */
int log_has(const char *log, const char *cpu, const char *key);
/* Measures cands[i] at depth kcs[i] (skipping those already logged); returns how many ran. */
int profile_level0(const profile_opts *o, const isa_desc *isa, const cand_l0 *cands, int n,
                   const unsigned long long *kcs);
/* The start every probe source shares: includes, the generated `header`, now() and a qsort
 * comparison; with `lists`, the packed[], direct[], sweep[] and dot[] kernel lists of the ISA (naming a
 * kernel compiles it into the probe), each entry's kernel there only where want[] (C conditions on
 * mr, nv, ku and pf for the packed, direct and dot lists; NULL: every kernel) holds. */
void write_probe_prelude(FILE *f, const char *what, const char *header, const char *isa, int lists,
                         const char *const want[3]);
/* The command line probe_compile runs, in cmd. */
void probe_compile_cmd(const profile_opts *o, const isa_desc *isa, const char *gen_dir, const char *src, const char *bin,
                       char *cmd, size_t cap);
/* Compiles a probe source `src` into `bin` as make bench compiles tk (-O3, functions and loops
 * aligned to 64 bytes; the ISA's flags where its headers require them), with the generated headers
 * in `gen_dir`: one command line for every probe. Returns 1
 * on success; the command it ran is left in cmd (for the caller's error message). */
int probe_compile(const profile_opts *o, const isa_desc *isa, const char *gen_dir, const char *src, const char *bin,
                  char *cmd, size_t cap);
/* Which level-0 candidates a budget of `budget` tiles measures (each at every unroll l0 holds for
 * it), and at which depth (the largest level-1 kc not above want_kc that keeps both micro-panels in
 * L1): fills pick[] and kcs[], returns how many. */
int level0_plan(const cand_l0 *l0, int n0, const cand_caps *k, int budget, unsigned long long want_kc,
                cand_l0 *pick, unsigned long long *kcs);
/* The 1-minute load average (recorded with each measurement: the machine may be shared). */
double loadavg(void);
/* seconds on the monotonic clock */
double tune_now(void);

/* Runs argv, behind `prefix` (NULL or "": natively; else e.g. an emulator command, split at spaces),
 * with a time limit; the exit status as waitpid gives it, -1 on timeout, -2 when it could not
 * start. stdout goes to `out` (cap bytes). */
int run_limited(const char *prefix, char *const argv_in[], double timeout_s, char *out, size_t cap);
#endif
