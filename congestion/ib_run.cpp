#include "congestion/ib_run.h"

#include <fmt/format.h>

#include <cstdio>

#include "congestion/congestion_report.h"
#include "congestion/live_reading.h"
#include "model/json_io.h"
#include "util/exit_status.h"
#include "util/time_util.h"

namespace fabscope {
namespace {

/// The next round's first reading: this round's second, and the first one
/// still for the ports that did not answer (so they stay findings).
CounterReadings carry_over(const CounterReadings& before, CounterReadings after) {
    for (const auto& [ref, pc] : before) after.emplace(ref, pc);
    return after;
}

/// One round's summary on stderr and report on stdout.
Status print_round(const Fabric& fabric, const CongestionResult& r, const CongestionMeta& meta,
                   const IbRunOptions& o) {
    if (!o.quiet) std::fputs(render_congestion_summary(fabric, r, meta, o.style).c_str(), stderr);
    if (!o.json) return Ok{};
    nlohmann::json doc = congestion_to_json(fabric, r, meta);
    if (o.watch) {
        std::fputs((doc.dump() + "\n").c_str(), stdout);
        std::fflush(stdout);
        return Ok{};
    }
    return json_io::write_json_file(doc, "-");
}

}  // namespace

Result<int> run_ib_congestion(LiveSession& session, const IbRunOptions& o, const StopToken& stop) {
    auto swept = session.sweep(&stop);
    if (!swept) return swept.error();
    if (swept->interrupted) {
        if (!o.quiet)
            std::fputs("fabscope: interrupted during the sweep: nothing measured\n", stderr);
        return kExitInterrupted;
    }
    const Fabric& fabric = swept->snapshot.fabric;
    CongestionMeta meta;
    meta.fabric_from =
        fmt::format("{} port {}", swept->snapshot.source.ca, swept->snapshot.source.ca_port);
    meta.limits = o.thresholds.xmit_wait;
    // The first reading again, with the per-VL counters the sweep does not
    // read; a port that answered the sweep but not this keeps the sweep's.
    PmaRead first = read_again(session, fabric, true, stop);
    if (first.interrupted) return kExitInterrupted;
    CounterReadings before = readings_of(fabric);
    for (const auto& [ref, pc] : first.readings) before[ref] = pc;
    VlWaitReadings vl;
    vl.before = std::move(first.vl_xmit_wait);
    vl.not_supported = std::move(first.per_vl_unsupported);
    bool failed = false;
    for (;;) {
        meta.started = iso8601_now();
        if (!wait_with_countdown(o.interval, stop, o.progress, "Reading the counters again")) {
            // Stopped before the round's second reading. The first round still
            // reports what was read (the fabric, what the sweep could not
            // read; no rates), marked interrupted; later rounds were printed.
            if (meta.round == 1) {
                meta.interrupted = true;
                CongestionResult r =
                    analyse_congestion(fabric, before, {}, false, o.thresholds, nullptr);
                r.findings.insert(r.findings.end(), swept->problems.begin(), swept->problems.end());
                if (auto p = print_round(fabric, r, meta, o); !p) return p.error();
            }
            return kExitInterrupted;
        }
        PmaRead second = read_again(session, fabric, true, stop);
        meta.interrupted = second.interrupted;
        vl.after = std::move(second.vl_xmit_wait);
        vl.not_supported.insert(vl.not_supported.end(), second.per_vl_unsupported.begin(),
                                second.per_vl_unsupported.end());
        CongestionResult r = analyse_congestion(fabric, before, second.readings,
                                                !second.interrupted, o.thresholds, &vl);
        // What the sweep could not read is part of the first answer too.
        if (meta.round == 1)
            r.findings.insert(r.findings.end(), swept->problems.begin(), swept->problems.end());
        failed = failed || r.failed();
        if (auto p = print_round(fabric, r, meta, o); !p) return p.error();
        if (meta.interrupted) return kExitInterrupted;
        if (!o.watch) break;
        before = carry_over(before, std::move(second.readings));
        for (auto& [ref, w] : vl.after) vl.before[ref] = w;
        vl.after.clear();
        vl.not_supported = std::move(second.per_vl_unsupported);
        ++meta.round;
    }
    return failed ? kExitFindings : kExitClean;
}

}  // namespace fabscope
