#include "congestion/roce_report.h"

#include <fmt/format.h>

namespace fabscope {

bool RoceCongestionResult::failed() const {
    for (const Finding& x : findings) {
        if (x.severity != Severity::Info) return true;
    }
    return false;
}

RoceCongestionResult analyse_roce(const std::vector<RoceHostReading>& before,
                                  const std::vector<RoceHostReading>& after,
                                  const std::vector<RoceChange>& earlier, const RoceLimits& t) {
    RoceCongestionResult r;
    std::vector<Finding> missing;
    double total = 0;
    for (const RoceHostReading& b : before) {
        const RoceHostReading* a = nullptr;
        for (const RoceHostReading& x : after) {
            if (x.host == b.host) a = &x;
        }
        if (!a) {
            Finding f;
            f.kind = "roce_unreadable";
            f.summary = fmt::format("{}: no second reading", b.host);
            f.evidence = {{"host", b.host}};
            missing.push_back(std::move(f));
            continue;
        }
        r.hosts.push_back(roce_change(b, *a));
        r.ports_read += r.hosts.back().rdma.size();
        total += r.hosts.back().interval_s;
    }
    r.interval_s = r.hosts.empty() ? 0 : total / static_cast<double>(r.hosts.size());
    r.findings = detect_roce(r.hosts, earlier, t);
    r.findings.insert(r.findings.end(), missing.begin(), missing.end());
    return r;
}

nlohmann::json roce_congestion_to_json(const RoceCongestionResult& r, const RoceMeta& m) {
    nlohmann::json hosts = nlohmann::json::array();
    for (const RoceChange& c : r.hosts) {
        nlohmann::json ports = nlohmann::json::array();
        for (const auto& [key, changes] : c.rdma) {
            auto nd = c.netdev_of.find(key);
            ports.push_back({{"port", key}, {"netdev", nd == c.netdev_of.end() ? "" : nd->second}});
        }
        nlohmann::json dcb = nlohmann::json::object();
        for (const auto& [nd, d] : c.dcb) dcb[nd] = dcb_to_json(d);
        hosts.push_back(
            {{"host", c.host}, {"interval_s", c.interval_s}, {"ports", ports}, {"dcb", dcb}});
    }
    const RoceLimits& t = m.thresholds.roce;
    const Fabric no_fabric;  // RoCE findings name hosts in their evidence, not IB ports
    return {{"format", "fabscope-congestion"},
            {"version", 1},
            {"command", "congestion"},
            {"started", m.started},
            {"fabric_from", m.from},
            {"round", m.round},
            {"interval_s", r.interval_s},
            {"ports_read", r.ports_read},
            {"ports_unanswered", 0},
            {"thresholds",
             {{"xmit_wait_warn", m.thresholds.xmit_wait.warn},
              {"xmit_wait_error", m.thresholds.xmit_wait.error},
              {"tick_multiplier", m.thresholds.xmit_wait.tick_multiplier},
              {"roce",
               {{"priority", t.priority},
                {"pause_share_warn", t.pause_share_warn},
                {"pause_share_error", t.pause_share_error},
                {"pause_frames_per_s", t.pause_frames_per_s},
                {"ecn_marked_min", t.ecn_marked_min},
                {"collapse_ratio", t.collapse_ratio},
                {"loss_per_s", t.loss_per_s}}}}},
            {"result", m.interrupted ? "interrupted"
                       : r.failed()  ? "fail"
                                     : "pass"},
            {"interrupted", m.interrupted},
            {"hottest", nlohmann::json::array()},
            {"trees", nlohmann::json::array()},
            {"roce", {{"hosts", hosts}}},
            {"findings", findings_to_json(no_fabric, r.findings)}};
}

std::string render_roce_summary(const RoceCongestionResult& r, const RoceMeta& m,
                                const TextStyle& st) {
    std::string head = m.interrupted ? st.yellow("INTERRUPTED")
                       : r.failed()  ? st.bold(st.red("CONGESTION"))
                                     : st.bold(st.green("CLEAR"));
    size_t problems = 0;
    for (const Finding& x : r.findings) problems += x.severity != Severity::Info;
    std::string out = fmt::format(
        "{}  fabscope congestion (RoCE){}: {} finding{}, {} host{}, {} port{} read over {:.1f} "
        "s\n",
        head, m.round > 1 ? fmt::format(" (round {})", m.round) : "", problems,
        problems == 1 ? "" : "s", r.hosts.size(), r.hosts.size() == 1 ? "" : "s", r.ports_read,
        r.ports_read == 1 ? "" : "s", r.interval_s);
    for (const Finding& x : r.findings) {
        std::string sev = x.severity == Severity::Error     ? st.red("error")
                          : x.severity == Severity::Warning ? st.yellow("warning")
                                                            : st.dim("info");
        out += fmt::format("  {} {}: {}\n", sev, x.kind, x.summary);
    }
    return out;
}

}  // namespace fabscope
