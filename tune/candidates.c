/* candidates.c - see candidates.h. */
#include "candidates.h"

#include <string.h>

#define MAX_KC 4096u
#define MAX_BLOCK 65536u

static const unsigned kus[] = {1, 2, 4, 8};

cand_caps cand_caps_of(const isa_desc *isa, const tkt_table *t)
{
    cand_caps k;
    k.lanes_per_vector = isa->vla ? t->vlen_bits / 32 : isa->lanes;
    k.l1 = t->l1d;
    k.l2 = t->l2;
    k.crowd = tkt_crowd_bytes(t);
    k.l3 = t->l3;
    k.cores = (unsigned)t->cores;
    k.narrow = isa->narrow ? (unsigned)k.lanes_per_vector : 0;
    k.half_nv = isa->narrow ? isa->half : 0;
    return k;
}

int cand_level0(const isa_desc *isa, cand_l0 *out, int cap)
{
    int n = 0;
    for (unsigned mr = 1; mr <= CAND_MAX_MR; mr++)
        for (unsigned nv = 1; nv <= CAND_MAX_NV; nv++) {
            if (tile_vregs(isa, mr, nv) > isa->vregs) continue;
            for (unsigned u = 0; u < sizeof kus / sizeof kus[0]; u++)
                for (int direct = 0; direct <= isa->direct; direct++) {
                    if (n < cap) {
                        out[n].mr = mr;
                        out[n].nv = nv;
                        out[n].ku = kus[u];
                        out[n].direct = direct;
                    }
                    n++;
                }
        }
    return n;
}

/* Level 1: kc is a multiple of the unroll, the A micro-panel (MR x kc) fits in L1 and the B
 * micro-panel (kc x NR) in a quarter of L2. The textbook rule (both micro-panels in L1 together)
 * excluded what measured fastest here: 14x32 at kc 512 streams its 64 KiB B micro-panel from L2
 * while the A micro-panel and the accumulators stay put. Candidates: 16 * 2^i and 24 * 2^i. */
static int level1_fits(unsigned mr, unsigned long long nr, unsigned long long kc, const cand_caps *k)
{
    return mr * kc * 4 <= k->l1 && kc * nr * 4 <= k->l2 / 4;
}

int cand_kc(const cand_l0 *c, const cand_caps *k, unsigned long long *out, int cap)
{
    unsigned long long nr = (unsigned long long)c->nv * k->lanes_per_vector;
    int n = 0;
    for (unsigned long long base = 16; base <= 24; base += 8)
        for (unsigned long long kc = base; kc <= MAX_KC; kc *= 2) {
            if (kc % c->ku || !level1_fits(c->mr, nr, kc, k)) continue;
            if (n < cap) out[n] = kc;
            n++;
        }
    /* ascending order for the caller */
    for (int i = 1; i < n && i < cap; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            unsigned long long t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Level 2: mc is a multiple of MR and the packed A block (mc x kc) fits in half of L2. */
int cand_mc(const cand_l0 *c, unsigned long long kc, const cand_caps *k, unsigned long long *out, int cap)
{
    int n = 0;
    for (unsigned long long mul = 1; c->mr * mul <= MAX_BLOCK; mul *= 2) {
        unsigned long long mc = c->mr * mul;
        if (mc * kc * 4 > k->l2 / 2) break;
        if (n < cap) out[n] = mc;
        n++;
    }
    return n;
}

/* Level 3: nc is a multiple of NR and the packed B block (kc x nc) fits in half of L3. */
int cand_nc(const cand_l0 *c, unsigned long long kc, const cand_caps *k, unsigned long long *out, int cap)
{
    unsigned long long nr = (unsigned long long)c->nv * k->lanes_per_vector;
    int n = 0;
    for (unsigned long long mul = 1; nr * mul <= MAX_BLOCK; mul *= 2) {
        unsigned long long nc = nr * mul;
        if (kc * nc * 4 > k->l3 / 2) break;
        if (n < cap) out[n] = nc;
        n++;
    }
    return n;
}

int cand_fits(const isa_desc *isa, const cand_l0 *c, unsigned long long kc, unsigned long long mc,
              unsigned long long nc, const cand_caps *k)
{
    unsigned long long nr = (unsigned long long)c->nv * k->lanes_per_vector;
    return tile_vregs(isa, c->mr, c->nv) <= isa->vregs && (!c->direct || isa->direct) && kc % c->ku == 0 &&
           level1_fits(c->mr, nr, kc, k) && mc % c->mr == 0 && mc * kc * 4 <= k->l2 / 2 && nc % nr == 0 &&
           kc * nc * 4 <= k->l3 / 2;
}

int cand_same_tile(const cand_l0 *a, const cand_l0 *b)
{
    return a->mr == b->mr && a->nv == b->nv && a->direct == b->direct;
}

int cand_same_kernel(const cand_l0 *a, const cand_l0 *b)
{
    return cand_same_tile(a, b) && a->ku == b->ku;
}
