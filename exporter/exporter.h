#pragma once
// `fabscope exporter`: a sweeper thread sweeps the fabric every interval
// (one sweep at a time, the next starting an interval after the previous
// one started, or at once if it took longer) and publishes each good sweep;
// an HTTP server answers GET /metrics from the last publication and GET /
// with a pointer to it. Bounded as a network service (exporter/http_server.h):
// one poll loop, a connection cap, a bounded head, whole deadlines, no
// request bodies, nothing but GET and HEAD.

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "discover/sweep.h"
#include "exporter/http_request.h"
#include "exporter/listen_address.h"
#include "reports/prometheus_text.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope {

struct ExporterOptions {
    ListenAddress listen;
    std::chrono::milliseconds interval{30000};
    std::string version;
    bool quiet = false;                          ///< no log lines on stderr
    int verbose = 0;                             ///< 1: a line per sweep
    HttpLimits http;                             ///< what one client may take of the server
    uint8_t port_metrics = kDefaultPortMetrics;  ///< --metrics: PortMetrics bits
};

/// One sweep of the fabric, stopping early when the token is stopped.
using SweepFunction = std::function<Result<SweepOutput>(const StopToken* stop)>;

/// Binds, then serves and sweeps until `stop` is stopped. Errors: the
/// address cannot be bound (kExitCannotRun). Returns 0 after a stop.
Status run_exporter(const ExporterOptions& options, const SweepFunction& sweep,
                    const StopToken& stop);

}  // namespace fabscope
