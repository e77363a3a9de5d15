/* model.h - the Helix analytical model (paper eqs. 1-8) for tk's blocked GEMM on one CPU: level 0
 * is the profiled microkernel, the levels above it are modelled from capacities, bandwidths and
 * latencies, so any (m, n, k, configuration) gets a predicted time without running it. */
#ifndef TK_TUNE_MODEL_H
#define TK_TUNE_MODEL_H

typedef struct {
    double l1_bytes, l2_bytes, l3_bytes;     /* capacities (eq. 1) */
    double bw_l2, bw_l3, bw_dram;            /* sustained read bandwidth, bytes/s (eq. 2) */
    double lat_l2, lat_l3, lat_dram;         /* fixed access latency, seconds (eq. 2) */
    double launch;                           /* fixed cost of one call, seconds (eq. 8) */
    unsigned cores;                          /* parallel units at the thread level (eq. 6) */
    double call;                             /* fixed cost of one microkernel call, seconds (0: none) */
    double pack_bw;                          /* bytes/s the core copies into packed panels (0: free) */
    double streams;                          /* access streams the prefetchers follow at full rate, from memory (0: any) */
    double streams_l3;                       /* ... and from the L3 (0: any; fitted apart, a Zen's L3 answers soon enough
                                              * without them, a server mesh's does not) */
    double half;                             /* an FMA on a half-width vector against a full one, in time (measured:
                                              * 0.5 where 256-bit FMAs issue twice as fast as 512-bit; 0: the same) */
    double crowd_bytes;                      /* cache a panel of B read in place may fill where its rows crowd a
                                              * few sets (tki_b_rows_fit: the table's b_crowd_bytes; 0: half the L2) */
} model_machine;

typedef struct {
    unsigned mr, nr;                         /* register tile, NR in floats */
    unsigned long long kc, mc, nc;           /* cache blocks */
    double ukr_gflops;                       /* level-0 profile: GFLOP/s of the microkernel */
    int pack_a, pack_b;                      /* 1 when that operand is copied into a panel */
    unsigned threads;                        /* ways of the work partition */
    char split;                              /* 'm' or 'n' */
    unsigned narrow;                         /* a ragged column tile costs its columns rounded up to this many
                                              * (the vector, where kernels narrow; 0: the whole tile) */
    unsigned pf;                             /* B rows the kernel prefetches ahead (read in place; 0: none), or
                                              * TKT_PF_ALONG | L: L lines further along the rows it reads */
    int cold;                                /* the operands come from memory at every call, whatever their
                                              * size (a weight matrix streamed once per call, bench/cold.h) */
    unsigned half_nv;                        /* a ragged tile that needs at most this many vectors runs its last one at
                                              * half width when it holds at most narrow / 2 columns (0: never) */
} model_config;

/* 0 when the configuration breaks a capacity (eq. 1), else 1. */
int model_fits(const model_machine *h, const model_config *c);
/* Predicted seconds for an m x n x k product (eqs. 2-8); a configuration that does not fit costs
 * +infinity. */
double model_time(const model_machine *h, const model_config *c, double m, double n, double k);
#endif
