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
/// port to every other rank with an address.
json trace_to_all(const MeshRunOptions& o, const std::vector<MeshRank>& ranks, int me,
                  const std::vector<uint16_t>& sports) {
    json out = json::array();
    // No ports asked: rank 0 plans from an InfiniBand snapshot's routes.
    if (!o.trace_sports || sports.empty() || static_cast<size_t>(me) >= ranks.size()) return out;
    const std::string& from = ranks[me].address;
    if (from.empty()) return out;
    for (const MeshRank& r : ranks) {
        if (r.rank == me || r.address.empty() || !r.error.empty()) continue;
        std::vector<FlowTrace> traces = o.trace_sports(from, r.address, sports);
        for (const FlowTrace& t : traces) {
            auto v = std::find(sports.begin(), sports.end(), t.sport);
            if (v == sports.end()) continue;
            out.push_back({{"dst", r.rank},
                           {"variant", v - sports.begin()},
                           {"trace", flow_trace_to_json(t)}});
        }
        // No traces: no router between (the same leaf): the pair crosses no lane.
        if (traces.empty()) {
            for (size_t v = 0; v < sports.size(); ++v)
                out.push_back({{"dst", r.rank}, {"variant", v}});
        }
    }
    return out;
}

void absorb_traces(MeshRunData& d, int src, const json& j) {
    if (!j.is_array()) return;
    for (const json& t : j) {
        try {
            MeshTrace m;
            m.src = src;
            m.dst = t.at("dst").get<int>();
            m.variant = t.at("variant").get<int>();
            if (t.contains("trace")) m.hops = flow_trace_from_json(t["trace"]).hops;
            d.traces.push_back(std::move(m));
        } catch (const std::exception&) {
            // A trace rank 0 cannot read is one path less to plan with.
        }
    }
}

}  // namespace

void trace_for_cover(RankRun& ranks, const MeshRunOptions& o, MeshRunData& d, MeshDeadline ask_by,
                     MeshDeadline traces_by) {
    MeshComm& comm = ranks.comm();
    json ask;
    if (ranks.root()) {
        // On InfiniBand the snapshot's routes are the paths: no ports to trace.
        if (!d.routes)
            d.sports = spread_udp_sports(std::clamp(o.trace_variants, 1, kMaxTraceFlows));
        ask = {{"ranks", ranks_json(d.ranks)}, {"sports", d.sports}};
    }
    auto asked = parse_message(
        comm.broadcast(kTagTraceAsk, ranks.root() ? ask.dump() : "", ranks.skip(), ask_by));
    json mine = json::array();
    if (asked) {
        try {
            mine = trace_to_all(o, ranks_from_json(asked->at("ranks")), ranks.me(),
                                asked->at("sports").get<std::vector<uint16_t>>());
        } catch (const std::exception&) {
            mine = json::array();
        }
    }
    auto traces = comm.gather(kTagTraces, mine.dump(), ranks.skip(), traces_by, nullptr);
    if (!ranks.root()) return;
    for (size_t r = 0; r < traces.size(); ++r) {
        if (auto j = traces[r] ? json::parse(*traces[r], nullptr, false) : json();
            !j.is_discarded())
            absorb_traces(d, static_cast<int>(r), j);
    }
}

}  // namespace fabscope::perf
