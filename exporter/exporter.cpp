#include "exporter/exporter.h"

#include <fmt/format.h>

#include <csignal>
#include <thread>

#include "check/sweep_findings.h"
#include "exporter/http_server.h"
#include "exporter/metrics_state.h"
#include "model/tiers.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/printable.h"
#include "util/time_util.h"

namespace fabscope {
namespace {

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
            const Tiers tiers = classify_tiers(out->snapshot.fabric);
            view->findings = sweep_findings({out->snapshot, tiers, std::move(out->problems)}).all();
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

HttpResponse route(const HttpRequest& r, const MetricsState& state) {
    HttpResponse res;
    if (r.path == "/metrics") {
        res.content_type = kPrometheusTextType;
        res.body = state.metrics();
    } else if (r.path == "/") {
        res.content_type = "text/html; charset=utf-8";
        res.body = std::make_shared<const std::string>(
            "<html><head><title>fabscope exporter</title></head><body>"
            "<h1>fabscope exporter</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n");
    } else {
        res = text_response(404, "not found: the metrics are at /metrics\n");
    }
    return res;
}

}  // namespace

Status run_exporter(const ExporterOptions& o, const SweepFunction& sweep, const StopToken& stop) {
    // A scraper that hangs up mid-answer must not end the process.
    std::signal(SIGPIPE, SIG_IGN);
    MetricsState state(o.version, o.port_metrics);
    auto server = HttpServer::bind(o.listen, o.http);
    if (!server) return server.error();
    ListenAddress bound = o.listen;
    bound.port = (*server)->port();
    log_line(o, fmt::format("serving http://{}/metrics, sweeping every {}, per-port metrics {}",
                            to_string(bound), format_duration(o.interval),
                            port_metrics_names(o.port_metrics)));

    // Stopped by the caller's token, or here if the server ends on its own.
    StopToken done(&stop);
    std::thread sweeper([&] { sweep_loop(o, sweep, done, state); });
    Status served =
        (*server)->serve([&state](const HttpRequest& r) { return route(r, state); }, done);
    done.request_stop();
    sweeper.join();
    if (!served) return served;
    const HttpServerCounts c = (*server)->counts();
    log_line(o, fmt::format("stopped: {} requests answered, {} refused, {} connections closed "
                            "past a deadline, {} to make room",
                            c.requests, c.refused, c.timed_out, c.evicted));
    return Ok{};
}

}  // namespace fabscope
