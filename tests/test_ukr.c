/* Every registered microkernel of every ISA in this build, against exact small-integer results over
 * the edge matrix: k below / at / above the unroll, m < MR, n < NR, packed and in-place B (prime
 * ldb), beta in {0, 1, other} with C prefilled with NaN when beta is 0, with and without bias, and
 * guard cells around C that must stay untouched. */
#include "tk/gen/all.h"
#include "tktest.h"

#define GUARD 1234.5f

/* The kernel forms (docs/microkernel.md). FORM_DIRECT reads A in place (row i at a + i*rsa, only
 * rows < m) and only the first n columns of B; the rest of B holds NaN so that any read of it would
 * show. FORM_DOT reads A the same way and B by columns (column j at b + j*ldb, k floats each), in
 * vectors along k: k runs through its vector steps and their edges, and nothing past k may be used
 * (NaN there). */
enum { FORM_PACKED, FORM_DIRECT, FORM_DOT };
static void check_kernel(const char *name, tki_ukr_fn f, size_t mr, size_t nv, size_t ku, size_t vl, int form)
{
    const int direct = form == FORM_DIRECT, dot = form == FORM_DOT;
    const size_t nr = dot ? nv : nv * vl;
    size_t ks[10], ms[8], ns[13];
    size_t nk = 0, nm = 0, nn = 0, ik, im, in, ib, ibias, ild;
    static const float betas[3] = {0.0f, 1.0f, -0.5f};
    ks[nk++] = 1;
    if (dot) {
        /* a dot kernel steps 16 * ku deep in k: one lane short of a step and past it, and the tails */
        ks[nk++] = vl - 1, ks[nk++] = vl, ks[nk++] = vl + 1;
        ks[nk++] = vl * ku, ks[nk++] = vl * ku + 1, ks[nk++] = 2 * vl * ku + vl / 2 + 1;
    } else {
        if (ku > 2) ks[nk++] = ku - 1;
        ks[nk++] = ku;
        ks[nk++] = ku + 1;
        ks[nk++] = 2 * ku + 3;
    }
    ks[nk++] = 37;
    /* deep enough that a kernel's late C fetch inside its k loop (gen/tkm.m4) falls between two
     * unrolled runs of the loop, for tiles of 4 or more vectors */
    ks[nk++] = 133;
    ms[nm++] = mr;
    if (mr > 1) ms[nm++] = mr - 1;
    if (mr > 2) ms[nm++] = 1;
    /* tall direct tiles read A's rows in groups of four that move up to stay below row m (the
     * AVX-512 template): fewer rows than a group, and groups cut part-way through and past m */
    if (direct && mr > 4) {
        const size_t more[5] = {2, 3, 5, mr / 2 + 1, mr - 3};
        size_t i, j;
        for (i = 0; i < 5; i++) {
            for (j = 0; j < nm && ms[j] != more[i]; j++)
                ;
            if (j == nm && more[i] < mr) ms[nm++] = more[i];
        }
    }
    ns[nn++] = nr;
    /* no columns at all: nothing may be written (the AVX-512 kernels store their vectors before the
     * last one plain, trusting the narrowing switch to have sent n <= (NV - 1) * 16 elsewhere) */
    ns[nn++] = 0;
    if (nr > 1) ns[nn++] = nr - 1;
    if (nr > 2) ns[nn++] = 1;
    if (nr > 4 && !dot) {
        ns[nn++] = nr / 2 + 1;
        /* half a tile and one less: kernels may switch to half-width vectors there (AVX-512, n <= 8) */
        ns[nn++] = nr / 2;
        ns[nn++] = nr / 2 - 1;
    }
    /* kernels of several vectors hand a narrower column tile to the kernel of that many vectors:
     * one vector fewer, exact and ragged, and two vectors, ragged */
    if (nv > 2 && !dot) {
        ns[nn++] = nr - vl;
        ns[nn++] = nr - vl - 1;
        ns[nn++] = vl + 1;
    }
    /* kernels of several vectors may make the last one half-width when it holds at most half a
     * vector of columns (AVX-512 tiles of 2 or 3 vectors, n <= (NV - 1) * 16 + 8): one lane in it,
     * half of it, one past */
    if (nv > 1 && vl > 2 && !dot) {
        ns[nn++] = nr - vl + 1;
        ns[nn++] = nr - vl / 2;
        ns[nn++] = nr - vl / 2 + 1;
    }
    for (ik = 0; ik < nk; ik++)
        for (im = 0; im < nm; im++)
            for (in = 0; in < nn; in++)
                for (ib = 0; ib < 3; ib++)
                    for (ibias = 0; ibias < 2; ibias++)
                        for (ild = 0; ild < 2; ild++) {
                            const size_t k = ks[ik], m = ms[im], n = ns[in];
                            /* a dot kernel's B: nr columns of k, ldb apart */
                            const size_t ldb = dot ? (ild ? k + 7 : k) : ild ? nr + 7 : nr, ldc = n + 3, rsa = k + 3;
                            const size_t bsize = dot ? nr * ldb : k * ldb;
                            float *a = tkt_alloc(direct || dot ? m * rsa : k * mr), *b = tkt_alloc(bsize);
                            float *c = tkt_alloc((m + 2) * ldc + 2), *c0 = tkt_alloc((m + 2) * ldc + 2);
                            float *bias = tkt_alloc(nr);
                            float *ct = c + ldc + 1; /* one guard row above, guards to the left */
                            tki_ukr_aux aux;
                            size_t i, j, p, bad = 0, guard_bad = 0, nan_seen = 0;
                            for (i = 0; i < (direct || dot ? m * rsa : k * mr); i++)
                                a[i] = dot && i % rsa >= k ? NAN : tkt_smallint();
                            for (i = 0; i < bsize; i++)
                                b[i] = (direct && i % ldb >= n) || (dot && (i % ldb >= k || i / ldb >= n)) ? NAN : tkt_smallint();
                            for (i = 0; i < nr; i++) bias[i] = tkt_smallint();
                            for (i = 0; i < (m + 2) * ldc + 2; i++) c[i] = GUARD;
                            for (i = 0; i < m; i++)
                                for (j = 0; j < n; j++)
                                    ct[i * ldc + j] = betas[ib] == 0.0f ? NAN : tkt_smallint();
                            memcpy(c0, c, ((m + 2) * ldc + 2) * sizeof(float));
                            aux.alpha = 2.0f;
                            aux.beta = betas[ib];
                            aux.bias = ibias ? bias : NULL;
                            aux.rsa = rsa;
                            f(k, a, b, ldb, ct, ldc, m, n, &aux);
                            for (i = 0; i < m; i++)
                                for (j = 0; j < n; j++) {
                                    float s = 0.0f, want, got = ct[i * ldc + j];
                                    for (p = 0; p < k; p++)
                                        s += (direct || dot ? a[i * rsa + p] : a[p * mr + i]) * (dot ? b[j * ldb + p] : b[p * ldb + j]);
                                    want = 2.0f * s;
                                    if (aux.beta != 0.0f) want += aux.beta * c0[(i + 1) * ldc + 1 + j];
                                    if (ibias) want += bias[j];
                                    if (got != got) nan_seen++;
                                    if (got != want) bad++;
                                }
                            for (i = 0; i < (m + 2) * ldc + 2; i++) {
                                size_t r = i / ldc, col = i % ldc;
                                int inside = r >= 1 && r <= m && i >= (r * ldc + 1) && i < r * ldc + 1 + n;
                                (void)col;
                                if (!inside && !(c[i] == GUARD)) guard_bad++;
                            }
                            TKT_CHECK(bad == 0 && nan_seen == 0,
                                      "%s k=%zu m=%zu n=%zu beta=%g bias=%zu ldb=%zu: %zu wrong values", name,
                                      k, m, n, (double)aux.beta, ibias, ldb, bad);
                            TKT_CHECK(guard_bad == 0, "%s k=%zu m=%zu n=%zu: wrote %zu cells outside the tile",
                                      name, k, m, n, guard_bad);
                            free(a), free(b), free(c), free(c0), free(bias);
                        }
}

/* An ISA's own A packing against the definition (docs/microkernel.md): dst[p*mr + i] = A[i][p] for
 * rows < `rows`, zero for the padding rows up to mr, and nothing written past the mr*kc panel (it
 * stores whole vectors where it can, so the guard cells after the panel are what could break). */
static size_t n_packs;
static void check_pack_a(const char *name, void (*pack)(const float *, size_t, size_t, size_t, size_t, float *),
                         size_t max_mr)
{
    static const size_t kcs[] = {1, 7, 8, 9, 15, 16, 17, 33, 40};
    size_t mr, ir, ik;
    for (mr = 1; mr <= max_mr; mr++)
        for (ir = 0; ir < 3; ir++)
            for (ik = 0; ik < sizeof kcs / sizeof kcs[0]; ik++) {
                const size_t rows = ir == 0 ? mr : ir == 1 ? (mr > 1 ? mr - 1 : 1) : 1, kc = kcs[ik];
                const size_t lda = kc + 3, guard = 32;
                float *src = tkt_alloc(rows * lda), *dst = tkt_alloc(mr * kc + guard);
                size_t i, p, bad = 0, guard_bad = 0;
                for (i = 0; i < rows * lda; i++) src[i] = tkt_smallint();
                for (i = 0; i < mr * kc + guard; i++) dst[i] = GUARD;
                pack(src, lda, rows, kc, mr, dst);
                for (p = 0; p < kc; p++)
                    for (i = 0; i < mr; i++)
                        if (!(dst[p * mr + i] == (i < rows ? src[i * lda + p] : 0.0f))) bad++;
                for (i = mr * kc; i < mr * kc + guard; i++)
                    if (!(dst[i] == GUARD)) guard_bad++;
                TKT_CHECK(bad == 0 && guard_bad == 0, "%s mr=%zu rows=%zu kc=%zu: %zu wrong, %zu written past the panel",
                          name, mr, rows, kc, bad, guard_bad);
                free(src), free(dst);
            }
    n_packs++;
}

/* An ISA's transposing copy (its template's packing helper): dst[p*ds + i] = src[i][p] for rows
 * < `rows`, zero up to mr = 16, and neither the lanes between mr and ds nor anything past the last
 * column written; the columns come 16 at a time, the last block through a mask, so cols runs over
 * its edges. */
static void check_pack_t(const char *name, void (*pack)(const float *, size_t, size_t, size_t, size_t, size_t, float *))
{
    static const size_t colss[] = {1, 3, 7, 15, 16, 17, 31, 33, 40};
    static const size_t rowss[] = {1, 5, 15, 16};
    size_t ir, ic;
    for (ir = 0; ir < sizeof rowss / sizeof rowss[0]; ir++)
        for (ic = 0; ic < sizeof colss / sizeof colss[0]; ic++) {
            const size_t rows = rowss[ir], cols = colss[ic], mr = 16, ds = 16 + 5, lda = cols + 3, guard = 32;
            float *src = tkt_alloc(rows * lda), *dst = tkt_alloc(cols * ds + guard);
            size_t i, p, bad = 0, guard_bad = 0;
            for (i = 0; i < rows * lda; i++) src[i] = tkt_smallint();
            for (i = 0; i < cols * ds + guard; i++) dst[i] = GUARD;
            pack(src, lda, rows, cols, mr, ds, dst);
            for (p = 0; p < cols; p++)
                for (i = 0; i < ds; i++) {
                    float want = i < rows ? src[i * lda + p] : i < mr ? 0.0f : GUARD;
                    if (!(dst[p * ds + i] == want)) bad++;
                }
            for (i = cols * ds; i < cols * ds + guard; i++)
                if (!(dst[i] == GUARD)) guard_bad++;
            TKT_CHECK(bad == 0 && guard_bad == 0, "%s rows=%zu cols=%zu ds=%zu: %zu wrong, %zu written past the last column",
                      name, rows, cols, ds, bad, guard_bad);
            free(src), free(dst);
        }
    n_packs++;
}

typedef struct {
    tki_ukr_fn f;
    const char *name;
    unsigned mr, nv, ku, pf;
    tki_ukr_fn row1; /* the kernel on a last row of one (<kernel>_row1, gen/tkm.m4) */
} ukr_entry;

/* Every direct kernel of several rows against its code on a last row tile of one row (ukr_row1, the
 * kernel with m fixed at 1: docs/microkernel.md, "A last row of one"), which the blocked loops run for
 * such a tile: on one row, the same values bit for bit, on values whose sums round (the checks above
 * use small integers, exact in any order), and nothing written past that row (c holds one row). */
static void check_row1(const ukr_entry *list, size_t vl)
{
    static const size_t ks[] = {1, 37, 133};
    static const float betas[] = {0.0f, -0.5f};
    const ukr_entry *e;
    for (e = list; e->f; e++) {
        const size_t nr = e->nv * vl;
        const size_t ns[] = {nr, nr - 1, 1};
        size_t ik, in, ib, ibias, i;
        if (e->mr < 2) continue;
        for (ik = 0; ik < 3; ik++)
            for (in = 0; in < 3; in++)
                for (ib = 0; ib < 2; ib++)
                    for (ibias = 0; ibias < 2; ibias++) {
                        const size_t k = ks[ik], n = ns[in], rsa = k + 3, ldb = nr + 5;
                        float *a = tkt_alloc(e->mr * rsa), *b = tkt_alloc(k * ldb), *bias = tkt_alloc(nr);
                        float *c1 = tkt_alloc(nr), *c2 = tkt_alloc(nr);
                        tki_ukr_aux aux;
                        for (i = 0; i < e->mr * rsa; i++) a[i] = tkt_uniform();
                        for (i = 0; i < k * ldb; i++) b[i] = tkt_uniform();
                        for (i = 0; i < nr; i++) bias[i] = tkt_uniform(), c1[i] = c2[i] = tkt_uniform();
                        aux.alpha = 1.25f;
                        aux.beta = betas[ib];
                        aux.bias = ibias ? bias : NULL;
                        aux.rsa = rsa;
                        e->f(k, a, b, ldb, c1, nr, 1, n, &aux);
                        e->row1(k, a, b, ldb, c2, nr, 1, n, &aux);
                        TKT_CHECK(!memcmp(c1, c2, nr * sizeof(float)), "%s and its row1 differ on one row, k=%zu n=%zu beta=%g bias=%zu",
                                  e->name, k, n, (double)aux.beta, ibias);
                        free(a), free(b), free(bias), free(c1), free(c2);
                    }
    }
}

static size_t n_kernels;
#define TKT_UKR(name, mr, nv, ku, pf) (check_kernel(#name, name, mr, nv, ku, vl, FORM_PACKED), n_kernels++);
#define TKT_UKR_DIRECT(name, mr, nv, ku, pf) (check_kernel(#name, name, mr, nv, ku, vl, FORM_DIRECT), n_kernels++);
#define TKT_UKR_DOT(name, mr, nb, ku, pf) (check_kernel(#name, name, mr, nb, ku, vl, FORM_DOT), n_kernels++);
/* a direct kernel's column sweep is checked as a direct kernel three tiles wide: the edge matrix
 * then holds whole tiles, a ragged last tile of each width class, and a single column */
#define TKT_UKR_SWEEP(name, mr, nv, ku, pf) (check_kernel(#name, name, mr, 3 * (nv), ku, vl, FORM_DIRECT), n_kernels++);
#define TKT_PACK_A(fn, max_mr) check_pack_a(#fn, fn, max_mr);
#define TKT_PACK_T(fn) check_pack_t(#fn, fn);
#define TKT_ENTRY(name, mr, nv, ku, pf) {name, #name, mr, nv, ku, pf, name##_row1},
#define TKT_ISA(isa, runnable)                                                                   \
    if (runnable) {                                                                              \
        size_t vl = TKI_VL_F32_##isa();                                                          \
        size_t before = n_kernels;                                                               \
        size_t packs_before = n_packs;                                                           \
        TKI_UKR_LIST_F32_##isa(TKT_UKR)                                                          \
        TKI_UKR_DIRECT_LIST_F32_##isa(TKT_UKR_DIRECT)                                            \
        TKI_UKR_SWEEP_LIST_F32_##isa(TKT_UKR_SWEEP)                                              \
        {                                                                                        \
            static const ukr_entry direct_list[] = {TKI_UKR_DIRECT_LIST_F32_##isa(TKT_ENTRY){0, 0, 0, 0, 0, 0, 0}}; \
            check_row1(direct_list, vl);                                                         \
        }                                                                                        \
        TKI_UKR_DOT_LIST_F32_##isa(TKT_UKR_DOT)                                                  \
        TKI_PACK_A_LIST_F32_##isa(TKT_PACK_A)                                                    \
        TKI_PACK_T_LIST_F32_##isa(TKT_PACK_T)                                                    \
        printf("isa %s: %zu microkernels checked (vector length %zu floats), A packing %s\n", #isa, \
               n_kernels - before, vl, n_packs > packs_before ? "checked" : "portable");          \
    } else {                                                                                     \
        printf("isa %s: skipped, this CPU cannot run it\n", #isa);                               \
    }

int main(void)
{
    tkt_init();
    (void)check_pack_a; /* referenced even where no ISA of the build packs A itself */
    (void)check_pack_t;
    TKI_GEN_ISAS(TKT_ISA)
    return tkt_finish("test_ukr");
}
