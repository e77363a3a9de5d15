/* End to end, for every CPU table of this build whose ISA this machine runs: random shapes, strides,
 * transposes, alpha/beta, epilogues and partitions against the naive reference (tk/ref.h), with a
 * tolerance derived from the arithmetic; exact checks on small-integer inputs; bitwise equality
 * across partitions and workspaces; BLAS corner cases (k = 0, alpha = 0, beta = 0 with NaN in C). */
#include "chain.h"
#include "tk/ref.h"
#include "tktest.h"

static void fill_operands(tk_gemm_desc *d, float *a, float *b, float *c, float *bias, int exact)
{
    size_t arows = d->transa ? d->k : d->m, brows = d->transb ? d->n : d->k, i;
    for (i = 0; i < arows * d->lda; i++) a[i] = exact ? tkt_smallint() : tkt_uniform();
    for (i = 0; i < brows * d->ldb; i++) b[i] = exact ? tkt_smallint() : tkt_uniform();
    for (i = 0; i < d->m * d->ldc; i++) c[i] = exact ? tkt_smallint() : tkt_uniform();
    for (i = 0; i < d->n; i++) bias[i] = exact ? tkt_smallint() : tkt_uniform();
}

/* |error| bound for one element: k products of |a||b| <= 1 rounded k times, the alpha, beta and
 * bias steps, and the epilogue (all activations have slope <= 1.13). */
static double tolerance(const tk_gemm_desc *d)
{
    const double eps = 1.1920929e-7;
    double scale = fabs(d->alpha) * (double)d->k + fabs(d->beta) + 1.0;
    return 2.0 * ((double)d->k + 4.0) * eps * scale * 1.13 + 1e-6;
}

/* ldb 0: a random stride; else B untransposed, its rows ldb floats apart */
static void one_case(const char *cpu, ex_fn ex, plain_fn plain, ws_fn wsz, size_t m, size_t n, size_t k, int exact,
                     size_t ldb)
{
    tk_gemm_desc d;
    float *a, *b, *c, *r, *c1, *c2, *bias, *ws;
    size_t arows, brows, i, bad = 0, parts;
    double worst = 0.0, tol;
    tk_status st;
    static const float alphas[5] = {1.0f, -1.5f, 0.75f, 2.0f, 0.0f};
    static const float betas[4] = {0.0f, 1.0f, 0.5f, -2.0f};
    memset(&d, 0, sizeof d);
    d.m = m, d.n = n, d.k = k;
    d.transa = (tk_trans)(tkt_rand() & 1);
    d.transb = (tk_trans)(tkt_rand() & 1);
    d.lda = (d.transa ? m : k) + tkt_range(0, 3) * (tkt_rand() & 1);
    d.ldb = (d.transb ? k : n) + tkt_range(0, 5) * (tkt_rand() & 1);
    if (ldb) d.transb = TK_NO_TRANS, d.ldb = ldb;
    d.ldc = n + tkt_range(0, 4) * (tkt_rand() & 1);
    d.alpha = alphas[tkt_rand() % 5];
    d.beta = betas[tkt_rand() % 4];
    d.epilogue = exact ? TK_EPI_NONE : (tk_epilogue)(tkt_rand() % 5);
    d.clamp_lo = -0.5f, d.clamp_hi = 0.25f;
    arows = d.transa ? k : m;
    brows = d.transb ? n : k;
    a = tkt_alloc(arows * d.lda), b = tkt_alloc(brows * d.ldb);
    c = tkt_alloc(m * d.ldc), r = tkt_alloc(m * d.ldc), c1 = tkt_alloc(m * d.ldc), c2 = tkt_alloc(m * d.ldc);
    bias = tkt_alloc(n);
    fill_operands(&d, a, b, c, bias, exact);
    d.a = a, d.b = b, d.bias = (tkt_rand() & 1) ? bias : NULL;
    if (d.beta == 0.0f)
        for (i = 0; i < m * d.ldc; i++) c[i] = NAN; /* beta == 0 must not read C */
    memcpy(r, c, m * d.ldc * sizeof(float));
    memcpy(c1, c, m * d.ldc * sizeof(float));
    memcpy(c2, c, m * d.ldc * sizeof(float));
    d.c = r;
    tk_ref_gemm_f32(&d);
    d.c = c;
    st = ex(&d);
    TKT_CHECK(st == TK_OK, "%s %zux%zux%zu: status %d", cpu, m, n, k, (int)st);
    tol = tolerance(&d);
    for (i = 0; i < m; i++) {
        size_t j;
        for (j = 0; j < n; j++) {
            double e = fabs((double)c[i * d.ldc + j] - (double)r[i * d.ldc + j]);
            if (!(e <= (exact ? 0.0 : tol))) bad++;
            if (e > worst || e != e) worst = e;
        }
    }
    TKT_CHECK(bad == 0, "%s m=%zu n=%zu k=%zu ta=%d tb=%d lda=%zu ldb=%zu ldc=%zu alpha=%g beta=%g epi=%d bias=%d: "
              "%zu elements off, worst %g (tolerance %g)", cpu, m, n, k, d.transa, d.transb, d.lda, d.ldb, d.ldc,
              (double)d.alpha, (double)d.beta, (int)d.epilogue, d.bias != NULL, bad, worst, exact ? 0.0 : tol);

    /* the plain entry (tk_gemm_f32) on the same problem without extras: the same bits (exact-shape
     * rows have an instance of their own for it) */
    if (d.epilogue == TK_EPI_NONE && !d.bias) {
        st = plain(d.transa, d.transb, m, n, k, d.alpha, a, d.lda, b, d.ldb, d.beta, c2, d.ldc);
        TKT_CHECK(st == TK_OK && memcmp(c, c2, m * d.ldc * sizeof(float)) == 0,
                  "%s %zux%zux%zu ta=%d tb=%d: plain entry status %d or result differs from the descriptor entry",
                  cpu, m, n, k, d.transa, d.transb, (int)st);
    }

    /* the same problem in 2..4 parts, run in reverse order, with an explicit workspace: bitwise equal */
    parts = tkt_range(2, 4);
    d.c = c1;
    d.workspace_size = wsz(&d);
    ws = tkt_alloc(d.workspace_size / sizeof(float) + 64);
    d.workspace = (void *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
    for (i = parts; i-- > 0;) {
        d.part = i, d.nparts = parts;
        st = ex(&d);
        TKT_CHECK(st == TK_OK, "%s part %zu/%zu: status %d", cpu, i, parts, (int)st);
    }
    /* both started from the same C, and the gaps between rows are never written */
    TKT_CHECK(memcmp(c, c1, m * d.ldc * sizeof(float)) == 0, "%s %zux%zux%zu: %zu parts differ from one part", cpu,
              m, n, k, parts);
    free(a), free(b), free(c), free(r), free(c1), free(c2), free(bias), free(ws);
}

static void corner_cases(const char *cpu, ex_fn ex)
{
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4], bias[2] = {10, 20};
    tk_gemm_desc d;
    memset(&d, 0, sizeof d);
    /* k == 0: C = beta * C (+ bias), A and B may be NULL */
    d.m = 2, d.n = 2, d.k = 0, d.alpha = 1, d.beta = 3, d.c = c, d.ldc = 2, d.lda = 1, d.ldb = 2;
    c[0] = 1, c[1] = 2, c[2] = 3, c[3] = 4;
    TKT_CHECK(ex(&d) == TK_OK && c[0] == 3 && c[3] == 12, "%s k == 0 must scale C by beta", cpu);
    /* alpha == 0: A and B are not read, even if NULL; beta == 0 with NaN in C gives bias */
    d.k = 3, d.alpha = 0, d.beta = 0, d.bias = bias;
    c[0] = c[1] = c[2] = c[3] = NAN;
    TKT_CHECK(ex(&d) == TK_OK && c[0] == 10 && c[1] == 20 && c[2] == 10 && c[3] == 20,
              "%s alpha == 0, beta == 0 must give the bias without reading C", cpu);
    /* m == 0 or n == 0: nothing happens, nothing is checked (BLAS quick return) */
    d.m = 0, d.c = NULL;
    TKT_CHECK(ex(&d) == TK_OK, "%s m == 0 is a no-op", cpu);
    /* a 2x3 * 3x2 product */
    d.m = 2, d.n = 2, d.k = 3, d.alpha = 1, d.beta = 0, d.bias = NULL, d.c = c, d.a = a, d.lda = 3, d.b = b;
    TKT_CHECK(ex(&d) == TK_OK && c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11, "%s 2x3x2 product", cpu);
}

/* The plain entry on an exact-shape row's shape, untransposed (its own instance): small integers,
 * so the result is exact, with padded leading dimensions, alpha/beta, and beta == 0 over NaN. */
static void plain_exact(const char *cpu, plain_fn plain, size_t m, size_t n, size_t k)
{
    static const float alphas[4] = {1.0f, -2.0f, 0.5f, 0.0f};
    static const float betas[3] = {0.0f, 1.0f, -0.5f};
    int t;
    for (t = 0; t < 12; t++) {
        tk_gemm_desc d;
        float *a, *b, *c, *r, *bias;
        size_t i, bad = 0;
        tk_status st;
        memset(&d, 0, sizeof d);
        d.m = m, d.n = n, d.k = k;
        d.lda = k + (t & 1) * 3, d.ldb = n + (t & 2) * 2, d.ldc = n + (t & 4);
        d.alpha = alphas[t % 4], d.beta = betas[t % 3];
        a = tkt_alloc(m * d.lda), b = tkt_alloc(k * d.ldb), c = tkt_alloc(m * d.ldc), r = tkt_alloc(m * d.ldc);
        bias = tkt_alloc(n);
        fill_operands(&d, a, b, c, bias, 1);
        if (d.beta == 0.0f)
            for (i = 0; i < m * d.ldc; i++) c[i] = NAN;
        memcpy(r, c, m * d.ldc * sizeof(float));
        d.a = a, d.b = b, d.c = r;
        tk_ref_gemm_f32(&d);
        st = plain(TK_NO_TRANS, TK_NO_TRANS, m, n, k, d.alpha, a, d.lda, b, d.ldb, d.beta, c, d.ldc);
        /* the gaps between rows of C must be untouched too, so compare whole rows */
        for (i = 0; i < m * d.ldc; i++) bad += !(c[i] == r[i] || (c[i] != c[i] && r[i] != r[i]));
        TKT_CHECK(st == TK_OK && bad == 0, "%s plain %zux%zux%zu lda=%zu ldb=%zu ldc=%zu alpha=%g beta=%g: status %d, %zu "
                  "elements differ", cpu, m, n, k, d.lda, d.ldb, d.ldc, (double)d.alpha, (double)d.beta, (int)st, bad);
        free(a), free(b), free(c), free(r), free(bias);
    }
}

/* Row r's configuration with its tiles walked in both orders: 'n' (row tiles inner) and 'm' (column
 * tiles inner), which no committed table uses, so only this reaches it. Blocks of two row tiles and
 * two column tiles (where B is packed) and depths of at most 16 make several of each block, each
 * with tiles in both directions; ragged edges everywhere. Small-integer inputs make every sum
 * exact: both orders must equal the reference, and each other bit for bit. Then order 'n' once more
 * with A's rows 4 KiB apart, where a tall direct tile reads a copy of them (tki_rows_collide): the
 * same result, bit for bit. */
static void both_orders(const char *cpu, size_t r, const tki_gemm_cfg *row, part_fn part, pick_fn pick, nr_fn nrf)
{
    tki_gemm_cfg cfg = *row;
    tk_gemm_desc d;
    tki_gemm_args g;
    float *a, *b, *want, *got[3], *ws, *a_far;
    size_t m, n, k, i, ws_floats, bad;
    int nothing, o;
    const size_t far = 1024; /* A's rows 4 KiB apart: a tall direct tile reads a copy of them */
    cfg.mc = 2 * cfg.mr;
    cfg.kc = cfg.kc < 16 ? cfg.kc : 16;
    cfg.ncp = 2;
    m = 4 * (size_t)cfg.mr + 1, n = 4 * nrf(&cfg) + 3, k = 2 * (size_t)cfg.kc + 3;
    a = tkt_alloc(m * k), b = tkt_alloc(k * n), want = tkt_alloc(m * n);
    got[0] = tkt_alloc(m * n), got[1] = tkt_alloc(m * n), got[2] = tkt_alloc(m * n), a_far = tkt_alloc(m * far);
    for (i = 0; i < m * k; i++) a[i] = tkt_smallint();
    for (i = 0; i < m * k; i++) a_far[i / k * far + i % k] = a[i];
    for (i = 0; i < k * n; i++) b[i] = tkt_smallint();
    tki_gemm_desc_plain(&d, TK_NO_TRANS, TK_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, want, n);
    tk_ref_gemm_f32(&d);
    for (o = 0; o < 3; o++) {
        d.c = got[o];
        cfg.order = o == 1 ? 0x6d : 0x6e;
        if (o == 2) d.a = a_far, d.lda = far;
        if (tki_gemm_check(&d, &g, &nothing) != TK_OK || nothing || pick(&cfg, &d, &g, &ws, &ws_floats) != TK_OK) {
            TKT_CHECK(0, "%s row %zu: the call was refused", cpu, r);
            continue;
        }
        part(&cfg, &g, 0, 1, ws, ws_floats);
        for (bad = 0, i = 0; i < m * n; i++) bad += got[o][i] != want[i];
        TKT_CHECK(bad == 0, "%s row %zu order %c%s (%ux%u, %zux%zux%zu): %zu elements differ from the reference", cpu, r,
                  o == 1 ? 'm' : 'n', o == 2 ? ", lda 1024" : "", cfg.mr, cfg.nv, m, n, k, bad);
    }
    TKT_CHECK(!memcmp(got[0], got[1], m * n * sizeof(float)), "%s row %zu: the orders differ", cpu, r);
    TKT_CHECK(!memcmp(got[0], got[2], m * n * sizeof(float)), "%s row %zu: A's rows 4 KiB apart changed the result", cpu, r);
    free(a), free(b), free(want), free(got[0]), free(got[1]), free(got[2]), free(a_far);
}

/* d (C aside) through the partition as one part into whole, then as parts 1 and 0 of two into halves */
static void whole_and_halves(const char *cpu, size_t r, const tki_gemm_cfg *cfg, tk_gemm_desc *d, part_fn part, pick_fn pick,
                             float *whole, float *halves)
{
    tki_gemm_args g;
    float *ws;
    size_t ws_floats;
    int nothing, p;
    for (p = 0; p < 2; p++) {
        d->c = p ? halves : whole;
        if (tki_gemm_check(d, &g, &nothing) != TK_OK || nothing || pick(cfg, d, &g, &ws, &ws_floats) != TK_OK) {
            TKT_CHECK(0, "%s row %zu: the call was refused", cpu, r);
            continue;
        }
        if (p) part(cfg, &g, 1, 2, ws, ws_floats), part(cfg, &g, 0, 2, ws, ws_floats);
        else part(cfg, &g, 0, 1, ws, ws_floats);
    }
}

/* One direct row as a block of two row tiles, one column tile and 60 deep, B's rows 128 KiB apart:
 * every table's L2 (8 MiB at most) keeps 32 such rows of a panel, so the call runs k blocks of 32 and 28
 * (tki_gemm_kc). Split into its two row tiles, each part is a single tile, which must take the same
 * blocks rather than one call 60 deep: the parts equal the whole bit for bit, and the reference. */
static void b_far_parts(const char *cpu, size_t r, const tki_gemm_cfg *row, part_fn part, pick_fn pick, nr_fn nrf)
{
    tki_gemm_cfg cfg = *row;
    tk_gemm_desc d;
    float *a, *b, *want, *whole, *halves;
    size_t m, n, i, bad = 0;
    const size_t k = 60, ldb = 32768;
    if (!cfg.ukr_direct || cfg.dot) return;
    cfg.mc = 2 * cfg.mr, cfg.kc = 64, cfg.order = 0x6e, cfg.packb = 0, cfg.split = 'm';
    m = 2 * (size_t)cfg.mr, n = nrf(&cfg) > 3 ? nrf(&cfg) - 3 : nrf(&cfg);
    a = tkt_alloc(m * k), b = tkt_alloc(k * ldb), want = tkt_alloc(m * n), whole = tkt_alloc(m * n), halves = tkt_alloc(m * n);
    for (i = 0; i < m * k; i++) a[i] = tkt_uniform();
    for (i = 0; i < k * ldb; i++) /* only n columns are read: NaN past them, the rest never touched */
        if (i % ldb < nrf(&cfg)) b[i] = i % ldb < n ? tkt_uniform() : NAN;
    tki_gemm_desc_plain(&d, TK_NO_TRANS, TK_NO_TRANS, m, n, k, 1.0f, a, k, b, ldb, 0.0f, want, n);
    tk_ref_gemm_f32(&d);
    whole_and_halves(cpu, r, &cfg, &d, part, pick, whole, halves);
    for (i = 0; i < m * n; i++) bad += !(fabs((double)whole[i] - (double)want[i]) <= tolerance(&d));
    TKT_CHECK(bad == 0, "%s row %zu (%ux%u), B's rows 128 KiB apart: %zu elements off the reference", cpu, r, cfg.mr,
              cfg.nv, bad);
    TKT_CHECK(!memcmp(whole, halves, m * n * sizeof(float)), "%s row %zu (%ux%u), B's rows 128 KiB apart: its two row "
              "tiles as parts differ from the whole", cpu, r, cfg.mr, cfg.nv);
    free(a), free(b), free(want), free(whole), free(halves);
}

/* One direct row as a call of one tile (mr rows, three columns short of nr), 100 deep, its kc cut to
 * 16: a single tile takes all of k in one block (tki_one_tile_whole_k), so the partition gives the
 * bits of one call of the row's direct kernel over the whole depth, and the reference; with two
 * parts (one of them empty) the same. */
static void one_tile_whole_k(const char *cpu, size_t r, const tki_gemm_cfg *row, part_fn part, pick_fn pick, nr_fn nrf)
{
    tki_gemm_cfg cfg = *row;
    tk_gemm_desc d;
    tki_ukr_aux aux;
    float *a, *b, *want, *whole, *parts, *once;
    size_t m, n, i, bad = 0;
    const size_t k = 100;
    if (!cfg.ukr_direct || cfg.dot) return;
    cfg.kc = 16, cfg.packb = 0;
    m = cfg.mr, n = nrf(&cfg) > 3 ? nrf(&cfg) - 3 : nrf(&cfg);
    a = tkt_alloc(m * k), b = tkt_alloc(k * n), want = tkt_alloc(m * n), whole = tkt_alloc(m * n);
    parts = tkt_alloc(m * n), once = tkt_alloc(m * n);
    for (i = 0; i < m * k; i++) a[i] = tkt_uniform();
    for (i = 0; i < k * n; i++) b[i] = tkt_uniform();
    tki_gemm_desc_plain(&d, TK_NO_TRANS, TK_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, want, n);
    tk_ref_gemm_f32(&d);
    aux.alpha = 1.0f, aux.beta = 0.0f, aux.bias = NULL, aux.rsa = k;
    cfg.ukr_direct(k, a, b, n, once, n, m, n, &aux);
    whole_and_halves(cpu, r, &cfg, &d, part, pick, whole, parts);
    for (i = 0; i < m * n; i++) bad += !(fabs((double)whole[i] - (double)want[i]) <= tolerance(&d));
    TKT_CHECK(bad == 0, "%s row %zu (%ux%u), one tile 100 deep: %zu elements off the reference", cpu, r, cfg.mr, cfg.nv, bad);
    TKT_CHECK(!memcmp(whole, once, m * n * sizeof(float)), "%s row %zu (%ux%u), one tile 100 deep at kc 16: not one "
              "block of all k", cpu, r, cfg.mr, cfg.nv);
    TKT_CHECK(!memcmp(whole, parts, m * n * sizeof(float)), "%s row %zu (%ux%u), one tile 100 deep: two parts differ "
              "from the whole", cpu, r, cfg.mr, cfg.nv);
    free(a), free(b), free(want), free(whole), free(parts), free(once);
}

static void run_cpu(const char *cpu, ex_fn ex, plain_fn plain, ws_fn wsz, const size_t *exact_shapes, size_t nexact)
{
    static const size_t special[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 33, 48, 64, 65, 97, 128};
    const size_t nspecial = sizeof special / sizeof special[0];
    unsigned long before = tkt_pass + tkt_fail;
    int t;
    corner_cases(cpu, ex);
    for (t = 0; t < 60 * TKT_SCALE; t++) {
        int exact = t % 3 == 0;
        size_t m = (t & 4) ? special[tkt_rand() % nspecial] : tkt_range(1, 40 * TKT_SCALE);
        size_t n = (t & 8) ? special[tkt_rand() % nspecial] : tkt_range(1, 40 * TKT_SCALE);
        size_t k = (t & 16) ? special[tkt_rand() % nspecial] : tkt_range(1, 70 * TKT_SCALE);
        one_case(cpu, ex, plain, wsz, m, n, k, exact, 0);
    }
    /* the table's exact-shape rows run their own compiled instance of the driver */
    for (t = 0; t < (int)nexact; t++) {
        int r;
        for (r = 0; r < 8; r++)
            one_case(cpu, ex, plain, wsz, exact_shapes[3 * t], exact_shapes[3 * t + 1], exact_shapes[3 * t + 2], r & 1,
                     0);
        plain_exact(cpu, plain, exact_shapes[3 * t], exact_shapes[3 * t + 1], exact_shapes[3 * t + 2]);
    }
    /* one tile deeper than most rows' kc: all of k in one block (tki_gemm_kc), every entry alike */
    one_case(cpu, ex, plain, wsz, 3, 10, 5000, 0, 0);
    /* B's rows 32 KiB apart: rows that read its panels in place take shallower k blocks
     * (tki_gemm_kc); against the reference, and bitwise the same in parts */
    one_case(cpu, ex, plain, wsz, 40, 50, 100, 0, 8192);
    one_case(cpu, ex, plain, wsz, 19, 37, 133, 1, 8192);
#ifndef TK_TEST_SMALL
    one_case(cpu, ex, plain, wsz, 130, 200, 300, 0, 8192);
    /* a direct row reads a copy of such a B's rows (tki_b_rows_copy) where its row tiles reuse the
     * panels: 16 rows, B 2000 wide in blocks as wide as the workspace holds */
    one_case(cpu, ex, plain, wsz, 16, 2000, 700, 0, 8192);
    /* past TKI_B_COPY_MIN_M rows, a row that says `packb no` copies such a B (tki_gemm_b_in_place) */
    one_case(cpu, ex, plain, wsz, 530, 70, 300, 0, 8192);
    /* past the cache blocks: several kc, mc and nc blocks and their edges */
    one_case(cpu, ex, plain, wsz, 300, 700, 600, 0, 0);
    one_case(cpu, ex, plain, wsz, 1, 3000, 2500, 1, 0);
    one_case(cpu, ex, plain, wsz, 9, 1100, 1500, 0, 0);
    one_case(cpu, ex, plain, wsz, 517, 259, 1031, 1, 0);
#else
    one_case(cpu, ex, plain, wsz, 70, 90, 300, 0, 0);
    one_case(cpu, ex, plain, wsz, 1, 200, 300, 1, 0);
#endif
    printf("cpu %s: %lu checks\n", cpu, tkt_pass + tkt_fail - before);
}

/* tki_gemm_kc, the depth of a call's k blocks: a row that reads B in place with its row tiles inner
 * and several of them per block takes blocks no deeper than what the L2 keeps of a panel whose
 * rows crowd its sets (half of l2 / the stride's lowest set bit, at least 32 rows); nothing else
 * changes the row's kc. */
/* tki_rows_collide counts the rows per L1 set with a shift, no division: the same answer as
 * ceil(rows / (4096 / low)) sets for every stride mod 4 KiB, tile height to 40 and way count 4-16 */
static void collide_rule(void)
{
    size_t bad = 0, at[3] = {0, 0, 0};
    for (size_t ld = 0; ld < 2048; ld++)
        for (size_t rows = 1; rows <= 40; rows++)
            for (size_t ways = 4; ways <= 16; ways += 4) {
                const size_t s = (ld * 4) & 4095, low = s & (0 - s);
                const size_t sets = s ? 4096 / (low < 64 ? 64 : low) : 1;
                if (tki_rows_collide(ld, rows, ways) != (4 * ((rows + sets - 1) / sets) > 5 * ways) && !bad++)
                    at[0] = ld, at[1] = rows, at[2] = ways;
            }
    TKT_CHECK(bad == 0, "tki_rows_collide differs from the count by division in %zu cases, first ld %zu rows %zu ways %zu", bad,
              at[0], at[1], at[2]);
}

static void dummy_ukr(TKI_UKR_PARAMS)
{
    (void)k, (void)a, (void)b, (void)ldb, (void)c, (void)ldc, (void)m, (void)n, (void)aux;
}

static void kc_rule(void)
{
    tki_gemm_cfg cfg;
    tki_gemm_args g;
    const size_t crowd = 1u << 20; /* b_crowd_bytes of half a 2 MiB L2, the default */
    memset(&cfg, 0, sizeof cfg), memset(&g, 0, sizeof g);
    cfg.mr = 4, cfg.nv = 6, cfg.mc = 32, cfg.kc = 512, cfg.order = 0x6e;
    g.m = 32, g.n = 1024, g.k = 3072, g.ldb = 1024, g.transb = TK_NO_TRANS;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 256, "rows 4 KiB apart, 2 MiB L2: kc %zu, not 256", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.ldb = 2048;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 128, "rows 8 KiB apart: kc %zu, not 128", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.ldb = 1 << 16;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 32, "rows 256 KiB apart: kc %zu, not 32", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.ldb = 1040;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "rows 4160 bytes apart: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.ldb = 512;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "rows 2 KiB apart (fit 512): kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.ldb = 1024;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, 0) == 512, "a table without an L2 changed kc");
    g.m = 4;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one row tile changed kc");
    g.m = 32, cfg.mc = 4;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "blocks of one row tile changed kc");
    cfg.mc = 32, cfg.order = 0x6d;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "order m changed kc");
    cfg.order = 0x6e, cfg.packb = 1;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "B packed changed kc");
    cfg.packb = 0, g.transb = TK_TRANS;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "B transposed (packed) changed kc");
    g.transb = TK_NO_TRANS, cfg.dot = 1;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "the dot form changed kc");
    /* enough rows to repay a copy of B (tki_b_copy_pays): it is copied, at the row's kc */
    cfg.dot = 0, g.m = 1024;
    TKT_CHECK(!tki_gemm_b_in_place(&cfg, &g, crowd) && tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512,
              "1024 rows, B's rows 4 KiB apart: read in place (kc %zu), not copied at kc 512", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.m = TKI_B_COPY_MIN_M - 1;
    TKT_CHECK(tki_gemm_b_in_place(&cfg, &g, crowd) && tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 256,
              "%zu rows: B copied or kc %zu, not read in place at kc 256", g.m, tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.m = 1024, g.ldb = 1040;
    TKT_CHECK(tki_gemm_b_in_place(&cfg, &g, crowd), "1024 rows, B's rows 4160 bytes apart (no crowding): copied");
    g.ldb = 1024, cfg.order = 0x6d;
    TKT_CHECK(tki_gemm_b_in_place(&cfg, &g, crowd), "1024 rows, order m (kc never cut): B copied");
    /* a direct row reads a copy of such a B's rows (tki_b_rows_copy), at most TKI_B_ROWS_KC deep */
    cfg.order = 0x6e, cfg.ukr_direct = dummy_ukr, g.m = 32;
    TKT_CHECK(tki_b_rows_copy(cfg.kc, g.m, cfg.mr, cfg.mc, g.ldb, crowd, 1) &&
                  tki_gemm_kc(&cfg, &g, 96, 12, crowd) == TKI_B_ROWS_KC,
              "a direct row, B's rows 4 KiB apart: kc %zu, not a copy of the rows %d deep",
              tki_gemm_kc(&cfg, &g, 96, 12, crowd), TKI_B_ROWS_KC);
    cfg.kc = 200;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 200, "a direct row of kc 200 copying B's rows: kc %zu",
              tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    cfg.kc = 512, g.ldb = 1040;
    TKT_CHECK(!tki_b_rows_copy(cfg.kc, g.m, cfg.mr, cfg.mc, g.ldb, crowd, 1) && tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512,
              "a direct row, B's rows 4160 bytes apart (no crowding): rows copied or kc cut");
    g.ldb = 1024, g.m = 4;
    TKT_CHECK(!tki_b_rows_copy(cfg.kc, g.m, cfg.mr, cfg.mc, g.ldb, crowd, 1), "one row tile: B's rows copied");
    TKT_CHECK(!tki_b_rows_copy(cfg.kc, 32, cfg.mr, cfg.mc, g.ldb, crowd, 0), "a packed row: B's rows copied");
    TKT_CHECK(tki_b_rows_ld(1024) == 1040 && tki_b_rows_ld(1000) == 1008 && tki_b_rows_ld(1) == 16,
              "tki_b_rows_ld: %zu %zu %zu, not an odd number of lines", tki_b_rows_ld(1024), tki_b_rows_ld(1000),
              tki_b_rows_ld(1));
    cfg.ukr_direct = NULL, g.m = 1024;
    /* one direct tile in place takes all of k (tki_one_tile_whole_k); anything else keeps kc */
    cfg.order = 0x6e, cfg.ukr_direct = dummy_ukr;
    g.m = 4, g.n = 96, g.k = 3000, g.lda = 3000, g.ldb = 1040;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 3000, "one direct tile 3000 deep: kc %zu, not 3000",
              tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.k = 300;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one direct tile 300 deep: kc %zu, not the row's 512",
              tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.k = 3000, g.n = 97;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "two column tiles: kc %zu, not 512", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.n = 96, g.m = 5;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "two row tiles: kc %zu, not 512", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.m = 4, cfg.packb = 1;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one tile, B packed: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    cfg.packb = 0, g.transb = TK_TRANS;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one tile, B transposed: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.transb = TK_NO_TRANS, g.transa = TK_TRANS;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one tile, A transposed: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    g.transa = TK_NO_TRANS, cfg.ukr_direct = NULL;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one tile, no direct form: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    /* a tile of one row too (tki_one_tile_whole_k) */
    cfg.ukr_direct = dummy_ukr, cfg.mr = 1, g.m = 1;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 3000, "one tile of one row: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
    /* 16 rows 4 KiB apart overfill a set of a 12-way L1: the driver copies them, kc deep */
    cfg.mr = 16, g.m = 16, g.lda = 4096;
    TKT_CHECK(tki_gemm_kc(&cfg, &g, 96, 12, crowd) == 512, "one tile, A's rows colliding: kc %zu", tki_gemm_kc(&cfg, &g, 96, 12, crowd));
}

int main(void)
{
    tkt_init();
    kc_rule();
    collide_rule();
    for (size_t c = 0; c < tkt_chain_len; c++) {
        const tkt_cpu *cpu = &tkt_chain[c];
        const tkt_cpu_fns *f = cpu->f;
        if (!cpu->runs()) {
            printf("cpu %s: skipped, this CPU cannot run %s\n", cpu->name, cpu->isa);
            continue;
        }
        run_cpu(cpu->name, f->ex, f->plain, f->wsz, f->exact, f->nexact);
        for (size_t r = 0; r < f->ncfgs; r++) {
            both_orders(cpu->name, r, &f->cfgs()[r], f->part, f->pick, f->nr);
            b_far_parts(cpu->name, r, &f->cfgs()[r], f->part, f->pick, f->nr);
            one_tile_whole_k(cpu->name, r, &f->cfgs()[r], f->part, f->pick, f->nr);
        }
    }
    return tkt_finish("test_gemm");
}
