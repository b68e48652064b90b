// CPU cost of the TUI on a big fabric: drawing one frame of each view, and
// folding one reading into the data the views draw (the poller thread's
// work). Snapshot files come after the benchmark flags, oldest first, as
// `fabscope tui --load` takes them; bench/tui-frame.sh sweeps the 2,048-host
// lab for them. The goal: under 50 ms of CPU per frame.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "model/snapshot.h"
#include "tui/canvas.h"
#include "tui/tui_data.h"
#include "tui/views.h"

namespace {

using namespace fabscope;
using namespace fabscope::tui;

std::vector<Snapshot> g_snapshots;
std::shared_ptr<const TuiData> g_data;

std::shared_ptr<const TuiData> build() {
    DataBuilder b(BuilderConfig{});
    std::shared_ptr<const TuiData> d;
    for (const Snapshot& s : g_snapshots) d = b.add(reading_from_file(s));
    return d;
}

/// One frame of a view at a size, the cursor somewhere in the middle.
void BM_Frame(benchmark::State& state) {
    const auto view = static_cast<ViewId>(state.range(0));
    const int w = static_cast<int>(state.range(1));
    const int h = static_cast<int>(state.range(2));
    ViewState s;
    s.view = view;
    s.cursor().row = 1000;
    while (state.KeepRunning()) {
        Canvas c(w, h);
        draw_frame(g_data.get(), s, c, FrameInfo{g_data->meta.taken_ms, false, 0});
        benchmark::DoNotOptimize(c.at(0, 0));
    }
    state.SetLabel(fmt::format("{} {}x{}", view_name(view), w, h));
}

/// The filter applied: every row tested against it.
void BM_FrameFiltered(benchmark::State& state) {
    ViewState s;
    s.view = static_cast<ViewId>(state.range(0));
    s.filter = "leaf4";
    while (state.KeepRunning()) {
        Canvas c(200, 60);
        draw_frame(g_data.get(), s, c, FrameInfo{g_data->meta.taken_ms, false, 0});
        benchmark::DoNotOptimize(c.at(0, 0));
    }
    state.SetLabel(fmt::format("{} 200x60 filter leaf4", view_name(s.view)));
}

/// Every reading folded in from scratch: board, validation, rates, history.
void BM_FoldReadings(benchmark::State& state) {
    while (state.KeepRunning()) benchmark::DoNotOptimize(build());
    state.SetLabel(fmt::format("{} readings", g_snapshots.size()));
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (argc < 2) {
        std::fprintf(
            stderr,
            "usage: %s [benchmark flags] SNAPSHOT.json... (oldest first; see bench/tui-frame.sh)\n",
            argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        auto s = load_snapshot(argv[i]);
        if (!s) {
            std::fprintf(stderr, "%s\n", s.error().message.c_str());
            return 2;
        }
        g_snapshots.push_back(std::move(s).value());
    }
    g_data = build();
    std::fprintf(stderr, "%zu nodes, %zu links in the board\n", g_data->board.nodes.size(),
                 g_data->board.links.size());
    for (size_t v = 0; v < kViewCount; ++v) {
        for (auto [w, h] : {std::pair{80, 24}, std::pair{200, 60}}) {
            benchmark::RegisterBenchmark("frame", BM_Frame)
                ->Args({static_cast<int64_t>(v), w, h})
                ->Unit(benchmark::kMillisecond);
        }
        benchmark::RegisterBenchmark("frame_filtered", BM_FrameFiltered)
            ->Arg(static_cast<int64_t>(v))
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark("fold_readings", BM_FoldReadings)->Unit(benchmark::kMillisecond);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
