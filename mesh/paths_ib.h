#pragma once
// The paths of a mesh run on InfiniBand, from the forwarding tables of a
// snapshot (`fabscope sweep -o FILE`, routes read): each rank's port is found
// in the snapshot by its LID (and its port GUID, when it knows it), and a
// flow's path is the route the switches' LFTs give from the sender's port to
// the receiver's LID plus the pair's LMC path bits, which the subnet manager
// may route over another spine. Pure: the run's data and the snapshot in,
// endpoints and lanes out.

#include <memory>
#include <unordered_map>
#include <vector>

#include "mesh/path_source.h"
#include "mesh/run_data.h"
#include "model/paths.h"

namespace fabscope::perf {

/// The ranks that can test and whose LID the snapshot has, as its endpoints,
/// over its routes; empty without a snapshot.
PathSource ib_paths(const MeshRunData& d);

/// Rank 0's finding for every rank that tests but whose LID the snapshot
/// does not have (its flows run, and no path is known for them).
std::vector<MeshFinding> ranks_not_in_routes(const MeshRunData& d);

/// The flows of the run along their routes, one flow at a time: rank 0 of
/// a 4,096-rank all-pairs run holds 16.8 million flows, so no vector of
/// every path is made.
class IbFlowRoutes {
  public:
    explicit IbFlowRoutes(const MeshRunData& d);
    IbFlowRoutes(const IbFlowRoutes&) = delete;
    IbFlowRoutes& operator=(const IbFlowRoutes&) = delete;
    ~IbFlowRoutes();
    /// Flow `f` along its route, the cables of its two hosts included (a
    /// slow NIC or host cable then explains its flows, not a leaf-spine
    /// cable), or why its route is not known.
    [[nodiscard]] FlowPath path(const MeshFlow& f) const;

  private:
    [[nodiscard]] const MeshEndpoint* endpoint(int rank) const;

    const MeshRunData& d_;
    std::unordered_map<Lid, MeshEndpoint> by_lid_;
    std::unique_ptr<IbPathOracle> oracle_;  ///< null without routes
};

}  // namespace fabscope::perf
