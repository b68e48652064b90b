#include "probe/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fabscope::probe {
namespace {

using nlohmann::json;

bool lossy(const WindowFigures& w, const ProbeThresholds& t) {
    return w.lost >= t.min_lost && w.loss_ratio >= t.loss_ratio;
}

bool p99_risen(const WindowFigures& w, const std::optional<double>& base,
               const ProbeThresholds& t) {
    if (!base || !w.p99_us) return false;
    return *w.p99_us > t.p99_rise * *base && *w.p99_us - *base > t.p99_min_rise_us;
}

std::string percent(double r) {
    return fmt::format("{:.2f} %", 100.0 * r);
}

json window_json(const WindowFigures& w) {
    json j = {
        {"sent", w.sent}, {"answered", w.answered}, {"lost", w.lost}, {"loss_ratio", w.loss_ratio}};
    if (w.p50_us) j["p50_us"] = *w.p50_us;
    if (w.p99_us) j["p99_us"] = *w.p99_us;
    return j;
}

/// probe-host-loss or probe-host-p99 when most peers show it; true if made.
bool judge_host(const ProbeSelf& self, const std::vector<PeerView>& peers, const ProbeThresholds& t,
                std::vector<Finding>& out) {
    size_t probed = 0;
    std::vector<std::string> with_loss;
    std::vector<std::string> risen;
    WindowFigures all;
    for (const PeerView& p : peers) {
        if (p.window.sent == 0) continue;
        ++probed;
        all.sent += p.window.sent;
        all.answered += p.window.answered;
        all.lost += p.window.lost;
        if (p.window.lost > 0) with_loss.push_back(p.name);
        if (p99_risen(p.window, p.baseline_p99_us, t)) risen.push_back(p.name);
    }
    if (probed < 2) return false;
    const auto most = std::max<size_t>(2, static_cast<size_t>(std::ceil(t.host_share * probed)));
    const uint64_t judged = all.answered + all.lost;
    all.loss_ratio = judged ? static_cast<double>(all.lost) / static_cast<double>(judged) : 0;
    if (with_loss.size() >= most && lossy(all, t)) {
        out.push_back(make_finding(
            "probe-host-loss", Severity::Error,
            fmt::format("{}: probes to {} of {} peers lost ({} of {}, {}) over the last {} "
                        "intervals: this host's link or NIC",
                        self.name, with_loss.size(), probed, all.lost, judged,
                        percent(all.loss_ratio), self.window_intervals),
            {}, {{"host", self.name}, {"peers", with_loss}, {"window", window_json(all)}}));
        return true;
    }
    if (risen.size() >= most) {
        out.push_back(make_finding(
            "probe-host-p99", Severity::Warning,
            fmt::format("{}: p99 round trip rose over its baseline to {} of {} peers: this "
                        "host's link, NIC or load",
                        self.name, risen.size(), probed),
            {}, {{"host", self.name}, {"peers", risen}}));
        return true;
    }
    return false;
}

/// probe-leaf-pair for each covered leaf whose probed hosts degrade
/// together; the leaves named.
std::vector<std::string> judge_pairs(const ProbeSelf& self, const std::vector<PeerView>& peers,
                                     const std::vector<LeafPairView>& pairs,
                                     const ProbeThresholds& t, std::vector<Finding>& out) {
    std::vector<std::string> named;
    for (const PeerView& p : peers) {
        if (p.leaf_peer && lossy(p.window, t)) return named;  // this leaf is not clean
    }
    for (const LeafPairView& pair : pairs) {
        const bool loss = lossy(pair.window, t);
        const bool slow = p99_risen(pair.window, pair.baseline_p99_us, t);
        if (!loss && !slow) continue;
        std::vector<std::string> hosts;
        size_t probed = 0;
        for (const PeerView& p : peers) {
            if (p.leaf_peer || p.leaf != pair.leaf || p.window.sent == 0) continue;
            ++probed;
            if (!loss || p.window.lost > 0) hosts.push_back(p.name);
        }
        if (hosts.size() < 2 || hosts.size() < probed) continue;
        named.push_back(pair.leaf);
        const std::string what =
            loss ? fmt::format("lose probes ({} of {}, {})", pair.window.lost,
                               pair.window.answered + pair.window.lost,
                               percent(pair.window.loss_ratio))
                 : fmt::format("answer with a p99 of {:.0f} us (baseline {:.0f} us)",
                               pair.window.p99_us.value_or(0), pair.baseline_p99_us.value_or(0));
        out.push_back(make_finding(
            "probe-leaf-pair", Severity::Warning,
            fmt::format("{} -> {}: all {} hosts probed under {} {} while the hosts under {} do "
                        "not: the uplinks between the two leaves",
                        self.leaf, pair.leaf, hosts.size(), pair.leaf, what, self.leaf),
            {},
            {{"host", self.name},
             {"leaf", self.leaf},
             {"peer_leaf", pair.leaf},
             {"peers", hosts},
             {"window", window_json(pair.window)}}));
    }
    return named;
}

}  // namespace

std::vector<Finding> judge_probes(const ProbeSelf& self, const std::vector<PeerView>& peers,
                                  const std::vector<LeafPairView>& pairs,
                                  const ProbeThresholds& t) {
    std::vector<Finding> out;
    const bool host = judge_host(self, peers, t, out);
    const std::vector<std::string> leaves =
        host ? std::vector<std::string>{} : judge_pairs(self, peers, pairs, t, out);
    for (const PeerView& p : peers) {
        if (!p.unreachable.empty()) {
            out.push_back(make_finding(
                "probe-peer-unreachable", Severity::Warning,
                fmt::format("{}: no probe agent answers {}: {}", p.name, self.name, p.unreachable),
                {}, {{"host", self.name}, {"peer", p.name}, {"why", p.unreachable}}));
            continue;
        }
        // What the host or leaf pair finding already explains is not said again.
        if (host || (!p.leaf_peer && std::count(leaves.begin(), leaves.end(), p.leaf))) continue;
        json ev = {{"host", self.name}, {"peer", p.name}, {"window", window_json(p.window)}};
        if (lossy(p.window, t)) {
            out.push_back(make_finding(
                "probe-peer-loss", Severity::Error,
                fmt::format("{}: {} of {} probes from {} lost ({}) over the last {} intervals: "
                            "its link, NIC or agent",
                            p.name, p.window.lost, p.window.answered + p.window.lost, self.name,
                            percent(p.window.loss_ratio), self.window_intervals),
                {}, ev));
        } else if (p99_risen(p.window, p.baseline_p99_us, t)) {
            ev["baseline_p99_us"] = *p.baseline_p99_us;
            out.push_back(make_finding(
                "probe-peer-p99", Severity::Warning,
                fmt::format("{}: p99 round trip from {} is {:.0f} us, {:.1f} x its baseline of "
                            "{:.0f} us",
                            p.name, self.name, *p.window.p99_us,
                            *p.window.p99_us / *p.baseline_p99_us, *p.baseline_p99_us),
                {}, ev));
        }
    }
    return out;
}

}  // namespace fabscope::probe
