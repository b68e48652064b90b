#include "mesh/paths_ib.h"

#include <fmt/format.h>

#include <unordered_map>

namespace fabscope::perf {

namespace {

/// The snapshot's endpoints by LID: a port with LMC answers to 2^LMC LIDs
/// from its base, and a rank reports its base.
std::unordered_map<Lid, MeshEndpoint> endpoints_by_lid(const Fabric& f) {
    std::unordered_map<Lid, MeshEndpoint> out;
    for (MeshEndpoint& e : endpoints_from_fabric(f)) out.emplace(e.lid, std::move(e));
    return out;
}

/// The snapshot's endpoint of a rank: by its base LID and, when the rank
/// knows its port GUID, only if the port at that LID has it (a snapshot of
/// another subnet, or LIDs the SM has since given to other ports, would route
/// the rank's flows as another host's). Null and why not otherwise.
const MeshEndpoint* match_rank(const Fabric& f, const std::unordered_map<Lid, MeshEndpoint>& by_lid,
                               const MeshRank& r, std::string* why = nullptr) {
    auto it = by_lid.find(r.lid);
    if (r.lid == 0 || it == by_lid.end()) {
        if (why) *why = "no port of it has that LID";
        return nullptr;
    }
    const Port* p = f.port(PortRef{it->second.node, it->second.port});
    if (r.port_guid != 0 && p && p->guid != 0 && p->guid != r.port_guid) {
        if (why) {
            *why = fmt::format("it gives that LID to {} (port GUID {}), not to this port ({})",
                               describe(f, PortRef{it->second.node, it->second.port}),
                               format_guid(p->guid), format_guid(r.port_guid));
        }
        return nullptr;
    }
    return &it->second;
}

}  // namespace

PathSource ib_paths(const MeshRunData& d) {
    PathSource v;
    if (!d.routes) return v;
    v.oracle = std::make_shared<IbPathOracle>(*d.routes);
    v.lanes = fabric_lanes(*d.routes);
    v.fabric = d.routes.get();
    v.steer = [](const PairTest& t, MeshPair& p) {
        p.path_bits_ab = static_cast<uint8_t>(t.variant_ab);
        p.path_bits_ba = static_cast<uint8_t>(t.both_ways ? t.variant_ba : 0);
    };
    auto by_lid = endpoints_by_lid(*d.routes);
    for (const MeshRank& r : d.ranks) {
        if (!r.error.empty() || r.gone || r.coordinator) continue;
        const MeshEndpoint* found = match_rank(*d.routes, by_lid, r);
        if (!found) continue;
        v.ranks.push_back(r.rank);
        MeshEndpoint e = *found;
        e.name = r.host.empty() ? e.name : r.host;
        v.endpoints.push_back(std::move(e));
    }
    return v;
}

std::vector<MeshFinding> ranks_not_in_routes(const MeshRunData& d) {
    std::vector<MeshFinding> out;
    if (!d.routes) return out;
    auto by_lid = endpoints_by_lid(*d.routes);
    for (const MeshRank& r : d.ranks) {
        if (!r.error.empty() || r.coordinator || r.gone) continue;
        std::string why;
        if (match_rank(*d.routes, by_lid, r, &why)) continue;
        out.push_back({"rank-not-in-routes", r.rank, -1,
                       fmt::format("{} ({}/{}, LID {}) is not in {}: {}. No route is known for "
                                   "it, so a cover leaves it out and all-pairs tests it without a "
                                   "path; sweep this subnet again (fabscope sweep -o FILE) if the "
                                   "fabric changed",
                                   who(d.ranks, r.rank), r.device, r.port, r.lid,
                                   d.routes_from.empty() ? "the snapshot" : d.routes_from, why)});
    }
    return out;
}

IbFlowRoutes::IbFlowRoutes(const MeshRunData& d) : d_(d) {
    if (!d.routes) return;
    by_lid_ = endpoints_by_lid(*d.routes);
    oracle_ = std::make_unique<IbPathOracle>(*d.routes);
}

IbFlowRoutes::~IbFlowRoutes() = default;

const MeshEndpoint* IbFlowRoutes::endpoint(int rank) const {
    if (rank < 0 || static_cast<size_t>(rank) >= d_.ranks.size()) return nullptr;
    return match_rank(*d_.routes, by_lid_, d_.ranks[static_cast<size_t>(rank)]);
}

FlowPath IbFlowRoutes::path(const MeshFlow& f) const {
    if (!oracle_) return FlowPath{{}, "no routes loaded"};
    const MeshEndpoint* src = endpoint(f.src);
    const MeshEndpoint* dst = endpoint(f.dst);
    if (!src || !dst)
        return FlowPath{
            {}, fmt::format("{} is not in the snapshot", who(d_.ranks, src ? f.dst : f.src))};
    if (f.path_bits >= oracle_->variants(*dst))
        return FlowPath{
            {},
            fmt::format("{} has no LID {} (LMC {})", dst->name, dst->lid + f.path_bits, dst->lmc)};
    return oracle_->path(*src, *dst, f.path_bits);
}

}  // namespace fabscope::perf
