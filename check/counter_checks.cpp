#include "check/counter_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "model/port_label.h"

namespace fabscope {
namespace {

Finding saturated_finding(const Fabric& f, PortRef r, Counter c, uint64_t max,
                          std::optional<uint64_t> before) {
    Finding x = make_finding(
        "counter_saturated", Severity::Warning,
        fmt::format(
            "{}: {} is saturated at {}: new errors can no longer be seen; clear it (perfquery -R) "
            "and measure again",
            describe_with_link(f, r), name(c), max),
        port_and_peer(f, r), {{"counter", name(c)}, {"value", max}});
    if (before && *before < max) x.evidence["rose_at_least"] = max - *before;
    return x;
}

}  // namespace

std::vector<Finding> check_saturated(const Fabric& f, const CounterReadings& readings) {
    std::vector<Finding> out;
    for (const auto& [ref, pc] : readings) {
        for (int i = 0; i < kCounterCount; ++i) {
            auto c = static_cast<Counter>(i);
            if (!is_error_counter(c)) continue;
            auto v = pc.get(c);
            if (v && *v == counter_max(c, false))
                out.push_back(saturated_finding(f, ref, c, *v, std::nullopt));
        }
    }
    return out;
}

std::vector<Finding> check_counter_rates(const Fabric& f, const CounterReadings& before,
                                         const CounterReadings& after, const Thresholds& t) {
    std::vector<Finding> out;
    for (const auto& [ref, a] : after) {
        auto it = before.find(ref);
        if (it == before.end()) continue;
        const PortCounters& b = it->second;
        int64_t ms = a.read_at_ms - b.read_at_ms;
        if (ms <= 0) continue;
        Millis interval(ms);
        double seconds = static_cast<double>(ms) / 1000.0;
        for (const auto& [c, lim] : t.counters) {
            const auto rise = counter_rise(b, a, c);
            if (!rise) continue;
            uint64_t max = counter_max(c, false);
            if (rise->after == max) {
                out.push_back(saturated_finding(f, ref, c, max, rise->before));
                continue;
            }
            const auto [vb, va, delta, cleared] = *rise;
            if (static_cast<double>(delta) <= lim.allowed(interval)) continue;
            Finding x;
            x.kind = "counter_rising";
            x.severity = lim.severity;
            double per_hour = static_cast<double>(delta) * 3600.0 / seconds;
            const std::string_view meaning = counter_meaning(c);
            x.summary =
                fmt::format("{}: {} rose by {}{} in {} ({:.0f} per hour; limit {} per {}){}{}",
                            describe_with_link(f, ref), name(c), cleared ? "at least " : "", delta,
                            format_duration(interval), per_hour, lim.limit,
                            format_duration(lim.per), meaning.empty() ? "" : ": ", meaning);
            x.where = port_and_peer(f, ref);
            x.evidence = {{"counter", name(c)},
                          {"before", vb},
                          {"after", va},
                          {"delta", delta},
                          {"interval_s", seconds},
                          {"per_hour", per_hour},
                          {"limit", lim.limit},
                          {"limit_period_s", static_cast<double>(lim.per.count()) / 1000.0},
                          {"cleared_during_interval", cleared}};
            out.push_back(std::move(x));
        }
        // Time spent waiting to transmit.
        const auto wait = counter_rise(b, a, Counter::PortXmitWait);
        const Port* port = f.port(ref);
        if (wait && port && port->speed_active) {
            uint64_t max = counter_max(Counter::PortXmitWait, false);
            if (wait->after == max && wait->before < max) {
                out.push_back(saturated_finding(f, ref, Counter::PortXmitWait, max, wait->before));
                continue;
            }
            const uint64_t delta = wait->delta;
            const int multiplier =
                xmit_wait_tick_multiplier(f.node(ref.node), t.xmit_wait.tick_multiplier);
            double fraction = static_cast<double>(delta) *
                              xmit_wait_tick_seconds(*port->speed_active, multiplier) / seconds;
            if (fraction < t.xmit_wait.warn) continue;
            Finding x = make_finding(
                "xmit_wait", fraction >= t.xmit_wait.error ? Severity::Error : Severity::Warning,
                fmt::format(
                    "{}: waited to transmit {:.1f}% of {} (PortXmitWait +{}): congestion or a slow "
                    "receiver downstream",
                    describe_with_link(f, ref), std::min(fraction, 1.0) * 100,
                    format_duration(interval), delta),
                port_and_peer(f, ref),
                {{"delta_ticks", delta},
                 {"fraction", fraction},
                 {"interval_s", seconds},
                 {"tick_multiplier", multiplier}});
            out.push_back(std::move(x));
        }
    }
    return out;
}

std::vector<Finding> check_unanswered(const Fabric& f, const CounterReadings& before,
                                      const CounterReadings& after) {
    std::map<Guid, std::vector<PortRef>> missing;
    for (const auto& [ref, pc] : before) {
        if (!after.count(ref)) missing[ref.node].push_back(ref);
    }
    std::vector<Finding> out;
    for (const auto& [guid, ports] : missing) {
        const Node* n = f.node(guid);
        std::string list;
        for (const PortRef& r : ports)
            list += fmt::format("{}{}", list.empty() ? "" : ", ", r.port);
        Finding x = make_finding(
            "counters_unanswered", Severity::Warning,
            fmt::format(
                "{}: {} {} ({}) did not answer the second counter reading: {} rates are unknown "
                "(a hung management agent, or the node is gone)",
                n ? n->description : format_guid(guid), ports.size(),
                ports.size() == 1 ? "port" : "ports", list, ports.size() == 1 ? "its" : "their"),
            ports);
        nlohmann::json p = nlohmann::json::array();
        for (const PortRef& r : ports) p.push_back(r.port);
        x.evidence = {{"ports", p}, {"readings_answered", 1}};
        out.push_back(std::move(x));
    }
    return out;
}

}  // namespace fabscope
