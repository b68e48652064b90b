#pragma once
// fabscope tui --dump: take the readings, then print views as text, for
// scripts, tickets and the docs. Pure but for the output stream.

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tui/source.h"
#include "tui/tui_data.h"
#include "tui/view_state.h"
#include "util/progress.h"
#include "util/result.h"

namespace fabscope::tui {

/// The views --dump prints, by name: one view, "all" or "help".
using DumpViews = std::vector<std::pair<std::string, ViewId>>;
Result<DumpViews> parse_dump_views(const std::string& what);

struct DumpOptions {
    DumpViews views;
    bool help = false;  ///< the help overlay
    std::string filter;
    int width = 100;
    int height = 32;
    bool ascii = false;
    size_t readings = 1;  ///< live: readings `refresh` apart; files: every file
    std::chrono::milliseconds refresh{2000};
    /// Each reading taken, on stderr (the views go to `out`).
    Progress progress = Progress::Off;
};

/// Takes the readings, then prints each view to `out`. Ctrl-C (the
/// process's interrupt token) stops the readings: what was read is printed
/// and the result is 130. A failed reading is an error (its exit code).
Result<int> run_dump(FabricSource& source, DataBuilder builder, const DumpOptions& o,
                     std::FILE* out);

}  // namespace fabscope::tui
