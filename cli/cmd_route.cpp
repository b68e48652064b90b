// fabscope route SRC DST: every hop between two endpoints, from the
// switches' forwarding tables (live, or from a snapshot); fabscope route
// --balance: what each switch port carries, and the routing checks.

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "check/live/routing_live.h"
#include "check/routing_checks.h"
#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "model/paths.h"
#include "model/route.h"
#include "model/snapshot.h"
#include "model/thresholds.h"
#include "reports/route_report.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct RouteCommand {
    LiveSweepOptions live;
    std::string load;
    std::string src;
    std::string dst;
    bool balance = false;
};

int run_balance(const Fabric& f, const RoutingAnalysis& a, const Globals& g) {
    const auto findings = routing_findings(f, a, default_thresholds().routing.imbalance);
    if (!g.quiet) std::fputs(render_balance(f, a).c_str(), stderr);
    if (g.json) std::printf("%s\n", balance_json(f, a, findings).dump(1).c_str());
    return findings.empty() ? kExitClean : kExitFindings;
}

int run_route(const RouteCommand& o, const Globals& g) {
    if (!o.balance && (o.src.empty() || o.dst.empty()))
        return report(make_error("route: give a source and a destination, or --balance (try "
                                 "`fabscope route --help`)",
                                 kExitUsage),
                      g);
    Result<Snapshot> snap = make_error("");
    std::optional<LiveSession> session;  // live: kept for the loops' check per VL
    if (!o.load.empty()) {
        snap = load_named_snapshot(o.load, g);
    } else {
        LiveSweepOptions live = o.live;
        live.no_counters = true;
        auto opened = open_live_session(live, g);
        if (!opened) return report(opened.error(), g);
        session = std::move(*opened);
        auto swept = session->sweep();
        if (!swept) return report(swept.error(), g);
        snap = std::move(swept->snapshot);
    }
    if (!snap) return report(snap.error(), g);
    const Fabric& f = snap->fabric;
    if (!has_routes(f)) {
        // Not a broken route: there is nothing to follow. An input problem
        // with a file (2), a fabric without an SM live (3).
        if (!o.load.empty()) {
            return report(make_error(fmt::format("route: {} has no forwarding tables (a "
                                                 "`discover` snapshot holds the topology only); "
                                                 "write one with `fabscope sweep -o FILE`",
                                                 o.load),
                                     kExitUsage),
                          g);
        }
        return report(make_error("route: no switch has a forwarding table: is a subnet manager "
                                 "running?",
                                 kExitCannotRun),
                      g);
    }
    if (o.balance)
        return run_balance(f, session ? analyse_routing_live(*session, f) : analyse_routing(f), g);
    auto src = resolve_node(f, o.src);
    if (!src) return report(make_error("route: source: " + src.error().message, kExitUsage), g);
    auto dst = resolve_node(f, o.dst);
    if (!dst)
        return report(make_error("route: destination: " + dst.error().message, kExitUsage), g);
    Lid dlid = (*dst)->lid();
    if (dlid == 0) {
        return report(make_error(fmt::format("route: {} has no LID (is a subnet manager running?)",
                                             (*dst)->description),
                                 kExitCannotRun),
                      g);
    }
    auto route = trace_route(f, **src, dlid);
    if (!route) {
        // A broken route is a finding about the fabric, not a usage error.
        Error e = route.error();
        e.message =
            fmt::format("route {} -> {}: {}", (*src)->description, (*dst)->description, e.message);
        e.code = kExitFindings;
        if (g.json) {
            nlohmann::json j{{"source", (*src)->description},
                             {"destination", (*dst)->description},
                             {"dlid", dlid},
                             {"complete", false},
                             {"error", route.error().message}};
            std::printf("%s\n", j.dump(1).c_str());
        }
        return report(e, g);
    }
    if (!g.quiet) std::fputs(render_route(f, **src, **dst, *route).c_str(), stderr);
    if (g.json) std::printf("%s\n", route_json(f, **dst, *route).dump(1).c_str());
    return kExitClean;
}

}  // namespace

void add_route(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<RouteCommand>();
    CLI::App* cmd =
        app.add_subcommand("route", "Every hop between two endpoints, from the forwarding tables");
    auto* src = cmd->add_option("source", o->src,
                                "Source: node description (or its first word), GUID, or LID");
    auto* dst = cmd->add_option("destination", o->dst,
                                "Destination: node description (or its first word), GUID, or LID");
    cmd->add_flag("--balance", o->balance,
                  "Instead of one route: the destination LIDs each switch port carries, each "
                  "leaf's spread over its uplinks, and the credit loops and holes of all routes "
                  "(exit 1 when there is a finding)")
        ->excludes(src)
        ->excludes(dst);
    cmd->add_option("--load", o->load,
                    "Use the forwarding tables of a snapshot (from `fabscope sweep`)")
        ->check(CLI::ExistingFile);
    add_live_sweep_options(cmd, o->live, false);
    cmd->footer(R"(Without --load it sweeps the topology and forwarding tables first (no counters).
Exit code 1 when the route is broken (no table entry, a link down, a loop), or with
--balance when the routes have a credit loop, a hole or a leaf above 1.5x; 2 when
the snapshot has no forwarding tables at all (one from `discover`: use `sweep`).

Examples:
  fabscope route h0005 h0013
  fabscope route --balance --load fabric.json
  fabscope route 0x0000000000100008 19 --json
  fabscope route h0001 spine02 --load fabric.json)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_route(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
