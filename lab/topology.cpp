#include "lab/topology.h"

#include <fmt/format.h>

#include <sstream>

namespace fabscope {
namespace {

// Net-file "enabled" masks. Enabling 1X alongside the wanted width lets a
// fault degrade a link to 1X at run time.
uint32_t width_mask(Width w) {
    return w == Width::X1 ? 1U : (1U | portinfo_width_bits(WidthSet{w}));
}

struct SpeedMasks {
    uint32_t speed;
    uint32_t ext;
};

// Every speed up to the wanted one is enabled, as on real ports.
SpeedMasks speed_masks(Speed s) {
    switch (s) {
        case Speed::SDR: return {1, 0};
        case Speed::DDR: return {3, 0};
        case Speed::QDR: return {7, 0};
        case Speed::FDR: return {7, 1};
        case Speed::EDR: return {7, 3};
        default: return {7, 7};  // HDR; validate() refuses the others
    }
}

std::string plane_suffix(int plane) {
    return plane > 1 ? fmt::format("p{}", plane) : std::string();
}
std::string host_name(int index, int plane = 1) {
    return fmt::format("h{:04d}{}", index, plane_suffix(plane));
}
std::string leaf_name(int l, int plane = 1) {
    return fmt::format("leaf{:02d}{}", l, plane_suffix(plane));
}
std::string spine_name(int s, int plane = 1) {
    return fmt::format("spine{:02d}{}", s, plane_suffix(plane));
}

constexpr uint64_t kPlaneGuidBase = 0x00fab5c0de000000ULL;  // clear of ibsim's own numbering

}  // namespace

Status validate(const LeafSpineSpec& s) {
    if (s.planes < 1 || s.planes > kMaxLabPlanes) {
        return make_error(fmt::format(
            "lab topology: --planes must be 1..{} (ibsim takes 10 clients, one OpenSM per plane)",
            kMaxLabPlanes));
    }
    if (s.planes > 1 && s.hosts_per_leaf < 1) {
        return make_error("lab topology: --planes needs hosts (--hosts-per-leaf at least 1)");
    }
    if (s.spines < 1 || s.leaves < 1 || s.hosts_per_leaf < 0 || s.links_per_pair < 1) {
        return make_error(
            "lab topology: --spines, --leaves and --links-per-pair must be at least 1, "
            "--hosts-per-leaf at least 0");
    }
    int leaf_ports = s.hosts_per_leaf + s.spines * s.links_per_pair;
    int spine_ports = s.leaves * s.links_per_pair;
    if (leaf_ports > 254) {
        return make_error(
            fmt::format("lab topology: a leaf would need {} ports (hosts + spines x links); "
                        "a switch has at most 254",
                        leaf_ports));
    }
    if (spine_ports > 254) {
        return make_error(
            fmt::format("lab topology: a spine would need {} ports (leaves x links); a switch "
                        "has at most 254",
                        spine_ports));
    }
    if (s.speed == Speed::FDR10 || s.speed > Speed::HDR) {
        return make_error(
            fmt::format("lab topology: ibsim cannot simulate {}; pick one of SDR, DDR, QDR, "
                        "FDR, EDR, HDR",
                        name(s.speed)));
    }
    return Ok{};
}

std::string plane_attach_node(int plane) {
    return host_name(1, plane);
}

uint64_t plane_sm_port_guid(int plane) {
    return kPlaneGuidBase + static_cast<uint64_t>(plane) * 0x100 + 1;
}

namespace {
std::string generate_plane(const LeafSpineSpec& s, int plane);
}  // namespace

std::string generate_leaf_spine(const LeafSpineSpec& s) {
    const int H = s.hosts_per_leaf;
    SpeedMasks sm = speed_masks(s.speed);

    std::string out;
    out += fmt::format(
        "# fabscope lab: leaf-spine, {} spines, {} leaves, {} hosts per leaf ({} hosts), "
        "{} link(s) per leaf-spine pair, {} {}{}\n",
        s.spines, s.leaves, H, s.leaves * H, s.links_per_pair, name(s.width), name(s.speed),
        s.planes > 1 ? fmt::format(", {} planes", s.planes) : std::string());
    out +=
        fmt::format("width={}\nspeed={}\nextspeed={}\n\n", width_mask(s.width), sm.speed, sm.ext);
    for (int plane = 1; plane <= s.planes; ++plane) {
        if (s.planes > 1) out += fmt::format("# plane {}\n", plane);
        out += generate_plane(s, plane);
    }
    return out;
}

namespace {

std::string generate_plane(const LeafSpineSpec& s, int plane) {
    const int H = s.hosts_per_leaf;
    const int leaf_ports = H + s.spines * s.links_per_pair;
    const int spine_ports = s.leaves * s.links_per_pair;
    auto leaf_uplink = [&](int spine, int link) {
        return H + (spine - 1) * s.links_per_pair + link + 1;
    };
    auto spine_downlink = [&](int leaf, int link) {
        return (leaf - 1) * s.links_per_pair + link + 1;
    };
    auto host = [&](int i) { return host_name(i, plane); };
    auto leaf = [&](int l) { return leaf_name(l, plane); };
    auto spine = [&](int sp) { return spine_name(sp, plane); };
    std::string out;

    // Hosts first: the simulator attaches clients (and the SM) to the first node.
    for (int l = 1; l <= s.leaves; ++l) {
        for (int h = 1; h <= H; ++h) {
            const int i = (l - 1) * H + h;
            // A fixed GUID for the HCA a plane's SM binds to (opensm -g).
            const bool sm_port = s.planes > 1 && i == 1;
            std::string port_guid =
                sm_port ? fmt::format("({:x})", plane_sm_port_guid(plane)) : std::string();
            if (sm_port) out += fmt::format("caguid={:#x}\n", plane_sm_port_guid(plane) - 1);
            out += fmt::format("Hca\t1 \"{}\"\t# \"{} HCA-{}\"\n[1]{}\t\"{}\"[{}]\n\n", host(i),
                               host_name(i), plane, port_guid, leaf(l), h);
        }
    }
    for (int l = 1; l <= s.leaves; ++l) {
        out += fmt::format("Switch\t{} \"{}\"\t# \"{}\" enhanced port 0\n", leaf_ports, leaf(l),
                           leaf(l));
        for (int h = 1; h <= H; ++h)
            out += fmt::format("[{}]\t\"{}\"[1]\n", h, host((l - 1) * H + h));
        for (int sp = 1; sp <= s.spines; ++sp) {
            for (int k = 0; k < s.links_per_pair; ++k) {
                out += fmt::format("[{}]\t\"{}\"[{}]\n", leaf_uplink(sp, k), spine(sp),
                                   spine_downlink(l, k));
            }
        }
        out += "\n";
    }
    for (int sp = 1; sp <= s.spines; ++sp) {
        out += fmt::format("Switch\t{} \"{}\"\t# \"{}\" enhanced port 0\n", spine_ports, spine(sp),
                           spine(sp));
        for (int l = 1; l <= s.leaves; ++l) {
            for (int k = 0; k < s.links_per_pair; ++k) {
                out += fmt::format("[{}]\t\"{}\"[{}]\n", spine_downlink(l, k), leaf(l),
                                   leaf_uplink(sp, k));
            }
        }
        out += "\n";
    }
    return out;
}

template <class Fn>
void for_each_declaration(const std::string& text, Fn&& fn) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind != "Switch" && kind != "Hca" && kind != "Rt") continue;
        int ports = 0;
        ls >> ports;
        std::string rest;
        std::getline(ls, rest);
        std::string id;
        if (auto q1 = rest.find('"'); q1 != std::string::npos) {
            if (auto q2 = rest.find('"', q1 + 1); q2 != std::string::npos)
                id = rest.substr(q1 + 1, q2 - q1 - 1);
        }
        fn(kind, ports, id);
    }
}

}  // namespace

NetFileStats count_net_file(const std::string& text) {
    NetFileStats st;
    for_each_declaration(text, [&](const std::string& kind, int ports, const std::string&) {
        if (kind == "Switch") {
            ++st.switches;
            st.ports += ports + 1;
        } else if (kind == "Hca") {
            ++st.cas;
            st.ports += ports;
        } else {
            ++st.routers;
            st.ports += ports;
        }
    });
    return st;
}

std::vector<std::string> net_file_node_names(const std::string& text) {
    std::vector<std::string> names;
    for_each_declaration(
        text, [&](const std::string&, int, const std::string& id) { names.push_back(id); });
    return names;
}

std::optional<NetPort> net_file_peer(const std::string& text, const std::string& node, int port) {
    std::istringstream in(text);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string first;
        ls >> first;
        if (first == "Switch" || first == "Hca" || first == "Rt") {
            auto q1 = line.find('"');
            auto q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
            inside = q2 != std::string::npos && line.substr(q1 + 1, q2 - q1 - 1) == node;
            continue;
        }
        // "[5]\t"spine01"[1]" (a port line may carry a port GUID in parentheses)
        if (!inside || first.empty() || first[0] != '[') continue;
        if (std::atoi(first.c_str() + 1) != port) continue;
        auto q1 = line.find('"');
        auto q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
        auto b = q2 == std::string::npos ? q2 : line.find('[', q2);
        if (b == std::string::npos) return std::nullopt;
        return NetPort{line.substr(q1 + 1, q2 - q1 - 1), std::atoi(line.c_str() + b + 1)};
    }
    return std::nullopt;
}

}  // namespace fabscope
