/* buckets.c - from the record log to a table: the sample-free shape grid (ranges derived from the
 * tile sizes and cache blocks, not from sampled shapes), the model's best configuration per grid
 * bucket over the measured level-0 candidates, neighbours with the same winner merged, and the table
 * written through a temporary file and a rename under a lock. */
#include "buckets.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int read_level0(const char *log, const char *cpu, measured_l0 *out, int cap)
{
    FILE *f = fopen(log, "r");
    char line[1024], want[96];
    int n = 0;
    if (!f) return 0;
    snprintf(want, sizeof want, " cpu=%s ", cpu);
    while (fgets(line, sizeof line, f)) {
        measured_l0 m;
        char form[16], kind[8];
        const char *t = strstr(line, " tile="), *g = strstr(line, " gflops=");
        if (strncmp(line, "tk-record 1 op=gemm ", 20) || !strstr(line, want) || !strstr(line, " level=0 ") ||
            !strstr(line, " result=ok ") || !t || !g)
            continue;
        if (sscanf(t, " tile=%ux%u%7[a-z] ku=%u form=%15s kc=%llu", &m.c.mr, &m.c.nv, kind, &m.c.ku, form, &m.kc) != 6)
            continue;
        m.c.direct = !strcmp(form, "direct");
        m.gflops = strtod(g + 8, NULL);
        if (n < cap) out[n] = m;
        n++;
    }
    fclose(f);
    return n < cap ? n : cap;
}

int read_machine(const char *log, const char *cpu, double *bw_l2, double *bw_l3, double *bw_dram)
{
    FILE *f = fopen(log, "r");
    char line[1024], want[96];
    int found = 0;
    if (!f) return 0;
    snprintf(want, sizeof want, "tk-record 1 op=machine cpu=%s ", cpu);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, want, strlen(want)) &&
            sscanf(line + strlen(want), "bw_l2=%lf bw_l3=%lf bw_dram=%lf", bw_l2, bw_l3, bw_dram) == 3)
            found = 1; /* the last record wins */
    fclose(f);
    return found;
}

/* The grid: bucket upper bounds in m and n, from the register tiles (1, 4, 8, 16) and the sizes
 * where a second tile, a second cache block or the packing cost starts to matter. */
static const unsigned long long m_hi[] = {1, 4, 8, 16, 32, 64, 256, 1024, 0};
static const unsigned long long n_hi[] = {16, 32, 64, 128, 512, 0};
#define NM (sizeof m_hi / sizeof m_hi[0])
#define NN (sizeof n_hi / sizeof n_hi[0])

/* Representative shapes of a bucket: its top edge (0 = open: a large value), and three depths. */
static double edge(unsigned long long hi, double open) { return hi ? (double)hi : open; }

static int same_choice(const tkt_row *a, const tkt_row *b)
{
    return a->mr == b->mr && a->nr == b->nr && a->ku == b->ku && a->mc == b->mc && a->nc == b->nc &&
           a->kc == b->kc && a->packa == b->packa && a->packb == b->packb && a->split == b->split &&
           a->order == b->order;
}

int choose_rows(const isa_desc *isa, const cand_caps *k, const model_machine *h, const measured_l0 *l0, int n0,
                tkt_row *rows, int cap)
{
    static tkt_row grid[NM][NN];
    int n = 0;
    if (n0 <= 0) return 0;
    for (unsigned a = 0; a < NM; a++)
        for (unsigned b = 0; b < NN; b++) {
            const double ms = edge(m_hi[a], 4096), ns = edge(n_hi[b], 4096);
            static const double ks[3] = {64, 512, 4096};
            double best = INFINITY;
            tkt_row win;
            memset(&win, 0, sizeof win);
            for (int i = 0; i < n0; i++) {
                const cand_l0 *c = &l0[i].c;
                unsigned long long kcs[64], mcs[64], ncs[64];
                int nk = cand_kc(c, k, kcs, 64);
                for (int x = 0; x < nk && x < 64; x++) {
                    int nm = cand_mc(c, kcs[x], k, mcs, 64), nn = cand_nc(c, kcs[x], k, ncs, 64);
                    for (int y = 0; y < nm && y < 64; y++)
                        for (int z = 0; z < nn && z < 64; z++) {
                            model_config mc = {c->mr, (unsigned)(c->nv * k->lanes_per_vector), kcs[x], mcs[y],
                                               ncs[z], l0[i].gflops, !c->direct, !c->direct, 1, 'n'};
                            double cost = 0;
                            for (int q = 0; q < 3; q++)
                                cost += model_time(h, &mc, ms, ns, ks[q]) / (2.0 * ms * ns * ks[q]);
                            if (cost < best) {
                                best = cost;
                                win.mr = c->mr;
                                win.nr = isa->vla ? c->nv : c->nv * isa->lanes;
                                win.ku = c->ku;
                                win.kc = kcs[x];
                                win.mc = mcs[y];
                                win.nc = isa->vla ? ncs[z] / k->lanes_per_vector : ncs[z];
                                win.packa = win.packb = !c->direct;
                                /* two threads cut the larger dimension of the bucket */
                                win.split = ms >= ns ? 'm' : 'n';
                                win.order = 'n';
                            }
                        }
                }
            }
            win.m.lo = a ? m_hi[a - 1] + 1 : 1;
            win.m.hi = m_hi[a] ? m_hi[a] : TK_SIZE_INF;
            win.n.lo = b ? n_hi[b - 1] + 1 : 1;
            win.n.hi = n_hi[b] ? n_hi[b] : TK_SIZE_INF;
            win.k.lo = 1;
            win.k.hi = TK_SIZE_INF;
            snprintf(win.evidence, sizeof win.evidence, "measured");
            grid[a][b] = win;
        }
    /* merge: within an m range, a run of n buckets with one winner becomes one row; an m range whose
     * buckets all agree becomes one row over every n */
    for (unsigned a = 0; a < NM; a++) {
        unsigned b = 0;
        while (b < NN) {
            unsigned e = b;
            while (e + 1 < NN && same_choice(&grid[a][b], &grid[a][e + 1])) e++;
            if (n < cap) {
                rows[n] = grid[a][b];
                rows[n].n.hi = grid[a][e].n.hi;
            }
            n++;
            b = e + 1;
        }
    }
    if (n > cap) return -1;
    /* the last row must be the catch-all */
    rows[n - 1].m.lo = rows[n - 1].n.lo = 1;
    rows[n - 1].m.hi = rows[n - 1].n.hi = TK_SIZE_INF;
    return n;
}

int write_table_atomically(const char *path, const tkt_table *t, const isa_desc *isa, char *err, size_t errcap)
{
    char tmp[1100], lock[1100];
    int fd;
    FILE *f;
    snprintf(lock, sizeof lock, "%s.lock", path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    fd = open(lock, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) {
        snprintf(err, errcap, "%s exists: another run is writing this table (remove it if none is)", lock);
        return 0;
    }
    dprintf(fd, "%ld\n", (long)getpid());
    close(fd);
    f = fopen(tmp, "w");
    if (!f || !write_table(f, t, isa) || fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errcap, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        remove(lock);
        return 0;
    }
    remove(lock);
    return 1;
}
