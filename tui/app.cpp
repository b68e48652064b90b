#include "tui/app.h"

#include <fmt/format.h>

#include "tui/keys.h"
#include "tui/poller.h"
#include "tui/screen.h"
#include "tui/views.h"
#include "util/exit_status.h"
#include "util/stderr_capture.h"
#include "util/time_util.h"

namespace fabscope::tui {
namespace {

/// The screen's loop: draws when the data or the clock changed, reads keys.
int interact(Screen& screen, Poller& poller, const AppOptions& o) {
    ViewState s;
    s.view = o.view;
    s.filter = o.filter;
    uint64_t drawn = ~uint64_t{0};
    bool dirty = true;
    auto last = std::chrono::steady_clock::now();
    ViewOutput shown;
    for (;;) {
        if (Screen::interrupted() || interrupt_token().stop_requested()) return kExitInterrupted;
        const auto now = std::chrono::steady_clock::now();
        const auto since = poller.reading_since();
        if (dirty || poller.generation() != drawn || now - last >= std::chrono::seconds(1)) {
            drawn = poller.generation();
            auto d = poller.latest();
            Canvas c(screen.width(), screen.height());
            FrameInfo fi{unix_millis_now(), since.has_value(),
                         since ? std::chrono::duration<double>(now - *since).count() : 0};
            shown = draw_frame(d.get(), s, c, fi);
            screen.present(c);
            dirty = false;
            last = now;
        }
        const int k = screen.read_key(100);
        if (k == key::kNone) continue;
        s.message.clear();
        const Command cmd = apply_key(s, k, shown.drill);
        if (cmd == Command::Quit) return kExitClean;
        if (cmd == Command::Interrupt) return kExitInterrupted;
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
}

}  // namespace

Result<int> run_interactive(std::unique_ptr<FabricSource> source, DataBuilder builder,
                            const std::shared_ptr<PerfFiles>& perf, const AppOptions& o) {
    StderrCapture quiet;  // library chatter must not land on the screen
    int code = kExitClean;
    {
        auto screen = Screen::open({o.color, o.ascii});
        if (!screen) {
            quiet.finish();
            return screen.error();
        }
        Poller poller(std::move(source), std::move(builder), o.refresh, [perf](DataBuilder& b) {
            if (perf) perf->reload_if_changed(b);
        });
        poller.start();
        code = interact(**screen, poller, o);
        poller.stop();  // cancels a sweep in flight; joined before the screen goes
    }                   // the terminal is restored here
    std::string chatter = quiet.finish();
    if (o.verbose && !chatter.empty()) std::fputs(chatter.c_str(), stderr);
    return code;
}

}  // namespace fabscope::tui
