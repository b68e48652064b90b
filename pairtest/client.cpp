// The client side of a session (pairtest/session.h): it drives the test and
// trusts nothing the server sends.

#include <fmt/format.h>

#include <chrono>
#include <exception>

#include "congestion/flow_congestion.h"
#include "model/json_io.h"
#include "net/auth.h"
#include "net/message.h"
#include "pairtest/session.h"
#include "util/exit_status.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using SteadyClock = std::chrono::steady_clock;
using nlohmann::json;

double number_or_zero(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

/// Welcome, hello (authenticated when the server asks), and the server's
/// endpoint message: its answer to the test asked for.
Result<json> ask(Channel& ch, const std::string& where, const PeerOptions& o, const TestResult& r) {
    auto welcome = ch.receive(o.step_timeout);
    if (!welcome) return welcome.error();
    if (message_type(*welcome) == "error") {
        return make_error(fmt::format("the server at {} refused: {}", where,
                                      message_text(*welcome, "message", "no reason given")));
    }
    if (message_type(*welcome) != "welcome" || message_int(*welcome, "protocol") != kProtocol) {
        return make_error(fmt::format(
            "the server at {} does not speak fabscope perf protocol {}: is it the same version?",
            where, kProtocol));
    }
    json hello{{"type", "hello"}, {"protocol", kProtocol}, {"spec", spec_to_json(r.spec)}};
    if (message_bool(*welcome, "auth")) {
        if (o.secret.empty()) {
            return make_error(
                fmt::format("the server at {} needs a shared secret: give it with "
                            "--secret-file",
                            where));
        }
        hello["auth"] = auth_response(o.secret, message_text(*welcome, "nonce"));
    }
    if (auto s = ch.send(hello, o.step_timeout); !s) return s.error();
    // Behind other clients the answer comes when it is our turn.
    bool queued = message_int(*welcome, "waiting") > 0;
    auto theirs = ch.receive(queued ? o.queue_timeout : o.step_timeout);
    if (!theirs) return theirs.error();
    if (message_type(*theirs) == "error") {
        return make_error(fmt::format("the server at {} could not run {}: {}", where, r.spec.name(),
                                      message_text(*theirs, "message", "no reason given")));
    }
    return std::move(*theirs);
}

/// The server's endpoint, and the test as it will run: lowered by the
/// server's caps (never changed) and by this device's limits.
Result<EndpointInfo> take_answer(const json& theirs, const std::string& where,
                                 const VerbsDevice& dev, TestResult& r) {
    auto remote = json_io::guarded([&]() -> Result<EndpointInfo> {
        if (message_type(theirs) != "endpoint") return make_error("not an endpoint");
        return info_from_json(json_io::get_object(theirs, "info"));
    });
    if (!remote) {
        return make_error(
            fmt::format("the server at {} sent a bad endpoint: {}", where, remote.error().message));
    }
    if (theirs.contains("applied")) {
        auto applied = json_io::guarded(
            [&]() -> Result<TestSpec> { return spec_from_json(theirs["applied"]); });
        if (!applied) {
            return make_error(fmt::format("the server at {} sent a bad applied test: {}", where,
                                          applied.error().message));
        }
        // The server may only lower what was asked, never change the test.
        if (applied->op != r.spec.op || applied->measure != r.spec.measure ||
            applied->bidirectional != r.spec.bidirectional || applied->size > r.spec.size) {
            return make_error(fmt::format("the server at {} answered a different test", where));
        }
        r.spec = *applied;
    }
    for (std::string& c : message_strings(theirs, "caps")) r.caps.push_back("server: " + c);
    for (std::string& c : apply_caps(r.spec, nullptr, dev.limits())) r.caps.push_back("here: " + c);
    if (std::string host = message_text(theirs, "host"); host != "(none)") r.peer_host = host;
    return remote;
}

/// The measured run, ended by `keep_going`.
void measure(TestEndpoint& me, TestResult& r, const KeepGoing& keep_going) {
    const TestSpec& spec = r.spec;
    auto t0 = SteadyClock::now();
    if (spec.measure == Measure::Bandwidth) {
        BandwidthOutcome b = me.run_bandwidth(spec, keep_going);
        r.error = b.error;
        r.bytes = b.meter.bytes();
        r.iterations = b.messages;
        r.seconds = b.meter.seconds();
        r.avg_gbps = b.meter.average_gbps();
        r.peak_gbps = b.meter.peak_gbps();
        r.min_window_gbps = b.meter.min_window_gbps();
        r.msg_rate_mpps = r.seconds > 0 ? static_cast<double>(b.messages) / r.seconds / 1e6 : 0;
    } else {
        LatencyOutcome l = me.run_latency(spec, keep_going);
        r.error = l.error;
        r.iterations = l.samples_us.size();
        r.bytes = r.iterations * spec.size;
        r.seconds = std::chrono::duration<double>(SteadyClock::now() - t0).count();
        r.latency = latency_stats(l.samples_us);
    }
}

/// Tells the server the test is done and takes its side: its counters, its
/// error, its direction of a bidirectional test; the congestion detectors
/// over both sides' counters. A test that already failed still tries.
Status finish_with_server(Channel& ch, const std::string& where, const PeerOptions& o,
                          const VerbsDevice& dev, double counted_s, TestResult& r) {
    auto failed = [&](const std::string& why) {
        return make_error(r.error.empty() ? why : r.error);
    };
    if (auto s = ch.send({{"type", "done"}, {"ok", r.error.empty()}}, o.step_timeout); !s)
        return failed(s.error().message);
    auto result = ch.receive(o.step_timeout);
    if (!result) return failed(result.error().message);
    if (message_type(*result) != "result")
        return failed(fmt::format("the server at {} sent no result", where));
    const json& counters = (*result)["counters"];
    r.counters["remote"] = counters.is_object() ? counters : json::object();
    const std::string remote_host = r.peer_host.empty() ? where : r.peer_host;
    // The server's own words: a short name, its port if it said.
    std::string remote_device = message_text(*result, "device", "device").substr(0, 64);
    if (const json& p = (*result)["port"]; p.is_number_unsigned() && p.get<unsigned>() < 256)
        remote_device += fmt::format("/{}", p.get<unsigned>());
    r.congestion = test_congestion(
        r.counters,
        {host_name(), fmt::format("{}/{}", dev.name(), dev.port()), remote_host, remote_device},
        counted_s, o.congestion);
    std::string theirs_error = message_text(*result, "error");
    if (r.error.empty() && !theirs_error.empty()) r.error = "server side: " + theirs_error;
    if (r.spec.bidirectional && (*result)["bandwidth"].is_object()) {
        // Both directions at once: the total is what each side moved.
        const json& b = (*result)["bandwidth"];
        r.avg_gbps += number_or_zero(b, "avg_gbps");
        r.peak_gbps += number_or_zero(b, "peak_gbps");
        r.min_window_gbps += number_or_zero(b, "min_window_gbps");
    }
    return Ok{};
}

void run_steps(const VerbsDevice& dev, const std::string& where, const PeerOptions& o,
               TestResult& r, bool* reachable) {
    auto fail = [&](const std::string& why) {
        r.ok = false;
        r.error = why;
    };
    auto ch = Channel::connect(where, o.connect_timeout);
    if (!ch) return fail(ch.error().message);
    ch->set_stop(o.stop);
    if (reachable) *reachable = true;
    auto theirs = ask(*ch, where, o, r);
    if (!theirs) return fail(theirs.error().message);
    auto remote = take_answer(*theirs, where, dev, r);
    if (!remote) return fail(remote.error().message);
    const TestSpec& spec = r.spec;
    auto ep = dev.create_endpoint(endpoint_config(spec, o));
    if (!ep) return fail(ep.error().message);
    TestEndpoint& me = **ep;
    if (auto c = me.connect(*remote); !c) return fail(c.error().message);
    if (spec.op == Op::Send && spec.bidirectional && !me.post_receives(spec.tx_depth, spec.size))
        return fail("posting receives failed");
    if (auto s =
            ch->send({{"type", "endpoint"}, {"info", info_to_json(me.info())}}, o.step_timeout);
        !s)
        return fail(s.error().message);
    auto ready = ch->receive(o.step_timeout);
    if (!ready) return fail(ready.error().message);
    if (message_type(*ready) != "ready") {
        return fail(fmt::format("the server at {} is not ready: {}", where,
                                message_text(*ready, "message", "an unexpected message")));
    }

    CounterMap before = dev.read_counters();
    const auto counters_from = SteadyClock::now();
    const Millis limit = run_deadline(spec);
    auto deadline = SteadyClock::now() + limit;
    measure(me, r, [&]() -> std::string {
        if (o.stop && o.stop->stop_requested()) return "interrupted";
        if (ch->peek() == Channel::Peek::Closed) {
            return fmt::format(
                "the server at {} closed the connection during the test: it stopped or crashed",
                where);
        }
        if (SteadyClock::now() > deadline)
            return fmt::format("no result within {}", format_duration(limit));
        return "";
    });
    const CounterMap after = dev.read_counters();
    const double counted_s =
        std::chrono::duration<double>(SteadyClock::now() - counters_from).count();
    r.counters["local"] = counters_json(counter_deltas(before, after));
    if (auto f = finish_with_server(*ch, where, o, dev, counted_s, r); !f)
        return fail(f.error().message);
    r.ok = r.error.empty();
    if (o.trace_flow && !(o.stop && o.stop->stop_requested()))
        r.path = o.trace_flow(me.info(), *remote);
}

}  // namespace

TestResult run_client(const VerbsDevice& dev, const std::string& where, const TestSpec& spec,
                      const PeerOptions& o, bool* reachable) {
    TestResult r;
    r.spec = spec;
    r.peer = where;
    if (reachable) *reachable = false;
    try {
        run_steps(dev, where, o, r, reachable);
    } catch (const std::exception& e) {
        // Nothing the server sends may end the run: this peer's test fails, the others go on.
        r.ok = false;
        r.error = fmt::format("the exchange with the server at {} failed: {}", where, e.what());
    }
    return r;
}

}  // namespace fabscope::perf
