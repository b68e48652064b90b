#pragma once
// A TCP connection made within a deadline: every address the name resolves
// to is tried (non-blocking connect, then poll), so a host that never
// answers costs the deadline, not the kernel's minutes of SYN retries.

#include <sys/socket.h>

#include <chrono>
#include <string>
#include <utility>

#include "util/result.h"

namespace fabscope {

struct TcpConnected {
    int fd = -1;          ///< non-blocking, close-on-exec, TCP_NODELAY; the caller's to close
    std::string peer;     ///< "10.0.0.1:18515", "[::1]:9776"
    std::string peer_ip;  ///< "10.0.0.1", "::1"
};

/// Connects to `host` (a name or a literal address) at `port`. Errors are
/// the reason alone, for the caller to say what it was reaching: a name that
/// does not resolve ("cannot resolve HOST: ...", kExitUsage), or the last
/// address's failure ("Connection refused"; on the deadline, "no answer
/// within " and `deadline_text`), kExitCannotRun.
Result<TcpConnected> tcp_connect(const std::string& host, const std::string& port,
                                 std::chrono::milliseconds timeout,
                                 const std::string& deadline_text);

/// A socket address as "host:port" ("[v6]:port") and the host alone; an
/// IPv4 client on a dual-stack socket shown as IPv4.
std::pair<std::string, std::string> numeric_address(const sockaddr* sa);

}  // namespace fabscope
