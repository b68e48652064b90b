#include "discover/sweep.h"

#include <fmt/format.h>

#include "discover/counters_pass.h"
#include "discover/routes_pass.h"
#include "discover/sm_pass.h"
#include "discover/sweep_assembly.h"
#include "discover/sweep_context.h"
#include "discover/topology_pass.h"
#include "util/exit_status.h"
#include "util/time_util.h"
#include "util/version.h"

namespace fabscope {

Result<SweepOutput> sweep_fabric(MadTransport& transport, const Clock& clock,
                                 const LocalPort& local, const SweepOptions& options) {
    SweepContext ctx(transport, clock, local, options);
    SnapshotSource src;
    src.method = "sweep";
    src.ca = local.ca;
    src.ca_port = local.port;
    src.tool_version = version();
    src.started = iso8601_now();
    Stopwatch sw;
    auto told = [&](std::string_view pass) {
        if (options.on_pass) options.on_pass(pass, ctx.order.size());
    };

    told("topology");
    topology_pass(ctx);
    if (ctx.order.empty()) {
        told("done");
        if (ctx.stopped()) {
            return make_error(fmt::format("interrupted before the local node ({} port {}) answered",
                                          local.ca, local.port),
                              kExitInterrupted);
        }
        return make_error(
            fmt::format("the local node did not answer a NodeInfo on {} port {}{}{}", local.ca,
                        local.port, ctx.local_error.empty() ? "" : ": ", ctx.local_error),
            kExitCannotRun);
    }
    // Each pass starts only if no stop came: what was read is kept either way.
    if (options.routes && !ctx.stopped()) {
        told("routes");
        routes_pass(ctx);
    }
    if ((options.subnet_managers || options.pkeys) && !ctx.stopped()) {
        told("subnet manager");
        sm_pass(ctx);
        src.sm_read = options.subnet_managers && !ctx.stopped();
        src.pkeys_read = options.pkeys && !ctx.stopped();
    }
    if (options.counters && !ctx.stopped()) {
        told("counters");
        counters_pass(ctx);
    }
    const bool interrupted = ctx.stopped();
    told("done");

    src.duration_s = sw.seconds();
    src.mads_sent = ctx.engine.stats().sent;
    src.mad_stats = ctx.engine.stats();
    src.complete = !interrupted;
    src.interrupted = interrupted;
    ctx.report_failures();
    auto fabric = assemble_fabric(ctx);
    if (!fabric) return fabric.error();
    return SweepOutput{Snapshot{std::move(src), std::move(fabric).value()}, std::move(ctx.problems),
                       interrupted};
}

}  // namespace fabscope
