#pragma once
// The TUI's application loop: a poller reads the fabric, the loop draws and
// reads keys. The CLI parses options, opens the source and calls it (or
// run_dump, dump.h, for text).

#include <chrono>
#include <memory>
#include <string>

#include "tui/perf_files.h"
#include "tui/source.h"
#include "tui/tui_data.h"
#include "tui/view_state.h"
#include "util/result.h"

namespace fabscope::tui {

struct AppOptions {
    std::chrono::milliseconds refresh{2000};
    ViewId view = ViewId::Fabric;
    std::string filter;
    bool color = true;
    bool ascii = false;
    bool verbose = false;  ///< library chatter caught during the session goes to stderr
};

/// The interactive TUI until q (0), Ctrl-C or a signal (130); the terminal
/// is restored and the poller joined either way. No terminal: exit code 3.
Result<int> run_interactive(std::unique_ptr<FabricSource> source, DataBuilder builder,
                            const std::shared_ptr<PerfFiles>& perf, const AppOptions& o);

}  // namespace fabscope::tui
