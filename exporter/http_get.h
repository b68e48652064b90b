#pragma once
// One HTTP GET of a fabscope service (a probe agent's /probe.json): plain
// HTTP/1.1, one request a connection, with a deadline for the whole answer
// (not one that restarts with every byte) and a bounded head and body, so a
// server that trickles or floods costs its caller the deadline at most.
// Bodies come with Content-Length or end when the server closes; a chunked
// answer is refused (fabscope's own HTTP server never sends one).

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace fabscope {

struct HttpGetLimits {
    std::chrono::milliseconds connect{1000};
    std::chrono::milliseconds answer{2000};  ///< connected -> last byte of the body
    size_t max_head = 16384;
    size_t max_body = size_t{8} << 20;
};

struct HttpAnswer {
    int status = 0;
    std::string body;
};

/// `url` is "http://HOST[:PORT][/PATH]" (HOST a name, an IPv4 address or
/// "[IPv6]"; PORT 80 and PATH "/" by default). Errors are the reason alone
/// (the caller names the URL): kExitUsage for a URL that is not one,
/// kExitCannotRun for everything the server did or did not do.
Result<HttpAnswer> http_get(std::string_view url, const HttpGetLimits& limits = {});

}  // namespace fabscope
