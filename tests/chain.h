/* chain.h - every CPU table of this build, as the end-to-end tests call it. The kernels of each CPU
 * are compiled once per build, in a unit of their own (chain_cpu.c.in, one per CPU of the chain, and
 * chain.c, which lists them), and test_gemm, test_badinput and test_select link those objects:
 * compiling every kernel of the chain in each of the three tests took most of make test's build
 * time, most of all under the sanitizers (test_gemm.c 290 s, test_badinput.c 249 s, side by side,
 * with the 161 rows of the spr table). */
#ifndef TKT_CHAIN_H
#define TKT_CHAIN_H
#include "tk/internal.h"

typedef tk_status (*ex_fn)(const tk_gemm_desc *);
typedef size_t (*ws_fn)(const tk_gemm_desc *);
typedef tk_status (*plain_fn)(tk_trans, tk_trans, size_t, size_t, size_t, float, const float *, size_t,
                              const float *, size_t, float, float *, size_t);
typedef void (*part_fn)(const tki_gemm_cfg *, const tki_gemm_args *, size_t, size_t, float *, size_t);
typedef tk_status (*pick_fn)(const tki_gemm_cfg *, const tk_gemm_desc *, const tki_gemm_args *, float **, size_t *);
typedef size_t (*nr_fn)(const tki_gemm_cfg *);
typedef int (*shape_fn)(size_t, size_t, size_t);

/* one row of a table as the decision tree sees it: ranges of m, n, k (hi 0: unbounded) */
typedef struct {
    int id;
    size_t lo[3], hi[3];
} tkt_bucket;

/* what one CPU's unit exports (chain_cpu.c.in) */
typedef struct {
    ex_fn ex;
    plain_fn plain;
    ws_fn wsz;
    part_fn part;
    pick_fn pick;
    nr_fn nr;
    shape_fn select, select_general, exact_hashed;
    const tki_gemm_cfg *(*cfgs)(void); /* the table's configurations, in row order */
    size_t ncfgs;
    const tkt_bucket *rows; /* TKI_GEMM_F32_ROWS: the rows in the table's order */
    size_t nrows;
    const size_t *exact; /* the exact-shape rows' shapes, m n k each */
    size_t nexact;
} tkt_cpu_fns;

typedef struct {
    const char *name; /* the CPU's name in the registry */
    const char *isa;
    int (*runs)(void); /* 1 where this machine runs the ISA */
    const tkt_cpu_fns *f;
} tkt_cpu;

extern const tkt_cpu tkt_chain[];
extern const size_t tkt_chain_len;
#endif
