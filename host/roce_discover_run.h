#pragma once
// `discover --roce --mpi`'s pipeline, one rank per host: rank 0 gathers
// every rank's host report by a deadline (a rank that sends none is a
// finding, not a hang), assembles the RoCE fabric, with --trace has the
// ranks trace paths between them to add the routers above the leaves, and
// tells every rank whether one is gone (MPI_Finalize waits for every rank).
// The launcher stays behind ranks/comm.h, so this runs on a fake in tests;
// cli/ creates the comm, finalizes it and writes the snapshot.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "host/roce_fabric.h"
#include "model/finding.h"
#include "ranks/comm.h"
#include "trace/roce_trace.h"
#include "util/duration.h"

namespace fabscope::host {

/// How the ranks gather and trace, as the flags give it.
struct RoceRanksRequest {
    double gather_timeout_s = 60;  ///< for the hosts, and again for the traces
    bool trace = false;            ///< trace the spines between the ranks
    perf::HostNames names;         ///< the routers' names, by the addresses they answer from
    int trace_ports = 8;           ///< UDP source ports traced per pair
    int tracers_per_leaf = 2;      ///< hosts of a leaf that trace (0: every host)
    Millis trace_timeout{300};     ///< per probe
    bool quiet = false;            ///< no progress line on stderr at rank 0
};

/// What a rank ends with; rank 0 has the fabric to write.
struct RoceRanksOutcome {
    bool root = false;                      ///< this is rank 0
    std::vector<RoceHost> hosts;            ///< rank 0: the hosts that reported
    std::optional<RoceAssembly> assembled;  ///< rank 0, unless it could not be built
    std::string not_built;                  ///< why not (two devices with one GUID)
    std::vector<Finding> problems;          ///< rank 0: the ranks that sent no host
    /// The snapshot's "traced" section: nullopt without --trace, null when
    /// the traces placed nothing. Optional, not a null json: a json member
    /// default-constructed under JSON_DIAGNOSTICS may throw (clang-tidy's
    /// bugprone-exception-escape).
    std::optional<nlohmann::json> traced;
    bool peers_gone = false;  ///< a rank is gone: finalize without waiting for it
};

/// Every rank calls it with its own host (`mine`); rank 0 prints one
/// progress line on stderr unless quiet.
RoceRanksOutcome discover_roce_over_ranks(perf::MeshComm& comm, const RoceHost& mine,
                                          const RoceRanksRequest& request);

}  // namespace fabscope::host
