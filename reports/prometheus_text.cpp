#include "reports/prometheus_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "check/ber.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

struct CounterMetric {
    std::string_view name;
    std::string_view help;
    uint64_t scale;  // the PMA's unit in the metric's (4 octets per data unit)
};

// Indexed by Counter; names follow Prometheus' conventions (snake_case, base
// units, _total), helps name the IBA counter that perfquery prints.
constexpr std::array<CounterMetric, kCounterCount> kCounterMetrics{{
    {"fabscope_port_symbol_errors_total",
     "SymbolErrorCounter: minor link errors on any lane (16-bit, stops at 65535).", 1},
    {"fabscope_port_link_error_recoveries_total",
     "LinkErrorRecoveryCounter: link error recovery processes completed (8-bit).", 1},
    {"fabscope_port_link_downed_total",
     "LinkDownedCounter: times the link went down after error recovery failed (8-bit).", 1},
    {"fabscope_port_receive_errors_total",
     "PortRcvErrors: packets received with an error (16-bit).", 1},
    {"fabscope_port_receive_remote_physical_errors_total",
     "PortRcvRemotePhysicalErrors: packets received marked bad upstream (16-bit).", 1},
    {"fabscope_port_receive_switch_relay_errors_total",
     "PortRcvSwitchRelayErrors: packets a switch could not forward (16-bit).", 1},
    {"fabscope_port_transmit_discards_total",
     "PortXmitDiscards: outbound packets discarded (16-bit).", 1},
    {"fabscope_port_transmit_constraint_errors_total",
     "PortXmitConstraintErrors: packets not sent for partition or raw constraints (8-bit).", 1},
    {"fabscope_port_receive_constraint_errors_total",
     "PortRcvConstraintErrors: packets dropped for partition or raw constraints (8-bit).", 1},
    {"fabscope_port_local_link_integrity_errors_total",
     "LocalLinkIntegrityErrors: times local physical errors exceeded the threshold (4-bit).", 1},
    {"fabscope_port_excessive_buffer_overrun_errors_total",
     "ExcessiveBufferOverrunErrors: times consecutive buffer overruns exceeded the threshold "
     "(4-bit).",
     1},
    {"fabscope_port_vl15_dropped_total",
     "VL15Dropped: subnet management packets dropped for lack of buffers (16-bit).", 1},
    {"fabscope_port_transmit_wait_ticks_total",
     "PortXmitWait: ticks the port had data to send but no credits (32-bit).", 1},
    {"fabscope_port_transmit_bytes_total",
     "PortXmitData: data octets transmitted (the PMA counts 4-octet units; 64-bit where "
     "PortCountersExtended is read, else 32-bit).",
     4},
    {"fabscope_port_receive_bytes_total",
     "PortRcvData: data octets received (the PMA counts 4-octet units; 64-bit where "
     "PortCountersExtended is read, else 32-bit).",
     4},
    {"fabscope_port_transmit_packets_total", "PortXmitPkts: packets transmitted.", 1},
    {"fabscope_port_receive_packets_total", "PortRcvPkts: packets received.", 1},
    {"fabscope_port_unicast_transmit_packets_total",
     "PortUnicastXmitPkts: unicast packets transmitted (PortCountersExtended).", 1},
    {"fabscope_port_unicast_receive_packets_total",
     "PortUnicastRcvPkts: unicast packets received (PortCountersExtended).", 1},
    {"fabscope_port_multicast_transmit_packets_total",
     "PortMulticastXmitPkts: multicast packets transmitted (PortCountersExtended).", 1},
    {"fabscope_port_multicast_receive_packets_total",
     "PortMulticastRcvPkts: multicast packets received (PortCountersExtended).", 1},
    {"fabscope_port_receive_local_physical_errors_total",
     "PortLocalPhysicalErrors (PortRcvErrorDetails): packets received corrupted (16-bit).", 1},
    {"fabscope_port_receive_malformed_packet_errors_total",
     "PortMalformedPktErrors (PortRcvErrorDetails): packets with invalid headers (16-bit).", 1},
    {"fabscope_port_receive_buffer_overrun_errors_total",
     "PortBufferOverrunErrors (PortRcvErrorDetails): packets that found no receive buffer "
     "(16-bit).",
     1},
    {"fabscope_port_receive_dlid_mapping_errors_total",
     "PortDLIDMappingErrors (PortRcvErrorDetails): packets to a LID with no route (16-bit).", 1},
    {"fabscope_port_receive_vl_mapping_errors_total",
     "PortVLMappingErrors (PortRcvErrorDetails): packets whose SL maps to no usable VL (16-bit).",
     1},
    {"fabscope_port_receive_looping_errors_total",
     "PortLoopingErrors (PortRcvErrorDetails): packets routed back out of their input port "
     "(16-bit).",
     1},
    {"fabscope_port_transmit_inactive_discards_total",
     "PortInactiveDiscards (PortXmitDiscardDetails): dropped, the port not active (16-bit).", 1},
    {"fabscope_port_transmit_neighbor_mtu_discards_total",
     "PortNeighborMTUDiscards (PortXmitDiscardDetails): larger than the neighbour's MTU "
     "(16-bit).",
     1},
    {"fabscope_port_transmit_lifetime_discards_total",
     "PortSwLifetimeLimitDiscards (PortXmitDiscardDetails): outlived the switch lifetime limit "
     "(16-bit).",
     1},
    {"fabscope_port_transmit_hoq_lifetime_discards_total",
     "PortSwHOQLifetimeLimitDiscards (PortXmitDiscardDetails): dropped at the head of the queue "
     "(16-bit).",
     1},
    {"fabscope_port_sync_header_errors_total",
     "SyncHeaderErrorCounter (PortExtendedSpeedsCounters): blocks received with an invalid sync "
     "header (16-bit).",
     1},
    {"fabscope_port_unknown_block_errors_total",
     "UnknownBlockCounter (PortExtendedSpeedsCounters): blocks received with an unknown block "
     "type (16-bit).",
     1},
    {"fabscope_port_fec_corrected_blocks_total",
     "PortFECCorrectableBlockCtr (PortExtendedSpeedsCounters): blocks the FEC repaired (32-bit; "
     "in the original layout the sum of the lanes').",
     1},
    {"fabscope_port_fec_uncorrectable_blocks_total",
     "PortFECUncorrectableBlockCtr (PortExtendedSpeedsCounters): blocks the FEC could not "
     "repair, data lost (32-bit; in the original layout the sum of the lanes').",
     1},
    {"fabscope_port_fec_corrected_symbols_total",
     "PortFECCorrectedSymbolCtr (PortExtendedSpeedsCounters, RS-FEC): symbols the RS-FEC "
     "repaired (32-bit); rate(this[1h]) / (8 * fabscope_port_link_signal_bytes_per_second) is "
     "the raw (pre-FEC) bit error rate, at least.",
     1},
}};

using Labels = std::vector<std::pair<std::string_view, std::string>>;

/// Families in the order they are declared, each with its samples, so a
/// name's samples are together under one HELP and TYPE whatever order they
/// are added in.
class Exposition {
  public:
    void family(std::string_view name, std::string_view type, std::string_view help) {
        index_.emplace(std::string(name), families_.size());
        families_.push_back(Family{std::string(name), std::string(type), std::string(help), {}});
    }
    void sample(std::string_view name, const Labels& labels, std::string_view value) {
        std::string line(name);
        if (!labels.empty()) {
            line += '{';
            for (size_t i = 0; i < labels.size(); ++i) {
                if (i > 0) line += ',';
                line +=
                    fmt::format("{}=\"{}\"", labels[i].first, prom_escape_label(labels[i].second));
            }
            line += '}';
        }
        line += ' ';
        line += value;
        families_.at(index_.at(std::string(name))).samples.push_back(std::move(line));
    }
    void sample(std::string_view name, const Labels& labels, uint64_t v) {
        sample(name, labels, fmt::format("{}", v));
    }
    void sample(std::string_view name, const Labels& labels, double v) {
        sample(name, labels, format_double(v));
    }
    std::string text() const {
        std::string out;
        for (const Family& f : families_) {
            if (f.samples.empty()) continue;
            out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, prom_escape_help(f.help),
                               f.name, f.type);
            for (const std::string& s : f.samples) {
                out += s;
                out += '\n';
            }
        }
        return out;
    }

  private:
    static std::string format_double(double v) {
        if (v != v) return "NaN";
        if (v > 1e308) return "+Inf";
        if (v < -1e308) return "-Inf";
        return fmt::format("{}", v);
    }
    struct Family {
        std::string name;
        std::string type;
        std::string help;
        std::vector<std::string> samples;
    };
    std::vector<Family> families_;
    std::map<std::string, size_t, std::less<>> index_;
};

Labels port_labels(const Fabric& f, const Node& n, const Port& p) {
    Labels l{{"node", n.description},         {"node_guid", format_guid(n.guid)},
             {"port", std::to_string(p.num)}, {"peer_node", ""},
             {"peer_node_guid", ""},          {"peer_port", ""}};
    if (p.peer) {
        const Node* peer = f.node(p.peer->node);
        l[3].second = peer ? peer->description : std::string();
        l[4].second = format_guid(p.peer->node);
        l[5].second = std::to_string(p.peer->port);
    }
    return l;
}

void declare_families(Exposition& e) {
    e.family("fabscope_build_info", "gauge", "fabscope's version, as a label; always 1.");
    e.family("fabscope_sweeps_total", "counter", "Sweeps the exporter ended, good or failed.");
    e.family("fabscope_sweep_failures_total", "counter",
             "Sweeps that failed; the last good sweep is still served.");
    e.family("fabscope_last_sweep_success", "gauge",
             "1 if the latest sweep succeeded, 0 if it failed or none has ended yet.");
    e.family("fabscope_last_sweep_success_timestamp_seconds", "gauge",
             "Unix time the last good sweep ended.");
    e.family("fabscope_sweep_duration_seconds", "gauge", "How long the last good sweep took.");
    e.family("fabscope_sweep_complete", "gauge",
             "1 if the last good sweep read everything, 0 if it was stopped part way.");
    e.family("fabscope_nodes", "gauge", "Nodes in the fabric, by type.");
    e.family("fabscope_links", "gauge", "Cables: ports that name each other as peers.");
    e.family("fabscope_findings", "gauge",
             "Findings of the last good sweep's checks, by kind and severity.");
    e.family("fabscope_port_state", "gauge",
             "PortInfo PortState: 1 Down, 2 Init, 3 Armed, 4 Active.");
    e.family("fabscope_port_link_up", "gauge", "1 if the port's physical link is up (LinkUp).");
    e.family("fabscope_port_link_width_lanes", "gauge", "Active link width in lanes (4 for 4X).");
    // Prometheus' base unit for data is the byte, also for link rates.
    e.family("fabscope_port_link_lane_speed_bytes_per_second", "gauge",
             "Active data rate of one lane after line encoding, in bytes (6.25e9 for HDR's "
             "50 Gb/s).");
    e.family("fabscope_port_link_speed_bytes_per_second", "gauge",
             "Active data rate of the link, lanes times lane rate, in bytes (25e9 for 4X HDR's "
             "200 Gb/s).");
    e.family("fabscope_port_link_signal_bytes_per_second", "gauge",
             "Signalling rate of the link, lanes times lane rate before encoding, in bytes "
             "(26.5625e9 for 4X HDR's 212.5 Gb/s): what a bit error rate divides by, "
             "rate(fabscope_port_symbol_errors_total[1h]) / (8 * this).");
    for (const CounterMetric& m : kCounterMetrics) e.family(m.name, "counter", m.help);
    e.family("fabscope_sm_masters", "gauge",
             "Subnet managers answering SMInfo as master: anything but 1 is a fault "
             "(present when the sweep read SMInfo).");
    e.family("fabscope_sm_state", "gauge",
             "SMInfo SMState of a port claiming IsSM: 0 not active, 1 discovering, 2 standby, "
             "3 master.");
    e.family("fabscope_sm_priority", "gauge", "SMInfo Priority (0..15).");
    e.family("fabscope_sm_activity_total", "counter",
             "SMInfo ActCount: rises while the SM works (and with each query it answers); a "
             "master's that stands still over minutes has stopped sweeping.");
}

/// The subnet managers, where the sweep read SMInfo.
void add_subnet_managers(Exposition& e, const Fabric& f) {
    uint64_t masters = 0;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            if (!p.sm) continue;
            Labels labels{{"node", n.description},
                          {"node_guid", format_guid(n.guid)},
                          {"port", std::to_string(p.num)}};
            masters += p.sm->state == SmState::Master ? 1 : 0;
            e.sample("fabscope_sm_state", labels, uint64_t{static_cast<uint8_t>(p.sm->state)});
            e.sample("fabscope_sm_priority", labels, uint64_t{p.sm->priority});
            e.sample("fabscope_sm_activity_total", labels, uint64_t{p.sm->act_count});
        }
    }
    e.sample("fabscope_sm_masters", {}, masters);
}

/// The group a counter's family belongs to.
PortMetrics group_of(Counter c) {
    switch (c) {
        case Counter::PortXmitData:
        case Counter::PortRcvData: return PortMetrics::Traffic;
        case Counter::PortXmitPkts:
        case Counter::PortRcvPkts:
        case Counter::PortUnicastXmitPkts:
        case Counter::PortUnicastRcvPkts:
        case Counter::PortMulticastXmitPkts:
        case Counter::PortMulticastRcvPkts: return PortMetrics::Packets;
        default: return PortMetrics::Errors;
    }
}

bool wanted(uint8_t set, PortMetrics g) {
    return (set & static_cast<uint8_t>(g)) != 0;
}

constexpr std::array<std::pair<std::string_view, PortMetrics>, 5> kGroupNames{{
    {"link", PortMetrics::Link},
    {"errors", PortMetrics::Errors},
    {"traffic", PortMetrics::Traffic},
    {"packets", PortMetrics::Packets},
    {"lane", PortMetrics::LaneRate},
}};

void add_counters(Exposition& e, const Labels& labels, const PortCounters& pc, uint8_t set) {
    for (size_t i = 0; i < kCounterMetrics.size(); ++i) {
        auto v = pc.get(static_cast<Counter>(i));
        if (!v || !wanted(set, group_of(static_cast<Counter>(i)))) continue;
        const CounterMetric& m = kCounterMetrics[i];
        if (m.scale == 1 || *v <= UINT64_MAX / m.scale) {
            e.sample(m.name, labels, *v * m.scale);
        } else {
            e.sample(m.name, labels, static_cast<double>(*v) * static_cast<double>(m.scale));
        }
    }
}

void add_fabric(Exposition& e, const PromInput& in) {
    const Fabric& f = *in.fabric;
    e.sample("fabscope_sweep_complete", {}, uint64_t{in.complete ? 1U : 0U});
    std::map<std::string_view, uint64_t> by_type{{"CA", 0}, {"Switch", 0}, {"Router", 0}};
    for (const Node& n : f.nodes()) ++by_type[name(n.type)];
    for (const auto& [type, count] : by_type) {
        e.sample("fabscope_nodes", {{"type", std::string(type)}}, count);
    }
    e.sample("fabscope_links", {}, uint64_t{f.links().size()});
    if (in.sm_read) add_subnet_managers(e, f);
    if (in.findings) {
        std::map<std::pair<std::string, std::string_view>, uint64_t> counts;
        for (const Finding& fd : *in.findings) ++counts[{fd.kind, name(fd.severity)}];
        for (const auto& [key, count] : counts) {
            e.sample("fabscope_findings",
                     {{"kind", key.first}, {"severity", std::string(key.second)}}, count);
        }
    }
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            // A switch's port 0 is its management port: no link, no counters.
            if (n.type == NodeType::Switch && p.num == 0) continue;
            Labels labels = port_labels(f, n, p);
            const uint8_t set = in.port_metrics;
            if (wanted(set, PortMetrics::Link)) {
                e.sample("fabscope_port_state", labels, uint64_t{static_cast<uint8_t>(p.state)});
                e.sample("fabscope_port_link_up", labels, uint64_t{p.link_up() ? 1U : 0U});
            }
            if (p.link_up() && p.width_active && p.speed_active) {
                if (wanted(set, PortMetrics::Link)) {
                    e.sample("fabscope_port_link_width_lanes", labels,
                             uint64_t{static_cast<uint64_t>(lanes(*p.width_active))});
                    e.sample("fabscope_port_link_speed_bytes_per_second", labels,
                             link_data_gbps(*p.width_active, *p.speed_active) * 1e9 / 8);
                    e.sample("fabscope_port_link_signal_bytes_per_second", labels,
                             link_signal_gbps(*p.width_active, *p.speed_active) * 1e9 / 8);
                }
                if (wanted(set, PortMetrics::LaneRate)) {
                    e.sample("fabscope_port_link_lane_speed_bytes_per_second", labels,
                             lane_data_gbps(*p.speed_active) * 1e9 / 8);
                }
            }
            const PortCounters* pc = nullptr;
            if (in.counters) {
                auto it = in.counters->find(PortRef{n.guid, p.num});
                if (it != in.counters->end()) pc = &it->second;
            } else if (p.counters) {
                pc = &*p.counters;
            }
            if (pc) add_counters(e, labels, *pc, set);
        }
    }
}

}  // namespace

std::string prom_escape_label(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string prom_escape_help(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

Result<uint8_t> parse_port_metrics(std::string_view list) {
    uint8_t set = 0;
    while (true) {
        const size_t comma = list.find(',');
        const std::string_view word = list.substr(0, comma);
        if (word == "all") {
            set |= kAllPortMetrics;
        } else if (word == "default") {
            set |= kDefaultPortMetrics;
        } else {
            auto g = std::find_if(kGroupNames.begin(), kGroupNames.end(),
                                  [&](const auto& n) { return n.first == word; });
            if (g == kGroupNames.end()) {
                return make_error(fmt::format("\"{}\" is not a group of port metrics; use a list "
                                              "of link, errors, traffic, packets, lane, or "
                                              "default (link,errors,traffic) or all",
                                              word),
                                  kExitUsage);
            }
            set |= static_cast<uint8_t>(g->second);
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return set;
}

std::string port_metrics_names(uint8_t set) {
    std::string out;
    for (const auto& [n, g] : kGroupNames) {
        if (!wanted(set, g)) continue;
        if (!out.empty()) out += ',';
        out += n;
    }
    return out;
}

std::string_view prom_counter_name(Counter c) {
    return kCounterMetrics[static_cast<size_t>(c)].name;
}

std::string render_prometheus(const PromInput& in) {
    Exposition e;
    declare_families(e);
    e.sample("fabscope_build_info", {{"version", in.version}}, uint64_t{1});
    const bool have_sweep = in.fabric != nullptr;
    if (in.exporter) {
        e.sample("fabscope_sweeps_total", {}, in.exporter->sweeps);
        e.sample("fabscope_sweep_failures_total", {}, in.exporter->failures);
        e.sample("fabscope_last_sweep_success", {}, uint64_t{in.exporter->last_ok ? 1U : 0U});
    } else {
        e.sample("fabscope_last_sweep_success", {}, uint64_t{have_sweep ? 1U : 0U});
    }
    if (have_sweep) {
        e.sample("fabscope_last_sweep_success_timestamp_seconds", {}, in.sweep_finished_unix_s);
        e.sample("fabscope_sweep_duration_seconds", {}, in.sweep_duration_s);
        add_fabric(e, in);
    }
    return e.text();
}

}  // namespace fabscope
