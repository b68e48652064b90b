#pragma once
// ibsim "net" files for the lab: a generated two-tier leaf-spine, and counts
// of any net file (to size the simulator's tables).
//
// Generated naming (the names `lab fault` takes): hosts h0001.. (one 1-port
// HCA each, described "h0001 HCA-1"), leaves leaf01.., spines spine01..
// Leaf ports 1..H go to hosts, H+1.. are uplinks (for spine s, link k);
// spine ports are consecutive per leaf.
//
// With planes > 1 (a rail-optimised fabric), every plane is that leaf-spine
// again, cabled to nothing of another plane: each host has one 1-port HCA
// per plane (plane k > 1: node "h0001p<k>", described "h0001 HCA-<k>"), and
// each plane its own switches ("leaf01p<k>", "spine01p<k>"). Plane 1 keeps
// the one-plane names. Each plane's first host HCA has a fixed GUID
// (plane_sm_port_guid) so that plane's OpenSM can be bound to it (-g).

#include <optional>
#include <string>
#include <vector>

#include "model/link_rate.h"
#include "util/result.h"

namespace fabscope {

struct LeafSpineSpec {
    int spines = 2;
    int leaves = 4;
    int hosts_per_leaf = 4;
    int links_per_pair = 1;  ///< parallel links between each leaf and each spine
    Width width = Width::X4;
    Speed speed = Speed::HDR;
    int planes = 1;  ///< separate subnets, one HCA per host on each (at most kMaxLabPlanes)
};

/// ibsim takes 10 clients: one OpenSM per plane, and room for the tools.
inline constexpr int kMaxLabPlanes = 4;

/// The net-file node a client attaches to for plane `plane` (1-based): the
/// plane's first host HCA ("h0001", "h0001p2"). Its port runs the plane's SM.
std::string plane_attach_node(int plane);
/// The port GUID the generator gives plane `plane`'s first host HCA (planes > 1 only).
uint64_t plane_sm_port_guid(int plane);

/// Validates a spec against what ibsim can simulate (254 ports per switch at
/// most, SDR..HDR in ibsim 0.10). Errors are usage errors.
Status validate(const LeafSpineSpec& spec);
std::string generate_leaf_spine(const LeafSpineSpec& spec);

struct NetFileStats {
    int switches = 0;
    int cas = 0;
    int routers = 0;
    int ports = 0;  ///< declared ports, port 0 of switches included
    int nodes() const { return switches + cas + routers; }
};

/// Counts node declarations ("Switch N ...", "Hca N ...", "Rt N ...") and
/// their port counts. Follows no includes: the simulator does that.
NetFileStats count_net_file(const std::string& text);

/// Node names ("leaf01") as written in a net file, for checking fault targets.
std::vector<std::string> net_file_node_names(const std::string& text);

/// The port a net file cables `node`[`port`] to, if any.
struct NetPort {
    std::string node;
    int port = 0;
};
std::optional<NetPort> net_file_peer(const std::string& text, const std::string& node, int port);

}  // namespace fabscope
