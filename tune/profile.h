/* profile.h - level-0 profiling of candidate microkernels (see profile.c). */
#ifndef TK_TUNE_PROFILE_H
#define TK_TUNE_PROFILE_H
#include "candidates.h"

typedef struct {
    const char *cpu, *log, *work, *tkgen, *cc;
    double timeout_s;
    int progress;
} profile_opts;

/* The record-log key of a level-0 measurement: every decision, in order. */
void cand_key(const isa_desc *isa, const cand_l0 *c, unsigned long long kc, char *out, size_t cap);
/* 1 when the log already holds a level-0 record of `key` for `cpu` (resume). */
int log_has(const char *log, const char *cpu, const char *key);
/* Measures cands[i] at depth kcs[i] (skipping those already logged); returns how many ran. */
int profile_level0(const profile_opts *o, const isa_desc *isa, const cand_l0 *cands, int n,
                   const unsigned long long *kcs);
#endif
