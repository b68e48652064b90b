#include "congestion/roce_detectors.h"

#include <fmt/format.h>

#include <set>

namespace fabscope {
namespace {

using Changes = std::map<std::string, CounterChange>;

const CounterChange* find(const Changes& m, const std::string& name) {
    auto it = m.find(name);
    return it == m.end() ? nullptr : &it->second;
}

uint64_t delta(const Changes& m, const std::string& name) {
    const CounterChange* c = find(m, name);
    return c ? c->delta : 0;
}

/// {"name": {"delta": N, "per_second": R, "cleared": B}} for the names present.
nlohmann::json counters_json(const Changes& m, const std::vector<std::string>& names) {
    nlohmann::json j = nlohmann::json::object();
    for (const std::string& n : names) {
        if (const CounterChange* c = find(m, n))
            j[n] = {{"delta", c->delta}, {"per_second", c->per_second}, {"cleared", c->cleared}};
    }
    return j;
}

/// "rx_prio3_discards +120, out_of_sequence +90" for the names that rose.
std::string rises(const Changes& m, const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) {
        uint64_t d = delta(m, n);
        if (d) out += fmt::format("{}{} +{}", out.empty() ? "" : ", ", n, d);
    }
    return out;
}

Finding make(std::string kind, Severity s, std::string summary, nlohmann::json evidence) {
    return make_finding(std::move(kind), s, std::move(summary), {}, std::move(evidence));
}

/// Bytes a second through a device port: its PMA data counters (4-byte
/// words), else its netdev's ethtool byte counters.
std::optional<double> bytes_per_s(const RoceChange& c, const std::string& key) {
    auto r = c.rdma.find(key);
    if (r != c.rdma.end()) {
        const CounterChange* x = find(r->second, "port_xmit_data");
        const CounterChange* y = find(r->second, "port_rcv_data");
        if (x && y) return 4 * (x->per_second + y->per_second);
        x = find(r->second, "sent_bytes");  // rxe
        y = find(r->second, "rcvd_bytes");
        if (x && y) return x->per_second + y->per_second;
    }
    auto nd = c.netdev_of.find(key);
    if (nd == c.netdev_of.end()) return std::nullopt;
    auto e = c.eth.find(nd->second);
    if (e == c.eth.end()) return std::nullopt;
    for (auto [rx, tx] : {std::pair{"rx_bytes_phy", "tx_bytes_phy"}, {"rx_bytes", "tx_bytes"}}) {
        const CounterChange* x = find(e->second, rx);
        const CounterChange* y = find(e->second, tx);
        if (x && y) return x->per_second + y->per_second;
    }
    return std::nullopt;
}

}  // namespace

const std::vector<std::string>& roce_loss_counters() {
    static const std::vector<std::string> names = {
        // mlx5 (hw_counters)
        "out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "implied_nak_seq_err",
        // rxe: the responder sees out_of_seq_request/duplicate_request, the requester
        // rcvd_seq_err and completer_retry_err (retransmissions), retry_exceeded_err (gave up)
        "rcvd_seq_err", "retry_exceeded_err", "completer_retry_err", "duplicate_request",
        "out_of_seq_request"};
    return names;
}

RoceChange roce_change(const RoceHostReading& before, const RoceHostReading& after) {
    RoceChange c;
    c.host = after.host;
    c.netdev_of = after.netdev_of;
    c.dcb = after.dcb;
    c.problems = after.problems;
    double total_s = 0;
    int n = 0;
    for (const CounterSample& a : after.rdma) {
        for (const CounterSample& b : before.rdma) {
            if (b.device != a.device || b.port != a.port) continue;
            c.rdma[port_key(a.device, a.port)] = sample_changes(b, a);
            total_s += static_cast<double>(a.read_at_ms - b.read_at_ms) / 1000.0;
            ++n;
        }
    }
    for (const auto& [nd, a] : after.ethtool) {
        auto b = before.ethtool.find(nd);
        if (b == before.ethtool.end()) continue;
        // The ethtool statistics as a sample, so one rule makes every delta.
        CounterSample sb{nd, 0, b->second.stats, b->second.read_at_ms};
        CounterSample sa{nd, 0, a.stats, a.read_at_ms};
        c.eth[nd] = sample_changes(sb, sa);
        if (n == 0) {
            total_s += static_cast<double>(a.read_at_ms - b->second.read_at_ms) / 1000.0;
            ++n;
        }
    }
    c.interval_s = n ? total_s / n : 0;
    return c;
}

RoceChange roce_change_from_deltas(std::string host, const std::string& device_port,
                                   const CounterMap& deltas, double seconds) {
    RoceChange c;
    c.host = std::move(host);
    c.interval_s = seconds > 0 ? seconds : 0;
    auto& m = c.rdma[device_port];
    for (const auto& [name, d] : deltas)
        m[name] = {d, c.interval_s > 0 ? static_cast<double>(d) / c.interval_s : 0, false};
    return c;
}

int roce_priority(const RoceChange& c, const std::string& netdev, const RoceLimits& t) {
    auto d = c.dcb.find(netdev);
    if (d != c.dcb.end() && d->second.available) {
        if (auto p = d->second.roce_priority()) return *p;
    }
    return t.priority;
}

std::vector<Finding> detect_pfc_storm(const RoceChange& c, const RoceLimits& t) {
    std::vector<Finding> out;
    if (c.interval_s <= 0) return out;
    for (const auto& [nd, m] : c.eth) {
        for (int p = 0; p < kPriorities; ++p) {
            for (const char* dir : {"rx", "tx"}) {
                const std::string dur = prio_stat(dir, p, "pause_duration");
                const std::string frames = prio_stat(dir, p, "pause");
                const CounterChange* d = find(m, dur);
                if (!d) continue;
                double share = static_cast<double>(d->delta) / 1e6 / c.interval_s;
                if (share < t.pause_share_warn) continue;
                bool rx = dir[0] == 'r';
                out.push_back(make(
                    "pfc_storm", share >= t.pause_share_error ? Severity::Error : Severity::Warning,
                    fmt::format(
                        "{} {} priority {}: {} {:.1f}% of the {:.1f} s interval ({} +{} us{})",
                        c.host, nd, p,
                        rx ? "paused by its peer (could not send)"
                           : "asked its peer to pause (could not take data)",
                        share * 100, c.interval_s, dur, d->delta,
                        delta(m, frames) ? fmt::format(", {} +{}", frames, delta(m, frames)) : ""),
                    {{"host", c.host},
                     {"netdev", nd},
                     {"priority", p},
                     {"direction", dir},
                     {"share", share},
                     {"interval_s", c.interval_s},
                     {"counters",
                      counters_json(m, {dur, frames, prio_stat(dir, p, "pause_transition")})}}));
            }
        }
        for (auto [name, sev] : {std::pair{"tx_pause_storm_error_events", Severity::Error},
                                 {"tx_pause_storm_warning_events", Severity::Warning}}) {
            uint64_t d = delta(m, name);
            if (!d) continue;
            out.push_back(make(
                "pfc_storm", sev,
                fmt::format("{} {}: pause storm: {} +{} over {:.1f} s (the NIC sent pause frames "
                            "for too long{})",
                            c.host, nd, name, d, c.interval_s,
                            sev == Severity::Error ? " and stopped sending them" : ""),
                {{"host", c.host},
                 {"netdev", nd},
                 {"interval_s", c.interval_s},
                 {"counters", counters_json(m, {name})}}));
        }
    }
    return out;
}

std::vector<Finding> detect_pause_roles(const std::vector<RoceChange>& hosts, const RoceLimits& t) {
    struct Role {
        std::string host, netdev;
        int priority;
        const CounterChange* change;
    };
    std::vector<Role> sends, receives;
    std::set<std::string> senders;
    for (const RoceChange& c : hosts) {
        for (const auto& [nd, m] : c.eth) {
            for (int p = 0; p < kPriorities; ++p) {
                const CounterChange* tx = find(m, prio_stat("tx", p, "pause"));
                const CounterChange* rx = find(m, prio_stat("rx", p, "pause"));
                if (tx && tx->delta && tx->per_second >= t.pause_frames_per_s) {
                    sends.push_back({c.host, nd, p, tx});
                    senders.insert(c.host);
                }
                if (rx && rx->delta && rx->per_second >= t.pause_frames_per_s)
                    receives.push_back({c.host, nd, p, rx});
            }
        }
    }
    std::vector<Finding> out;
    nlohmann::json sources = nlohmann::json::array();
    for (const std::string& h : senders) sources.push_back(h);
    for (const Role& r : sends) {
        std::string name = prio_stat("tx", r.priority, "pause");
        out.push_back(make(
            "pause_source", Severity::Warning,
            fmt::format("{} {} priority {} sends pause frames ({} +{}, {:.0f}/s): "
                        "a slow receiver, where the pauses start",
                        r.host, r.netdev, r.priority, name, r.change->delta, r.change->per_second),
            {{"host", r.host},
             {"netdev", r.netdev},
             {"priority", r.priority},
             {"role", "source"},
             {"counters",
              {{name,
                {{"delta", r.change->delta},
                 {"per_second", r.change->per_second},
                 {"cleared", r.change->cleared}}}}}}));
    }
    for (const Role& r : receives) {
        if (senders.count(r.host)) continue;  // it pauses others too: a source, not only a victim
        std::string name = prio_stat("rx", r.priority, "pause");
        std::string from;
        for (const std::string& h : senders) {
            if (h != r.host) from += (from.empty() ? "" : ", ") + h;
        }
        out.push_back(make(
            "pause_victim", Severity::Warning,
            fmt::format("{} {} priority {} only receives pause frames ({} +{}, {:.0f}/s): a "
                        "victim, paused by {}",
                        r.host, r.netdev, r.priority, name, r.change->delta, r.change->per_second,
                        from.empty() ? "a host or switch not in this reading" : from),
            {{"host", r.host},
             {"netdev", r.netdev},
             {"priority", r.priority},
             {"role", "victim"},
             {"sources", sources},
             {"counters",
              {{name,
                {{"delta", r.change->delta},
                 {"per_second", r.change->per_second},
                 {"cleared", r.change->cleared}}}}}}));
    }
    return out;
}

std::vector<Finding> detect_ecn_without_cnp(const RoceChange& c, const RoceLimits& t) {
    std::vector<Finding> out;
    for (const auto& [key, m] : c.rdma) {
        const CounterChange* marked = find(m, "np_ecn_marked_roce_packets");
        if (!marked || marked->delta < t.ecn_marked_min || delta(m, "np_cnp_sent") > 0) continue;
        auto nd = c.netdev_of.find(key);
        out.push_back(make(
            "ecn_without_cnp", Severity::Warning,
            fmt::format("{} {}: {} ECN-marked RoCE packets arrived and no CNP was sent "
                        "(np_ecn_marked_roce_packets +{}, np_cnp_sent +0 over {:.1f} s): DCQCN "
                        "is off on this receiver, or the marked traffic's priority has no "
                        "congestion control",
                        c.host, key, marked->delta, marked->delta, c.interval_s),
            {{"host", c.host},
             {"port", key},
             {"netdev", nd == c.netdev_of.end() ? "" : nd->second},
             {"interval_s", c.interval_s},
             {"counters", counters_json(m, {"np_ecn_marked_roce_packets", "np_cnp_sent"})}}));
    }
    return out;
}

std::vector<Finding> detect_cnp_collapse(const RoceChange& earlier, const RoceChange& now,
                                         const RoceLimits& t) {
    std::vector<Finding> out;
    for (const auto& [key, m] : now.rdma) {
        uint64_t cnps = delta(m, "rp_cnp_handled");
        if (!cnps) continue;
        auto was = bytes_per_s(earlier, key);
        auto is = bytes_per_s(now, key);
        if (!was || !is || *was <= 0 || *is >= t.collapse_ratio * *was) continue;
        out.push_back(make(
            "cnp_throughput_collapse", Severity::Warning,
            fmt::format("{} {}: throughput fell to {:.0f}% of the previous interval ({:.3g} -> "
                        "{:.3g} B/s) while it handled {} CNPs (rp_cnp_handled): DCQCN is "
                        "throttling this sender hard",
                        now.host, key, *is / *was * 100, *was, *is, cnps),
            {{"host", now.host},
             {"port", key},
             {"interval_s", now.interval_s},
             {"bytes_per_s_before", *was},
             {"bytes_per_s", *is},
             {"counters", counters_json(m, {"rp_cnp_handled", "rp_cnp_ignored"})}}));
    }
    return out;
}

std::vector<Finding> detect_lossless_loss(const RoceChange& c, const RoceLimits& t) {
    std::vector<Finding> out;
    if (c.interval_s <= 0) return out;
    for (const auto& [nd, d] : c.dcb) {
        if (!d.available) continue;
        int p = roce_priority(c, nd, t);
        if (d.pfc_on(p)) continue;
        out.push_back(make("pfc_off_on_roce_priority", Severity::Warning,
                           fmt::format("{} {}: PFC is off on priority {}, the RoCE priority "
                                       "(dcbnl pfc_en 0x{:02x}): RoCE there is not lossless",
                                       c.host, nd, p, d.pfc_enabled),
                           {{"host", c.host},
                            {"netdev", nd},
                            {"priority", p},
                            {"pfc_enabled", dcb_to_json(d)["pfc_enabled"]}}));
    }
    for (const auto& [key, m] : c.rdma) {
        auto ndi = c.netdev_of.find(key);
        const std::string nd = ndi == c.netdev_of.end() ? "" : ndi->second;
        int p = roce_priority(c, nd, t);
        Changes all = m;
        std::vector<std::string> names = roce_loss_counters();
        if (auto e = c.eth.find(nd); e != c.eth.end()) {
            for (const std::string& n :
                 {std::string("rx_discards_phy"), prio_stat("rx", p, "discards")}) {
                if (const CounterChange* x = find(e->second, n)) {
                    all[n] = *x;
                    names.push_back(n);
                }
            }
        }
        uint64_t total = 0;
        for (const std::string& n : names) total += delta(all, n);
        double per_s = static_cast<double>(total) / c.interval_s;
        if (total == 0 || per_s < t.loss_per_s) continue;
        auto dcb = c.dcb.find(nd);
        nlohmann::json pfc = nullptr;
        std::string pfc_text = "PFC state unknown (no DCB settings)";
        if (dcb != c.dcb.end() && dcb->second.available) {
            pfc = dcb->second.pfc_on(p);
            pfc_text = dcb->second.pfc_on(p) ? fmt::format("PFC is on for priority {}", p)
                                             : fmt::format("PFC is off on priority {}", p);
        } else if (dcb != c.dcb.end()) {
            pfc_text = dcb->second.unavailable_message();
        }
        out.push_back(
            make("loss_on_lossless_class", Severity::Warning,
                 fmt::format("{} {}{}: loss on the RoCE class (priority {}): {} loss signals over "
                             "{:.1f} s ({}); {}",
                             c.host, key, nd.empty() ? "" : " (" + nd + ")", p, total, c.interval_s,
                             rises(all, names), pfc_text),
                 {{"host", c.host},
                  {"port", key},
                  {"netdev", nd},
                  {"priority", p},
                  {"pfc_on", pfc},
                  {"loss_signals", total},
                  {"per_second", per_s},
                  {"interval_s", c.interval_s},
                  {"counters", counters_json(all, names)}}));
    }
    return out;
}

std::vector<Finding> detect_roce(const std::vector<RoceChange>& hosts,
                                 const std::vector<RoceChange>& earlier, const RoceLimits& t) {
    std::vector<Finding> out;
    auto add = [&](std::vector<Finding> v) { out.insert(out.end(), v.begin(), v.end()); };
    for (const RoceChange& c : hosts) add(detect_pfc_storm(c, t));
    add(detect_pause_roles(hosts, t));
    for (const RoceChange& c : hosts) add(detect_ecn_without_cnp(c, t));
    for (const RoceChange& c : hosts) {
        for (const RoceChange& e : earlier) {
            if (e.host == c.host) add(detect_cnp_collapse(e, c, t));
        }
    }
    for (const RoceChange& c : hosts) add(detect_lossless_loss(c, t));
    for (const RoceChange& c : hosts) {
        for (const std::string& p : c.problems)
            out.push_back(make("roce_unreadable", Severity::Warning, p, {{"host", c.host}}));
        for (const auto& [nd, d] : c.dcb) {
            if (!d.available)
                out.push_back(make("dcb_unavailable", Severity::Info,
                                   c.host + ": " + d.unavailable_message(),
                                   {{"host", c.host}, {"netdev", nd}, {"reason", d.unavailable}}));
        }
    }
    return out;
}

}  // namespace fabscope
