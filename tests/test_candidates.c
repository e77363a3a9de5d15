/* The tuner's candidate space (tune/candidates.c): for every CPU of the registry, every candidate
 * of every level fits that level (register file, L1 micro-panels, L2 A block, L3 B block, integer
 * multiples of the level below), and the checker itself rejects candidates that do not; level 0
 * measures each tile it plans at every unroll, and the model ranks a tile at the unroll that ran
 * fastest (the unroll of 4 unless another ran 2% faster). */
#include "../tune/buckets.h"
#include "../tune/profile.h"
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
        /* level 0 as the tuner plans it: the budget's tiles, each at every unroll the space holds
         * for it (the unroll is a level-0 decision), each measured at a depth that fits level 1 */
        {
            static cand_l0 pick[8192];
            static unsigned long long kcs[8192];
            static measured_l0 ml[8192];
            const int budget = 6;
            int np = level0_plan(l0, n0, &k, budget, 512, pick, kcs), tiles = 0;
            for (int i = 0; i < np; i++) {
                int same = 0, first = 1;
                for (int j = 0; j < np; j++)
                    if (pick[j].mr == pick[i].mr && pick[j].nv == pick[i].nv && pick[j].direct == pick[i].direct) {
                        same++;
                        TKT_CHECK(j == i || pick[j].ku != pick[i].ku, "%s: %ux%u ku%u planned twice", c->cpu, pick[i].mr,
                                  pick[i].nv, pick[i].ku);
                        if (j < i) first = 0;
                    }
                tiles += first;
                TKT_CHECK(same == 4, "%s: %ux%u %s at %d unrolls, not 4", c->cpu, pick[i].mr, pick[i].nv,
                          pick[i].direct ? "direct" : "packed", same);
                TKT_CHECK(kcs[i] % pick[i].ku == 0 && cand_fits(isa, &pick[i], kcs[i], pick[i].mr, pick[i].nv * k.lanes_per_vector, &k),
                          "%s: %ux%u ku%u measured at kc %llu, which does not fit", c->cpu, pick[i].mr, pick[i].nv, pick[i].ku, kcs[i]);
            }
            TKT_CHECK(tiles == budget && np == 4 * budget, "%s: %d tiles in %d kernels for a budget of %d", c->cpu, tiles, np, budget);
            /* the model ranks a tile at the unroll that ran fastest; the unroll of 4 unless another
             * ran 2% faster: the first tile's unroll of 1 runs 1.5% faster (4 kept), the second's
             * unroll of 8 3% faster (8 taken); the others run fastest at 4 */
            for (int i = 0; i < np; i++) {
                const int t = i < budget ? i : (i - budget) / 3;
                ml[i].c = pick[i], ml[i].kc = kcs[i];
                ml[i].gflops = pick[i].ku == 4 ? 100.0 : t == 0 && pick[i].ku == 1 ? 101.5 : t == 1 && pick[i].ku == 8 ? 103.0 : 90.0;
            }
            model_machine h = {(double)k.l1, (double)k.l2, (double)k.l3, 70e9, 50e9, 28e9, 5e-9, 20e-9, 90e-9, 50e-9, 2, 0.5e-9, 5e10, 0, 0, 0,
                               (double)k.crowd};
            tkt_row best[64];
            const double ks = 256;
            int nb = model_best(isa, &k, &h, ml, np, 300, 300, &ks, 1, 0, best, 64);
            TKT_CHECK(nb == budget, "%s: model_best ranked %d configurations of %d tiles", c->cpu, nb, budget);
            for (int i = 0; i < nb; i++) {
                const unsigned nv = isa->vla ? best[i].nr : best[i].nr / isa->lanes;
                unsigned want = 4;
                for (int j = 0; j < nb; j++)
                    TKT_CHECK(j == i || best[j].mr != best[i].mr || best[j].nr != best[i].nr || best[j].packa != best[i].packa,
                              "%s: %ux%u ranked twice", c->cpu, best[i].mr, best[i].nr);
                if (best[i].mr == pick[1].mr && nv == pick[1].nv && (best[i].packa == 0) == (pick[1].direct != 0)) want = 8;
                TKT_CHECK(best[i].ku == want, "%s: %ux%u ranked at ku %u, not %u", c->cpu, best[i].mr, best[i].nr, best[i].ku, want);
            }
        }
        printf("cpu %s: %d level-0 candidates, %lu checks\n", c->cpu, n0, tkt_pass + tkt_fail - before);
    }
    return tkt_finish("test_candidates");
}
