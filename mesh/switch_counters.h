#pragma once
// The fabric side of a mesh run's evidence on InfiniBand: the PMA counters of
// the switch ports at both ends of every switch-to-switch cable, read by rank
// 0 before the first round and after the last. A lane suspect (a cable one
// way) then carries what its sending port counted (PortXmitDiscards,
// PortXmitWait: it could not send) and what its receiving port counted
// (SymbolErrorCounter, PortRcvErrors, LinkErrorRecoveryCounter: what arrived
// was damaged), the counters a vendor's ticket asks for. The reading is a
// function the caller gives (the CLI's umad PMA reader; the tests' own); what
// is made of two readings is pure.

#include <set>
#include <vector>

#include "mesh/results/switch_evidence.h"
#include "model/fabric.h"
#include "model/paths.h"

namespace fabscope::perf {

/// The switch ports of the fabric's switch-to-switch cables: what to read.
std::set<PortRef> switch_link_ports(const Fabric& f);

/// The ports at both ends of `lane`, its sender first; nothing when the
/// counters were not read at all.
std::vector<PortEvidence> lane_port_evidence(const Fabric& f, Lane lane, const SwitchCounters& c);

}  // namespace fabscope::perf
