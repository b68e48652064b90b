#pragma once
// Both ends of a mesh run launched by agents (mesh/order.h):
//  - the agent: a `perf serve` session whose hello carries a mesh order runs
//    this host's rank of mesh/run, its messages relayed by the
//    coordinator (ranks/comm_relay.h); one mesh at a time, like any
//    session of the server;
//  - the coordinator: opens a session to every agent of the hosts file,
//    gives each its order, and runs rank 0 (plan, collect, localize) over them.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mesh/hosts.h"
#include "mesh/order.h"
#include "mesh/run.h"
#include "net/channel.h"
#include "pairtest/session.h"

namespace fabscope::perf {

/// The agent: a `perf serve` hello handler (SessionLimits::hello_handlers,
/// key "mesh") that checks the order against `bounds` and the server's caps,
/// opens the device it names with `open`, and serves it until the run ends,
/// the coordinator goes away or the order's own time is up. Never throws.
HelloHandler mesh_order_handler(MeshAgentBounds bounds, OpenDevice open);

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

/// The order the coordinator sends agent `a` as rank `rank` of `size`.
MeshOrder agent_order(const CoordinatorOptions& o, const MeshAgent& a, int rank, int size);

/// How long a run over `agents` may take as its orders bound it, which each
/// agent holds to its --max-session; "" when within the default 4 h, else a
/// note for the user that says what to start the agents with.
std::string session_note(const CoordinatorOptions& o, size_t agents);

/// The coordinator: rank 0 over `agents` (rank i+1 is agents[i]). An agent
/// that cannot be reached, refuses or does not join within the step timeout
/// takes no part, with the reason as its finding. Returns rank 0's outcome.
MeshRunOutcome coordinate_mesh(const std::vector<MeshAgent>& agents, const CoordinatorOptions& o,
                               const StopToken& stop);

}  // namespace fabscope::perf
