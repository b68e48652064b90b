#include "model/plan_diff.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "model/route.h"

namespace fabscope {
namespace {

// How a finding names what was expected: a plan's "planned", a baseline's "was".
struct Words {
    const char* planned;  // "planned spine01[1]" / "was spine01[1]"
    const char* source;   // "not in the plan" / "not in the baseline"
};
constexpr Words kPlanWords{"planned", "the plan"};
constexpr Words kBaselineWords{"was", "the baseline"};

// The fabric's nodes by the names a plan may use, built once, so resolving
// every name of a large plan is linear, not one scan of the fabric per name.
class NameIndex {
  public:
    explicit NameIndex(const Fabric& f) : f_(f) {
        for (const Node& n : f.nodes()) {
            by_description_.emplace(n.description, &n);  // the first one wins, as in find()
            if (auto sp = n.description.find(' '); sp != std::string::npos)
                by_first_word_[n.description.substr(0, sp)].push_back(&n);
        }
    }
    /// The node `name` means, as resolve_node() would find it; nullptr when
    /// none or more than one.
    const Node* find(const std::string& name) const {
        if (auto it = by_description_.find(name); it != by_description_.end()) return it->second;
        bool simple = name.find(' ') == std::string::npos && !name.empty() &&
                      !(name.size() > 2 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) &&
                      name.find_first_not_of("0123456789") != std::string::npos;
        if (!simple) {
            // A GUID, a LID or a name with spaces: rare in plans; the full rules.
            auto r = resolve_node(f_, name);
            return r ? *r : nullptr;
        }
        auto it = by_first_word_.find(name);
        return it != by_first_word_.end() && it->second.size() == 1 ? it->second.front() : nullptr;
    }

  private:
    const Fabric& f_;
    std::unordered_map<std::string, const Node*> by_description_;
    std::unordered_map<std::string, std::vector<const Node*>> by_first_word_;
};

struct Ctx {
    const Plan& plan;
    const Fabric& f;
    const Tiers& tiers;
    Words words;
    std::map<std::string, const Node*> nodes;  // plan name -> node (resolved)
    std::set<std::string> missing;
    std::unordered_map<std::string, std::string> planned_tier;  // plan name -> tier
    PlanDiff out;

    std::optional<PortRef> ref(const PlanEnd& e) const {
        auto it = nodes.find(e.node);
        if (it == nodes.end() || !it->second) return std::nullopt;
        return PortRef{it->second->guid, e.port};
    }
    std::string show(PortRef r) const { return describe(f, r); }
    void add(std::string kind, Severity s, std::string summary, std::vector<PortRef> where,
             nlohmann::json ev) {
        out.findings.push_back(
            Finding{std::move(kind), s, std::move(summary), std::move(where), std::move(ev)});
    }
};

// Resolves plan names; a name that no node answers to is a missing node.
void resolve(Ctx& c) {
    c.nodes = resolve_plan_names(c.plan, c.f, c.plan.node_names());
    for (const auto& [name, n] : c.nodes) {
        if (!n) c.missing.insert(name);
    }
    for (const auto& [tier, names] : c.plan.tiers) {
        for (const std::string& name : names) c.planned_tier.emplace(name, tier);
    }
}

std::string planned_tier_of(const Ctx& c, const std::string& name) {
    auto it = c.planned_tier.find(name);
    return it == c.planned_tier.end() ? "" : it->second;
}

void nodes_missing_new_replaced(Ctx& c) {
    // A missing node's planned neighbours, found in one pass over the links.
    std::map<std::string, std::vector<const PlanEnd*>> neighbours;
    for (const PlanLink& l : c.plan.links) {
        if (c.missing.count(l.a.node)) neighbours[l.a.node].push_back(&l.b);
        if (c.missing.count(l.b.node)) neighbours[l.b.node].push_back(&l.a);
    }
    for (const std::string& name : c.missing) {
        // Where it should be: the planned neighbours' ports.
        std::vector<PortRef> where;
        std::vector<std::string> at;
        for (const PlanEnd* other : neighbours[name]) {
            if (auto r = c.ref(*other)) {
                where.push_back(*r);
                at.push_back(c.show(*r));
            }
        }
        std::string tier = planned_tier_of(c, name);
        c.add(
            "node_missing", Severity::Error,
            fmt::format(
                "{}{} is missing{}", tier.empty() ? "" : tier + " ", name,
                at.empty() ? "" : fmt::format(" ({} on {})", c.words.planned, fmt::join(at, ", "))),
            where, {{"node", name}, {"planned_tier", tier}});
    }
    std::set<Guid> planned;
    for (const auto& [name, n] : c.nodes) {
        if (!n) continue;
        planned.insert(n->guid);
        auto g = c.plan.guids.find(name);
        if (g != c.plan.guids.end() && g->second != n->guid) {
            c.add("node_replaced", Severity::Info,
                  fmt::format("{} answers with GUID {}, {} {} (replaced hardware?)", name,
                              format_guid(n->guid), c.words.planned, format_guid(g->second)),
                  {PortRef{n->guid, 0}},
                  {{"node", name},
                   {"guid", format_guid(n->guid)},
                   {"planned_guid", format_guid(g->second)}});
        }
        std::string tier = planned_tier_of(c, name);
        int actual = c.tiers.tier(*c.f.index_of(n->guid));
        if (!tier.empty() && tier_name(actual) != tier) {
            c.add("tier_mismatch", Severity::Warning,
                  fmt::format("{} is a {} by its links, {} {}", name, tier_name(actual),
                              c.words.planned, tier),
                  {PortRef{n->guid, 0}},
                  {{"node", name}, {"tier", tier_name(actual)}, {"planned_tier", tier}});
        }
    }
    for (size_t i = 0; i < c.f.nodes().size(); ++i) {
        const Node& n = c.f.nodes()[i];
        if (planned.count(n.guid)) continue;
        // New only where the plan enumerates: all links, or this node's tier.
        if (c.plan.links.empty() && !c.plan.tiers.count(tier_name(c.tiers.tier(i)))) continue;
        c.add("node_new", Severity::Warning,
              fmt::format("{} ({}, {}) is not in {}",
                          n.description.empty() ? format_guid(n.guid) : n.description, name(n.type),
                          format_guid(n.guid), c.words.source),
              {PortRef{n.guid, 0}}, {{"node", n.description}, {"guid", format_guid(n.guid)}});
    }
}

/// A planned cable end, named as the plan names it.
PortLabel planned_label(const Ctx& c, const PlanEnd& e) {
    PortLabel l;
    l.node = e.node;
    l.port = e.port;
    if (auto r = c.ref(e)) {
        l.node_guid = r->node;
        l.lid = port_label(c.f, *r).lid;
    } else if (auto g = c.plan.guids.find(e.node); g != c.plan.guids.end()) {
        l.node_guid = g->second;
    }
    return l;
}

/// The plan's cables between ports of nodes found, both ways, the plan's
/// link behind each port, and the ports a finding already covers.
struct PlannedCables {
    std::map<PortRef, PortRef> planned;  // both directions
    std::map<PortRef, const PlanLink*> plan_of;
    std::set<PortRef> explained;
};

/// The plan's cables, also noted in the diff's cables and planned ports.
PlannedCables planned_cables(Ctx& c) {
    PlannedCables out;
    for (const PlanLink& l : c.plan.links) {
        c.out.cables.emplace_back(planned_label(c, l.a), planned_label(c, l.b));
        auto a = c.ref(l.a);
        auto b = c.ref(l.b);
        for (auto r : {a, b}) {
            if (r) c.out.planned_ports.push_back(*r);
        }
        if (!a || !b) continue;  // a missing node: reported as such
        out.planned[*a] = *b;
        out.planned[*b] = *a;
        out.plan_of[*a] = &l;
        out.plan_of[*b] = &l;
    }
    return out;
}

/// The port `r` is cabled to, if it is up.
std::optional<PortRef> actual_peer(const Ctx& c, PortRef r) {
    const Port* p = c.f.port(r);
    return p && p->peer ? p->peer : std::nullopt;
}

/// Swaps: planned x-y and w-z, cabled x-z and w-y.
void swapped_cables(Ctx& c, PlannedCables& p) {
    for (const auto& [x, y] : p.planned) {
        if (p.explained.count(x)) continue;
        auto z = actual_peer(c, x);
        if (!z || *z == y || !p.planned.count(*z)) continue;
        PortRef w = p.planned.at(*z);
        auto wy = actual_peer(c, w);
        if (!wy || *wy != y) continue;
        for (PortRef r : {x, y, *z, w}) p.explained.insert(r);
        c.add("cables_swapped", Severity::Error,
              fmt::format("cables swapped: {} goes to {} ({} {}), {} goes to {} ({} {})", c.show(x),
                          c.show(*z), c.words.planned, c.show(y), c.show(w), c.show(y),
                          c.words.planned, c.show(*z)),
              {x, *z, w, y},
              {{"cables",
                {{{"port", c.show(x)}, {"to", c.show(*z)}, {"planned", c.show(y)}},
                 {{"port", c.show(w)}, {"to", c.show(y)}, {"planned", c.show(*z)}}}}});
    }
}

/// A cable up as planned: at the planned rate?
void rate_as_planned(Ctx& c, const PlanLink& l, PortRef x, PortRef y) {
    const Port* p = c.f.port(x);
    auto want_w = l.width ? l.width : c.plan.width;
    auto want_s = l.speed ? l.speed : c.plan.speed;
    bool narrow = want_w && p->width_active && *p->width_active < *want_w;
    bool slow = want_s && p->speed_active && *p->speed_active < *want_s;
    if (!narrow && !slow) return;
    Width w = p->width_active.value_or(Width::X1);
    Speed s = p->speed_active.value_or(Speed::SDR);
    Width pw = want_w.value_or(w);
    Speed ps = want_s.value_or(s);
    c.add("degraded_link", Severity::Warning,
          fmt::format("{} <-> {} runs {} {} ({:g} Gb/s), {} {} {} ({:g} Gb/s)", c.show(x),
                      c.show(y), name(w), name(s), link_data_gbps(w, s), c.words.planned, name(pw),
                      name(ps), link_data_gbps(pw, ps)),
          {x, y},
          {{"width", name(w)},
           {"speed", name(s)},
           {"planned_width", name(pw)},
           {"planned_speed", name(ps)}});
}

/// A planned cable with neither end cabled: down, with both ports' states.
void planned_link_down(Ctx& c, PortRef x, PortRef y) {
    const Port* px = c.f.port(x);
    const Port* py = c.f.port(y);
    auto state = [](const Port* p) {
        return p ? fmt::format("{}/{}", name(p->state), name(p->phys_state))
                 : std::string("not read");
    };
    c.add("link_down", Severity::Error,
          fmt::format("{} <-> {} is down ({}, {})", c.show(x), c.show(y), state(px), state(py)),
          {x, y}, {{"a_state", state(px)}, {"b_state", state(py)}});
}

/// Each planned cable once: up as planned (at its rate), down, or an end
/// cabled elsewhere.
void cables_as_planned(Ctx& c, PlannedCables& p) {
    for (const auto& [x, y] : p.planned) {
        if (p.explained.count(x) || x > y) continue;  // each planned cable once
        auto ax = actual_peer(c, x);
        auto ay = actual_peer(c, y);
        if (ax && *ax == y) {
            rate_as_planned(c, *p.plan_of.at(x), x, y);
            continue;
        }
        p.explained.insert(x);
        p.explained.insert(y);
        if (!ax && !ay) {
            planned_link_down(c, x, y);
            continue;
        }
        // At least one end is cabled elsewhere.
        for (auto [here, there, now] : {std::tuple{x, y, ax}, std::tuple{y, x, ay}}) {
            if (!now) continue;
            p.explained.insert(*now);
            c.add("miswired", Severity::Error,
                  fmt::format("{} goes to {}, {} {}", c.show(here), c.show(*now), c.words.planned,
                              c.show(there)),
                  {here, *now, there},
                  {{"port", c.show(here)}, {"to", c.show(*now)}, {"planned", c.show(there)}});
        }
    }
}

/// Cables between planned nodes that the plan does not have.
void unplanned_cables(Ctx& c, const PlannedCables& p) {
    std::set<Guid> planned_nodes;
    for (const auto& [name, n] : c.nodes) {
        if (n) planned_nodes.insert(n->guid);
    }
    bool explicit_links = !c.plan.links.empty();
    for (const Link& l : c.f.links()) {
        if (!explicit_links || p.planned.count(l.a) || p.planned.count(l.b)) continue;
        if (p.explained.count(l.a) || p.explained.count(l.b)) continue;
        if (!planned_nodes.count(l.a.node) || !planned_nodes.count(l.b.node)) continue;
        c.add("unexpected_link", Severity::Warning,
              fmt::format("{} <-> {} is cabled but not in {}", c.show(l.a), c.show(l.b),
                          c.words.source),
              {l.a, l.b}, nlohmann::json::object());
    }
}

void links(Ctx& c) {
    PlannedCables p = planned_cables(c);
    swapped_cables(c, p);
    cables_as_planned(c, p);
    unplanned_cables(c, p);
}

void leaf_spine_counts(Ctx& c) {
    if (!c.plan.links_per_leaf_spine) return;
    std::map<std::pair<Guid, Guid>, int> n;
    for (const Link& l : c.f.links()) {
        n[{l.a.node, l.b.node}]++;
        n[{l.b.node, l.a.node}]++;
    }
    for (const std::string& leaf : c.plan.tiers.at("leaf")) {
        for (const std::string& spine : c.plan.tiers.at("spine")) {
            const Node* a = c.nodes.count(leaf) ? c.nodes.at(leaf) : nullptr;
            const Node* b = c.nodes.count(spine) ? c.nodes.at(spine) : nullptr;
            if (!a || !b) continue;
            int have = n.count({a->guid, b->guid}) ? n.at({a->guid, b->guid}) : 0;
            if (have == c.plan.links_per_leaf_spine) continue;
            c.add("leaf_spine_links",
                  have < c.plan.links_per_leaf_spine ? Severity::Error : Severity::Warning,
                  fmt::format("{} and {} are joined by {} link{}, {} {}", leaf, spine, have,
                              have == 1 ? "" : "s", c.words.planned, c.plan.links_per_leaf_spine),
                  {PortRef{a->guid, 0}, PortRef{b->guid, 0}},
                  {{"links", have}, {"planned", c.plan.links_per_leaf_spine}});
        }
    }
}

}  // namespace

std::map<std::string, const Node*> resolve_plan_names(const Plan& plan, const Fabric& f,
                                                      const std::vector<std::string>& names) {
    NameIndex index(f);
    std::map<std::string, const Node*> out;
    for (const std::string& name : names) {
        const Node* n = nullptr;
        if (auto g = plan.guids.find(name); g != plan.guids.end()) n = f.node(g->second);
        if (!n) n = index.find(name);
        out[name] = n;
    }
    return out;
}

PlanDiff diff_against_plan(const Plan& plan, const Fabric& f, const Tiers& tiers,
                           Expected expected) {
    Ctx c{plan, f,  tiers, expected == Expected::Baseline ? kBaselineWords : kPlanWords,
          {},   {}, {},    {}};
    resolve(c);
    nodes_missing_new_replaced(c);
    links(c);
    leaf_spine_counts(c);
    return std::move(c.out);
}

}  // namespace fabscope
