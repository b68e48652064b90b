#pragma once
// Saying that a long step is under way, on stderr: redrawn in place on a
// terminal, as plain lines with -v when stderr is not one (a CI log, or a
// test that waits for a step to start), not at all with -q or otherwise, so
// piped output stays clean.

#include <chrono>
#include <string_view>

#include "util/interrupt.h"

namespace fabscope {

enum class Progress { Off, Lines, Live };

/// Live when stderr is a terminal, Lines when it is not and `verbose`, Off
/// with `quiet`.
Progress progress_for(bool quiet, int verbose);

/// Waits `d` before `what` ("Reading the counters again"): a countdown each
/// second when Live, one line when Lines. False when `stop` ended the wait.
bool wait_with_countdown(std::chrono::milliseconds d, const StopToken& stop, Progress p,
                         std::string_view what);

}  // namespace fabscope
