#pragma once
// ibsim "net" files for the lab: a generated two-tier leaf-spine, and counts
// of any net file (to size the simulator's tables).
//
// Generated naming (the names `lab fault` takes): hosts h0001.. (one 1-port
// HCA each, described "h0001 HCA-1"), leaves leaf01.., spines spine01..
// Leaf ports 1..H go to hosts, H+1.. are uplinks (for spine s, link k);
// spine ports are consecutive per leaf.

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
};

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
