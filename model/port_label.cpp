#include "model/port_label.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fabscope {

PortLabel port_label(const Fabric& f, PortRef ref) {
    const Node* n = f.node(ref.node);
    const Port* p = f.port(ref);
    PortLabel l;
    l.node = n ? n->description : std::string();
    l.node_guid = ref.node;
    l.port = ref.port;
    l.lid = p ? p->lid : n ? n->lid() : Lid{0};
    return l;
}

nlohmann::json to_json(const PortLabel& l) {
    return {{"node", l.node},
            {"node_guid", format_guid(l.node_guid)},
            {"port", l.port},
            {"lid", l.lid}};
}

std::string to_text(const PortLabel& l) {
    const std::string guid = format_guid(l.node_guid);
    return fmt::format("{}[{}]  {}  LID {}", l.node.empty() ? guid : l.node, l.port, guid, l.lid);
}

std::string label_name(const PortLabel& l) {
    return fmt::format("{}[{}]", l.node.empty() ? format_guid(l.node_guid) : l.node, l.port);
}

std::string describe_with_link(const Fabric& f, PortRef ref) {
    const Port* p = f.port(ref);
    if (p && p->peer)
        return fmt::format("{} (link to {})", describe(f, ref), describe(f, *p->peer));
    return describe(f, ref);
}

std::vector<PortRef> port_and_peer(const Fabric& f, PortRef ref) {
    const Port* p = f.port(ref);
    if (p && p->peer) return {ref, *p->peer};
    return {ref};
}

}  // namespace fabscope
