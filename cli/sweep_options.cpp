#include "cli/sweep_options.h"

#include <fmt/format.h>

#include "discover/local_port.h"
#include "discover/umad_transport.h"
#include "util/stderr_capture.h"

namespace fabscope::cli {

void add_live_sweep_options(CLI::App* cmd, LiveSweepOptions& o, bool with_content) {
    cmd->add_option("-C,--Ca", o.ca, "Local CA (default: first with an active port)");
    cmd->add_option("-P,--Port", o.ca_port, "Local CA port (default: first active)");
    cmd->add_option("-t,--timeout", o.timeout_ms,
                    "First attempt's deadline per MAD, ms (default 200)")
        ->check(CLI::Range(1U, 60000U));
    cmd->add_option("--retries", o.retries,
                    "Attempts after the first, each with twice the deadline (default 2)")
        ->check(CLI::Range(0, 10));
    cmd->add_option("--window,--outstanding-mads", o.window,
                    "MADs in flight (default 64; at most 256 under ibsim)")
        ->check(CLI::Range(size_t{1}, size_t{4096}));
    cmd->add_option(
           "--failure-budget", o.failure_budget,
           "Failed requests to one path before it is given up, with all behind it (default 1)")
        ->check(CLI::Range(1, 100));
    cmd->add_option("--max-hops,--max_hops", o.max_hops,
                    "Longest directed route followed (default 63)")
        ->check(CLI::Range(size_t{1}, size_t{63}));
    if (with_content) {
        cmd->add_flag("--no-routes", o.no_routes, "Do not read the linear forwarding tables");
        cmd->add_flag("--no-counters", o.no_counters, "Do not read port counters");
    }
}

Result<LiveSession> LiveSession::open(const LiveSweepOptions& o, const Globals& g) {
    std::string chatter;
    Result<LocalPort> local = make_error("");
    Result<std::unique_ptr<UmadTransport>> transport = make_error("");
    {
        StderrCapture capture;  // the simulator's preload library chats on stderr
        local = resolve_local_port(o.ca, o.ca_port);
        if (local) transport = UmadTransport::open(*local);
        chatter = capture.finish();
    }
    if (g.verbose && !chatter.empty()) std::fputs(chatter.c_str(), stderr);
    if (!local) return local.error();
    if (!transport) return transport.error();
    LiveSession s;
    s.local_ = *local;
    s.transport_ = std::move(transport).value();
    s.options_.engine.window = o.window;
    s.options_.engine.timeout = std::chrono::milliseconds(o.timeout_ms);
    s.options_.engine.retries = o.retries;
    s.options_.engine.failure_budget = o.failure_budget;
    s.options_.max_hops = o.max_hops;
    s.options_.routes = !o.no_routes;
    s.options_.counters = !o.no_counters;
    return s;
}

Result<SweepOutput> LiveSession::sweep() {
    return sweep_fabric(*transport_, clock_, local_, options_);
}

CounterRead LiveSession::read_counters_of(const Fabric& f) {
    return read_counters(*transport_, clock_, f, options_.engine);
}

Result<SweepOutput> run_live_sweep(const LiveSweepOptions& o, const Globals& g) {
    auto session = LiveSession::open(o, g);
    if (!session) return session.error();
    return session->sweep();
}

}  // namespace fabscope::cli
