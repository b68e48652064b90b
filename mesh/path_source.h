#pragma once
// What a mesh run is planned over, whichever fabric it runs on: its ranks as
// the scheduler's endpoints, the paths between them, the lanes a cover must
// cross, and how a test's variant steers a flow onto one of its paths.
//
//   InfiniBand (ib_paths): each rank's port found in a snapshot by its LID;
//     paths are the routes of the switches' forwarding tables; a variant is
//     LMC path bits added to the partner's LID (mesh/paths_ib.h).
//   RoCE (traced_paths): paths are the traces of UDP source ports between
//     the ranks; a variant is the flow label that makes the QP send from that
//     port, so ECMP hashes it onto that path (mesh/paths_traced.h).
//
// mesh/plan turns either into rounds the same way. Pure.

#include <functional>
#include <memory>
#include <vector>

#include "mesh/run_data.h"
#include "model/paths.h"
#include "schedule/schedule.h"

namespace fabscope::perf {

struct PathSource {
    std::vector<int> ranks;  ///< endpoint i is rank ranks[i]
    std::vector<MeshEndpoint> endpoints;
    std::shared_ptr<const PathOracle> oracle;
    std::vector<Lane> lanes;  ///< the switch-to-switch lanes a cover must cross
    /// The fabric the lanes are of: the run's snapshot, or the traced fabric
    /// the source was made from (which must outlive it).
    const Fabric* fabric = nullptr;
    /// Sets what chooses each direction's path of a pair from the test's variants.
    std::function<void(const PairTest&, MeshPair&)> steer;
};

}  // namespace fabscope::perf
