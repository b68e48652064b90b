// fabscope tui: the live terminal UI. Readings (live sweeps or snapshot
// files) come from a polling thread; the loop here only draws and reads
// keys, so the screen never waits for the fabric. `--dump VIEW` prints a
// frame as text instead, for scripts, tickets and the docs.

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "model/duration.h"
#include "model/snapshot.h"
#include "tui/keys.h"
#include "tui/poller.h"
#include "tui/screen.h"
#include "tui/views.h"
#include "util/exit_status.h"
#include "util/stderr_capture.h"
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
    std::string view = "fabric";
    std::string filter;
    std::string dump;
    std::string size;
    unsigned readings = 1;
    bool ascii = false;
};

class FileSource : public FabricSource {
  public:
    explicit FileSource(std::vector<Snapshot> snaps) : snaps_(std::move(snaps)) {}
    Result<Reading> read() override { return reading_from_file(std::move(snaps_[next_++])); }
    bool more() const override { return next_ < snaps_.size(); }

  private:
    std::vector<Snapshot> snaps_;
    size_t next_ = 0;
};

class LiveSource : public FabricSource {
  public:
    explicit LiveSource(LiveSession session) : session_(std::move(session)) {}
    Result<Reading> read() override {
        auto out = session_.sweep();
        if (!out) return out.error();
        return Reading{std::move(out->snapshot), std::move(out->problems), unix_millis_now()};
    }
    bool more() const override { return true; }

  private:
    LiveSession session_;
};

/// --perf files, read again when rewritten while the TUI runs.
class PerfFiles {
  public:
    explicit PerfFiles(std::vector<std::string> paths)
        : paths_(std::move(paths)), mtimes_(paths_.size(), 0) {}

    /// Reads every file; errors name the file (exit 2).
    Result<std::vector<perf::PerfReport>> load_all() {
        std::vector<perf::PerfReport> out;
        for (size_t i = 0; i < paths_.size(); ++i) {
            mtimes_[i] = mtime(paths_[i]);
            auto r = perf::load_perf_report(paths_[i]);
            if (!r) return r.error();
            out.push_back(std::move(r).value());
        }
        return out;
    }
    /// Reloads into `b` when a file changed; a bad rewrite keeps what was there.
    void reload_if_changed(DataBuilder& b) {
        bool changed = false;
        for (size_t i = 0; i < paths_.size(); ++i)
            changed = changed || mtime(paths_[i]) != mtimes_[i];
        if (!changed) return;
        auto all = load_all();
        if (all) b.set_perf(std::move(all).value(), paths_);
    }
    const std::vector<std::string>& paths() const { return paths_; }

  private:
    static int64_t mtime(const std::string& p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0
                   ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec
                   : 0;
    }
    std::vector<std::string> paths_;
    std::vector<int64_t> mtimes_;
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

/// Prints one frame per view asked for.
int dump(const TuiData& d, const TuiCommand& o, const Globals& g) {
    auto size = o.size.empty() ? Result<std::pair<int, int>>(terminal_size()) : parse_size(o.size);
    if (!size) return report(size.error(), g);
    std::vector<std::pair<std::string, ViewId>> views;
    bool help = o.dump == "help";
    if (o.dump == "all") {
        for (size_t v = 0; v < kViewCount; ++v) {
            const auto id = static_cast<ViewId>(v);
            std::string n(view_name(id));
            n[0] = static_cast<char>(std::tolower(n[0]));
            views.emplace_back(n, id);
        }
    } else if (help) {
        views.emplace_back("help", ViewId::Fabric);
    } else if (auto v = parse_view(o.dump)) {
        views.emplace_back(o.dump, *v);
    } else {
        return report(
            make_error(fmt::format(
                "--dump {}: one of fabric, links, counters, pairs, findings, help, all", o.dump)),
            g);
    }
    for (const auto& [name, id] : views) {
        ViewState s;
        s.view = id;
        s.filter = o.filter;
        s.help = help;
        Canvas c(size->first, size->second);
        draw_frame(&d, s, c, FrameInfo{d.meta.taken_ms, false, 0});
        if (views.size() > 1) std::printf("== %s ==\n", name.c_str());
        std::fputs((o.ascii ? ascii_text(c) : c.to_text()).c_str(), stdout);
    }
    return kExitClean;
}

int interact(Poller& poller, const TuiCommand& o, const Globals& g) {
    StderrCapture quiet;  // library chatter must not land on the screen
    int code = kExitClean;
    {
        auto screen = Screen::open({!g.no_color && !std::getenv("NO_COLOR"), o.ascii});
        if (!screen) {
            quiet.finish();
            return report(screen.error(), g);
        }
        ViewState s;
        s.view = parse_view(o.view).value_or(ViewId::Fabric);
        s.filter = o.filter;
        poller.start();
        uint64_t drawn = ~uint64_t{0};
        bool dirty = true;
        auto last = std::chrono::steady_clock::now();
        ViewOutput shown;
        for (;;) {
            if (Screen::interrupted()) {
                code = kExitInterrupted;
                break;
            }
            const auto now = std::chrono::steady_clock::now();
            const auto since = poller.reading_since();
            if (dirty || poller.generation() != drawn || now - last >= std::chrono::seconds(1)) {
                drawn = poller.generation();
                auto d = poller.latest();
                Canvas c((*screen)->width(), (*screen)->height());
                FrameInfo fi{unix_millis_now(), since.has_value(),
                             since ? std::chrono::duration<double>(now - *since).count() : 0};
                shown = draw_frame(d.get(), s, c, fi);
                (*screen)->present(c);
                dirty = false;
                last = now;
            }
            const int k = (*screen)->read_key(100);
            if (k == key::kNone) continue;
            s.message.clear();
            const Command cmd = apply_key(s, k, shown.drill);
            if (cmd == Command::Quit) break;
            if (cmd == Command::Refresh) {
                poller.read_now();
                s.message = "reading the fabric now";
            }
            if (cmd == Command::TogglePause) {
                poller.set_paused(s.paused);
                s.message = s.paused ? "paused: p resumes, r reads once" : "resumed";
            }
            dirty = true;
        }
    }  // the terminal is restored here
    std::string chatter = quiet.finish();
    if (g.verbose && !chatter.empty()) std::fputs(chatter.c_str(), stderr);
    if (!poller.stop(std::chrono::milliseconds(1500))) {
        // Still inside a sweep that has not reached its deadlines: do not wait for it.
        std::fflush(nullptr);
        std::_Exit(code);
    }
    return code;
}

int run_tui(const TuiCommand& o, const Globals& g) {
    auto refresh = parse_duration(o.refresh);
    if (!refresh || refresh->count() < 200) {
        return report(make_error(fmt::format("--refresh {}: a duration of at least 200ms, e.g. 2s",
                                             o.refresh)),
                      g);
    }
    if (!parse_view(o.view)) {
        return report(make_error(fmt::format(
                          "--view {}: one of fabric, links, counters, pairs, findings", o.view)),
                      g);
    }
    if (!o.size.empty()) {
        if (auto s = parse_size(o.size); !s) return report(s.error(), g);
    }
    BuilderConfig cfg;
    cfg.interval_s = static_cast<double>(refresh->count()) / 1000.0;
    if (!o.plan.empty()) {
        auto p = load_plan(o.plan);
        if (!p) return report(p.error(), g);
        cfg.plan = std::move(p).value();
    }
    if (!o.baseline.empty()) {
        auto b = load_snapshot(o.baseline);
        if (!b) return report(b.error(), g);
        cfg.baseline = std::move(b).value();
    }
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return report(t.error(), g);
        cfg.thresholds = std::move(t).value();
    }
    auto perf_files = std::make_shared<PerfFiles>(o.perf);
    auto reports = perf_files->load_all();
    if (!reports) return report(reports.error(), g);
    cfg.perf = std::move(reports).value();
    cfg.perf_names = o.perf;

    std::unique_ptr<FabricSource> source;
    if (!o.load.empty()) {
        std::vector<Snapshot> snaps;
        for (const std::string& f : o.load) {
            auto s = load_snapshot(f);
            if (!s) return report(s.error(), g);
            snaps.push_back(std::move(s).value());
        }
        cfg.source =
            o.load.size() == 1 ? o.load.front() : fmt::format("{} snapshots", o.load.size());
        source = std::make_unique<FileSource>(std::move(snaps));
    } else {
        LiveSweepOptions live = o.live;
        live.no_routes = true;  // cabling and counters: what the views show
        auto session = open_live_session(live, g);
        if (!session) return report(session.error(), g);
        cfg.live = true;
        cfg.source = fmt::format("{} port {}", session->local().ca, session->local().port);
        source = std::make_unique<LiveSource>(std::move(session).value());
    }

    if (!o.dump.empty()) {
        // Every file, or --readings live readings --refresh apart.
        DataBuilder b(std::move(cfg));
        const size_t n = o.load.empty() ? std::max(1U, o.readings) : o.load.size();
        for (size_t i = 0; i < n; ++i) {
            if (i && o.load.empty()) std::this_thread::sleep_for(*refresh);
            auto r = source->read();
            if (!r) return report(r.error(), g);
            b.add(*r);
        }
        return dump(*b.latest(), o, g);
    }
    Poller poller(std::move(source), DataBuilder(std::move(cfg)), *refresh,
                  [perf_files](DataBuilder& b) { perf_files->reload_if_changed(b); });
    return interact(poller, o, g);
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
    cmd->add_option("--baseline", o->baseline,
                    "Compare with this snapshot (default: the first reading)");
    cmd->add_option("--thresholds", o->thresholds,
                    "Counter thresholds file (defaults: see the user guide)");
    cmd->add_option("--perf", o->perf,
                    "perf run results (JSON) for the pair matrix; repeat, one per source host");
    cmd->add_option("--refresh", o->refresh, "Live: read the fabric this often (default 2s)");
    cmd->add_option("--view", o->view,
                    "Start in this view: fabric, links, counters, pairs, findings");
    cmd->add_option("--filter", o->filter, "Start with this filter (name, GUID or LID)");
    cmd->add_option(
        "--dump", o->dump,
        "Print VIEW as text and exit: fabric, links, counters, pairs, findings, help, all");
    cmd->add_option("--size", o->size,
                    "--dump: COLUMNSxROWS (default: the terminal's, else 100x32)");
    cmd->add_option("--readings", o->readings,
                    "--dump, live: readings to take, --refresh apart (2+ for counter rates)")
        ->check(CLI::Range(1U, 1000U));
    cmd->add_flag("--ascii", o->ascii, "ASCII glyphs only (automatic without a UTF-8 locale)");
    cmd->footer(
        R"(Keys: 1-5 or Tab views, arrows move, / filter, s sort, Enter drill in, r read now,
p pause, ? help, q quit. Links are compared with --plan, --baseline or the first
reading: one that goes down turns red (x) at the next reading.
Exit codes: 0 quit, 2 bad flags or files, 3 no terminal or no device, 130 signal.

Examples:
  fabscope tui                                     # live, from the first active port
  fabscope tui -C mlx5_0 -P 1 --refresh 5s --plan plan.yaml
  fabscope tui --load before.json --load after.json --view counters
  fabscope tui --load fabric.json --perf h1.json --perf h2.json --view pairs
  fabscope tui --load fabric.json --dump links --size 120x40 > links.txt)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_tui(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
