#pragma once
// Path traces between the hosts of a launcher-run job (`discover --roce
// --mpi --trace`): rank 0 names every rank's address, each rank traces a
// few UDP source ports from its own address to every other's, and rank 0
// collects the traces by a deadline. A rank that died or hangs delays the
// others by at most that deadline; its traces are missing and rank 0 says
// whose.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ranks/comm.h"
#include "trace/roce_trace.h"
#include "trace/udp_tracer.h"

namespace fabscope::perf {

/// A rank taking part, and the address it traces from and is traced to.
struct RankAddress {
    int rank = 0;
    std::string address;
};

struct RankTrace {
    int src = 0;
    int dst = 0;
    FlowTrace trace;
};

struct RankTraces {
    std::vector<RankTrace> traces;
    /// Ranks that were asked and sent no (readable) traces by the deadline.
    std::vector<int> missing;
};

/// Whom each rank traces to (ranks), by rank; a rank not in it traces to
/// every other.
using TraceTargets = std::map<int, std::vector<int>>;

/// Every rank calls it. Rank 0 sends `addresses` and `targets` (what other
/// ranks pass is not used) to every rank not in `skip` by `ask_by`; each rank
/// traces from its own address to its targets' addresses; rank 0 returns
/// what arrived by `traces_by` (other ranks: nullopt). At most
/// kMaxTraceFlows ports.
std::optional<RankTraces> trace_between_ranks(
    MeshComm& comm, const std::vector<RankAddress>& addresses, const TraceTargets& targets,
    const std::vector<uint16_t>& sports, const TraceSports& trace, const std::vector<char>& skip,
    MeshDeadline ask_by, MeshDeadline traces_by);

/// Tracing to every host costs O(hosts) per host; to see the spines above a
/// leaf it is enough to trace to one host under each other leaf. Each rank
/// gets one target per other leaf, rotated by its place under its own leaf
/// so the hosts of a leaf spread over the other leaf's hosts. `leaf_of_rank`:
/// rank -> its leaf's GUID (0: not known, then it traces to every rank).
/// With `tracers_per_leaf` above 0 only that many hosts of each leaf trace
/// (the first in rank order; the others get no target): every host of a
/// leaf sees the same uplinks, and each trace costs the routers on its way
/// an ICMP reply each, which switches rate-limit.
TraceTargets one_host_per_leaf(const std::map<int, uint64_t>& leaf_of_rank,
                               int tracers_per_leaf = 0);

}  // namespace fabscope::perf
