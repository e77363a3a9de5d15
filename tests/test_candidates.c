/* The tuner's candidate space (tune/candidates.c): for every CPU of the registry, every candidate
 * of every level fits that level (register file, L1 micro-panels, L2 A block, L3 B block, integer
 * multiples of the level below), and the checker itself rejects candidates that do not. */
#include "../tune/candidates.h"
#include "tktest.h"

int main(int argc, char **argv)
{
    static project p;
    static tkt_table t;
    static cand_l0 l0[8192];
    if (argc != 2) {
        fprintf(stderr, "usage: test_candidates ROOT\n");
        return 2;
    }
    g_root = argv[1];
    tkt_init();
    load_project(&p);
    for (int r = 0; r < p.reg.n; r++) {
        const reg_row *c = &p.reg.rows[r];
        const isa_desc *isa = load_isa(&p, c->isa, p.reg.path, c->line);
        unsigned long before = tkt_pass + tkt_fail;
        TKT_CHECK(isa && load_table(&p, c, &t), "%s: cannot load", c->cpu);
        if (!isa) continue;
        cand_caps k = cand_caps_of(isa, &t);
        int n0 = cand_level0(isa, l0, 8192);
        TKT_CHECK(n0 > 0 && n0 <= 8192, "%s: %d level-0 candidates", c->cpu, n0);
        for (int i = 0; i < n0 && i < 8192; i++) {
            unsigned long long kcs[64], mcs[64], ncs[64];
            int a = cand_kc(&l0[i], &k, kcs, 64);
            for (int j = 0; j < a && j < 64; j++) {
                int b = cand_mc(&l0[i], kcs[j], &k, mcs, 64), d = cand_nc(&l0[i], kcs[j], &k, ncs, 64);
                for (int x = 0; x < b && x < 64; x++)
                    for (int y = 0; y < d && y < 64; y++)
                        TKT_CHECK(cand_fits(isa, &l0[i], kcs[j], mcs[x], ncs[y], &k),
                                  "%s: %ux%u ku%u kc%llu mc%llu nc%llu does not fit", c->cpu, l0[i].mr,
                                  l0[i].nv, l0[i].ku, kcs[j], mcs[x], ncs[y]);
            }
            /* one step past each level must be refused */
            if (a > 0) {
                unsigned long long kc = kcs[a - 1], nr = l0[i].nv * k.lanes_per_vector;
                TKT_CHECK(!cand_fits(isa, &l0[i], kc * 2, l0[i].mr, nr, &k) ||
                              (l0[i].mr * kc * 8 <= k.l1 && kc * nr * 8 <= k.l2 / 4),
                          "%s: a kc past L1 was accepted", c->cpu);
                TKT_CHECK(!cand_fits(isa, &l0[i], kc, l0[i].mr + 1, nr, &k) || l0[i].mr == 1,
                          "%s: mc not a multiple of MR was accepted", c->cpu);
            }
        }
        {
            cand_l0 big = {64, 8, 4, 0};
            TKT_CHECK(!cand_fits(isa, &big, 16, 64, 8 * k.lanes_per_vector, &k),
                      "%s: a 64x8-vector tile was accepted", c->cpu);
        }
        printf("cpu %s: %d level-0 candidates, %lu checks\n", c->cpu, n0, tkt_pass + tkt_fail - before);
    }
    return tkt_finish("test_candidates");
}
