// Decoders on SMP data captured from the lab (tests/fixtures/smp/README.md).

#include "discover/smp_decode.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace fabscope {
namespace {

using Block = std::array<uint8_t, kSmpDataSize>;

// "# PortInfo 5" followed by four lines of 16 hex bytes.
std::map<std::pair<std::string, int>, Block> load(const std::string& name) {
    std::ifstream in(std::string(FIXTURES_DIR) + "/smp/" + name + ".hex");
    EXPECT_TRUE(in) << name;
    std::map<std::pair<std::string, int>, Block> out;
    std::string line;
    std::string attr;
    int mod = 0;
    std::string hex;
    auto flush = [&] {
        if (attr.empty()) return;
        Block b{};
        EXPECT_TRUE(parse_hex_bytes(hex, b)) << name << " " << attr << " " << mod;
        out[{attr, mod}] = b;
        hex.clear();
    };
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) {
            flush();
            std::istringstream ls(line.substr(2));
            ls >> attr >> mod;
        } else {
            hex += line + " ";
        }
    }
    flush();
    return out;
}

SmpData sd(const Block& b) {
    return SmpData(b.data(), kSmpDataSize);
}

TEST(SmpDecode, SwitchNodeInfoDescriptionAndSwitchInfo) {
    auto leaf = load("leaf02");
    auto ni = decode_node_info(sd(leaf[{"NodeInfo", 0}]));
    ASSERT_TRUE(ni);
    EXPECT_EQ(ni->type, NodeType::Switch);
    EXPECT_EQ(ni->num_ports, 6);
    EXPECT_EQ(ni->node_guid, 0x200001u);
    EXPECT_EQ(ni->port_guid, 0x200001u);
    EXPECT_EQ(ni->system_guid, 0x200001u);
    EXPECT_EQ(ni->base_version, 1);
    EXPECT_EQ(ni->class_version, 1);
    EXPECT_EQ(decode_node_description(sd(leaf[{"NodeDescription", 0}])), "leaf02");
    SwitchInfo si = decode_switch_info(sd(leaf[{"SwitchInfo", 0}]));
    EXPECT_EQ(si.linear_fdb_cap, 30720);
    EXPECT_EQ(si.mcast_fdb_cap, 1024);
    EXPECT_EQ(si.linear_fdb_top, 22);  // 22 LIDs in the lab
    EXPECT_TRUE(si.enhanced_port0);
}

TEST(SmpDecode, SwitchPortZeroCarriesTheCapabilities) {
    auto leaf = load("leaf02");
    uint32_t cap = decode_port_capability_mask(sd(leaf[{"PortInfo", 0}]));
    EXPECT_EQ(cap, 0xc048u);
    EXPECT_TRUE(cap & kCapIsExtendedSpeedsSupported);
    Port p0 = decode_port_info(sd(leaf[{"PortInfo", 0}]), 0, cap);
    EXPECT_EQ(p0.lid, 3);
    // External switch ports report no capability mask of their own.
    EXPECT_EQ(decode_port_capability_mask(sd(leaf[{"PortInfo", 1}])), 0u);
}

TEST(SmpDecode, DegradedWidth) {
    auto leaf = load("leaf02");
    uint32_t cap = decode_port_capability_mask(sd(leaf[{"PortInfo", 0}]));
    Port p = decode_port_info(sd(leaf[{"PortInfo", 5}]), 5, cap);
    EXPECT_EQ(p.state, PortState::Active);
    EXPECT_EQ(p.phys_state, PhysState::LinkUp);
    EXPECT_EQ(p.width_active, Width::X1);
    EXPECT_EQ(p.width_enabled, WidthSet{Width::X1});
    EXPECT_EQ(p.speed_active, Speed::HDR);
    // ibsim reports every width as supported.
    EXPECT_EQ(p.width_supported.members().size(), 5u);
    Port healthy = decode_port_info(sd(leaf[{"PortInfo", 6}]), 6, cap);
    EXPECT_EQ(healthy.width_active, Width::X4);
    EXPECT_EQ(healthy.width_enabled, (WidthSet{Width::X1, Width::X4}));
    EXPECT_EQ(healthy.mtu_cap, 2048);
    EXPECT_EQ(healthy.mtu_active, 2048);
}

TEST(SmpDecode, DegradedSpeedUsesExtendedSpeeds) {
    auto leaf = load("leaf03");
    uint32_t cap = decode_port_capability_mask(sd(leaf[{"PortInfo", 0}]));
    Port p = decode_port_info(sd(leaf[{"PortInfo", 6}]), 6, cap);
    EXPECT_EQ(p.width_active, Width::X4);
    EXPECT_EQ(p.speed_active, Speed::FDR);
    EXPECT_TRUE(p.speed_enabled.contains(Speed::FDR));
    EXPECT_FALSE(p.speed_enabled.contains(Speed::HDR));
    // Without IsExtendedSpeedsSupported the same bytes read as QDR.
    Port legacy = decode_port_info(sd(leaf[{"PortInfo", 6}]), 6, 0);
    EXPECT_EQ(legacy.speed_active, Speed::QDR);
}

TEST(SmpDecode, DownPortHasNoActiveRate) {
    auto leaf = load("leaf04");
    uint32_t cap = decode_port_capability_mask(sd(leaf[{"PortInfo", 0}]));
    Port p = decode_port_info(sd(leaf[{"PortInfo", 6}]), 6, cap);
    EXPECT_EQ(p.state, PortState::Down);
    EXPECT_EQ(p.phys_state, PhysState::Polling);
    EXPECT_FALSE(p.width_active);
    EXPECT_FALSE(p.speed_active);
    EXPECT_EQ(p.width_enabled, (WidthSet{Width::X1, Width::X4}));
}

TEST(SmpDecode, HostChannelAdapter) {
    auto host = load("h0001");
    auto ni = decode_node_info(sd(host[{"NodeInfo", 0}]));
    ASSERT_TRUE(ni);
    EXPECT_EQ(ni->type, NodeType::CA);
    EXPECT_EQ(ni->num_ports, 1);
    EXPECT_EQ(ni->node_guid, 0x100000u);
    EXPECT_EQ(ni->port_guid, 0x100001u);
    EXPECT_EQ(ni->revision, 0xa1u);
    EXPECT_EQ(ni->local_port, 1);
    EXPECT_EQ(decode_node_description(sd(host[{"NodeDescription", 0}])), "h0001 HCA-1");
    const Block& pi = host[{"PortInfo", 1}];
    uint32_t cap = decode_port_capability_mask(sd(pi));
    EXPECT_EQ(cap, 0x50c04au);  // h0001 runs the SM: IsSM (0x2) set
    EXPECT_TRUE(cap & kCapIsSM);
    Port p = decode_port_info(sd(pi), 1, cap);
    EXPECT_EQ(p.lid, 1);
    EXPECT_EQ(p.width_active, Width::X4);
    EXPECT_EQ(p.speed_active, Speed::HDR);
    PortInfoExtra x = decode_port_info_extra(sd(pi));
    EXPECT_EQ(x.local_port, 1);
    EXPECT_EQ(x.sm_lid, 1);
}

TEST(SmpDecode, GarbageIsRejectedNotTrusted) {
    Block b{};
    b.fill(0xff);
    EXPECT_FALSE(decode_node_info(sd(b)));  // node type 255
    Port p = decode_port_info(sd(b), 1, 0xffffffff);
    EXPECT_EQ(p.state, PortState::Down);  // 15 is not a PortState
    EXPECT_EQ(p.phys_state, PhysState::NoChange);
    EXPECT_FALSE(p.width_active);
    std::string desc = decode_node_description(sd(b));
    EXPECT_EQ(desc, std::string(64, '?'));
    EXPECT_FALSE(parse_hex_bytes("00 11 zz", b));
    EXPECT_FALSE(parse_hex_bytes("00 11", b));  // too short
}

}  // namespace
}  // namespace fabscope
