#pragma once
// Draining this node in Slurm when it is unhealthy, as LBNL NHC does:
// `scontrol update NodeName=<node> State=DRAIN Reason="fabscope: <reason>"`,
// run directly (never through a shell, so the reason is one argument
// whatever it holds).

#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope::host {

/// The Slurm node name: `flag` (--node-name), else SLURMD_NODENAME (set by
/// slurmd for its HealthCheckProgram), else the host name up to the first dot.
std::string slurm_node_name(const std::string& flag, const char* slurmd_nodename,
                            const std::string& hostname);

/// "fabscope: <reason>", one printable line of at most 200 bytes.
std::string drain_reason(const std::string& reason);

/// The scontrol command line that drains `node` with `reason`.
std::vector<std::string> drain_command(const std::string& scontrol, const std::string& node,
                                       const std::string& reason);

/// Whether `node` is one Slurm node name (letters, digits, '-', '_', '.'; at
/// most 64): not a hostlist expression or a list, which would drain many.
bool is_one_node_name(const std::string& node);

/// Runs it with a deadline of 10 s, its output on stderr (stdout is health's
/// JSON); an scontrol that is missing, fails or overruns is code 3 with its
/// exit status in the message; a node name that is not one is code 2.
Status drain_node(const std::string& scontrol, const std::string& node, const std::string& reason);

}  // namespace fabscope::host
