/* Table round trip (the tuner writes tables with gen/tkio.c's write_table): every committed table is
 * parsed, written, parsed again and compared field by field, and written a second time byte for byte
 * equal to the first. A table without the optional pf column reads as pf 0 and is written with it; the pf
 * tokens (rows ahead, nL along the row) read and write back alike. */
#include "../gen/tkio.h"
#include "tktest.h"

static int same_range(const range *a, const range *b) { return a->lo == b->lo && a->hi == b->hi; }

static int same_table(const tkt_table *a, const tkt_table *b)
{
    int ok = !strcmp(a->cpu, b->cpu) && !strcmp(a->isa, b->isa) && !strcmp(a->source, b->source) &&
             !strcmp(a->tuner, b->tuner) && !strcmp(a->date, b->date) && !strcmp(a->compiler, b->compiler) &&
             a->nnotes == b->nnotes && a->l1d == b->l1d && a->l2 == b->l2 && a->l3 == b->l3 && a->crowd == b->crowd &&
             a->vlen_bits == b->vlen_bits && a->cores == b->cores && a->peak_gflops == b->peak_gflops &&
             a->dram_gbs == b->dram_gbs && a->n == b->n;
    for (int i = 0; ok && i < a->nnotes; i++) ok = !strcmp(a->notes[i], b->notes[i]);
    for (int i = 0; ok && i < a->n; i++) {
        const tkt_row *x = &a->rows[i], *y = &b->rows[i];
        ok = same_range(&x->m, &y->m) && same_range(&x->n, &y->n) && same_range(&x->k, &y->k) && x->mr == y->mr &&
             x->nr == y->nr && x->ku == y->ku && x->pf == y->pf && x->mc == y->mc && x->nc == y->nc && x->kc == y->kc &&
             x->packb == y->packb && x->packa == y->packa && x->split == y->split && x->order == y->order &&
             !strcmp(x->evidence, y->evidence);
    }
    return ok;
}

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char buf[2][1 << 16];
    static int which;
    size_t n;
    char *b = buf[which ^= 1];
    if (!f) return NULL;
    n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    static project p;
    static tkt_table t1, t2;
    char path1[512], path2[512];
    if (argc != 3) {
        fprintf(stderr, "usage: test_tables ROOT WORKDIR\n");
        return 2;
    }
    g_root = argv[1];
    tkt_init();
    load_project(&p);
    for (int r = 0; r < p.reg.n; r++) {
        const reg_row *c = &p.reg.rows[r];
        const isa_desc *isa = load_isa(&p, c->isa, p.reg.path, c->line);
        FILE *f;
        if (!isa || !load_table(&p, c, &t1)) {
            TKT_CHECK(0, "%s: cannot load its table", c->cpu);
            continue;
        }
        snprintf(path1, sizeof path1, "%s/%s.1.tkt", argv[2], c->cpu);
        snprintf(path2, sizeof path2, "%s/%s.2.tkt", argv[2], c->cpu);
        f = fopen(path1, "w");
        TKT_CHECK(f && write_table(f, &t1, isa) && fclose(f) == 0, "%s: cannot write %s", c->cpu, path1);
        TKT_CHECK(parse_table(path1, isa, &t2), "%s: the written table does not parse", c->cpu);
        TKT_CHECK(same_table(&t1, &t2), "%s: the table read back differs from the one written", c->cpu);
        f = fopen(path2, "w");
        TKT_CHECK(f && write_table(f, &t2, isa) && fclose(f) == 0, "%s: cannot write %s", c->cpu, path2);
        {
            const char *a = slurp_file(path1), *b = slurp_file(path2);
            TKT_CHECK(a && b && !strcmp(a, b), "%s: second write differs from the first", c->cpu);
        }
        /* and the check can fail: a changed row is noticed */
        t2.rows[0].kc++;
        TKT_CHECK(!same_table(&t1, &t2), "%s: comparison missed a changed kc", c->cpu);
        t2.rows[0].kc--;
        t2.rows[0].pf ^= 1;
        TKT_CHECK(!same_table(&t1, &t2), "%s: comparison missed a changed pf", c->cpu);
        /* a row prefetching along the rows reads back as it was written, as nL */
        if (isa->prefetch) {
            t1.rows[0].pf = TKT_PF_ALONG | 32;
            f = fopen(path1, "w");
            TKT_CHECK(f && write_table(f, &t1, isa) && fclose(f) == 0, "%s: cannot write %s", c->cpu, path1);
            TKT_CHECK(parse_table(path1, isa, &t2) && same_table(&t1, &t2) && t2.rows[0].pf == (TKT_PF_ALONG | 32),
                      "%s: a row with pf n32 does not read back", c->cpu);
            const char *a = slurp_file(path1);
            TKT_CHECK(a && strstr(a, " n32 "), "%s: pf along the row is not written as n32", c->cpu);
        }
    }
    /* the pf tokens: rows ahead 0..64, along the row n1..n64, each written back as read */
    for (unsigned v = 0; v <= 64; v++)
        for (int along = 0; along < 2; along++) {
            char tok[8], back[8] = "";
            unsigned pf = 0, want = along ? TKT_PF_ALONG | v : v;
            snprintf(tok, sizeof tok, "%s%u", along ? "n" : "", v);
            if (along && !v) {
                TKT_CHECK(!tkt_pf_parse(tok, &pf), "pf %s parsed (no distance along the row)", tok);
                continue;
            }
            TKT_CHECK(tkt_pf_parse(tok, &pf) && pf == want && !strcmp(tkt_pf_text(pf, back), tok),
                      "pf %s: read %u, written %s", tok, pf, back);
        }
    {
        static const char *bad_pf[] = {"65", "n65", "n", "x3", "8n", "-1", ""};
        unsigned pf;
        for (size_t i = 0; i < sizeof bad_pf / sizeof bad_pf[0]; i++)
            TKT_CHECK(!tkt_pf_parse(bad_pf[i], &pf), "pf '%s' parsed", bad_pf[i]);
    }
    return tkt_finish("test_tables");
}
