/* tk/types.h - status codes, enums and the GEMM descriptor shared by every tk operator.
 * Hand-written, stable public API. C99; usable from C++ and CUDA host code. */
#ifndef TK_TYPES_H
#define TK_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every error leaves the output untouched; each kind of bad argument has its own value. */
typedef enum tk_status {
    TK_OK = 0,
    TK_ERR_NULL = -1,          /* a pointer that is needed is NULL */
    TK_ERR_TRANS = -2,         /* transa / transb is not TK_NO_TRANS or TK_TRANS */
    TK_ERR_LDA = -3,           /* lda smaller than the row length of op(A) as stored */
    TK_ERR_LDB = -4,
    TK_ERR_LDC = -5,
    TK_ERR_OVERFLOW = -6,      /* an extent (rows * ld) does not fit in size_t / the address space */
    TK_ERR_ALIAS = -7,         /* C overlaps A, B or the bias vector */
    TK_ERR_WORKSPACE = -8,     /* workspace given but smaller than tk_gemm_f32_workspace_size() */
    TK_ERR_PARTITION = -9,     /* nparts == 0 or part >= nparts */
    TK_ERR_EPILOGUE = -10,     /* unknown epilogue kind, or clamp with lo > hi / NaN bound */
    TK_ERR_ALIGNMENT = -11     /* workspace pointer not aligned to TK_WORKSPACE_ALIGN */
} tk_status;

typedef enum tk_trans { TK_NO_TRANS = 0, TK_TRANS = 1 } tk_trans;

/* Applied per element after C = alpha*op(A)op(B) + beta*C + bias[col]. */
typedef enum tk_epilogue {
    TK_EPI_NONE = 0,
    TK_EPI_RELU = 1,   /* max(x, 0) */
    TK_EPI_GELU = 2,   /* tanh approximation: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) */
    TK_EPI_SILU = 3,   /* x / (1 + exp(-x)) */
    TK_EPI_CLAMP = 4   /* min(max(x, clamp_lo), clamp_hi) */
} tk_epilogue;

#define TK_WORKSPACE_ALIGN 64

/* tk_gemm_f32_parts: the least work (2*m*n*k) worth a part of its own. Handing a part to another
 * thread costs a few microseconds in a typical pool; 2^16 flops is about half a microsecond here,
 * and measured on a 2-core x86 host two parts beat one from about 48^3 up. Define before including
 * tk to change it. */
#ifndef TK_GEMM_MIN_PART_FLOPS
#define TK_GEMM_MIN_PART_FLOPS 65536
#endif

/* The static per-thread buffer a call without desc.workspace packs into holds at most this many
 * bytes (docs/api.md, Memory). Thread-local storage is set up, zeroed, for every thread a program
 * starts, whether or not it calls tk, so the default keeps it near the L2's size: the loops narrow
 * their blocks of B to the buffer, which costs large products little (blocks of B that large live
 * in L3 anyway). It never goes below what the table's rows need with one panel of B. Define it
 * before including tk: larger for the table's widest blocks, smaller to spend less memory per
 * thread (a call whose smallest blocks do not fit then returns TK_ERR_WORKSPACE: pass a
 * workspace). */
#ifndef TK_STATIC_WORKSPACE_BYTES
#define TK_STATIC_WORKSPACE_BYTES (4u << 20)
#define TKI_STATIC_WORKSPACE_DEFAULT 1
#endif

/* Descriptor form of GEMM: everything tk_gemm_f32 takes, plus the extras. Row-major.
 * Zero-initialise it (tk_gemm_desc d = {0}, or memset) and set what you need. */
typedef struct tk_gemm_desc {
    tk_trans transa, transb;
    size_t m, n, k;
    float alpha;
    const float *a; size_t lda;
    const float *b; size_t ldb;
    float beta;
    float *c; size_t ldc;
    tk_epilogue epilogue;
    const float *bias;            /* n floats, added per column; NULL for none */
    float clamp_lo, clamp_hi;     /* used by TK_EPI_CLAMP */
    void *workspace;              /* NULL: tk uses its own static thread-local buffer */
    size_t workspace_size;        /* bytes available at workspace */
    size_t part, nparts;          /* compute part `part` of `nparts`; 0 of 0 or 0 of 1 = all */
} tk_gemm_desc;

#ifdef __cplusplus
}
#endif
#endif /* TK_TYPES_H */
