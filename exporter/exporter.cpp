#include "exporter/exporter.h"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "exporter/metrics_state.h"
#include "model/duration.h"
#include "model/link_checks.h"
#include "model/sm_checks.h"
#include "model/tiers.h"
#include "util/exit_status.h"
#include "util/printable.h"
#include "util/time_util.h"

namespace fabscope {
namespace {

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void log_line(const ExporterOptions& o, const std::string& line) {
    if (!o.quiet) std::fprintf(stderr, "fabscope exporter: %s\n", one_line(line).c_str());
}

/// The sweeper thread's loop: never two sweeps at once, since there is one thread.
void sweep_loop(const ExporterOptions& o, const SweepFunction& sweep, const StopToken& stop,
                MetricsState& state) {
    while (!stop.stop_requested()) {
        const auto started = std::chrono::steady_clock::now();
        Stopwatch sw;
        auto out = sweep(&stop);
        if (stop.stop_requested()) break;  // a sweep cut short is not the fabric's state
        if (!out) {
            state.publish_failure();
            log_line(o, fmt::format("sweep failed: {}", out.error().message));
        } else {
            auto view = std::make_shared<SweepView>();
            Tiers tiers = classify_tiers(out->snapshot.fabric);
            view->findings = std::move(out->problems);
            auto checks = check_links(out->snapshot.fabric, tiers);
            view->findings.insert(view->findings.end(), checks.begin(), checks.end());
            auto sms = check_subnet_managers({out->snapshot.fabric, out->snapshot.source.sm_read});
            view->findings.insert(view->findings.end(), sms.begin(), sms.end());
            view->fabric = std::move(out->snapshot.fabric);
            view->complete = out->snapshot.source.complete;
            view->sm_read = out->snapshot.source.sm_read;
            view->duration_s = sw.seconds();
            view->finished_unix_s = unix_now();
            const size_t nodes = view->fabric.nodes().size();
            const size_t findings = view->findings.size();
            const bool first = state.counts().sweeps == 0;
            state.publish(std::move(view));
            if (first || o.verbose > 0) {
                log_line(o, fmt::format("sweep: {} nodes, {} findings in {:.2f} s", nodes, findings,
                                        sw.seconds()));
            }
        }
        const auto next = started + o.interval;
        const auto left =
            std::chrono::ceil<std::chrono::milliseconds>(next - std::chrono::steady_clock::now());
        if (left.count() > 0 && !stop.sleep_for(left)) break;
    }
}

void configure(httplib::Server& svr, const MetricsState& state) {
    // Bounds for a service on the network: few workers, short deadlines,
    // no bodies, only reads.
    svr.new_task_queue = [] { return new httplib::ThreadPool(2); };
    svr.set_read_timeout(5, 0);
    svr.set_write_timeout(5, 0);
    svr.set_keep_alive_max_count(16);
    svr.set_keep_alive_timeout(5);
    svr.set_payload_max_length(0);
    // httplib's default adds SO_REUSEPORT, which lets a second process bind
    // the same port and take a share of the scrapes: only SO_REUSEADDR here,
    // so a port in use is an error.
    svr.set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    svr.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
        if (req.method == "GET" || req.method == "HEAD")
            return httplib::Server::HandlerResponse::Unhandled;
        res.status = 405;
        res.set_header("Allow", "GET, HEAD");
        res.set_content("only GET and HEAD\n", "text/plain");
        return httplib::Server::HandlerResponse::Handled;
    });
    svr.Get("/metrics", [&state](const httplib::Request&, httplib::Response& res) {
        auto text = state.metrics();
        res.set_content(*text, kMetricsType);
    });
    svr.Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<html><head><title>fabscope exporter</title></head><body>"
            "<h1>fabscope exporter</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n",
            "text/html; charset=utf-8");
    });
}

}  // namespace

Status run_exporter(const ExporterOptions& o, const SweepFunction& sweep, const StopToken& stop) {
    // A scraper that hangs up mid-answer must not end the process.
    std::signal(SIGPIPE, SIG_IGN);
    MetricsState state(o.version);
    httplib::Server svr;
    configure(svr, state);
    ListenAddress bound = o.listen;
    if (o.listen.port == 0) {
        int port = svr.bind_to_any_port(o.listen.host);
        if (port <= 0) {
            return make_error(fmt::format("--listen {}: cannot listen: {}", to_string(o.listen),
                                          std::strerror(errno)),
                              kExitCannotRun);
        }
        bound.port = port;
    } else if (!svr.bind_to_port(o.listen.host, o.listen.port)) {
        return make_error(fmt::format("--listen {}: cannot listen (in use, or not an address of "
                                      "this host): {}",
                                      to_string(o.listen), std::strerror(errno)),
                          kExitCannotRun);
    }
    log_line(o, fmt::format("serving http://{}/metrics, sweeping every {}", to_string(bound),
                            format_duration(o.interval)));

    // Stopped by the caller's token, or here if the server ends on its own.
    StopToken done(&stop);
    std::atomic<bool> serving{true};
    std::thread sweeper([&] { sweep_loop(o, sweep, done, state); });
    std::thread stopper([&] {
        while (done.sleep_for(std::chrono::hours(1))) {
        }
        // stop() is a no-op until listen has started: repeat until it has ended.
        while (serving.load()) {
            svr.stop();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    const bool listened = svr.listen_after_bind();
    serving = false;
    done.request_stop();
    stopper.join();
    sweeper.join();
    if (!listened && !stop.stop_requested()) {
        return make_error(
            fmt::format("{}: the server stopped: {}", to_string(bound), std::strerror(errno)),
            kExitCannotRun);
    }
    log_line(o, "stopped");
    return Ok{};
}

}  // namespace fabscope
