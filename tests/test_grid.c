/* The retune's shape grid (tune/buckets.c): its cells cover every (m, n, k) exactly once, decode
 * shapes (m <= 16, n > 512) have a cell of their own row count, the wide cells of 17..deep_m rows are
 * split in depth at deep_k (and only those), cells of a large C at shallow_k and GRID_MID_K, narrow cells of few rows at GRID_NARROW_K0 and GRID_NARROW_K, streamed cells where B leaves half of L2 (a finite band's again where A, B and C at its middle width leave it), and merging the cells' winners into table rows loses no
 * cell's choice: a shape's first matching row makes its cell's decision. same_code tells configurations
 * that run the same code on a shape (blocks it cuts away aside) from those that do not. */
#include "../tune/buckets.h"
#include "tktest.h"

static int contains(range r, unsigned long long v) { return r.lo <= v && v <= r.hi; }

/* the rows of the m band a decode shape's 257..512 cell covers (1, 2, 3, 4, 5..6, 7..8, 9..12,
 * 13..16); past 512 columns each row count has its own cells */
static unsigned long long band_rows(unsigned long long m, unsigned long long n)
{
    return n > 512 || m <= 4 ? m : m <= 6 ? 6 : m <= 8 ? 8 : m <= 12 ? 12 : 16;
}

/* each cell's corners and middle find its own decision first among the merged rows */
static void check_rows(const grid_cell *cells, int nc, const tkt_row *win, const tkt_row *rows, int nr)
{
    for (int i = 0; i < nc && nr > 0; i++) {
        unsigned long long ms[3] = {cells[i].m.lo, cells[i].m.hi == TK_SIZE_INF ? 5000 : cells[i].m.hi,
                                    (cells[i].m.lo + (cells[i].m.hi == TK_SIZE_INF ? 5000 : cells[i].m.hi)) / 2};
        unsigned long long ns[3] = {cells[i].n.lo, cells[i].n.hi == TK_SIZE_INF ? 30000 : cells[i].n.hi,
                                    (cells[i].n.lo + (cells[i].n.hi == TK_SIZE_INF ? 30000 : cells[i].n.hi)) / 2};
        unsigned long long ks[2] = {cells[i].k.lo, cells[i].k.hi == TK_SIZE_INF ? 30000 : cells[i].k.hi};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int c = 0; c < 2; c++) {
                    int r = 0;
                    while (r < nr && !(contains(rows[r].m, ms[a]) && contains(rows[r].n, ns[b]) && contains(rows[r].k, ks[c]))) r++;
                    TKT_CHECK(r < nr && same_choice(&rows[r], &win[i]), "%llux%llux%llu (cell %d) finds row %d, not its cell's choice",
                              ms[a], ns[b], ks[c], i, r);
                }
    }
}

int main(void)
{
    static grid_cell cells[GRID_MAX + 1];
    static tkt_row win[GRID_MAX], rows[GRID_MAX];
    tkt_init();
    const unsigned long long deep_k = 2048, deep_m = 596, shallow_k = 32, l2 = 2u << 20;
    int whole = grid_cells(cells, GRID_MAX + 1, 2048, 0, 0, 0, 0);
    int split_only = grid_cells(cells, GRID_MAX + 1, 2048, deep_k, deep_m, 0, 0);
    int with_shallow = grid_cells(cells, GRID_MAX + 1, 2048, deep_k, deep_m, shallow_k, 0);
    int nc = grid_cells(cells, GRID_MAX + 1, 2048, deep_k, deep_m, shallow_k, l2);
    /* the warm sides' depths with a 2 MiB L2: B in half of it at the cell's widest n */
    const unsigned long long warm512 = 512, warm1024 = 256, warm_open = 64;
    TKT_CHECK(grid_hot_depth(l2, 512) == warm512 && grid_hot_depth(l2, 1024) == warm1024 &&
                  grid_hot_depth(l2, GRID_DECODE_WARM_N) == warm_open,
              "grid_hot_depth on 2 MiB: %.0f %.0f %.0f", grid_hot_depth(l2, 512), grid_hot_depth(l2, 1024),
              grid_hot_depth(l2, GRID_DECODE_WARM_N));
    TKT_CHECK(nc > 0 && nc <= GRID_MAX, "%d cells, room for %d", nc, GRID_MAX);
    /* bands 17..32 to 257..512 split their open cell */
    TKT_CHECK(split_only == whole + 5, "%d cells split in depth, %d without: 5 wide cells should split", split_only, whole);
    /* a C of 32768 floats or more at the band's tallest row count (2048 for the open band) and the
     * cell's narrowest columns: 17..32 x 1025.., 33..64 x 513.., 65..128 x 257.., 129..256 x 129..,
     * 257..512 x 65.., 513..1024 x 33.., 1025.. x 17.. and every wider cell of those bands: 32, each
     * with two shallow sides (1..16, 17..32) and a middle one */
    /* ... and the narrow cells of 2, 3 and 4 rows (1..8 and 9..12 columns) two, up to GRID_NARROW_K0
     * and GRID_NARROW_K */
    TKT_CHECK(with_shallow == split_only + 96 + 12,
              "%d cells with a shallow side, %d without: 32 cells should have three more, 6 narrow ones two", with_shallow,
              split_only);
    /* 16 row counts, each with a decode cell 513..1024 wide (split in depth: one more) and one open
     * (split in depth, its shallow side in n twice, at 4096 and 8192: three more); the 257..512 cells
     * of the eight bands up to 16 rows (1, 2, 3, 4, 5..6, 7..8, 9..12, 13..16) split in depth */
    TKT_CHECK(grid_decode_wide_warm(l2) && !grid_decode_wide_warm(1u << 20) && grid_warm_depth(l2, 16, 8192, 64) == 24 &&
                  grid_warm_depth(l2, 4, 8192, 64) == 40 && grid_warm_depth(l2, 4, 4096, 32) == 32,
              "B 16 deep at 8192 columns beside 16 rows of C fits 3/4 of an L2 of 2 MiB, not of 1 MiB; depths %.0f %.0f %.0f",
              grid_warm_depth(l2, 16, 8192, 64), grid_warm_depth(l2, 4, 8192, 64), grid_warm_depth(l2, 4, 4096, 32));
    /* and the open cell's deep side three where half the L2 holds B 128 deep at 2048 columns: 2048
     * wide up to that depth and deeper, and wider (two more per row count) */
    const unsigned long long deep_warm = 128;
    TKT_CHECK(grid_decode_deep_warm(l2) == deep_warm && grid_decode_deep_warm(1u << 20) == 0 &&
                  grid_decode_deep_warm(4u << 20) == 256,
              "the deep decode side's warm depth at 2048 columns: %llu on 2 MiB, %llu on 1 MiB, %llu on 4 MiB",
              grid_decode_deep_warm(l2), grid_decode_deep_warm(1u << 20), grid_decode_deep_warm(4u << 20));
    /* and the deep side of each finite band (the eight 257..512 cells, the 16 513..1024) two, an L2
     * side up to where A, B and C at the band's middle width fill the L2, and deeper */
    TKT_CHECK(grid_l2_depth(l2, 16, 362) == 1368 && grid_l2_depth(l2, 16, 724) == 688 &&
                  grid_l2_depth(1u << 20, 16, 362) == 672 && grid_l2_depth(1u << 20, 1, 724) == 360,
              "L2 sides' depths %.0f %.0f %.0f %.0f", grid_l2_depth(l2, 16, 362), grid_l2_depth(l2, 16, 724),
              grid_l2_depth(1u << 20, 16, 362), grid_l2_depth(1u << 20, 1, 724));
    TKT_CHECK(nc == with_shallow + 64 + 8 + 32 + 24, "%d cells with warm sides, %d without: 128 more expected", nc,
              with_shallow);
    /* an L2 that does not hold B that wide: the open cells' shallow sides split once, at 4096, and
     * their deep sides not at all */
    TKT_CHECK(grid_cells(cells, GRID_MAX + 1, 2048, deep_k, deep_m, shallow_k, 1u << 20) == nc - 48,
              "1 MiB L2: %d cells, %d with 2 MiB: 48 fewer expected",
              grid_cells(cells, GRID_MAX + 1, 2048, deep_k, deep_m, shallow_k, 1u << 20), nc);
    nc = grid_cells(cells, GRID_MAX + 1, 2048, deep_k, deep_m, shallow_k, l2);

    /* the edges, one either side of each, and random points */
    static const unsigned long long edge[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 32, 33, 64, 65, 96, 97, 128, 129, 256,
                                              257, 511, 512, 513, 1024, 1025, 2048, 4096, 4097, 8192, 8193, 11008, 100000};
    static const unsigned long long ke[] = {1, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257, 512, 513, 2048, 2049};
    const int ne = (int)(sizeof edge / sizeof edge[0]), nke = (int)(sizeof ke / sizeof ke[0]);
    for (int t = 0; t < ne * ne * nke + 2000; t++) {
        unsigned long long m = t < ne * ne * nke ? edge[t / nke / ne] : tkt_range(1, 3000);
        unsigned long long n = t < ne * ne * nke ? edge[t / nke % ne] : tkt_range(1, 20000);
        unsigned long long k = t < ne * ne * nke ? ke[t % nke] : tkt_range(1, 9000);
        int hits = 0, at = -1;
        for (int i = 0; i < nc; i++)
            if (contains(cells[i].m, m) && contains(cells[i].n, n) && contains(cells[i].k, k)) hits++, at = i;
        TKT_CHECK(hits == 1, "%llux%llux%llu lies in %d cells", m, n, k, hits);
        if (hits != 1) continue;
        const int split = m > 16 && n > 1024 && cells[at].m.hi <= deep_m, decode = m <= 16 && n > 512;
        /* a streamed cell (at most 16 rows, n past 256) splits at the depth of its band's widest n */
        const unsigned long long warm_k = m > 16 || n <= 256 ? 0 : n <= 512 ? warm512 : n <= 1024 ? warm1024 : warm_open;
        /* ... and the open one's deep side up to 2048 columns again at deep_warm */
        /* ... a finite band's deep side (257..512, 513..1024) at its L2 side's depth: B at the band's
         * middle width, A and C beside it, within the L2 (the bench's rule) */
        const unsigned long long l2_side = m <= 16 && n > 256 && n <= 1024 && k > warm_k
                                               ? (unsigned long long)grid_l2_depth(l2, (double)band_rows(m, n), n <= 512 ? 362 : 724)
                                               : 0;
        const unsigned long long dw = decode && n > 1024 && n <= GRID_DECODE_DEEP_WARM_N && k > warm_k ? deep_warm : l2_side;
        /* (a decode cell's C is never large: 16 rows, however wide) */
        const double rows_top = cells[at].m.hi == TK_SIZE_INF ? 2048.0 : (double)cells[at].m.hi;
        const int big_c = !decode && rows_top * (double)cells[at].n.lo >= GRID_SHALLOW_C;
        /* a narrow cell of 2 to 4 rows splits at GRID_NARROW_K0 and GRID_NARROW_K */
        const int narrow = m >= 2 && m <= GRID_NARROW_M && n <= GRID_NARROW_N;
        const unsigned long long lo = big_c && k > GRID_MID_K ? GRID_MID_K + 1 : big_c && k > shallow_k ? shallow_k + 1 : big_c && k > shallow_k / 2 ? shallow_k / 2 + 1 : warm_k && k > warm_k ? (dw && k > dw ? dw + 1 : warm_k + 1) : narrow && k > GRID_NARROW_K ? GRID_NARROW_K + 1 : narrow && k > GRID_NARROW_K0 ? GRID_NARROW_K0 + 1 : 1;
        const unsigned long long want_lo = split && k > deep_k ? deep_k + 1 : lo,
                                 want_hi = big_c && k <= shallow_k / 2 ? shallow_k / 2 : big_c && k <= shallow_k ? shallow_k : big_c && k <= GRID_MID_K ? GRID_MID_K : narrow && k <= GRID_NARROW_K0 ? GRID_NARROW_K0 : narrow && k <= GRID_NARROW_K ? GRID_NARROW_K : split && k <= deep_k ? deep_k
                                           : warm_k && k <= warm_k ? warm_k : dw && k <= dw ? dw : TK_SIZE_INF;
        /* both sides of a narrow cell are marked (odd depths, retune.c), its shallow one as such */
        TKT_CHECK(cells[at].narrow == narrow && (!narrow || cells[at].shallow == (k <= GRID_NARROW_K)),
                  "%llux%llux%llu: narrow %d, shallow %d", m, n, k, cells[at].narrow, cells[at].shallow);
        TKT_CHECK(cells[at].k.lo == want_lo && cells[at].k.hi == want_hi,
                  "%llux%llux%llu lies in a cell of depths %llu..%llu, not %llu..%llu", m, n, k, cells[at].k.lo,
                  cells[at].k.hi, want_lo, want_hi);
        if (decode)
            TKT_CHECK(cells[at].m.lo == m && cells[at].m.hi == m, "decode %llux%llu in the cell of %llu..%llu rows", m,
                      n, cells[at].m.lo, cells[at].m.hi);
        /* the warm side of a decode cell of an open band stops at GRID_DECODE_WARM_N (warm 1), the
         * next up to GRID_DECODE_WIDE_N is warm too (2 MiB holds B there), the shallow depths past it
         * are streamed (warm 2); a deep side is neither */
        if (decode && k <= warm_k && n > 1024)
            TKT_CHECK(n > GRID_DECODE_WIDE_N   ? cells[at].n.lo == GRID_DECODE_WIDE_N + 1 && cells[at].warm == 2
                      : n > GRID_DECODE_WARM_N ? cells[at].n.lo == GRID_DECODE_WARM_N + 1 && cells[at].n.hi == GRID_DECODE_WIDE_N && cells[at].warm == 1
                                               : cells[at].n.hi == GRID_DECODE_WARM_N && cells[at].warm == 1,
                      "decode %llux%llux%llu in the cell of widths %llu..%llu (warm %d)", m, n, k, cells[at].n.lo,
                      cells[at].n.hi, cells[at].warm);
        /* the deep side of an open decode cell: up to 2048 columns one cell to deep_warm (warm 1)
         * and one deeper, wider one more */
        if (decode && k > warm_k && n > 1024)
            TKT_CHECK(n > GRID_DECODE_DEEP_WARM_N ? cells[at].n.lo == GRID_DECODE_DEEP_WARM_N + 1 && cells[at].n.hi == TK_SIZE_INF
                                                 : cells[at].n.lo == 1025 && cells[at].n.hi == GRID_DECODE_DEEP_WARM_N,
                      "deep decode %llux%llux%llu in the cell of widths %llu..%llu", m, n, k, cells[at].n.lo, cells[at].n.hi);
        TKT_CHECK(cells[at].warm == (warm_k && k <= warm_k ? (n > GRID_DECODE_WIDE_N ? 2 : 1) : dw && k <= dw ? 1 : 0),
                  "%llux%llux%llu lies in a cell of warm %d", m, n, k, cells[at].warm);
        /* the representative shape is in its cell, or at the open end */
        TKT_CHECK(cells[at].ms >= (double)cells[at].m.lo && (cells[at].m.hi == TK_SIZE_INF || cells[at].ms == (double)cells[at].m.hi),
                  "cell %d stands for %.0f rows", at, cells[at].ms);
    }

    /* winners that vary by row count and width, equal over runs of n: rows merge, decisions stay */
    for (int i = 0; i < nc; i++) {
        memset(&win[i], 0, sizeof win[i]);
        win[i].m = cells[i].m, win[i].n = cells[i].n, win[i].k = cells[i].k;
        win[i].mr = (unsigned)(cells[i].m.lo % 7) + 1;
        /* each side of a split cell decides differently (else nothing tells a merge across it) */
        win[i].packb = cells[i].k.lo > 1;
        win[i].order = cells[i].k.hi == shallow_k ? 'm' : 'n';
        win[i].nr = cells[i].n.lo > 512 ? 64 : cells[i].n.lo > 64 ? 32 : 16;
        /* a middle cell decides apart from its deeper side too */
        win[i].kc = cells[i].k.hi == GRID_MID_K ? 128 : 256, win[i].mc = win[i].mr, win[i].nc = win[i].nr, win[i].split = 'm';
    }
    int nr = merge_grid(win, nc, rows, GRID_MAX);
    TKT_CHECK(nr > 0 && nr < nc, "%d rows from %d cells: equal neighbours not merged", nr, nc);
    TKT_CHECK(nr > 0 && rows[nr - 1].m.lo == 1 && rows[nr - 1].m.hi == TK_SIZE_INF && rows[nr - 1].n.lo == 1 &&
                  rows[nr - 1].n.hi == TK_SIZE_INF && rows[nr - 1].k.lo == 1 && rows[nr - 1].k.hi == TK_SIZE_INF,
              "the last row is not the catch-all");
    check_rows(cells, nc, win, rows, nr);
    int shallow_rows = 0;
    for (int r = 0; r < nr; r++) shallow_rows += rows[r].k.hi == shallow_k;
    TKT_CHECK(shallow_rows > 0, "no row of depths 1..%llu: the shallow cells' own choices were lost", shallow_k);
    int thin_rows = 0;
    for (int r = 0; r < nr; r++) thin_rows += rows[r].k.lo == 1 && rows[r].k.hi == shallow_k / 2;
    TKT_CHECK(thin_rows > 0, "no row of depths 1..%llu: the thinnest cells' own choices were lost", shallow_k / 2);
    int mid_rows = 0;
    for (int r = 0; r < nr; r++) mid_rows += rows[r].k.lo == shallow_k + 1 && rows[r].k.hi == GRID_MID_K;
    TKT_CHECK(mid_rows > 0, "no row of depths %llu..%d: the middle cells' own choices were lost", shallow_k + 1, GRID_MID_K);
    /* a shallow cell that chose as its deeper side did is joined to it: no row of its own (the
     * 17..32 cells take their middle side's choice, then the 1..16 ones theirs) */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nc; i++)
            if (win[i].k.hi == (pass ? shallow_k / 2 : shallow_k))
                for (int j = i + 1; j < nc; j++)
                    if (win[j].m.lo == win[i].m.lo && win[j].n.lo == win[i].n.lo && win[j].k.lo == win[i].k.hi + 1) {
                        const range k = win[i].k;
                        win[i] = win[j], win[i].k = k;
                        break;
                    }
    nr = merge_grid(win, nc, rows, GRID_MAX);
    check_rows(cells, nc, win, rows, nr);
    shallow_rows = 0;
    for (int r = 0; r < nr; r++) shallow_rows += rows[r].k.hi == shallow_k || rows[r].k.hi == shallow_k / 2;
    TKT_CHECK(nr > 0 && shallow_rows == 0, "%d rows ending at depth %llu or %llu where their deeper side decides the same",
              shallow_rows, shallow_k / 2, shallow_k);
    {
        /* same_code: blocks the shape cuts away do not make two configurations different code */
        tkt_row a, b;
        memset(&a, 0, sizeof a);
        a.mr = 6, a.nr = 64, a.ku = 4, a.kc = 512, a.mc = 96, a.nc = 64, a.packa = 0, a.packb = 0, a.split = 'm', a.order = 'n';
        b = a, b.kc = 1024;
        TKT_CHECK(same_code(&a, &b, 1048576, 100, 100, 300), "kc 512 and 1024 at k = 300 ran as different code");
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 100, 600), "kc 512 and 1024 at k = 600 ran as the same code");
        b = a, b.mc = 192;
        TKT_CHECK(same_code(&a, &b, 1048576, 90, 100, 300), "mc 96 and 192 at m = 90 ran as different code");
        TKT_CHECK(!same_code(&a, &b, 1048576, 150, 100, 300), "mc 96 and 192 at m = 150 ran as the same code");
        b = a, b.nc = 512, b.split = 'n';
        TKT_CHECK(same_code(&a, &b, 1048576, 100, 1000, 300), "B in place: nc and the split changed the code");
        /* B in place, rows 4 KiB apart: the driver runs both at the depth a 2 MiB L2 keeps (128) */
        b = a, b.kc = 1024;
        TKT_CHECK(same_code(&a, &b, 1048576, 100, 1024, 600), "kc 512 and 1024 at n = 1024 ran as different code");
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 1040, 600), "kc 512 and 1024 at n = 1040 ran as the same code");
        TKT_CHECK(!same_code(&a, &b, 1048576, 6, 1024, 600), "one row tile: kc 512 and 1024 at n = 1024 ran as the same code");
        b.kc = 64;
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 1024, 600), "kc 512 and 64 at n = 1024 ran as the same code");
        b = a;
        a.packa = b.packa = 1, a.packb = b.packb = 1, a.nc = 128, b.nc = 256;
        TKT_CHECK(same_code(&a, &b, 1048576, 100, 100, 300), "packed nc 128 and 256 at n = 100 ran as different code");
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 200, 300), "packed nc 128 and 256 at n = 200 ran as the same code");
        b = a, b.ku = 2;
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 100, 300), "another unroll ran as the same code");
        b = a, b.pf = 8;
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 100, 300), "a prefetching kernel ran as the same code");
        b = a, b.packb = 0;
        TKT_CHECK(!same_code(&a, &b, 1048576, 100, 100, 300), "B packed and in place ran as the same code");
    }
    /* a cap too small is an error, not a cut table */
    TKT_CHECK(merge_grid(win, nc, rows, 3) == -1, "merge_grid wrote past its cap's worth of rows");
    return tkt_finish("test_grid");
}
