#pragma once
// The paths of a mesh run on RoCE, from traces. ECMP picks a flow's spine by
// a hash of its UDP source port, and the kernel derives that port from the
// QP's GRH flow label, so a flow's path is chosen by its label: every rank
// traces a few source ports to every other (MeshRunData::traces), and a
// test's variant is the index of the port, steered by its label. Pure: the
// run's data in, endpoints and lanes out.

#include <cstdint>
#include <vector>

#include "mesh/path_source.h"
#include "mesh/run_data.h"
#include "trace/trace_fabric.h"

namespace fabscope::perf {

/// The ranks as hosts of the traced fabric, each cabled to the first hop of
/// its own traces (those taken before the rounds, and its flows' own).
std::vector<TracedHost> traced_hosts(const MeshRunData& d);

/// A flow's lanes: its source's cable toward its leaf, `between`, and its
/// destination's cable from its leaf (those the fabric knows).
std::vector<Lane> with_host_lanes(const TracedFabric& fabric, int src, int dst,
                                  const std::vector<Lane>& between);

/// The fabric of the traces taken before the rounds, the ranks cabled to it.
TracedFabric traced_fabric(const MeshRunData& d);

/// The ranks with an address, one endpoint each, over the traced paths;
/// `fabric` must know every traced path and outlive the source.
PathSource traced_paths(const MeshRunData& d, const TracedFabric& fabric);

/// The flow label that makes rxe send from `sports[variant]` (0 when out of range).
uint32_t label_of(const MeshRunData& d, int variant);

}  // namespace fabscope::perf
