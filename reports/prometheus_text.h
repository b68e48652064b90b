#pragma once
// The fabric as Prometheus metrics, in the text exposition format (0.0.4):
// what `sweep --prom` and `validate --prom` write for node_exporter's
// textfile collector and what `fabscope exporter` serves on /metrics.
// A pure function of the model: every name in the fabscope_ namespace, one
// family per name with its HELP and TYPE, counters ending in _total, units
// in the names (_bytes, _seconds, _bytes_per_second), every port labelled
// with its node, GUID, port number and peer. Label values (node names come
// off the wire) are escaped.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/counter_readings.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "util/result.h"

namespace fabscope {

/// The exporter's own bookkeeping, across its sweeps.
struct ExporterCounts {
    uint64_t sweeps = 0;    ///< sweeps ended, good or failed
    uint64_t failures = 0;  ///< sweeps that failed (the last good one is still served)
    bool last_ok = false;   ///< the latest sweep succeeded
};

/// Which per-port families are written, in groups: a 4,096-host fabric has
/// about 16,000 ports, so each per-port family is 16,000 series.
enum class PortMetrics : uint8_t {
    Link = 1,     ///< state, link up, width, data and signalling rate (what the rules use)
    Errors = 2,   ///< every error, discard and wait counter (the details where read)
    Traffic = 4,  ///< bytes sent and received
    Packets = 8,  ///< packets sent and received, unicast and multicast: rates the bytes already say
    LaneRate = 16,  ///< one lane's rate: the link's rate over its width
};
/// link,errors,traffic: what alerting and a fabric dashboard use, 20 series a port.
inline constexpr uint8_t kDefaultPortMetrics = 1 | 2 | 4;
inline constexpr uint8_t kAllPortMetrics = 31;

/// "link,errors,traffic", "all", "default", "default,packets": the groups
/// named; an unknown name is an error naming it and the known ones.
Result<uint8_t> parse_port_metrics(std::string_view list);
/// The groups in a set, as parse_port_metrics reads them ("link,errors,traffic").
std::string port_metrics_names(uint8_t set);

struct PromInput {
    /// The fabric of the last complete sweep; nullptr before the first.
    const Fabric* fabric = nullptr;
    const std::vector<Finding>* findings = nullptr;
    /// Counters to export instead of those the fabric holds (validate's
    /// second reading); nullptr = the fabric's.
    const CounterReadings* counters = nullptr;
    bool complete = true;  ///< the sweep read everything (not interrupted)
    bool sm_read = false;  ///< the sweep read SMInfo (SnapshotSource::sm_read): SM metrics
    double sweep_duration_s = 0;
    double sweep_finished_unix_s = 0;  ///< when the last good sweep ended
    std::optional<ExporterCounts> exporter;
    std::string version;                         ///< fabscope's, for fabscope_build_info
    uint8_t port_metrics = kDefaultPortMetrics;  ///< PortMetrics bits
};

/// The metrics in the text exposition format, ending in a newline.
std::string render_prometheus(const PromInput& in);

/// `s` escaped for a label value: backslash, double quote and line feed.
std::string prom_escape_label(std::string_view s);
/// `s` escaped for a HELP line: backslash and line feed.
std::string prom_escape_help(std::string_view s);
/// The metric a port counter is exported as ("fabscope_port_symbol_errors_total").
std::string_view prom_counter_name(Counter c);

}  // namespace fabscope
