#include "pairtest/session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>

#include "model/json_io.h"
#include "net/auth.h"
#include "net/message.h"
#include "util/exit_status.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using SteadyClock = std::chrono::steady_clock;
using nlohmann::json;

/// The time left of a step, within the session's whole deadline.
struct Deadline {
    SteadyClock::time_point end;
    Millis step;
    bool passed() const { return SteadyClock::now() >= end; }
    Millis next() const {
        auto left = std::chrono::duration_cast<Millis>(end - SteadyClock::now());
        return std::clamp(left, Millis(1), step);
    }
};

/// The server's part of the measured run, until the client says done, goes
/// away, or `run_end` passes: sending or answering as the test asks, then
/// waiting for the client's done. Returns why it failed ("" when it did not).
std::string our_part(TestEndpoint& me, const TestSpec& s, Channel& ch, const PeerOptions& o,
                     SteadyClock::time_point run_end, BandwidthOutcome& mine) {
    const bool bw = s.measure == Measure::Bandwidth;
    bool done = false;
    auto keep_going = [&]() -> std::string {
        Channel::Peek p = ch.peek();
        if (p == Channel::Peek::Message) {
            done = true;
            return "done";
        }
        if (p == Channel::Peek::Closed) return "the client closed the connection";
        if (SteadyClock::now() > run_end) return "the test ran past its deadline";
        if (o.stop && o.stop->stop_requested()) return "the server was interrupted";
        return "";
    };
    std::string error;
    if (bw && s.bidirectional) {
        mine = me.run_bandwidth(s, keep_going);
        error = mine.error;
        if (error.empty() && s.op == Op::Send) {
            // Our sends are done, the client's may not be: without receives
            // posted here its SENDs meet RNR NAKs until its deadline. Keep
            // them posted until it says done.
            BandwidthOutcome rest = me.receive_sends(s, keep_going);
            mine.received_bytes += rest.received_bytes;
            error = rest.error;
        }
    } else if (bw && s.op == Op::Send) {
        mine = me.receive_sends(s, keep_going);
        error = mine.error;
    } else if (!bw) {
        error = me.answer_latency(s, keep_going);
    }
    // Wait for the client's done (the measured part on our side may end first),
    // asleep: a spinning server would take CPU from the test it serves.
    while (!done && error.empty()) {
        auto left = std::chrono::duration_cast<Millis>(run_end - SteadyClock::now());
        Channel::Peek p = ch.wait(std::clamp(left, Millis(1), Millis(1000)));
        if (p == Channel::Peek::Message)
            done = true;
        else if (p == Channel::Peek::Closed)
            error = "the client closed the connection";
        else if (SteadyClock::now() > run_end)
            error = "the test ran past its deadline";
        else if (o.stop && o.stop->stop_requested())
            error = "the server was interrupted";
    }
    return error == "done" ? "" : error;
}

// The steps of one session on the server; returns why it ended early ("" if
// it ran to the end).
std::string serve_steps(const VerbsDevice& dev, Channel& ch, const PeerOptions& o,
                        const SessionLimits& lim, const json& hello_msg, const Log& log) {
    const auto start = SteadyClock::now();
    Deadline d{start + lim.handshake_timeout, std::min(lim.step_timeout, lim.handshake_timeout)};
    auto refuse = [&](const std::string& why) {
        (void)ch.send({{"type", "error"}, {"message", why}}, d.next());
        return why;
    };
    const json* hello = &hello_msg;
    // Another kind of session (a coordinator's mesh order): its handler's.
    for (const auto& [key, handler] : lim.hello_handlers) {
        if (hello->is_object() && hello->contains(key))
            return handler(dev, ch, o, lim, *hello, log);
    }
    auto spec = json_io::guarded([&]() -> Result<TestSpec> {
        if (!hello->is_object() || !hello->contains("spec"))
            return make_error("the hello has no \"spec\"");
        return spec_from_json(json_io::get_object(*hello, "spec"));
    });
    if (!spec) return refuse("bad test: " + spec.error().message);
    TestSpec s = *spec;
    std::vector<std::string> caps = apply_caps(s, &lim.caps, dev.limits());
    auto ep = dev.create_endpoint(endpoint_config(s, o));
    if (!ep) return refuse(ep.error().message);
    TestEndpoint& me = **ep;
    if (auto sent = ch.send({{"type", "endpoint"},
                             {"info", info_to_json(me.info())},
                             {"host", host_name()},
                             {"applied", spec_to_json(s)},
                             {"caps", caps}},
                            d.next());
        !sent)
        return sent.error().message;
    auto theirs = ch.receive(d.next());
    if (!theirs) return theirs.error().message;
    auto remote = json_io::guarded([&]() -> Result<EndpointInfo> {
        if (message_type(*theirs) != "endpoint") return make_error("expected an endpoint");
        return info_from_json(json_io::get_object(*theirs, "info"));
    });
    if (!remote) return refuse("bad endpoint: " + remote.error().message);
    if (auto c = me.connect(*remote); !c) return refuse(c.error().message);
    bool bw = s.measure == Measure::Bandwidth;
    if (s.op == Op::Send && !me.post_receives(bw ? s.tx_depth : 1, s.size))
        return refuse("posting receives failed");
    if (d.passed()) return refuse("the handshake ran past its deadline");
    CounterMap before = dev.read_counters();
    if (auto sent = ch.send({{"type", "ready"}}, d.next()); !sent) return sent.error().message;
    log(fmt::format("perf serve: {} {} from {}{}", s.name(), format_size(s.size), ch.peer(),
                    caps.empty() ? "" : fmt::format(" ({})", fmt::join(caps, "; "))));

    // Our part, until the client says done (or goes away, or time runs out).
    const Millis run_limit = std::min(run_deadline(s), lim.caps.max_duration * 2 + lim.run_slack);
    const auto run_end = SteadyClock::now() + run_limit;
    Deadline end{run_end + lim.step_timeout, lim.step_timeout};  // the whole session
    BandwidthOutcome mine;
    std::string error = our_part(me, s, ch, o, run_end, mine);
    CounterMap after = dev.read_counters();
    auto msg = ch.receive(end.next());
    if (!msg) return error.empty() ? msg.error().message : error;
    json result{{"type", "result"},
                {"error", error},
                {"counters", counters_json(counter_deltas(before, after))},
                {"device", dev.name()},
                {"port", dev.port()},
                {"received_bytes", mine.received_bytes}};
    if (s.bidirectional) {
        result["bandwidth"] = {{"avg_gbps", mine.meter.average_gbps()},
                               {"peak_gbps", mine.meter.peak_gbps()},
                               {"min_window_gbps", mine.meter.min_window_gbps()},
                               {"messages", mine.messages}};
    }
    (void)ch.send(result, end.next());
    return error;
}

}  // namespace

EndpointConfig endpoint_config(const TestSpec& s, const PeerOptions& o) {
    EndpointConfig c;
    c.buffer_size = s.size;
    bool bw = s.measure == Measure::Bandwidth;
    c.send_depth = bw ? s.tx_depth : 16;
    c.recv_depth = s.op == Op::Send ? (bw ? s.tx_depth : 16) : 0;
    c.max_inline = s.inline_max ? s.inline_max : 236;
    c.gid_index = o.gid_index;
    c.traffic_class = o.traffic_class;
    c.mtu_cap = o.mtu_cap;
    return c;
}

json counters_json(const CounterMap& m) {
    json j = json::object();
    for (const auto& [k, v] : nonzero(m)) j[k] = v;
    return j;
}

Millis run_deadline(const TestSpec& s) {
    if (s.measure == Measure::Latency || s.iterations) return Millis(120000);
    return s.duration * 2 + s.warmup_time + Millis(30000);
}

void serve_session(const VerbsDevice& dev, Channel& ch, const PeerOptions& peer,
                   const SessionLimits& limits, const nlohmann::json& hello, const Log& log) {
    std::string why;
    try {
        why = serve_steps(dev, ch, peer, limits, hello, log);
    } catch (const std::exception& e) {
        why = fmt::format("internal error: {}", e.what());
    }
    if (!why.empty()) log(fmt::format("perf serve: session from {} ended: {}", ch.peer(), why));
}

}  // namespace fabscope::perf
