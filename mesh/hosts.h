#pragma once
// The hosts file of a mesh run launched by agents (`mesh run --hosts FILE`):
// one agent per line, "host[:port] [device]", in rank order (the first line
// is rank 1; the coordinator is rank 0). '#' starts a comment. Bounded:
// at most kMaxMeshAgents lines with an agent, each at most 1,024 characters;
// an error names the file and the line, exit 2.

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope::perf {

inline constexpr size_t kMaxMeshAgents = 4096;

struct MeshAgent {
    std::string host;  ///< a name, an IPv4 address or an IPv6 one (without brackets)
    uint16_t port = 0;
    std::string device;  ///< "" = the agent's own
    int line = 0;

    /// "host:port", "[v6]:port": what Channel::connect takes.
    std::string where() const;
};

/// Parses the text of `source` (named in errors); agents without a port take `default_port`.
Result<std::vector<MeshAgent>> parse_mesh_hosts(const std::string& text, const std::string& source,
                                                uint16_t default_port);
Result<std::vector<MeshAgent>> load_mesh_hosts(const std::string& path, uint16_t default_port);

}  // namespace fabscope::perf
