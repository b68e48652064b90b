#include "discover/plane_sweep.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "util/exit_status.h"
#include "util/stderr_capture.h"

namespace fabscope {
namespace {

std::string where(const LocalPort& p) {
    return fmt::format("{} port {}", p.ca, p.port);
}

Finding unmanaged(const Plane& p, size_t index) {
    Finding f = make_finding(
        "unmanaged_plane", Severity::Warning,
        fmt::format(
            "plane {} ({} port {}, subnet {}) has no subnet manager{}: swept by directed route, "
            "its "
            "LIDs and routes are what the last SM left",
            index, p.ca, p.ca_port,
            p.subnet_prefix ? format_subnet_prefix(p.subnet_prefix) : std::string("unknown"),
            p.sm_lid ? fmt::format(" (SM LID {} names a port without IsSM)", p.sm_lid)
                     : std::string(" (SM LID 0)")),
        {},
        {{"plane", index},
         {"ca", p.ca},
         {"ca_port", p.ca_port},
         {"sm_lid", p.sm_lid},
         {"subnet_prefix", format_subnet_prefix(p.subnet_prefix)}});
    return f;
}

}  // namespace

Result<SweepOutput> sweep_planes(const std::vector<LocalPort>& ports, const PlaneSweeper& sweep,
                                 const StopToken* stop) {
    std::vector<Snapshot> parts;
    std::vector<Finding> problems;
    std::vector<Finding> unswept;
    std::optional<Error> first_error;
    bool interrupted = false;
    for (const LocalPort& port : ports) {
        if (interrupted || (stop && stop->stop_requested())) {
            interrupted = true;
            break;
        }
        bool seen = false;
        for (const Snapshot& s : parts) seen = seen || has_port_guid(s.fabric, port.port_guid);
        if (seen) continue;  // a second port on a plane already swept
        auto out = sweep(port);
        if (!out) {
            if (out.error().code == kExitInterrupted) {
                interrupted = true;
                if (!first_error) first_error = out.error();
                break;
            }
            Finding f = make_finding("plane_unswept", Severity::Error,
                                     fmt::format("the plane behind {} could not be swept: {}",
                                                 where(port), out.error().message),
                                     {}, {{"ca", port.ca}, {"ca_port", port.port}});
            unswept.push_back(std::move(f));
            if (!first_error) first_error = out.error();
            continue;
        }
        Plane p = plane_of(out->snapshot.fabric, port.subnet_prefix, port.sm_lid);
        p.ca = port.ca;
        p.ca_port = port.port;
        p.local_port_guid = port.port_guid;
        out->snapshot.planes = {p};
        interrupted = interrupted || out->interrupted;
        problems.insert(problems.end(), std::make_move_iterator(out->problems.begin()),
                        std::make_move_iterator(out->problems.end()));
        parts.push_back(std::move(out->snapshot));
    }
    if (parts.empty()) {
        if (first_error) return *first_error;
        return make_error("no local InfiniBand port with a physical link to sweep from",
                          kExitCannotRun);
    }
    auto merged = merge_planes(std::move(parts));
    if (!merged) return merged.error();
    for (size_t i = 0; i < merged->planes.size(); ++i) {
        if (!merged->planes[i].managed) problems.push_back(unmanaged(merged->planes[i], i));
    }
    problems.insert(problems.end(), unswept.begin(), unswept.end());
    merged->source.complete = merged->source.complete && !interrupted;
    merged->source.interrupted = merged->source.interrupted || interrupted;
    return SweepOutput{std::move(merged).value(), std::move(problems), interrupted};
}

Result<SweepOutput> sweep_all_ports(const LiveOptions& options, const StopToken* stop) {
    Result<std::vector<LocalPort>> ports = make_error("");
    {
        StderrCapture capture;  // the simulator's preload library chats on stderr
        ports = list_local_ports();
        std::string chatter = capture.finish();
        if (options.verbose && !chatter.empty()) std::fputs(chatter.c_str(), stderr);
    }
    if (!ports) return ports.error();
    return sweep_planes(
        *ports,
        [&](const LocalPort& port) -> Result<SweepOutput> {
            LiveOptions o = options;
            o.ca = port.ca;
            o.ca_port = port.port;
            auto session = LiveSession::open(o);
            if (!session) return session.error();
            return session->sweep(stop);
        },
        stop);
}

}  // namespace fabscope
