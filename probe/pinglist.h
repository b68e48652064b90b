#pragma once
// Who a probe agent probes (fabscope probe --pinglist FILE). The file lists
// every host of the fabric, one a line: "HOST[:PORT] NAME [LEAF]" (the agent's
// address, the host's name as findings say it, the leaf switch it hangs
// off); '#' starts a comment; either every line names a leaf or none does.
//
// As Pingmesh builds its pinglists: every host probes every other host under
// its own leaf (the per-peer view), and the leaf pairs are shared out among
// the hosts of a leaf: `cross_probers` hosts of each leaf cover each other
// leaf, each probing `cross_hosts` of its hosts per interval, rotating
// through them, so every leaf pair is measured every interval without every
// host probing every leaf (4,096 hosts under 128 leaves: 31 leaf peers and
// about 8 leaves x 2 hosts a host). Without leaves, every host probes every
// other (a small fabric, or a list made by hand).

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope::probe {

inline constexpr size_t kMaxProbeHosts = 8192;

struct ProbeHost {
    std::string where;  ///< "host:port", as Channel::connect takes it
    std::string name;
    std::string leaf;  ///< "" when the file names none
    int line = 0;
};

/// Parses the text of `source` (named in errors, with the line; code 2).
Result<std::vector<ProbeHost>> parse_pinglist(const std::string& text, const std::string& source,
                                              uint16_t default_port);
Result<std::vector<ProbeHost>> load_pinglist(const std::string& path, uint16_t default_port);

struct PinglistOptions {
    uint32_t cross_hosts = 2;    ///< hosts of a covered leaf probed per interval
    uint32_t cross_probers = 2;  ///< hosts of a leaf that cover each other leaf
};

/// What one host probes, as host indices into the file's list.
struct Pinglist {
    std::vector<size_t> leaf_peers;            ///< every other host under its leaf
    std::vector<std::string> covered_leaves;   ///< the other leaves it covers
    std::vector<std::vector<size_t>> covered;  ///< per covered leaf, its hosts
    size_t position = 0;                       ///< its place among its leaf's hosts
};

Pinglist make_pinglist(const std::vector<ProbeHost>& hosts, size_t self, const PinglistOptions& o);

/// The peers of interval `round`: the leaf peers, then `cross_hosts` hosts of
/// each covered leaf, the window moving by `cross_hosts` a round (and
/// starting at the host's own position, so a leaf's probers differ).
std::vector<size_t> round_peers(const Pinglist& p, uint64_t round, uint32_t cross_hosts);

/// The host named `name` in `hosts`; hosts.size() when none is.
size_t find_host(const std::vector<ProbeHost>& hosts, const std::string& name);

}  // namespace fabscope::probe
