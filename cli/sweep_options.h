#pragma once
// The options of a live sweep, shared by `discover`, `sweep`, `route`,
// `validate` and `tui`. Parsing only: the session itself is
// discover/live_session.h.

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "discover/live_session.h"
#include "model/finding.h"
#include "model/snapshot.h"
#include "reports/prometheus_text.h"

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
    bool pkeys = false;
};

/// -C -P -t --retries --window --failure-budget --max-hops; with_content adds
/// --no-routes/--no-counters/--pkeys.
void add_live_sweep_options(CLI::App* cmd, LiveSweepOptions& o, bool with_content = true);

/// The session's options from the flags; with `progress` its sweeps show their
/// passes on stderr (Globals::progress), which the TUI and the exporter do not want.
LiveOptions live_options(const LiveSweepOptions& o, const Globals& g, bool progress = true);
/// LiveSession::open with the options from the flags.
Result<LiveSession> open_live_session(const LiveSweepOptions& o, const Globals& g,
                                      bool progress = true);

/// `discover` / `sweep`: one sweep from the local port of -C/-P, or with
/// `all_ports` every plane behind every local port with a link (-C/-P then
/// are a usage error). Stops on Ctrl-C (interrupt handlers installed here).
Result<SweepOutput> run_live_sweep(const LiveSweepOptions& o, bool all_ports, const Globals& g);

/// What `discover` and `sweep` do with a discovery: the sweep's findings
/// (check/sweep_findings.h, as the exporter's) from its `problems`, the snapshot (with the
/// findings) written to `output` and/or stdout (--json), the summary on stderr. A discovery
/// interrupted just now is written all the same, marked incomplete (by the
/// sweep), and returns 130. With `prom`, the metrics go to that file too
/// (node_exporter's textfile collector). `more`: members added to the
/// snapshot document (RoCE discovery's "lldp").
int write_discovery(const Snapshot& snap, std::vector<Finding> problems, const std::string& output,
                    const Globals& g, bool interrupted_now = false, const std::string& prom = "",
                    const nlohmann::json& more = nlohmann::json::object(),
                    uint8_t prom_metrics = kDefaultPortMetrics);

/// --prom FILE and --prom-metrics GROUPS (sweep, validate).
void add_prom_options(CLI::App* cmd, std::string& prom, std::string& metrics);

/// --metrics / --prom-metrics: the per-port groups named, or exit 2 naming
/// the flag and the bad group.
Result<uint8_t> port_metrics_option(const std::string& flag, const std::string& list);

}  // namespace fabscope::cli
