/* evaluate.h - the model and a table against an oracle on a list of shapes (see evaluate.c). */
#ifndef TK_TUNE_EVALUATE_H
#define TK_TUNE_EVALUATE_H
#include "profile.h"

/* the most paired rounds evaluate_run takes (an odd count: each score is one median; 5 unless
 * --rounds says) */
#define EVALUATE_MAX_ROUNDS 9

/* Measures, for every shape of the list, the oracle space, the model's pick and table t's row;
 * prints the ratios and writes them to <work>/evaluate.txt. Shapes the bench times cold
 * (bench/cold.h) are measured cold, unless warm. The sweep's best and the picks are measured again
 * in `rounds` paired rounds (odd, 1 to EVALUATE_MAX_ROUNDS). Returns the process exit status. */
int evaluate_run(const profile_opts *po, const char *shapes, const isa_desc *isa, const tkt_table *t,
                 const cand_caps *k, int warm, int rounds);
/* Appends the whole-shape records of `cpu` in `records` (an evaluate run's evaluate.records) to the
 * record log, each marked sweep=oracle: the calibration then fits the model's constants to those
 * groups too, whatever code they ran (calibrate.c). Every line must be such a record not yet
 * marked, or nothing is appended (`file:line: what is wrong`). Holds the log's lock; returns the
 * process exit status. */
int evaluate_keep(const char *records, const char *log, const char *cpu);
#endif
