#pragma once
// `fabscope congestion` on InfiniBand: a sweep (topology, forwarding tables,
// counters), every port's PMA counters read again after --interval with the
// per-VL PortXmitWait, and the congestion trees the waits form over the
// routes; again and again with --watch. The command's loop lives here, beside
// the RoCE one (congestion/roce_run.h); cli/ parses the options.

#include "discover/live_session.h"
#include "model/thresholds.h"
#include "util/duration.h"
#include "util/interrupt.h"
#include "util/progress.h"
#include "util/result.h"
#include "util/term.h"

namespace fabscope {

struct IbRunOptions {
    Millis interval{10000};
    bool watch = false;
    Thresholds thresholds;
    bool json = false;   ///< the report on stdout (one document per line with `watch`)
    bool quiet = false;  ///< no summary on stderr
    Progress progress = Progress::Off;
    TextStyle style;
};

/// Sweeps through `session`, measures, prints the summary (stderr) and JSON
/// (stdout); returns the exit status (0 clean, 1 findings, 130 interrupted),
/// or the error that stopped it (a sweep that could not run, an output
/// that could not be written), which carries its own.
Result<int> run_ib_congestion(LiveSession& session, const IbRunOptions& o, const StopToken& stop);

}  // namespace fabscope
