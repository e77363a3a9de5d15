/* measure.h - measuring whole configurations on whole shapes (see measure.c). */
#ifndef TK_TUNE_MEASURE_H
#define TK_TUNE_MEASURE_H
#include "profile.h"

/* One probe binary for a CPU: the framework header generated for its table, with every tile of
 * `rows` (and of the table) instantiated, so any of those configurations can run on any shape. */
typedef struct {
    const profile_opts *o;
    const isa_desc *isa;
    const tkt_table *t;
    char bin[1100];
} shape_probe;

/* Generates and compiles the probe; 0 with a message on stderr when that fails. */
int shape_probe_build(shape_probe *p, const profile_opts *o, const isa_desc *isa, const tkt_table *t,
                      const tkt_row *rows, int nrows);

/* The record-log key of one whole-shape measurement: the shape, then every decision in order. */
void full_key(const isa_desc *isa, const tkt_row *r, unsigned long long m, unsigned long long n,
              unsigned long long k, char *out, size_t cap);

/* GFLOP/s of configuration r on m x n x k: from the log when it is there (resume), else measured
 * in a child process with a time limit, checked against a double-precision reference on sampled
 * elements, and appended to the log. 0 when the candidate crashed, hung or computed wrong values
 * (recorded as such). *fresh is set when it ran now. */
double shape_measure(const shape_probe *p, const tkt_row *r, unsigned long long m, unsigned long long n,
                     unsigned long long k, int *fresh);
#endif
