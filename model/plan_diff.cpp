#include "model/plan_diff.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "model/route.h"

namespace fabscope {
namespace {

struct Ctx {
    const Plan& plan;
    const Fabric& f;
    const Tiers& tiers;
    std::map<std::string, const Node*> nodes;  // plan name -> node (resolved)
    std::set<std::string> missing;
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
    for (const std::string& name : c.plan.node_names()) {
        const Node* n = nullptr;
        if (auto g = c.plan.guids.find(name); g != c.plan.guids.end()) n = c.f.node(g->second);
        if (!n) {
            auto r = resolve_node(c.f, name);
            if (r) n = *r;
        }
        c.nodes[name] = n;
        if (!n) c.missing.insert(name);
    }
}

std::string planned_tier_of(const Plan& p, const std::string& name) {
    for (const auto& [tier, names] : p.tiers) {
        if (std::find(names.begin(), names.end(), name) != names.end()) return tier;
    }
    return "";
}

void nodes_missing_new_replaced(Ctx& c) {
    for (const std::string& name : c.missing) {
        // Where it should be: the planned neighbours' ports.
        std::vector<PortRef> where;
        std::vector<std::string> at;
        for (const PlanLink& l : c.plan.links) {
            const PlanEnd* other = l.a.node == name ? &l.b : l.b.node == name ? &l.a : nullptr;
            if (!other) continue;
            if (auto r = c.ref(*other)) {
                where.push_back(*r);
                at.push_back(c.show(*r));
            }
        }
        std::string tier = planned_tier_of(c.plan, name);
        c.add("node_missing", Severity::Error,
              fmt::format("{}{} is missing{}", tier.empty() ? "" : tier + " ", name,
                          at.empty() ? "" : fmt::format(" (planned on {})", fmt::join(at, ", "))),
              where, {{"node", name}, {"planned_tier", tier}});
    }
    std::set<Guid> planned;
    for (const auto& [name, n] : c.nodes) {
        if (!n) continue;
        planned.insert(n->guid);
        auto g = c.plan.guids.find(name);
        if (g != c.plan.guids.end() && g->second != n->guid) {
            c.add("node_replaced", Severity::Info,
                  fmt::format("{} answers with GUID {}, planned {} (replaced hardware?)", name,
                              format_guid(n->guid), format_guid(g->second)),
                  {PortRef{n->guid, 0}},
                  {{"node", name},
                   {"guid", format_guid(n->guid)},
                   {"planned_guid", format_guid(g->second)}});
        }
        std::string tier = planned_tier_of(c.plan, name);
        int actual = c.tiers.tier(*c.f.index_of(n->guid));
        if (!tier.empty() && tier_name(actual) != tier) {
            c.add("tier_mismatch", Severity::Warning,
                  fmt::format("{} is a {} by its links, planned {}", name, tier_name(actual), tier),
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
              fmt::format("{} ({}, {}) is not in the plan",
                          n.description.empty() ? format_guid(n.guid) : n.description, name(n.type),
                          format_guid(n.guid)),
              {PortRef{n.guid, 0}}, {{"node", n.description}, {"guid", format_guid(n.guid)}});
    }
}

void links(Ctx& c) {
    std::map<PortRef, PortRef> planned;  // both directions
    std::map<PortRef, const PlanLink*> plan_of;
    for (const PlanLink& l : c.plan.links) {
        auto a = c.ref(l.a);
        auto b = c.ref(l.b);
        for (auto r : {a, b}) {
            if (r) c.out.planned_ports.push_back(*r);
        }
        if (!a || !b) continue;  // a missing node: reported as such
        planned[*a] = *b;
        planned[*b] = *a;
        plan_of[*a] = &l;
        plan_of[*b] = &l;
    }
    auto actual = [&](PortRef r) -> std::optional<PortRef> {
        const Port* p = c.f.port(r);
        return p && p->peer ? p->peer : std::nullopt;
    };
    std::set<PortRef> explained;  // ports already covered by a finding
    // Swaps: planned x-y and w-z, cabled x-z and w-y.
    for (const auto& [x, y] : planned) {
        if (explained.count(x)) continue;
        auto z = actual(x);
        if (!z || *z == y || !planned.count(*z)) continue;
        PortRef w = planned.at(*z);
        auto wy = actual(w);
        if (!wy || *wy != y) continue;
        for (PortRef r : {x, y, *z, w}) explained.insert(r);
        c.add("cables_swapped", Severity::Error,
              fmt::format("cables swapped: {} goes to {} (planned {}), {} goes to {} (planned {})",
                          c.show(x), c.show(*z), c.show(y), c.show(w), c.show(y), c.show(*z)),
              {x, *z, w, y},
              {{"cables",
                {{{"port", c.show(x)}, {"to", c.show(*z)}, {"planned", c.show(y)}},
                 {{"port", c.show(w)}, {"to", c.show(y)}, {"planned", c.show(*z)}}}}});
    }
    for (const auto& [x, y] : planned) {
        if (explained.count(x) || x > y) continue;  // each planned cable once
        auto ax = actual(x);
        auto ay = actual(y);
        if (ax && *ax == y) {
            // Up as planned: at the planned rate?
            const PlanLink* l = plan_of.at(x);
            const Port* p = c.f.port(x);
            auto want_w = l->width ? l->width : c.plan.width;
            auto want_s = l->speed ? l->speed : c.plan.speed;
            bool narrow = want_w && p->width_active && *p->width_active < *want_w;
            bool slow = want_s && p->speed_active && *p->speed_active < *want_s;
            if (narrow || slow) {
                Width w = p->width_active.value_or(Width::X1);
                Speed s = p->speed_active.value_or(Speed::SDR);
                Width pw = want_w.value_or(w);
                Speed ps = want_s.value_or(s);
                c.add("degraded_link", Severity::Warning,
                      fmt::format("{} <-> {} runs {} {} ({:g} Gb/s), planned {} {} ({:g} Gb/s)",
                                  c.show(x), c.show(y), name(w), name(s), link_data_gbps(w, s),
                                  name(pw), name(ps), link_data_gbps(pw, ps)),
                      {x, y},
                      {{"width", name(w)},
                       {"speed", name(s)},
                       {"planned_width", name(pw)},
                       {"planned_speed", name(ps)}});
            }
            continue;
        }
        explained.insert(x);
        explained.insert(y);
        if (!ax && !ay) {
            const Port* px = c.f.port(x);
            const Port* py = c.f.port(y);
            auto state = [](const Port* p) {
                return p ? fmt::format("{}/{}", name(p->state), name(p->phys_state))
                         : std::string("not read");
            };
            c.add("link_down", Severity::Error,
                  fmt::format("{} <-> {} is down ({}, {})", c.show(x), c.show(y), state(px),
                              state(py)),
                  {x, y}, {{"a_state", state(px)}, {"b_state", state(py)}});
            continue;
        }
        // At least one end is cabled elsewhere.
        for (auto [here, there, now] : {std::tuple{x, y, ax}, std::tuple{y, x, ay}}) {
            if (!now) continue;
            explained.insert(*now);
            c.add(
                "miswired", Severity::Error,
                fmt::format("{} goes to {}, planned {}", c.show(here), c.show(*now), c.show(there)),
                {here, *now, there},
                {{"port", c.show(here)}, {"to", c.show(*now)}, {"planned", c.show(there)}});
        }
    }
    // Cables between planned nodes that the plan does not have.
    std::set<Guid> planned_nodes;
    for (const auto& [name, n] : c.nodes) {
        if (n) planned_nodes.insert(n->guid);
    }
    bool explicit_links = !c.plan.links.empty();
    for (const Link& l : c.f.links()) {
        if (!explicit_links || planned.count(l.a) || planned.count(l.b)) continue;
        if (explained.count(l.a) || explained.count(l.b)) continue;
        if (!planned_nodes.count(l.a.node) || !planned_nodes.count(l.b.node)) continue;
        c.add("unexpected_link", Severity::Warning,
              fmt::format("{} <-> {} is cabled but not in the plan", c.show(l.a), c.show(l.b)),
              {l.a, l.b}, {});
    }
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
                  fmt::format("{} and {} are joined by {} link{}, planned {}", leaf, spine, have,
                              have == 1 ? "" : "s", c.plan.links_per_leaf_spine),
                  {PortRef{a->guid, 0}, PortRef{b->guid, 0}},
                  {{"links", have}, {"planned", c.plan.links_per_leaf_spine}});
        }
    }
}

}  // namespace

PlanDiff diff_against_plan(const Plan& plan, const Fabric& f, const Tiers& tiers) {
    Ctx c{plan, f, tiers, {}, {}, {}};
    resolve(c);
    nodes_missing_new_replaced(c);
    links(c);
    leaf_spine_counts(c);
    return std::move(c.out);
}

}  // namespace fabscope
