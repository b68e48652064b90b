#pragma once
// The orders of a mesh run launched by agents (`perf serve` on every host,
// one coordinator `mesh run --hosts FILE`), and reading them without trusting
// them. The coordinator opens a perf session to each agent and says, in its
// hello, "mesh": this order. The agent checks it against its bounds, answers
// "joined", and from then on the session carries the ranks' messages, which
// the coordinator relays between agents (ranks/comm_relay.h):
//
//   coordinator                          agent
//                                   <-   welcome {protocol, nonce?}
//   hello {protocol, auth?, mesh}   ->
//                                   <-   joined {host, mesh_version} (or error)
//                                   <->  relay {to|from, tag, body} ...
//                                   <-   undeliverable {peer, tag}  (a peer gone)
//   end                             ->
//
// Every field is checked here, pure, so the bounds are unit-tested.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mesh/run.h"
#include "rdma/caps.h"
#include "rdma/test_spec.h"
#include "trace/roce_trace.h"
#include "util/duration.h"
#include "util/result.h"

namespace fabscope::perf {

/// The version of the mesh order; an agent refuses any other.
inline constexpr int kMeshOrderVersion = 1;

/// What a coordinator may ask of an agent at most (besides the server's
/// --max-size and --max-duration, which bound each flow).
struct MeshAgentBounds {
    int max_ranks = 4097;  ///< the coordinator and 4,096 agents
    size_t max_cover_rounds = 64;
    size_t max_adaptive_rounds = 16;
    int max_trace_variants = 64;
    Millis min_step_timeout{100};
    Millis max_step_timeout{60000};
    Millis max_trace_timeout{5000};
    size_t max_names = 4096;  ///< router names sent along for the traces
    /// --pattern ring: its sizes (each within the server's --max-size), its
    /// all-reduces per size, and the time a size may take.
    size_t max_ring_sizes = 32;
    int64_t max_ring_iterations = 100000;
    Millis max_ring_timeout{3600 * 1000};
    /// The whole run, as the order's own numbers bound it; longer is refused.
    Millis max_session{4 * 3600 * 1000};
};

/// An agent's order: the test every rank runs, and this agent's part.
struct MeshOrder : MeshTest {
    int version = kMeshOrderVersion;
    int rank = 1;        ///< this agent's rank; the coordinator is rank 0
    int size = 2;        ///< the coordinator and every agent
    std::string device;  ///< "" = the agent's own (perf serve -d)
    int port = 0;
    std::optional<int> gid_index;
    uint8_t traffic_class = 0;
    int mtu_cap = 0;
    bool trace = true;  ///< trace the flows' paths (Soft-RoCE)
    Millis trace_timeout{300};
    HostNames names;  ///< address -> name, for the hops of the traces
};

nlohmann::json order_to_json(const MeshOrder& o);
/// The order in a hello's "mesh", checked against `b` and the server's caps:
/// an error (never an exception) that says which field is wrong and why.
Result<MeshOrder> order_from_json(const nlohmann::json& j, const MeshAgentBounds& b,
                                  const ServeCaps& caps);

/// How long the run of `o` may take at most, from the order alone: the start
/// (hellos, traces, plan) and every step of the most rounds it can have.
Millis order_session_limit(const MeshOrder& o);

}  // namespace fabscope::perf
