#include "model/identity_checks.h"

#include <fmt/format.h>

#include <map>

namespace fabscope {

std::vector<Finding> check_identities(const Fabric& f) {
    std::vector<Finding> out;
    // LID -> every port answering to it. A switch is one LID (port 0's).
    std::map<Lid, std::vector<PortRef>> lids;
    std::map<Guid, std::vector<PortRef>> port_guids;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            bool addressable = n.type == NodeType::Switch ? p.num == 0 : true;
            if (!addressable || p.lid == 0) continue;
            for (uint32_t l = p.lid; l < p.lid + (1U << p.lmc) && l < 0xC000; ++l) {
                lids[static_cast<Lid>(l)].push_back(PortRef{n.guid, p.num});
            }
            if (p.guid != 0) port_guids[p.guid].push_back(PortRef{n.guid, p.num});
        }
    }
    for (const auto& [lid, refs] : lids) {
        if (refs.size() < 2) continue;
        std::string who;
        for (const PortRef& r : refs) who += (who.empty() ? "" : ", ") + describe(f, r);
        Finding x;
        x.kind = "duplicate_lid";
        x.severity = Severity::Error;
        x.summary = fmt::format("LID {} is assigned to {} ports: {}", lid, refs.size(), who);
        x.where = refs;
        x.evidence = {{"lid", lid}, {"ports", refs.size()}};
        out.push_back(std::move(x));
    }
    for (const auto& [guid, refs] : port_guids) {
        std::map<Guid, bool> nodes;
        for (const PortRef& r : refs) nodes[r.node] = true;
        if (nodes.size() < 2) continue;  // a switch's ports share its port GUID
        std::string who;
        for (const PortRef& r : refs) who += (who.empty() ? "" : ", ") + describe(f, r);
        Finding x;
        x.kind = "duplicate_guid";
        x.severity = Severity::Error;
        x.summary =
            fmt::format("port GUID {} is on {} nodes: {}", format_guid(guid), nodes.size(), who);
        x.where = refs;
        x.evidence = {{"guid", format_guid(guid)}};
        out.push_back(std::move(x));
    }
    return out;
}

}  // namespace fabscope
