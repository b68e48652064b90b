#include "tui/dump.h"

#include <fmt/format.h>

#include "tui/screen.h"
#include "tui/views.h"
#include "util/exit_status.h"

namespace fabscope::tui {

Result<DumpViews> parse_dump_views(const std::string& what) {
    DumpViews views;
    if (what == "all") {
        for (size_t v = 0; v < kViewCount; ++v) {
            const auto id = static_cast<ViewId>(v);
            views.emplace_back(view_word(id), id);
        }
    } else if (what == "help") {
        views.emplace_back("help", ViewId::Fabric);
    } else if (auto v = parse_view(what)) {
        views.emplace_back(what, *v);
    } else {
        return make_error(fmt::format(
            "--dump {}: one of fabric, links, counters, pairs, findings, congestion, help, all",
            what));
    }
    return views;
}

Result<int> run_dump(FabricSource& source, DataBuilder builder, const DumpOptions& o,
                     std::FILE* out) {
    const StopToken& stop = interrupt_token();
    for (size_t i = 0; i < o.readings && source.more(); ++i) {
        if (i && !stop.sleep_for(o.refresh)) break;
        auto r = source.read(stop);
        if (stop.stop_requested()) break;  // cut short: keep the readings before it
        if (!r) return r.error();
        builder.add(*r);
        if (o.progress == Progress::Lines)
            std::fprintf(stderr, "tui: reading %zu of %zu taken\n", i + 1, o.readings);
        else if (o.progress == Progress::Live)
            std::fprintf(stderr, "\rtui: reading %zu of %zu taken ", i + 1, o.readings);
        std::fflush(stderr);
    }
    if (o.progress == Progress::Live) std::fprintf(stderr, "\r%40s\r", "");
    const TuiData* d = builder.latest().get();
    for (const auto& [name, id] : o.views) {
        if (!d) break;  // interrupted before the first reading: nothing to show
        ViewState s;
        s.view = id;
        s.filter = o.filter;
        s.help = o.help;
        Canvas c(o.width, o.height);
        draw_frame(d, s, c, FrameInfo{d->meta.taken_ms, false, 0});
        if (o.views.size() > 1) std::fprintf(out, "== %s ==\n", name.c_str());
        std::fputs((o.ascii ? ascii_text(c) : c.to_text()).c_str(), out);
    }
    std::fflush(out);
    return stop.stop_requested() ? kExitInterrupted : kExitClean;
}

}  // namespace fabscope::tui
