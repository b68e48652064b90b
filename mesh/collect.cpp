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

void StepCollector::index_round(size_t round) {
    if (indexed_ && indexed_round_ == round && indexed_flows_ == d_.flows.size()) return;
    by_src_.assign(d_.ranks.size(), kNone);
    by_dst_.assign(d_.ranks.size(), kNone);
    for (MeshFlow& f : round_flows(round)) {
        const auto i = static_cast<size_t>(&f - d_.flows.data());
        const auto in = [&](int r) { return r >= 0 && static_cast<size_t>(r) < by_src_.size(); };
        if (in(f.src) && by_src_[static_cast<size_t>(f.src)] == kNone)
            by_src_[static_cast<size_t>(f.src)] = i;
        if (in(f.dst) && by_dst_[static_cast<size_t>(f.dst)] == kNone)
            by_dst_[static_cast<size_t>(f.dst)] = i;
    }
    indexed_ = true;
    indexed_round_ = round;
    indexed_flows_ = d_.flows.size();
}

MeshFlow* StepCollector::flow(size_t round, int src) {
    index_round(round);
    if (src < 0 || static_cast<size_t>(src) >= by_src_.size()) return nullptr;
    const size_t i = by_src_[static_cast<size_t>(src)];
    return i == kNone ? nullptr : &d_.flows[i];
}

MeshFlow* StepCollector::flow_to(size_t round, int dst) {
    index_round(round);
    if (dst < 0 || static_cast<size_t>(dst) >= by_dst_.size()) return nullptr;
    const size_t i = by_dst_[static_cast<size_t>(dst)];
    return i == kNone ? nullptr : &d_.flows[i];
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
    json both = f->counters.unpack();
    if (!both.is_object()) both = json::object();
    both[tx ? "local" : "remote"] = *c;
    f->counters = both;
    (tx ? f->src_device : f->dst_device) =
        d_.devices.intern(std::string_view(dev->get_ref<const std::string&>()).substr(0, 64));
    // The sender's interval is the flow's; the receiver's stands in when
    // the sender said nothing.
    if (tx || f->counted_s <= 0) f->counted_s = std::max(0.0, s->get<double>());
}

void StepCollector::detect(size_t round) {
    for (MeshFlow& f : round_flows(round)) {
        if (f.congestion_read || f.counters.is_null()) continue;
        const json counters = f.counters.unpack();
        if (!counters.contains("local")) continue;
        f.congestion_read = true;
        const std::string& src = d_.ranks.at(f.src).host;
        const std::string& dst = d_.ranks.at(f.dst).host;
        const std::string& dst_device = d_.devices.name(f.dst_device);
        f.congestion = test_congestion(
            counters, {src, d_.devices.name(f.src_device), dst, dst_device}, f.counted_s, limits_);
        for (const Finding& x : f.congestion) {
            // The receiver's device (two ranks may share a host).
            const bool at_dst =
                x.evidence.value("host", "") == dst && x.evidence.value("port", "") == dst_device;
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
