#include "perf/session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "congestion/sysfs_counters.h"
#include "model/json_io.h"
#include "perf/channel.h"
#include "perf/data_path.h"
#include "perf/endpoint.h"
#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kProtocol = 1;

EndpointConfig config_for(const TestSpec& s, const PeerOptions& o) {
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

/// How long the measured part may take before it counts as hung.
Millis run_deadline(const TestSpec& s) {
    if (s.measure == Measure::Latency || s.iterations) return Millis(120000);
    return s.duration * 2 + Millis(30000);
}

json counters_json(const CounterMap& m) {
    json j = json::object();
    for (const auto& [k, v] : nonzero(m)) j[k] = v;
    return j;
}

}  // namespace

std::string hostname() {
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

namespace {

// Answers one session on an accepted channel.
void serve_session(const Device& dev, Channel& ch, const ServeOptions& o, bool quiet) {
    auto fail = [&](const std::string& why) {
        (void)ch.send({{"type", "error"}, {"message", why}}, o.peer.step_timeout);
    };
    auto hello = ch.receive(o.peer.step_timeout);
    if (!hello) return;
    if (hello->value("type", "") != "hello" || hello->value("protocol", 0) != kProtocol) {
        return fail(fmt::format("expected a fabscope perf hello (protocol {})", kProtocol));
    }
    auto spec = json_io::guarded(
        [&]() -> Result<TestSpec> { return spec_from_json(json_io::get(*hello, "spec")); });
    if (!spec) return fail("bad test: " + spec.error().message);
    auto ep = Endpoint::create(dev, config_for(*spec, o.peer));
    if (!ep) return fail(ep.error().message);
    if (!ch.send({{"type", "endpoint"}, {"info", info_to_json(ep->info())}, {"host", hostname()}},
                 o.peer.step_timeout))
        return;
    auto theirs = ch.receive(o.peer.step_timeout);
    if (!theirs) return;
    auto remote = json_io::guarded(
        [&]() -> Result<EndpointInfo> { return info_from_json(json_io::get(*theirs, "info")); });
    if (!remote) return fail("bad endpoint: " + remote.error().message);
    if (auto c = ep->connect(*remote); !c) return fail(c.error().message);
    const TestSpec& s = *spec;
    bool bw = s.measure == Measure::Bandwidth;
    if (s.op == Op::Send) post_receives(*ep, bw ? s.tx_depth : 1, s.size);
    CounterMap before = read_sysfs_counters(dev.name(), dev.port());
    if (!ch.send({{"type", "ready"}}, o.peer.step_timeout)) return;
    if (!quiet)
        std::fprintf(stderr, "perf serve: %s from %s\n", s.name().c_str(), ch.peer().c_str());

    // Our part, until the client says done (or goes away, or time runs out).
    auto deadline = Clock::now() + run_deadline(s);
    bool done = false;
    auto keep_going = [&]() -> std::string {
        Channel::Peek p = ch.peek();
        if (p == Channel::Peek::Message) {
            done = true;
            return "done";
        }
        if (p == Channel::Peek::Closed) return "the client closed the connection";
        if (Clock::now() > deadline) return "the test ran past its deadline";
        return "";
    };
    std::string error;
    BandwidthOutcome mine;
    if (bw && s.bidirectional) {
        mine = run_bandwidth(*ep, s, keep_going);
        error = mine.error;
    } else if (bw && s.op == Op::Send) {
        mine = receive_sends(*ep, s, keep_going);
        error = mine.error;
    } else if (!bw) {
        error = answer_latency(*ep, s, keep_going);
    }
    // Wait for the client's done (the measured part on our side may end first),
    // asleep: a spinning server would take CPU from the test it serves.
    while (!done && error.empty()) {
        auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
        Channel::Peek p = ch.wait(std::max(Millis(1), std::min(left, Millis(1000))));
        if (p == Channel::Peek::Message)
            done = true;
        else if (p == Channel::Peek::Closed)
            error = "the client closed the connection";
        else if (Clock::now() > deadline)
            error = "the test ran past its deadline";
    }
    if (error == "done") error.clear();
    CounterMap after = read_sysfs_counters(dev.name(), dev.port());
    auto msg = ch.receive(o.peer.step_timeout);
    if (!msg) return;
    json result{{"type", "result"},
                {"error", error},
                {"counters", counters_json(counter_deltas(before, after))},
                {"device", dev.name()},
                {"received_bytes", mine.received_bytes}};
    if (s.bidirectional) {
        result["bandwidth"] = {{"avg_gbps", mine.meter.average_gbps()},
                               {"peak_gbps", mine.meter.peak_gbps()},
                               {"min_window_gbps", mine.meter.min_window_gbps()},
                               {"messages", mine.messages}};
    }
    (void)ch.send(result, o.peer.step_timeout);
}

}  // namespace

TestResult run_client(const Device& dev, const std::string& where, const TestSpec& spec,
                      const PeerOptions& o, bool* reachable) {
    TestResult r;
    r.spec = spec;
    r.peer = where;
    if (reachable) *reachable = false;
    auto fail = [&](const std::string& why) {
        r.ok = false;
        r.error = why;
        return r;
    };
    auto ch = Channel::connect(where, o.connect_timeout);
    if (!ch) return fail(ch.error().message);
    if (reachable) *reachable = true;
    if (auto s =
            ch->send({{"type", "hello"}, {"protocol", kProtocol}, {"spec", spec_to_json(spec)}},
                     o.step_timeout);
        !s) {
        return fail(s.error().message);
    }
    auto theirs = ch->receive(o.step_timeout);
    if (!theirs) return fail(theirs.error().message);
    if (theirs->value("type", "") == "error") {
        return fail(fmt::format("the server at {} could not run {}: {}", where, spec.name(),
                                theirs->value("message", "")));
    }
    auto remote = json_io::guarded(
        [&]() -> Result<EndpointInfo> { return info_from_json(json_io::get(*theirs, "info")); });
    if (!remote)
        return fail(
            fmt::format("the server at {} sent a bad endpoint: {}", where, remote.error().message));
    if (std::string host = theirs->value("host", ""); host != "(none)") r.peer_host = host;
    auto ep = Endpoint::create(dev, config_for(spec, o));
    if (!ep) return fail(ep.error().message);
    if (auto c = ep->connect(*remote); !c) return fail(c.error().message);
    if (spec.op == Op::Send && spec.bidirectional) post_receives(*ep, spec.tx_depth, spec.size);
    if (auto s =
            ch->send({{"type", "endpoint"}, {"info", info_to_json(ep->info())}}, o.step_timeout);
        !s) {
        return fail(s.error().message);
    }
    auto ready = ch->receive(o.step_timeout);
    if (!ready) return fail(ready.error().message);
    if (ready->value("type", "") != "ready") {
        return fail(fmt::format("the server at {} is not ready: {}", where,
                                ready->value("message", ready->dump())));
    }

    CounterMap before = read_sysfs_counters(dev.name(), dev.port());
    auto deadline = Clock::now() + run_deadline(spec);
    auto keep_going = [&]() -> std::string {
        if (ch->peek() == Channel::Peek::Closed) {
            return fmt::format(
                "the server at {} closed the connection during the test: it stopped or crashed",
                where);
        }
        if (Clock::now() > deadline)
            return fmt::format("no result within {}", format_duration(run_deadline(spec)));
        return "";
    };
    auto t0 = Clock::now();
    if (spec.measure == Measure::Bandwidth) {
        BandwidthOutcome b = run_bandwidth(*ep, spec, keep_going);
        r.error = b.error;
        r.bytes = b.meter.bytes();
        r.iterations = b.messages;
        r.seconds = b.meter.seconds();
        r.avg_gbps = b.meter.average_gbps();
        r.peak_gbps = b.meter.peak_gbps();
        r.min_window_gbps = b.meter.min_window_gbps();
        r.msg_rate_mpps = r.seconds > 0 ? static_cast<double>(b.messages) / r.seconds / 1e6 : 0;
    } else {
        LatencyOutcome l = run_latency(*ep, spec, keep_going);
        r.error = l.error;
        r.iterations = l.samples_us.size();
        r.bytes = r.iterations * spec.size;
        r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        r.latency = latency_stats(l.samples_us);
    }
    CounterMap after = read_sysfs_counters(dev.name(), dev.port());
    r.counters["local"] = counters_json(counter_deltas(before, after));
    // Tell the server, collect its side; a test that already failed still tries.
    if (auto s = ch->send({{"type", "done"}, {"ok", r.error.empty()}}, o.step_timeout); !s) {
        return fail(r.error.empty() ? s.error().message : r.error);
    }
    auto result = ch->receive(o.step_timeout);
    if (!result) return fail(r.error.empty() ? result.error().message : r.error);
    r.counters["remote"] = result->value("counters", json::object());
    std::string theirs_error = result->value("error", "");
    if (r.error.empty() && !theirs_error.empty()) r.error = "server side: " + theirs_error;
    if (spec.bidirectional && result->contains("bandwidth")) {
        // Both directions at once: the total is what each side moved.
        const json& b = (*result)["bandwidth"];
        r.avg_gbps += b.value("avg_gbps", 0.0);
        r.peak_gbps += b.value("peak_gbps", 0.0);
        r.min_window_gbps += b.value("min_window_gbps", 0.0);
    }
    r.ok = r.error.empty();
    return r;
}

int serve(const Device& dev, const ServeOptions& o, bool quiet) {
    auto fd = Channel::listen(o.listen_addr, o.port);
    if (!fd) {
        std::fprintf(stderr, "fabscope: %s\n", fd.error().message.c_str());
        return fd.error().code;
    }
    if (!quiet) {
        std::fprintf(stderr, "perf serve: %s port %d, listening on %s:%u\n", dev.name().c_str(),
                     dev.port(), o.listen_addr.empty() ? "*" : o.listen_addr.c_str(), o.port);
    }
    for (;;) {
        auto ch = Channel::accept(*fd, o.idle_timeout);
        if (!ch) {
            ::close(*fd);
            if (ch.error().code == kExitInterrupted) return kExitInterrupted;
            if (!quiet)
                std::fprintf(stderr, "perf serve: %s; stopping\n", ch.error().message.c_str());
            return kExitClean;
        }
        serve_session(dev, *ch, o, quiet);
        if (o.once) {
            ::close(*fd);
            return kExitClean;
        }
    }
}

}  // namespace fabscope::perf
