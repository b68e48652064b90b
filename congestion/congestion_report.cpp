#include "congestion/congestion_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "check/counter_checks.h"
#include "model/port_label.h"

namespace fabscope {
namespace {

constexpr size_t kHottest = 10;

nlohmann::json wait_json(const Fabric& f, const CongestionResult& r, const WaitingPort& w) {
    nlohmann::json j = to_json(port_label(f, w.port));
    j["share"] = w.share;
    j["delta_ticks"] = w.ticks;
    j["interval_s"] = w.interval_s;
    j["cleared_during_interval"] = w.cleared;
    if (!r.per_vl_read) return j;
    if (auto it = r.vl_waits.find(w.port); it != r.vl_waits.end()) {
        nlohmann::json lanes = nlohmann::json::array();
        for (const VlRise& v : it->second)
            lanes.push_back({{"vl", v.vl},
                             {"delta_ticks", v.rise.delta},
                             {"cleared_during_interval", v.rise.cleared}});
        j["vl_xmit_wait"] = std::move(lanes);
    } else if (std::find(r.per_vl_not_supported.begin(), r.per_vl_not_supported.end(), w.port) !=
               r.per_vl_not_supported.end()) {
        j["per_vl_supported"] = false;
    }
    return j;
}

/// " [VL0 +12, VL3 +40]" for a port whose lanes rose; "" otherwise.
std::string lanes_text(const CongestionResult& r, PortRef p) {
    auto it = r.vl_waits.find(p);
    if (it == r.vl_waits.end() || it->second.empty()) return "";
    std::string out;
    for (const VlRise& v : it->second)
        out += fmt::format("{}VL{} +{}", out.empty() ? "" : ", ", v.vl, v.rise.delta);
    return fmt::format(" [{}]", out);
}

}  // namespace

bool CongestionResult::failed() const {
    for (const Finding& x : findings) {
        if (x.severity != Severity::Info) return true;
    }
    return false;
}

CongestionResult analyse_congestion(const Fabric& f, const CounterReadings& before,
                                    const CounterReadings& after, bool after_complete,
                                    const Thresholds& t, const VlWaitReadings* per_vl) {
    CongestionResult r;
    r.interval_s = mean_interval_s(before, after);
    auto shares = xmit_wait_shares(f, before, after, t.xmit_wait.tick_multiplier);
    r.ports_read = shares.size();
    for (const WaitingPort& w : shares) {
        if (w.ticks == 0 || r.hottest.size() == kHottest) break;
        r.hottest.push_back(w);
    }
    r.trees = congestion_trees(f, shares, t.xmit_wait.warn);
    r.findings = congestion_findings(f, r.trees, t.xmit_wait);
    if (after_complete) {
        auto silent = check_unanswered(f, before, after);
        for (const Finding& x : silent) r.ports_unanswered += x.where.size();
        r.findings.insert(r.findings.end(), silent.begin(), silent.end());
    }
    if (per_vl) {
        r.per_vl_read = true;
        r.per_vl_not_supported = per_vl->not_supported;
        std::sort(r.per_vl_not_supported.begin(), r.per_vl_not_supported.end());
        r.per_vl_not_supported.erase(
            std::unique(r.per_vl_not_supported.begin(), r.per_vl_not_supported.end()),
            r.per_vl_not_supported.end());
        for (const auto& [ref, a] : per_vl->after) {
            auto b = per_vl->before.find(ref);
            if (b == per_vl->before.end()) continue;
            ++r.ports_per_vl;
            auto lanes = vl_wait_rises(b->second, a);
            if (!lanes.empty()) r.vl_waits[ref] = std::move(lanes);
        }
    }
    return r;
}

nlohmann::json congestion_to_json(const Fabric& f, const CongestionResult& r,
                                  const CongestionMeta& m) {
    nlohmann::json hottest = nlohmann::json::array();
    for (const WaitingPort& w : r.hottest) hottest.push_back(wait_json(f, r, w));
    nlohmann::json trees = nlohmann::json::array();
    for (const CongestionTree& t : r.trees) {
        nlohmann::json victims = nlohmann::json::array();
        for (const Victim& v : t.victims) {
            nlohmann::json j = wait_json(f, r, v.wait);
            nlohmann::json chain = nlohmann::json::array();
            for (const PortRef& c : v.chain) chain.push_back(to_json(port_label(f, c)));
            j["chain"] = std::move(chain);
            victims.push_back(std::move(j));
        }
        trees.push_back({{"root", wait_json(f, r, t.root)},
                         {"cause", t.cause},
                         {"victims", std::move(victims)}});
    }
    nlohmann::json doc = {{"format", "fabscope-congestion"},
                          {"version", 1},
                          {"command", "congestion"},
                          {"started", m.started},
                          {"fabric_from", m.fabric_from},
                          {"round", m.round},
                          {"interval_s", r.interval_s},
                          {"ports_read", r.ports_read},
                          {"ports_unanswered", r.ports_unanswered},
                          {"thresholds",
                           {{"xmit_wait_warn", m.limits.warn},
                            {"xmit_wait_error", m.limits.error},
                            {"tick_multiplier", m.limits.tick_multiplier}}},
                          {"result", m.interrupted ? "interrupted"
                                     : r.failed()  ? "fail"
                                                   : "pass"},
                          {"interrupted", m.interrupted},
                          {"hottest", std::move(hottest)},
                          {"trees", std::move(trees)},
                          {"findings", findings_to_json(f, r.findings)}};
    if (r.per_vl_read) {
        doc["per_vl"] = {{"ports_read", r.ports_per_vl},
                         {"ports_not_supported", r.per_vl_not_supported.size()}};
    }
    return doc;
}

std::string render_congestion_summary(const Fabric& f, const CongestionResult& r,
                                      const CongestionMeta& m, const TextStyle& st) {
    std::string head = m.interrupted ? st.yellow("INTERRUPTED")
                       : r.failed()  ? st.bold(st.red("CONGESTION"))
                                     : st.bold(st.green("CLEAR"));
    std::string out = fmt::format(
        "{}  fabscope congestion{}: {} tree{}, {} port{} read over {:.1f} s{}\n", head,
        m.round > 1 ? fmt::format(" (round {})", m.round) : "", r.trees.size(),
        r.trees.size() == 1 ? "" : "s", r.ports_read, r.ports_read == 1 ? "" : "s", r.interval_s,
        r.ports_unanswered ? fmt::format(", {} did not answer", r.ports_unanswered) : "");
    for (const CongestionTree& t : r.trees) {
        out += fmt::format("  {} {}  {:.1f}% waiting  ({}){}\n", st.bold("root"),
                           describe(f, t.root.port), t.root.share * 100, t.cause,
                           lanes_text(r, t.root.port));
        for (const Victim& v : t.victims) {
            std::string chain;
            for (const PortRef& c : v.chain)
                chain += fmt::format("{}{}", chain.empty() ? "" : " -> ", describe(f, c));
            out += fmt::format("    victim {}  {:.1f}% waiting  ({}){}\n", describe(f, v.wait.port),
                               v.wait.share * 100, chain, lanes_text(r, v.wait.port));
        }
    }
    for (const Finding& x : r.findings) {
        if (x.kind == "counters_unanswered") out += fmt::format("  {}\n", st.yellow(x.summary));
    }
    if (!r.hottest.empty()) {
        out += st.dim("Hottest ports (PortXmitWait share of the interval):") + "\n";
        for (const WaitingPort& w : r.hottest)
            out += fmt::format("  {:<24} {:6.2f}%  +{} ticks{}\n", describe(f, w.port),
                               w.share * 100, w.ticks, lanes_text(r, w.port));
    }
    if (r.per_vl_read && !r.per_vl_not_supported.empty()) {
        out += st.dim(fmt::format("Per-VL PortXmitWait not supported on {} of {} port{}",
                                  r.per_vl_not_supported.size(),
                                  r.per_vl_not_supported.size() + r.ports_per_vl,
                                  r.per_vl_not_supported.size() + r.ports_per_vl == 1 ? "" : "s")) +
               "\n";
    }
    return out;
}

}  // namespace fabscope
