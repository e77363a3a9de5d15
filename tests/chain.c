/* The CPUs of this build's chain, best first, as all.h lists them (chain.h). Each CPU's functions
 * come from its own unit (chain_cpu.c.in), so the two cores compile them side by side. */
#include "tk/gen/all.h"
#include "chain.h"
#include "tktest.h" /* TKI_CPU_SUPPORTS */

#define TKT_DECLARE(sym, token, isa) extern const tkt_cpu_fns tkt_fns_##sym;
TKI_GEN_CPUS(TKT_DECLARE)

#define TKT_ENTRY(sym, token, isa) {token, #isa, 0, &tkt_fns_##sym},
tkt_cpu tkt_chain[] = {TKI_GEN_CPUS(TKT_ENTRY)};
const size_t tkt_chain_len = sizeof tkt_chain / sizeof tkt_chain[0];

void tkt_chain_init(void)
{
#define TKT_ISA_RUNS(isa_, runs)                                                                   \
    for (size_t i = 0; i < tkt_chain_len; i++)                                                     \
        if (!strcmp(tkt_chain[i].isa, #isa_)) tkt_chain[i].runnable = (runs);
    TKI_GEN_ISAS(TKT_ISA_RUNS)
}
