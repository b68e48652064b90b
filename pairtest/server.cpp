#include "pairtest/server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "net/auth.h"
#include "net/message.h"
#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct Waiting {
    Channel ch;
    std::string nonce;
};

// The sessions: a worker serves the queue one client at a time while the
// acceptor keeps answering new connections.
class Queue {
  public:
    /// Adds `w` unless `max` are already waiting; returns how many are ahead, or -1.
    int push(Waiting&& w, size_t max) {
        std::lock_guard lock(m_);
        if (waiting_.size() >= max) return -1;
        int ahead = static_cast<int>(waiting_.size()) + (busy_ ? 1 : 0);
        waiting_.push_back(std::move(w));
        cv_.notify_one();
        return ahead;
    }
    /// How many clients are ahead of a new one (for its welcome).
    int ahead() {
        std::lock_guard lock(m_);
        return static_cast<int>(waiting_.size()) + (busy_ ? 1 : 0);
    }
    bool full(size_t max) {
        std::lock_guard lock(m_);
        return waiting_.size() >= max;
    }
    void serve_all(const std::function<void(Waiting&)>& serve) {
        for (;;) {
            std::unique_lock lock(m_);
            cv_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
            if (stopping_) return;
            Waiting w = std::move(waiting_.front());
            waiting_.pop_front();
            busy_ = true;
            lock.unlock();
            serve(w);
            lock.lock();
            busy_ = false;
            ++served_;
            last_end_ = SteadyClock::now();
        }
    }
    void stop() {
        std::lock_guard lock(m_);
        stopping_ = true;
        cv_.notify_all();
    }
    bool idle() {
        std::lock_guard lock(m_);
        return !busy_ && waiting_.empty();
    }
    size_t served() {
        std::lock_guard lock(m_);
        return served_;
    }
    SteadyClock::time_point last_end() {
        std::lock_guard lock(m_);
        return last_end_;
    }

  private:
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Waiting> waiting_;
    bool busy_ = false;
    bool stopping_ = false;
    size_t served_ = 0;
    SteadyClock::time_point last_end_ = SteadyClock::now();
};

void refuse(Channel& ch, const std::string& why) {
    (void)ch.send({{"type", "error"}, {"message", why}}, Millis(1000));
}

}  // namespace

Status check_listen_address(const std::string& addr) {
    if (addr.empty()) return Ok{};
    in_addr v4{};
    in6_addr v6{};
    if (::inet_pton(AF_INET, addr.c_str(), &v4) == 1 ||
        ::inet_pton(AF_INET6, addr.c_str(), &v6) == 1)
        return Ok{};
    return make_error(fmt::format("--listen {}: not an IP address (e.g. 10.0.0.2 or ::1)", addr),
                      kExitUsage);
}

Result<std::unique_ptr<Server>> Server::open(const ServeOptions& opts) {
    if (auto c = check_listen_address(opts.listen_addr); !c) return c.error();
    auto fd = Channel::listen(opts.listen_addr, opts.port);
    if (!fd) return fd.error();
    std::unique_ptr<Server> s(new Server(opts));
    s->fd_ = *fd;
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(s->fd_, reinterpret_cast<sockaddr*>(&ss), &len);
    s->port_ = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                              : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    return Result<std::unique_ptr<Server>>(std::move(s));
}

Server::~Server() {
    if (fd_ >= 0) ::close(fd_);
}

int Server::run(const VerbsDevice& dev, const StopToken& stop, const Log& log) {
    const ServeOptions& o = opts_;
    const bool secret = !o.peer.secret.empty();
    PeerOptions peer = o.peer;
    peer.stop = &stop;
    log(fmt::format("perf serve: {} port {}, listening on {}:{}, answering {}{}", dev.name(),
                    dev.port(), o.listen_addr.empty() ? "*" : o.listen_addr, port_,
                    o.allow.describe(), secret ? ", with a shared secret" : ""));
    Queue queue;
    std::thread worker([&] {
        queue.serve_all(
            [&](Waiting& w) { serve_session(dev, w.ch, peer, o.limits, w.nonce, log); });
    });
    int code = kExitClean;
    for (;;) {
        if (stop.stop_requested()) {
            code = kExitInterrupted;
            break;
        }
        if (o.once && queue.served() > 0) break;
        if (o.idle_timeout.count() > 0 && queue.idle() &&
            SteadyClock::now() - queue.last_end() > o.idle_timeout) {
            log(fmt::format("perf serve: no client within {}; stopping",
                            format_duration(o.idle_timeout)));
            break;
        }
        pollfd p[2] = {{fd_, POLLIN, 0}, {stop.fd(), POLLIN, 0}};
        if (::poll(p, 2, 100) <= 0 || !(p[0].revents & POLLIN)) continue;
        auto ch = Channel::accept(fd_, Millis(1));
        if (!ch) continue;
        if (!o.allow.allows(ch->peer_ip())) {
            log(fmt::format("perf serve: refused {}: not in --allow ({})", ch->peer(),
                            o.allow.describe()));
            // The list is the operator's: the log has it, the client is told no more than no.
            refuse(*ch, fmt::format("this server does not answer {}", ch->peer_ip()));
            continue;
        }
        if (o.once && queue.served() + (queue.idle() ? 0 : 1) > 0) {
            refuse(*ch, "this server runs one session only (--once) and is busy with it");
            continue;
        }
        if (queue.full(o.max_queue)) {
            log(fmt::format("perf serve: refused {}: {} clients already waiting", ch->peer(),
                            o.max_queue));
            refuse(*ch, fmt::format("busy: {} clients are already waiting (--max-queue); try "
                                    "again later",
                                    o.max_queue));
            continue;
        }
        Waiting w{std::move(*ch), secret ? make_nonce() : ""};
        if (secret && w.nonce.empty()) {
            refuse(w.ch, "the server has no randomness for its challenge");
            continue;
        }
        nlohmann::json welcome{{"type", "welcome"},
                               {"protocol", kProtocol},
                               {"auth", secret},
                               {"waiting", queue.ahead()}};
        if (secret) welcome["nonce"] = w.nonce;
        if (!w.ch.send(welcome, Millis(1000))) continue;
        w.ch.set_stop(&stop);
        if (queue.push(std::move(w), o.max_queue) < 0) continue;
    }
    queue.stop();
    worker.join();
    return code;
}

}  // namespace fabscope::perf
