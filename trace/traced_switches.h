#pragma once
// The switches LLDP cannot show, from path traces: a RoCE snapshot built from
// the hosts' LLDP neighbours knows the hosts, their leaves and the cables
// between them, nothing above the leaves. Traces between the hosts name every
// router on the way; this adds the ones that are not leaves (the spines) and
// the cables between routers to the snapshot's fabric. Pure: a fabric and
// traces in, a larger fabric and what could not be placed out.
//
// Which traced router is which LLDP leaf: the first router of a trace is the
// source host's leaf, the last is the destination's. Every trace votes, and a
// router takes the leaf most traces give it (two leaves for one router is a
// finding). A router no trace ties to a leaf is a switch of its own: a spine
// in a leaf-spine fabric, named as the trace named it.
//
// What a trace cannot see: port numbers (a router answers with an address,
// not a port) and routers that answer from several addresses (one per
// interface, as Linux and most switches do) when no names file tells the
// addresses apart. So the cables between routers get port numbers of
// fabscope's own: on a leaf, counted up from above its highest LLDP port; on
// a spine, from 1, in the order of the names at their other ends. The
// address each end answered from is kept with the cable.

#include <nlohmann/json.hpp>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"
#include "trace/roce_trace.h"
#include "util/result.h"

namespace fabscope::perf {

/// One trace between two host ports of the fabric.
struct HostPathTrace {
    PortRef src;
    PortRef dst;
    std::vector<TraceHop> hops;  ///< the routers, nearest first
};

struct TracedSwitches {
    Fabric fabric;
    std::vector<Finding> problems;
    size_t routers_added = 0;
    size_t cables_added = 0;
    /// The snapshot's "traced" section: paths, routers, cables with addresses.
    nlohmann::json summary;
};

/// `lldp` with the routers and router-to-router cables of `traces` added.
/// Fails only when the fabric cannot be rebuilt (a traced router whose GUID,
/// a hash of its name, is already a node's).
Result<TracedSwitches> add_traced_switches(const Fabric& lldp,
                                           const std::vector<HostPathTrace>& traces);

}  // namespace fabscope::perf
