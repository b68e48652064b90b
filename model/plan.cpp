#include "model/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/partitions.h"
#include "util/printable.h"
#include "util/yaml_io.h"

namespace fabscope {
namespace {

using yaml_io::fail;

const std::set<std::string> kTierNames{"host", "leaf", "spine", "core"};

/// One key of a rate map; false for a key that is not width or speed.
bool read_rate_key(const std::string& key, const YAML::Node& value, std::optional<Width>& w,
                   std::optional<Speed>& s) {
    const std::string v = yaml_io::as_string(value);
    if (key == "width") {
        w = parse_width(v);
        if (!w) fail(value, fmt::format("\"{}\" is not one of 1X, 2X, 4X, 8X, 12X", v));
    } else if (key == "speed") {
        s = parse_speed(v);
        if (!s)
            fail(value,
                 fmt::format("\"{}\" is not one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR",
                             v));
    } else {
        return false;
    }
    return true;
}

void read_rate(const YAML::Node& n, std::optional<Width>& w, std::optional<Speed>& s) {
    if (!n.IsMap()) fail(n, "expected {width: 4X, speed: HDR}");
    for (const auto& kv : n) {
        const std::string key = yaml_io::as_string(kv.first);
        if (!read_rate_key(key, kv.second, w, s))
            fail(kv.first, fmt::format("unknown key \"{}\" (width, speed)", key));
    }
}

PlanCable read_cable(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "cable: expected {vendor: .., part_number: .., length_m: ..}");
    PlanCable c;
    for (const auto& kv : n) {
        const std::string key = yaml_io::as_string(kv.first);
        if (key == "vendor") {
            c.vendor = printable(yaml_io::as_string(kv.second));
        } else if (key == "part_number") {
            c.part_number = printable(yaml_io::as_string(kv.second));
        } else if (key == "length_m") {
            c.length_m = yaml_io::as_double(kv.second, 0.1, 10000);
        } else {
            fail(kv.first, fmt::format("unknown key \"{}\" (vendor, part_number, length_m)", key));
        }
    }
    if (c.vendor.size() > 64 || c.part_number.size() > 64)
        fail(n, "cable: vendor and part number are at most 64 characters");
    if (c.any()) fail(n, "cable: give a vendor, a part number or a length");
    return c;
}

/// A link's fifth element: its rate and its cable.
void read_link_options(const YAML::Node& n, PlanLink& l) {
    if (!n.IsMap()) fail(n, "expected {width: .., speed: .., cable: {..}}");
    for (const auto& kv : n) {
        const std::string key = yaml_io::as_string(kv.first);
        if (key == "cable")
            l.cable = read_cable(kv.second);
        else if (!read_rate_key(key, kv.second, l.width, l.speed))
            fail(kv.first, fmt::format("unknown key \"{}\" (width, speed, cable)", key));
    }
}

PlanLink read_link(const YAML::Node& n) {
    if (!n.IsSequence() || (n.size() != 4 && n.size() != 5)) {
        fail(n,
             "a link is [node, port, node, port] or [node, port, node, port, {width: .., speed: "
             ".., cable: {..}}]");
    }
    PlanLink l;
    // Names are printed in findings: cleaned as node descriptions are.
    l.a = PlanEnd{printable(yaml_io::as_string(n[0])),
                  static_cast<uint8_t>(yaml_io::as_int(n[1], 0, 254))};
    l.b = PlanEnd{printable(yaml_io::as_string(n[2])),
                  static_cast<uint8_t>(yaml_io::as_int(n[3], 0, 254))};
    if (l.a.node.empty() || l.b.node.empty()) fail(n, "a link needs two node names");
    if (l.a == l.b) fail(n, "a link cannot connect a port to itself");
    if (n.size() == 5) read_link_options(n[4], l);
    return l;
}

std::vector<std::string> read_names(const YAML::Node& n) {
    if (!n.IsSequence()) fail(n, "expected a list of node names (or [ALL])");
    std::vector<std::string> out;
    for (const auto& name : n) out.push_back(printable(yaml_io::as_string(name)));
    return out;
}

PlanPartition read_partition(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "a partition is {name: .., pkey: 0x0001, full: [..], limited: [..]}");
    PlanPartition part;
    bool has_pkey = false;
    for (const auto& kv : n) {
        std::string key = yaml_io::as_string(kv.first);
        if (key == "name") {
            part.name = printable(yaml_io::as_string(kv.second));
        } else if (key == "pkey") {
            auto k = parse_pkey(yaml_io::as_string(kv.second));
            if (!k || (*k & kPkeyBaseMask) == 0)
                fail(kv.second, "expected a P_Key such as 0x0001 (1..0x7fff; bit 15 is ignored)");
            part.pkey = *k & kPkeyBaseMask;
            has_pkey = true;
        } else if (key == "full") {
            part.full = read_names(kv.second);
        } else if (key == "limited") {
            part.limited = read_names(kv.second);
        } else {
            fail(kv.first, fmt::format("unknown key \"{}\" (name, pkey, full, limited)", key));
        }
    }
    if (!has_pkey) fail(n, "a partition needs its pkey");
    if (part.name.empty()) part.name = format_pkey(part.pkey);
    return part;
}

void read_partitions(const YAML::Node& v, Plan& p) {
    if (!v.IsSequence()) fail(v, "partitions: expected a list of {name, pkey, full, limited}");
    std::set<uint16_t> keys;
    for (const auto& item : v) {
        PlanPartition part = read_partition(item);
        if (!keys.insert(part.pkey).second)
            fail(item, fmt::format("P_Key {} is in two partitions", format_pkey(part.pkey)));
        p.partitions.push_back(std::move(part));
    }
}

void read_sm(const YAML::Node& v, Plan& p) {
    if (!v.IsMap()) fail(v, "sm: expected {standby: N}");
    for (const auto& kv : v) {
        std::string key = yaml_io::as_string(kv.first);
        if (key != "standby") fail(kv.first, fmt::format("unknown key \"{}\" (standby)", key));
        p.sm_standby = static_cast<int>(yaml_io::as_int(kv.second, 0, 15));
    }
}

Plan read_plan(const YAML::Node& root) {
    auto version = yaml_io::require(root, "fabscope_plan");
    if (yaml_io::as_int(version, 0, 1000) != kPlanVersion) {
        fail(version, fmt::format("plan version must be {} (this fabscope reads version {})",
                                  kPlanVersion, kPlanVersion));
    }
    Plan p;
    for (const auto& kv : root) {
        std::string key = yaml_io::as_string(kv.first);
        const YAML::Node& v = kv.second;
        if (key == "fabscope_plan") continue;
        if (key == "expect") {
            read_rate(v, p.width, p.speed);
        } else if (key == "tiers") {
            if (!v.IsMap()) fail(v, "tiers: expected {spine: [..], leaf: [..], host: [..]}");
            for (const auto& t : v) {
                std::string tier = yaml_io::as_string(t.first);
                if (!kTierNames.count(tier))
                    fail(t.first,
                         fmt::format("unknown tier \"{}\" (host, leaf, spine, core)", tier));
                if (!t.second.IsSequence()) fail(t.second, "expected a list of node names");
                for (const auto& name : t.second)
                    p.tiers[tier].push_back(printable(yaml_io::as_string(name)));
            }
        } else if (key == "links") {
            if (!v.IsSequence()) fail(v, "links: expected a list of [node, port, node, port]");
            std::map<PlanEnd, const YAML::Node*> used;
            for (const auto& item : v) {
                PlanLink l = read_link(item);
                for (const PlanEnd& e : {l.a, l.b}) {
                    if (!used.emplace(e, &item).second) {
                        fail(item, fmt::format("{}[{}] is in two planned links", e.node, e.port));
                    }
                }
                p.links.push_back(std::move(l));
            }
        } else if (key == "leaf_spine") {
            if (!v.IsMap()) fail(v, "leaf_spine: expected {links_per_pair: N}");
            p.links_per_leaf_spine =
                static_cast<int>(yaml_io::as_int(yaml_io::require(v, "links_per_pair"), 1, 64));
        } else if (key == "guids") {
            if (!v.IsMap()) fail(v, "guids: expected {node: \"0x...\"}");
            for (const auto& g : v) {
                auto guid = parse_guid(yaml_io::as_string(g.second));
                if (!guid) fail(g.second, "expected a GUID such as \"0x0002c90300a1b2c3\"");
                p.guids[printable(yaml_io::as_string(g.first))] = *guid;
            }
        } else if (key == "sm") {
            read_sm(v, p);
        } else if (key == "partitions") {
            read_partitions(v, p);
        } else {
            fail(kv.first, fmt::format("unknown key \"{}\" (expect, tiers, links, leaf_spine, "
                                       "guids, sm, partitions)",
                                       key));
        }
    }
    if (p.links_per_leaf_spine && (!p.tiers.count("leaf") || !p.tiers.count("spine"))) {
        fail(root["leaf_spine"], "leaf_spine needs tiers.leaf and tiers.spine");
    }
    return p;
}

/// The standby SMs and the partitions of a fabric whose sweep read them:
/// hosts by `name_of`, a partition every host is a full member of as [ALL].
template <class NameOf>
void subnet_of_fabric(const Fabric& f, const NameOf& name_of, Plan& p) {
    int standby = 0;
    bool sm_seen = false;
    size_t hosts = 0;
    std::map<uint16_t, std::pair<std::set<std::string>, std::set<std::string>>> members;
    for (const Node& n : f.nodes()) {
        if (n.type == NodeType::CA) ++hosts;
        for (const Port& port : n.ports) {
            if (port.sm) {
                sm_seen = true;
                standby += port.sm->state == SmState::Standby ? 1 : 0;
            }
            if (!port.pkeys || n.type != NodeType::CA) continue;
            for (uint16_t k : *port.pkeys) {
                auto& [full, limited] = members[k & kPkeyBaseMask];
                ((k & kPkeyFullMember) != 0 ? full : limited).insert(name_of(n));
            }
        }
    }
    if (sm_seen) p.sm_standby = standby;
    for (auto& [base, m] : members) {
        auto& [full, limited] = m;
        for (const std::string& h : full) limited.erase(h);
        PlanPartition part{base == kDefaultPkeyBase ? "default" : format_pkey(base), base, {}, {}};
        if (full.size() == hosts)
            part.full = {"ALL"};
        else
            part.full.assign(full.begin(), full.end());
        part.limited.assign(limited.begin(), limited.end());
        p.partitions.push_back(std::move(part));
    }
}

}  // namespace

std::vector<std::string> Plan::node_names() const {
    std::set<std::string> s;
    for (const auto& [tier, names] : tiers) s.insert(names.begin(), names.end());
    for (const PlanLink& l : links) {
        s.insert(l.a.node);
        s.insert(l.b.node);
    }
    return {s.begin(), s.end()};
}

Result<Plan> parse_plan(const std::string& text, const std::string& origin) {
    return yaml_io::load_text<Plan>(text, origin, "fabscope plan", read_plan);
}

Result<Plan> load_plan(const std::string& path) {
    return yaml_io::load<Plan>(path, "fabscope plan", read_plan);
}

Plan plan_from_fabric(const Fabric& f, const Tiers& tiers) {
    Plan p;
    // Names: the description's first word ("h0001" for "h0001 HCA-1", as
    // people write plans) when no other node's description starts with it;
    // else the description, unless empty or shared by two nodes (the GUID).
    std::map<std::string, int> uses;
    std::map<std::string, int> first_word_uses;
    auto first_word = [](const std::string& d) { return d.substr(0, d.find(' ')); };
    for (const Node& n : f.nodes()) {
        ++uses[n.description];
        ++first_word_uses[first_word(n.description)];
    }
    auto name_of = [&](const Node& n) {
        if (n.description.empty() || uses[n.description] > 1) return format_guid(n.guid);
        std::string w = first_word(n.description);
        return !w.empty() && first_word_uses[w] == 1 ? w : n.description;
    };
    for (size_t i = 0; i < f.nodes().size(); ++i) {
        const Node& n = f.nodes()[i];
        int t = tiers.tier(i);
        if (t >= 0 && t <= 3) p.tiers[tier_name(t)].push_back(name_of(n));
        p.guids[name_of(n)] = n.guid;
    }
    for (auto& [tier, names] : p.tiers) std::sort(names.begin(), names.end());
    // The usual rate is the plan's default; links off it say theirs.
    std::map<std::pair<Width, Speed>, size_t> rates;
    for (const Link& l : f.links()) {
        const Port* a = f.port(l.a);
        if (a && a->width_active && a->speed_active) ++rates[{*a->width_active, *a->speed_active}];
    }
    if (!rates.empty()) {
        auto best = std::max_element(rates.begin(), rates.end(),
                                     [](auto& x, auto& y) { return x.second < y.second; });
        p.width = best->first.first;
        p.speed = best->first.second;
    }
    for (const Link& l : f.links()) {
        PlanLink pl{PlanEnd{name_of(*f.node(l.a.node)), l.a.port},
                    PlanEnd{name_of(*f.node(l.b.node)), l.b.port},
                    {},
                    {}};
        const Port* a = f.port(l.a);
        if (a && a->width_active && a->width_active != p.width) pl.width = a->width_active;
        if (a && a->speed_active && a->speed_active != p.speed) pl.speed = a->speed_active;
        // Lower tier first reads naturally: host -> leaf -> spine.
        int ta = tiers.tier(*f.index_of(l.a.node));
        int tb = tiers.tier(*f.index_of(l.b.node));
        if (ta > tb) std::swap(pl.a, pl.b);
        p.links.push_back(std::move(pl));
    }
    std::sort(p.links.begin(), p.links.end(), [](const PlanLink& x, const PlanLink& y) {
        return std::tie(x.a, x.b) < std::tie(y.a, y.b);
    });
    subnet_of_fabric(f, name_of, p);
    return p;
}

namespace {

nlohmann::json cable_json(const PlanCable& c) {
    nlohmann::json j = nlohmann::json::object();
    if (!c.vendor.empty()) j["vendor"] = c.vendor;
    if (!c.part_number.empty()) j["part_number"] = c.part_number;
    if (c.length_m) j["length_m"] = *c.length_m;
    return j;
}

void emit_cable(YAML::Emitter& out, const PlanCable& c) {
    out << YAML::Key << "cable" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (!c.vendor.empty()) out << YAML::Key << "vendor" << YAML::Value << c.vendor;
    if (!c.part_number.empty()) out << YAML::Key << "part_number" << YAML::Value << c.part_number;
    if (c.length_m) out << YAML::Key << "length_m" << YAML::Value << *c.length_m;
    out << YAML::EndMap;
}

}  // namespace

nlohmann::json plan_to_json(const Plan& p) {
    nlohmann::json j{{"fabscope_plan", kPlanVersion}};
    if (p.width || p.speed) {
        nlohmann::json& e = j["expect"] = nlohmann::json::object();
        if (p.width) e["width"] = name(*p.width);
        if (p.speed) e["speed"] = name(*p.speed);
    }
    j["tiers"] = nlohmann::json::object();
    for (const auto& [tier, names] : p.tiers) j["tiers"][tier] = names;
    if (p.links_per_leaf_spine) j["leaf_spine"] = {{"links_per_pair", p.links_per_leaf_spine}};
    nlohmann::json links = nlohmann::json::array();
    for (const PlanLink& l : p.links) {
        nlohmann::json one{l.a.node, l.a.port, l.b.node, l.b.port};
        if (l.width || l.speed || l.cable) {
            nlohmann::json rate = nlohmann::json::object();
            if (l.width) rate["width"] = name(*l.width);
            if (l.speed) rate["speed"] = name(*l.speed);
            if (l.cable) rate["cable"] = cable_json(*l.cable);
            one.push_back(std::move(rate));
        }
        links.push_back(std::move(one));
    }
    j["links"] = std::move(links);
    if (!p.guids.empty()) {
        nlohmann::json& g = j["guids"] = nlohmann::json::object();
        for (const auto& [n, guid] : p.guids) g[n] = format_guid(guid);
    }
    if (p.sm_standby) j["sm"] = {{"standby", *p.sm_standby}};
    if (!p.partitions.empty()) {
        nlohmann::json& parts = j["partitions"] = nlohmann::json::array();
        for (const PlanPartition& x : p.partitions) {
            parts.push_back({{"name", x.name}, {"pkey", format_pkey(x.pkey)}, {"full", x.full}});
            if (!x.limited.empty()) parts.back()["limited"] = x.limited;
        }
    }
    return j;
}

std::string plan_to_yaml(const Plan& p) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "fabscope_plan" << YAML::Value << kPlanVersion;
    if (p.width || p.speed) {
        out << YAML::Key << "expect" << YAML::Value << YAML::Flow << YAML::BeginMap;
        if (p.width) out << YAML::Key << "width" << YAML::Value << std::string(name(*p.width));
        if (p.speed) out << YAML::Key << "speed" << YAML::Value << std::string(name(*p.speed));
        out << YAML::EndMap;
    }
    out << YAML::Key << "tiers" << YAML::Value << YAML::BeginMap;
    for (const char* tier : {"spine", "leaf", "core", "host"}) {
        auto it = p.tiers.find(tier);
        if (it == p.tiers.end()) continue;
        out << YAML::Key << tier << YAML::Value << YAML::Flow << it->second;
    }
    out << YAML::EndMap;
    if (p.links_per_leaf_spine) {
        out << YAML::Key << "leaf_spine" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
            << "links_per_pair" << YAML::Value << p.links_per_leaf_spine << YAML::EndMap;
    }
    out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
    for (const PlanLink& l : p.links) {
        out << YAML::Flow << YAML::BeginSeq << l.a.node << static_cast<int>(l.a.port) << l.b.node
            << static_cast<int>(l.b.port);
        if (l.width || l.speed || l.cable) {
            out << YAML::Flow << YAML::BeginMap;
            if (l.width) out << YAML::Key << "width" << YAML::Value << std::string(name(*l.width));
            if (l.speed) out << YAML::Key << "speed" << YAML::Value << std::string(name(*l.speed));
            if (l.cable) emit_cable(out, *l.cable);
            out << YAML::EndMap;
        }
        out << YAML::EndSeq;
    }
    out << YAML::EndSeq;
    if (!p.guids.empty()) {
        out << YAML::Key << "guids" << YAML::Value << YAML::BeginMap;
        for (const auto& [n, g] : p.guids) out << YAML::Key << n << YAML::Value << format_guid(g);
        out << YAML::EndMap;
    }
    if (p.sm_standby) {
        out << YAML::Key << "sm" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
            << "standby" << YAML::Value << *p.sm_standby << YAML::EndMap;
    }
    if (!p.partitions.empty()) {
        out << YAML::Key << "partitions" << YAML::Value << YAML::BeginSeq;
        for (const PlanPartition& x : p.partitions) {
            out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << x.name
                << YAML::Key << "pkey" << YAML::Value << format_pkey(x.pkey) << YAML::Key << "full"
                << YAML::Value << YAML::Flow << x.full;
            if (!x.limited.empty())
                out << YAML::Key << "limited" << YAML::Value << YAML::Flow << x.limited;
            out << YAML::EndMap;
        }
        out << YAML::EndSeq;
    }
    out << YAML::EndMap;
    return std::string(
               "# fabscope plan: the fabric as it should be. Edit freely; see the user guide.\n") +
           out.c_str() + "\n";
}

}  // namespace fabscope
