#include "util/progress.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "util/term.h"

namespace fabscope {

Progress progress_for(bool quiet, int verbose) {
    if (quiet) return Progress::Off;
    if (is_terminal(2)) return Progress::Live;
    return verbose > 0 ? Progress::Lines : Progress::Off;
}

bool wait_with_countdown(std::chrono::milliseconds d, const StopToken& stop, Progress p,
                         std::string_view what) {
    const std::string text(what);
    if (p == Progress::Lines) {
        std::fprintf(stderr, "%s in %.1f s (Ctrl-C stops; what was read is kept)\n", text.c_str(),
                     static_cast<double>(d.count()) / 1000);
        std::fflush(stderr);
        return stop.sleep_for(d);
    }
    const auto end = std::chrono::steady_clock::now() + d;
    bool whole = true;
    for (;;) {
        auto left =
            std::chrono::ceil<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        if (p == Progress::Live) {
            std::fprintf(stderr, "\r%s in %3lld s (Ctrl-C stops; what was read is kept) ",
                         text.c_str(), static_cast<long long>((left.count() + 999) / 1000));
        }
        if (!stop.sleep_for(std::min(left, std::chrono::milliseconds(1000)))) {
            whole = false;
            break;
        }
    }
    if (p == Progress::Live) std::fprintf(stderr, "\r%80s\r", "");
    return whole;
}

}  // namespace fabscope
