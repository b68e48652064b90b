#include "check/ber.h"

#include <fmt/format.h>

#include <boost/math/special_functions/gamma.hpp>
#include <cmath>

#include "model/port_label.h"

namespace fabscope {
namespace {

constexpr double kAlpha = 0.05;  // one-sided: 95 % confidence

/// The smallest Poisson mean that makes `k` or more events likely at
/// 1 - kAlpha: the lower end of the count's confidence interval.
double poisson_lower(uint64_t k) {
    if (k == 0) return 0;
    return boost::math::gamma_p_inv(static_cast<double>(k), kAlpha);
}

/// The largest Poisson mean under which `k` or fewer events are still
/// likely at kAlpha (3.0 for no event: the rule of three).
double poisson_upper(uint64_t k) {
    return boost::math::gamma_q_inv(static_cast<double>(k) + 1.0, kAlpha);
}

}  // namespace

double link_signal_gbps(Width width, Speed speed) {
    return lanes(width) * lane_signal_gbps(speed);
}

std::optional<BerEstimate> estimate_ber(uint64_t errors, double seconds, Width width, Speed speed,
                                        double threshold) {
    if (!(seconds > 0)) return std::nullopt;
    BerEstimate e;
    e.errors = errors;
    e.seconds = seconds;
    e.line_gbps = link_signal_gbps(width, speed);
    e.bits = e.line_gbps * 1e9 * seconds;
    e.ber = static_cast<double>(errors) / e.bits;
    e.lower = poisson_lower(errors) / e.bits;
    e.upper = poisson_upper(errors) / e.bits;
    e.vouch_seconds = seconds_to_vouch(width, speed, threshold);
    return e;
}

double seconds_to_vouch(Width width, Speed speed, double threshold) {
    return poisson_upper(0) / (threshold * link_signal_gbps(width, speed) * 1e9);
}

namespace {

/// What one BER check counts and says: the effective one (SymbolErrorCounter,
/// what got through any FEC) or the raw one (PortFECCorrectedSymbolCtr, what
/// RS-FEC repaired; each corrected symbol had at least one bit wrong, so the
/// rate is a lower bound of the raw BER).
struct BerKind {
    Counter counter;
    const char* finding;
    const char* what;    // "bit error rate" / "raw (pre-FEC) bit error rate"
    const char* errors;  // "symbol errors" / "corrected symbols"
    const char* cause;
    const char* evidence_key;
    double warn;
    double error;
};

void ber_findings(const Fabric& f, const CounterReadings& before, const CounterReadings& after,
                  const BerKind& k, std::vector<Finding>& out) {
    for (const auto& [ref, a] : after) {
        auto b = before.find(ref);
        const Port* port = f.port(ref);
        if (b == before.end() || !port || !port->width_active || !port->speed_active) continue;
        const auto rise = counter_rise(b->second, a, k.counter);
        if (!rise || rise->delta == 0) continue;
        const double seconds = static_cast<double>(a.read_at_ms - b->second.read_at_ms) / 1000.0;
        const auto e =
            estimate_ber(rise->delta, seconds, *port->width_active, *port->speed_active, k.warn);
        if (!e || e->lower <= k.warn) continue;
        const bool saturated = rise->after == counter_max(k.counter, false);
        const bool at_least = rise->cleared || saturated;
        out.push_back(make_finding(
            k.finding, e->lower > k.error ? Severity::Error : Severity::Warning,
            fmt::format("{}: {} {}{:.1e} received, above {:.0e} ({}{} {} in {:.1f} s at {} {}; at "
                        "least {:.1e} with 95 % confidence): {}",
                        describe_with_link(f, ref), k.what, at_least ? "at least " : "", e->ber,
                        k.warn, at_least ? "at least " : "", e->errors, k.errors, seconds,
                        name(*port->width_active), name(*port->speed_active), e->lower, k.cause),
            port_and_peer(f, ref),
            {{k.evidence_key, e->errors},
             {"interval_s", seconds},
             {"line_gbps", e->line_gbps},
             {"bits", e->bits},
             {"ber", e->ber},
             {"ber_lower_95", e->lower},
             {"ber_upper_95", e->upper},
             {"limit", k.warn},
             {"vouch_interval_s", e->vouch_seconds},
             {"at_least", at_least}}));
    }
}

/// "raw (pre-FEC) BER against 1e-05 on 12 ports with RS-FEC counters". A
/// corrected-symbol counter at its top cannot rise (a link at 1e-7 fills its
/// 32 bits in about two days): such a port's raw BER is unknown, and said so.
std::string raw_ber_detail(const CounterReadings& before, const CounterReadings& after,
                           const BerLimit& limit) {
    size_t rs_fec = 0;
    size_t saturated = 0;
    const uint64_t top = counter_max(Counter::PortFECCorrectedSymbolCtr, false);
    for (const auto& [ref, a] : after) {
        auto b = before.find(ref);
        if (b == before.end() || !counter_rise(b->second, a, Counter::PortFECCorrectedSymbolCtr))
            continue;
        if (b->second.get(Counter::PortFECCorrectedSymbolCtr) == top)
            ++saturated;
        else
            ++rs_fec;
    }
    std::string out = fmt::format(
        "raw (pre-FEC) BER against {:.0e} on {} port{} with RS-FEC "
        "counters",
        limit.raw_warn, rs_fec, rs_fec == 1 ? "" : "s");
    if (saturated > 0)
        out += fmt::format(
            " (unknown on {} whose corrected-symbol counter stands at its "
            "maximum: clear it, perfquery -R, to measure)",
            saturated);
    return out;
}

}  // namespace

std::vector<Finding> check_ber(const Fabric& f, const CounterReadings& before,
                               const CounterReadings& after, const BerLimit& limit) {
    std::vector<Finding> out;
    ber_findings(f, before, after,
                 BerKind{Counter::SymbolErrorCounter, "bit_error_rate", "bit error rate",
                         "symbol errors", "the cable, its module or a port at either end",
                         "symbol_errors", limit.warn, limit.error},
                 out);
    ber_findings(f, before, after,
                 BerKind{Counter::PortFECCorrectedSymbolCtr, "raw_bit_error_rate",
                         "raw (pre-FEC) bit error rate", "corrected symbols",
                         "the RS-FEC still repairs it, but the link has lost its margin (the "
                         "cable, its module or a port at either end; uncorrectable blocks and "
                         "symbol errors follow)",
                         "corrected_symbols", limit.raw_warn, limit.raw_error},
                 out);
    return out;
}

std::string ber_check_detail(const Fabric& f, const CounterReadings& before,
                             const CounterReadings& after, const BerLimit& limit) {
    size_t ports = 0;
    std::optional<std::pair<double, std::string>> fastest;  // the shortest time to vouch
    std::optional<std::pair<double, std::string>> slowest;
    for (const auto& [ref, a] : after) {
        const Port* port = f.port(ref);
        if (!before.count(ref) || !port || !port->width_active || !port->speed_active) continue;
        ++ports;
        const double s = seconds_to_vouch(*port->width_active, *port->speed_active, limit.warn);
        const std::string rate =
            fmt::format("{} {}", name(*port->width_active), name(*port->speed_active));
        if (!fastest || s < fastest->first) fastest = {s, rate};
        if (!slowest || s > slowest->first) slowest = {s, rate};
    }
    if (!ports) return "no port read twice";
    const double interval = mean_interval_s(before, after);
    std::string need = fmt::format("{:.0f} s at {}", fastest->first, fastest->second);
    if (slowest->second != fastest->second)
        need += fmt::format(", {:.0f} s at {}", slowest->first, slowest->second);
    const char* verdict = interval >= slowest->first ? "long enough to vouch for"
                          : interval >= fastest->first
                              ? "long enough on the fastest links to vouch for"
                              : "too short to vouch for";
    return fmt::format("{} ports over {:.0f} s: {} {:.0e} without errors (needs {}); {}", ports,
                       interval, verdict, limit.warn, need, raw_ber_detail(before, after, limit));
}

}  // namespace fabscope
