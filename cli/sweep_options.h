#pragma once
// The options of a live sweep, shared by `sweep` and `route` (which sweeps
// the routes when it has no snapshot), and running one.

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "discover/sweep.h"

namespace fabscope::cli {

struct LiveSweepOptions {
    std::string ca;
    int ca_port = 0;
    unsigned timeout_ms = 200;
    int retries = 2;
    size_t window = 64;
    int failure_budget = 1;
    size_t max_hops = 63;
    bool no_routes = false;
    bool no_counters = false;
};

/// -C -P -t --retries --window --failure-budget --max-hops; with_content adds
/// --no-routes/--no-counters.
void add_live_sweep_options(CLI::App* cmd, LiveSweepOptions& o, bool with_content = true);

/// Opens the local port and sweeps. Errors carry their exit code.
Result<SweepOutput> run_live_sweep(const LiveSweepOptions& o, const Globals& g);

}  // namespace fabscope::cli
