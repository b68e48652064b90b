#pragma once
// One test between two hosts, end to end: the rendezvous over TCP, the QPs,
// the measured run, and both sides' counters. The client drives; the server
// answers one session after another. Every step has a deadline.
//
//   client                       server
//   hello {spec}            ->
//                           <-   endpoint {qpn, gid, rkey, ...}   (or error)
//   endpoint {...}          ->
//                           <-   ready
//   ... the test runs over the QPs ...
//   done {ok}               ->
//                           <-   result {counters, received}

#include <optional>
#include <string>

#include "perf/test_spec.h"
#include "perf/verbs.h"

namespace fabscope::perf {

struct PeerOptions {
    std::optional<int> gid_index;
    uint8_t traffic_class = 0;
    int mtu_cap = 0;  ///< bytes; 0: the port's active MTU
    Millis connect_timeout{10000};
    Millis step_timeout{15000};  ///< each handshake message
};

/// Runs `spec` against the server at `where` ("host[:port]"). Never throws and
/// never hangs: a server that cannot be reached or dies gives a result with
/// ok = false and the reason; `reachable` tells the two apart.
TestResult run_client(const Device& dev, const std::string& where, const TestSpec& spec,
                      const PeerOptions& opts, bool* reachable = nullptr);

struct ServeOptions {
    std::string listen_addr;
    uint16_t port = 18515;
    PeerOptions peer;
    bool once = false;       ///< exit after one session
    Millis idle_timeout{0};  ///< exit when no client comes for this long (0: never)
};

/// This host's name, as servers report it and reports record it.
std::string hostname();

/// Serves sessions until interrupted (or after one with `once`). Returns an exit code.
int serve(const Device& dev, const ServeOptions& opts, bool quiet);

}  // namespace fabscope::perf
