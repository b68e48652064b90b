#include "pairtest/results/compare.h"

#include <fmt/format.h>

#include <map>

namespace fabscope::perf {
namespace {

// Higher is better for both kinds of test.
double score(const TestResult& r) {
    if (r.spec.measure == Measure::Bandwidth) return r.avg_gbps;
    return r.latency.median_us > 0 ? 1.0 / r.latency.median_us : 0;
}

std::string key(const TestResult& r) {
    return fmt::format("{}/{}", r.spec.name(), r.spec.size);
}

std::string figure(const TestResult& r) {
    if (r.spec.measure == Measure::Bandwidth) return fmt::format("{:.3f} Gb/s", r.avg_gbps);
    return fmt::format("{:.1f} us median", r.latency.median_us);
}

}  // namespace

std::vector<PerfFinding> compare_peers(const std::vector<TestResult>& results, double degraded_at) {
    std::vector<PerfFinding> out;
    std::map<std::string, const TestResult*> best;
    for (const TestResult& r : results) {
        if (!r.ok) {
            out.push_back(PerfFinding{"test_failed",
                                      Severity::Error,
                                      r.peer,
                                      r.spec.name(),
                                      fmt::format("{} {} to {} failed: {}", r.spec.name(),
                                                  format_size(r.spec.size), r.peer, r.error),
                                      {{"error", r.error}}});
            continue;
        }
        const TestResult*& b = best[key(r)];
        if (!b || score(r) > score(*b)) b = &r;
    }
    for (const TestResult& r : results) {
        if (!r.ok) continue;
        const TestResult& b = *best.at(key(r));
        if (&b == &r || score(b) <= 0) continue;
        double ratio = score(r) / score(b);
        if (ratio >= degraded_at) continue;
        out.push_back(PerfFinding{
            "pair_degraded",
            Severity::Warning,
            r.peer,
            r.spec.name(),
            fmt::format("{} {} to {}: {} is {:.0f}% of the best pair ({}: {})", r.spec.name(),
                        format_size(r.spec.size), r.peer, figure(r), ratio * 100, b.peer,
                        figure(b)),
            {{"ratio", ratio},
             {"value", r.spec.measure == Measure::Bandwidth ? r.avg_gbps : r.latency.median_us},
             {"best_value",
              b.spec.measure == Measure::Bandwidth ? b.avg_gbps : b.latency.median_us},
             {"best_peer", b.peer},
             {"counters", r.counters}}});
    }
    // What the congestion detectors saw during each test, failed ones too.
    for (const TestResult& r : results) {
        for (const Finding& f : r.congestion) {
            out.push_back(
                PerfFinding{"congestion",
                            f.severity,
                            r.peer,
                            r.spec.name(),
                            fmt::format("{} {} to {}: {}", r.spec.name(), format_size(r.spec.size),
                                        r.peer, f.summary),
                            {{"congestion", {{"kind", f.kind}, {"evidence", f.evidence}}}}});
        }
    }
    return out;
}

nlohmann::json perf_finding_to_json(const PerfFinding& f) {
    return {{"kind", f.kind}, {"severity", name(f.severity)}, {"peer", f.peer},
            {"test", f.test}, {"summary", f.summary},         {"evidence", f.evidence}};
}

}  // namespace fabscope::perf
