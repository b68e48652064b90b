#include "model/plane.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "model/json_io.h"
#include "model/snapshot.h"
#include "util/exit_status.h"
#include "util/printable.h"

namespace fabscope {

using nlohmann::json;

namespace {
constexpr uint64_t kMaxPlanes = 0xFFFF;
}  // namespace

Plane plane_of(const Fabric& f, uint64_t subnet_prefix, Lid sm_lid) {
    Plane p;
    p.subnet_prefix = subnet_prefix;
    p.sm_lid = sm_lid;
    if (sm_lid == 0) return p;
    for (const Node& n : f.nodes()) {
        if (!n.answers_to(sm_lid)) continue;
        // A switch's SM runs behind port 0; a CA's on the port that holds the LID.
        for (const Port& port : n.ports) {
            bool holds = n.type == NodeType::Switch
                             ? port.num == 0
                             : port.lid != 0 && sm_lid >= port.lid &&
                                   sm_lid < port.lid + (1U << (port.lmc & 7U));
            if (holds && (port.capability_mask & kCapIsSM) != 0) {
                p.sm_guid = port.guid;
                p.managed = true;
            }
        }
    }
    return p;
}

std::vector<Plane> planes_of(const Snapshot& s) {
    if (!s.planes.empty()) return s.planes;
    Plane p;
    p.ca = s.source.ca;
    p.ca_port = s.source.ca_port;
    return {p};
}

bool has_port_guid(const Fabric& f, Guid port_guid) {
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            if (p.guid == port_guid) return true;
        }
    }
    return false;
}

Result<Snapshot> merge_planes(std::vector<Snapshot> parts) {
    if (parts.empty()) return make_error("no plane to merge");
    if (parts.size() == 1) {
        Snapshot one = std::move(parts.front());
        if (one.planes.empty()) one.planes = planes_of(one);
        return one;
    }
    Snapshot out;
    out.source = parts.front().source;
    out.source.method = "planes";
    out.source.duration_s = 0;
    out.source.mads_sent = 0;
    out.source.mad_stats.reset();
    std::vector<Node> nodes;
    std::unordered_map<Guid, size_t> part_of;
    for (size_t k = 0; k < parts.size(); ++k) {
        Snapshot& part = parts[k];
        const auto base = static_cast<uint16_t>(out.planes.size());
        std::vector<Plane> mine = planes_of(part);
        if (out.planes.size() + mine.size() > kMaxPlanes)
            return make_error(fmt::format("more than {} planes", kMaxPlanes), kExitUsage);
        out.planes.insert(out.planes.end(), mine.begin(), mine.end());
        out.source.duration_s += part.source.duration_s;
        out.source.mads_sent += part.source.mads_sent;
        out.source.complete = out.source.complete && part.source.complete;
        out.source.interrupted = out.source.interrupted || part.source.interrupted;
        for (Node n : part.fabric.nodes()) {
            if (auto [it, fresh] = part_of.emplace(n.guid, k); !fresh) {
                return make_error(
                    fmt::format("node {} ({}) is in planes {} and {}: the same subnet twice, or "
                                "two subnets cabled together",
                                format_guid(n.guid), n.description, it->second + 1, k + 1),
                    kExitUsage);
            }
            n.plane = static_cast<uint16_t>(base + n.plane);
            nodes.push_back(std::move(n));
        }
    }
    auto fabric = Fabric::build(std::move(nodes));
    if (!fabric) return fabric.error();
    out.fabric = std::move(fabric).value();
    return out;
}

std::string format_subnet_prefix(uint64_t prefix) {
    return fmt::format("{:#018x}", prefix);
}

json planes_to_json(const std::vector<Plane>& planes) {
    json a = json::array();
    for (size_t i = 0; i < planes.size(); ++i) {
        const Plane& p = planes[i];
        json j{
            {"index", i},
            {"subnet_prefix",
             p.subnet_prefix ? json(format_subnet_prefix(p.subnet_prefix)) : json()},
            {"managed", p.managed},
            {"sm", p.sm_lid || p.sm_guid ? json{{"lid", p.sm_lid}, {"guid", format_guid(p.sm_guid)}}
                                         : json()},
            {"ca", p.ca},
            {"ca_port", p.ca_port},
            {"local_port_guid", format_guid(p.local_port_guid)}};
        a.push_back(std::move(j));
    }
    return a;
}

std::vector<Plane> planes_from_json(const json& j) {
    if (!j.is_array()) json_io::fail(j, "must be an array");
    if (j.size() > kMaxPlanes) json_io::fail(j, fmt::format("more than {} planes", kMaxPlanes));
    std::vector<Plane> out;
    for (const json& e : j) {
        if (!e.is_object()) json_io::fail(e, "must be an object");
        if (e.contains("index") && json_io::get_uint_checked(e, "index", kMaxPlanes) != out.size())
            json_io::fail(e.at("index"),
                          fmt::format("must be {} (planes are listed in order)", out.size()));
        Plane p;
        if (e.contains("subnet_prefix") && !e.at("subnet_prefix").is_null())
            p.subnet_prefix = json_io::get_hex(e, "subnet_prefix", 0);
        p.managed = json_io::get_bool(e, "managed", false);
        if (e.contains("sm") && !e.at("sm").is_null()) {
            const json& sm = json_io::get_object(e, "sm");
            p.sm_lid = static_cast<Lid>(json_io::get_uint_checked(sm, "lid", 0xBFFF));
            p.sm_guid = json_io::get_guid(sm, "guid", 0);
        }
        p.ca = printable(json_io::get_string_at_most(e, "ca", 64, ""));  // IB_DEVICE_NAME_MAX
        p.ca_port = static_cast<int>(
            e.contains("ca_port") ? json_io::get_uint_checked(e, "ca_port", 254) : 0);
        p.local_port_guid = json_io::get_guid(e, "local_port_guid", 0);
        out.push_back(std::move(p));
    }
    return out;
}

std::string check_planes(const Fabric& f, size_t plane_count) {
    const size_t count = plane_count == 0 ? 1 : plane_count;
    for (const Node& n : f.nodes()) {
        if (n.plane >= count)
            return fmt::format("node {} ({}) is on plane {}, but the snapshot has {} plane{}",
                               format_guid(n.guid), n.description, n.plane, count,
                               count == 1 ? "" : "s");
    }
    for (const Link& l : f.links()) {
        const Node* a = f.node(l.a.node);
        const Node* b = f.node(l.b.node);
        if (a && b && a->plane != b->plane)
            return fmt::format(
                "{} <-> {} cables plane {} to plane {}: planes are separate "
                "subnets",
                describe(f, l.a), describe(f, l.b), a->plane, b->plane);
    }
    return {};
}

}  // namespace fabscope
