#include "tui/board.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/route.h"
#include "model/validation.h"

namespace fabscope::tui {
namespace {

int tier_number(const std::string& name) {
    if (name == "host") return 0;
    if (name == "leaf") return 1;
    if (name == "spine") return 2;
    if (name == "core") return 3;
    if (name.rfind("tier ", 0) == 0) return std::atoi(name.c_str() + 5);
    return kTierUnreachable;
}

std::string first_word(const std::string& s) {
    return s.substr(0, s.find(' '));
}

std::string state_text(const Port& p) {
    return fmt::format("{}/{}", name(p.state), name(p.phys_state));
}

PortRates combine(const PortRates& x, const PortRates& y) {
    PortRates r = x;
    r.xmit_gbps = std::max(x.xmit_gbps, y.xmit_gbps);
    r.rcv_gbps = std::max(x.rcv_gbps, y.rcv_gbps);
    r.errors_per_s = std::max(x.errors_per_s, y.errors_per_s);
    r.errors = std::max(x.errors, y.errors);
    if (y.xmit_wait) r.xmit_wait = std::max(x.xmit_wait.value_or(0), *y.xmit_wait);
    r.cleared = x.cleared || y.cleared;
    r.saturated = x.saturated || y.saturated;
    return r;
}

class Builder {
  public:
    explicit Builder(const BoardInput& in) : in_(in) {}

    Board build() {
        add_fabric_nodes();
        if (in_.expected) add_planned_nodes();
        add_fabric_links();
        if (in_.expected) add_planned_links();
        sort_findings();
        add_short_links();
        attach_findings();
        attach_rates();
        index_nodes();
        make_blocks();
        return std::move(b_);
    }

  private:
    size_t add_node(BoardNode n) {
        b_.nodes.push_back(std::move(n));
        return b_.nodes.size() - 1;
    }

    void add_fabric_nodes() {
        const Fabric& f = in_.fabric;
        for (size_t i = 0; i < f.nodes().size(); ++i) {
            const Node& n = f.nodes()[i];
            BoardNode bn;
            bn.name = n.description.empty() ? format_guid(n.guid) : n.description;
            bn.label = n.type == NodeType::CA ? first_word(bn.name) : bn.name;
            bn.guid = n.guid;
            bn.lid = n.lid();
            bn.type = n.type;
            bn.tier = in_.tiers.tier(i);
            b_.guid_index[n.guid] = add_node(std::move(bn));
        }
    }

    void add_planned_nodes() {
        const Plan& p = *in_.expected;
        for (const std::string& name : p.node_names()) {
            std::optional<size_t> idx;
            if (auto g = p.guids.find(name); g != p.guids.end()) idx = b_.node_of(g->second);
            if (!idx) {
                if (auto r = resolve_node(in_.fabric, name); r) idx = b_.node_of((*r)->guid);
            }
            int planned_tier = kTierUnreachable;
            for (const auto& [tier, names] : p.tiers) {
                if (std::find(names.begin(), names.end(), name) != names.end())
                    planned_tier = tier_number(tier);
            }
            if (!idx) {
                BoardNode bn;
                bn.name = name;
                bn.label = planned_tier == 0 ? first_word(name) : name;
                if (auto g = p.guids.find(name); g != p.guids.end()) bn.guid = g->second;
                bn.type = planned_tier == 0 ? NodeType::CA : NodeType::Switch;
                bn.tier = planned_tier;
                bn.present = false;
                bn.health = Health::Error;
                idx = add_node(std::move(bn));
            } else if (planned_tier != kTierUnreachable) {
                // Where the plan puts it: a leaf whose hosts are all down is still a leaf.
                b_.nodes[*idx].tier = planned_tier;
            }
            planned_[name] = *idx;
        }
    }

    void order_ends(BoardLink& l) const {
        const BoardNode& a = b_.nodes[l.a.node];
        const BoardNode& c = b_.nodes[l.b.node];
        if (a.tier > c.tier || (a.tier == c.tier && natural_less(c.name, a.name)))
            std::swap(l.a, l.b);
    }

    void add_fabric_links() {
        const Fabric& f = in_.fabric;
        for (const Link& l : f.links()) {
            BoardLink bl;
            bl.a = {*b_.node_of(l.a.node), l.a.port};
            bl.b = {*b_.node_of(l.b.node), l.b.port};
            const Port* pa = f.port(l.a);
            bl.width = pa->width_active;
            bl.speed = pa->speed_active;
            bl.state = state_text(*pa);
            const Port* pb = f.port(l.b);
            bl.health = pa->state == PortState::Active && pb->state == PortState::Active
                            ? Health::Ok
                            : Health::Warning;
            order_ends(bl);
            by_port_[l.a].push_back(b_.links.size());
            by_port_[l.b].push_back(b_.links.size());
            b_.links.push_back(std::move(bl));
        }
    }

    void add_planned_links() {
        for (const PlanLink& pl : in_.expected->links) {
            auto ia = planned_.find(pl.a.node);
            auto ib = planned_.find(pl.b.node);
            if (ia == planned_.end() || ib == planned_.end()) continue;
            const BoardNode& na = b_.nodes[ia->second];
            const BoardNode& nb = b_.nodes[ib->second];
            BoardLink bl;
            bl.a = {ia->second, pl.a.port};
            bl.b = {ib->second, pl.b.port};
            bl.health = Health::Error;
            if (na.present && nb.present) {
                const PortRef ra{na.guid, pl.a.port};
                const PortRef rb{nb.guid, pl.b.port};
                const Port* pa = in_.fabric.port(ra);
                if (pa && pa->peer == rb) continue;  // cabled as expected
                // Its ports cabled elsewhere: those cables are drawn as miscabled,
                // naming this one; it is not also drawn as down.
                if (mark_miscabled(ra, bl) + mark_miscabled(rb, bl) > 0) continue;
                bl.status = LinkStatus::Down;
                const Port* pb = in_.fabric.port(rb);
                bl.state = pa ? state_text(*pa) : pb ? state_text(*pb) : "not read";
                by_port_[ra].push_back(b_.links.size());
                by_port_[rb].push_back(b_.links.size());
            } else {
                bl.status = LinkStatus::Missing;
                bl.state = fmt::format("{} missing", na.present ? nb.label : na.label);
                for (const BoardNode* n : {&na, &nb}) {
                    if (n->present)
                        by_port_[PortRef{n->guid, n == &na ? pl.a.port : pl.b.port}].push_back(
                            b_.links.size());
                }
            }
            order_ends(bl);
            b_.links.push_back(std::move(bl));
        }
    }

    /// Two switches joined by fewer links than most pairs of their tiers
    /// (validate's link_count_asymmetry), with no expected shape that draws
    /// the missing ones: they are drawn down between the two, not left as
    /// "no link" (a cable out since the first reading is not in the shape
    /// that reading gave), that finding first on them. The ports are named
    /// when each switch has exactly one idle port outside its links to other
    /// tiers (idle_ports_toward); else "[?]".
    void add_short_links() {
        for (size_t i = 0; i < b_.findings.size(); ++i) {
            const Finding& x = b_.findings[i];
            if (x.kind != "link_count_asymmetry" || x.where.size() != 2) continue;
            const auto a = b_.node_of(x.where[0].node);
            const auto c = b_.node_of(x.where[1].node);
            if (!a || !c) continue;
            const size_t usual = x.evidence.value("usual_links", size_t{0});
            const size_t have = static_cast<size_t>(
                std::count_if(b_.links.begin(), b_.links.end(), [&](const BoardLink& l) {
                    return (l.a.node == *a && l.b.node == *c) || (l.a.node == *c && l.b.node == *a);
                }));
            if (have >= usual) continue;
            const std::vector<uint8_t> pa = idle_ports_toward(*a, b_.nodes[*c].tier);
            const std::vector<uint8_t> pc = idle_ports_toward(*c, b_.nodes[*a].tier);
            const bool one = usual - have == 1;
            const uint8_t port_a = one && pa.size() == 1 ? pa[0] : 0;
            const uint8_t port_c = one && pc.size() == 1 ? pc[0] : 0;
            const Port* known =
                port_a && port_c ? in_.fabric.port({x.where[0].node, port_a}) : nullptr;
            for (size_t k = have; k < usual; ++k) {
                BoardLink bl;
                bl.a = {*a, port_a};
                bl.b = {*c, port_c};
                bl.status = LinkStatus::Down;
                bl.health = health_of(x.severity);
                bl.state = known ? state_text(*known)
                                 : fmt::format("down ({} of {} links up)", have, usual);
                bl.findings.push_back(i);
                for (const BoardEnd& e : {bl.a, bl.b}) {
                    if (e.port)
                        by_port_[PortRef{b_.nodes[e.node].guid, e.port}].push_back(b_.links.size());
                }
                order_ends(bl);
                b_.links.push_back(std::move(bl));
            }
        }
    }

    /// Ports of board node `n` with no link that do not sit among its links
    /// to another tier than `tier` (a leaf's idle port amid its host ports is
    /// a free host port, not a missing uplink).
    std::vector<uint8_t> idle_ports_toward(size_t n, int tier) const {
        const Node* node = in_.fabric.node(b_.nodes[n].guid);
        if (!node) return {};
        std::map<int, std::pair<unsigned, unsigned>> span;  // other tier -> lowest, highest port
        for (const Port& p : node->ports) {
            if (!p.peer) continue;
            const auto far = b_.node_of(p.peer->node);
            if (!far || b_.nodes[*far].tier == tier) continue;
            auto [it, fresh] = span.try_emplace(b_.nodes[*far].tier, p.num, p.num);
            it->second.first = std::min<unsigned>(it->second.first, p.num);
            it->second.second = std::max<unsigned>(it->second.second, p.num);
        }
        std::vector<uint8_t> idle;
        for (const Port& p : node->ports) {
            if (p.num == 0 || p.peer || p.link_up()) continue;
            const bool amid_others = std::any_of(span.begin(), span.end(), [&](const auto& s) {
                return p.num >= s.second.first && p.num <= s.second.second;
            });
            if (!amid_others) idle.push_back(p.num);
        }
        return idle;
    }

    /// The cable up at `port`, if any, is not the planned `want`: it is
    /// marked miscabled and names `want`. Returns how many were marked.
    int mark_miscabled(const PortRef& port, BoardLink want) {
        auto it = by_port_.find(port);
        if (it == by_port_.end()) return 0;
        order_ends(want);
        const std::string name = fmt::format("{} ↔ {}", b_.end_name(want.a), b_.end_name(want.b));
        int marked = 0;
        for (size_t li : it->second) {
            BoardLink& l = b_.links[li];
            if (!l.cabled()) continue;
            l.status = LinkStatus::Miscabled;
            l.health = Health::Error;
            if (std::find(l.planned.begin(), l.planned.end(), name) == l.planned.end())
                l.planned.push_back(name);
            // Both its ports planned for other cables: one of a swapped pair.
            l.state = l.planned.size() > 1 ? "swapped" : "miscabled";
            ++marked;
        }
        return marked;
    }

    /// The board's findings, errors first: links refer to them by index.
    void sort_findings() {
        b_.findings = in_.findings;
        sort_by_severity(b_.findings);
    }

    void attach_findings() {
        for (size_t i = 0; i < b_.findings.size(); ++i) {
            const Finding& x = b_.findings[i];
            const Health h = health_of(x.severity);
            for (const PortRef& r : x.where) {
                auto it = by_port_.find(r);
                if (it == by_port_.end()) continue;
                for (size_t li : it->second) {
                    BoardLink& l = b_.links[li];
                    if (l.findings.empty() || l.findings.back() != i) l.findings.push_back(i);
                    l.health = std::max(l.health, h);
                }
            }
        }
    }

    void attach_rates() {
        auto at = [](const RateMap* m, const PortRef& ref) -> const PortRates* {
            if (!m) return nullptr;
            auto it = m->find(ref);
            return it == m->end() ? nullptr : &it->second;
        };
        for (auto& [ref, ids] : by_port_) {
            const PortRates* recent = at(in_.rates, ref);
            const PortRates* total = at(in_.totals, ref);
            for (size_t li : ids) {
                BoardLink& l = b_.links[li];
                if (!l.cabled()) continue;
                if (recent) l.rates = l.rates ? combine(*l.rates, *recent) : *recent;
                if (total) l.errors_total = std::max(l.errors_total.value_or(0), total->errors);
            }
        }
    }

    void index_nodes() {
        for (size_t li = 0; li < b_.links.size(); ++li) {
            const BoardLink& l = b_.links[li];
            for (size_t n : {l.a.node, l.b.node}) {
                b_.nodes[n].links.push_back(li);
                if (b_.nodes[n].present)
                    b_.nodes[n].health = std::max(b_.nodes[n].health, l.health);
            }
        }
        int max_tier = 0;
        for (const BoardNode& n : b_.nodes) max_tier = std::max(max_tier, n.tier);
        b_.tiers.assign(static_cast<size_t>(max_tier) + 1, {});
        for (size_t i = 0; i < b_.nodes.size(); ++i) {
            BoardNode& n = b_.nodes[i];
            auto port_of = [&](size_t li) {
                const BoardLink& l = b_.links[li];
                return l.a.node == i ? l.a.port : l.b.port;
            };
            std::stable_sort(n.links.begin(), n.links.end(),
                             [&](size_t x, size_t y) { return port_of(x) < port_of(y); });
            if (n.tier >= 0) {
                b_.tiers[static_cast<size_t>(n.tier)].push_back(i);
            } else {
                b_.unreachable.push_back(i);
            }
        }
        auto by_name = [&](size_t x, size_t y) {
            return natural_less(b_.nodes[x].name, b_.nodes[y].name);
        };
        for (auto& t : b_.tiers) std::sort(t.begin(), t.end(), by_name);
        std::sort(b_.unreachable.begin(), b_.unreachable.end(), by_name);
    }

    void make_blocks() {
        const int max_tier = static_cast<int>(b_.tiers.size()) - 1;
        if (max_tier < 1) return;
        for (int t = std::max(1, max_tier - 1); t >= 1; --t) {
            TierBlock blk;
            blk.tier = t;
            blk.rows = b_.tiers[static_cast<size_t>(t)];
            if (t + 1 <= max_tier) blk.cols = b_.tiers[static_cast<size_t>(t) + 1];
            std::map<size_t, size_t> col_of;
            for (size_t c = 0; c < blk.cols.size(); ++c) col_of[blk.cols[c]] = c;
            blk.cells.assign(blk.rows.size() * blk.cols.size(), {});
            blk.down.assign(blk.rows.size(), {});
            for (size_t r = 0; r < blk.rows.size(); ++r) {
                const size_t me = blk.rows[r];
                for (size_t li : b_.nodes[me].links) {
                    const BoardLink& l = b_.links[li];
                    const size_t other = l.a.node == me ? l.b.node : l.a.node;
                    const int ot = b_.nodes[other].tier;
                    if (ot == t + 1) {
                        if (auto c = col_of.find(other); c != col_of.end())
                            blk.cells[r * blk.cols.size() + c->second].push_back(li);
                    } else if (ot == t - 1 && t == 1) {
                        blk.down[r].push_back(li);
                    }
                }
            }
            b_.blocks.push_back(std::move(blk));
        }
    }

    const BoardInput& in_;
    Board b_;
    std::map<std::string, size_t> planned_;           // plan name -> node
    std::map<PortRef, std::vector<size_t>> by_port_;  // present port -> links at it
};

}  // namespace

size_t Board::count(LinkStatus s) const {
    return static_cast<size_t>(std::count_if(links.begin(), links.end(),
                                             [&](const BoardLink& l) { return l.status == s; }));
}

size_t Board::count(Health h) const {
    return static_cast<size_t>(std::count_if(links.begin(), links.end(),
                                             [&](const BoardLink& l) { return l.health == h; }));
}

std::string Board::end_name(const BoardEnd& e) const {
    // Port 0 has no cable: a link drawn with it does not know its port.
    if (e.port == 0) return fmt::format("{}[?]", nodes[e.node].label);
    return fmt::format("{}[{}]", nodes[e.node].label, e.port);
}

std::optional<size_t> Board::node_of(Guid g) const {
    auto it = guid_index.find(g);
    if (it == guid_index.end()) return std::nullopt;
    return it->second;
}

Board build_board(const BoardInput& in) {
    return Builder(in).build();
}

Health health_of(Severity s) {
    switch (s) {
        case Severity::Info: return Health::Ok;
        case Severity::Warning: return Health::Warning;
        case Severity::Error: return Health::Error;
    }
    return Health::Unknown;
}

bool natural_less(const std::string& a, const std::string& b) {
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (da && db) {
            size_t ie = i;
            size_t je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
            // Compare by value: strip leading zeros, then length, then digits.
            size_t ia = i;
            size_t jb = j;
            while (ia + 1 < ie && a[ia] == '0') ++ia;
            while (jb + 1 < je && b[jb] == '0') ++jb;
            if (ie - ia != je - jb) return ie - ia < je - jb;
            if (int c = a.compare(ia, ie - ia, b, jb, je - jb); c != 0) return c < 0;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

}  // namespace fabscope::tui
