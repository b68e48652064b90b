#pragma once
// `fabscope probe`: the long-running probe agent. Three threads besides the
// engine's: the hello listener (who may be answered), the resolver (our
// hellos to this round's peers), and the HTTP server of /metrics and
// /probe.json (exporter/http_server.h, bounded as the exporter's). The
// engine's thread owns the UD port; the others hand it what they learn
// through a mailbox. A stop (SIGTERM, Ctrl-C) ends every thread, closes every
// socket and frees the QP; nothing is left behind.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exporter/http_request.h"
#include "exporter/listen_address.h"
#include "net/allow_list.h"
#include "probe/engine.h"
#include "probe/hello.h"
#include "rdma/ud_port.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::probe {

inline constexpr uint16_t kDefaultHelloPort = 18516;

struct ProbeServiceOptions {
    std::vector<ProbeHost> hosts;
    size_t self = 0;
    ProbeConfig config;
    std::string hello_addr;  ///< "" = every address
    uint16_t hello_port = kDefaultHelloPort;
    perf::AllowList allow = perf::AllowList::loopback();
    HelloOptions hello;
    ListenAddress http;
    HttpLimits http_limits;
    std::string version;
    bool quiet = false;
    int verbose = 0;  ///< 1: a line per interval
};

/// Binds both listeners, then probes until `stop`. Errors: an address that
/// cannot be bound (kExitCannotRun), the port failing.
Status run_probe_service(const ProbeServiceOptions& o, perf::UdPort& port, const StopToken& stop);

}  // namespace fabscope::probe
