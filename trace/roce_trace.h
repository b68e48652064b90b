#pragma once
// ECMP-aware RoCEv2 path tracing. Probes are UDP datagrams to port 4791
// with a chosen source port and a growing TTL, so every router hashes them
// as it hashes the RoCE flow with that port and sends them down the flow's
// own path; the routers' ICMP time-exceeded answers name the hops. Several
// source ports show every spine a pair can use. The logic here is pure:
// probes go out and answers come back through a ProbeTransport
// (trace/udp_probe.h is the socket one), time through a Clock.
//
// The destination's RoCE stack takes datagrams to 4791 itself and answers
// nothing, so a trace normally ends with one silent TTL after the last
// router: "end": "silent". A router that does not answer ends it early too
// (the hops found so far are kept).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/clock.h"
#include "util/duration.h"
#include "util/result.h"

namespace fabscope::perf {

inline constexpr uint16_t kRoceV2Port = 4791;
inline constexpr int kMaxTraceHops = 32;
inline constexpr int kMaxTraceFlows = 256;

/// What came back for a probe.
struct ProbeAnswer {
    enum class Kind { TimeExceeded, Unreachable, LocalError };
    uint16_t sport = 0;  ///< the flow whose socket got it
    /// The probe it answers when the router quoted enough of it (0: it did not).
    uint32_t tag = 0;
    Kind kind = Kind::TimeExceeded;
    std::string from;  ///< the answering address ("" for a local error)
    int icmp_type = 0;
    int icmp_code = 0;
    std::string error;  ///< a local error's text
};

/// Sends probes and hands back what the network answers.
class ProbeTransport {
  public:
    virtual ~ProbeTransport() = default;
    /// One probe from source port `sport` with IP TTL `ttl`, carrying `tag`.
    virtual Status send(uint16_t sport, int ttl, uint32_t tag) = 0;
    /// The next answer on any flow, or nothing by `until`.
    virtual std::optional<ProbeAnswer> receive(Clock::time_point until) = 0;
};

struct TraceOptions {
    int max_hops = 8;       ///< at most kMaxTraceHops
    Millis timeout{1000};   ///< for each probe's answer
    size_t in_flight = 16;  ///< flows probed at once (one probe each)
};

struct TraceHop {
    int ttl = 0;
    std::string address;
    std::string name;  ///< from the names file; "" when unknown
    double rtt_ms = 0;
};

struct FlowTrace {
    uint16_t sport = 0;
    std::vector<TraceHop> hops;  ///< the routers, nearest first
    /// silent (nothing at the next TTL: normally the destination), destination
    /// (it answered), unreachable (a router said so), max_hops, error.
    std::string end;
    std::string error;  ///< for unreachable and error
};

/// Address -> name, from an /etc/hosts-style file ("ADDR NAME [ALIAS...]",
/// '#' comments): the first name of an address wins.
using HostNames = std::map<std::string, std::string>;
Result<HostNames> parse_host_names(const std::string& text, const std::string& source);
/// The names in `path` (at most 16 MiB); none when `path` is empty.
Result<HostNames> load_host_names(const std::string& path);

/// Traces every port in `sports` towards `destination` (an IPv4 address).
/// Never hangs: each probe has options.timeout, each flow at most max_hops probes.
std::vector<FlowTrace> trace_flows(ProbeTransport& transport, const Clock& clock,
                                   const std::vector<uint16_t>& sports,
                                   const std::string& destination, const TraceOptions& options,
                                   const HostNames& names);

/// A hop as people read it: "s2 (10.9.12.1)", or the address alone.
std::string hop_label(const TraceHop& h);

/// The distinct hop sequences seen, each with the ports that took it.
struct DistinctPath {
    std::vector<std::string> hops;  ///< hop labels
    std::vector<uint16_t> sports;
};
std::vector<DistinctPath> distinct_paths(const std::vector<FlowTrace>& flows);

nlohmann::json flow_trace_to_json(const FlowTrace& f);
/// Throws nlohmann errors on a bad document.
FlowTrace flow_trace_from_json(const nlohmann::json& j);

/// The document `fabscope perf trace --json` writes (docs/perf-trace.schema.json).
struct TraceReport {
    std::string source;  ///< the local address ("" if the kernel chose)
    std::string destination;
    std::string ports;  ///< how the ports were chosen: "given", "spread", "rxe"
    std::vector<FlowTrace> flows;
};
nlohmann::json trace_report_to_json(const TraceReport& r);

}  // namespace fabscope::perf
