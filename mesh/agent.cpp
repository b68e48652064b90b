#include "mesh/agent.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>
#include <thread>

#include "mesh/run_pattern.h"
#include "mesh/tracing.h"
#include "mesh/wire.h"
#include "net/auth.h"
#include "net/message.h"
#include "ranks/comm_relay.h"
#include "ranks/protocol.h"
#include "util/duration.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

/// Sessions opened at once by the coordinator (each a thread while it lasts).
constexpr size_t kConnectBatch = 64;

std::string agent_steps(const MeshAgentBounds& bounds, const OpenDevice& open_device,
                        const VerbsDevice& dev, Channel& ch, const PeerOptions& peer,
                        const SessionLimits& lim, const json& hello, const Log& log) {
    auto refuse = [&](const std::string& why) {
        (void)ch.send({{"type", "error"}, {"message", why}}, lim.step_timeout);
        return why;
    };
    if (!open_device) return refuse("this server does not take mesh orders");
    auto order = order_from_json(hello.at("mesh"), bounds, lim.caps);
    if (!order) return refuse(order.error().message);
    const MeshOrder& od = *order;
    // The device's limits too (work requests, CQ entries): every rank runs
    // the same test, so an order this agent would have to change is refused.
    TestSpec capped = od.spec;
    if (auto notes = apply_caps(capped, &lim.caps, dev.limits()); !notes.empty())
        return refuse(fmt::format("mesh order: {}", fmt::join(notes, "; ")));
    MeshRunOptions m;
    m.test() = od.test();
    m.device = od.device.empty() ? dev.name() : od.device;
    m.port = od.port != 0 ? od.port : (od.device.empty() ? dev.port() : 0);
    m.peer.gid_index = od.gid_index ? od.gid_index : peer.gid_index;
    m.peer.traffic_class = od.traffic_class;
    m.peer.mtu_cap = od.mtu_cap;
    OpenDevice open = open_device;
    if (od.trace) {
        TraceOptions t;
        t.timeout = od.trace_timeout;
        open = with_mesh_tracing(m, std::move(open), t, od.names);
    }
    if (auto s = ch.send(
            {{"type", "joined"}, {"host", host_name()}, {"mesh_version", kMeshOrderVersion}},
            lim.step_timeout);
        !s)
        return s.error().message;
    const Millis limit = order_session_limit(od);
    log(fmt::format("perf serve: mesh run from {}: rank {} of {}, {}, {} {} each way (at most {})",
                    ch.peer(), od.rank, od.size - 1, od.pattern, od.spec.name(),
                    format_size(od.spec.size), format_duration(limit)));
    StopToken stop(peer.stop);
    AgentComm comm(ch, od.rank, od.size, MeshClock::now() + limit, &stop);
    MeshRunOutcome out = run_pattern(comm, open, m, stop);
    if (!out.error.empty()) return out.error;
    return "";
}

/// One agent's session, up to "joined"; `hello` set when it does not join.
CoordinatorComm::Agent join(const MeshAgent& a, int rank, const MeshOrder& order,
                            const CoordinatorOptions& o, const StopToken& stop) {
    CoordinatorComm::Agent out;
    auto fail = [&](const std::string& why) {
        MeshRank r;
        r.rank = rank;
        r.host = a.host;
        r.device = a.device;
        r.error = fmt::format("the agent at {} (line {}): {}", a.where(), a.line, why);
        out.hello = rank_json(r).dump();
        out.open = false;
        out.ch = Channel();
        return std::move(out);
    };
    const Millis step = o.run.step_timeout;
    auto ch = Channel::connect(a.where(), o.connect_timeout);
    if (!ch) return fail(ch.error().message);
    ch->set_stop(&stop);
    auto welcome = ch->receive(step);
    if (!welcome) return fail(fmt::format("no welcome: {}", welcome.error().message));
    if (message_type(*welcome) == "error")
        return fail(
            fmt::format("refused: {}", message_text(*welcome, "message", "no reason given")));
    if (message_type(*welcome) != "welcome" || message_int(*welcome, "protocol") != kProtocol)
        return fail(fmt::format("not a fabscope perf serve of protocol {}", kProtocol));
    json hello{{"type", "hello"}, {"protocol", kProtocol}, {"mesh", order_to_json(order)}};
    if (message_bool(*welcome, "auth")) {
        if (o.secret.empty()) return fail("it needs a shared secret: give it with --secret-file");
        hello["auth"] = auth_response(o.secret, message_text(*welcome, "nonce"));
    }
    if (auto s = ch->send(hello, step); !s) return fail(s.error().message);
    // Behind another client it joins when that one is done: up to the start's wait.
    auto joined = ch->receive(step * 3);
    if (!joined) return fail(fmt::format("did not join: {}", joined.error().message));
    if (message_type(*joined) == "error")
        return fail(fmt::format("refused the order: {}",
                                message_text(*joined, "message", "no reason given")));
    if (message_type(*joined) != "joined")
        return fail(fmt::format("answered the order with \"{}\"", message_type(*joined)));
    // From here Ctrl-C is rank 0's to handle: its last "go" says stop.
    ch->set_stop(nullptr);
    out.ch = std::move(*ch);
    out.open = true;
    return out;
}

}  // namespace

HelloHandler mesh_order_handler(MeshAgentBounds bounds, OpenDevice open) {
    return [bounds, open = std::move(open)](const VerbsDevice& dev, Channel& ch,
                                            const PeerOptions& peer, const SessionLimits& lim,
                                            const json& hello, const Log& log) {
        try {
            return agent_steps(bounds, open, dev, ch, peer, lim, hello, log);
        } catch (const std::exception& e) {
            return fmt::format("mesh run: internal error: {}", e.what());
        }
    };
}

std::string agents_launcher() {
    return fmt::format("fabscope agents (mesh order {})", kMeshOrderVersion);
}

MeshOrder agent_order(const CoordinatorOptions& o, const MeshAgent& a, int rank, int size) {
    MeshOrder order;
    order.rank = rank;
    order.size = size;
    order.device = a.device.empty() ? o.run.device : a.device;
    order.port = o.run.port;
    order.test() = o.run.test();
    order.gid_index = o.run.peer.gid_index;
    order.traffic_class = o.run.peer.traffic_class;
    order.mtu_cap = o.run.peer.mtu_cap;
    order.trace = o.trace;
    order.trace_timeout = o.trace_timeout;
    order.names = o.names;
    return order;
}

std::string session_note(const CoordinatorOptions& o, size_t agents) {
    const Millis limit =
        order_session_limit(agent_order(o, MeshAgent{}, 1, static_cast<int>(agents) + 1));
    const Millis usual = MeshAgentBounds{}.max_session;
    if (limit <= usual) return "";
    const auto hours = std::chrono::ceil<std::chrono::hours>(limit);
    return fmt::format(
        "this run may take up to {:.1f} h as ordered; an agent joins runs up to its "
        "--max-session ({} unless raised): start the agents with --max-session {}h or more, or "
        "order shorter steps (--step-timeout)",
        static_cast<double>(limit.count()) / 3.6e6, format_duration(usual), hours.count());
}

MeshRunOutcome coordinate_mesh(const std::vector<MeshAgent>& agents, const CoordinatorOptions& o,
                               const StopToken& stop) {
    const int size = static_cast<int>(agents.size()) + 1;
    std::vector<CoordinatorComm::Agent> sessions(static_cast<size_t>(size));
    for (size_t first = 0; first < agents.size(); first += kConnectBatch) {
        std::vector<std::thread> batch;
        for (size_t i = first; i < std::min(agents.size(), first + kConnectBatch); ++i) {
            batch.emplace_back([&, i] {
                const int rank = static_cast<int>(i) + 1;
                sessions[static_cast<size_t>(rank)] =
                    join(agents[i], rank, agent_order(o, agents[i], rank, size), o, stop);
            });
        }
        for (std::thread& t : batch) t.join();
    }
    CoordinatorComm comm(std::move(sessions), kMeshTagHello);
    MeshRunOptions run = o.run;
    run.coordinator_only = true;
    OpenDevice none = [](const std::string&, int) -> Result<std::unique_ptr<VerbsDevice>> {
        return make_error("the coordinator opens no device");
    };
    MeshRunOutcome out = run_pattern(comm, none, run, stop);
    for (MeshFinding& f : out.data.findings) {
        if (f.kind == "rank-gone" && f.rank > 0 && f.rank < size &&
            !comm.closed_why(f.rank).empty())
            f.message += fmt::format(" (its agent {})", comm.closed_why(f.rank));
    }
    comm.end();
    out.data.launcher = agents_launcher();
    return out;
}

}  // namespace fabscope::perf
