/* The CPUs of this build's chain, best first, as all.h lists them (chain.h). Each CPU's functions
 * come from its own unit (chain_cpu.c.in), so the two cores compile them side by side. */
#include "tk/gen/all.h"
#include "chain.h"
#include "tktest.h" /* TKI_CPU_SUPPORTS */

#define TKT_DECLARE(sym, token, isa) extern const tkt_cpu_fns tkt_fns_##sym;
TKI_GEN_CPUS(TKT_DECLARE)

/* whether this machine runs an ISA, as all.h says */
#define TKT_RUNS(isa, runnable) static TKI_UNUSED int runs_##isa(void) { return (runnable); }
TKI_GEN_ISAS(TKT_RUNS)

#define TKT_ENTRY(sym, token, isa) {token, #isa, runs_##isa, &tkt_fns_##sym},
const tkt_cpu tkt_chain[] = {TKI_GEN_CPUS(TKT_ENTRY)};
const size_t tkt_chain_len = sizeof tkt_chain / sizeof tkt_chain[0];
