/* candidates.h - the tuner's search space, built bottom-up as in Helix (Algorithm 2): level 0 are the
 * register tiles and microkernel schedule variants the ISA allows; every higher level keeps only
 * integer multiples of the level below that fit that level's capacity (L1: the micro-panels, L2:
 * the packed A block, L3: the packed B block); last, the thread split. A candidate is the sequence of
 * these decisions, in that order (the record log writes them in the same order). */
#ifndef TK_TUNE_CANDIDATES_H
#define TK_TUNE_CANDIDATES_H
#include "../gen/tkio.h"

/* the largest register tile level 0 holds, in rows and vectors (the registers bound it sooner) */
#define CAND_MAX_MR 32
#define CAND_MAX_NV 8

typedef struct {
    unsigned mr, nv, ku; /* tile MR x NV vectors, k unroll */
    int direct;          /* 1: the direct form (A and B read in place), 0: packed */
} cand_l0;

typedef struct {
    unsigned long long lanes_per_vector; /* f32 lanes per vector for the CPU (VLA: from vlen_bits) */
    unsigned long long l1, l2, l3;       /* bytes */
    unsigned cores;
    unsigned narrow;                     /* a ragged column tile narrows to multiples of this many
                                          * columns (a vector; 0: the ISA's kernels do not narrow) */
    unsigned half_nv;                    /* a narrowed tile of at most this many vectors runs its last one at
                                          * half width when that holds at most narrow / 2 columns (0: never) */
    unsigned long long crowd;            /* tkt_crowd_bytes: the cache a panel of B read in place may fill where
                                          * its rows crowd a few sets */
} cand_caps;

/* Capacities of a table's CPU for this ISA. */
cand_caps cand_caps_of(const isa_desc *isa, const tkt_table *t);

/* Level 0: fills out[] (up to cap) and returns how many there are. */
int cand_level0(const isa_desc *isa, cand_l0 *out, int cap);

/* 1 when a and b are one register tile in one form (MR, NV, direct), whatever their unrolls */
int cand_same_tile(const cand_l0 *a, const cand_l0 *b);
/* 1 when a and b are one kernel: the same tile at the same unroll */
int cand_same_kernel(const cand_l0 *a, const cand_l0 *b);

/* Level 1..3 values for one level-0 candidate, each list ascending; return counts. */
int cand_kc(const cand_l0 *c, const cand_caps *k, unsigned long long *out, int cap);
int cand_mc(const cand_l0 *c, unsigned long long kc, const cand_caps *k, unsigned long long *out, int cap);
int cand_nc(const cand_l0 *c, unsigned long long kc, const cand_caps *k, unsigned long long *out, int cap);

/* The checks the levels promise, for tests: 1 when (c, kc, mc, nc) fits every level. */
int cand_fits(const isa_desc *isa, const cand_l0 *c, unsigned long long kc, unsigned long long mc,
              unsigned long long nc, const cand_caps *k);
#endif
