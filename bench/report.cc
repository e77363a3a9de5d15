// bench/report.cc - turns one run's results into a terminal table, a CSV file and SVG bar charts.
//
// Ratios are tk's GFLOP/s over: the best verified peer at the same thread count (tk/best), the
// measured FMA peak for that thread count (tk/peak), and, for bandwidth-bound shapes, the memory
// roofline from the measured DRAM bandwidth (tk/roof). The SVG is written by hand: no plotting
// library, so the report works anywhere the bench builds.
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tkb {
namespace {

std::string fmt(const char *f, double v)
{
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string pad_left(const std::string &s, size_t w)
{
    return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

std::string pad_right(const std::string &s, size_t w)
{
    return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}

std::string mib(size_t bytes)
{
    return bytes ? fmt("%.0f MiB", double(bytes) / (1 << 20)) : std::string("?");
}

const char *status_text(Status s)
{
    switch (s) {
    case Status::Ok: return "ok";
    case Status::Wrong: return "WRONG";
    case Status::Unsupported: return "n/a";
    case Status::Failed: return "FAILED";
    case Status::Skipped: return "-";
    case Status::NotRun: return "not run";
    }
    return "?";
}

std::string threads_text(int t) { return t == 1 ? "1 thread" : std::to_string(t) + " threads"; }

// Everything the table, CSV and SVG need about one (threads, shape) row.
struct RowStats {
    double tk = 0;           // tk GFLOP/s (0 if tk has no timing)
    double best = 0;         // best verified peer GFLOP/s
    int best_lib = -1;       // index into Report::libs
    double peak = 0, roof = 0;
};

RowStats row_stats(const Report &rep, size_t ti, size_t si)
{
    RowStats r;
    r.tk = rep.gflops(ti, si, 0);
    for (size_t li = 1; li < rep.libs.size(); li++) {
        if (li == rep.prev)
            continue; // tk itself, from the previous table: not a peer
        double g = rep.gflops(ti, si, li);
        if (g > r.best) {
            r.best = g;
            r.best_lib = int(li);
        }
    }
    r.peak = rep.machine.peak[ti];
    r.roof = rep.roofline(ti, si);
    return r;
}

// Libraries with at least one case that applies at thread-count index ti (others are all "-").
std::vector<size_t> libs_shown(const Report &rep, size_t ti)
{
    std::vector<size_t> out;
    for (size_t li = 0; li < rep.libs.size(); li++) {
        bool any = li == 0;
        for (size_t si = 0; si < rep.shapes.size() && !any; si++)
            any = rep.at(ti, si, li).status != Status::Skipped;
        if (any)
            out.push_back(li);
    }
    return out;
}

// GFLOP/s with one decimal, or two significant digits below 1 (tiny shapes at several threads).
std::string gfmt(double v) { return v < 1 ? fmt("%.2g", v) : fmt("%.1f", v); }

std::string cell(const Report &rep, size_t ti, size_t si, size_t li)
{
    const Result &r = rep.at(ti, si, li);
    if (r.status == Status::Ok)
        return gfmt(rep.gflops(ti, si, li));
    return status_text(r.status);
}

std::string rfmt(double r) { return r < 0.1 ? fmt("%.2g", r) : fmt("%.2f", r); }

std::string ratio(double num, double den) { return num > 0 && den > 0 ? rfmt(num / den) : "-"; }

// ---- terminal table -----------------------------------------------------------------------------

std::string header_text(const Report &rep)
{
    const Machine &mc = rep.machine;
    std::ostringstream o;
    o << "tk_bench: f32 GEMM, row-major C[MxN] = A[MxK] * B[KxN], GFLOP/s = 2MNK / median time\n";
    o << "settings : " << rep.settings << "\n";
    o << "machine  : " << mc.cpu << ", " << mc.ncpus << " CPUs, L2 " << mib(mc.l2) << "/core, LLC "
      << mib(mc.llc) << "\n";
    if (mc.load >= 0.5)
        o << "WARNING  : load average " << fmt("%.2f", mc.load)
          << " before the run: other processes share the CPUs, expect noisy numbers\n";
    o << "peak     : ";
    for (size_t ti = 0; ti < rep.threads.size(); ti++)
        o << (ti ? ", " : "") << threads_text(rep.threads[ti]) << " " << fmt("%.1f", mc.peak[ti])
          << " GFLOP/s";
    o << " (measured, " << mc.peak_isa << " FMA loop)\n";
    o << "memory   : ";
    if (mc.bw_bytes) {
        for (size_t ti = 0; ti < rep.threads.size(); ti++)
            o << (ti ? ", " : "") << threads_text(rep.threads[ti]) << " " << fmt("%.1f", mc.bw[ti])
              << " GB/s";
        o << " (measured streaming read of " << mib(mc.bw_bytes) << ")\n";
    } else {
        o << "not measured (no bandwidth-bound shape selected)\n";
    }
    for (size_t li = 0; li < rep.libs.size(); li++)
        o << pad_right(rep.libs[li], 9) << ": " << rep.lib_info[li] << "\n";
    return o.str();
}

std::string table_text(const Report &rep, size_t ti)
{
    std::ostringstream o;
    std::vector<size_t> shown = libs_shown(rep, ti);
    size_t cw = 8, sw = 5;
    for (const Shape &s : rep.shapes) {
        cw = std::max(cw, s.category.size());
        sw = std::max(sw, s.dims().size() + 1);
    }
    const size_t vw = 9;

    o << "\n== " << threads_text(rep.threads[ti]) << " ==\n";
    std::string head = pad_right("category", cw) + "  " + pad_right("shape", sw);
    for (size_t li : shown)
        head += pad_left(rep.libs[li], vw);
    head += "  " + pad_right("best peer", 9) + pad_left("tk/best", 8) + pad_left("tk/peak", 8) +
            pad_left("tk/roof", 8) + (rep.prev ? pad_left("tk/prev", 8) : "");
    o << head << "\n" << std::string(head.size(), '-') << "\n";

    std::vector<std::string> notes;
    std::vector<double> ratios, prev_ratios;
    double prev_min = 0;
    size_t prev_min_si = 0;
    int wins = 0;
    double minr = 0, maxr = 0;
    size_t min_si = 0, max_si = 0;
    int min_lib = -1, max_lib = -1;
    for (size_t si = 0; si < rep.shapes.size(); si++) {
        const Shape &s = rep.shapes[si];
        RowStats rs = row_stats(rep, ti, si);
        std::string line = pad_right(s.category, cw) + "  " +
                           pad_right(s.dims() + (rep.cold[si] ? "*" : ""), sw);
        for (size_t li : shown)
            line += pad_left(cell(rep, ti, si, li), vw);
        line += "  " + pad_right(rs.best_lib >= 0 ? rep.libs[size_t(rs.best_lib)] : "-", 9);
        line += pad_left(ratio(rs.tk, rs.best), 8) + pad_left(ratio(rs.tk, rs.peak), 8) +
                pad_left(ratio(rs.tk, rs.roof), 8);
        if (rep.prev) {
            double pg = rep.gflops(ti, si, rep.prev);
            line += pad_left(ratio(rs.tk, pg), 8);
            if (rs.tk > 0 && pg > 0) {
                prev_ratios.push_back(rs.tk / pg);
                if (prev_ratios.size() == 1 || rs.tk / pg < prev_min)
                    prev_min = rs.tk / pg, prev_min_si = si;
            }
        }
        o << line << "\n";

        if (rs.tk > 0 && rs.best > 0) {
            double r = rs.tk / rs.best;
            ratios.push_back(r);
            wins += r >= 1.0;
            if (ratios.size() == 1 || r < minr)
                minr = r, min_si = si, min_lib = rs.best_lib;
            if (ratios.size() == 1 || r > maxr)
                maxr = r, max_si = si, max_lib = rs.best_lib;
        }
        for (size_t li : shown) {
            const Result &r = rep.at(ti, si, li);
            if (r.status == Status::Wrong || r.status == Status::Failed ||
                r.status == Status::Unsupported)
                notes.push_back(rep.libs[li] + " " + status_text(r.status) + " on " + s.category +
                                " " + s.dims() + ": " + r.message);
        }
    }

    o << "\nsummary, " << threads_text(rep.threads[ti]) << ": ";
    if (ratios.empty()) {
        o << "no shape has both a tk and a peer timing\n";
    } else {
        double lsum = 0;
        for (double r : ratios)
            lsum += std::log(r);
        o << "geomean tk/best " << fmt("%.3f", std::exp(lsum / double(ratios.size()))) << " over "
          << ratios.size() << " shapes; tk >= best peer on " << wins << "/" << ratios.size()
          << "; min " << rfmt(minr) << " (" << rep.shapes[min_si].category << " "
          << rep.shapes[min_si].dims() << " vs " << rep.libs[size_t(min_lib)] << "); max "
          << rfmt(maxr) << " (" << rep.shapes[max_si].category << " "
          << rep.shapes[max_si].dims() << " vs " << rep.libs[size_t(max_lib)] << ")\n";
    }
    if (!prev_ratios.empty()) {
        double lsum = 0;
        size_t at_least = 0;
        for (double r : prev_ratios)
            lsum += std::log(r), at_least += r >= 0.98;
        o << "new table against the previous one, " << threads_text(rep.threads[ti]) << ": geomean tk/prev "
          << fmt("%.3f", std::exp(lsum / double(prev_ratios.size()))) << " over " << prev_ratios.size()
          << " shapes; >= 0.98 on " << at_least << "; min " << rfmt(prev_min) << " ("
          << rep.shapes[prev_min_si].category << " " << rep.shapes[prev_min_si].dims() << ")\n";
    }
    for (const std::string &n : notes)
        o << "  note: " << n << "\n";
    return o.str();
}

// ---- CSV ------------------------------------------------------------------------------------------

std::string csv_field(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
    return q + "\"";
}

std::string num(double v, const char *f = "%.6g") { return v > 0 ? fmt(f, v) : ""; }

bool write_csv(const Report &rep, const std::string &path)
{
    std::ofstream f(path);
    if (!f)
        return false;
    // One row per (threads, shape, library); ratios are this library over the reference value,
    // so tk's rows carry tk/best, tk/peak and tk/roofline and peers' rows compare them likewise.
    f << "threads,category,m,n,k,lib,status,gflops,median_s,cv_pct,operands,best_peer,"
         "best_peer_gflops,vs_best_peer,peak_gflops,vs_peak,roofline_gflops,vs_roofline,message\n";
    for (size_t ti = 0; ti < rep.threads.size(); ti++)
        for (size_t si = 0; si < rep.shapes.size(); si++) {
            const Shape &s = rep.shapes[si];
            RowStats rs = row_stats(rep, ti, si);
            for (size_t li = 0; li < rep.libs.size(); li++) {
                const Result &r = rep.at(ti, si, li);
                double g = rep.gflops(ti, si, li);
                f << rep.threads[ti] << "," << csv_field(s.category) << "," << s.m << "," << s.n
                  << "," << s.k << "," << rep.libs[li] << "," << status_text(r.status) << ","
                  << num(g, "%.3f") << "," << num(r.status == Status::Ok ? r.seconds : 0) << ","
                  << (r.status == Status::Ok ? fmt("%.2f", r.cv * 100) : "") << ","
                  << (rep.cold[si] ? "cold" : "warm") << ","
                  << (rs.best_lib >= 0 ? rep.libs[size_t(rs.best_lib)] : "") << ","
                  << num(rs.best, "%.3f") << "," << (g > 0 && rs.best > 0 ? fmt("%.4f", g / rs.best) : "")
                  << "," << num(rs.peak, "%.3f") << "," << (g > 0 ? fmt("%.4f", g / rs.peak) : "")
                  << "," << num(rs.roof, "%.3f") << ","
                  << (g > 0 && rs.roof > 0 ? fmt("%.4f", g / rs.roof) : "") << ","
                  << csv_field(r.status == Status::Ok ? "" : r.message) << "\n";
            }
        }
    return bool(f);
}

// ---- SVG ------------------------------------------------------------------------------------------

std::string xml(const std::string &s)
{
    std::string o;
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default: o += c;
        }
    }
    return o;
}

const char *lib_color(size_t li)
{
    static const char *palette[] = {"#e4572e", "#4c78a8", "#54a24b", "#b279a2", "#9d755d", "#72b7b2"};
    return palette[li % (sizeof palette / sizeof *palette)];
}

// Horizontal grouped bars: one group per shape, one bar per library, categories as sections;
// a dashed line at the measured peak, a black tick at each bandwidth-bound shape's roofline, and
// tk/best on the right.
bool write_svg(const Report &rep, size_t ti, const std::string &path)
{
    std::vector<size_t> shown = libs_shown(rep, ti);
    const double bar_h = 7, group_gap = 6, cat_h = 20, left = 250, plot_w = 700, right_w = 150;
    const double top = 92, width = left + plot_w + right_w;

    // Log-scale axis: the suite spans ~1 GFLOP/s (small, decode) to the peak, and on a log axis
    // the same ratio between tk and a peer looks the same for every shape.
    double vmax = rep.machine.peak[ti], vmin = vmax;
    for (size_t si = 0; si < rep.shapes.size(); si++) {
        for (size_t li : shown) {
            double g = rep.gflops(ti, si, li);
            if (g > 0) {
                vmax = std::max(vmax, g);
                vmin = std::min(vmin, g);
            }
        }
        if (rep.roofline(ti, si) > 0) {
            vmax = std::max(vmax, rep.roofline(ti, si));
            vmin = std::min(vmin, rep.roofline(ti, si));
        }
    }
    if (!(vmax > 0))
        vmax = vmin = 1;
    const double lo = std::floor(std::log10(vmin)), hi = std::ceil(std::log10(vmax * 1.05));
    const double xmin = std::pow(10.0, lo), xmax = std::pow(10.0, std::max(hi, lo + 1));
    auto X = [&](double v) {
        v = std::min(std::max(v, xmin), xmax);
        return left + plot_w * std::log10(v / xmin) / std::log10(xmax / xmin);
    };

    // Height: category headers plus one group per shape.
    double h = top;
    for (size_t si = 0; si < rep.shapes.size(); si++) {
        if (si == 0 || rep.shapes[si].category != rep.shapes[si - 1].category)
            h += cat_h;
        h += double(shown.size()) * bar_h + group_gap;
    }
    const double plot_bottom = h;
    h += 40;

    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << h
      << "\" viewBox=\"0 0 " << width << " " << h << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    o << "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">tk f32 GEMM, "
      << xml(threads_text(rep.threads[ti])) << ": GFLOP/s per shape (median)</text>\n";
    o << "<text x=\"10\" y=\"38\" fill=\"#444\">" << xml(rep.machine.cpu) << "; measured peak "
      << fmt("%.1f", rep.machine.peak[ti]) << " GFLOP/s";
    if (rep.machine.bw_bytes)
        o << ", DRAM read " << fmt("%.1f", rep.machine.bw[ti]) << " GB/s";
    o << "; * = operands cold (rotated through a buffer larger than the LLC)</text>\n";

    // Legend.
    double lx = 10;
    for (size_t li : shown) {
        o << "<rect x=\"" << lx << "\" y=\"50\" width=\"12\" height=\"10\" fill=\"" << lib_color(li)
          << "\"/><text x=\"" << lx + 16 << "\" y=\"59\">" << xml(rep.libs[li]) << "</text>\n";
        lx += 30 + 7.0 * double(rep.libs[li].size());
    }
    o << "<line x1=\"" << lx << "\" y1=\"55\" x2=\"" << lx + 14
      << "\" y2=\"55\" stroke=\"#c00\" stroke-dasharray=\"4,3\"/><text x=\"" << lx + 18
      << "\" y=\"59\">measured peak</text>\n";
    lx += 110;
    o << "<line x1=\"" << lx + 6 << "\" y1=\"49\" x2=\"" << lx + 6
      << "\" y2=\"61\" stroke=\"black\" stroke-width=\"2\"/><text x=\"" << lx + 14
      << "\" y=\"59\">memory roofline</text>\n";

    // Grid at 1, 2, 5 x 10^n, labelled above and below the plot.
    for (double dec = xmin; dec < xmax * 1.001; dec *= 10)
        for (double m : {1.0, 2.0, 5.0}) {
            double v = dec * m;
            if (v > xmax * 1.001)
                break;
            o << "<line x1=\"" << X(v) << "\" y1=\"" << top - 8 << "\" x2=\"" << X(v) << "\" y2=\""
              << plot_bottom << "\" stroke=\"" << (m == 1.0 ? "#bbb" : "#e4e4e4") << "\"/>\n";
            for (double ty : {top - 11, plot_bottom + 14})
                o << "<text x=\"" << X(v) << "\" y=\"" << ty << "\" text-anchor=\"middle\" fill=\"#444\">"
                  << fmt("%g", v) << "</text>\n";
        }
    o << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << plot_bottom + 30
      << "\" text-anchor=\"middle\">GFLOP/s (log scale)</text>\n";
    o << "<text x=\"" << left + plot_w + 12 << "\" y=\"" << top - 28
      << "\" font-weight=\"bold\">tk/best peer</text>\n";

    double y = top;
    for (size_t si = 0; si < rep.shapes.size(); si++) {
        const Shape &s = rep.shapes[si];
        if (si == 0 || s.category != rep.shapes[si - 1].category) {
            o << "<line x1=\"10\" y1=\"" << y + 2 << "\" x2=\"" << width - 10 << "\" y2=\"" << y + 2
              << "\" stroke=\"#999\"/>\n";
            o << "<text x=\"10\" y=\"" << y + 15 << "\" font-weight=\"bold\">" << xml(s.category)
              << "</text>\n";
            y += cat_h;
        }
        double gh = double(shown.size()) * bar_h;
        o << "<text x=\"" << left - 8 << "\" y=\"" << y + gh / 2 + 4 << "\" text-anchor=\"end\">"
          << xml(s.dims()) << (rep.cold[si] ? "*" : "") << "</text>\n";
        for (size_t bi = 0; bi < shown.size(); bi++) {
            size_t li = shown[bi];
            const Result &r = rep.at(ti, si, li);
            double by = y + double(bi) * bar_h;
            if (r.status == Status::Ok) {
                double g = rep.gflops(ti, si, li);
                o << "<rect x=\"" << left << "\" y=\"" << by << "\" width=\"" << X(g) - left
                  << "\" height=\"" << bar_h - 1 << "\" fill=\"" << lib_color(li) << "\"><title>"
                  << xml(rep.libs[li] + " " + s.category + " " + s.dims() + ": " + gfmt(g) +
                         " GFLOP/s")
                  << "</title></rect>\n";
            } else if (r.status != Status::Skipped) {
                o << "<text x=\"" << left + 3 << "\" y=\"" << by + bar_h - 1
                  << "\" font-size=\"7\" fill=\"" << (r.status == Status::Unsupported ? "#888" : "#c00")
                  << "\">" << xml(rep.libs[li]) << " " << status_text(r.status) << "</text>\n";
            }
        }
        double roof = rep.roofline(ti, si);
        if (roof > 0)
            o << "<line x1=\"" << X(roof) << "\" y1=\"" << y - 1 << "\" x2=\"" << X(roof) << "\" y2=\""
              << y + gh << "\" stroke=\"black\" stroke-width=\"2\"><title>memory roofline "
              << fmt("%.1f", roof) << " GFLOP/s</title></line>\n";
        RowStats rs = row_stats(rep, ti, si);
        if (rs.tk > 0 && rs.best > 0) {
            const double r = rs.tk / rs.best;
            o << "<text x=\"" << left + plot_w + 12 << "\" y=\"" << y + gh / 2 + 4 << "\" fill=\""
              << (r >= 1 ? "#1a7f37" : "#c00") << "\">" << ratio(rs.tk, rs.best) << " vs "
              << xml(rep.libs[size_t(rs.best_lib)]) << "</text>\n";
        }
        y += gh + group_gap;
    }
    double px = X(rep.machine.peak[ti]);
    o << "<line x1=\"" << px << "\" y1=\"" << top - 8 << "\" x2=\"" << px << "\" y2=\"" << plot_bottom
      << "\" stroke=\"#c00\" stroke-dasharray=\"4,3\"/>\n";
    o << "</svg>\n";

    std::ofstream f(path);
    f << o.str();
    return bool(f);
}

} // namespace

bool write_report(const Report &rep, const std::string &dir)
{
    std::string text = header_text(rep);
    for (size_t ti = 0; ti < rep.threads.size(); ti++)
        text += table_text(rep, ti);
    text += "\n* operands cold: rotated through a buffer larger than the LLC, as weights streamed from "
            "DRAM are\n";
    text += "n/a: the library cannot run the case; -: not applicable; WRONG: failed verification, "
            "not timed\n";
    std::cout << text;

    bool ok = true;
    std::string csv = dir + "/tk_bench.csv", txt = dir + "/tk_bench.txt";
    ok &= write_csv(rep, csv);
    std::ofstream(txt) << text;
    std::vector<std::string> svgs;
    for (size_t ti = 0; ti < rep.threads.size(); ti++) {
        std::string svg = dir + "/tk_bench_" + std::to_string(rep.threads[ti]) + "t.svg";
        ok &= write_svg(rep, ti, svg);
        svgs.push_back(svg);
    }
    std::cout << "\nwrote " << csv << "\n      " << txt << "\n";
    for (const std::string &s : svgs)
        std::cout << "      " << s << "\n";
    if (!ok)
        std::cerr << "tk_bench: could not write every file in " << dir << "\n";
    return ok;
}

} // namespace tkb
