/* machine.h - measured figures of the host for the model (see machine.c). */
#ifndef TK_TUNE_MACHINE_H
#define TK_TUNE_MACHINE_H
#include <stddef.h>

#include "candidates.h"
/* Median streaming-read bandwidth in bytes/s over a working set of `bytes`, `reps` repetitions. */
double measure_read_bw(size_t bytes, int reps);
/* Median nanoseconds of one dependent load out of a working set of `bytes` (a random pointer chase). */
double measure_latency(size_t bytes, int reps);
/* The bytes per load of the bandwidth sweep (the host's widest vector; the sweep= field of op=machine). */
int machine_sweep_bytes(void);
/* The time of a 256-bit FMA against a 512-bit one at full issue rate (median ratio of 7 paired runs; 0.5
 * on a core that splits 512-bit FMAs in two, about 1 where they are native; 1 without AVX-512). */
double measure_half_cost(void);
/* Measures the bandwidths and latencies of the CPU's cache levels and DRAM (sizes from its table) into one
 * op=machine record line, appended to `log` when it is not NULL; 0 when that fails. */
int machine_record(const char *cpu, const cand_caps *k, const char *log, char *line, size_t cap);
/* The host processor's name as the OS reports it (/proc/cpuinfo: "model name", else "CPU part"),
 * with family and model where given, for a table's provenance; "an unnamed processor" when none. */
void machine_cpu_name(char *buf, size_t cap);
/* The same as one word (blanks as '_'), for the host= field of op=machine records: a CPU's record
 * log travels with its table to other hosts (the zen5 log from an Intel Xeon to a Zen 5, whose
 * DRAM read 39 GB/s against the Xeon's 9.3), and a host's bandwidths serve that host only. */
void machine_host(char *buf, size_t cap);
#endif
