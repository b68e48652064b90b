#include "fake_fabric.h"

#include <infiniband/mad.h>

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "discover/smp_decode.h"

namespace fabscope::testing {
namespace {

using Data = std::array<uint8_t, 192>;

void set(Data& d, enum MAD_FIELDS f, uint32_t v) {
    mad_set_field(d.data(), 0, f, v);
}
uint32_t get(Data& d, enum MAD_FIELDS f) {
    return mad_get_field(d.data(), 0, f);
}
void set64(Data& d, enum MAD_FIELDS f, uint64_t v) {
    mad_set_field64(d.data(), 0, f, v);
}

unsigned mtu_code(uint16_t bytes) {
    for (unsigned c = 1; c <= 5; ++c) {
        if (mtu_bytes(c) == bytes) return c;
    }
    return 0;
}

uint32_t base_speed_bits(SpeedSet s) {
    return (s.contains(Speed::SDR) ? 1U : 0U) | (s.contains(Speed::DDR) ? 2U : 0U) |
           (s.contains(Speed::QDR) ? 4U : 0U);
}
uint32_t ext_speed_bits(SpeedSet s) {
    return (s.contains(Speed::FDR) ? 1U : 0U) | (s.contains(Speed::EDR) ? 2U : 0U) |
           (s.contains(Speed::HDR) ? 4U : 0U) | (s.contains(Speed::NDR) ? 8U : 0U);
}

Data node_info(const Node& n, uint8_t arrival) {
    Data d{};
    set(d, IB_NODE_BASE_VERS_F, 1);
    set(d, IB_NODE_CLASS_VERS_F, 1);
    set(d, IB_NODE_TYPE_F, static_cast<uint32_t>(n.type));
    set(d, IB_NODE_NPORTS_F, n.num_ports);
    set64(d, IB_NODE_SYSTEM_GUID_F, n.system_guid);
    set64(d, IB_NODE_GUID_F, n.guid);
    const Port* p = n.type == NodeType::Switch ? n.port(0) : n.port(arrival);
    set64(d, IB_NODE_PORT_GUID_F, p ? p->guid : n.guid);
    set(d, IB_NODE_PARTITION_CAP_F, n.type == NodeType::CA ? 64U : 0U);  // as ibsim
    set(d, IB_NODE_DEVID_F, n.device_id);
    set(d, IB_NODE_REVISION_F, n.revision);
    set(d, IB_NODE_LOCAL_PORT_F, arrival);
    set(d, IB_NODE_VENDORID_F, n.vendor_id);
    return d;
}

Data port_info(const Node& n, const Port& p, uint8_t arrival) {
    Data d{};
    set(d, IB_PORT_LID_F, p.lid);
    set(d, IB_PORT_LMC_F, p.lmc);
    set(d, IB_PORT_STATE_F, static_cast<uint32_t>(p.state));
    set(d, IB_PORT_PHYS_STATE_F, static_cast<uint32_t>(p.phys_state));
    bool carries_caps = n.type != NodeType::Switch || p.num == 0;
    set(d, IB_PORT_CAPMASK_F,
        carries_caps ? (p.capability_mask | kCapIsExtendedSpeedsSupported) : 0);
    set(d, IB_PORT_LOCAL_PORT_F, arrival);
    set(d, IB_PORT_LINK_WIDTH_ENABLED_F, portinfo_width_bits(p.width_enabled));
    set(d, IB_PORT_LINK_WIDTH_SUPPORTED_F, portinfo_width_bits(p.width_supported));
    set(d, IB_PORT_LINK_WIDTH_ACTIVE_F,
        p.width_active ? portinfo_width_bits(WidthSet{*p.width_active}) : 0);
    set(d, IB_PORT_LINK_SPEED_SUPPORTED_F, base_speed_bits(p.speed_supported));
    set(d, IB_PORT_LINK_SPEED_ENABLED_F, base_speed_bits(p.speed_enabled));
    set(d, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, ext_speed_bits(p.speed_supported));
    set(d, IB_PORT_LINK_SPEED_EXT_ENABLED_F, ext_speed_bits(p.speed_enabled));
    if (p.speed_active) {
        bool ext = *p.speed_active >= Speed::FDR;
        set(d, IB_PORT_LINK_SPEED_ACTIVE_F, ext ? 4U : base_speed_bits(SpeedSet{*p.speed_active}));
        set(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F,
            ext ? ext_speed_bits(SpeedSet{*p.speed_active}) : 0U);
    }
    set(d, IB_PORT_MTU_CAP_F, mtu_code(p.mtu_cap));
    set(d, IB_PORT_NEIGHBOR_MTU_F, mtu_code(p.mtu_active));
    return d;
}

Data counters(const Port& p, bool extended) {
    Data d{};
    d[1] = p.num;
    PortCounters pc = p.counters.value_or(PortCounters{});
    auto v = [&](Counter c) { return pc.get(c).value_or(0); };
    if (!extended) {
        set(d, IB_PC_ERR_SYM_F, static_cast<uint32_t>(v(Counter::SymbolErrorCounter)));
        set(d, IB_PC_LINK_RECOVERS_F, static_cast<uint32_t>(v(Counter::LinkErrorRecoveryCounter)));
        set(d, IB_PC_LINK_DOWNED_F, static_cast<uint32_t>(v(Counter::LinkDownedCounter)));
        set(d, IB_PC_ERR_RCV_F, static_cast<uint32_t>(v(Counter::PortRcvErrors)));
        set(d, IB_PC_XMT_DISCARDS_F, static_cast<uint32_t>(v(Counter::PortXmitDiscards)));
        set(d, IB_PC_XMT_WAIT_F, static_cast<uint32_t>(v(Counter::PortXmitWait)));
        set(d, IB_PC_XMT_BYTES_F,
            static_cast<uint32_t>(std::min<uint64_t>(v(Counter::PortXmitData), 0xFFFFFFFF)));
        set(d, IB_PC_RCV_BYTES_F,
            static_cast<uint32_t>(std::min<uint64_t>(v(Counter::PortRcvData), 0xFFFFFFFF)));
    } else {
        set64(d, IB_PC_EXT_XMT_BYTES_F, v(Counter::PortXmitData));
        set64(d, IB_PC_EXT_RCV_BYTES_F, v(Counter::PortRcvData));
        set64(d, IB_PC_EXT_XMT_PKTS_F, v(Counter::PortXmitPkts));
        set64(d, IB_PC_EXT_RCV_PKTS_F, v(Counter::PortRcvPkts));
    }
    return d;
}

Data details(const Port& p, uint16_t attr) {
    Data d{};
    d[1] = p.num;
    PortCounters pc = p.counters.value_or(PortCounters{});
    auto v = [&](Counter c) { return static_cast<uint32_t>(pc.get(c).value_or(0)); };
    if (attr == mad::kAttrPortRcvErrorDetails) {
        set(d, IB_PC_RCV_LOCAL_PHY_ERR_F, v(Counter::PortLocalPhysicalErrors));
        set(d, IB_PC_RCV_MALFORMED_PKT_ERR_F, v(Counter::PortMalformedPktErrors));
        set(d, IB_PC_RCV_BUF_OVR_ERR_F, v(Counter::PortBufferOverrunErrors));
        set(d, IB_PC_RCV_DLID_MAP_ERR_F, v(Counter::PortDLIDMappingErrors));
        set(d, IB_PC_RCV_VL_MAP_ERR_F, v(Counter::PortVLMappingErrors));
        set(d, IB_PC_RCV_LOOPING_ERR_F, v(Counter::PortLoopingErrors));
    } else {
        set(d, IB_PC_XMT_INACT_DISC_F, v(Counter::PortInactiveDiscards));
        set(d, IB_PC_XMT_NEIGH_MTU_DISC_F, v(Counter::PortNeighborMTUDiscards));
        set(d, IB_PC_XMT_SW_LIFE_DISC_F, v(Counter::PortSwLifetimeLimitDiscards));
        set(d, IB_PC_XMT_SW_HOL_DISC_F, v(Counter::PortSwHOQLifetimeLimitDiscards));
    }
    return d;
}

Data vl_counters(uint8_t port, const VlXmitWait& w) {
    Data d{};
    d[1] = port;
    for (int vl = 0; vl < kVlCount; ++vl) {
        // 16-bit big-endian counters from byte 4 (IBA PortVLXmitWaitCounters).
        const auto v =
            static_cast<uint16_t>(std::min<uint64_t>(w[static_cast<size_t>(vl)], 0xFFFF));
        d[4 + 2 * vl] = static_cast<uint8_t>(v >> 8);
        d[5 + 2 * vl] = static_cast<uint8_t>(v & 0xFF);
    }
    return d;
}

}  // namespace

FakeFabric::FakeFabric(const Fabric& fabric, Guid local, uint8_t local_port, FakeClock& clock,
                       uint32_t seed)
    : fabric_(fabric), local_(local), local_port_(local_port), clock_(clock), rng_(seed) {}

namespace {

bool owns(const Node& n, Lid lid) {
    for (const Port& p : n.ports) {
        if (p.lid && lid >= p.lid && lid < p.lid + (1U << p.lmc)) return true;
    }
    return false;
}

bool tables_programmed(const Fabric& f) {
    for (const Node& n : f.nodes()) {
        if (n.type == NodeType::Switch && !n.lft.empty()) return true;
    }
    return false;
}

}  // namespace

const Node* FakeFabric::walk_lid(Lid lid, uint8_t* arrival, bool* lost, bool* silent_on_way,
                                 std::vector<PortRef>* crossed) const {
    const Node* target = fabric_.find_by_lid(lid);
    if (!target) {
        *lost = true;
        return nullptr;
    }
    auto arrival_at = [&](const Node& n) {
        uint8_t a = 0;
        for (const Port& p : n.ports) {
            if (p.lid && lid >= p.lid && lid < p.lid + (1U << p.lmc)) a = p.num;
        }
        return a;
    };
    if (!tables_programmed(fabric_)) {
        *arrival = arrival_at(*target);
        return target;
    }
    // Out of the local port, then switch by switch through the tables.
    const Node* cur = fabric_.node(local_);
    const Port* out = cur->port(local_port_);
    for (size_t hop = 0; hop < 64; ++hop) {
        if (owns(*cur, lid)) {
            *arrival = arrival_at(*cur);
            return cur;
        }
        if (hop > 0) {
            auto b = behaviour_.find(cur->guid);
            if (b != behaviour_.end() && b->second.silent) {
                *silent_on_way = true;
                return nullptr;
            }
            if (cur->type != NodeType::Switch || lid >= cur->lft.size() || cur->lft[lid] == 0xFF) {
                *lost = true;
                return nullptr;
            }
            out = cur->port(cur->lft[lid]);
        }
        if (!out || !out->peer || !out->link_up()) {
            *lost = true;
            return nullptr;
        }
        crossed->push_back(PortRef{cur->guid, out->num});
        crossed->push_back(*out->peer);
        cur = fabric_.node(out->peer->node);
    }
    *lost = true;  // a loop
    return nullptr;
}

const Node* FakeFabric::walk(const mad::Address& to, uint8_t* arrival, bool* lost,
                             bool* silent_on_way, std::vector<PortRef>* crossed) const {
    *lost = false;
    *silent_on_way = false;
    if (!to.directed()) return walk_lid(to.lid, arrival, lost, silent_on_way, crossed);
    const Node* cur = fabric_.node(local_);
    *arrival = local_port_;
    for (size_t i = 0; i < to.dr_path.size(); ++i) {
        if (i > 0) {
            auto b = behaviour_.find(cur->guid);
            if (b != behaviour_.end() && b->second.silent) {
                *silent_on_way = true;  // its SMA never forwards
                return nullptr;
            }
            if (cur->type != NodeType::Switch) {
                *lost = true;  // a CA does not forward directed routes
                return nullptr;
            }
        }
        const Port* p = cur->port(to.dr_path[i]);
        if (!p || !p->peer || !p->link_up()) {
            *lost = down_port_answers;
            *silent_on_way = !down_port_answers;
            return nullptr;
        }
        crossed->push_back(PortRef{cur->guid, p->num});
        crossed->push_back(*p->peer);
        cur = fabric_.node(p->peer->node);
        *arrival = p->peer->port;
    }
    return cur;
}

std::optional<MadBytes> FakeFabric::answer(const Node& n, uint8_t arrival,
                                           const MadBytes& req) const {
    mad::Header h = mad::decode_header(req);
    Data d{};
    if (h.mgmt_class == mad::kClassPerf && h.attr_id == mad::kAttrClassPortInfo) {
        pma_asked.push_back(h.attr_id);
        auto cap = pma_class_cap.find(n.guid);
        if (cap == pma_class_cap.end()) return mad::make_response(req, d, 0x000C);
        set(d, IB_CPI_CAPMASK_F, cap->second);
        return mad::make_response(req, d, 0);
    }
    if (h.mgmt_class == mad::kClassPerf) {
        uint8_t sel = req[mad::kPmaDataOffset + 1];
        const Port* p = n.port(sel);
        if (!p) return mad::make_response(req, d, 0x001C);
        pma_asked.push_back(h.attr_id);
        if (h.attr_id == mad::kAttrPortVLXmitWaitCounters && vl_xmit_wait_ignored.count(n.guid))
            return std::nullopt;
        const bool detail = h.attr_id == mad::kAttrPortRcvErrorDetails ||
                            h.attr_id == mad::kAttrPortXmitDiscardDetails;
        if (detail && details_refused.count(n.guid)) return mad::make_response(req, d, 0x000C);
        if (h.attr_id == mad::kAttrPortSamplesControl && samples_tick.count(n.guid)) {
            d[2] = samples_tick.at(n.guid);  // Tick: byte 2 of the data
            return mad::make_response(req, d, 0);
        }
        if (auto e = ext_speeds.find(PortRef{n.guid, sel});
            h.attr_id == mad::kAttrPortExtendedSpeedsCounters && e != ext_speeds.end()) {
            d = e->second;
            d[1] = sel;
            return mad::make_response(req, d, 0);
        }
        if (h.attr_id == mad::kAttrPortCounters)
            d = counters(*p, false);
        else if (h.attr_id == mad::kAttrPortCountersExtended)
            d = counters(*p, true);
        else if (detail)
            d = details(*p, h.attr_id);
        else if (auto vl = vl_xmit_wait.find(PortRef{n.guid, sel});
                 h.attr_id == mad::kAttrPortVLXmitWaitCounters && vl != vl_xmit_wait.end())
            d = vl_counters(sel, vl->second);
        else if (pma_returned.count(n.guid))
            return req;
        else
            return mad::make_response(req, d, 0x000C);
        return mad::make_response(req, d, 0);
    }
    smp_asked.push_back(h.attr_id);
    switch (h.attr_id) {
        case mad::kAttrNodeInfo: d = node_info(n, arrival); break;
        case mad::kAttrNodeDescription:
            std::copy_n(n.description.begin(), std::min<size_t>(n.description.size(), 64),
                        d.begin());
            break;
        case mad::kAttrSwitchInfo:
            if (n.type != NodeType::Switch) return mad::make_response(req, d, 0x000C);
            set(d, IB_SW_LINEAR_FDB_CAP_F, 49152);
            set(d, IB_SW_LINEAR_FDB_TOP_F,
                n.lft.empty() ? 0U : static_cast<uint32_t>(n.lft.size() - 1));
            set(d, IB_SW_ENHANCED_PORT0_F, n.enhanced_port0 ? 1U : 0U);
            break;
        case mad::kAttrPortInfo: {
            const Port* p = n.port(static_cast<uint8_t>(h.attr_mod));
            if (!p) return mad::make_response(req, d, 0x001C);
            d = port_info(n, *p, arrival);
            if (fec_mode_active.count(n.guid) && get(d, IB_PORT_CAPMASK_F) != 0) {
                set(d, IB_PORT_CAPMASK_F,
                    get(d, IB_PORT_CAPMASK_F) | kCapIsCapabilityMask2Supported);
                set(d, IB_PORT_CAPMASK2_F, kCap2IsPortInfoExtendedSupported);
            }
            break;
        }
        case mad::kAttrPortInfoExtended: {
            auto mode = fec_mode_active.find(n.guid);
            if (mode == fec_mode_active.end() || !n.port(static_cast<uint8_t>(h.attr_mod)))
                return mad::make_response(req, d, 0x000C);
            set(d, IB_PORT_EXT_CAPMASK_F, 1U);  // IsFECModeSupported
            set(d, IB_PORT_EXT_FEC_MODE_ACTIVE_F, mode->second);
            break;
        }
        case mad::kAttrSMInfo: {
            // The SM of the port the SMP arrives on (a switch's on port 0).
            const Port* p = n.port(n.type == NodeType::Switch ? 0 : arrival);
            if (!p || !p->sm) return mad::make_response(req, d, 0x000C);
            set64(d, IB_SMINFO_GUID_F, p->sm->guid);
            set(d, IB_SMINFO_ACT_F, p->sm->act_count);
            set(d, IB_SMINFO_PRIO_F, p->sm->priority);
            set(d, IB_SMINFO_STATE_F, static_cast<uint32_t>(p->sm->state));
            break;
        }
        case mad::kAttrPKeyTable: {
            // A switch's port in the modifier's upper half; a CA's, the arrival port.
            const uint8_t port =
                n.type == NodeType::Switch ? static_cast<uint8_t>(h.attr_mod >> 16U) : arrival;
            const Port* p = n.port(port);
            if (!p || !p->pkeys) return mad::make_response(req, d, 0x000C);
            const size_t first = (h.attr_mod & 0xFFFFU) * 32U;
            for (size_t i = 0; i < 32 && first + i < p->pkeys->size(); ++i) {
                d[2 * i] = static_cast<uint8_t>((*p->pkeys)[first + i] >> 8U);
                d[(2 * i) + 1] = static_cast<uint8_t>((*p->pkeys)[first + i] & 0xFFU);
            }
            break;
        }
        case mad::kAttrLinearForwardingTable:
            for (size_t i = 0; i < 64; ++i) {
                size_t lid = h.attr_mod * 64 + i;
                d[i] = lid < n.lft.size() ? n.lft[lid] : 0xFF;
            }
            break;
        default: return mad::make_response(req, d, 0x000C);
    }
    return mad::make_response(req, std::span<const uint8_t>(d.data(), 64), 0);
}

void FakeFabric::deliver(std::chrono::milliseconds after, ReceivedMad m) {
    queue_.push_back(Delivery{clock_.now() + after, m});
}

Status FakeFabric::send(const mad::Address& to, const MadBytes& req, std::chrono::milliseconds) {
    ++outstanding_;
    max_outstanding = std::max(max_outstanding, outstanding_);
    if (req[3] != mad::kMethodGet) ++non_get_methods;
    ++sent_;
    if (on_send) on_send(sent_);
    uint8_t arrival = 0;
    bool lost = false;
    bool silent = false;
    std::vector<PortRef> crossed;
    const Node* n = walk(to, &arrival, &lost, &silent, &crossed);
    for (const PortRef& p : crossed) {
        auto d = port_drop_.find(p);
        if (d != port_drop_.end() && d->second > 0 &&
            std::uniform_real_distribution<double>(0, 1)(rng_) < d->second) {
            lost = true;  // dropped at that port, there or back
            break;
        }
    }
    if (lost) {
        deliver(std::chrono::milliseconds(0), ReceivedMad{req, 110});
        return Ok{};
    }
    if (silent) return Ok{};
    if (!n) {
        deliver(std::chrono::milliseconds(0), ReceivedMad{req, 110});
        return Ok{};
    }
    ++requests_to[n->guid];
    NodeBehaviour b = behaviour_.count(n->guid) ? behaviour_.at(n->guid) : NodeBehaviour{};
    if (b.silent) return Ok{};
    if (b.drop_rate > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < b.drop_rate) {
        deliver(std::chrono::milliseconds(0), ReceivedMad{req, 110});
        return Ok{};
    }
    auto reply = answer(*n, arrival, req);
    if (!reply) return Ok{};
    if (*reply == req) {  // not implemented: back at once with status 110, as ibsim does
        deliver(std::chrono::milliseconds(0), ReceivedMad{req, 110});
        return Ok{};
    }
    if (b.status) {
        uint16_t st = b.status | (req[1] == mad::kClassSmpDirected ? 0x8000 : 0);
        (*reply)[4] = static_cast<uint8_t>(st >> 8);
        (*reply)[5] = static_cast<uint8_t>(st);
    }
    if (b.garbage) {
        for (auto& byte : *reply) byte = static_cast<uint8_t>(rng_());
    }
    if (b.wrong_attribute) (*reply)[17] ^= 0x01;
    deliver(b.delay, ReceivedMad{*reply, 0});
    if (b.duplicate) deliver(b.delay + std::chrono::milliseconds(1), ReceivedMad{*reply, 0});
    return Ok{};
}

std::optional<ReceivedMad> FakeFabric::receive(std::chrono::milliseconds timeout) {
    auto limit = clock_.now() + timeout;
    auto it = std::min_element(queue_.begin(), queue_.end(),
                               [](const Delivery& a, const Delivery& b) { return a.at < b.at; });
    if (it == queue_.end() || it->at > limit) {
        clock_.advance(timeout);
        return std::nullopt;
    }
    if (it->at > clock_.now())
        clock_.advance(
            std::chrono::duration_cast<std::chrono::milliseconds>(it->at - clock_.now()));
    ReceivedMad m = it->mad;
    queue_.erase(it);
    if (outstanding_) --outstanding_;
    return m;
}

void program_min_hop_routes(std::vector<Node>& nodes) {
    std::unordered_map<Guid, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].guid] = i;
    Lid top = 0;
    for (const Node& n : nodes) {
        for (const Port& p : n.ports) top = std::max(top, p.lid);
    }
    for (Node& n : nodes) {
        if (n.type == NodeType::Switch) n.lft.assign(static_cast<size_t>(top) + 1, 0xFF);
    }
    for (size_t d = 0; d < nodes.size(); ++d) {
        Lid lid = nodes[d].lid();
        if (lid == 0) continue;
        std::vector<int> dist(nodes.size(), -1);
        std::queue<size_t> q;
        dist[d] = 0;
        q.push(d);
        while (!q.empty()) {
            size_t u = q.front();
            q.pop();
            if (u != d && nodes[u].type != NodeType::Switch) continue;  // CAs do not forward
            for (const Port& p : nodes[u].ports) {
                if (!p.peer || !p.link_up()) continue;
                size_t v = index.at(p.peer->node);
                if (dist[v] < 0) {
                    dist[v] = dist[u] + 1;
                    q.push(v);
                }
            }
        }
        for (Node& s : nodes) {
            if (s.type != NodeType::Switch) continue;
            size_t si = index.at(s.guid);
            if (si == d) {
                s.lft[lid] = 0;
                continue;
            }
            for (const Port& p : s.ports) {
                if (p.num == 0 || !p.peer || !p.link_up()) continue;
                if (dist[index.at(p.peer->node)] == dist[si] - 1 && dist[si] > 0) {
                    s.lft[lid] = p.num;
                    break;
                }
            }
        }
    }
}

}  // namespace fabscope::testing
