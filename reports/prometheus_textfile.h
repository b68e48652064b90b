#pragma once
// `--prom FILE`: the metrics written for node_exporter's textfile collector.
// The collector may read the file at any moment, so it is written whole to
// FILE.tmp.PID in the same directory (same file system) and renamed over
// FILE; the collector reads only *.prom, never the temporary.

#include <string>

#include "reports/prometheus_text.h"
#include "util/result.h"

namespace fabscope {

/// Errors name the file, code kExitUsage.
Status write_prom_textfile(const std::string& path, const PromInput& in);

/// The Unix time now, in seconds (for PromInput::sweep_finished_unix_s).
double prom_unix_now();

}  // namespace fabscope
