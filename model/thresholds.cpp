#include "model/thresholds.h"

#include <fmt/format.h>

#include "util/yaml_io.h"

namespace fabscope {

double CounterLimit::allowed(Millis interval) const {
    return static_cast<double>(limit) * static_cast<double>(interval.count()) /
           static_cast<double>(per.count());
}

Thresholds default_thresholds() {
    // Per hour, as a rate, so a short validation interval makes any rise of
    // the link-quality counters a finding, and a long one tolerates the rare
    // corrected error. LinkDowned and integrity errors are never normal.
    const Millis hour(3600000);
    Thresholds t;
    auto set = [&](Counter c, uint64_t limit, Severity s) {
        t.counters[c] = CounterLimit{limit, hour, s};
    };
    set(Counter::SymbolErrorCounter, 10, Severity::Warning);
    set(Counter::LinkErrorRecoveryCounter, 1, Severity::Warning);
    set(Counter::LinkDownedCounter, 0, Severity::Error);
    set(Counter::PortRcvErrors, 10, Severity::Warning);
    set(Counter::PortRcvRemotePhysicalErrors, 10, Severity::Warning);
    set(Counter::PortRcvSwitchRelayErrors, 100, Severity::Warning);
    set(Counter::PortXmitDiscards, 100, Severity::Warning);
    set(Counter::PortXmitConstraintErrors, 100, Severity::Warning);
    set(Counter::PortRcvConstraintErrors, 100, Severity::Warning);
    set(Counter::LocalLinkIntegrityErrors, 0, Severity::Error);
    set(Counter::ExcessiveBufferOverrunErrors, 0, Severity::Error);
    set(Counter::VL15Dropped, 100, Severity::Warning);
    // The causes behind PortRcvErrors and PortXmitDiscards: those that point
    // at a configuration (loops, MTU, credits, SL-to-VL) are never normal.
    set(Counter::PortLocalPhysicalErrors, 10, Severity::Warning);
    set(Counter::PortMalformedPktErrors, 10, Severity::Warning);
    set(Counter::PortBufferOverrunErrors, 0, Severity::Error);
    set(Counter::PortDLIDMappingErrors, 10, Severity::Warning);
    set(Counter::PortVLMappingErrors, 0, Severity::Warning);
    set(Counter::PortLoopingErrors, 0, Severity::Error);
    set(Counter::PortInactiveDiscards, 100, Severity::Warning);
    set(Counter::PortNeighborMTUDiscards, 0, Severity::Error);
    set(Counter::PortSwLifetimeLimitDiscards, 100, Severity::Warning);
    set(Counter::PortSwHOQLifetimeLimitDiscards, 100, Severity::Warning);
    // PortExtendedSpeedsCounters: block lock lost, blocks the coding layer
    // rejected, and blocks the FEC could not repair (data lost).
    set(Counter::SyncHeaderErrorCounter, 10, Severity::Warning);
    set(Counter::UnknownBlockCounter, 10, Severity::Warning);
    set(Counter::PortFECUncorrectableBlockCtr, 1, Severity::Warning);
    return t;
}

namespace {

Severity severity_of(const YAML::Node& n) {
    std::string s = yaml_io::as_string(n);
    if (auto v = severity_named(s)) return *v;
    yaml_io::fail(n, fmt::format("\"{}\" is not one of info, warning, error", s));
}

void read_roce(const YAML::Node& n, RoceLimits& r) {
    if (!n.IsMap()) yaml_io::fail(n, "roce: expected a mapping (priority, pause_share_warn, ...)");
    for (const auto& field : n) {
        std::string f = yaml_io::as_string(field.first);
        const YAML::Node& v = field.second;
        if (f == "priority")
            r.priority = static_cast<int>(yaml_io::as_int(v, 0, 7));
        else if (f == "pause_share_warn")
            r.pause_share_warn = yaml_io::as_double(v, 0, 1);
        else if (f == "pause_share_error")
            r.pause_share_error = yaml_io::as_double(v, 0, 1);
        else if (f == "pause_frames_per_s")
            r.pause_frames_per_s = yaml_io::as_double(v, 0, 1e12);
        else if (f == "ecn_marked_min")
            r.ecn_marked_min = static_cast<uint64_t>(yaml_io::as_int(v, 1, 1LL << 48));
        else if (f == "collapse_ratio")
            r.collapse_ratio = yaml_io::as_double(v, 0, 1);
        else if (f == "loss_per_s")
            r.loss_per_s = yaml_io::as_double(v, 0, 1e12);
        else
            yaml_io::fail(field.first,
                          fmt::format("unknown key \"{}\" (priority, pause_share_warn, "
                                      "pause_share_error, pause_frames_per_s, ecn_marked_min, "
                                      "collapse_ratio, loss_per_s)",
                                      f));
    }
    if (r.pause_share_warn > r.pause_share_error)
        yaml_io::fail(n, "roce: pause_share_warn must not exceed pause_share_error");
}

void read_load_latency(const YAML::Node& n, LoadLatencyLimit& l) {
    if (!n.IsMap())
        yaml_io::fail(n,
                      "latency_under_load: expected {p99_rise_warn_us: F, p99_rise_error_us: F}");
    for (const auto& field : n) {
        std::string f = yaml_io::as_string(field.first);
        if (f == "p99_rise_warn_us")
            l.p99_rise_warn_us = yaml_io::as_double(field.second, 0, 1e9);
        else if (f == "p99_rise_error_us")
            l.p99_rise_error_us = yaml_io::as_double(field.second, 0, 1e9);
        else
            yaml_io::fail(field.first, fmt::format("unknown key \"{}\" (p99_rise_warn_us, "
                                                   "p99_rise_error_us)",
                                                   f));
    }
    if (l.p99_rise_warn_us > l.p99_rise_error_us)
        yaml_io::fail(n, "latency_under_load: p99_rise_warn_us must not exceed p99_rise_error_us");
}

void read_collective(const YAML::Node& n, CollectiveLimits& c) {
    if (!n.IsMap()) yaml_io::fail(n, "collective: expected {busbw_gbps: F} (GB/s, e.g. 180)");
    for (const auto& field : n) {
        std::string f = yaml_io::as_string(field.first);
        if (f == "busbw_gbps")
            c.busbw_gbps = yaml_io::as_double(field.second, 1e-6, 1e6);
        else
            yaml_io::fail(field.first, fmt::format("unknown key \"{}\" (busbw_gbps)", f));
    }
}

void read_ber(const YAML::Node& n, BerLimit& b) {
    if (!n.IsMap())
        yaml_io::fail(n,
                      "ber: expected {warn: F, error: F, raw_warn: F, raw_error: F} (e.g. 1e-12)");
    for (const auto& field : n) {
        std::string f = yaml_io::as_string(field.first);
        if (f == "warn")
            b.warn = yaml_io::as_double(field.second, 1e-30, 1);
        else if (f == "error")
            b.error = yaml_io::as_double(field.second, 1e-30, 1);
        else if (f == "raw_warn")
            b.raw_warn = yaml_io::as_double(field.second, 1e-30, 1);
        else if (f == "raw_error")
            b.raw_error = yaml_io::as_double(field.second, 1e-30, 1);
        else
            yaml_io::fail(field.first,
                          fmt::format("unknown key \"{}\" (warn, error, raw_warn, raw_error)", f));
    }
    if (b.warn > b.error) yaml_io::fail(n, "ber: warn must not exceed error");
    if (b.raw_warn > b.raw_error) yaml_io::fail(n, "ber: raw_warn must not exceed raw_error");
}

void read_routing(const YAML::Node& n, RoutingLimits& r) {
    if (!n.IsMap()) yaml_io::fail(n, "routing: expected {imbalance: F} (e.g. 1.5)");
    for (const auto& field : n) {
        std::string f = yaml_io::as_string(field.first);
        if (f == "imbalance")
            r.imbalance = yaml_io::as_double(field.second, 1, 1000);
        else
            yaml_io::fail(field.first, fmt::format("unknown key \"{}\" (imbalance)", f));
    }
}

Thresholds read_thresholds(const YAML::Node& root) {
    {
        auto version = yaml_io::require(root, "fabscope_thresholds");
        if (yaml_io::as_int(version, 0, 1000) != 1) {
            yaml_io::fail(version, "thresholds version must be 1 (this fabscope reads version 1)");
        }
        Thresholds t = default_thresholds();
        for (const auto& kv : root) {
            std::string key = yaml_io::as_string(kv.first);
            if (key != "fabscope_thresholds" && key != "counters" && key != "xmit_wait" &&
                key != "ber" && key != "routing" && key != "roce" && key != "latency_under_load" &&
                key != "collective") {
                yaml_io::fail(kv.first, fmt::format("unknown key \"{}\" (expected counters, "
                                                    "xmit_wait, ber, routing, roce, "
                                                    "latency_under_load, collective)",
                                                    key));
            }
        }
        if (YAML::Node counters = root["counters"]) {
            if (!counters.IsMap())
                yaml_io::fail(counters, "counters: expected a mapping of counter names");
            for (const auto& kv : counters) {
                std::string name = yaml_io::as_string(kv.first);
                auto c = parse_counter(name);
                if (!c || !is_error_counter(*c)) {
                    yaml_io::fail(
                        kv.first,
                        fmt::format("\"{}\" is not an error counter (e.g. SymbolErrorCounter, "
                                    "LinkDownedCounter, PortRcvErrors)",
                                    name));
                }
                CounterLimit lim = t.counters[*c];
                const YAML::Node& v = kv.second;
                if (!v.IsMap()) yaml_io::fail(v, "expected {limit: N, per: DURATION}");
                for (const auto& field : v) {
                    std::string f = yaml_io::as_string(field.first);
                    if (f == "limit") {
                        lim.limit =
                            static_cast<uint64_t>(yaml_io::as_int(field.second, 0, 1LL << 48));
                    } else if (f == "per") {
                        auto d = parse_duration(yaml_io::as_string(field.second));
                        if (!d || d->count() <= 0)
                            yaml_io::fail(field.second, "per: a duration such as 10s, 5m, 1h");
                        lim.per = *d;
                    } else if (f == "severity") {
                        lim.severity = severity_of(field.second);
                    } else {
                        yaml_io::fail(field.first,
                                      fmt::format("unknown key \"{}\" (limit, per, severity)", f));
                    }
                }
                t.counters[*c] = lim;
            }
        }
        if (YAML::Node xw = root["xmit_wait"]) {
            if (!xw.IsMap())
                yaml_io::fail(xw, "xmit_wait: expected {warn: F, error: F, tick_multiplier: N}");
            for (const auto& field : xw) {
                std::string f = yaml_io::as_string(field.first);
                if (f == "warn")
                    t.xmit_wait.warn = yaml_io::as_double(field.second, 0, 1);
                else if (f == "error")
                    t.xmit_wait.error = yaml_io::as_double(field.second, 0, 1);
                else if (f == "tick_multiplier")
                    t.xmit_wait.tick_multiplier =
                        static_cast<int>(yaml_io::as_int(field.second, 1, 256));
                else
                    yaml_io::fail(
                        field.first,
                        fmt::format("unknown key \"{}\" (warn, error, tick_multiplier)", f));
            }
            if (t.xmit_wait.warn > t.xmit_wait.error)
                yaml_io::fail(xw, "xmit_wait: warn must not exceed error");
        }
        if (YAML::Node ber = root["ber"]) read_ber(ber, t.ber);
        if (YAML::Node routing = root["routing"]) read_routing(routing, t.routing);
        if (YAML::Node roce = root["roce"]) read_roce(roce, t.roce);
        if (YAML::Node ll = root["latency_under_load"]) read_load_latency(ll, t.load_latency);
        if (YAML::Node c = root["collective"]) read_collective(c, t.collective);
        return t;
    }
}

}  // namespace

Result<Thresholds> load_thresholds(const std::string& path) {
    return yaml_io::load<Thresholds>(path, "thresholds file", read_thresholds);
}

Result<Thresholds> parse_thresholds(const std::string& text, const std::string& origin) {
    return yaml_io::load_text<Thresholds>(text, origin, "thresholds file", read_thresholds);
}

}  // namespace fabscope
