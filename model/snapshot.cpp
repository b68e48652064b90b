#include "model/snapshot.h"

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/counters_json.h"
#include "model/json_io.h"
#include "model/partitions.h"
#include "model/tiers.h"
#include "util/printable.h"

namespace fabscope {

using nlohmann::json;

namespace {

json port_ref_json(const Fabric& f, PortRef r) {
    const Node* n = f.node(r.node);
    return json{{"guid", format_guid(r.node)},
                {"port", r.port},
                {"name", n ? n->description : std::string()}};
}

template <class Set>
json set_json(Set s) {
    json a = json::array();
    for (auto e : s.members()) a.push_back(std::string(name(e)));
    return a;
}

json port_json(const Port& p) {
    json j{{"num", p.num},
           {"guid", format_guid(p.guid)},
           {"lid", p.lid},
           {"lmc", p.lmc},
           {"state", name(p.state)},
           {"phys_state", name(p.phys_state)},
           {"width",
            {{"active", p.width_active ? json(name(*p.width_active)) : json()},
             {"enabled", set_json(p.width_enabled)},
             {"supported", set_json(p.width_supported)}}},
           {"speed",
            {{"active", p.speed_active ? json(name(*p.speed_active)) : json()},
             {"enabled", set_json(p.speed_enabled)},
             {"supported", set_json(p.speed_supported)}}},
           {"mtu", {{"cap", p.mtu_cap}, {"active", p.mtu_active}}},
           {"capability_mask", fmt::format("{:#010x}", p.capability_mask)}};
    if (p.peer) j["peer"] = json{{"guid", format_guid(p.peer->node)}, {"port", p.peer->port}};
    if (p.counters) j["counters"] = counters_to_json(*p.counters);
    if (p.sm) {
        j["sm"] = json{{"guid", format_guid(p.sm->guid)},
                       {"state", name(p.sm->state)},
                       {"priority", p.sm->priority},
                       {"act_count", p.sm->act_count}};
    }
    if (p.pkeys) {
        json keys = json::array();
        for (uint16_t k : *p.pkeys) keys.push_back(format_pkey(k));
        j["pkeys"] = std::move(keys);
    }
    return j;
}

// What the IBA allows, so that nothing downstream meets a value it cannot
// hold (an LMC of 40 once grew the duplicate-LID check to 3.5 GB).
constexpr uint64_t kMaxPortNum = 254;        // 255 is reserved
constexpr uint64_t kMaxUnicastLid = 0xBFFF;  // 0xC000 and up are multicast
constexpr uint64_t kMaxLmc = 7;              // three bits
constexpr uint64_t kMaxLftSize = kMaxUnicastLid + 1;
constexpr uint8_t kNoRoute = 255;
// The sizes of the fields the strings fill: an IB NodeDescription is 64
// bytes; a RoCE node is named by its LLDP system name (802.1AB: up to 255)
// or "host device" (64 + 1 + 64).
constexpr size_t kMaxNodeDescription = 64;
constexpr size_t kMaxRoceNodeDescription = 255;
constexpr size_t kMaxTierName = 32;      // "tier 12", "unreachable"
constexpr size_t kMaxCaName = 64;        // IB_DEVICE_NAME_MAX
constexpr size_t kMaxPath = 4096;        // PATH_MAX
constexpr size_t kMaxToolVersion = 128;  // "0.9.0-123-gabcdef0-dirty"
constexpr size_t kMaxTimestamp = 64;     // "2026-11-29T16:01:54Z"

uint16_t get_mtu(const json& m, const char* key) {
    auto v = json_io::get_uint<uint16_t>(m, key, 0);
    if (v != 0 && v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096)
        json_io::fail(m.at(key), fmt::format("{} is not an MTU (256, 512, 1024, 2048, 4096)", v));
    return v;
}

// A P_Key table holds at most 32768 entries (PartitionCap is 16 bits, in
// blocks of 32); the entries in use are what a snapshot keeps.
constexpr size_t kMaxPkeys = 32768;

std::vector<uint16_t> pkeys_from_json(const json& a) {
    if (a.size() > kMaxPkeys)
        json_io::fail(
            a, fmt::format("{} P_Keys: a P_Key table holds at most {}", a.size(), kMaxPkeys));
    std::vector<uint16_t> keys;
    keys.reserve(a.size());
    for (const json& k : a) {
        if (!k.is_string()) json_io::fail(k, "a P_Key is a string such as \"0xffff\"");
        auto v = parse_pkey(k.get_ref<const std::string&>());
        if (!v || *v == 0) json_io::fail(k, "a P_Key is 0x0001..0xffff");
        keys.push_back(*v);
    }
    return keys;
}

Port port_from_json(const json& j) {
    Port p;
    p.num = static_cast<uint8_t>(json_io::get_uint_checked(j, "num", kMaxPortNum));
    p.guid = json_io::get_guid(j, "guid");
    p.lid = static_cast<Lid>(json_io::get_uint_checked(j, "lid", kMaxUnicastLid));
    p.lmc =
        static_cast<uint8_t>(j.contains("lmc") ? json_io::get_uint_checked(j, "lmc", kMaxLmc) : 0);
    if (p.lid != 0 && p.lid + (1U << p.lmc) - 1 > kMaxUnicastLid)
        json_io::fail(j.at("lid"), fmt::format("LID {} with LMC {} runs past the last unicast "
                                               "LID ({})",
                                               p.lid, p.lmc, kMaxUnicastLid));
    p.state = json_io::get_enum<PortState>(j, "state");
    p.phys_state = json_io::get_enum<PhysState>(j, "phys_state");
    const json& w = json_io::get_object(j, "width");
    p.width_active = json_io::get_optional_enum<Width>(w, "active");
    p.width_enabled = json_io::get_set<WidthSet, Width>(w, "enabled");
    p.width_supported = json_io::get_set<WidthSet, Width>(w, "supported");
    const json& s = json_io::get_object(j, "speed");
    p.speed_active = json_io::get_optional_enum<Speed>(s, "active");
    p.speed_enabled = json_io::get_set<SpeedSet, Speed>(s, "enabled");
    p.speed_supported = json_io::get_set<SpeedSet, Speed>(s, "supported");
    if (j.contains("mtu")) {
        const json& m = json_io::get_object(j, "mtu");
        p.mtu_cap = get_mtu(m, "cap");
        p.mtu_active = get_mtu(m, "active");
    }
    p.capability_mask =
        static_cast<uint32_t>(json_io::get_hex(j, "capability_mask", 0, UINT32_MAX));
    if (j.contains("peer") && !j.at("peer").is_null()) {
        const json& peer = json_io::get_object(j, "peer");
        p.peer =
            PortRef{json_io::get_guid(peer, "guid"),
                    static_cast<uint8_t>(json_io::get_uint_checked(peer, "port", kMaxPortNum))};
    }
    if (j.contains("counters")) p.counters = counters_from_json(j.at("counters"));
    if (j.contains("sm")) {
        const json& sm = json_io::get_object(j, "sm");
        p.sm = SmInfo{json_io::get_guid(sm, "guid"), json_io::get_uint<uint32_t>(sm, "act_count"),
                      static_cast<uint8_t>(json_io::get_uint_checked(sm, "priority", 15)),
                      json_io::get_enum<SmState>(sm, "state")};
    }
    if (j.contains("pkeys")) p.pkeys = pkeys_from_json(json_io::get_array(j, "pkeys"));
    return p;
}

json node_json(const Node& n, int tier) {
    json ports = json::array();
    for (const Port& p : n.ports) ports.push_back(port_json(p));
    json j{{"guid", format_guid(n.guid)},
           {"type", name(n.type)},
           {"description", n.description},
           {"system_guid", format_guid(n.system_guid)},
           {"vendor_id", fmt::format("{:#08x}", n.vendor_id)},
           {"device_id", fmt::format("{:#06x}", n.device_id)},
           {"revision", fmt::format("{:#x}", n.revision)},
           {"num_ports", n.num_ports},
           {"enhanced_port0", n.enhanced_port0},
           {"lid", n.lid()},
           {"tier", tier_name(tier)},
           {"ports", std::move(ports)}};
    if (!n.lft.empty()) j["lft"] = n.lft;
    if (n.pma_tick) j["pma_tick"] = *n.pma_tick;
    if (n.plane != 0) j["plane"] = n.plane;  // written only on later planes: old readers see one
    return j;
}

/// The node's "lid" is derived (port 0's for a switch, else its lowest port
/// LID) and recomputed; one that says otherwise was edited or belongs to
/// another fabric, and a reader trusting it (jq, a script) would see another.
void check_node_lid(const json& j, const Node& n) {
    if (!j.contains("lid")) return;
    const auto lid = json_io::get_uint_checked(j, "lid", kMaxUnicastLid);
    if (lid != n.lid())
        json_io::fail(
            j.at("lid"),
            fmt::format("{} is not the node's LID: its ports give {} ({})", lid, n.lid(),
                        n.type == NodeType::Switch ? "port 0's"
                                                   : "the lowest LID of its ports, 0 for none"));
}

Node node_from_json(const json& j, size_t max_description) {
    Node n;
    n.guid = json_io::get_guid(j, "guid");
    n.type = json_io::get_enum<NodeType>(j, "type");
    // Printed on terminals and in reports: cleaned as the sweep cleans it off the wire.
    n.description = printable(json_io::get_string_at_most(j, "description", max_description));
    n.system_guid = json_io::get_guid(j, "system_guid", 0);
    n.vendor_id = static_cast<uint32_t>(json_io::get_hex(j, "vendor_id", 0, 0xFFFFFF));
    n.device_id = static_cast<uint16_t>(json_io::get_hex(j, "device_id", 0, UINT16_MAX));
    n.revision = static_cast<uint32_t>(json_io::get_hex(j, "revision", 0, UINT32_MAX));
    n.num_ports = static_cast<uint8_t>(json_io::get_uint_checked(j, "num_ports", kMaxPortNum));
    n.enhanced_port0 = json_io::get_bool(j, "enhanced_port0", false);
    n.plane = static_cast<uint16_t>(
        j.contains("plane") ? json_io::get_uint_checked(j, "plane", UINT16_MAX) : 0);
    if (j.contains("pma_tick"))
        n.pma_tick = static_cast<uint8_t>(json_io::get_uint_checked(j, "pma_tick", UINT8_MAX));
    for (const json& p : json_io::get_array(j, "ports")) {
        n.ports.push_back(port_from_json(p));
        if (n.ports.back().num > n.num_ports)
            json_io::fail(p.at("num"), fmt::format("port {} is beyond the node's num_ports ({})",
                                                   n.ports.back().num, n.num_ports));
    }
    if (j.contains("lft")) {
        const json& lft = json_io::get_array(j, "lft");
        if (lft.size() > kMaxLftSize)
            json_io::fail(lft, fmt::format("{} entries: a forwarding table has at most {}",
                                           lft.size(), kMaxLftSize));
        for (const json& e : lft) {
            if (!e.is_number_unsigned() ||
                (e.get<uint64_t>() > n.num_ports && e.get<uint64_t>() != kNoRoute))
                json_io::fail(
                    e, fmt::format("must be a port number 0..{} or 255 (no route)", n.num_ports));
            n.lft.push_back(e.get<uint8_t>());
        }
    }
    check_node_lid(j, n);
    if (j.contains("tier")) json_io::get_string_at_most(j, "tier", kMaxTierName);
    return n;
}

}  // namespace

namespace {

/// One of the schema's methods: another is a document fabscope did not
/// write (or a newer one, which would bump the version).
std::string source_method(const json& src) {
    static const char* const kMethods[] = {"ibnetdisc", "ibnetdiscover-cache", "sweep",
                                           "roce-lldp", "roce-lldp-trace",     "planes"};
    std::string m = json_io::get_string_at_most(src, "method", 32, "");
    if (m.empty()) return m;
    for (const char* k : kMethods) {
        if (m == k) return m;
    }
    json_io::fail(src.at("method"),
                  fmt::format("\"{}\" is not one of ibnetdisc, ibnetdiscover-cache, sweep, "
                              "roce-lldp, roce-lldp-trace, planes",
                              printable(m)));
}

/// "" or an ISO 8601 date-time, as the schema says ("2026-11-29T16:01:54Z"):
/// the date and time are checked, the fraction and zone left as written.
std::string source_started(const json& src) {
    std::string t = json_io::get_string_at_most(src, "started", kMaxTimestamp, "");
    static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd";
    bool ok = t.empty() || t.size() >= kShape.size();
    for (size_t i = 0; ok && !t.empty() && i < kShape.size(); ++i)
        ok = kShape[i] == 'd' ? (t[i] >= '0' && t[i] <= '9') : t[i] == kShape[i];
    if (!ok)
        json_io::fail(src.at("started"), fmt::format("\"{}\" is not an ISO 8601 date-time such as "
                                                     "2026-11-29T16:01:54Z",
                                                     printable(t)));
    return printable(t);
}

json link_json(const Fabric& f, const Link& l) {
    const Port* pa = f.port(l.a);
    json lj{{"a", port_ref_json(f, l.a)}, {"b", port_ref_json(f, l.b)}};
    if (pa && pa->link_up() && pa->width_active && pa->speed_active) {
        lj["width"] = name(*pa->width_active);
        lj["speed"] = name(*pa->speed_active);
        lj["gbps"] = link_data_gbps(*pa->width_active, *pa->speed_active);
    }
    return lj;
}

json source_json(const SnapshotSource& src) {
    json j{{"method", src.method},
           {"ca", src.ca},
           {"ca_port", src.ca_port},
           {"input_file", src.input_file},
           {"tool_version", src.tool_version},
           {"started", src.started},
           {"duration_s", src.duration_s},
           {"mads_sent", src.mads_sent}};
    if (const auto& m = src.mad_stats) {
        j["mad_stats"] = {
            {"sent", m->sent},           {"answered", m->answered},
            {"retries", m->retries},     {"timeouts", m->timeouts},
            {"dropped", m->dropped},     {"unreachable", m->unreachable},
            {"garbage", m->garbage},     {"stray", m->stray},
            {"max_chain", m->max_chain}, {"optional_unanswered", m->optional_unanswered}};
    }
    if (src.sm_read) j["sm_read"] = true;
    if (src.pkeys_read) j["pkeys_read"] = true;
    if (!src.complete) {  // written only when stopped, so complete snapshots read as before
        j["complete"] = false;
        j["interrupted"] = src.interrupted;
    }
    return j;
}

// Streams `"key": [` elem, elem `]` with one element per line.
template <class Range, class Fn>
void stream_array(std::ostream& out, std::string_view key, const Range& items, Fn&& to_json) {
    out << "\"" << key << "\": [";
    bool first = true;
    for (const auto& item : items) {
        out << (first ? "\n" : ",\n")
            << to_json(item).dump(-1, ' ', false, json::error_handler_t::replace);
        first = false;
    }
    out << (first ? "]" : "\n]");
}

PortRef link_end_from_json(const json& e) {
    if (!e.is_object()) json_io::fail(e, "must be an object");
    // "node_guid" is the port-reference shape of the reports; "guid" the older one.
    Guid node = json_io::get_guid(e, e.contains("node_guid") ? "node_guid" : "guid");
    return PortRef{node, static_cast<uint8_t>(json_io::get_uint_checked(e, "port", kMaxPortNum))};
}

// The links are derived from the ports' peers, and written for readers that
// want them as a list. A list naming a node or port the document does not
// have, or a cable the peers do not make, describes another fabric.
void check_links(const json& j, const Fabric& f) {
    if (!j.contains("links")) return;
    for (const json& l : json_io::get_array(j, "links")) {
        PortRef ends[2];
        for (int k = 0; k < 2; ++k) {
            const json& e = json_io::get(l, k == 0 ? "a" : "b");
            ends[k] = link_end_from_json(e);
            if (!f.node(ends[k].node))
                json_io::fail(e, fmt::format("node {} is not in the snapshot's nodes",
                                             format_guid(ends[k].node)));
            if (!f.port(ends[k]))
                json_io::fail(e, fmt::format("{} is not a port in the snapshot's nodes",
                                             describe(f, ends[k])));
        }
        const Link* link = f.link_of(ends[0]);
        bool same = link && ((link->a == ends[0] && link->b == ends[1]) ||
                             (link->a == ends[1] && link->b == ends[0]));
        if (!same)
            json_io::fail(l, fmt::format("{} <-> {} is not a cable the ports' peers make",
                                         describe(f, ends[0]), describe(f, ends[1])));
    }
}

}  // namespace

json snapshot_to_json(const Snapshot& s) {
    const Fabric& f = s.fabric;
    Tiers tiers = classify_tiers(f);
    json nodes = json::array();
    for (size_t i = 0; i < f.nodes().size(); ++i)
        nodes.push_back(node_json(f.nodes()[i], tiers.tier(i)));
    json links = json::array();
    for (const Link& l : f.links()) links.push_back(link_json(f, l));
    json doc{{"format", kSnapshotFormat},
             {"version", kSnapshotVersion},
             {"source", source_json(s.source)},
             {"nodes", std::move(nodes)},
             {"links", std::move(links)}};
    if (!s.planes.empty()) doc["planes"] = planes_to_json(s.planes);
    return doc;
}

void write_snapshot(std::ostream& out, const Snapshot& s, const json& extra) {
    const Fabric& f = s.fabric;
    Tiers tiers = classify_tiers(f);
    out << "{\"format\": \"" << kSnapshotFormat << "\",\n\"version\": " << kSnapshotVersion
        << ",\n\"source\": " << source_json(s.source).dump() << ",\n";
    if (!s.planes.empty()) {
        stream_array(out, "planes", planes_to_json(s.planes), [](const json& v) { return v; });
        out << ",\n";
    }
    size_t i = 0;
    stream_array(out, "nodes", f.nodes(),
                 [&](const Node& n) { return node_json(n, tiers.tier(i++)); });
    out << ",\n";
    stream_array(out, "links", f.links(), [&](const Link& l) { return link_json(f, l); });
    if (extra.is_object()) {
        for (const auto& [key, value] : extra.items()) {
            out << ",\n";
            if (value.is_array()) {
                stream_array(out, key, value, [](const json& v) { return v; });
            } else {
                out << json(key).dump() << ": " << value.dump();
            }
        }
    }
    out << "\n}\n";
}

Result<Snapshot> snapshot_from_json(const json& j) {
    if (!j.is_object() || !j.contains("format") || j.at("format") != kSnapshotFormat) {
        return make_error(
            fmt::format("not a fabscope snapshot (no \"format\": \"{}\")", kSnapshotFormat));
    }
    if (!j.contains("version") || !j.at("version").is_number_integer()) {
        return make_error("snapshot has no integer \"version\"");
    }
    int version = j.at("version").get<int>();
    if (version != kSnapshotVersion) {
        return make_error(
            fmt::format("snapshot version {} is not supported (this fabscope reads version {}{})",
                        version, kSnapshotVersion,
                        version > kSnapshotVersion ? "; it was written by a newer fabscope" : ""));
    }
    return json_io::guarded([&]() -> Result<Snapshot> {
        Snapshot s;
        if (j.contains("source")) {
            const json& src = json_io::get_object(j, "source");
            s.source.method = source_method(src);
            s.source.ca = printable(json_io::get_string_at_most(src, "ca", kMaxCaName, ""));
            s.source.ca_port = static_cast<int>(
                src.contains("ca_port") ? json_io::get_uint_checked(src, "ca_port", kMaxPortNum)
                                        : 0);
            s.source.input_file =
                printable(json_io::get_string_at_most(src, "input_file", kMaxPath, ""));
            s.source.tool_version =
                printable(json_io::get_string_at_most(src, "tool_version", kMaxToolVersion, ""));
            s.source.started = source_started(src);
            s.source.duration_s = json_io::get_double(src, "duration_s", 0);
            if (s.source.duration_s < 0)
                json_io::fail(src.at("duration_s"), "must not be negative");
            s.source.mads_sent = json_io::get_uint<uint64_t>(src, "mads_sent", 0);
            if (src.contains("mad_stats")) {
                const json& m = json_io::get_object(src, "mad_stats");
                MadStats st;
                st.sent = json_io::get_uint<uint64_t>(m, "sent", 0);
                st.answered = json_io::get_uint<uint64_t>(m, "answered", 0);
                st.retries = json_io::get_uint<uint64_t>(m, "retries", 0);
                st.timeouts = json_io::get_uint<uint64_t>(m, "timeouts", 0);
                st.dropped = json_io::get_uint<uint64_t>(m, "dropped", 0);
                st.unreachable = json_io::get_uint<uint64_t>(m, "unreachable", 0);
                st.garbage = json_io::get_uint<uint64_t>(m, "garbage", 0);
                st.stray = json_io::get_uint<uint64_t>(m, "stray", 0);
                st.optional_unanswered = json_io::get_uint<uint64_t>(m, "optional_unanswered", 0);
                st.max_chain = json_io::get_uint<int>(m, "max_chain", 0);
                s.source.mad_stats = st;
            }
            s.source.complete = json_io::get_bool(src, "complete", true);
            s.source.sm_read = json_io::get_bool(src, "sm_read", false);
            s.source.pkeys_read = json_io::get_bool(src, "pkeys_read", false);
            s.source.interrupted = json_io::get_bool(src, "interrupted", false);
        }
        const size_t max_description =
            s.source.method.starts_with("roce-") ? kMaxRoceNodeDescription : kMaxNodeDescription;
        std::vector<Node> nodes;
        for (const json& n : json_io::get_array(j, "nodes"))
            nodes.push_back(node_from_json(n, max_description));
        auto fabric = Fabric::build(std::move(nodes));
        if (!fabric) return fabric.error();
        s.fabric = std::move(fabric).value();
        if (j.contains("planes")) s.planes = planes_from_json(j.at("planes"));
        if (auto bad = check_planes(s.fabric, s.planes.size()); !bad.empty())
            json_io::fail(j.contains("planes") ? j.at("planes") : j.at("nodes"), bad);
        check_links(j, s.fabric);
        return s;
    });
}

Result<Snapshot> load_snapshot(const std::string& path) {
    return json_io::load_file(path, snapshot_from_json);
}

Status save_snapshot(const Snapshot& s, const std::string& path, const json& extra) {
    return json_io::write_file_atomically(
        path, [&](std::ostream& out) { write_snapshot(out, s, extra); });
}

Status save_snapshot(const Snapshot& s, const std::string& path) {
    return save_snapshot(s, path, json::object());
}

}  // namespace fabscope
