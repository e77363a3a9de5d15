/* estimate.h - level 0 by static estimate for CPUs this machine cannot run (see estimate.c). */
#ifndef TK_TUNE_ESTIMATE_H
#define TK_TUNE_ESTIMATE_H
#include "profile.h"

/* How to build for and analyse an ISA's family from this x86 host. */
typedef struct {
    const char *triple, *mca_triple, *cc, *fma, *mattr, *comment;
} cross_tc;

/* 0 when the ISA's family has no known cross toolchain. */
int cross_toolchain(const isa_desc *isa, cross_tc *tc);

/* Estimates cands[] with llvm-mca-19 (the table's mca_cpu) and appends level=0 records with
 * evidence=estimated; returns how many were estimated. */
int estimate_level0(const profile_opts *o, const isa_desc *isa, const tkt_table *t, const cand_l0 *cands, int n,
                    const unsigned long long *kcs);
#endif
