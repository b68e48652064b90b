#include "pairtest/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "util/exit_status.h"
#include "util/host_name.h"
#include "util/time_util.h"

namespace fabscope::perf {

RunOutcome run_tests(const VerbsDevice& dev, const RunPlan& plan, const StopToken& stop,
                     const OnResult& on_result) {
    RunOutcome out;
    out.meta = {iso8601_now(), host_name(), dev.name(), dev.port(), plan.degraded_at};
    PeerOptions po = plan.peer;
    po.stop = &stop;
    std::set<std::string> down;
    for (const TestSpec& s : plan.specs) {
        for (const std::string& peer : plan.peers) {
            if (stop.stop_requested()) break;
            if (down.count(peer)) {
                TestResult skipped;
                skipped.spec = s;
                skipped.peer = peer;
                skipped.error = "not run: the server could not be reached";
                out.results.push_back(skipped);
                continue;
            }
            bool reachable = false;
            TestResult r = run_client(dev, peer, s, po, &reachable);
            // A test cut short by the interrupt measured nothing worth keeping.
            if (stop.stop_requested()) break;
            if (!reachable) down.insert(peer);
            if (on_result) on_result(r, reachable);
            out.results.push_back(std::move(r));
        }
        if (stop.stop_requested()) break;
    }
    out.meta.complete = !stop.stop_requested();
    out.nothing_ran = out.meta.complete && down.size() == plan.peers.size();
    out.findings = compare_peers(out.results, plan.degraded_at);
    return out;
}

int exit_code(const RunOutcome& out) {
    if (!out.meta.complete) return kExitInterrupted;
    if (out.nothing_ran) return kExitCannotRun;
    return out.findings.empty() ? kExitClean : kExitFindings;
}

Status check_peer_name(const std::string& peer) {
    bool number = !peer.empty() &&
                  std::all_of(peer.begin(), peer.end(),
                              [](char c) {
                                  return (c >= '0' && c <= '9') || c == 'k' || c == 'K' ||
                                         c == 'm' || c == 'M';
                              }) &&
                  peer.front() >= '0' && peer.front() <= '9';
    if (!number) return Ok{};
    return make_error(fmt::format(
        "peer \"{}\" is a number, not a host: was it meant for a flag? In fabscope -q is "
        "--quiet; QPs, tx depth (-t, --tx-depth), size (-s), iterations (-n) and duration "
        "(-D) take their value after the flag; a host named by number needs HOST:PORT",
        peer));
}

}  // namespace fabscope::perf
