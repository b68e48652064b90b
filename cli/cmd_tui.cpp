// fabscope tui: the options of the live terminal UI. The loops and the
// sources are in tui/ (app.h, dump.h, source.h); here the options are
// checked, the files loaded and the live session opened.

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "model/json_io.h"
#include "model/snapshot.h"
#include "tui/app.h"
#include "tui/dump.h"
#include "tui/perf_files.h"
#include "tui/source.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#include "util/time_util.h"

namespace fabscope::cli {
namespace {

using namespace tui;

struct TuiCommand {
    LiveSweepOptions live;
    std::vector<std::string> load;
    std::vector<std::string> perf;
    std::string plan;
    std::string baseline;
    std::string thresholds;
    std::string refresh = "2s";
    std::string rate_window = "1m";
    std::string view = "fabric";
    std::string filter;
    std::string dump;
    std::string congestion;
    std::string size;
    unsigned readings = 1;
    bool ascii = false;
};

/// discover's live session as the TUI's live fabric: the one place the two
/// meet. The sweep is bounded by its MAD deadlines; it takes the stop token
/// once the session does (then: session_.sweep(&stop)).
class SessionFabric : public LiveFabric {
  public:
    explicit SessionFabric(LiveSession session) : session_(std::move(session)) {}
    Result<Reading> sweep(const StopToken& stop) override {
        auto out = session_.sweep(&stop);
        if (!out) return out.error();
        return Reading{std::move(out->snapshot), std::move(out->problems), unix_millis_now()};
    }
    std::string name() const override {
        return fmt::format("{} port {}", session_.local().ca, session_.local().port);
    }

  private:
    LiveSession session_;
};

Result<std::pair<int, int>> parse_size(const std::string& s) {
    int w = 0;
    int h = 0;
    char x = 0;
    if (std::sscanf(s.c_str(), "%d%c%d", &w, &x, &h) != 3 || (x != 'x' && x != 'X') || w < 40 ||
        h < 10 || w > 1000 || h > 1000) {
        return make_error(
            fmt::format("--size {}: use COLUMNSxROWS, at least 40x10, e.g. 100x32", s));
    }
    return std::pair{w, h};
}

std::pair<int, int> terminal_size() {
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 && ws.ws_row >= 10)
        return {ws.ws_col, ws.ws_row};
    return {100, 32};
}

/// How often the fabric is read, and over how long rates are taken.
struct Pace {
    Millis refresh;
    Millis window;
};

/// --refresh, --rate-window and --view, checked.
Result<Pace> checked_pace(const TuiCommand& o) {
    auto refresh = parse_duration(o.refresh);
    if (!refresh || refresh->count() < 200) {
        return make_error(
            fmt::format("--refresh {}: a duration of at least 200ms, e.g. 2s", o.refresh));
    }
    auto window = parse_duration(o.rate_window);
    if (!window || *window < *refresh || window->count() > 24LL * 3600 * 1000) {
        return make_error(
            fmt::format("--rate-window {}: a duration from --refresh ({}) to 24h, "
                        "e.g. 1m",
                        o.rate_window, o.refresh));
    }
    if (!parse_view(o.view)) {
        return make_error(fmt::format(
            "--view {}: one of fabric, links, counters, pairs, findings, congestion", o.view));
    }
    return Pace{*refresh, *window};
}

/// What --dump prints, and at what size (--size is checked with or without
/// --dump).
Result<DumpOptions> dump_options(const TuiCommand& o, const Globals& g, Millis refresh) {
    auto size = o.size.empty() ? Result<std::pair<int, int>>(terminal_size()) : parse_size(o.size);
    if (!size) return size.error();
    DumpOptions dump;
    if (o.dump.empty()) return dump;
    auto views = parse_dump_views(o.dump);
    if (!views) return views.error();
    dump.views = std::move(views).value();
    dump.help = o.dump == "help";
    dump.filter = o.filter;
    dump.width = size->first;
    dump.height = size->second;
    dump.ascii = o.ascii;
    // Every file, or --readings live readings --refresh apart.
    dump.readings = o.load.empty() ? std::max(1U, o.readings) : o.load.size();
    dump.refresh = refresh;
    dump.progress = g.progress();
    return dump;
}

/// What the views are built from besides the fabric: --plan, --baseline,
/// --thresholds, --perf and --congestion, loaded.
Result<BuilderConfig> builder_config(const TuiCommand& o, const Globals& g, const Pace& pace,
                                     PerfFiles& perf_files) {
    BuilderConfig cfg;
    cfg.interval_s = static_cast<double>(pace.refresh.count()) / 1000.0;
    cfg.rate_window_s = static_cast<double>(pace.window.count()) / 1000.0;
    if (!o.plan.empty()) {
        auto p = load_plan(o.plan);
        if (!p) return p.error();
        cfg.plan = std::move(p).value();
    }
    if (!o.baseline.empty()) {
        auto b = load_named_snapshot(o.baseline, g);
        if (!b) return b.error();
        cfg.baseline = std::move(b).value();
    }
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return t.error();
        cfg.thresholds = std::move(t).value();
    }
    auto reports = perf_files.load_all();
    if (!reports) return reports.error();
    cfg.perf = std::move(reports->reports);
    cfg.perf_names = std::move(reports->names);
    cfg.mesh = std::move(reports->mesh);
    cfg.collectives = std::move(reports->collectives);
    cfg.probes = std::move(reports->probes);
    if (!o.congestion.empty()) {
        auto c = json_io::load_file(o.congestion, congestion_doc_from_json);
        if (!c) return c.error();
        cfg.congestion = std::make_shared<const CongestionDoc>(std::move(c).value());
        cfg.congestion_name = o.congestion;
    }
    return cfg;
}

/// The fabric shown: the --load files, or the live fabric (then `cfg` says
/// so); `cfg` takes the source's name.
Result<std::unique_ptr<FabricSource>> fabric_source(const TuiCommand& o, const Globals& g,
                                                    BuilderConfig& cfg) {
    if (!o.load.empty()) {
        std::vector<Snapshot> snaps;
        for (const std::string& f : o.load) {
            auto s = load_named_snapshot(f, g);
            if (!s) return s.error();
            snaps.push_back(std::move(s).value());
        }
        cfg.source =
            o.load.size() == 1 ? o.load.front() : fmt::format("{} snapshots", o.load.size());
        return std::unique_ptr<FabricSource>(std::make_unique<FileSource>(std::move(snaps)));
    }
    LiveSweepOptions live = o.live;
    live.no_routes = true;  // cabling and counters: what the views show
    auto session = open_live_session(live, g, false);
    if (!session) return session.error();
    auto fabric = std::make_unique<SessionFabric>(std::move(session).value());
    cfg.live = true;
    cfg.source = fabric->name();
    return std::unique_ptr<FabricSource>(std::make_unique<LiveSource>(std::move(fabric)));
}

AppOptions app_options(const TuiCommand& o, const Globals& g, Millis refresh) {
    AppOptions app;
    app.refresh = refresh;
    app.view = *parse_view(o.view);
    app.filter = o.filter;
    app.color = !g.no_color && !std::getenv("NO_COLOR");
    app.ascii = o.ascii;
    app.verbose = g.verbose;
    return app;
}

int run_tui(const TuiCommand& o, const Globals& g) {
    auto pace = checked_pace(o);
    if (!pace) return report(pace.error(), g);
    auto dump = dump_options(o, g, pace->refresh);
    if (!dump) return report(dump.error(), g);
    auto perf_files = std::make_shared<PerfFiles>(o.perf);
    auto cfg = builder_config(o, g, *pace, *perf_files);
    if (!cfg) return report(cfg.error(), g);
    auto source = fabric_source(o, g, *cfg);
    if (!source) return report(source.error(), g);

    Result<int> code = make_error("");
    if (!o.dump.empty()) {
        install_interrupt_handlers();  // Ctrl-C: print what was read, exit 130
        code = run_dump(**source, DataBuilder(std::move(*cfg)), *dump, stdout);
    } else {
        code = run_interactive(std::move(*source), DataBuilder(std::move(*cfg)), perf_files,
                               app_options(o, g, pace->refresh));
    }
    return code ? *code : report(code.error(), g);
}

}  // namespace

void add_tui(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<TuiCommand>();
    CLI::App* cmd = app.add_subcommand(
        "tui", "The live terminal UI: fabric by tier, links, counters, pairs, findings");
    add_live_sweep_options(cmd, o->live, false);
    cmd->add_option(
           "--load", o->load,
           "Show snapshots instead of the live fabric (repeat: oldest first; rates between them)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--plan", o->plan, "Compare with this plan (YAML or JSON)");
    cmd->add_option("--baseline", o->baseline, "Compare with this snapshot (a known-good fabric)");
    cmd->add_option("--thresholds", o->thresholds,
                    "Counter thresholds file (defaults: see the user guide)");
    cmd->add_option("--perf", o->perf,
                    "perf run results (JSON) for the pair matrix; repeat, one per source host; a "
                    "mesh run report shows its matrix and suspects, nccl-tests' output its "
                    "findings; a probe agent's /probe.json, saved or live from its URL "
                    "(http://HOST:9776/probe.json, asked at every refresh), the agents' grid and "
                    "findings");
    cmd->add_option("--congestion", o->congestion,
                    "A congestion report (congestion --json) for the congestion view")
        ->check(CLI::ExistingFile);
    cmd->add_option("--refresh", o->refresh, "Live: read the fabric this often (default 2s)");
    cmd->add_option("--rate-window", o->rate_window,
                    "Rates are over the readings of the last this long (default 1m); errors "
                    "since the first reading are shown beside them");
    cmd->add_option("--view", o->view,
                    "Start in this view: fabric, links, counters, pairs, findings, congestion");
    cmd->add_option("--filter", o->filter, "Start with this filter (name, GUID or LID)");
    cmd->add_option(
        "--dump", o->dump,
        "Print VIEW as text and exit: fabric, links, counters, pairs, findings, congestion, "
        "help, all");
    cmd->add_option("--size", o->size,
                    "--dump: COLUMNSxROWS (default: the terminal's, else 100x32)");
    cmd->add_option("--readings", o->readings,
                    "--dump, live: readings to take, --refresh apart (2+ for counter rates)")
        ->check(CLI::Range(1U, 1000U));
    cmd->add_flag("--ascii", o->ascii, "ASCII glyphs only (automatic without a UTF-8 locale)");
    cmd->footer(
        R"(Keys: 1-6 or Tab views, arrows move, / filter, s sort, Enter drill in, r read now,
p pause, ? help, q quit. Findings are validate's, on the same inputs: links against
what both ends can do and their peers (and --plan or --baseline), counters as rises
since each port's first reading. Links are drawn as in --plan, --baseline or the
first reading: one that goes down turns red (x) at the next reading.
Exit codes: 0 quit, 2 bad flags or files, 3 no terminal or no device, 130 Ctrl-C or
a signal (--dump prints what was read).

Examples:
  fabscope tui                                     # live, from the first active port
  fabscope tui -C mlx5_0 -P 1 --refresh 5s --plan plan.yaml
  fabscope tui --load before.json --load after.json --view counters
  fabscope tui --load fabric.json --perf h1.json --perf h2.json --view pairs
  fabscope tui --load fabric.json --dump links --size 120x40 > links.txt
  fabscope tui --load fabric.json --perf mesh.json --congestion congestion.json --view pairs
  fabscope tui --load fabric.json --perf http://h1:9776/probe.json --perf http://h2:9776/probe.json --view pairs)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_tui(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
