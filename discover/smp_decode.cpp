#include "discover/smp_decode.h"

#include <infiniband/mad.h>

#include <cctype>

#include "util/printable.h"

namespace fabscope {
namespace {

// libibmad's getters take a non-const buffer but only read it.
uint32_t field(SmpData d, enum MAD_FIELDS f) {
    return mad_get_field(const_cast<uint8_t*>(d.data()), 0, f);  // NOLINT
}
uint64_t field64(SmpData d, enum MAD_FIELDS f) {
    return mad_get_field64(const_cast<uint8_t*>(d.data()), 0, f);  // NOLINT
}

}  // namespace

uint16_t mtu_bytes(unsigned code) {
    return code >= 1 && code <= 5 ? static_cast<uint16_t>(128U << code) : 0;
}

std::optional<NodeInfo> decode_node_info(SmpData d) {
    NodeInfo n;
    n.base_version = static_cast<uint8_t>(field(d, IB_NODE_BASE_VERS_F));
    n.class_version = static_cast<uint8_t>(field(d, IB_NODE_CLASS_VERS_F));
    uint32_t type = field(d, IB_NODE_TYPE_F);
    if (type < 1 || type > 3) return std::nullopt;
    n.type = static_cast<NodeType>(type);
    n.num_ports = static_cast<uint8_t>(field(d, IB_NODE_NPORTS_F));
    n.system_guid = field64(d, IB_NODE_SYSTEM_GUID_F);
    n.node_guid = field64(d, IB_NODE_GUID_F);
    n.port_guid = field64(d, IB_NODE_PORT_GUID_F);
    n.partition_cap = static_cast<uint16_t>(field(d, IB_NODE_PARTITION_CAP_F));
    n.device_id = static_cast<uint16_t>(field(d, IB_NODE_DEVID_F));
    n.revision = field(d, IB_NODE_REVISION_F);
    n.local_port = static_cast<uint8_t>(field(d, IB_NODE_LOCAL_PORT_F));
    n.vendor_id = field(d, IB_NODE_VENDORID_F);
    return n;
}

std::string decode_node_description(SmpData d) {
    std::string_view raw(reinterpret_cast<const char*>(d.data()), d.size());  // NOLINT
    return printable(raw.substr(0, raw.find('\0')));
}

SwitchInfo decode_switch_info(SmpData d) {
    SwitchInfo s;
    s.linear_fdb_cap = static_cast<uint16_t>(field(d, IB_SW_LINEAR_FDB_CAP_F));
    s.linear_fdb_top = static_cast<uint16_t>(field(d, IB_SW_LINEAR_FDB_TOP_F));
    s.mcast_fdb_cap = static_cast<uint16_t>(field(d, IB_SW_MCAST_FDB_CAP_F));
    s.default_port = static_cast<uint8_t>(field(d, IB_SW_DEF_PORT_F));
    s.lifetime = static_cast<uint8_t>(field(d, IB_SW_LIFE_TIME_F));
    s.enhanced_port0 = field(d, IB_SW_ENHANCED_PORT0_F) != 0;
    s.partition_enforcement_cap = static_cast<uint16_t>(field(d, IB_SW_PARTITION_ENFORCE_CAP_F));
    return s;
}

std::array<uint8_t, 16> decode_sl2vl(SmpData d) {
    std::array<uint8_t, 16> vl{};
    for (size_t sl = 0; sl < vl.size(); ++sl)
        vl[sl] = static_cast<uint8_t>((sl % 2 == 0 ? d[sl / 2] >> 4U : d[sl / 2]) & 0xFU);
    return vl;
}

bool port_info_ext_rs_fec_active(SmpData d) {
    constexpr uint32_t kIsFecModeSupported = 1;
    constexpr uint32_t kRsFec = 2;
    constexpr uint32_t kRsFec2 = 4;
    if ((field(d, IB_PORT_EXT_CAPMASK_F) & kIsFecModeSupported) == 0) return false;
    const uint32_t active = field(d, IB_PORT_EXT_FEC_MODE_ACTIVE_F) & 0xFFFFU;
    return active == kRsFec || active == kRsFec2;
}

std::optional<SmInfo> decode_sm_info(SmpData d) {
    const uint32_t state = field(d, IB_SMINFO_STATE_F);
    if (state > static_cast<uint32_t>(SmState::Master)) return std::nullopt;
    return SmInfo{field64(d, IB_SMINFO_GUID_F), field(d, IB_SMINFO_ACT_F),
                  static_cast<uint8_t>(field(d, IB_SMINFO_PRIO_F)), static_cast<SmState>(state)};
}

std::array<uint16_t, kPkeysPerBlock> decode_pkey_block(SmpData d) {
    std::array<uint16_t, kPkeysPerBlock> keys{};
    for (size_t i = 0; i < keys.size(); ++i)
        keys[i] = static_cast<uint16_t>((d[2 * i] << 8U) | d[(2 * i) + 1]);
    return keys;
}

uint32_t decode_port_capability_mask(SmpData d) {
    return field(d, IB_PORT_CAPMASK_F);
}

Port decode_port_info(SmpData d, uint8_t num, uint32_t ext_cap_mask) {
    Port p;
    p.num = num;
    p.lid = static_cast<Lid>(field(d, IB_PORT_LID_F));
    p.lmc = static_cast<uint8_t>(field(d, IB_PORT_LMC_F));
    uint32_t state = field(d, IB_PORT_STATE_F);
    p.state = state <= 4 ? static_cast<PortState>(state) : PortState::Down;
    uint32_t phys = field(d, IB_PORT_PHYS_STATE_F);
    p.phys_state = phys <= 7 ? static_cast<PhysState>(phys) : PhysState::NoChange;
    p.capability_mask = field(d, IB_PORT_CAPMASK_F);
    p.mtu_cap = mtu_bytes(field(d, IB_PORT_MTU_CAP_F));
    p.mtu_active = mtu_bytes(field(d, IB_PORT_NEIGHBOR_MTU_F));

    p.width_supported = widths_from_portinfo(field(d, IB_PORT_LINK_WIDTH_SUPPORTED_F));
    uint32_t width_enabled = field(d, IB_PORT_LINK_WIDTH_ENABLED_F);
    // 255 means "set to LinkWidthSupported".
    p.width_enabled =
        width_enabled == 255 ? p.width_supported : widths_from_portinfo(width_enabled);

    SpeedSet base_supported = speeds_from_portinfo(field(d, IB_PORT_LINK_SPEED_SUPPORTED_F));
    uint32_t speed_enabled = field(d, IB_PORT_LINK_SPEED_ENABLED_F);
    // 15 means "set to LinkSpeedSupported".
    SpeedSet base_enabled =
        speed_enabled == 15 ? base_supported : speeds_from_portinfo(speed_enabled);
    p.speed_supported = base_supported;
    p.speed_enabled = base_enabled;

    bool ext = (ext_cap_mask & kCapIsExtendedSpeedsSupported) != 0;
    uint32_t ext_active = 0;
    if (ext) {
        SpeedSet ext_supported =
            ext_speeds_from_portinfo(field(d, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F));
        uint32_t ext_enabled_bits = field(d, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
        SpeedSet ext_enabled =
            ext_enabled_bits == 31 ? ext_supported : ext_speeds_from_portinfo(ext_enabled_bits);
        p.speed_supported = p.speed_supported | ext_supported;
        p.speed_enabled = p.speed_enabled | ext_enabled;
        ext_active = field(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
    }

    if (p.link_up()) {
        p.width_active = widths_from_portinfo(field(d, IB_PORT_LINK_WIDTH_ACTIVE_F)).best();
        if (auto e = ext_speeds_from_portinfo(ext_active).best()) {
            p.speed_active = e;
        } else {
            p.speed_active = speeds_from_portinfo(field(d, IB_PORT_LINK_SPEED_ACTIVE_F)).best();
        }
    }
    return p;
}

PortInfoExtra decode_port_info_extra(SmpData d) {
    PortInfoExtra x;
    x.local_port = static_cast<uint8_t>(field(d, IB_PORT_LOCAL_PORT_F));
    x.sm_lid = static_cast<Lid>(field(d, IB_PORT_SMLID_F));
    x.link_down_default = static_cast<uint8_t>(field(d, IB_PORT_LINK_DOWN_DEF_F));
    if (field(d, IB_PORT_CAPMASK_F) & kCapIsCapabilityMask2Supported) {
        x.capability_mask2 = field(d, IB_PORT_CAPMASK2_F);
    }
    return x;
}

bool parse_hex_bytes(std::string_view hex, std::array<uint8_t, kSmpDataSize>& out) {
    size_t n = 0;
    int nibble = -1;
    for (size_t i = 0; i < hex.size(); ++i) {
        char c = hex[i];
        if (std::isspace(static_cast<unsigned char>(c)) || c == ':' || c == ',') continue;
        if (c == '0' && i + 1 < hex.size() && (hex[i + 1] == 'x' || hex[i + 1] == 'X')) {
            ++i;
            continue;
        }
        int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                            : -1;
        if (v < 0) return false;
        if (nibble < 0) {
            nibble = v;
        } else {
            if (n >= out.size()) return false;
            out[n++] = static_cast<uint8_t>((nibble << 4) | v);
            nibble = -1;
        }
    }
    return nibble < 0 && n == out.size();
}

}  // namespace fabscope
