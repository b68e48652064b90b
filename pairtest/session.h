#pragma once
// One test between two hosts, end to end: the rendezvous over TCP, the QPs,
// the measured run, and both sides' counters. The client drives; the server
// answers one session after another (pairtest/server.h). Every step has a
// deadline, and the server's whole session has one too.
//
//   client                       server
//                           <-   welcome {protocol, nonce?, waiting}  (or error: refused)
//   hello {spec, auth?}     ->
//                           <-   endpoint {info, applied spec, caps}  (or error)
//   endpoint {...}          ->
//                           <-   ready
//   ... the test runs over the QPs ...
//   done {ok}               ->
//                           <-   result {counters, received}
//
// auth is HMAC-SHA256(secret, nonce) when the server has a --secret-file.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "model/thresholds.h"
#include "net/channel.h"
#include "pairtest/results/result.h"
#include "rdma/caps.h"
#include "rdma/open_device.h"
#include "rdma/verbs_device.h"
#include "util/interrupt.h"

namespace fabscope::perf {

/// Version 2: the server speaks first (welcome, with the challenge), and
/// tells the client which caps it applied.
inline constexpr int kProtocol = 2;

struct PeerOptions {
    std::optional<int> gid_index;
    uint8_t traffic_class = 0;
    int mtu_cap = 0;  ///< bytes; 0: the port's active MTU
    Millis connect_timeout{10000};
    Millis step_timeout{15000};       ///< each handshake message
    Millis queue_timeout{600000};     ///< client: waiting behind other clients at most this long
    std::string secret;               ///< the shared secret ("" = none)
    const StopToken* stop = nullptr;  ///< client: Ctrl-C ends waits and the test early
    /// Client: the traced path of the test's flow, once the test is over
    /// (TestResult::path; null: none). Unset: nothing is traced.
    std::function<nlohmann::json(const EndpointInfo& local, const EndpointInfo& remote)> trace_flow;
    /// Client: the congestion detectors' limits for TestResult::congestion.
    RoceLimits congestion;
};

/// Runs `spec` against the server at `where` ("host[:port]"). Never throws and
/// never hangs: a server that cannot be reached, refuses, dies or answers
/// nonsense gives a result with ok = false and the reason; `reachable` tells
/// the first apart.
TestResult run_client(const VerbsDevice& dev, const std::string& where, const TestSpec& spec,
                      const PeerOptions& opts, bool* reachable = nullptr);

struct SessionLimits;
using Log = std::function<void(std::string_view)>;

/// Serves a session whose hello asked for something other than a pair test
/// (the welcome sent, the hello read and authenticated); returns why it
/// ended early ("" when it ran to the end).
using HelloHandler = std::function<std::string(const VerbsDevice& dev, Channel& ch,
                                               const PeerOptions& peer, const SessionLimits& lim,
                                               const nlohmann::json& hello, const Log& log)>;

/// What the server side of one session needs.
struct SessionLimits {
    ServeCaps caps;
    Millis handshake_timeout{10000};  ///< from being served to "ready"
    Millis step_timeout{15000};
    /// The test may run twice caps.max_duration plus this; then the session ends.
    Millis run_slack{30000};
    /// Hellos that ask for something other than a pair test, by the key
    /// they carry: "mesh" (a coordinator's order, mesh/agent.h). Any other
    /// hello is a pair test's.
    std::map<std::string, HelloHandler> hello_handlers;
};

/// Answers one session on `ch` (the welcome sent, and `hello` read from it
/// and authenticated: pairtest/server.h). Whatever the client sends, this
/// returns: a bad message, a deadline or an exception end this session with
/// a log line, and the server goes on.
void serve_session(const VerbsDevice& dev, Channel& ch, const PeerOptions& peer,
                   const SessionLimits& limits, const nlohmann::json& hello, const Log& log);

/// What this side asks of its device for `s`.
EndpointConfig endpoint_config(const TestSpec& s, const PeerOptions& o);
/// The counters that moved, as a JSON object.
nlohmann::json counters_json(const CounterMap& m);

/// How long the measured part may take before it counts as hung.
Millis run_deadline(const TestSpec& s);

}  // namespace fabscope::perf
