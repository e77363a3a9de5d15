/* Every invalid argument returns its own status, leaves C untouched and writes nothing anywhere:
 * C sits between guard zones and is checked cell by cell after each call. Run for every CPU. */
#include "chain.h"
#include "tktest.h"


enum { M = 5, N = 7, K = 6, PAD = 16 };
static float A[M * K], B[K * N];
static float CBUF[PAD + M * N + PAD];
#define C (CBUF + PAD)

static void valid(tk_gemm_desc *d)
{
    memset(d, 0, sizeof *d);
    d->m = M, d->n = N, d->k = K, d->alpha = 1, d->beta = 1;
    d->a = A, d->lda = K, d->b = B, d->ldb = N, d->c = C, d->ldc = N;
}

static void expect(const char *cpu, ex_fn ex, const tk_gemm_desc *d, tk_status want, const char *what)
{
    size_t i, changed = 0;
    tk_status got;
    for (i = 0; i < sizeof CBUF / sizeof CBUF[0]; i++) CBUF[i] = (float)i + 0.5f;
    got = ex(d);
    for (i = 0; i < sizeof CBUF / sizeof CBUF[0]; i++) changed += CBUF[i] != (float)i + 0.5f;
    TKT_CHECK(got == want, "%s %s: status %d, want %d", cpu, what, (int)got, (int)want);
    TKT_CHECK(changed == 0, "%s %s: %zu cells of C or its guards changed", cpu, what, changed);
}

static void run_cpu(const char *cpu, ex_fn ex, ws_fn wsz)
{
    tk_gemm_desc d;
    static float ws[1 << 16] TKI_ALIGNED(64);
    float *cc = C;
    size_t i;
    for (i = 0; i < M * K; i++) A[i] = 1;
    for (i = 0; i < K * N; i++) B[i] = 1;
    expect(cpu, ex, NULL, TK_ERR_NULL, "NULL descriptor");
    valid(&d), d.a = NULL; expect(cpu, ex, &d, TK_ERR_NULL, "A NULL");
    valid(&d), d.b = NULL; expect(cpu, ex, &d, TK_ERR_NULL, "B NULL");
    valid(&d), d.c = NULL; expect(cpu, ex, &d, TK_ERR_NULL, "C NULL");
    valid(&d), d.transa = (tk_trans)2; expect(cpu, ex, &d, TK_ERR_TRANS, "transa 2");
    valid(&d), d.transb = (tk_trans)-1; expect(cpu, ex, &d, TK_ERR_TRANS, "transb -1");
    valid(&d), d.lda = K - 1; expect(cpu, ex, &d, TK_ERR_LDA, "lda < k");
    valid(&d), d.transa = TK_TRANS, d.lda = M - 1; expect(cpu, ex, &d, TK_ERR_LDA, "transposed lda < m");
    valid(&d), d.ldb = N - 1; expect(cpu, ex, &d, TK_ERR_LDB, "ldb < n");
    valid(&d), d.transb = TK_TRANS, d.ldb = K - 1; expect(cpu, ex, &d, TK_ERR_LDB, "transposed ldb < k");
    valid(&d), d.ldc = N - 1; expect(cpu, ex, &d, TK_ERR_LDC, "ldc < n");
    valid(&d), d.m = (size_t)1 << 62; expect(cpu, ex, &d, TK_ERR_OVERFLOW, "m * lda overflows");
    valid(&d), d.lda = SIZE_MAX / 2; expect(cpu, ex, &d, TK_ERR_OVERFLOW, "m * lda past the address space");
    valid(&d), d.n = (size_t)1 << 61, d.ldb = d.n, d.ldc = d.n; expect(cpu, ex, &d, TK_ERR_OVERFLOW, "n * ldc overflows");
    valid(&d), d.a = cc + 3; expect(cpu, ex, &d, TK_ERR_ALIAS, "C overlaps A");
    valid(&d), d.b = cc + M * N - 1; expect(cpu, ex, &d, TK_ERR_ALIAS, "C overlaps B");
    valid(&d), d.bias = cc + 2; expect(cpu, ex, &d, TK_ERR_ALIAS, "C overlaps bias");
    valid(&d), d.workspace = ws, d.workspace_size = wsz(&d) - 4;
    expect(cpu, ex, &d, TK_ERR_WORKSPACE, "workspace one float short");
    valid(&d), d.workspace = (char *)ws + 4, d.workspace_size = sizeof ws - 64;
    expect(cpu, ex, &d, TK_ERR_ALIGNMENT, "workspace misaligned");
    valid(&d), d.part = 2, d.nparts = 2; expect(cpu, ex, &d, TK_ERR_PARTITION, "part == nparts");
    valid(&d), d.part = 1, d.nparts = 0; expect(cpu, ex, &d, TK_ERR_PARTITION, "part 1 of 0");
    valid(&d), d.epilogue = (tk_epilogue)9; expect(cpu, ex, &d, TK_ERR_EPILOGUE, "unknown epilogue");
    valid(&d), d.epilogue = TK_EPI_CLAMP, d.clamp_lo = 1, d.clamp_hi = 0;
    expect(cpu, ex, &d, TK_ERR_EPILOGUE, "clamp lo > hi");
    valid(&d), d.epilogue = TK_EPI_CLAMP, d.clamp_lo = NAN, d.clamp_hi = 0;
    expect(cpu, ex, &d, TK_ERR_EPILOGUE, "clamp bound NaN");
    /* a valid call with an exact workspace succeeds, and only C's cells change */
    valid(&d), d.workspace = ws, d.workspace_size = wsz(&d), d.beta = 0;
    {
        size_t changed = 0;
        for (i = 0; i < sizeof CBUF / sizeof CBUF[0]; i++) CBUF[i] = -1;
        TKT_CHECK(ex(&d) == TK_OK, "%s valid call with exact workspace", cpu);
        for (i = 0; i < sizeof CBUF / sizeof CBUF[0]; i++) {
            int inside = i >= PAD && i < PAD + M * N;
            changed += inside ? CBUF[i] != (float)K : CBUF[i] != -1;
        }
        TKT_CHECK(changed == 0, "%s valid call: %zu cells wrong or written outside C", cpu, changed);
    }
}

/* The plain entry (tk_gemm_f32) on a shape: an exact-shape row's shape takes that row's own plain
 * instance, which validates by itself. Operands live in one buffer so that overlaps can be made. */
static void plain_shape(const char *cpu, plain_fn plain, size_t m, size_t n, size_t k)
{
    static float buf[3 * 128 * 128 + 4 * PAD];
    float *a = buf, *b = buf + m * k + PAD, *c = b + k * n + PAD, *end = c + m * n;
    size_t i, changed;
    tk_status got;
    struct { const float *a, *b; float *c; size_t lda, ldb, ldc; float alpha; tk_trans ta; tk_status want; const char *what; }
    cases[] = {
        {NULL, b, c, k, n, n, 1, TK_NO_TRANS, TK_ERR_NULL, "A NULL"},
        {a, NULL, c, k, n, n, 1, TK_NO_TRANS, TK_ERR_NULL, "B NULL"},
        {a, b, NULL, k, n, n, 1, TK_NO_TRANS, TK_ERR_NULL, "C NULL"},
        {a, b, c, k - 1, n, n, 1, TK_NO_TRANS, TK_ERR_LDA, "lda < k"},
        {a, b, c, k, n - 1, n, 1, TK_NO_TRANS, TK_ERR_LDB, "ldb < n"},
        {a, b, c, k, n, n - 1, 1, TK_NO_TRANS, TK_ERR_LDC, "ldc < n"},
        {a, b, c, SIZE_MAX / 2, n, n, 1, TK_NO_TRANS, TK_ERR_OVERFLOW, "lda past the address space"},
        {c - 1, b, c, k, n, n, 1, TK_NO_TRANS, TK_ERR_ALIAS, "C overlaps A"},
        {a, end - 1, c, k, n, n, 1, TK_NO_TRANS, TK_ERR_ALIAS, "C overlaps B"},
        {a, b, c, k, n, n, 1, (tk_trans)3, TK_ERR_TRANS, "transa 3"},
    };
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t j;
        for (j = 0; j < sizeof buf / sizeof buf[0]; j++) buf[j] = (float)(j % 13);
        got = plain(cases[i].ta, TK_NO_TRANS, m, n, k, cases[i].alpha, cases[i].a, cases[i].lda, cases[i].b,
                    cases[i].ldb, 0.0f, cases[i].c, cases[i].ldc);
        for (j = 0, changed = 0; j < sizeof buf / sizeof buf[0]; j++) changed += buf[j] != (float)(j % 13);
        TKT_CHECK(got == cases[i].want, "%s plain %zux%zux%zu %s: status %d, want %d", cpu, m, n, k, cases[i].what,
                  (int)got, (int)cases[i].want);
        TKT_CHECK(changed == 0, "%s plain %zux%zux%zu %s: %zu cells changed", cpu, m, n, k, cases[i].what, changed);
    }
}

int main(void)
{
    tkt_init();
    for (size_t c = 0; c < tkt_chain_len; c++) {
        const tkt_cpu *cpu = &tkt_chain[c];
        if (!cpu->runs()) continue;
        run_cpu(cpu->name, cpu->f->ex, cpu->f->wsz);
        plain_shape(cpu->name, cpu->f->plain, M, N, K);
        /* every exact-shape row's shape that fits the buffer (k, n > 1: the cases shrink them by one) */
        for (size_t e = 0; e < cpu->f->nexact; e++) {
            size_t m = cpu->f->exact[3 * e], n = cpu->f->exact[3 * e + 1], k = cpu->f->exact[3 * e + 2];
            if (m * n <= 128 * 128 && m * k <= 128 * 128 && k * n <= 128 * 128 && k > 1 && n > 1)
                plain_shape(cpu->name, cpu->f->plain, m, n, k);
        }
    }
    return tkt_finish("test_badinput");
}
