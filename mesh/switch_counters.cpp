#include "mesh/switch_counters.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope::perf {
namespace {

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

void note_switch_counters(MeshRunData& d, const SwitchCounterRead& r, const char* when) {
    if (!r.error.empty()) {
        d.findings.push_back(
            {"switch-counters", 0, -1,
             fmt::format("the switch ports' counters were not read {}: {} (the suspects have "
                         "no switch evidence; give rank 0 umad access, or pass "
                         "--no-switch-counters)",
                         when, r.error)});
    } else if (!r.failed.empty() && d.routes) {
        d.findings.push_back(
            {"switch-counters", 0, -1,
             fmt::format("{} switch port(s) did not answer the PMA {} (the first: {}): their "
                         "counters are no evidence",
                         r.failed.size(), when, describe(*d.routes, r.failed.front()))});
    }
}

void read_switch_counters_before(MeshRunData& d, const ReadSwitchCounters& read) {
    if (!d.routes) return;
    if (!read) {
        d.switch_counters.skipped = "not asked (--no-switch-counters)";
        return;
    }
    d.switch_counters.before = read();
    note_switch_counters(d, *d.switch_counters.before, "before the rounds");
}

void read_switch_counters_after(MeshRunData& d, const ReadSwitchCounters& read, bool interrupted) {
    const auto& first = d.switch_counters.before;
    if (!first || !first->error.empty() || !read) return;
    if (interrupted) {
        d.switch_counters.skipped = "interrupted before the second reading";
        return;
    }
    d.switch_counters.after = read();
    note_switch_counters(d, *d.switch_counters.after, "after the rounds");
}

}  // namespace fabscope::perf
