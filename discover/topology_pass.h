#pragma once
// The first pass of a sweep: the topology, walked breadth-first by
// directed-route SMPs. Each node found is asked for its NodeInfo, then
// NodeDescription, SwitchInfo (switches) and the PortInfo of every port;
// the links out of a switch (and out of the local port) are followed. A node
// reached again is linked, not read again. What does not answer behind an up
// port becomes an "unreachable" finding that says why: MADs lost on the way,
// a node that stays silent, or a path already given up.

#include "discover/sweep_context.h"

namespace fabscope {

/// Walks the fabric from the local port; returns when the walk is done (or
/// stopped, and in flight work has ended).
void topology_pass(SweepContext& ctx);

}  // namespace fabscope
