#pragma once
// A mesh run on InfiniBand, planned and localized from the forwarding tables
// of a snapshot (`fabscope sweep -o FILE`, routes read): each rank's port is
// found in the snapshot by its LID, and a flow's path is the route the
// switches' LFTs give from the sender's port to the receiver's LID (plus the
// pair's LMC path bits, which the subnet manager may route over another
// spine). The scheduler's cover, perf/localize's separating rounds and the
// localization then work on those lanes as they do on RoCE's traced ones.
// Pure: the run's data and the snapshot in, rounds and lanes out.

#include <cstddef>
#include <string>
#include <vector>

#include "perf/mesh_paths.h"
#include "perf/mesh_run.h"
#include "perf/schedule.h"

namespace fabscope::perf {

struct MeshAnalysis;

/// The ranks that can test and whose LID the snapshot has, as endpoints of
/// the snapshot (endpoint i is rank ranks[i]); `index[r]` is rank r's
/// endpoint, -1 for none.
struct IbPlanView {
    std::vector<int> ranks;
    std::vector<MeshEndpoint> endpoints;
    std::vector<int> index;
};
IbPlanView ib_plan_view(const MeshRunData& d);

/// Rank 0's finding for every rank that tests but whose LID the snapshot
/// does not have (its flows run, and no path is known for them).
std::vector<MeshFinding> ranks_not_in_routes(const MeshRunData& d);

/// Every flow of the run along its route: the switch-to-switch lanes (the
/// cables a host is plugged in by are its endpoint's, not the fabric's), or
/// why its route is not known.
std::vector<FlowPath> ib_flow_lanes(const MeshRunData& d);

/// All pairs under each leaf of the snapshot, every leaf at once (the ranks
/// the snapshot knows; a leaf is the switch a rank's port is cabled to).
std::vector<std::vector<MeshPair>> plan_ib_leaf(const MeshRunData& d);

/// Cover over the routes, as mesh rounds with LMC path bits; `coverage` is
/// what the plan crosses of the snapshot's switch-to-switch lanes.
std::vector<std::vector<MeshPair>> plan_ib_cover(const MeshRunData& d, size_t max_rounds,
                                                 Coverage* coverage = nullptr);

/// Rounds that separate what the analysis so far left open, over the routes
/// (as plan_separating does over traces).
std::vector<std::vector<MeshPair>> plan_ib_separating(const MeshRunData& d, const MeshAnalysis& a,
                                                      size_t max_rounds);

}  // namespace fabscope::perf
