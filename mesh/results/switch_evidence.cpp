#include "mesh/results/switch_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fabscope::perf {
namespace {

/// Whether a counter's rise tells of trouble on the port, not of traffic.
bool is_event(Counter c) {
    return is_error_counter(c) || c == Counter::PortXmitWait;
}

}  // namespace

std::string SwitchCounters::why_not() const {
    if (!skipped.empty()) return skipped;
    for (const auto* r : {&before, &after}) {
        if (!*r) return "not read";
        if (!(*r)->error.empty()) return (*r)->error;
    }
    return "";
}

std::string port_events_line(const PortEvidence& p) {
    std::vector<std::pair<std::string, uint64_t>> events;
    for (const auto& [n, v] : p.changes) {
        auto c = parse_counter(n);
        if (c && is_event(*c)) events.emplace_back(n, v);
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (const auto& [n, v] : events) {
        if (!out.empty()) out += ", ";
        out += fmt::format("{} +{}", n, v);
    }
    return out;
}

std::string switch_ports_phrase(const std::vector<PortEvidence>& ports) {
    if (ports.empty()) return "";
    std::string events;
    std::string unread;
    for (const PortEvidence& p : ports) {
        if (!p.unread.empty()) {
            unread += (unread.empty() ? "" : "; ") + p.unread;
            continue;
        }
        const std::string line = port_events_line(p);
        if (line.empty()) continue;
        events += fmt::format("{}{} ({}) {}", events.empty() ? "" : "; ", p.name,
                              p.sends ? "sending" : "receiving", line);
    }
    const bool none_read = std::all_of(ports.begin(), ports.end(),
                                       [](const PortEvidence& p) { return !p.unread.empty(); });
    if (none_read) return "its switch ports were not read (" + unread + ")";
    std::string out =
        "its switch ports counted " + (events.empty() ? "no errors or waits" : events);
    if (!unread.empty()) out += " (" + unread + ")";
    return out;
}

nlohmann::json port_evidence_json(const std::vector<PortEvidence>& ports) {
    nlohmann::json out = nlohmann::json::array();
    for (const PortEvidence& p : ports) {
        nlohmann::json changes = nlohmann::json::object();
        for (const auto& [n, v] : p.changes) changes[n] = v;
        nlohmann::json j = {{"port", p.name},          {"guid", format_guid(p.port.node)},
                            {"port_num", p.port.port}, {"side", p.sends ? "sends" : "receives"},
                            {"changes", changes},      {"cleared", p.cleared},
                            {"saturated", p.saturated}};
        if (!p.unread.empty()) j["unread"] = p.unread;
        out.push_back(std::move(j));
    }
    return out;
}

}  // namespace fabscope::perf
