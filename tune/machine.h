/* machine.h - measured figures of the host for the model (see machine.c). */
#ifndef TK_TUNE_MACHINE_H
#define TK_TUNE_MACHINE_H
#include <stddef.h>
/* Median streaming-read bandwidth in bytes/s over a working set of `bytes`, `reps` repetitions. */
double measure_read_bw(size_t bytes, int reps);
#endif
