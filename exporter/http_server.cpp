#include "exporter/http_server.h"

#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "util/duration.h"
#include "util/exit_status.h"
#include "util/unique_fd.h"

namespace fabscope {
namespace http_detail {

using Steady = std::chrono::steady_clock;

struct Conn {
    Conn(int socket, Steady::time_point now) : fd(socket), since(now) {}
    UniqueFd fd;
    std::string in;                    ///< read, not yet answered (at most max_head_bytes)
    Steady::time_point since;          ///< accepted, or the last answer written
    Steady::time_point request_start;  ///< the first byte of the head in `in`
    bool writing = false;
    std::string head;
    std::shared_ptr<const std::string> body;
    size_t sent = 0;  ///< of head + body
    Steady::time_point write_by;
    bool close_after = false;
    bool peer_done = false;  ///< the client shut its side
    bool idle() const { return !writing && in.empty(); }
};

}  // namespace http_detail

namespace {

// Named outside the anonymous namespace: HttpServer::Loop holds them, and a
// member's type must not have internal linkage (-Wsubobject-linkage in a
// unity batch).
using http_detail::Conn;
using http_detail::Steady;

/// At most this many accepts per turn of the loop, so that the clients
/// already in are read between them.
constexpr int kAcceptsPerTurn = 16;

/// What the server answers itself; the handler gets GET and HEAD without a body.
std::optional<HttpResponse> refusal(const HttpRequest& r) {
    if (r.method != "GET" && r.method != "HEAD") {
        HttpResponse res = text_response(405, "only GET and HEAD\n");
        res.extra_headers = "Allow: GET, HEAD\r\n";
        return res;
    }
    if (r.has_body) return text_response(400, "no request bodies\n");
    return std::nullopt;
}

void start_answer(Conn& c, HttpResponse res, bool head_only, bool keep_alive,
                  Steady::time_point now, const HttpLimits& lim) {
    const size_t size = res.body ? res.body->size() : 0;
    c.head = response_head(res, size, keep_alive);
    c.body = head_only ? nullptr : std::move(res.body);
    c.sent = 0;
    c.writing = true;
    c.close_after = !keep_alive;
    c.write_by = now + lim.response_deadline;
}

/// Writes what the socket takes; false once the connection is to close.
bool write_some(Conn& c, Steady::time_point now) {
    const size_t body_size = c.body ? c.body->size() : 0;
    while (c.sent < c.head.size() + body_size) {
        iovec v[2];
        int n = 0;
        if (c.sent < c.head.size()) {
            v[n++] = {c.head.data() + c.sent, c.head.size() - c.sent};
            if (body_size > 0) v[n++] = {const_cast<char*>(c.body->data()), body_size};
        } else {
            const size_t off = c.sent - c.head.size();
            v[n++] = {const_cast<char*>(c.body->data() + off), body_size - off};
        }
        msghdr m{};
        m.msg_iov = v;
        m.msg_iovlen = static_cast<size_t>(n);
        const ssize_t w = ::sendmsg(c.fd.get(), &m, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
        if (w <= 0) {
            c.writing = false;
            return false;
        }
        c.sent += static_cast<size_t>(w);
    }
    c.writing = false;
    c.head.clear();
    c.body.reset();
    c.since = now;
    c.request_start = now;  // a pipelined head already read starts now
    return !c.close_after && !(c.peer_done && c.in.empty());
}

/// Reads what fits under the head bound; false once the connection is to close.
bool read_some(Conn& c, const HttpLimits& lim, Steady::time_point now) {
    char buf[8192];
    const size_t room =
        std::min(sizeof buf, lim.max_head_bytes - std::min(lim.max_head_bytes, c.in.size()));
    if (room == 0) return true;
    const ssize_t n = ::recv(c.fd.get(), buf, room, 0);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (n == 0) {
        c.peer_done = true;
        return c.writing || !c.in.empty();  // a half-closed client still gets its answer
    }
    if (c.in.empty() && !c.writing) c.request_start = now;
    c.in.append(buf, static_cast<size_t>(n));
    return true;
}

}  // namespace

namespace {

enum class Next { Answered, Wait, Close };

/// The head at the start of `c.in`: answered (or refused), or waited for.
Next answer_one(Conn& c, const HttpServer::Handler& handler, const HttpLimits& lim,
                Steady::time_point now, const std::function<void(bool handled)>& counted) {
    HeadParse p = parse_request_head(c.in, lim);
    if (p.state == HeadParse::State::NeedMore) return c.peer_done ? Next::Close : Next::Wait;
    if (p.state == HeadParse::State::Bad) {
        counted(false);
        c.in.clear();
        start_answer(c, text_response(p.status, p.why + "\n"), false, false, now, lim);
    } else {
        c.in.erase(0, p.consumed);
        const bool head_only = p.request.method == "HEAD";
        if (auto no = refusal(p.request)) {
            // Its body (if any) is not read: the connection cannot go on.
            counted(false);
            c.in.clear();
            start_answer(c, std::move(*no), head_only, false, now, lim);
        } else {
            counted(true);
            const bool keep = p.request.keep_alive && !c.peer_done;
            start_answer(c, handler(p.request), head_only, keep, now, lim);
        }
    }
    return write_some(c, now) ? Next::Answered : Next::Close;
}

/// The requests in `c.in` answered in order while their answers go out at
/// once (pipelining); false once the connection is to close.
bool answer_next(Conn& c, const HttpServer::Handler& handler, const HttpLimits& lim,
                 Steady::time_point now, const std::function<void(bool handled)>& counted) {
    while (!c.writing && !c.in.empty()) {
        const Next n = answer_one(c, handler, lim, now, counted);
        if (n == Next::Close) return false;
        if (n == Next::Wait) break;
    }
    return true;
}

/// The connection to close for a newcomer at the cap: the longest idle,
/// else the oldest unfinished head; none while every one is being answered.
std::vector<std::unique_ptr<Conn>>::iterator victim(std::vector<std::unique_ptr<Conn>>& conns) {
    auto best = conns.end();
    for (auto it = conns.begin(); it != conns.end(); ++it) {
        const Conn& c = **it;
        if (c.writing) continue;
        if (best == conns.end()) {
            best = it;
            continue;
        }
        const Conn& b = **best;
        if (c.idle() != b.idle()) {
            if (c.idle()) best = it;
        } else if ((c.idle() ? c.since : c.request_start) <
                   (b.idle() ? b.since : b.request_start)) {
            best = it;
        }
    }
    return best;
}

/// A short answer before the close, if the socket takes it at once.
void tell(int fd, int status) {
    const std::string h = response_head(text_response(status, ""), 0, false);
    (void)::send(fd, h.data(), h.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/// When `c` is closed if nothing happens: its answer written, its head
/// complete, or (idle) its next request begun.
Steady::time_point next_deadline(const Conn& c, const HttpLimits& lim) {
    if (c.writing) return c.write_by;
    if (c.in.empty()) return c.since + lim.idle_timeout;
    return c.request_start + lim.request_deadline;
}

}  // namespace

/// The server's state between turns of its poll loop.
struct HttpServer::Loop {
    Loop(int listen, HttpLimits l) : listen_fd(listen), lim(l) {}
    UniqueFd listen_fd;
    HttpLimits lim;
    std::vector<std::unique_ptr<Conn>> conns;
    Steady::time_point accept_after{};
    mutable std::mutex mu;
    HttpServerCounts counts;  ///< under mu

    void count(uint64_t HttpServerCounts::*field) {
        std::lock_guard lock(mu);
        ++(counts.*field);
    }
    /// Reads, writes, answers and expires one client; false once it is to close.
    bool serve_one(Conn& c, short revents, const Handler& handler, Steady::time_point now);
    /// Takes the newcomers waiting (a few per turn), making room at the cap.
    void accept_some(const Handler& handler, Steady::time_point now);
    /// One poll and what it found; false once `stop` is requested.
    Status turn(const Handler& handler, const StopToken& stop);
};

bool HttpServer::Loop::serve_one(Conn& c, short revents, const Handler& handler,
                                 Steady::time_point now) {
    auto counted = [this](bool handled) {
        count(handled ? &HttpServerCounts::requests : &HttpServerCounts::refused);
    };
    if ((revents & (POLLIN | POLLHUP | POLLERR)) && !read_some(c, lim, now)) return false;
    if (c.writing && (revents & (POLLOUT | POLLERR)) && !write_some(c, now)) return false;
    if (!answer_next(c, handler, lim, now, counted)) return false;
    if (now <= next_deadline(c, lim)) return true;
    // Idle past keep-alive is an ordinary close; a head or an answer late is a time-out.
    if (!c.idle()) {
        count(&HttpServerCounts::timed_out);
        if (!c.writing) tell(c.fd.get(), 408);
    }
    return false;
}

void HttpServer::Loop::accept_some(const Handler& handler, Steady::time_point now) {
    for (int n = 0; n < kAcceptsPerTurn; ++n) {
        const int fd = ::accept4(listen_fd.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            // Out of descriptors: the listener stays readable; look again in a while.
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                accept_after = now + Millis(100);
            return;
        }
        auto c = std::make_unique<Conn>(fd, now);
        if (conns.size() >= lim.max_connections) {
            auto v = victim(conns);
            if (v == conns.end()) {  // every one is being answered: this one is turned away
                tell(fd, 503);
                count(&HttpServerCounts::evicted);
                continue;
            }
            conns.erase(v);
            count(&HttpServerCounts::evicted);
        }
        // A scraper's request comes with its connection: read it now, so the
        // newcomers behind it do not take it for idle.
        if (serve_one(*c, POLLIN, handler, now)) conns.push_back(std::move(c));
    }
}

Status HttpServer::Loop::turn(const Handler& handler, const StopToken& stop) {
    Steady::time_point now = Steady::now();
    const bool accepting = now >= accept_after;
    std::vector<pollfd> fds{{stop.fd(), POLLIN, 0}, {accepting ? listen_fd.get() : -1, POLLIN, 0}};
    Steady::time_point wake = accepting ? now + Millis(1000) : accept_after;
    for (const auto& c : conns) {
        short events = !c->peer_done && c->in.size() < lim.max_head_bytes ? POLLIN : 0;
        if (c->writing) events |= POLLOUT;
        fds.push_back({c->fd.get(), events, 0});
        wake = std::min(wake, next_deadline(*c, lim));
    }
    const int64_t wait = std::max<int64_t>(std::chrono::ceil<Millis>(wake - now).count(), 0) + 1;
    if (::poll(fds.data(), fds.size(), static_cast<int>(wait)) < 0 && errno != EINTR)
        return make_error(fmt::format("http server: poll: {}", std::strerror(errno)),
                          kExitCannotRun);
    if (stop.stop_requested()) return Ok{};
    now = Steady::now();
    // The clients already in first: their answers before newcomers.
    std::vector<std::unique_ptr<Conn>> kept;
    kept.reserve(conns.size());
    for (size_t i = 0; i < conns.size(); ++i) {
        if (serve_one(*conns[i], fds[i + 2].revents, handler, now))
            kept.push_back(std::move(conns[i]));
    }
    conns = std::move(kept);
    if (accepting && (fds[1].revents & POLLIN)) accept_some(handler, now);
    std::lock_guard lock(mu);
    counts.open = conns.size();
    return Ok{};
}

HttpServer::HttpServer(int fd, int port, HttpLimits limits)
    : port_(port), loop_(std::make_unique<Loop>(fd, limits)) {}

HttpServer::~HttpServer() = default;

Result<std::unique_ptr<HttpServer>> HttpServer::bind(const ListenAddress& at, HttpLimits limits) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    addrinfo* res = nullptr;
    const std::string port = std::to_string(at.port);
    if (int rc = ::getaddrinfo(at.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
        return make_error(
            fmt::format("--listen {}: not an address: {}", to_string(at), ::gai_strerror(rc)),
            kExitUsage);
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(res, &::freeaddrinfo);
    UniqueFd fd(::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    // Only SO_REUSEADDR (no SO_REUSEPORT): a second process cannot take a
    // share of the scrapes, a port in use is an error.
    int yes = 1;
    if (fd.get() < 0 || ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) != 0 ||
        ::bind(fd.get(), res->ai_addr, res->ai_addrlen) != 0 || ::listen(fd.get(), 128) != 0) {
        return make_error(fmt::format("--listen {}: cannot listen (in use, or not an address of "
                                      "this host): {}",
                                      to_string(at), std::strerror(errno)),
                          kExitCannotRun);
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
    const int bound_port =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    return std::unique_ptr<HttpServer>(new HttpServer(fd.release(), bound_port, limits));
}

HttpServerCounts HttpServer::counts() const {
    std::lock_guard lock(loop_->mu);
    return loop_->counts;
}

Status HttpServer::serve(const Handler& handler, const StopToken& stop) {
    while (!stop.stop_requested()) {
        if (auto s = loop_->turn(handler, stop); !s) return s;
    }
    loop_->conns.clear();
    return Ok{};
}

}  // namespace fabscope
