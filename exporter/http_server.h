#pragma once
// The exporter's HTTP server: one thread, one poll loop, non-blocking
// sockets. No client can hold it: each connection has a bounded head
// (HttpLimits), whole deadlines that do not restart per byte, and at the
// connection cap a newcomer takes the place of the idlest connection (one
// waiting between requests, then the slowest unfinished head), so a scraper
// is answered ahead of idle and trickling clients. Pipelined requests are
// answered in order; what a client sends while its answer is written waits,
// bounded, in its buffer. Answers share the body (the metrics) by pointer.
//
// Why not cpp-httplib (used before): it gives each connection a worker
// thread for its whole life, restarts its read timeout with every byte and
// has no connection cap or header count (0.11, Debian 12), so two clients
// trickling a byte every few seconds held both workers and every scrape
// timed out.

#include <cstdint>
#include <functional>
#include <memory>

#include "exporter/http_request.h"
#include "exporter/listen_address.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope {

/// What the server counts, for its own metrics and the tests.
struct HttpServerCounts {
    uint64_t requests = 0;
    uint64_t evicted = 0;    ///< connections closed to make room for a newcomer
    uint64_t timed_out = 0;  ///< past a deadline
    uint64_t refused = 0;    ///< bad heads and bodies (4xx without the handler)
    size_t open = 0;
};

class HttpServer {
  public:
    using Handler = std::function<HttpResponse(const HttpRequest&)>;

    /// Binds and listens. Errors: the address is in use or not this host's
    /// (kExitCannotRun).
    static Result<std::unique_ptr<HttpServer>> bind(const ListenAddress& at, HttpLimits limits);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// The port bound (the one asked for, or the one given for port 0).
    int port() const { return port_; }
    /// Answers requests with `handler` (GET and HEAD only; the rest is
    /// answered here) until `stop` is requested. Errors: poll failed.
    Status serve(const Handler& handler, const StopToken& stop);
    /// Safe from any thread.
    HttpServerCounts counts() const;

  private:
    struct Loop;
    /// Takes `fd`, the listening socket (closed with the server).
    explicit HttpServer(int fd, int port, HttpLimits limits);
    int port_;
    std::unique_ptr<Loop> loop_;
};

}  // namespace fabscope
