#pragma once
// A snapshot: one discovered fabric and how it was obtained, saved as
// versioned JSON (schema: docs/snapshot.schema.json). Every later stage can
// run from a snapshot instead of the live fabric.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "model/fabric.h"
#include "model/plane.h"
#include "util/result.h"

namespace fabscope {

inline constexpr int kSnapshotVersion = 1;
inline constexpr const char* kSnapshotFormat = "fabscope-snapshot";

/// What the MAD engine did during a sweep.
struct MadStats {
    uint64_t sent = 0;      ///< attempts put on the wire
    uint64_t answered = 0;  ///< requests completed with a GetResp
    uint64_t retries = 0;
    uint64_t timeouts = 0;  ///< requests that failed after every attempt
    /// Optional attributes (a PMA may lack them) unanswered after every
    /// attempt: not a timeout of the fabric.
    uint64_t optional_unanswered = 0;
    uint64_t dropped = 0;      ///< attempts the transport reported lost
    uint64_t unreachable = 0;  ///< requests not sent: their path was already dead
    uint64_t garbage = 0;      ///< replies that were no valid answer to their request
    uint64_t stray = 0;        ///< replies to no live request
    int max_chain = 0;         ///< longest chain of MADs, each sent on the previous one's answer
};

struct SnapshotSource {
    std::string method;  ///< "ibnetdisc", "ibnetdiscover-cache", "sweep"
    std::string ca;      ///< local CA used ("" when loaded from a file)
    int ca_port = 0;
    std::string input_file;             ///< for imports: the file read
    std::string tool_version;           ///< fabscope version that wrote it
    std::string started;                ///< ISO 8601 UTC
    double duration_s = 0;              ///< wall time of the discovery
    uint64_t mads_sent = 0;             ///< 0 when unknown
    std::optional<MadStats> mad_stats;  ///< sweeps only
    /// False when the discovery was stopped (Ctrl-C) before it read
    /// everything it would have: what is here is right, but not all there is.
    bool complete = true;
    bool interrupted = false;  ///< stopped by SIGINT/SIGTERM
    /// SMInfo was asked of every port claiming IsSM (a port without `sm`
    /// did not answer), and the P_Key tables of the ports were read.
    bool sm_read = false;
    bool pkeys_read = false;
};

struct Snapshot {
    SnapshotSource source;
    Fabric fabric;
    /// The planes (subnets) swept, each node's `plane` an index here. Empty:
    /// one plane, as every snapshot before planes (see planes_of()).
    std::vector<Plane> planes;
};

/// The whole document in memory (for tests and small fabrics).
nlohmann::json snapshot_to_json(const Snapshot& s);
/// The same document streamed one node, link or extra element per line, so
/// a large fabric never exists twice in memory. `extra` members (an object,
/// e.g. {"findings": [...]}) are appended at the top level.
void write_snapshot(std::ostream& out, const Snapshot& s, const nlohmann::json& extra);
/// Parses a snapshot document; errors name the JSON path of the bad value.
Result<Snapshot> snapshot_from_json(const nlohmann::json& j);

/// Reads a snapshot file. Every error is one line naming the file and what is
/// wrong with it (unreadable, truncated, not a snapshot, wrong version, a bad
/// field with its JSON path), with code kExitUsage.
Result<Snapshot> load_snapshot(const std::string& path);
/// Writes a snapshot file atomically (temp file + rename); "-" is stdout.
Status save_snapshot(const Snapshot& s, const std::string& path, const nlohmann::json& extra);
Status save_snapshot(const Snapshot& s, const std::string& path);

}  // namespace fabscope
