#include "util/tcp_connect.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/exit_status.h"
#include "util/time_util.h"

namespace fabscope {
namespace {

using Steady = std::chrono::steady_clock;

/// 0, or the errno of a connect that failed or did not finish by `end`.
int connect_by(int fd, const addrinfo* ai, Steady::time_point end) {
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) return 0;
    if (errno != EINPROGRESS) return errno;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, remaining_ms(end)) != 1) return ETIMEDOUT;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    return err;
}

}  // namespace

Result<TcpConnected> tcp_connect(const std::string& host, const std::string& port,
                                 std::chrono::milliseconds timeout,
                                 const std::string& deadline_text) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
        return make_error(fmt::format("cannot resolve {}: {}", host, ::gai_strerror(rc)),
                          kExitUsage);
    }
    const auto end = Steady::now() + timeout;
    std::string why = "no address";
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        const int err = connect_by(fd, ai, end);
        if (err == 0) {
            int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            TcpConnected c;
            c.fd = fd;
            std::tie(c.peer, c.peer_ip) = numeric_address(ai->ai_addr);
            ::freeaddrinfo(res);
            return c;
        }
        why = err == ETIMEDOUT ? "no answer within " + deadline_text : std::strerror(err);
        ::close(fd);
    }
    ::freeaddrinfo(res);
    return make_error(why, kExitCannotRun);
}

std::pair<std::string, std::string> numeric_address(const sockaddr* sa) {
    char host[NI_MAXHOST] = {};
    char serv[NI_MAXSERV] = {};
    socklen_t len = sa->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
    if (::getnameinfo(sa, len, host, sizeof host, serv, sizeof serv,
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return {"?", "?"};
    std::string h = host;
    if (h.rfind("::ffff:", 0) == 0 && h.find('.') != std::string::npos) h = h.substr(7);
    const bool v6 = h.find(':') != std::string::npos;
    return {v6 ? fmt::format("[{}]:{}", h, serv) : fmt::format("{}:{}", h, serv), h};
}

}  // namespace fabscope
