#include "check/link_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace fabscope {
namespace {

std::string link_name(const Fabric& f, const Link& l) {
    return fmt::format("{} <-> {}", describe(f, l.a), describe(f, l.b));
}

std::string rate_name(Width w, Speed s) {
    return fmt::format("{} {}", name(w), name(s));
}

struct UpLink {
    const Link* link;
    const Port* a;
    const Port* b;
    Width width;
    Speed speed;
    double gbps() const { return link_data_gbps(width, speed); }
};

std::vector<UpLink> up_links(const Fabric& f) {
    std::vector<UpLink> out;
    for (const Link& l : f.links()) {
        const Port* a = f.port(l.a);
        const Port* b = f.port(l.b);
        if (!a || !b || !a->link_up() || !b->link_up() || !a->width_active || !a->speed_active)
            continue;
        out.push_back(UpLink{&l, a, b, *a->width_active, *a->speed_active});
    }
    return out;
}

void below_capability(const Fabric& f, const std::vector<UpLink>& links,
                      std::vector<Finding>& out) {
    for (const UpLink& u : links) {
        WidthSet widths = (u.a->width_enabled & u.a->width_supported) &
                          (u.b->width_enabled & u.b->width_supported);
        SpeedSet speeds = (u.a->speed_enabled & u.a->speed_supported) &
                          (u.b->speed_enabled & u.b->speed_supported);
        auto best_w = widths.best();
        auto best_s = speeds.best();
        bool narrow = best_w && *best_w > u.width;
        bool slow = best_s && *best_s > u.speed;
        if (!narrow && !slow) continue;
        Width cw = best_w ? std::max(*best_w, u.width) : u.width;
        Speed cs = best_s ? std::max(*best_s, u.speed) : u.speed;
        Finding x =
            make_finding("link_below_capability", Severity::Warning,
                         fmt::format("{} runs {} but both ends can run {} ({:g} of {:g} Gb/s)",
                                     link_name(f, *u.link), rate_name(u.width, u.speed),
                                     rate_name(cw, cs), u.gbps(), link_data_gbps(cw, cs)),
                         {u.link->a, u.link->b},
                         {{"width_active", name(u.width)},
                          {"speed_active", name(u.speed)},
                          {"width_capable", name(cw)},
                          {"speed_capable", name(cs)},
                          {"gbps_active", u.gbps()},
                          {"gbps_capable", link_data_gbps(cw, cs)}});
        out.push_back(std::move(x));
    }
}

std::pair<int, int> link_class(const Tiers& t, const Fabric& f, const Link& l) {
    int ta = t.tier(*f.index_of(l.a.node));
    int tb = t.tier(*f.index_of(l.b.node));
    return {std::min(ta, tb), std::max(ta, tb)};
}

std::string class_name(std::pair<int, int> c) {
    return fmt::format("{}-{}", tier_name(c.first), tier_name(c.second));
}

void below_peers(const Fabric& f, const Tiers& t, const std::vector<UpLink>& links,
                 std::vector<Finding>& out) {
    std::map<std::pair<int, int>, std::vector<const UpLink*>> classes;
    for (const UpLink& u : links) classes[link_class(t, f, *u.link)].push_back(&u);
    for (const auto& [cls, members] : classes) {
        if (members.size() < 3) continue;  // too few to call anything "usual"
        std::map<std::pair<Width, Speed>, size_t> counts;
        for (const UpLink* u : members) ++counts[{u->width, u->speed}];
        auto mode =
            std::max_element(counts.begin(), counts.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        if (mode->second * 2 <= members.size()) continue;  // no clear majority
        double usual = link_data_gbps(mode->first.first, mode->first.second);
        for (const UpLink* u : members) {
            if (u->gbps() >= usual) continue;
            Finding x;
            x.kind = "link_below_peers";
            x.severity = Severity::Warning;
            x.summary =
                fmt::format("{} runs {} ({:g} Gb/s) while {} of {} {} links run {} ({:g} Gb/s)",
                            link_name(f, *u->link), rate_name(u->width, u->speed), u->gbps(),
                            mode->second, members.size(), class_name(cls),
                            rate_name(mode->first.first, mode->first.second), usual);
            x.where = {u->link->a, u->link->b};
            x.evidence = {{"width_active", name(u->width)},
                          {"speed_active", name(u->speed)},
                          {"gbps_active", u->gbps()},
                          {"usual_width", name(mode->first.first)},
                          {"usual_speed", name(mode->first.second)},
                          {"usual_gbps", usual},
                          {"links_at_usual_rate", mode->second},
                          {"links_in_class", members.size()},
                          {"class", class_name(cls)}};
            out.push_back(std::move(x));
        }
    }
}

void count_asymmetry(const Fabric& f, const Tiers& t, std::vector<Finding>& out) {
    // For switch tiers k and k+1: links per (lower, upper) pair over every
    // such pair. Only a regular design (most pairs connected) is judged.
    for (int k = 1; k < t.max_tier; ++k) {
        std::vector<size_t> lower;
        std::vector<size_t> upper;
        for (size_t i = 0; i < f.nodes().size(); ++i) {
            if (f.nodes()[i].type != NodeType::Switch) continue;
            if (t.tier(i) == k) lower.push_back(i);
            if (t.tier(i) == k + 1) upper.push_back(i);
        }
        if (lower.size() < 2 || upper.empty()) continue;
        std::map<std::pair<size_t, size_t>, size_t> n;
        for (const Link& l : f.links()) {
            size_t a = *f.index_of(l.a.node);
            size_t b = *f.index_of(l.b.node);
            if (t.tier(a) > t.tier(b)) std::swap(a, b);
            if (t.tier(a) == k && t.tier(b) == k + 1) ++n[{a, b}];
        }
        // Switches with a port that is up but whose far end the discovery
        // could not read (silent, or MADs lost at the port): a link may be
        // there, so a pair with one of them is never called short of links.
        std::set<size_t> unseen_ends;
        for (size_t i : lower) {
            for (const Port& p : f.nodes()[i].ports) {
                if (p.num != 0 && p.link_up() && !p.peer) unseen_ends.insert(i);
            }
        }
        for (size_t i : upper) {
            for (const Port& p : f.nodes()[i].ports) {
                if (p.num != 0 && p.link_up() && !p.peer) unseen_ends.insert(i);
            }
        }
        std::map<size_t, size_t> histogram;  // links per pair -> pairs
        for (size_t a : lower) {
            for (size_t b : upper) ++histogram[n.count({a, b}) ? n[{a, b}] : 0];
        }
        auto mode =
            std::max_element(histogram.begin(), histogram.end(),
                             [](const auto& x, const auto& y) { return x.second < y.second; });
        size_t pairs = lower.size() * upper.size();
        if (mode->first == 0 || mode->second * 2 <= pairs) continue;
        for (size_t a : lower) {
            for (size_t b : upper) {
                size_t have = n.count({a, b}) ? n[{a, b}] : 0;
                if (have >= mode->first) continue;
                if (unseen_ends.count(a) || unseen_ends.count(b)) continue;
                const Node& na = f.nodes()[a];
                const Node& nb = f.nodes()[b];
                Finding x = make_finding(
                    "link_count_asymmetry", Severity::Warning,
                    fmt::format(
                        "{} and {} are joined by {} link{}, while {} of {} {}-{} pairs have {}",
                        na.description, nb.description, have, have == 1 ? "" : "s", mode->second,
                        pairs, tier_name(k), tier_name(k + 1), mode->first),
                    {PortRef{na.guid, 0}, PortRef{nb.guid, 0}},
                    {{"links", have},
                     {"usual_links", mode->first},
                     {"pairs_with_usual", mode->second},
                     {"pairs", pairs}});
                out.push_back(std::move(x));
            }
        }
    }
}

void port_states(const Fabric& f, std::vector<Finding>& out) {
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            if (p.num == 0) continue;  // switch management port: no cable
            PortRef ref{n.guid, p.num};
            if (p.phys_state == PhysState::Polling) {
                Finding x = make_finding(
                    "port_polling", Severity::Info,
                    fmt::format(
                        "{} is Polling: no link partner (cable out, far end down, or unused)",
                        describe(f, ref)),
                    {ref}, {{"state", name(p.state)}, {"phys_state", name(p.phys_state)}});
                out.push_back(std::move(x));
            } else if (p.link_up() && p.state != PortState::Active) {
                Finding x = make_finding(
                    "port_not_active", Severity::Warning,
                    fmt::format("{} has a physical link but is {}, not Active: is a subnet manager "
                                "running and sweeping?",
                                describe(f, ref), name(p.state)),
                    {ref}, {{"state", name(p.state)}, {"phys_state", name(p.phys_state)}});
                out.push_back(std::move(x));
            }
        }
    }
}

void mtu_checks(const Fabric& f, const std::vector<UpLink>& links, std::vector<Finding>& out) {
    for (const UpLink& u : links) {
        uint16_t cap = std::min(u.a->mtu_cap, u.b->mtu_cap);
        uint16_t active = std::min(u.a->mtu_active, u.b->mtu_active);
        if (cap == 0 || active == 0 || active >= cap) continue;
        Finding x =
            make_finding("mtu_below_capability", Severity::Warning,
                         fmt::format("{} runs MTU {} but both ends can do {}",
                                     link_name(f, *u.link), active, cap),
                         {u.link->a, u.link->b}, {{"mtu_active", active}, {"mtu_capable", cap}});
        out.push_back(std::move(x));
    }
}

}  // namespace

std::vector<Finding> check_links(const Fabric& fabric, const Tiers& tiers) {
    std::vector<Finding> out;
    std::vector<UpLink> links = up_links(fabric);
    below_capability(fabric, links, out);
    below_peers(fabric, tiers, links, out);
    count_asymmetry(fabric, tiers, out);
    mtu_checks(fabric, links, out);
    port_states(fabric, out);
    return out;
}

}  // namespace fabscope
