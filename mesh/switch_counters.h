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
#include "mesh/run_data.h"
#include "model/fabric.h"
#include "model/paths.h"

namespace fabscope::perf {

/// The switch ports of the fabric's switch-to-switch cables: what to read.
std::set<PortRef> switch_link_ports(const Fabric& f);

/// The ports at both ends of `lane`, its sender first; nothing when the
/// counters were not read at all.
std::vector<PortEvidence> lane_port_evidence(const Fabric& f, Lane lane, const SwitchCounters& c);

/// A reading of the switch counters that failed, or left ports out, is a
/// finding of the run (`when`: "before the rounds").
void note_switch_counters(MeshRunData& d, const SwitchCounterRead& r, const char* when);

/// Rank 0, with routes, before the first flow: the first reading (or that
/// it was not asked: no reader).
void read_switch_counters_before(MeshRunData& d, const ReadSwitchCounters& read);
/// After the last flow: the second reading, unless the first failed (no umad
/// access is not tried again) or the run was interrupted.
void read_switch_counters_after(MeshRunData& d, const ReadSwitchCounters& read, bool interrupted);

}  // namespace fabscope::perf
