#pragma once
// Both ends of a mesh run launched by agents (perf/mesh_order.h):
//  - the agent: a `perf serve` session whose hello carries a mesh order runs
//    this host's rank of perf/mesh_run, its messages relayed by the
//    coordinator (perf/mesh_comm_relay.h); one mesh at a time, like any
//    session of the server;
//  - the coordinator: opens a session to every agent of the hosts file,
//    gives each its order, and runs rank 0 (plan, collect, localize) over them.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/channel.h"
#include "perf/mesh_hosts.h"
#include "perf/mesh_order.h"
#include "perf/mesh_run.h"
#include "perf/session.h"

namespace fabscope::perf {

/// The agent: serves the order in `hello` on `ch` until the run ends, the
/// coordinator goes away or the order's own time is up. Returns why it ended
/// early ("" when the run ended normally). Never throws.
std::string serve_mesh_order(const VerbsDevice& dev, Channel& ch, const PeerOptions& peer,
                             const SessionLimits& lim, const nlohmann::json& hello, const Log& log);

struct CoordinatorOptions {
    MeshRunOptions run;  ///< the spec, pattern, step timeout (coordinator_only is set)
    Millis trace_timeout{300};
    bool trace = true;
    HostNames names;     ///< sent along: the agents name the hops of their traces with them
    std::string secret;  ///< the agents' shared secret ("" = none)
    Millis connect_timeout{5000};
};

/// The launcher named in the report.
std::string agents_launcher();

/// The coordinator: rank 0 over `agents` (rank i+1 is agents[i]). An agent
/// that cannot be reached, refuses or does not join within the step timeout
/// takes no part, with the reason as its finding. Returns rank 0's outcome.
MeshRunOutcome coordinate_mesh(const std::vector<MeshAgent>& agents, const CoordinatorOptions& o,
                               const StopToken& stop);

}  // namespace fabscope::perf
