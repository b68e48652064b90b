#pragma once
// The options of a live sweep, shared by `sweep` and `route` (which sweeps
// the routes when it has no snapshot), and running one.

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "discover/counter_reader.h"
#include "discover/sweep.h"
#include "discover/umad_transport.h"

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

/// The local port and its transport, kept open for a sweep and later reads.
class LiveSession {
  public:
    /// Finds and opens the local port. Errors carry their exit code.
    static Result<LiveSession> open(const LiveSweepOptions& o, const Globals& g);
    Result<SweepOutput> sweep();
    /// Reads again the counters of every port the sweep read them from.
    CounterRead read_counters_of(const Fabric& f);
    const LocalPort& local() const { return local_; }

  private:
    LocalPort local_;
    std::unique_ptr<UmadTransport> transport_;
    SystemClock clock_;
    SweepOptions options_;
};

/// Opens the local port and sweeps once.
Result<SweepOutput> run_live_sweep(const LiveSweepOptions& o, const Globals& g);

}  // namespace fabscope::cli
