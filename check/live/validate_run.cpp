#include "check/live/validate_run.h"

#include <fmt/format.h>

#include "check/live/routing_live.h"
#include "check/sweep_findings.h"
#include "check/validate.h"
#include "congestion/live_reading.h"
#include "congestion/xmit_wait_tree.h"
#include "discover/sm_pass.h"
#include "model/paths.h"
#include "model/tiers.h"
#include "util/time_util.h"

namespace fabscope {
namespace {

/// Every check over what was read; PortXmitWait over the interval as
/// congestion trees in place of one xmit_wait finding per port.
void judge(ValidateOutcome& out, std::vector<Finding> problems, bool after_complete,
           const ValidateInputs& in) {
    const Fabric& fabric = out.snapshot.fabric;
    Tiers tiers = classify_tiers(fabric);
    CounterReadings before = readings_of(fabric);
    SweepFindings swept = sweep_findings(
        {out.snapshot, tiers, std::move(problems), in.plan ? in.plan->sm_standby : std::nullopt,
         out.sm_after ? &*out.sm_after : nullptr, out.sm_interval_s});
    ValidationInput vi{fabric,
                       tiers,
                       std::move(swept.problems),
                       before.empty() ? nullptr : &before,
                       out.after ? &*out.after : nullptr,
                       in.plan ? &*in.plan : nullptr,
                       in.baseline ? &*in.baseline : nullptr,
                       in.thresholds};
    vi.after_complete = after_complete;
    vi.sm_read = out.snapshot.source.sm_read;
    vi.sm_after = out.sm_after ? &*out.sm_after : nullptr;
    vi.sm_interval_s = out.sm_interval_s;
    vi.routing = out.routing ? &*out.routing : nullptr;
    vi.link_findings = &swept.links;
    vi.sm_findings = &swept.subnet_managers;
    out.validation = validate(vi);
    out.counter_readings = out.after ? 2 : before.empty() ? 0 : 1;
    if (!out.after) return;
    out.interval_s = mean_interval_s(before, *out.after);
    const auto& t = in.thresholds.xmit_wait;
    auto trees = congestion_trees(
        fabric, xmit_wait_shares(fabric, before, *out.after, t.tick_multiplier), t.warn);
    std::vector<Finding>& findings = out.validation.findings;
    std::erase_if(findings, [](const Finding& x) { return x.kind == "xmit_wait"; });
    auto tree_findings = congestion_findings(fabric, trees, t);
    findings.insert(findings.end(), tree_findings.begin(), tree_findings.end());
    sort_by_severity(findings);
}

}  // namespace

Result<ValidateOutcome> validate_live(LiveSession& session, const ValidateInputs& in,
                                      Progress progress, const StopToken& stop) {
    auto swept = session.sweep(&stop);
    if (!swept) return swept.error();
    ValidateOutcome out;
    out.snapshot = std::move(swept->snapshot);
    out.interrupted = swept->interrupted;
    out.fabric_from =
        fmt::format("{} port {}", out.snapshot.source.ca, out.snapshot.source.ca_port);
    bool after_complete = false;
    const Stopwatch since_sweep;  // SMInfo's interval: from the sweep's end
    if (!out.interrupted && has_routes(out.snapshot.fabric))
        out.routing = analyse_routing_live(session, out.snapshot.fabric, &stop);
    if (in.interval.count() > 0 && !out.interrupted) {
        if (wait_with_countdown(in.interval, stop, progress, "Reading the counters again")) {
            PmaRead second = read_again(session, out.snapshot.fabric, false, stop);
            out.after = std::move(second.readings);
            out.interrupted = second.interrupted;
            after_complete = !second.interrupted;
            if (out.snapshot.source.sm_read && !out.interrupted) {
                out.sm_interval_s = since_sweep.seconds();
                out.sm_after = read_sm_again(session.transport(), session.clock(),
                                             session.engine_options(&stop), out.snapshot.fabric);
            }
        } else {
            out.interrupted = true;
        }
    }
    judge(out, std::move(swept->problems), after_complete, in);
    return out;
}

ValidateOutcome validate_snapshot(Snapshot snapshot, std::string from, const ValidateInputs& in) {
    ValidateOutcome out;
    out.snapshot = std::move(snapshot);
    out.fabric_from = std::move(from);
    judge(out, {}, false, in);
    return out;
}

}  // namespace fabscope
