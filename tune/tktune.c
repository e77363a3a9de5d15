/* tktune - the offline tuner (issue 3). Built so far: the Helix-style candidate space.
 *
 *   tktune candidates --root DIR --cpu CPU [--list]
 *       print how many candidates each level of the search space has for that CPU (a dry run);
 *       --list prints every level-0 candidate with its level-1..3 choices.
 *
 * Measuring, the model, buckets, the record log and table writing are not built yet, so there is
 * no `make retune`: see docs/tuner.md. */
#include "candidates.h"

#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr, "usage: tktune candidates --root DIR --cpu CPU [--list]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *cpu = NULL;
    int list = 0;
    if (argc < 2 || strcmp(argv[1], "candidates")) usage();
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) g_root = argv[++i];
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = argv[++i];
        else if (!strcmp(argv[i], "--list")) list = 1;
        else usage();
    }
    if (!cpu) usage();
    static project p;
    static tkt_table t;
    load_project(&p);
    const reg_row *c = reg_find(&p.reg, cpu);
    if (!c) die("CPU '%s' is not in the registry", cpu);
    if (!load_table(&p, c, &t)) return 1;
    const isa_desc *isa = load_isa(&p, c->isa, p.reg.path, c->line);
    if (!isa) return 1;
    cand_caps k = cand_caps_of(isa, &t);
    static cand_l0 l0[8192];
    int n0 = cand_level0(isa, l0, 8192);
    if (n0 > 8192) die("level 0 has %d candidates, more than this build can hold", n0);
    unsigned long long n1 = 0, n2 = 0, n3 = 0;
    for (int i = 0; i < n0; i++) {
        unsigned long long kcs[64], mcs[64], ncs[64];
        int a = cand_kc(&l0[i], &k, kcs, 64);
        if (list)
            printf("%ux%u%s ku%u %s:", l0[i].mr, l0[i].nv, isa->vla ? "v" : "vec", l0[i].ku,
                   l0[i].direct ? "direct" : "packed");
        for (int j = 0; j < a && j < 64; j++) {
            int b = cand_mc(&l0[i], kcs[j], &k, mcs, 64), d = cand_nc(&l0[i], kcs[j], &k, ncs, 64);
            n1++;
            n2 += (unsigned long long)b;
            n3 += (unsigned long long)b * (unsigned long long)d;
            if (list) printf(" kc%llu(mc x%d, nc x%d)", kcs[j], b, d);
        }
        if (list) printf("\n");
    }
    unsigned long long threads = 2ull * (k.cores ? k.cores : 1);
    printf("cpu %s (%s, %llu f32 lanes per vector): L1 %llu B, L2 %llu B, L3 %llu B, %u cores\n", cpu, isa->name,
           k.lanes_per_vector, k.l1, k.l2, k.l3, k.cores);
    printf("level 0  register tile x k unroll x form   %d\n", n0);
    printf("level 1  + kc (micro-panels fit L1)         %llu\n", n1);
    printf("level 2  + mc (packed A fits L2/2)          %llu\n", n2);
    printf("level 3  + nc (packed B fits L3/2)          %llu\n", n3);
    printf("threads  x split m|n x 1..%u ways           %llu\n", k.cores, n3 * threads);
    return 0;
}
