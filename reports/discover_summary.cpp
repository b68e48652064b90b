#include "reports/discover_summary.h"

#include <fmt/format.h>

#include <map>

#include "reports/severity_tag.h"

namespace fabscope {
namespace {

std::string plural(size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

// One line per plane when the snapshot holds several (or says how its one
// plane is managed): where it was swept from, subnet, SM, size.
std::string plane_lines(const Snapshot& snap, const TextStyle& st) {
    if (snap.planes.empty()) return {};
    std::vector<size_t> nodes(snap.planes.size(), 0);
    std::vector<size_t> switches(snap.planes.size(), 0);
    std::vector<size_t> links(snap.planes.size(), 0);
    for (const Node& n : snap.fabric.nodes()) {
        if (n.plane >= nodes.size()) continue;
        ++nodes[n.plane];
        switches[n.plane] += n.type == NodeType::Switch;
    }
    for (const Link& l : snap.fabric.links()) {
        const Node* a = snap.fabric.node(l.a.node);
        if (a && a->plane < links.size()) ++links[a->plane];
    }
    std::string out;
    for (size_t i = 0; i < snap.planes.size(); ++i) {
        const Plane& p = snap.planes[i];
        std::string subnet =
            p.subnet_prefix ? format_subnet_prefix(p.subnet_prefix) : std::string("subnet unknown");
        std::string sm = p.managed ? fmt::format("SM LID {} ({})", p.sm_lid, format_guid(p.sm_guid))
                                   : st.yellow("unmanaged (no SM)");
        out += fmt::format("  {:<7} {} port {}, {}, {}: {} nodes ({} switches), {} links\n",
                           fmt::format("Plane {}", i), p.ca.empty() ? "?" : p.ca, p.ca_port, subnet,
                           sm, nodes[i], switches[i], links[i]);
    }
    return out;
}

/// "Fabric from": where the snapshot came from and how it was taken.
std::string source_line(const SnapshotSource& src, const TextStyle& st) {
    std::string origin = !src.input_file.empty()     ? src.input_file
                         : src.method == "roce-lldp" ? std::string("RoCE hosts and LLDP")
                         : src.method == "roce-lldp-trace"
                             ? std::string("RoCE hosts, LLDP and path traces")
                             : fmt::format("{} port {}", src.ca, src.ca_port);
    std::string how = src.method;
    if (src.duration_s > 0) how += fmt::format(", {:.2f} s", src.duration_s);
    if (src.mads_sent > 0) how += fmt::format(", {} MADs", src.mads_sent);
    return fmt::format("{} {} ({})\n", st.bold("Fabric from"), origin, how);
}

/// "Tiers": the hosts counted per tier, the unreachable last.
std::string tiers_line(const Tiers& tiers) {
    std::string tier_line;
    for (int t = 0; t <= tiers.max_tier; ++t) {
        if (size_t c = tiers.count(t))
            tier_line += (tier_line.empty() ? "" : ", ") + tier_count(t, c);
    }
    if (size_t c = tiers.count(kTierUnreachable)) {
        tier_line += (tier_line.empty() ? "" : ", ") + tier_count(kTierUnreachable, c);
    }
    return fmt::format("  {:<7} {}\n", "Tiers",
                       tier_line.empty() ? "none (no hosts found)" : tier_line);
}

/// "MADs": how the sweep's MADs fared, when the snapshot kept their statistics.
std::string mads_line(const SnapshotSource& src) {
    const auto& m = src.mad_stats;
    if (!m) return {};
    return fmt::format(
        "  {:<7} {} sent, {} retries, {} timed out, {} not sent (path dead); longest chain "
        "{}\n",
        "MADs", m->sent, m->retries, m->timeouts, m->unreachable, m->max_chain);
}

/// "Read": forwarding tables and port counters read, when any were.
std::string read_line(const Fabric& f) {
    size_t tables = 0;
    size_t counters = 0;
    for (const Node& n : f.nodes()) {
        tables += !n.lft.empty();
        for (const Port& p : n.ports) counters += p.counters.has_value();
    }
    if (!tables && !counters) return {};
    return fmt::format("  {:<7} {} forwarding tables, counters of {} ports\n", "Read", tables,
                       counters);
}

/// "Nodes": nodes by type, and links.
std::string nodes_line(const Fabric& f) {
    size_t switches = 0;
    size_t cas = 0;
    size_t routers = 0;
    for (const Node& n : f.nodes()) {
        switches += n.type == NodeType::Switch;
        cas += n.type == NodeType::CA;
        routers += n.type == NodeType::Router;
    }
    return fmt::format("  {:<7} {} ({} switches, {} CAs{}), {} links\n", "Nodes", f.nodes().size(),
                       switches, cas, routers ? fmt::format(", {} routers", routers) : "",
                       f.links().size());
}

/// Links grouped by tier class and rate, fastest first within a class.
struct LinkGroupKey {
    int lo, hi;
    double gbps;
    std::string rate;
    bool operator<(const LinkGroupKey& o) const {
        if (lo != o.lo) return lo < o.lo;
        if (hi != o.hi) return hi < o.hi;
        if (gbps != o.gbps) return gbps > o.gbps;
        return rate < o.rate;
    }
};

/// The group one link falls in.
LinkGroupKey link_group_key(const Fabric& f, const Tiers& tiers, const Link& l) {
    const Port* a = f.port(l.a);
    int ta = tiers.tier(*f.index_of(l.a.node));
    int tb = tiers.tier(*f.index_of(l.b.node));
    // A link that is up but whose rate nobody read (a RoCE cable seen only
    // by path traces) is "rate ?", not down.
    LinkGroupKey k{std::min(ta, tb), std::max(ta, tb), 0,
                   a && a->link_up() && !a->width_active ? "rate ?" : "down"};
    if (a && a->width_active && a->speed_active) {
        k.gbps = link_data_gbps(*a->width_active, *a->speed_active);
        k.rate = fmt::format("{} {}", name(*a->width_active), name(*a->speed_active));
    }
    return k;
}

/// "Links by tier and rate", the groups slower than the best of their class in yellow.
std::string link_rate_lines(const Fabric& f, const Tiers& tiers, const TextStyle& st) {
    std::map<LinkGroupKey, size_t> groups;
    std::map<std::pair<int, int>, double> best_in_class;
    for (const Link& l : f.links()) {
        LinkGroupKey k = link_group_key(f, tiers, l);
        ++groups[k];
        double& best = best_in_class[{k.lo, k.hi}];
        best = std::max(best, k.gbps);
    }
    std::string out = fmt::format("  {}\n", "Links by tier and rate");
    for (const auto& [k, n] : groups) {
        std::string cls = fmt::format("{}-{}", tier_name(k.lo), tier_name(k.hi));
        std::string line = fmt::format("{:>9}  {:<18} {:<9} {:>6g} Gb/s", n, cls, k.rate, k.gbps);
        bool slower = k.gbps < best_in_class[{k.lo, k.hi}];
        out += "  " + (slower ? st.yellow(line) : line) + "\n";
    }
    return out;
}

/// The port_polling findings of one severity folded into one line naming the ports.
std::string polling_line(const Fabric& f, const std::vector<const Finding*>& list, Severity sev,
                         const SummaryOptions& opts) {
    const TextStyle& st = opts.style;
    std::string ports;
    for (size_t i = 0; i < list.size() && i < opts.max_listed; ++i) {
        ports += (i ? ", " : "") + describe(f, list[i]->where.front());
    }
    if (list.size() > opts.max_listed)
        ports += fmt::format(" and {} more", list.size() - opts.max_listed);
    return fmt::format("    {} {} Polling (no link partner): {}\n", severity_tag(st, sev),
                       plural(list.size(), "port", "ports"), ports);
}

/// The findings of one severity under a heading counting them, by kind; empty when none.
std::string severity_section(const Fabric& f, const std::vector<Finding>& findings, Severity sev,
                             const SummaryOptions& opts) {
    const TextStyle& st = opts.style;
    std::map<std::string, std::vector<const Finding*>> by_kind;
    size_t count = 0;
    for (const Finding& x : findings) {
        if (x.severity != sev) continue;
        by_kind[x.kind].push_back(&x);
        ++count;
    }
    if (count == 0) return {};
    const char* heading = sev == Severity::Error     ? "Errors"
                          : sev == Severity::Warning ? "Warnings"
                                                     : "Info";
    std::string out = fmt::format("  {} ({})\n", st.bold(heading), count);
    for (const auto& [kind, list] : by_kind) {
        if (kind == "port_polling") {
            out += polling_line(f, list, sev, opts);
            continue;
        }
        for (size_t i = 0; i < list.size() && i < opts.max_listed; ++i) {
            out += fmt::format("    {} {}\n", severity_tag(st, sev), list[i]->summary);
        }
        if (list.size() > opts.max_listed) {
            out += fmt::format("    {} and {} more {} findings (see --json)\n", st.dim("..."),
                               list.size() - opts.max_listed, kind);
        }
    }
    return out;
}

/// The findings, or a line saying there is nothing odd.
std::string findings_lines(const Fabric& f, const std::vector<Finding>& findings,
                           const SummaryOptions& opts) {
    if (findings.empty()) {
        return fmt::format(
            "  {}\n",
            opts.style.green("Nothing odd: every link runs at its best common width and speed."));
    }
    // By severity, worst first. Each heading counts the findings under it,
    // and every line under it says how many it stands for, so the counts add up.
    std::string out;
    for (Severity sev : {Severity::Error, Severity::Warning, Severity::Info}) {
        out += severity_section(f, findings, sev, opts);
    }
    return out;
}

}  // namespace

std::string render_discover_summary(const Snapshot& snap, const Tiers& tiers,
                                    const std::vector<Finding>& findings,
                                    const SummaryOptions& opts) {
    const TextStyle& st = opts.style;
    const Fabric& f = snap.fabric;
    std::string out = source_line(snap.source, st);
    out += tiers_line(tiers);
    out += mads_line(snap.source);
    out += read_line(f);
    out += nodes_line(f);
    out += plane_lines(snap, st);
    out += link_rate_lines(f, tiers, st);
    out += findings_lines(f, findings, opts);
    return out;
}

}  // namespace fabscope
