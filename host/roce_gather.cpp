#include "host/roce_gather.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ranks/protocol.h"

namespace fabscope::perf {
namespace {

using nlohmann::json;

constexpr int kTagAsk = 0x5441;     // "TA"
constexpr int kTagTraces = 0x5454;  // "TT"

json ask_json(const std::vector<RankAddress>& addresses, const TraceTargets& targets,
              const std::vector<uint16_t>& sports) {
    json a = json::array();
    for (const RankAddress& r : addresses) a.push_back({r.rank, r.address});
    json t = json::array();
    for (const auto& [rank, to] : targets) t.push_back({rank, to});
    return {{"addresses", a}, {"targets", t}, {"sports", sports}};
}

/// This rank's traces to every other address, as it sends them to rank 0.
json trace_mine(const json& ask, int me, const TraceSports& trace) {
    json out = json::array();
    std::vector<RankAddress> all;
    for (const json& a : ask.at("addresses"))
        all.push_back({a.at(0).get<int>(), a.at(1).get<std::string>()});
    auto sports = ask.at("sports").get<std::vector<uint16_t>>();
    if (sports.size() > static_cast<size_t>(kMaxTraceFlows)) sports.resize(kMaxTraceFlows);
    std::string from;
    for (const RankAddress& a : all)
        if (a.rank == me) from = a.address;
    if (from.empty()) return out;
    std::optional<std::vector<int>> mine;
    for (const json& t : ask.at("targets"))
        if (t.at(0).get<int>() == me) mine = t.at(1).get<std::vector<int>>();
    for (const RankAddress& to : all) {
        if (to.rank == me || to.address.empty()) continue;
        if (mine && std::find(mine->begin(), mine->end(), to.rank) == mine->end()) continue;
        for (const FlowTrace& t : trace(from, to.address, sports))
            out.push_back({{"dst", to.rank}, {"trace", flow_trace_to_json(t)}});
    }
    return out;
}

}  // namespace

std::optional<RankTraces> trace_between_ranks(
    MeshComm& comm, const std::vector<RankAddress>& addresses, const TraceTargets& targets,
    const std::vector<uint16_t>& sports, const TraceSports& trace, const std::vector<char>& skip,
    MeshDeadline ask_by, MeshDeadline traces_by) {
    const int me = comm.rank();
    std::string ask_msg = me == 0 ? ask_json(addresses, targets, sports).dump() : std::string();
    auto ask = parse_message(comm.broadcast(kTagAsk, ask_msg, skip, ask_by));
    json mine = json::array();
    if (ask) {
        try {
            mine = trace_mine(*ask, me, trace);
        } catch (const std::exception&) {
            // An ask this rank cannot read: it sends no traces, and rank 0
            // names it among the missing.
        }
    }
    auto got = comm.gather(kTagTraces, json{{"traces", mine}}.dump(), skip, traces_by, nullptr);
    if (me != 0) return std::nullopt;
    RankTraces out;
    for (size_t r = 0; r < got.size(); ++r) {
        if (skip[r]) continue;
        auto j = parse_message(got[r]);
        if (!j || !j->contains("traces") || !(*j)["traces"].is_array()) {
            out.missing.push_back(static_cast<int>(r));
            continue;
        }
        for (const json& t : (*j)["traces"]) {
            try {
                out.traces.push_back({static_cast<int>(r), t.at("dst").get<int>(),
                                      flow_trace_from_json(t.at("trace"))});
            } catch (const std::exception&) {
                // One unreadable trace is one path less, not a lost rank.
            }
        }
    }
    return out;
}

TraceTargets one_host_per_leaf(const std::map<int, uint64_t>& leaf_of_rank, int tracers_per_leaf) {
    std::map<uint64_t, std::vector<int>> under;  // leaf -> its ranks, in rank order
    for (const auto& [rank, leaf] : leaf_of_rank)
        if (leaf != 0) under[leaf].push_back(rank);
    TraceTargets out;
    for (const auto& [leaf, ranks] : under) {
        for (size_t i = 0; i < ranks.size(); ++i) {
            auto& to = out[ranks[i]];
            if (tracers_per_leaf > 0 && i >= static_cast<size_t>(tracers_per_leaf)) continue;
            for (const auto& [other, there] : under)
                if (other != leaf) to.push_back(there[i % there.size()]);
        }
    }
    return out;
}

}  // namespace fabscope::perf
