#include "mesh/cover_traces.h"

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>

#include "trace/roce_sport.h"
#include "trace/udp_probe.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

constexpr int kTagTraceAsk = 3;
constexpr int kTagTraces = 4;

/// This rank's part of the traces a cover is planned from: every source
/// port to each rank it is asked to trace that has an address. Stops at
/// kMaxTraceBytes; `left_out` counts the ranks it did not get to.
json trace_to_all(const MeshRunOptions& o, const std::vector<MeshRank>& ranks, int me,
                  const std::vector<uint16_t>& sports, int targets, size_t* left_out) {
    json out = json::array();
    // No ports asked: rank 0 plans from an InfiniBand snapshot's routes.
    if (!o.trace_sports || sports.empty() || static_cast<size_t>(me) >= ranks.size()) return out;
    const std::string& from = ranks[me].address;
    if (from.empty()) return out;
    size_t bytes = 2;
    const std::vector<int> to = cover_trace_targets(me, static_cast<int>(ranks.size()), targets);
    for (size_t i = 0; i < to.size(); ++i) {
        const MeshRank& r = ranks[static_cast<size_t>(to[i])];
        if (r.address.empty() || !r.error.empty()) continue;
        std::vector<FlowTrace> traces = o.trace_sports(from, r.address, sports);
        json these = json::array();
        for (const FlowTrace& t : traces) {
            auto v = std::find(sports.begin(), sports.end(), t.sport);
            if (v == sports.end()) continue;
            these.push_back({{"dst", r.rank},
                             {"variant", v - sports.begin()},
                             {"trace", flow_trace_to_json(t)}});
        }
        // No traces: no router between (the same leaf): the pair crosses no lane.
        if (traces.empty()) {
            for (size_t v = 0; v < sports.size(); ++v)
                these.push_back({{"dst", r.rank}, {"variant", v}});
        }
        bytes += these.dump().size() + 1;
        if (bytes > kMaxTraceBytes) {
            *left_out = to.size() - i;
            break;
        }
        for (json& t : these) out.push_back(std::move(t));
    }
    return out;
}

void absorb_traces(MeshRunData& d, int src, const json& message) {
    const json* list = &message;
    if (message.is_object()) {
        // {"traces": [...], "left_out": N}: the rank stopped at the size bound.
        const json& left = message.value("left_out", json());
        if (left.is_number_unsigned()) d.traces_left_out += left.get<size_t>();
        auto it = message.find("traces");
        if (it == message.end()) return;
        list = &*it;
    }
    if (!list->is_array()) return;
    for (const json& t : *list) {
        try {
            const int dst = t.at("dst").get<int>();
            const int variant = t.at("variant").get<int>();
            d.add_trace(src, dst, variant,
                        t.contains("trace") ? flow_trace_from_json(t["trace"]).hops
                                            : std::vector<TraceHop>{});
        } catch (const std::exception&) {
            // A trace rank 0 cannot read is one path less to plan with.
        }
    }
}

}  // namespace

std::string rank_traces_message(const MeshRunOptions& o, const std::vector<MeshRank>& ranks, int me,
                                const std::vector<uint16_t>& sports, int targets) {
    size_t left_out = 0;
    json mine = trace_to_all(o, ranks, me, sports, targets, &left_out);
    if (left_out > 0) mine = {{"traces", std::move(mine)}, {"left_out", left_out}};
    return mine.dump();
}

std::vector<int> cover_trace_targets(int me, int n, int k) {
    std::vector<int> out;
    if (n <= 1 || me < 0 || me >= n) return out;
    if (k <= 0 || k >= n - 1) {
        for (int r = 0; r < n; ++r)
            if (r != me) out.push_back(r);
        return out;
    }
    // Offsets s and n - s, spread evenly over 1..n/2: the rank me + s traces
    // me back through its offset n - s.
    std::vector<int> offsets;
    const int half = (k + 1) / 2;
    for (int j = 0; j < half; ++j) {
        const int s = 1 + static_cast<int>(static_cast<int64_t>(j) * (n / 2) / half);
        offsets.push_back(s);
        if (n - s != s) offsets.push_back(n - s);
    }
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    for (int s : offsets) out.push_back((me + s) % n);
    return out;
}

void trace_for_cover(RankRun& ranks, const MeshRunOptions& o, MeshRunData& d, MeshDeadline ask_by,
                     MeshDeadline traces_by) {
    MeshComm& comm = ranks.comm();
    json ask;
    if (ranks.root()) {
        // On InfiniBand the snapshot's routes are the paths: no ports to trace.
        if (!d.routes)
            d.sports = spread_udp_sports(std::clamp(o.trace_variants, 1, kMaxTraceFlows));
        ask = {{"ranks", ranks_json(d.ranks)}, {"sports", d.sports}, {"targets", o.trace_targets}};
    }
    auto asked = parse_message(
        comm.broadcast(kTagTraceAsk, ranks.root() ? ask.dump() : "", ranks.skip(), ask_by));
    std::string mine = "[]";
    if (asked) {
        try {
            mine = rank_traces_message(o, ranks_from_json(asked->at("ranks")), ranks.me(),
                                       asked->at("sports").get<std::vector<uint16_t>>(),
                                       asked->value("targets", 0));
        } catch (const std::exception&) {
            mine = "[]";
        }
    }
    auto traces = comm.gather(kTagTraces, mine, ranks.skip(), traces_by, nullptr);
    if (!ranks.root()) return;
    for (size_t r = 0; r < traces.size(); ++r) {
        // Bounded in depth as every message is: a rank's traces are input.
        if (auto j = traces[r] ? parse_message(*traces[r]) : Result<json>(json()); j)
            absorb_traces(d, static_cast<int>(r), *j);
    }
}

}  // namespace fabscope::perf
