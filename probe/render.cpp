#include "probe/render.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "reports/prometheus_text.h"

namespace fabscope::probe {
namespace {

using nlohmann::json;

std::string lbl(std::string_view s) {
    return prom_escape_label(s);
}

class Text {
  public:
    void head(const char* name, const char* type, const char* help) {
        out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    }
    void line(const std::string& series, double v) { out_ += fmt::format("{} {}\n", series, v); }
    std::string take() { return std::move(out_); }

  private:
    std::string out_;
};

void window_series(Text& t, const std::string& metric_prefix, const std::string& labels,
                   const PeerFigures& f) {
    if (f.window.p50_us)
        t.line(fmt::format("{}rtt_seconds{{{},quantile=\"0.5\"}}", metric_prefix, labels),
               *f.window.p50_us / 1e6);
    if (f.window.p99_us)
        t.line(fmt::format("{}rtt_seconds{{{},quantile=\"0.99\"}}", metric_prefix, labels),
               *f.window.p99_us / 1e6);
}

json figures_json(const PeerFigures& f) {
    json j = {{"name", f.name},
              {"leaf", f.leaf},
              {"state", f.state},
              {"sent", f.window.sent},
              {"answered", f.window.answered},
              {"lost", f.window.lost},
              {"loss_ratio", f.window.loss_ratio},
              {"sent_total", f.sent_total},
              {"lost_total", f.lost_total}};
    if (!f.unreachable.empty()) {
        j["unreachable"] = f.unreachable;
        j["unreachable_reason"] = f.unreachable_reason;
    }
    if (f.retry_interval != 0) j["retry_interval"] = f.retry_interval;
    if (f.window.p50_us) j["p50_us"] = *f.window.p50_us;
    if (f.window.p99_us) j["p99_us"] = *f.window.p99_us;
    if (f.baseline_p99_us) j["baseline_p99_us"] = *f.baseline_p99_us;
    return j;
}

}  // namespace

std::string probe_metrics(const ProbeSnapshot& s, const std::string& version) {
    Text t;
    const std::string me = fmt::format("leaf=\"{}\"", lbl(s.leaf));
    t.head("fabscope_probe_info", "gauge", "The probe agent: its host, leaf and version.");
    t.line(fmt::format("fabscope_probe_info{{host=\"{}\",{},version=\"{}\"}}", lbl(s.host), me,
                       lbl(version)),
           1);
    t.head("fabscope_probe_intervals_total", "counter", "Probe intervals ended.");
    t.line("fabscope_probe_intervals_total", static_cast<double>(s.interval));
    t.head("fabscope_probe_interval_seconds", "gauge", "The probe interval.");
    t.line("fabscope_probe_interval_seconds", s.interval_s);
    t.head("fabscope_probe_last_interval_timestamp_seconds", "gauge",
           "When the last interval ended (Unix time).");
    t.line("fabscope_probe_last_interval_timestamp_seconds", s.ended_unix_s);
    t.head("fabscope_probe_sent_total", "counter", "Probes sent, to every peer.");
    t.line("fabscope_probe_sent_total", static_cast<double>(s.sent_total));
    t.head("fabscope_probe_lost_total", "counter", "Probes not answered within the timeout.");
    t.line("fabscope_probe_lost_total", static_cast<double>(s.lost_total));
    t.head("fabscope_probe_answered_total", "counter", "Probes of other agents answered.");
    t.line("fabscope_probe_answered_total", static_cast<double>(s.answered_for_others));
    t.head("fabscope_probe_answers_refused_total", "counter",
           "Probes of other agents not answered: past 20,000 a second.");
    t.line("fabscope_probe_answers_refused_total", static_cast<double>(s.answers_refused));
    t.head("fabscope_probe_unknown_datagrams_total", "counter",
           "Datagrams dropped: not a probe, or from an agent that said no hello.");
    t.line("fabscope_probe_unknown_datagrams_total", static_cast<double>(s.unknown_datagrams));
    t.head("fabscope_probe_send_errors_total", "counter",
           "Probe datagrams whose send completed in error (each a lost probe).");
    t.line("fabscope_probe_send_errors_total", static_cast<double>(s.port.send_errors));
    t.head("fabscope_probe_qp_recoveries_total", "counter",
           "Times the UD QP was brought back to RTS after an error.");
    t.line("fabscope_probe_qp_recoveries_total", static_cast<double>(s.port.recoveries));
    std::map<std::string, int> states;
    for (const PeerFigures& f : s.peers) ++states[f.state];
    t.head("fabscope_probe_peers", "gauge", "Peers of the pinglist by state.");
    for (const char* st : {"probing", "resolving", "unreachable"})
        t.line(fmt::format("fabscope_probe_peers{{state=\"{}\"}}", st), states[st]);
    std::map<std::string, int> reasons;
    for (const PeerFigures& f : s.peers) ++reasons[f.unreachable_reason];
    t.head("fabscope_probe_peers_unreachable", "gauge",
           "Unreachable peers by reason: the hello failed, or no address handle could be made "
           "(retried after 1, 2, 4, then every 8 intervals).");
    for (const char* r : {"hello", "address-handle"})
        t.line(fmt::format("fabscope_probe_peers_unreachable{{reason=\"{}\"}}", r), reasons[r]);

    t.head("fabscope_probe_loss_ratio", "gauge",
           "Probes lost over the window, per peer under this host's leaf.");
    for (const PeerFigures& f : s.peers) {
        if (f.leaf_peer && f.window.answered + f.window.lost > 0)
            t.line(fmt::format("fabscope_probe_loss_ratio{{peer=\"{}\"}}", lbl(f.name)),
                   f.window.loss_ratio);
    }
    t.head("fabscope_probe_rtt_seconds", "gauge",
           "Probe round trip over the window, per peer under this host's leaf.");
    for (const PeerFigures& f : s.peers) {
        if (f.leaf_peer)
            window_series(t, "fabscope_probe_", fmt::format("peer=\"{}\"", lbl(f.name)), f);
    }
    t.head("fabscope_probe_leaf_loss_ratio", "gauge",
           "Probes lost over the window, from this leaf to another (the hosts this agent covers).");
    for (const PeerFigures& f : s.pairs) {
        if (f.window.answered + f.window.lost > 0)
            t.line(fmt::format("fabscope_probe_leaf_loss_ratio{{{},peer_leaf=\"{}\"}}", me,
                               lbl(f.name)),
                   f.window.loss_ratio);
    }
    t.head("fabscope_probe_leaf_rtt_seconds", "gauge",
           "Probe round trip over the window, from this leaf to another.");
    for (const PeerFigures& f : s.pairs)
        window_series(t, "fabscope_probe_leaf_",
                      fmt::format("{},peer_leaf=\"{}\"", me, lbl(f.name)), f);
    std::map<std::string, int> kinds;
    std::set<std::string> degraded;  // the leaves of this agent's probe-leaf-pair findings
    for (const Finding& f : s.findings) {
        ++kinds[f.kind];
        if (f.kind == "probe-leaf-pair") degraded.insert(f.evidence.value("peer_leaf", ""));
    }
    t.head("fabscope_probe_leaf_degraded", "gauge",
           "1 when every probed host of the other leaf degrades together (the uplinks), per "
           "leaf pair this agent covers.");
    for (const PeerFigures& f : s.pairs) {
        t.line(fmt::format("fabscope_probe_leaf_degraded{{{},peer_leaf=\"{}\"}}", me, lbl(f.name)),
               degraded.count(f.name) ? 1 : 0);
    }
    t.head("fabscope_probe_findings", "gauge", "The last interval's findings, by kind.");
    for (const char* k : {"probe-host-loss", "probe-peer-loss", "probe-leaf-pair", "probe-host-p99",
                          "probe-peer-p99", "probe-peer-unreachable"})
        t.line(fmt::format("fabscope_probe_findings{{kind=\"{}\"}}", k), kinds[k]);
    return t.take();
}

json probe_json(const ProbeSnapshot& s, const std::string& version) {
    json peers = json::array();
    for (const PeerFigures& f : s.peers) {
        json j = figures_json(f);
        j["leaf_peer"] = f.leaf_peer;
        peers.push_back(std::move(j));
    }
    json pairs = json::array();
    for (const PeerFigures& f : s.pairs) {
        json j = figures_json(f);
        j.erase("name");
        j.erase("state");
        j["peer_leaf"] = f.name;
        j["leaf"] = s.leaf;
        pairs.push_back(std::move(j));
    }
    json findings = json::array();
    for (const Finding& f : s.findings) {
        findings.push_back({{"kind", f.kind},
                            {"severity", std::string(name(f.severity))},
                            {"summary", f.summary},
                            {"evidence", f.evidence}});
    }
    return {{"tool", "fabscope probe"},
            {"version", version},
            {"host", s.host},
            {"leaf", s.leaf},
            {"interval", s.interval},
            {"interval_s", s.interval_s},
            {"window", s.window},
            {"ended_unix_s", s.ended_unix_s},
            {"sent_total", s.sent_total},
            {"lost_total", s.lost_total},
            {"answered_total", s.answered_for_others},
            {"unknown_datagrams", s.unknown_datagrams},
            {"answers_refused", s.answers_refused},
            {"send_errors", s.port.send_errors},
            {"qp_recoveries", s.port.recoveries},
            {"peers", peers},
            {"leaf_pairs", pairs},
            {"findings", findings}};
}

}  // namespace fabscope::probe
