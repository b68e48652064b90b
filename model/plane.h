#pragma once
// Planes: rail-optimised clusters put each of a host's HCAs on its own subnet
// (a plane), often with its own subnet manager. A snapshot holds one fabric
// whose nodes each belong to one plane; no cable joins two planes. A snapshot
// written before planes existed (no "planes") is one plane of unknown subnet.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "util/result.h"

namespace fabscope {

struct Snapshot;

/// One subnet, as seen from the local port it was swept from.
struct Plane {
    uint64_t subnet_prefix = 0;  ///< the local port's GID prefix; 0 = unknown
    Lid sm_lid = 0;              ///< the SM LID the local port names; 0 = none
    Guid sm_guid = 0;            ///< the port GUID at sm_lid that has IsSM set; 0 = none found
    /// An SM answers for this plane: sm_lid names a port that has IsSM. A plane
    /// without one was swept by directed route only (LIDs and routes may be stale).
    bool managed = false;
    std::string ca;  ///< the local port it was swept from
    int ca_port = 0;
    Guid local_port_guid = 0;

    bool operator==(const Plane&) const = default;
};

/// What a sweep from `local` tells about its plane: the SM named by the local
/// port's SM LID is the port in `f` at that LID, if it has IsSM.
Plane plane_of(const Fabric& f, uint64_t subnet_prefix, Lid sm_lid);

/// The planes of a snapshot, at least one: a snapshot without planes is one
/// plane described by its source (CA, port), subnet and SM unknown.
std::vector<Plane> planes_of(const Snapshot& s);

/// Whether a port GUID is one of the ports of `f` (to tell that a second
/// local port sits on a plane already swept).
bool has_port_guid(const Fabric& f, Guid port_guid);

/// Joins snapshots of different planes into one: each part's planes follow
/// the previous parts', its nodes renumbered to them. Fails (usage error) if
/// two parts share a node GUID: the same plane twice, or planes cabled to each
/// other. The source is the first part's, with method "planes" when several.
Result<Snapshot> merge_planes(std::vector<Snapshot> parts);

/// "planes" of the snapshot document, and back (checked: every node's plane
/// must exist, no link may join two planes).
nlohmann::json planes_to_json(const std::vector<Plane>& planes);
std::vector<Plane> planes_from_json(const nlohmann::json& j);
/// Empty when every node's plane exists and no link joins two planes, else
/// what is wrong (for the snapshot reader to report with its JSON path).
std::string check_planes(const Fabric& f, size_t plane_count);

/// "0xfe80000000000000"
std::string format_subnet_prefix(uint64_t prefix);

}  // namespace fabscope
