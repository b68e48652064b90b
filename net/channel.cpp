#include "net/channel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <tuple>

#include "model/json_io.h"
#include "util/exit_status.h"
#include "util/tcp_connect.h"
#include "util/time_util.h"

namespace fabscope::perf {
namespace {

using Steady = std::chrono::steady_clock;

void set_nonblocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

}  // namespace

std::pair<std::string, std::string> split_host_port(const std::string& where) {
    if (!where.empty() && where.front() == '[') {
        auto close = where.find(']');
        std::string host =
            where.substr(1, close == std::string::npos ? std::string::npos : close - 1);
        std::string port =
            close != std::string::npos && close + 1 < where.size() && where[close + 1] == ':'
                ? where.substr(close + 2)
                : std::to_string(kDefaultPort);
        return {host, port};
    }
    auto colon = where.rfind(':');
    if (colon != std::string::npos && where.find(':') == colon)
        return {where.substr(0, colon), where.substr(colon + 1)};
    return {where, std::to_string(kDefaultPort)};
}

Result<nlohmann::json> parse_message(const std::string& line) {
    // The same limits as files (depth, size, memory): a peer is input too.
    auto j = json_io::parse_json_text(line, "a message");
    if (!j) return make_error(j.error().message, kExitCannotRun);
    return j;
}

Channel::~Channel() {
    if (fd_ >= 0) ::close(fd_);
}

Channel::Channel(Channel&& o) noexcept
    : fd_(o.fd_),
      peer_(std::move(o.peer_)),
      peer_ip_(std::move(o.peer_ip_)),
      buffer_(std::move(o.buffer_)),
      stop_(o.stop_),
      closed_(o.closed_) {
    o.fd_ = -1;
}

Channel& Channel::operator=(Channel&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        peer_ = std::move(o.peer_);
        peer_ip_ = std::move(o.peer_ip_);
        buffer_ = std::move(o.buffer_);
        stop_ = o.stop_;
        closed_ = o.closed_;
        o.fd_ = -1;
    }
    return *this;
}

Result<Channel> Channel::connect(const std::string& where, Millis timeout,
                                 const ChannelService& service) {
    auto [host, port] = split_host_port(where);
    auto c = tcp_connect(host, port, timeout, format_duration(timeout));
    if (!c) {
        if (c.error().code == kExitUsage) return c.error();
        return make_error(
            fmt::format("cannot reach a fabscope {} at {}:{}: {} (is `fabscope {}` running there, "
                        "and the port open?)",
                        service.what, host, port, c.error().message, service.command),
            kExitCannotRun);
    }
    Channel ch;
    ch.fd_ = c->fd;
    ch.peer_ = std::move(c->peer);
    ch.peer_ip_ = std::move(c->peer_ip);
    return ch;
}

Result<int> Channel::listen(const std::string& addr, uint16_t port) {
    int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool v6 = fd >= 0;
    if (!v6) fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return make_error(fmt::format("socket: {}", std::strerror(errno)), kExitCannotRun);
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = -1;
    if (v6) {
        int zero = 0;
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        a.sin6_addr = in6addr_any;
        if (!addr.empty()) {
            std::string mapped = addr.find(':') == std::string::npos ? "::ffff:" + addr : addr;
            if (::inet_pton(AF_INET6, mapped.c_str(), &a.sin6_addr) != 1) {
                ::close(fd);
                return make_error(fmt::format("--listen {}: not an IP address", addr), kExitUsage);
            }
        }
        rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    } else {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        if (!addr.empty() && ::inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1) {
            ::close(fd);
            return make_error(fmt::format("--listen {}: not an IPv4 address", addr), kExitUsage);
        }
        rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    if (rc != 0 || ::listen(fd, 8) != 0) {
        int err = errno;
        ::close(fd);
        return make_error(
            fmt::format(
                "cannot listen on port {}: {}{}", port, std::strerror(err),
                err == EADDRINUSE ? " (another server runs there: pick another with --port)" : ""),
            kExitCannotRun);
    }
    return fd;
}

Result<Channel> Channel::accept(int listen_fd, Millis timeout) {
    pollfd p{listen_fd, POLLIN, 0};
    int rc = ::poll(&p, 1, timeout.count() > 0 ? static_cast<int>(timeout.count()) : -1);
    if (rc == 0)
        return make_error(fmt::format("no client within {}", format_duration(timeout)),
                          kExitCannotRun);
    if (rc < 0)
        return make_error(fmt::format("waiting for a client: {}", std::strerror(errno)),
                          kExitInterrupted);
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
    if (fd < 0) return make_error(fmt::format("accept: {}", std::strerror(errno)), kExitCannotRun);
    set_nonblocking(fd);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Channel c;
    c.fd_ = fd;
    std::tie(c.peer_, c.peer_ip_) = numeric_address(reinterpret_cast<sockaddr*>(&ss));
    return c;
}

Status Channel::send(const nlohmann::json& msg, Millis timeout) {
    std::string line = msg.dump() + "\n";
    auto end = Steady::now() + timeout;
    size_t off = 0;
    while (off < line.size()) {
        ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{fd_, POLLOUT, 0};
            if (::poll(&p, 1, remaining_ms(end)) != 1) {
                return make_error(
                    fmt::format("the peer at {} takes no data (no progress within {})", peer_,
                                format_duration(timeout)),
                    kExitCannotRun);
            }
            continue;
        }
        closed_ = true;
        return make_error(
            fmt::format("the peer at {} closed the connection: it stopped or crashed", peer_),
            kExitCannotRun);
    }
    return Ok{};
}

bool Channel::fill(Millis timeout, std::string* why) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {stop_ ? stop_->fd() : -1, POLLIN, 0}};
    int rc = ::poll(p, 2, static_cast<int>(timeout.count()));
    if (rc == 0 || (p[0].revents == 0 && rc > 0)) return false;
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
        buffer_.append(buf, static_cast<size_t>(n));
        return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
    closed_ = true;
    if (why) *why = "closed";
    return false;
}

Result<nlohmann::json> Channel::receive(Millis timeout) {
    auto end = Steady::now() + timeout;
    for (;;) {
        auto nl = buffer_.find('\n');
        if (nl != std::string::npos) {
            if (nl > kMaxMessage) break;
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            auto msg = parse_message(line);
            if (!msg) {
                return make_error(
                    fmt::format("the peer at {} sent {}: is it a fabscope perf peer of the same "
                                "version?",
                                peer_, msg.error().message),
                    kExitCannotRun);
            }
            return msg;
        }
        if (buffer_.size() > kMaxMessage) break;
        if (stop_ && stop_->stop_requested()) {
            return make_error(fmt::format("interrupted while waiting for {}", peer_),
                              kExitInterrupted);
        }
        if (closed_) {
            return make_error(
                fmt::format("the peer at {} closed the connection: it stopped or crashed", peer_),
                kExitCannotRun);
        }
        int left = remaining_ms(end);
        if (left == 0) {
            return make_error(fmt::format("the peer at {} did not answer within {}", peer_,
                                          format_duration(timeout)),
                              kExitCannotRun);
        }
        std::string why;
        fill(Millis(left), &why);
    }
    // Nothing more is read from a peer that sent an oversized line.
    closed_ = true;
    buffer_.clear();
    return make_error(
        fmt::format("the peer at {} sent a message longer than {} bytes", peer_, kMaxMessage),
        kExitCannotRun);
}

bool Channel::buffered() const {
    // A line past the limit is "there" too: receive() turns it into this
    // peer's error instead of the buffer growing while callers peek.
    return buffer_.size() > kMaxMessage || buffer_.find('\n') != std::string::npos;
}

Channel::Peek Channel::wait(Millis timeout) {
    if (!buffered() && !closed_) fill(timeout, nullptr);
    return peek();
}

Channel::Peek Channel::peek() {
    if (buffered()) return Peek::Message;
    if (closed_) return Peek::Closed;
    fill(Millis(0), nullptr);
    if (buffered()) return Peek::Message;
    return closed_ ? Peek::Closed : Peek::Nothing;
}

}  // namespace fabscope::perf
