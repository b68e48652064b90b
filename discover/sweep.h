#pragma once
// The full-fabric sweep on fabscope's own MAD engine: topology by
// directed-route SMPs (NodeInfo, NodeDescription, SwitchInfo, PortInfo),
// every switch's linear forwarding table by LID-routed SMPs, and the
// PortCounters / PortCountersExtended of every active port by PMA Gets, in
// named passes (topology_pass, routes_pass, counters_pass, then
// sweep_assembly) over one MAD engine with many MADs in flight. Read-only:
// it sends Gets only.
//
// What it cannot reach becomes a finding; everything else is complete.

#include <functional>
#include <string_view>
#include <vector>

#include "discover/local_port.h"
#include "discover/mad_engine.h"
#include "model/finding.h"
#include "model/snapshot.h"

namespace fabscope {

struct SweepOptions {
    EngineOptions engine;
    bool routes = true;    ///< read the linear forwarding tables
    bool counters = true;  ///< read PortCounters (+Extended) of every active port
    /// SMInfo of every port whose CapabilityMask claims IsSM (a few MADs).
    bool subnet_managers = true;
    /// The P_Key tables of CA ports and of the switch ports facing them
    /// (a MAD or more per port: asked for, not read by default).
    bool pkeys = false;
    size_t max_hops = 63;  ///< the longest directed route followed
    /// Told as each pass starts ("topology", "routes", "subnet manager",
    /// "counters") and when
    /// the sweep is "done", with the nodes found so far (progress).
    std::function<void(std::string_view pass, size_t nodes)> on_pass;
};

struct SweepOutput {
    Snapshot snapshot;
    /// What could not be read: unreachable nodes (kind "unreachable"),
    /// failed queries ("query_failed"), duplicate GUIDs ("duplicate_guid"),
    /// routes beyond max_hops ("max_hops").
    std::vector<Finding> problems;
    /// Stopped by options.engine.stop: the snapshot holds what was read
    /// (source.complete false), and no finding stands for what was not.
    bool interrupted = false;
};

/// Sweeps from `local`. Fails only if the local node itself does not answer
/// (kExitCannotRun), or the stop came before it did (kExitInterrupted).
Result<SweepOutput> sweep_fabric(MadTransport& transport, const Clock& clock,
                                 const LocalPort& local, const SweepOptions& options);

}  // namespace fabscope
