/* calibrate.h - the model's machine: capacities from the table, bandwidths and latencies from the
 * log's machine record, and the constants the model cannot measure directly (the fixed costs of a
 * call and of a microkernel call, the core's packing rate, the prefetchers' streams) fitted to the log's whole-shape measurements
 * (see calibrate.c). */
#ifndef TK_TUNE_CALIBRATE_H
#define TK_TUNE_CALIBRATE_H
#include "buckets.h"

/* One whole-shape measurement of the log (level=full, through the blocked driver) whose kernel has
 * a level-0 profile; `group` numbers the measurements made side by side (one shape, one
 * repetition, in cache or cold). `gflops` is the mean of the group's readings of the same code
 * (same kernel, form and prefetch, blocks equal once cut to the shape: run_blocks), so that the
 * ranking is scored on rates, not on which of two equal configurations a noisy reading favoured. */
typedef struct {
    double m, n, k, gflops;
    model_config c;
    int group;
    int kernel; /* the level-0 profile the kernel was found at */
} calib_rec;

typedef struct {
    int records, groups;   /* what the fit used */
    double before, after;  /* calib_score with the default constants and with the fitted ones */
    int have_bw;           /* 1: bandwidths and latencies from the log's machine record (the latencies
                            * are then not fitted), 0: assumed from dram_gbs */
    model_machine base;    /* the machine with the default constants, before the fit */
    double held[2];        /* fold f (half the shapes) ranked by constants fitted to the other fold */
    double held_base[2];   /* ... and by the defaults */
    int overfit;           /* 1: in a fold the fitted constants ranked worse than the defaults (defaults kept) */
    int earlier;           /* 1: the current code had too few groups (CALIB_OWN_GROUPS) or no fit to them
                            * held, so the records of earlier code (other kernels= fingerprints) were read too */
} calib_info;

/* The level=full records of `cpu` in `log` that can be predicted (their kernel is among l0), as
 * model configurations with their measured GFLOP/s, a group's records side by side (calib_score
 * relies on it); returns the count (<= cap). any_kernels 0: only records of the current code (the
 * log's kernels= fingerprint); 1: of any code. */
int calib_read(const char *log, const char *cpu, const cand_caps *k, const measured_l0 *l0,
               int n0, calib_rec *out, int cap, int *groups, int any_kernels);
/* How well h ranks: over the groups of at least three measurements, the measured GFLOP/s of the
 * configuration the model ranks first divided by the group's best, averaged with each group weighed
 * by its alternatives (1: always right). */
double calib_score(const model_machine *h, const calib_rec *r, int n);
/* The model's machine for a CPU: capacities from k, bandwidths from the log (or the table's
 * dram_gbs), the other constants at their defaults, then fitted to the log's whole-shape
 * measurements when it has enough of them (at least 20 groups) and the fit holds on groups it was
 * not fitted to (two folds); `info` (may be NULL) says what was done. The measurements are those
 * of the current code, or of every code in the log while the current one has fewer than 100
 * groups (right after a template change) or no fit to them holds: the constants describe the
 * machine more than the code, and the defaults had ranked the held-out shapes worse than any fit
 * (0.632 against 0.759). */
model_machine calib_machine(const char *log, const char *cpu, const tkt_table *t,
                            const cand_caps *k, const measured_l0 *l0, int n0, calib_info *info);
/* One line for reports: the constants and how well each model ranked the log's groups; returns buf. */
const char *calib_describe(const model_machine *h, const calib_info *info, char *buf, size_t cap);
#endif
