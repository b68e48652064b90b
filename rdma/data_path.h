#pragma once
// The measured part of a test, on a connected Endpoint: bandwidth (many
// work requests in flight, completions moderated) and latency (one message
// at a time, ping-pong). Every loop checks `keep_going` regularly, so a peer
// that is gone or a deadline that passed ends it with an error.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "rdma/endpoint.h"
#include "rdma/stats.h"
#include "rdma/test_spec.h"
#include "rdma/verbs_device.h"

namespace fabscope::perf {

/// The active side of a bandwidth test: WRITE or READ to/from the peer's
/// buffer, or SEND (receives the caller posted are reposted as they complete,
/// for bidirectional SEND). Runs `spec.iterations` messages or `spec.duration`
/// after the warm-up.
BandwidthOutcome run_bandwidth(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going);

/// The passive side of a SEND bandwidth test: reposts the receives the
/// caller posted as they complete, and counts what arrives until
/// `keep_going` says stop.
BandwidthOutcome receive_sends(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going);
/// Posts `n` receives of `size` bytes (before the peer starts sending).
bool post_receives(Endpoint& ep, uint32_t n, uint32_t size);

/// The initiating side: WRITE or SEND ping-pong, or READs.
LatencyOutcome run_latency(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going);
/// The answering side of WRITE and SEND ping-pong (READ needs none).
std::string answer_latency(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going);

/// A ring all-reduce's steps (RingSteps): WRITE with immediate on `to_next`,
/// the previous rank's immediates received on `from_prev` (whose receives
/// the caller posted: post_ring_receives), one step at a time.
RingOutcome run_ring(Endpoint& to_next, Endpoint& from_prev, const RingSteps& steps,
                     const KeepGoing& keep_going);

/// Inline for messages up to this size.
uint32_t inline_limit(const Endpoint& ep, const TestSpec& spec);

}  // namespace fabscope::perf
