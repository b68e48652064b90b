#include "probe/service.h"

#include <fmt/format.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <future>
#include <mutex>
#include <thread>

#include "exporter/http_server.h"
#include "net/channel.h"
#include "probe/render.h"
#include "util/printable.h"
#include "util/time_util.h"

namespace fabscope::probe {
namespace {

/// What the other threads hand the engine's, and what it publishes.
struct Mailbox {
    struct Source {
        size_t host;
        perf::UdAddress addr;
        std::promise<Status> done;
    };
    struct Resolved {
        size_t host;
        std::optional<PeerAddress> addr;
        std::string why;
    };
    std::mutex mu;
    std::condition_variable wake;  // the resolver's
    std::vector<Source> sources;
    std::vector<Resolved> resolved;
    std::vector<size_t> todo;
    std::shared_ptr<const std::string> metrics = std::make_shared<const std::string>("");
    std::shared_ptr<const std::string> state = std::make_shared<const std::string>("{}\n");
};

void log_line(const ProbeServiceOptions& o, const std::string& line) {
    if (!o.quiet) std::fprintf(stderr, "fabscope probe: %s\n", one_line(line).c_str());
}

void resolve_loop(const ProbeServiceOptions& o, const perf::UdAddress& self, Mailbox& box,
                  const StopToken& stop) {
    const ProbeHost& me = o.hosts[o.self];
    for (;;) {
        std::vector<size_t> todo;
        {
            std::unique_lock lock(box.mu);
            box.wake.wait_for(lock, std::chrono::milliseconds(200),
                              [&] { return !box.todo.empty() || stop.stop_requested(); });
            if (stop.stop_requested()) return;
            todo.swap(box.todo);
        }
        for (size_t h : todo) {
            if (stop.stop_requested()) return;
            auto r = say_hello(o.hosts[h], me.name, self, o.hello);
            std::lock_guard lock(box.mu);
            if (r)
                box.resolved.push_back({h, *r, ""});
            else
                box.resolved.push_back({h, std::nullopt, r.error().message});
        }
    }
}

/// Applies what the other threads learned (on the engine's thread). A peer
/// that cannot be taken is the engine's to retry: the agent goes on.
void apply_mail(ProbeEngine& engine, Mailbox& box, const ProbeServiceOptions& o) {
    std::vector<Mailbox::Source> sources;
    std::vector<Mailbox::Resolved> resolved;
    {
        std::lock_guard lock(box.mu);
        sources.swap(box.sources);
        resolved.swap(box.resolved);
    }
    for (auto& s : sources) s.done.set_value(engine.learn_source(s.host, s.addr));
    for (auto& r : resolved) {
        if (!r.addr) {
            engine.peer_unreachable(r.host, r.why);
            if (o.verbose > 0) log_line(o, "hello to " + r.why);
            continue;
        }
        if (auto st = engine.learn_peer(r.host, r.addr->ud, r.addr->id); !st)
            log_line(o, st.error().message);
    }
}

void publish(const ProbeSnapshot& s, const ProbeServiceOptions& o, Mailbox& box,
             std::vector<size_t> todo, uint64_t& recoveries_said) {
    if (s.port.recoveries > recoveries_said) {
        log_line(o, fmt::format("the UD queue pair failed ({}; {} sends in error) and was brought "
                                "back {} times",
                                s.port.last_error, s.port.send_errors, s.port.recoveries));
        recoveries_said = s.port.recoveries;
    }
    auto metrics = std::make_shared<const std::string>(probe_metrics(s, o.version));
    auto state = std::make_shared<const std::string>(probe_json(s, o.version).dump(2) + "\n");
    {
        std::lock_guard lock(box.mu);
        box.metrics = std::move(metrics);
        box.state = std::move(state);
        box.todo = std::move(todo);
    }
    box.wake.notify_one();
    if (o.verbose > 0) {
        log_line(o, fmt::format("interval {} at {:.3f}: {} sent, {} lost, {} findings", s.interval,
                                s.ended_unix_s, s.sent_total, s.lost_total, s.findings.size()));
    }
    for (const Finding& f : s.findings)
        log_line(o, fmt::format("interval {} at {:.3f}: {}: {}", s.interval, s.ended_unix_s, f.kind,
                                f.summary));
}

HttpResponse route(const HttpRequest& r, Mailbox& box) {
    HttpResponse res;
    std::lock_guard lock(box.mu);
    if (r.path == "/metrics") {
        res.content_type = kPrometheusTextType;
        res.body = box.metrics;
    } else if (r.path == "/probe.json") {
        res.content_type = "application/json";
        res.body = box.state;
    } else {
        res =
            text_response(404, "not found: the metrics are at /metrics, the JSON at /probe.json\n");
    }
    return res;
}

Status engine_loop(const ProbeServiceOptions& o, perf::UdPort& port, Mailbox& box,
                   const StopToken& stop) {
    ProbeEngine engine(port, o.hosts, o.self, o.config, Clock::now());
    {
        std::lock_guard lock(box.mu);
        box.todo = engine.to_resolve();
    }
    box.wake.notify_one();
    uint64_t recoveries_said = 0;
    while (!stop.stop_requested()) {
        apply_mail(engine, box, o);
        if (auto st = engine.step(std::chrono::milliseconds(50)); !st) return st;
        if (Clock::now() >= engine.interval_end()) {
            ProbeSnapshot s = engine.close_interval(static_cast<double>(unix_millis_now()) / 1000);
            publish(s, o, box, engine.to_resolve(), recoveries_said);
        }
    }
    // Hellos waiting on the engine are told it stopped.
    std::lock_guard lock(box.mu);
    for (auto& s : box.sources) s.done.set_value(make_error("the agent is stopping"));
    box.sources.clear();
    return Ok{};
}

}  // namespace

Status run_probe_service(const ProbeServiceOptions& o, perf::UdPort& port, const StopToken& stop) {
    std::signal(SIGPIPE, SIG_IGN);
    auto listen_fd = perf::Channel::listen(o.hello_addr, o.hello_port);
    if (!listen_fd) return listen_fd.error();
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{*listen_fd};
    auto server = HttpServer::bind(o.http, o.http_limits);
    if (!server) return server.error();
    ListenAddress bound = o.http;
    bound.port = (*server)->port();
    const perf::UdAddress self = port.address();
    const ProbeHost& me = o.hosts[o.self];
    log_line(o,
             fmt::format(
                 "{} (leaf {}): hellos on port {}, http://{}/metrics, QP {}, every {} "
                 "{} probes a peer",
                 me.name, me.leaf.empty() ? "-" : me.leaf, o.hello_port, to_string(bound), self.qpn,
                 fmt::format("{:.3g} s", std::chrono::duration<double>(o.config.interval).count()),
                 o.config.count));

    Mailbox box;
    StopToken done(&stop);
    auto reg = [&](size_t host, const perf::UdAddress& addr) -> Status {
        std::future<Status> f;
        {
            std::lock_guard lock(box.mu);
            box.sources.push_back({host, addr, {}});
            f = box.sources.back().done.get_future();
        }
        if (f.wait_for(std::chrono::seconds(2)) != std::future_status::ready)
            return make_error("the agent is busy: try again");
        return f.get();
    };
    auto hello_log = [&](const std::string& line) { log_line(o, line); };
    std::thread hellos([&] {
        (void)serve_hellos(*listen_fd, o.hosts, me.name, self, o.allow, o.hello, reg, hello_log,
                           done);
    });
    std::thread resolver([&] { resolve_loop(o, self, box, done); });
    std::thread http([&] {
        (void)(*server)->serve([&box](const HttpRequest& r) { return route(r, box); }, done);
    });
    Status result = engine_loop(o, port, box, done);
    done.request_stop();
    box.wake.notify_all();
    hellos.join();
    resolver.join();
    http.join();
    if (!result) return result;
    log_line(o, "stopped");
    return Ok{};
}

}  // namespace fabscope::probe
