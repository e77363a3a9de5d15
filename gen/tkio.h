/* tkio.h - reading tk's descriptors, registry and tuning tables, shared by the generator (tkgen) and
 * the tuner (tune/): one parser, so both always agree on what a file means. Every malformed line is
 * reported as `file:line: message` through err_at, which counts into n_errors. */
#ifndef TK_TKIO_H
#define TK_TKIO_H
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>

#define MAXTOK 64
/* rows of a table as the generator instantiates it (cut rows included): spr's 389 rows came to
 * nearly 448 once cut, and a retune that measured 4744 configurations in its default budget
 * (session 84) chose 393 rows that no longer fit, so the run stopped without a table */
#define MAXROWS 1024
#define MAXCPU 64
#define MAXISA 16
#define TK_SIZE_INF ((unsigned long long)-1)
#define TKT_MAX_NOTES 16 /* `note` lines a table holds (four are a retune's own, the rest pinned rows' reasons and hand edits') */
#define TKT_DOT 2 /* tkt_row.packa of a dot-form row */
/* tkt_row.pf of a kernel that prefetches B along the row it reads, L lines (1..64) ahead, into L2: the
 * table writes it nL, where a plain number is B rows ahead of the k step, into L1. Where a several-row
 * tile streams B from memory column tile by column tile, its rows are kc separate streams, more than
 * the hardware prefetchers follow; fetching each row a few tiles ahead keeps them all going
 * (docs/microkernel.md, "Prefetching B"). */
#define TKT_PF_ALONG 256u

extern int n_errors;        /* errors reported so far */
extern const char *g_root;  /* the source tree: arch/, tuning_tables/, templates/, gen/ */

typedef struct {
    const char *path;
    FILE *f;
    int line;
    char buf[4096];
    char *tok[MAXTOK];
    int ntok;
    char *rest; /* text after the first token, for free-text keys */
} reader;

typedef struct {
    char path[512];
    char name[32], family[32], predication[16];
    unsigned vector_bits, vregs, lanes;
    int vla;
    char target_attr[256], cflags[256], require_macro[64], host_feature[64], emulator[256],
        template_path[256];
    char a_regs[8]; /* registers holding A per k step: one (a broadcast), lanes (MR/lanes vectors), none */
    int direct; /* the template also provides the direct form (A and B read in place) */
    int narrow; /* its kernels compute a ragged column tile with only the vectors it needs (tuner's model) */
    int prefetch; /* its kernels take a B prefetch distance (the table's pf column; 0 elsewhere) */
    int dot;      /* the template also provides the dot form (vectors along k; table rows `packa dot`) */
    unsigned half; /* kernels of up to this many vectors run the last vector of a ragged tile at half width when
                   * it holds at most half its lanes (tuner's model; 0: never) */
} isa_desc;

typedef struct {
    char cpu[32], family[32], isa[32], fallback[32], match[256];
    int line;
} reg_row;

typedef struct {
    char path[512];
    reg_row rows[MAXCPU];
    int n;
} registry;

typedef struct {
    unsigned long long lo, hi;
} range;

typedef struct {
    range m, n, k;
    unsigned mr, nr, ku;            /* nr: lanes for fixed-width ISAs, vectors for VLA (nr_v) */
    unsigned pf;                    /* how the kernel prefetches B: 0 not at all; 1..64 that many rows ahead of
                                     * its k step; TKT_PF_ALONG | L further along the row it reads
                                     * (tkt_pf_parse) */
    unsigned long long mc, nc, kc;  /* nc in the same unit as nr */
    int packb;                      /* 0 no, 1 yes */
    int packa;                      /* 0: A read in place by the direct kernel form; 1 packed; TKT_DOT:
                                     * the dot form (vectors along k), nr then counts columns */
    char split;                     /* partition cut: m or n */
    char order;                     /* inner loop order: m (A panel kept in L1) or n (B panel kept) */
    char evidence[16];
    int line;
} tkt_row;

typedef struct {
    char path[512];
    char cpu[32], isa[32], source[16], tuner[256], date[32], compiler[256];
    char mca_cpu[64];   /* optional: the llvm-mca -mcpu whose scheduling model estimates this CPU */
    char qemu_cpu[128]; /* optional: qemu's -cpu value that emulates it (its ISA and vector length) */
    char notes[TKT_MAX_NOTES][160];
    int nnotes;
    unsigned long long l1d, l2, l3, vlen_bits, cores;
    unsigned long long crowd; /* optional b_crowd_bytes (0: not given; tkt_crowd_bytes) */
    double peak_gflops, dram_gbs;
    tkt_row rows[MAXROWS];
    int n;
    uint32_t hash;
} tkt_table;

typedef struct {
    registry reg;
    isa_desc isas[MAXISA];
    int nisa;
} project;

void err_at(const char *file, int line, const char *fmt, ...);
void die(const char *fmt, ...);
int reader_open(reader *r, const char *path);
int reader_next(reader *r);
int parse_uint(const char *s, unsigned long long *out);
/* a pf token of a table or record: 0..64 (rows ahead) or nL (L 1..64 lines along the row); 1 when valid */
int tkt_pf_parse(const char *s, unsigned *pf);
/* the token of pf, into buf (at least 8 chars); returns buf */
char *tkt_pf_text(unsigned pf, char *buf);
int parse_isa(const char *path, isa_desc *d);
int parse_registry(const char *path, registry *g);
const reg_row *reg_find(const registry *g, const char *cpu);
int parse_range(const char *s, range *out);
/* A range as tables write it: N, LO..HI, LO..* or *. */
void range_text(const range *r, char *b, size_t cap);
unsigned tile_vregs(const isa_desc *isa, unsigned mr, unsigned nv);
int parse_tile(const char *s, const isa_desc *isa, unsigned *mr, unsigned *nr, char *why,
                      size_t whycap);
int parse_dot_tile(const char *s, const isa_desc *isa, unsigned *mr, unsigned *nb, char *why, size_t whycap);
uint32_t fnv1a_file(const char *path);
int parse_table(const char *path, const isa_desc *isa, tkt_table *t);
/* A row that matches one shape only: it gets that shape's own compiled instance of the driver. */
int tkt_row_is_exact(const tkt_row *w);
/* Bytes of cache a panel of B read in place may fill when its rows crowd a few sets (tki_b_rows_fit):
 * the table's b_crowd_bytes, or half its l2_bytes (0 without an L2). */
unsigned long long tkt_crowd_bytes(const tkt_table *t);
/* Cuts the direct range rows of t whose m range starts below their MR into rows of exactly m rows, as
 * the generator instantiates a table (docs/microkernel.md, "Tiles of exactly m rows"); 0 (with
 * file:line) when they no longer fit MAXROWS. */
int tkt_short_rows(const isa_desc *d, tkt_table *t);
/* 1 when m x n x k lies in the row's ranges. */
int tkt_row_has(const tkt_row *w, unsigned long long m, unsigned long long n, unsigned long long k);
const isa_desc *load_isa(project *p, const char *name, const char *where, int line);
void load_project(project *p);
/* From now on, read CPU `cpu`'s table from `path` instead of tuning_tables/ (e.g. a previous
 * version of it, to compare against). */
void set_table_override(const char *cpu, const char *path);
void table_path(const reg_row *c, char *out, size_t cap);
int load_table(project *p, const reg_row *c, tkt_table *t);
int host_matches(const char *match);
/* Where host_matches reads the host's cpuinfo (default /proc/cpuinfo): tests name a saved one. */
void set_cpuinfo_path(const char *path);
void validate_match(const registry *g);
/* Writes t in the canonical .tkt form (parse_table reads it back identically); 0 on a write error. */
int write_table(FILE *f, const tkt_table *t, const isa_desc *isa);
/* The C identifier suffix of a CPU name in generated code (x86-64-v3 -> x86_64_v3). */
void cpu_symbol(const char *cpu, char *out, size_t cap);

#endif
