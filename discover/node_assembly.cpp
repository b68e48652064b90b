#include "discover/node_assembly.h"

#include <algorithm>

namespace fabscope {

RawSmp raw_smp(std::span<const uint8_t, kSmpDataSize> d) {
    RawSmp r{};
    std::copy(d.begin(), d.end(), r.begin());
    return r;
}

Node assemble_node(const SmpReplies& r) {
    Node n;
    n.guid = r.info.node_guid;
    n.type = r.info.type;
    n.num_ports = r.info.num_ports;
    n.system_guid = r.info.system_guid;
    n.vendor_id = r.info.vendor_id;
    n.device_id = r.info.device_id;
    n.revision = r.info.revision;
    n.description = r.description;
    n.enhanced_port0 = n.type == NodeType::Switch && r.enhanced_port0;

    const bool is_switch = n.type == NodeType::Switch;
    std::optional<Port> port0;
    if (auto it = r.port_info.find(0); is_switch && it != r.port_info.end()) {
        port0 = decode_port_info(SmpData(it->second), 0,
                                 decode_port_capability_mask(SmpData(it->second)));
    }
    const uint32_t switch_cap = is_switch && r.port_info.count(0)
                                    ? decode_port_capability_mask(SmpData(r.port_info.at(0)))
                                    : 0;
    n.ports.reserve(r.port_info.size());
    for (const auto& [num, raw] : r.port_info) {
        const uint32_t cap = is_switch ? switch_cap : decode_port_capability_mask(SmpData(raw));
        Port port = decode_port_info(SmpData(raw), num, cap);
        auto g = r.port_guids.find(num);
        port.guid = g != r.port_guids.end() ? g->second : r.info.port_guid;
        if (is_switch) {
            // Only port 0 of a switch has a LID; the external ports are reached by it.
            port.lid = port0 ? port0->lid : Lid{0};
            port.lmc = port0 ? port0->lmc : uint8_t{0};
        }
        n.ports.push_back(port);
    }
    return n;
}

}  // namespace fabscope
