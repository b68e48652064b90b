#pragma once
// The paths of a mesh run on InfiniBand, from the forwarding tables of a
// snapshot (`fabscope sweep -o FILE`, routes read): each rank's port is found
// in the snapshot by its LID (and its port GUID, when it knows it), and a
// flow's path is the route the switches' LFTs give from the sender's port to
// the receiver's LID plus the pair's LMC path bits, which the subnet manager
// may route over another spine. Pure: the run's data and the snapshot in,
// endpoints and lanes out.

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

/// Every flow of the run along its route, the cables of its two hosts
/// included (a slow NIC or host cable then explains its flows, not a
/// leaf-spine cable), or why its route is not known.
std::vector<FlowPath> ib_flow_lanes(const MeshRunData& d);

}  // namespace fabscope::perf
