#include "congestion/xmit_wait_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "model/port_label.h"

namespace fabscope {
namespace {

bool hotter(const WaitingPort& a, const WaitingPort& b) {
    if (a.share != b.share) return a.share > b.share;
    return a.port < b.port;
}

Severity severity_of(double share, const XmitWaitLimit& t) {
    if (share >= t.error) return Severity::Error;
    return share >= t.warn ? Severity::Warning : Severity::Info;
}

std::string cause_of(const Fabric& f, PortRef root, bool in_loop) {
    if (in_loop) return "loop";
    const Port* p = f.port(root);
    const Node* peer = p && p->peer ? f.node(p->peer->node) : nullptr;
    return peer && peer->type != NodeType::Switch ? "slow_receiver" : "bottleneck_link";
}

std::string cause_text(const std::string& cause) {
    if (cause == "slow_receiver")
        return "the host behind it takes data slower than it comes (a slow receiver)";
    if (cause == "loop") return "it waits toward ports that wait back (a credit loop?)";
    return "its next hops do not wait: this link, or the switch behind it, is the bottleneck";
}

std::string percent_of(const WaitingPort& w) {
    return fmt::format("{:.1f}% of {:.1f} s (PortXmitWait +{}{})", std::min(w.share, 1.0) * 100,
                       w.interval_s, w.cleared ? "at least " : "", w.ticks);
}

nlohmann::json chain_json(const Fabric& f, const std::vector<PortRef>& chain) {
    nlohmann::json a = nlohmann::json::array();
    for (const PortRef& r : chain) a.push_back(to_json(port_label(f, r)));
    return a;
}

}  // namespace

std::vector<WaitingPort> xmit_wait_shares(const Fabric& f, const CounterReadings& before,
                                          const CounterReadings& after, int tick_multiplier) {
    std::vector<WaitingPort> out;
    for (const auto& [ref, a] : after) {
        auto it = before.find(ref);
        if (it == before.end()) continue;
        const int64_t ms = a.read_at_ms - it->second.read_at_ms;
        const Port* port = f.port(ref);
        if (ms <= 0 || !port || !port->speed_active) continue;
        const auto rise = counter_rise(it->second, a, Counter::PortXmitWait);
        if (!rise) continue;
        WaitingPort w;
        w.port = ref;
        w.ticks = rise->delta;
        w.cleared = rise->cleared;
        w.interval_s = static_cast<double>(ms) / 1000.0;
        w.share =
            static_cast<double>(rise->delta) *
            xmit_wait_tick_seconds(*port->speed_active,
                                   xmit_wait_tick_multiplier(f.node(ref.node), tick_multiplier)) /
            w.interval_s;
        out.push_back(w);
    }
    std::sort(out.begin(), out.end(), hotter);
    return out;
}

std::vector<PortRef> next_hops(const Fabric& f, PortRef p) {
    const Node* a = f.node(p.node);
    const Port* pp = f.port(p);
    if (!a || !pp || !pp->peer) return {};
    const Node* b = f.node(pp->peer->node);
    if (!b || b->type != NodeType::Switch) return {};
    const uint8_t in = pp->peer->port;
    auto onward = [&](uint8_t e) {
        const Port* q = b->port(e);
        return e != 0 && e != in && q && q->peer;
    };
    std::set<uint8_t> out;
    const bool a_routes = a->type != NodeType::Switch || !a->lft.empty();
    if (b->lft.empty() || !a_routes) {
        for (const Port& q : b->ports) {
            if (onward(q.num)) out.insert(q.num);
        }
    } else {
        for (size_t lid = 1; lid < b->lft.size(); ++lid) {
            if (a->type == NodeType::Switch) {
                if (lid >= a->lft.size() || a->lft[lid] != p.port) continue;
            } else if (a->answers_to(static_cast<Lid>(lid))) {
                continue;
            }
            if (const uint8_t e = b->lft[lid]; e != 255 && onward(e)) out.insert(e);
        }
    }
    std::vector<PortRef> hops;
    hops.reserve(out.size());
    for (uint8_t e : out) hops.push_back(PortRef{b->guid, e});
    return hops;
}

std::vector<CongestionTree> congestion_trees(const Fabric& f, const std::vector<WaitingPort>& ports,
                                             double min_share) {
    std::map<PortRef, WaitingPort> waiting;
    for (const WaitingPort& w : ports) {
        if (w.share > 0 && w.share >= min_share) waiting[w.port] = w;
    }
    std::map<PortRef, std::vector<PortRef>> children;
    for (const auto& [ref, w] : waiting) {
        for (const PortRef& h : next_hops(f, ref)) {
            if (waiting.count(h)) children[ref].push_back(h);
        }
    }
    std::map<PortRef, CongestionTree> trees;
    for (const auto& [ref, w] : waiting) {
        if (children[ref].empty()) trees[ref] = CongestionTree{w, cause_of(f, ref, false), {}};
    }
    // Every other waiting port is a victim of the roots it reaches.
    std::set<PortRef> placed;
    for (const auto& [ref, w] : waiting) {
        if (trees.count(ref)) continue;
        std::map<PortRef, PortRef> parent{{ref, ref}};
        std::deque<PortRef> queue{ref};
        while (!queue.empty()) {
            PortRef at = queue.front();
            queue.pop_front();
            if (trees.count(at)) {
                std::vector<PortRef> chain{at};
                while (chain.back() != ref) chain.push_back(parent.at(chain.back()));
                std::reverse(chain.begin(), chain.end());
                trees[at].victims.push_back(Victim{w, std::move(chain)});
                placed.insert(ref);
                continue;
            }
            for (const PortRef& c : children[at]) {
                if (parent.emplace(c, at).second) queue.push_back(c);
            }
        }
    }
    // Ports that only reach each other (no root below them): each its own tree.
    for (const auto& [ref, w] : waiting) {
        if (!trees.count(ref) && !placed.count(ref))
            trees[ref] = CongestionTree{w, cause_of(f, ref, true), {}};
    }
    std::vector<CongestionTree> out;
    for (auto& [ref, t] : trees) {
        std::sort(t.victims.begin(), t.victims.end(),
                  [](const Victim& a, const Victim& b) { return hotter(a.wait, b.wait); });
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(), [](const CongestionTree& a, const CongestionTree& b) {
        if (a.victims.size() != b.victims.size()) return a.victims.size() > b.victims.size();
        return hotter(a.root, b.root);
    });
    return out;
}

std::vector<Finding> congestion_findings(const Fabric& f, const std::vector<CongestionTree>& trees,
                                         const XmitWaitLimit& t) {
    std::vector<Finding> roots;
    std::vector<Finding> victims;
    std::set<PortRef> told;
    for (const CongestionTree& tree : trees) {
        const WaitingPort& r = tree.root;
        std::string behind;
        nlohmann::json vj = nlohmann::json::array();
        for (const Victim& v : tree.victims) {
            behind += fmt::format("{}{}", behind.empty() ? "" : ", ", describe(f, v.wait.port));
            nlohmann::json one = to_json(port_label(f, v.wait.port));
            one["share"] = v.wait.share;
            vj.push_back(std::move(one));
        }
        Finding x;
        x.kind = "congestion_root";
        x.severity = severity_of(r.share, t);
        x.summary =
            fmt::format("{}: root of a congestion tree: waited to transmit {}; {}",
                        describe_with_link(f, r.port), percent_of(r), cause_text(tree.cause));
        if (!tree.victims.empty())
            x.summary +=
                fmt::format("; {} {} behind it: {}", tree.victims.size(),
                            tree.victims.size() == 1 ? "port waits" : "ports wait", behind);
        x.where = port_and_peer(f, r.port);
        x.evidence = {{"share", r.share},           {"delta_ticks", r.ticks},
                      {"interval_s", r.interval_s}, {"cleared_during_interval", r.cleared},
                      {"cause", tree.cause},        {"victims", std::move(vj)}};
        roots.push_back(std::move(x));
        for (const Victim& v : tree.victims) {
            if (!told.insert(v.wait.port).second) continue;
            std::string chain;
            for (const PortRef& c : v.chain)
                chain += fmt::format("{}{}", chain.empty() ? "" : " -> ", describe(f, c));
            Finding y;
            y.kind = "congestion_victim";
            y.severity = severity_of(v.wait.share, t);
            y.summary = fmt::format(
                "{}: waited to transmit {}: a victim of the congestion at {} ({}), not its cause",
                describe_with_link(f, v.wait.port), percent_of(v.wait), describe(f, r.port), chain);
            y.where = port_and_peer(f, v.wait.port);
            y.evidence = {{"share", v.wait.share},
                          {"delta_ticks", v.wait.ticks},
                          {"interval_s", v.wait.interval_s},
                          {"cleared_during_interval", v.wait.cleared},
                          {"root", to_json(port_label(f, r.port))},
                          {"chain", chain_json(f, v.chain)}};
            victims.push_back(std::move(y));
        }
    }
    roots.insert(roots.end(), victims.begin(), victims.end());
    return roots;
}

}  // namespace fabscope
