#include "perf/mesh_switch_counters.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope::perf {

namespace {

/// Whether a counter's rise tells of trouble on the port, not of traffic.
bool is_event(Counter c) {
    return is_error_counter(c) || c == Counter::PortXmitWait;
}

const PortCounters* find(const std::optional<SwitchCounterRead>& r, PortRef p) {
    if (!r) return nullptr;
    auto it = r->ports.find(p);
    return it == r->ports.end() ? nullptr : &it->second;
}

bool failed(const std::optional<SwitchCounterRead>& r, PortRef p) {
    return r && std::find(r->failed.begin(), r->failed.end(), p) != r->failed.end();
}

PortEvidence evidence_of(const Fabric& f, PortRef p, bool sends, const SwitchCounters& c) {
    PortEvidence e;
    e.port = p;
    e.name = describe(f, p);
    e.sends = sends;
    const PortCounters* before = find(c.before, p);
    const PortCounters* after = find(c.after, p);
    if (!before || !after) {
        const bool said_no = failed(c.before, p) || failed(c.after, p);
        e.unread = said_no ? fmt::format("{} did not answer the PMA", e.name)
                           : fmt::format("{} was not read", e.name);
        return e;
    }
    for (int i = 0; i < kCounterCount; ++i) {
        const auto counter = static_cast<Counter>(i);
        auto rise = counter_rise(*before, *after, counter);
        if (!rise) continue;
        const std::string n(name(counter));
        if (rise->cleared) e.cleared.push_back(n);
        if (rise->delta > 0) e.changes[n] = rise->delta;
        if (rise->after == counter_max(counter, after->extended)) e.saturated.push_back(n);
    }
    return e;
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

std::set<PortRef> switch_link_ports(const Fabric& f) {
    std::set<PortRef> out;
    for (Lane lane : fabric_lanes(f)) {
        const Link& l = f.links()[link_of_lane(lane)];
        out.insert(l.a);
        out.insert(l.b);
    }
    return out;
}

std::vector<PortEvidence> lane_port_evidence(const Fabric& f, Lane lane, const SwitchCounters& c) {
    if (!c.why_not().empty() || link_of_lane(lane) >= f.links().size()) return {};
    const Link& l = f.links()[link_of_lane(lane)];
    const bool forward = (lane & 1U) == 0;
    return {evidence_of(f, forward ? l.a : l.b, true, c),
            evidence_of(f, forward ? l.b : l.a, false, c)};
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
