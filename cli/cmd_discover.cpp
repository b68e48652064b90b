// fabscope discover: topology to a snapshot and a short summary.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "discover/ibnetdisc_discovery.h"
#include "model/json_io.h"
#include "model/link_checks.h"
#include "model/snapshot.h"
#include "model/tiers.h"
#include "reports/discover_summary.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct DiscoverOptions {
    IbnetdiscOptions live;
    std::string output;
    std::string load;
    std::string load_cache;
};

int run_discover(const DiscoverOptions& o, const Globals& g) {
    Result<Snapshot> snap = make_error("");
    if (!o.load.empty()) {
        snap = load_snapshot(o.load);
    } else if (!o.load_cache.empty()) {
        snap = import_ibnetdiscover_cache(o.load_cache);
    } else {
        IbnetdiscOptions live = o.live;
        live.verbose = g.verbose > 0;
        snap = discover_with_ibnetdisc(live);
    }
    if (!snap) return report(snap.error(), g);

    Tiers tiers = classify_tiers(snap->fabric);
    std::vector<Finding> findings = check_links(snap->fabric, tiers);

    nlohmann::json extra{{"findings", findings_to_json(snap->fabric, findings)}};
    if (!o.output.empty()) {
        if (auto w = save_snapshot(*snap, o.output, extra); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        std::string text =
            render_discover_summary(*snap, tiers, findings, SummaryOptions{g.err_style()});
        std::fputs(text.c_str(), stderr);
        if (!o.output.empty()) std::fprintf(stderr, "Snapshot written to %s\n", o.output.c_str());
    }
    if (g.json) {
        if (auto w = save_snapshot(*snap, "-", extra); !w) return report(w.error(), g);
    }
    return kExitClean;
}

}  // namespace

void add_discover(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<DiscoverOptions>();
    CLI::App* cmd = app.add_subcommand(
        "discover", "Discover the fabric topology into a snapshot, with a summary");
    cmd->add_option("-C,--Ca", o->live.ca,
                    "Local CA to discover from (default: first with an active port)");
    cmd->add_option("-P,--Port", o->live.ca_port, "Local CA port (default: first active)");
    cmd->add_option("-t,--timeout", o->live.timeout_ms, "Timeout per MAD in ms (default 200)");
    cmd->add_option("--retries", o->live.retries, "Retries per MAD (default 3)");
    cmd->add_option("--outstanding-smps,--outstanding_smps", o->live.max_smps,
                    "SMPs in flight (default 16; ibnetdiscover uses 2)");
    cmd->add_option("--max-hops,--max_hops", o->live.max_hops, "Stop the sweep this many hops out");
    cmd->add_option("-o,--output", o->output, "Write the snapshot (JSON) to FILE");
    auto* load =
        cmd->add_option("--load", o->load, "Read a fabscope snapshot instead of the fabric")
            ->check(CLI::ExistingFile);
    cmd->add_option("--load-cache", o->load_cache,
                    "Import an `ibnetdiscover --cache` file instead of the fabric")
        ->check(CLI::ExistingFile)
        ->excludes(load);
    cmd->footer(
        R"(The summary (stderr) gives tiers, links by tier and rate, and anything odd: a link
below the width or speed both ends can run, a link slower than its peers between the
same tiers, a switch pair missing a link, a port in Polling.

Examples:
  fabscope discover -o fabric.json
  fabscope discover -C mlx5_0 -P 1 --json > fabric.json
  fabscope discover --load fabric.json
  ibnetdiscover --cache fabric.cache && fabscope discover --load-cache fabric.cache
  fabscope lab exec -- fabscope discover       # on the simulated lab fabric)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_discover(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
