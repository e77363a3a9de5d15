// bench/shim.cc - the driver: reads the shape set, measures the machine's roofs, registers one
// Google Benchmark per (thread count, shape, library), verifies each case against the naive
// reference before it is timed, and hands the medians to report.cc.
//
// The cases themselves are plain C (bench.h, case_*.c): this file is the only place that knows
// about Google Benchmark.
#include "bench.h"
#include "cold.h"
#include "report.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#ifndef TKB_DEFAULT_SHAPES
#define TKB_DEFAULT_SHAPES "bench/shapes.tsv"
#endif
#ifndef TKB_DEFAULT_OUT
#define TKB_DEFAULT_OUT "bench/results"
#endif

using tkb::Report;
using tkb::Result;
using tkb::Shape;
using tkb::Status;

namespace {

// ---- options --------------------------------------------------------------------------------------

struct Options {
    std::string shapes = TKB_DEFAULT_SHAPES;
    std::vector<std::string> filter; // categories to keep; empty: all
    std::vector<int> threads;        // empty: 1 and all CPUs
    std::vector<std::string> libs;   // libraries to run; empty: all built in
    std::string out = TKB_DEFAULT_OUT;
    bool quick = false, warm = false;
    bool describe = false; // print the libraries' description lines and measure nothing
    double min_time = -1; // per repetition, seconds (-1: default)
    int reps = -1;        // repetitions; the median is reported (-1: default)
    bool reps_given = false;
    size_t bw_mib = 0;    // bandwidth / cold-operand buffer size (0: automatic)
};

const char *usage_text =
    "usage: tk_bench [options] [Google Benchmark flags]\n"
    "  --shapes=FILE      shape set, TSV lines 'category M N K', '#' comments (default " TKB_DEFAULT_SHAPES ")\n"
    "  --filter=CAT[,CAT] run only these categories\n"
    "  --threads=1,2      thread counts (default: 1 and every CPU this process may use)\n"
    "  --libs=openblas,.. peers to run besides tk (openblas, libxsmm, eigen; default all built in)\n"
    "  --out=DIR          where tk_bench.csv / .txt / _<t>t.svg go (default " TKB_DEFAULT_OUT ")\n"
    "  --quick            first shape of each category, 3 repetitions of 0.02 s\n"
    "  --min-time=S       minimum time per repetition in seconds (default 0.05)\n"
    "  --reps=N           repetitions; the median is reported (default 5, and 3 for\n"
    "                     shapes of 20 GFLOP or more)\n"
    "  --warm             keep bandwidth-bound operands in place (default: rotate them cold)\n"
    "  --bw-mib=N         size of the bandwidth / cold-operand buffer (default 4 x LLC, <= 2048)\n"
    "  --describe         print each library's description line (OpenBLAS: the core it chose) and exit\n"
    "Any --benchmark_* flag goes to Google Benchmark (e.g. --benchmark_filter, --benchmark_out).\n";

[[noreturn]] void die(const std::string &msg)
{
    std::cerr << "tk_bench: " << msg << "\n";
    std::exit(2);
}

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty())
            out.push_back(cur);
    return out;
}

double parse_double(const std::string &flag, const std::string &v)
{
    char *end = nullptr;
    errno = 0;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || errno || !(d > 0))
        die(flag + ": expected a positive number, got '" + v + "'");
    return d;
}

long parse_long(const std::string &flag, const std::string &v)
{
    char *end = nullptr;
    errno = 0;
    long l = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno || l <= 0)
        die(flag + ": expected a positive integer, got '" + v + "'");
    return l;
}

// Takes our own flags out of argv and leaves the rest for benchmark::Initialize.
Options parse_options(int *argc, char **argv)
{
    Options o;
    int keep = 1;
    for (int i = 1; i < *argc; i++) {
        std::string a = argv[i];
        auto val = [&](const char *name) -> const char * {
            size_t n = std::strlen(name);
            return a.compare(0, n, name) == 0 && a.size() > n && a[n] == '=' ? argv[i] + n + 1 : nullptr;
        };
        const char *v;
        if (a == "--help" || a == "-h") {
            std::cout << usage_text;
            std::exit(0);
        } else if ((v = val("--shapes"))) {
            o.shapes = v;
        } else if ((v = val("--filter"))) {
            o.filter = split(v, ',');
        } else if ((v = val("--threads"))) {
            for (const std::string &t : split(v, ','))
                o.threads.push_back(int(parse_long("--threads", t)));
        } else if ((v = val("--libs"))) {
            o.libs = split(v, ',');
        } else if ((v = val("--out"))) {
            o.out = v;
        } else if (a == "--quick") {
            o.quick = true;
        } else if (a == "--warm") {
            o.warm = true;
        } else if (a == "--describe") {
            o.describe = true;
        } else if ((v = val("--min-time"))) {
            o.min_time = parse_double("--min-time", v);
        } else if ((v = val("--reps"))) {
            o.reps = int(parse_long("--reps", v));
            o.reps_given = true;
        } else if ((v = val("--bw-mib"))) {
            o.bw_mib = size_t(parse_long("--bw-mib", v));
        } else if (a.rfind("--benchmark_", 0) == 0 || a.rfind("--v=", 0) == 0) {
            argv[keep++] = argv[i]; // Google Benchmark's
        } else {
            die("unknown option '" + a + "' (see --help)");
        }
    }
    *argc = keep;
    if (o.min_time < 0)
        o.min_time = o.quick ? 0.02 : 0.05;
    if (o.reps < 0)
        o.reps = o.quick ? 3 : 5;
    return o;
}

// ---- shapes -----------------------------------------------------------------------------------------

std::vector<Shape> load_shapes(const Options &o)
{
    std::ifstream f(o.shapes);
    if (!f)
        die("cannot read shapes file '" + o.shapes + "' (use --shapes=FILE)");
    std::vector<Shape> all;
    std::string line;
    for (int lineno = 1; std::getline(f, line); lineno++) {
        size_t start = line.find_first_not_of(" \t\r");
        if (start == std::string::npos || line[start] == '#')
            continue;
        std::istringstream in(line);
        Shape s;
        long long m, n, k;
        std::string extra;
        if (!(in >> s.category >> m >> n >> k) || (in >> extra) || m <= 0 || n <= 0 || k <= 0)
            die(o.shapes + ":" + std::to_string(lineno) + ": expected 'category M N K' with M, N, K > 0");
        s.m = size_t(m), s.n = size_t(n), s.k = size_t(k);
        all.push_back(s);
    }
    for (const std::string &cat : o.filter) {
        bool found = false;
        for (const Shape &s : all)
            found |= s.category == cat;
        if (!found) {
            std::vector<std::string> cats;
            for (const Shape &s : all)
                if (std::find(cats.begin(), cats.end(), s.category) == cats.end())
                    cats.push_back(s.category);
            std::string list;
            for (const std::string &c : cats)
                list += (list.empty() ? "" : ", ") + c;
            die("--filter: no category '" + cat + "' in " + o.shapes + " (it has: " + list + ")");
        }
    }
    std::vector<Shape> out;
    for (const Shape &s : all) {
        bool keep = o.filter.empty();
        for (const std::string &cat : o.filter)
            keep |= s.category == cat;
        if (keep && o.quick) // the first shape of each category
            for (const Shape &t : out)
                keep &= t.category != s.category;
        if (keep)
            out.push_back(s);
    }
    if (out.empty())
        die("no shapes selected");
    return out;
}

// ---- libraries ------------------------------------------------------------------------------------

std::vector<const tkb_lib *> built_in_libs()
{
    std::vector<const tkb_lib *> v{&tkb_lib_tk};
#ifdef TKB_HAVE_TK_PREV
    v.push_back(&tkb_lib_tk_prev);
#endif
#ifdef TKB_HAVE_OPENBLAS
    v.push_back(&tkb_lib_openblas);
#endif
#ifdef TKB_HAVE_XSMM
    v.push_back(&tkb_lib_xsmm);
#endif
#ifdef TKB_HAVE_EIGEN
    v.push_back(&tkb_lib_eigen);
#endif
    return v;
}

// The previous-table build of tk when this tk_bench has one (a reference that never matches otherwise).
const tkb_lib &tkb_lib_tk_prev_or_null()
{
#ifdef TKB_HAVE_TK_PREV
    return tkb_lib_tk_prev;
#else
    static const tkb_lib none = {};
    return none;
#endif
}

// ---- operands --------------------------------------------------------------------------------------
// Operands of the shape being benchmarked. Warm shapes own one set of buffers. Cold shapes (see
// is_bw_bound) take A and B from consecutive slots of the big arena and move to the next slot on
// every call, so each call streams its operands from DRAM as a real decode step streams weights;
// the arena is the buffer the bandwidth was measured on, so the roofline and the run agree.

struct Arena {
    float *p = nullptr;
    size_t floats = 0;
} g_arena;

constexpr double kBigFlops = 2e10; // shapes this big get at most 3 repetitions (see main)
constexpr int kColdReps = 9;       // shapes timed cold get at least this many (see main)
constexpr float kCanary = 12345.678f; // written after C: a kernel that writes past C is WRONG
constexpr size_t kGuard = 64;         // floats of canary after C

struct Operands {
    int shape = -1;
    float *own_a = nullptr, *own_b = nullptr; // warm buffers (null when cold)
    float *c = nullptr;                       // always owned, m*n + kGuard
    const float *a = nullptr, *b = nullptr;   // slot 0
    size_t slot_floats = 0, nslots = 1;       // cold rotation: operands of slot s at a/b + s*slot_floats
    tkb_check *check = nullptr;
} g_ops;

size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

void free_operands()
{
    tkb_free(g_ops.own_a);
    tkb_free(g_ops.own_b);
    tkb_free(g_ops.c);
    tkb_check_free(g_ops.check);
    g_ops = Operands();
}

bool set_operands(const Report &rep, int si, std::string *why)
{
    if (g_ops.shape == si)
        return true;
    free_operands();
    const Shape &s = rep.shapes[size_t(si)];
    size_t na = s.m * s.k, nb = s.k * s.n, nc = s.m * s.n;
    size_t slot = round_up(na, 16) + round_up(nb, 16); // 16 floats: keep every operand 64-byte aligned
    if (rep.cold[size_t(si)] && g_arena.p && slot <= g_arena.floats) {
        g_ops.a = g_arena.p;
        g_ops.b = g_arena.p + round_up(na, 16);
        g_ops.slot_floats = slot;
        g_ops.nslots = g_arena.floats / slot;
    } else {
        g_ops.own_a = static_cast<float *>(tkb_alloc(na * sizeof(float)));
        g_ops.own_b = static_cast<float *>(tkb_alloc(nb * sizeof(float)));
        if (!g_ops.own_a || !g_ops.own_b) {
            *why = "cannot allocate the operands";
            free_operands();
            return false;
        }
        // Seeded by the shape, so every library and thread count sees the same matrices.
        tkb_fill_random(g_ops.own_a, na, 2 * (s.m * 1000003 + s.n * 1009 + s.k) + 1);
        tkb_fill_random(g_ops.own_b, nb, 2 * (s.m * 1000003 + s.n * 1009 + s.k) + 2);
        g_ops.a = g_ops.own_a;
        g_ops.b = g_ops.own_b;
    }
    g_ops.c = static_cast<float *>(tkb_alloc((nc + kGuard) * sizeof(float)));
    g_ops.check = g_ops.c ? tkb_check_new(s.m, s.n, s.k, g_ops.a, g_ops.b) : nullptr;
    if (!g_ops.check) {
        *why = "cannot allocate C or the reference";
        free_operands();
        return false;
    }
    g_ops.shape = si;
    return true;
}

// ---- cases ------------------------------------------------------------------------------------------

struct Case {
    size_t ti, si, li; // indexes into Report::threads, shapes, libs
    const tkb_lib *lib;
    std::string name;  // t<threads>/<category>/<MxNxK>/<lib>; each repetition registers as name/rep<r>
    void *state = nullptr;
    bool prepared = false, verified = false;
    Result *result = nullptr;
    int reps = 1;                 // repetitions registered
    std::vector<double> seconds;  // time of one call in each repetition that has run
};

Report g_rep;
std::vector<Case> g_cases;
std::map<std::string, size_t> g_case_by_name; // case names, and every repetition's registered name
long g_active = -1; // the prepared case, released when another one starts
size_t g_done = 0, g_registered = 0;

void deactivate()
{
    if (g_active < 0)
        return;
    Case &c = g_cases[size_t(g_active)];
    if (c.prepared)
        c.lib->release(c.state);
    c.state = nullptr;
    c.prepared = false;
    g_active = -1;
}

// One call on the verification operands, checked against the reference: C prefilled with NaN
// (beta = 0 must not read C), a canary after C, every checked entry within tolerance.
bool verify(Case &c, std::string *why)
{
    const Shape &s = g_rep.shapes[c.si];
    size_t nc = s.m * s.n;
    for (size_t i = 0; i < nc; i++)
        g_ops.c[i] = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i < kGuard; i++)
        g_ops.c[nc + i] = kCanary;
    int rc = c.lib->run(c.state, g_ops.a, g_ops.b, g_ops.c);
    if (rc != 0) {
        *why = "returned status " + std::to_string(rc);
        c.result->status = Status::Failed;
        return false;
    }
    for (size_t i = 0; i < kGuard; i++)
        if (!(g_ops.c[nc + i] == kCanary)) {
            *why = "wrote past the end of C";
            c.result->status = Status::Wrong;
            return false;
        }
    char msg[256];
    if (!tkb_check_result(g_ops.check, g_ops.c, msg, sizeof msg)) {
        *why = std::string(tkb_check_is_full(g_ops.check) ? "" : "sampled check: ") + msg;
        c.result->status = Status::Wrong;
        return false;
    }
    return true;
}

// Makes case ci the prepared one: switches operands, prepares and (once) verifies it.
// Returns false, with the case's status and message set, when it must not be timed.
bool activate(size_t ci)
{
    Case &c = g_cases[ci];
    if (g_active == long(ci))
        return true;
    deactivate();
    Result &r = *c.result;
    if (r.status != Status::NotRun && r.status != Status::Ok)
        return false; // already found wrong / failed / unsupported
    std::string why;
    if (!set_operands(g_rep, int(c.si), &why)) {
        r.status = Status::Failed;
        r.message = why;
        return false;
    }
    tkb_problem p{};
    const Shape &s = g_rep.shapes[c.si];
    p.m = s.m, p.n = s.n, p.k = s.k;
    p.nthreads = g_rep.threads[c.ti];
    p.a = g_ops.a, p.b = g_ops.b, p.c = g_ops.c;
    char buf[256] = "";
    int rc = c.lib->prepare(&p, &c.state, buf, sizeof buf);
    if (rc != TKB_OK) {
        r.status = rc == TKB_UNSUPPORTED ? Status::Unsupported : Status::Failed;
        r.message = buf;
        return false;
    }
    c.prepared = true;
    g_active = long(ci);
    if (!c.verified) {
        if (!verify(c, &why)) {
            r.message = why;
            deactivate();
            return false;
        }
        c.verified = true;
    }
    return true;
}

void run_case(benchmark::State &st, size_t ci)
{
    if (!activate(ci)) {
        st.SkipWithError(g_cases[ci].result->message.c_str());
        return;
    }
    Case &c = g_cases[ci];
    const float *a = g_ops.a, *b = g_ops.b;
    float *cc = g_ops.c;
    const size_t stride = g_ops.slot_floats, nslots = g_ops.nslots;
    size_t slot = 0;
    for (auto _ : st) {
        c.lib->run(c.state, a + slot * stride, b + slot * stride, cc);
        if (++slot == nslots)
            slot = 0;
    }
    st.counters["GFLOP/s"] = benchmark::Counter(g_rep.shapes[c.si].flops() * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// ---- reporter ---------------------------------------------------------------------------------------
// Collects the median (and cv) of each case and prints one progress line per case on stderr; the
// real report is written once everything has run.

double to_seconds(double v, benchmark::TimeUnit u)
{
    switch (u) {
    case benchmark::kNanosecond: return v * 1e-9;
    case benchmark::kMicrosecond: return v * 1e-6;
    case benchmark::kMillisecond: return v * 1e-3;
    default: return v;
    }
}

class Collector : public benchmark::BenchmarkReporter {
  public:
    bool ReportContext(const Context &) override { return true; }

    void ReportRuns(const std::vector<Run> &runs) override
    {
        for (const Run &run : runs) {
            auto it = g_case_by_name.find(run.run_name.function_name);
            if (it == g_case_by_name.end())
                continue;
            Case &c = g_cases[it->second];
            Result &r = *c.result;
            if (run.error_occurred) {
                progress(c, nullptr);
                continue;
            }
            if (run.run_type != Run::RT_Iteration)
                continue;
            // One repetition; the case's median and spread once its last repetition has run.
            c.seconds.push_back(to_seconds(run.GetAdjustedRealTime(), run.time_unit));
            if (int(c.seconds.size()) < c.reps)
                continue;
            std::vector<double> t = c.seconds;
            std::sort(t.begin(), t.end());
            size_t n = t.size();
            double mean = 0, var = 0;
            for (double x : t)
                mean += x / double(n);
            for (double x : t)
                var += (x - mean) * (x - mean) / double(n > 1 ? n - 1 : 1);
            r.status = Status::Ok;
            r.seconds = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
            r.cv = n > 1 && mean > 0 ? std::sqrt(var) / mean : 0;
            progress(c, &r);
        }
    }

  private:
    // Once per case (errors are reported once per repetition).
    void progress(const Case &c, const Result *r)
    {
        size_t ci = size_t(&c - g_cases.data());
        if (ci < reported_.size() && reported_[ci])
            return;
        if (reported_.size() < g_cases.size())
            reported_.resize(g_cases.size());
        reported_[ci] = true;
        const Shape &s = g_rep.shapes[c.si];
        std::fprintf(stderr, "[%3zu/%zu] %2dT %-13s %-16s %-9s ", ++g_done, g_registered,
                     g_rep.threads[c.ti], s.category.c_str(), s.dims().c_str(), c.lib->name);
        if (r)
            std::fprintf(stderr, "%9.3g GFLOP/s\n", s.flops() / r->seconds * 1e-9);
        else
            std::fprintf(stderr, "%s: %s\n",
                         c.result->status == Status::Wrong         ? "WRONG"
                         : c.result->status == Status::Unsupported ? "n/a"
                                                                   : "FAILED",
                         c.result->message.c_str());
    }
    std::vector<bool> reported_;
};

// ---- machine ---------------------------------------------------------------------------------------

bool is_bw_bound(const Shape &s, size_t l2)
{
    return tkb_bandwidth_bound(s.m, s.n, s.k, l2); // cold.h: the tuner and tktune evaluate use it too
}

void measure_machine(const Options &o)
{
    tkb::Machine &mc = g_rep.machine;
    char buf[256];
    tkb_cpu_model(buf, sizeof buf);
    mc.cpu = buf;
    mc.load = tkb_loadavg(); // before we add any load ourselves
    mc.ncpus = tkb_num_cpus();
    mc.l2 = size_t(tkb_host_cache(2));
    mc.llc = size_t(tkb_host_llc()); // cold.h: the tuner sizes its cold arena from it too

    for (int t : g_rep.threads) {
        const char *isa = "";
        std::fprintf(stderr, "measuring FMA peak, %d thread(s)...\n", t);
        mc.peak.push_back(tkb_measure_peak_gflops(t, &isa));
        mc.peak_isa = isa;
    }
    mc.bw.assign(g_rep.threads.size(), 0.0);

    bool need_bw = false;
    for (bool b : g_rep.bw_bound)
        need_bw |= b;
    if (!need_bw)
        return;

    // Much larger than the last-level cache so the reads come from DRAM (cold.h), and at most a
    // quarter of the free memory (the machine may be shared).
    size_t bytes = o.bw_mib ? o.bw_mib << 20 : size_t(tkb_cold_buffer_bytes(mc.llc));
    size_t avail = tkb_mem_available();
    if (avail && bytes > avail / 4 && !o.bw_mib)
        bytes = std::max<size_t>(avail / 4, size_t(64) << 20);
    bytes &= ~size_t(4095);
    std::fprintf(stderr, "filling a %zu MiB buffer for the bandwidth measurement...\n", bytes >> 20);
    g_arena.p = static_cast<float *>(tkb_alloc(bytes));
    if (!g_arena.p)
        die("cannot allocate the " + std::to_string(bytes >> 20) + " MiB bandwidth buffer (try --bw-mib=)");
    g_arena.floats = bytes / sizeof(float);
    tkb_fill_random(g_arena.p, g_arena.floats, 42);
    mc.bw_bytes = bytes;
    for (size_t ti = 0; ti < g_rep.threads.size(); ti++) {
        std::fprintf(stderr, "measuring DRAM read bandwidth, %d thread(s)...\n", g_rep.threads[ti]);
        mc.bw[ti] = tkb_measure_read_bw(g_arena.p, bytes, g_rep.threads[ti], 3);
    }
}

std::string now_text()
{
    char b[64];
    std::time_t t = std::time(nullptr);
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
    return b;
}

} // namespace

int main(int argc, char **argv)
{
    Options opt = parse_options(&argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;

    // Libraries: all built in, or the --libs subset. tk is always there, first: it is what the
    // others are compared with.
    std::vector<const tkb_lib *> libs;
    for (const tkb_lib *l : built_in_libs()) {
        bool keep = opt.libs.empty() || l == &tkb_lib_tk;
        for (const std::string &n : opt.libs)
            keep |= n == l->name;
        if (keep)
            libs.push_back(l);
    }
    for (const std::string &n : opt.libs) {
        bool found = false;
        for (const tkb_lib *l : built_in_libs())
            found |= n == l->name;
        if (!found)
            die("--libs: '" + n + "' is not built into this tk_bench (check the CMake output)");
    }

    g_rep.shapes = load_shapes(opt);
    int ncpus = tkb_num_cpus();
    g_rep.threads = opt.threads;
    if (g_rep.threads.empty()) {
        g_rep.threads.push_back(1);
        if (ncpus > 1)
            g_rep.threads.push_back(std::min(ncpus, TKB_MAX_THREADS));
    }
    for (int t : g_rep.threads)
        if (t > TKB_MAX_THREADS)
            die("--threads: at most " + std::to_string(TKB_MAX_THREADS));

    const int x86_level = tkb_cpu_x86_level();
    for (const tkb_lib *l : libs) {
        if (l == &tkb_lib_tk_prev_or_null())
            g_rep.prev = g_rep.libs.size();
        g_rep.libs.push_back(l->name);
        char buf[512] = "";
        if (l->needs_x86_level > x86_level)
            std::snprintf(buf, sizeof buf, "built for x86-64-v%d, which this CPU lacks: not run",
                          l->needs_x86_level);
        else
            l->describe(buf, sizeof buf);
        g_rep.lib_info.push_back(buf);
        if (opt.describe)
            std::printf("%-9s: %s\n", l->name, buf);
    }
    if (opt.describe)
        return 0;

    size_t l2 = size_t(tkb_host_cache(2));
    for (const Shape &s : g_rep.shapes) {
        bool bw = is_bw_bound(s, l2);
        g_rep.bw_bound.push_back(bw);
        g_rep.cold.push_back(bw && !opt.warm);
    }
    measure_machine(opt);
    if (!g_arena.p)
        std::fill(g_rep.cold.begin(), g_rep.cold.end(), false);

    std::ostringstream settings;
    settings << g_rep.shapes.size() << " shapes from " << opt.shapes;
    if (!opt.filter.empty())
        settings << " (categories filtered)";
    settings << (opt.quick ? " (--quick)" : "") << "; median of " << opt.reps
             << (opt.reps_given ? "" : opt.reps <= 3 ? " (9 for cold shapes)" : " (3 for >= 20 GFLOP, 9 for cold shapes)")
             << " repetitions of >= " << opt.min_time << " s; " << now_text();
    g_rep.settings = settings.str();

    // Thread count outermost, so each multi-threaded block runs after every single-thread case
    // and a library's leftover threads can only ever disturb its own block.
    g_rep.results.assign(g_rep.threads.size() * g_rep.shapes.size() * libs.size(), Result());
    for (size_t ti = 0; ti < g_rep.threads.size(); ti++)
        for (size_t si = 0; si < g_rep.shapes.size(); si++)
            for (size_t li = 0; li < libs.size(); li++) {
                Result &r = g_rep.at(ti, si, li);
                if (libs[li]->max_threads < g_rep.threads[ti]) {
                    r.status = Status::Skipped;
                    r.message = "single-threaded";
                    continue;
                }
                if (libs[li]->needs_x86_level > x86_level) {
                    r.status = Status::Skipped;
                    r.message = "CPU lacks x86-64-v" + std::to_string(libs[li]->needs_x86_level);
                    continue;
                }
                Case c;
                c.ti = ti, c.si = si, c.li = li;
                c.lib = libs[li];
                c.result = &r;
                std::string name = "t" + std::to_string(g_rep.threads[ti]) + "/" +
                                   g_rep.shapes[si].category + "/" + g_rep.shapes[si].dims() + "/" +
                                   libs[li]->name;
                if (g_case_by_name.count(name)) // the same shape listed twice
                    name += "/" + std::to_string(si);
                c.name = name;
                g_case_by_name[name] = g_cases.size();
                g_cases.push_back(c);
            }
    // Registered once g_cases stops growing (the lambdas capture indexes). The repetitions of one
    // shape and thread count are interleaved across the libraries (tk, tk-prev, openblas, ..., tk,
    // tk-prev, ...): this shared machine has slow spells lasting seconds, and back-to-back
    // repetitions of one library would put a whole spell on one library's median.
    for (size_t g0 = 0, g1; g0 < g_cases.size(); g0 = g1) {
        for (g1 = g0; g1 < g_cases.size() && g_cases[g1].ti == g_cases[g0].ti && g_cases[g1].si == g_cases[g0].si;)
            g1++;
        // A call of 20 GFLOP or more takes a good fraction of a second even for the fastest
        // library, so one call is one repetition and big GEMMs vary little from call to call:
        // three repetitions are enough there, and keep the full suite within minutes.
        int reps = opt.reps;
        if (!opt.reps_given && g_rep.shapes[g_cases[g0].si].flops() >= kBigFlops)
            reps = std::min(reps, 3);
        // A cold shape's rate is the memory bandwidth this core gets, which the host's other
        // guests take a share of for seconds at a time: identical rows read 0.85-1.20 of each other
        // in session 14's and 13's runs at five repetitions. Its calls are short, so more of them
        // cost little (about a minute over the suite).
        if (!opt.reps_given && g_rep.cold[g_cases[g0].si])
            reps = std::max(reps, kColdReps);
        for (int r = 0; r < reps; r++)
            for (size_t ci = g0; ci < g1; ci++) {
                std::string name = g_cases[ci].name + "/rep" + std::to_string(r);
                g_cases[ci].reps = reps;
                g_case_by_name[name] = ci;
                benchmark::RegisterBenchmark(name.c_str(), [ci](benchmark::State &st) { run_case(st, ci); })
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond)
                    ->MinTime(opt.min_time);
            }
    }
    g_registered = g_cases.size();

    Collector collector;
    benchmark::RunSpecifiedBenchmarks(&collector);
    deactivate();
    free_operands();
    tkb_free(g_arena.p);

    std::error_code ec;
    std::filesystem::create_directories(opt.out, ec);
    if (ec)
        die("cannot create '" + opt.out + "': " + ec.message());
    bool ok = tkb::write_report(g_rep, opt.out);
    benchmark::Shutdown();

    // tk itself wrong or failing is an error of the run; a peer's is only reported.
    int tk_bad = 0;
    for (size_t ti = 0; ti < g_rep.threads.size(); ti++)
        for (size_t si = 0; si < g_rep.shapes.size(); si++) {
            Status s = g_rep.at(ti, si, 0).status;
            tk_bad += s == Status::Wrong || s == Status::Failed;
        }
    if (tk_bad)
        std::cerr << "tk_bench: tk failed verification or returned an error on " << tk_bad
                  << " case(s)\n";
    return tk_bad ? 1 : ok ? 0 : 2;
}
