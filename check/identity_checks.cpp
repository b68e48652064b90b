#include "check/identity_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace fabscope {
namespace {

constexpr uint32_t kUnicastEnd = 0xC000;  // LIDs 0xC000 and up are multicast
constexpr unsigned kLmcMax = 7;           // PortInfo's LMC is three bits

struct LidRange {
    uint16_t plane = 0;  // LIDs are unique within a subnet only
    uint32_t first = 0;
    uint32_t end = 0;  // one past the last
    PortRef port;
};

std::string who(const Fabric& f, const std::vector<PortRef>& refs) {
    std::string out;
    for (const PortRef& r : refs) out += (out.empty() ? "" : ", ") + describe(f, r);
    return out;
}

// One finding per group of LID ranges that overlap one another. The work and
// memory are bounded by the number of ports and the unicast LID space, never
// by 1 << LMC of a port that claims an impossible LMC.
void duplicate_lids(const Fabric& f, std::vector<Finding>& out) {
    std::vector<LidRange> ranges;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            bool addressable = n.type == NodeType::Switch ? p.num == 0 : true;
            if (!addressable || p.lid == 0 || p.lid >= kUnicastEnd) continue;
            uint32_t size = 1U << std::min<unsigned>(p.lmc, kLmcMax);
            ranges.push_back(
                {n.plane, p.lid, std::min(p.lid + size, kUnicastEnd), PortRef{n.guid, p.num}});
        }
    }
    std::sort(ranges.begin(), ranges.end(), [](const LidRange& a, const LidRange& b) {
        return std::tie(a.plane, a.first, a.port) < std::tie(b.plane, b.first, b.port);
    });
    for (size_t i = 0; i < ranges.size();) {
        size_t j = i + 1;
        uint32_t end = ranges[i].end;
        while (j < ranges.size() && ranges[j].plane == ranges[i].plane && ranges[j].first < end)
            end = std::max(end, ranges[j++].end);
        if (j - i >= 2) {
            // The LIDs used more than once in this group: count over its span.
            uint32_t base = ranges[i].first;
            std::vector<uint32_t> uses(end - base, 0);
            std::vector<PortRef> refs;
            for (size_t k = i; k < j; ++k) {
                for (uint32_t l = ranges[k].first; l < ranges[k].end; ++l) ++uses[l - base];
                refs.push_back(ranges[k].port);
            }
            auto used_twice = [](uint32_t u) { return u >= 2; };
            uint32_t lo =
                base + static_cast<uint32_t>(std::find_if(uses.begin(), uses.end(), used_twice) -
                                             uses.begin());
            uint32_t hi = base +
                          static_cast<uint32_t>(
                              uses.rend() - std::find_if(uses.rbegin(), uses.rend(), used_twice)) -
                          1;
            Finding x = make_finding(
                "duplicate_lid", Severity::Error,
                lo == hi ? fmt::format("LID {} is assigned to {} ports: {}", lo, refs.size(),
                                       who(f, refs))
                         : fmt::format("LIDs {}-{} are assigned to more than one of {} "
                                       "ports: {}",
                                       lo, hi, refs.size(), who(f, refs)),
                refs, {{"lid", lo}, {"last_lid", hi}, {"ports", refs.size()}});
            out.push_back(std::move(x));
        }
        i = j;
    }
}

void duplicate_port_guids(const Fabric& f, std::vector<Finding>& out) {
    std::map<Guid, std::vector<PortRef>> port_guids;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            bool addressable = n.type == NodeType::Switch ? p.num == 0 : true;
            if (addressable && p.lid != 0 && p.guid != 0)
                port_guids[p.guid].push_back(PortRef{n.guid, p.num});
        }
    }
    for (const auto& [guid, refs] : port_guids) {
        std::set<Guid> nodes;
        for (const PortRef& r : refs) nodes.insert(r.node);
        if (nodes.size() < 2) continue;  // a switch's ports share its port GUID
        Finding x = make_finding("duplicate_guid", Severity::Error,
                                 fmt::format("port GUID {} is on {} nodes: {}", format_guid(guid),
                                             nodes.size(), who(f, refs)),
                                 refs, {{"guid", format_guid(guid)}});
        out.push_back(std::move(x));
    }
}

}  // namespace

std::vector<Finding> check_identities(const Fabric& f) {
    std::vector<Finding> out;
    duplicate_lids(f, out);
    duplicate_port_guids(f, out);
    return out;
}

}  // namespace fabscope
