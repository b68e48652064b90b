#include "pairtest/run_table.h"

#include <fmt/format.h>

namespace fabscope::perf {

std::string render_row(const TestResult& r) {
    std::string peer = r.peer_host.empty() || r.peer_host == r.peer
                           ? r.peer
                           : fmt::format("{} ({})", r.peer, r.peer_host);
    std::string head =
        fmt::format("  {:<28} {:<16} {:>6}", peer, r.spec.name(), format_size(r.spec.size));
    if (!r.ok) return head + "  FAILED: " + r.error;
    if (r.spec.measure == Measure::Bandwidth) {
        return head + fmt::format("  {:>9.3f} {:>9.3f} {:>9.3f} {:>9.1f} {:>8.4f}", r.avg_gbps,
                                  r.min_window_gbps, r.peak_gbps, r.avg_gbps * 1e3 / 8,
                                  r.msg_rate_mpps);
    }
    const LatencyStats& l = r.latency;
    return head + fmt::format("  {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}", l.min_us,
                              l.median_us, l.p99_us, l.p999_us, l.max_us);
}

std::string RunTable::lines(const TestResult& r) {
    std::string out;
    if (shown_ != r.spec.measure) {
        if (r.spec.measure == Measure::Bandwidth) {
            out = fmt::format("  {:<28} {:<16} {:>6}  {:>9} {:>9} {:>9} {:>9} {:>8}\n", "peer",
                              "test", "size", "avg Gb/s", "min win", "peak", "avg MB/s", "Mmsg/s");
        } else {
            out = fmt::format("  {:<28} {:<16} {:>6}  {:>9} {:>9} {:>9} {:>9} {:>9}  (us)\n",
                              "peer", "test", "size", "min", "median", "p99", "p99.9", "max");
        }
        shown_ = r.spec.measure;
    }
    out += render_row(r) + "\n";
    for (const std::string& c : r.caps) out += "      (" + c + ")\n";
    return out;
}

}  // namespace fabscope::perf
