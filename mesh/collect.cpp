#include "mesh/collect.h"

#include <fmt/format.h>

#include <algorithm>

#include "congestion/flow_congestion.h"
#include "ranks/protocol.h"

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

bool StepCollector::all_missing_vouched(const MeshComm::Messages& got,
                                        const std::vector<char>& skip) {
    std::vector<char> silent(got.size(), 0);
    for (const auto& m : got) {
        if (auto j = parse_message(m); j && j->contains("silent_partner")) {
            int p = (*j)["silent_partner"].get<int>();
            if (p >= 0 && static_cast<size_t>(p) < silent.size()) silent[p] = 1;
        }
    }
    for (size_t r = 0; r < got.size(); ++r) {
        if (!got[r] && !skip[r] && !silent[r]) return false;
    }
    return true;
}

void StepCollector::absorb(size_t round, int r, const nlohmann::json& j) {
    if (j.contains("silent_partner")) note_silent(round, r, j);
    if (j.contains("flow")) record(round, r, j["flow"]);
    for (const char* side : {"tx", "rx"}) {
        if (j.contains(side)) counted(round, r, side, j[side]);
    }
}

std::span<MeshFlow> StepCollector::round_flows(size_t round) {
    auto before = [](const MeshFlow& f, size_t r) { return f.round < r; };
    auto first = std::lower_bound(d_.flows.begin(), d_.flows.end(), round, before);
    auto last = first;
    while (last != d_.flows.end() && last->round == round) ++last;
    return {first, last};
}

MeshFlow* StepCollector::flow(size_t round, int src) {
    for (MeshFlow& f : round_flows(round)) {
        if (f.src == src) return &f;
    }
    return nullptr;
}

MeshFlow* StepCollector::flow_to(size_t round, int dst) {
    for (MeshFlow& f : round_flows(round)) {
        if (f.dst == dst) return &f;
    }
    return nullptr;
}

void StepCollector::counted(size_t round, int r, const std::string& side, const json& j) {
    const bool tx = side == "tx";
    MeshFlow* f = tx ? flow(round, r) : flow_to(round, r);
    if (!f || f->congestion_read || !j.is_object()) return;
    auto c = j.find("counters");
    auto s = j.find("seconds");
    auto dev = j.find("device");
    if (c == j.end() || !c->is_object() || s == j.end() || !s->is_number() || dev == j.end() ||
        !dev->is_string())
        return;
    f->counters[tx ? "local" : "remote"] = *c;
    (tx ? f->src_device : f->dst_device) = dev->get<std::string>().substr(0, 64);
    // The sender's interval is the flow's; the receiver's stands in when
    // the sender said nothing.
    if (tx || f->counted_s <= 0) f->counted_s = std::max(0.0, s->get<double>());
}

void StepCollector::detect(size_t round) {
    for (MeshFlow& f : round_flows(round)) {
        if (f.congestion_read || !f.counters.contains("local")) continue;
        f.congestion_read = true;
        const std::string& src = d_.ranks.at(f.src).host;
        const std::string& dst = d_.ranks.at(f.dst).host;
        f.congestion = test_congestion(f.counters, {src, f.src_device, dst, f.dst_device},
                                       f.counted_s, limits_);
        for (const Finding& x : f.congestion) {
            // The receiver's device (two ranks may share a host).
            const bool at_dst =
                x.evidence.value("host", "") == dst && x.evidence.value("port", "") == f.dst_device;
            d_.findings.push_back({"congestion", at_dst ? f.dst : f.src, static_cast<int>(round),
                                   fmt::format("{} -> {} in round {}: {}", who(d_.ranks, f.src),
                                               who(d_.ranks, f.dst), round + 1, x.summary)});
        }
    }
}

void StepCollector::note_silent(size_t round, int r, const json& j) {
    int p = j["silent_partner"].get<int>();
    for (MeshFlow& f : round_flows(round)) {
        if (f.measured) continue;
        if ((f.src == r && f.dst == p) || (f.src == p && f.dst == r))
            f.error = j.value("error", "the partner did not answer");
    }
}

void StepCollector::record(size_t round, int src, const json& j) {
    MeshFlow* f = flow(round, src);
    if (!f) return;
    if (j.value("error", "") == "interrupted") {
        f->error = "not run: the run was interrupted";  // cut short, not failed
        return;
    }
    f->measured = true;
    f->ok = j.value("ok", false);
    f->error = j.value("error", "");
    f->avg_gbps = j.value("avg_gbps", 0.0);
    f->peak_gbps = j.value("peak_gbps", 0.0);
    f->min_window_gbps = j.value("min_window_gbps", 0.0);
    f->bytes = j.value("bytes", uint64_t{0});
    f->seconds = j.value("seconds", 0.0);
    if (auto p = j.find("path"); p != j.end() && p->is_object()) f->path = *p;
    if (!f->ok) {
        d_.findings.push_back({"flow-failed", src, static_cast<int>(round),
                               fmt::format("{} -> {} in round {}: {}", who(d_.ranks, src),
                                           who(d_.ranks, f->dst), round + 1, f->error)});
    }
}
}  // namespace fabscope::perf
