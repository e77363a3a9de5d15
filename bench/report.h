// bench/report.h - what one benchmark run produced, and the writers that turn it into the terminal
// table, the CSV file and the SVG charts. Kept apart from shim.cc so that the Google Benchmark glue
// and the presentation can change independently.
#ifndef TKB_REPORT_H
#define TKB_REPORT_H

#include <cstddef>
#include <string>
#include <vector>

namespace tkb {

struct Shape {
    std::string category;
    size_t m, n, k;
    double flops() const { return 2.0 * double(m) * double(n) * double(k); }
    // Bytes a GEMM must move at least once: A, B and C, f32.
    double bytes() const { return 4.0 * double(m * k + k * n + m * n); }
    std::string dims() const
    {
        return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    }
};

enum class Status {
    NotRun,      // registered but never executed (e.g. excluded with --benchmark_filter)
    Ok,          // verified, then timed
    Wrong,       // verification failed: not timed
    Unsupported, // the library cannot do this case (n/a)
    Failed,      // the library returned an error
    Skipped      // not applicable: thread count beyond the library, or CPU lacks its ISA
};

struct Result {
    Status status = Status::NotRun;
    std::string message;  // why, for anything but Ok
    double seconds = 0;   // median time of one call
    double cv = 0;        // coefficient of variation across repetitions (0 if one repetition)
};

struct Machine {
    std::string cpu;             // /proc/cpuinfo model name
    double load = -1;            // 1-minute load average before the run (other work on the machine)
    int ncpus = 1;
    size_t l2 = 0, llc = 0;      // bytes
    std::string peak_isa;
    std::vector<double> peak;    // GFLOP/s per entry of Report::threads
    std::vector<double> bw;      // GB/s per entry of Report::threads (0: not measured)
    size_t bw_bytes = 0;         // size of the buffer the bandwidth was measured on
};

struct Report {
    std::vector<Shape> shapes;
    std::vector<std::string> libs;      // libs[0] is tk; the rest are peers, but for `prev`
    size_t prev = 0;                    // index of tk built from the previous table; 0: none
    std::vector<std::string> lib_info;  // one line per lib (describe())
    std::vector<int> threads;           // thread counts, in run order
    std::vector<bool> cold;             // per shape: operands rotated through a buffer > LLC
    std::vector<bool> bw_bound;         // per shape: gets a memory roofline
    // results[(ti * shapes.size() + si) * libs.size() + li]
    std::vector<Result> results;
    Machine machine;
    std::string settings;               // min time, repetitions, shapes file, date

    Result &at(size_t ti, size_t si, size_t li)
    {
        return results[(ti * shapes.size() + si) * libs.size() + li];
    }
    const Result &at(size_t ti, size_t si, size_t li) const
    {
        return results[(ti * shapes.size() + si) * libs.size() + li];
    }
    double gflops(size_t ti, size_t si, size_t li) const
    {
        const Result &r = at(ti, si, li);
        return r.status == Status::Ok && r.seconds > 0 ? shapes[si].flops() / r.seconds * 1e-9 : 0;
    }
    // Memory roofline in GFLOP/s: the rate if the run time were the minimal traffic at the measured
    // bandwidth. 0 when the shape is not bandwidth-bound or the bandwidth was not measured.
    double roofline(size_t ti, size_t si) const
    {
        if (!bw_bound[si] || machine.bw[ti] <= 0)
            return 0;
        return shapes[si].flops() / (shapes[si].bytes() / (machine.bw[ti] * 1e9)) * 1e-9;
    }
};

// Prints the table and summary to stdout and writes <dir>/tk_bench.csv, <dir>/tk_bench.txt and
// <dir>/tk_bench_<t>t.svg. Returns false if the files could not be written.
bool write_report(const Report &rep, const std::string &dir);

} // namespace tkb

#endif // TKB_REPORT_H
