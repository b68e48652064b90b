#pragma once
// `fabscope health`'s pipeline: the inventory (with libibverbs' MTU and RDMA
// netlink's view on a live host), the checks against the expectations of
// --expect and --plan, the counters against the last run's state file, one
// SA path record query per InfiniBand port (once per SA: a node's budget is
// well under a second), the state saved, and the node drained when unhealthy.
// Its lines on stderr sit between those steps (the reason before scontrol
// runs), so it prints them and the JSON itself; cli/ parses the flags.

#include <string>

#include "util/result.h"
#include "util/term.h"

namespace fabscope::host {

/// What `fabscope health` was asked, as its flags give it.
struct HealthRequest {
    std::string sysfs_root = "/";  ///< "/" is a live host: verbs, netlink and the SA too
    std::string plan;              ///< ports at the plan's rate ("" = none)
    std::string expect;            ///< what this host should have ("" = none)
    std::string state;             ///< the state file ("" = the default place)
    bool no_state = false;         ///< neither read nor write a state file
    bool drain = false;            ///< drain the node in Slurm when unhealthy
    std::string node_name;         ///< "" = SLURMD_NODENAME, else the short host name
    std::string scontrol = "scontrol";
    bool no_sa = false;  ///< no SA path record query
    int sa_timeout_ms = 100;
    bool json = false;  ///< the verdict as JSON on stdout
    bool quiet = false;
    int verbose = 0;  ///< > 0: every finding on stderr, healthy or not
    TextStyle style;  ///< of stderr, for a failed drain's error line
};

/// Runs the checks, prints the verdict (stderr) and JSON (stdout), drains
/// when asked; returns the exit status (0 healthy, 1 unhealthy, or a failed
/// drain's code), or the error that stopped it before a verdict (bad root,
/// expectations or state file; a state or JSON that could not be written),
/// which carries its own code and is not printed here.
Result<int> run_health(const HealthRequest& request);

}  // namespace fabscope::host
