#pragma once
// Where `fabscope exporter` listens: "ADDR:PORT" with an IPv4 address,
// "[IPv6]:PORT", or "localhost:PORT". Literal addresses only (no name
// lookups), so what the service is exposed on is what the flag says.

#include <string>
#include <string_view>

#include "util/result.h"

namespace fabscope {

struct ListenAddress {
    std::string host;  ///< as the socket takes it: "127.0.0.1", "::1"
    int port = 0;      ///< 0 = any free port
};

/// Errors (code kExitUsage) say what was expected.
Result<ListenAddress> parse_listen_address(std::string_view s);
/// "127.0.0.1:9775", "[::1]:9775"
std::string to_string(const ListenAddress& a);

}  // namespace fabscope
