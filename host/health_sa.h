#pragma once
// The sa_path check of `fabscope health`: on InfiniBand, a working SA path
// record query from each Active port to itself. The query is the MAD
// engine's (discover/sa_self_query.h); here are which ports to ask and what
// the answers mean for the node, so both are tested without a fabric.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "host/health_checks.h"
#include "host/inventory.h"

namespace fabscope::host {

/// A port to ask: InfiniBand, Active, with a LID, an SM LID and a GID 0.
struct SaPathTarget {
    std::string device;
    int port = 1;
    uint32_t lid = 0;
    uint32_t sm_lid = 0;
    std::string gid;  ///< GID index 0, as sysfs prints it
};

/// What one port's query gave.
struct SaPathCheck {
    SaPathTarget target;
    std::string outcome;  ///< "ok", "no_answer", "error", "cannot_run"
    std::string detail;   ///< "" when ok
    double elapsed_ms = 0;
    int attempts = 0;
    // The path the SA answered (when ok).
    std::optional<uint32_t> slid;
    std::optional<uint32_t> dlid;
    std::optional<int> mtu;  ///< bytes
    std::optional<int> sl;
    std::optional<uint16_t> pkey;
};

std::vector<SaPathTarget> sa_path_targets(const HostInventory& inv);

/// A port without a path is an error naming the port and the SM LID; a
/// query that could not be sent at all (no permission on the umad device)
/// is a warning, as the node may be fine.
std::vector<HealthFinding> check_sa_path(const std::vector<SaPathCheck>& checks);

nlohmann::json sa_path_to_json(const std::vector<SaPathCheck>& checks);

}  // namespace fabscope::host
