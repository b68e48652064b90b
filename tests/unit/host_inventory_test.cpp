// The host inventory read from the synthetic sysfs trees of
// tests/fixtures/host (mlx5 layouts, see its README), and from trees broken
// on purpose: every bad file is a problem naming it, never a crash.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "host/inventory.h"
#include "host/pci_inventory.h"
#include "host/sysfs_parse.h"

namespace fabscope::host {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
    return std::string(FIXTURES_DIR) + "/host/" + name;
}

/// A writable copy of a fixture tree (symlinks kept as links).
class TreeCopy {
  public:
    explicit TreeCopy(const std::string& name) {
        dir_ = fs::path(::testing::TempDir()) /
               ("host-tree-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::copy(fixture(name), dir_,
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    ~TreeCopy() { fs::remove_all(dir_); }
    TreeCopy(const TreeCopy&) = delete;
    TreeCopy& operator=(const TreeCopy&) = delete;
    std::string root() const { return dir_.string(); }
    void write(const std::string& rel, const std::string& text) const {
        std::ofstream(dir_ / rel, std::ios::trunc) << text;
    }

  private:
    fs::path dir_;
};

const char* kIbPort = "sys/class/infiniband/mlx5_0/ports/1/";

TEST(HostSysfsParse, Values) {
    auto r = parse_port_rate("200 Gb/sec (4X HDR)");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->gbps, 200);
    EXPECT_EQ(r->width, Width::X4);
    EXPECT_EQ(r->speed, Speed::HDR);
    r = parse_port_rate("2.5 Gb/sec (1X SDR)");
    ASSERT_TRUE(r);
    EXPECT_DOUBLE_EQ(r->gbps, 2.5);
    EXPECT_EQ(parse_port_rate("10 Gb/sec (4X)")->speed, Speed::SDR);  // kernels before 4.x
    EXPECT_FALSE(parse_port_rate("fast"));
    EXPECT_FALSE(parse_port_rate("200 Gb/sec (3X HDR)"));
    EXPECT_FALSE(parse_port_rate("200 Gb/sec (4X WARP)"));
    auto s = parse_numbered_name("4: ACTIVE");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->number, 4);
    EXPECT_EQ(s->name, "ACTIVE");
    EXPECT_FALSE(parse_numbered_name("ACTIVE"));
    EXPECT_EQ(parse_uint("0x12"), 0x12U);
    EXPECT_EQ(parse_uint("31"), 31U);
    EXPECT_FALSE(parse_uint("-1"));
    EXPECT_EQ(parse_int("-1"), -1);
    EXPECT_EQ(parse_guid("0c42:a103:0012:3456"), 0x0c42a10300123456ULL);
    EXPECT_FALSE(parse_guid("0c42:a103:0012"));
    EXPECT_DOUBLE_EQ(*parse_pcie_speed("16.0 GT/s PCIe"), 16.0);
    EXPECT_DOUBLE_EQ(*parse_pcie_speed("2.5 GT/s"), 2.5);
    EXPECT_FALSE(parse_pcie_speed("Unknown"));
    EXPECT_EQ(parse_pcie_width("16"), 16);
    EXPECT_EQ(parse_pcie_width("x8"), 8);
    EXPECT_FALSE(parse_pcie_width("0"));
    EXPECT_TRUE(is_gid("fe80:0000:0000:0000:0c42:a103:0012:3456"));
    EXPECT_FALSE(is_gid("fe80::1"));
    EXPECT_TRUE(is_zero_gid("0000:0000:0000:0000:0000:0000:0000:0000"));
}

TEST(HostInventory, HealthyTwoPortHost) {
    HostInventory inv = read_inventory(fixture("healthy"));
    EXPECT_TRUE(inv.problems.empty()) << inv.problems[0].file << ": " << inv.problems[0].message;
    ASSERT_EQ(inv.devices.size(), 2u);
    const RdmaDevice& ib = inv.devices[0];
    EXPECT_EQ(ib.name, "mlx5_0");
    EXPECT_EQ(ib.node_guid, "0c42:a103:0012:3400");
    EXPECT_EQ(ib.fw_ver, "20.39.1002");
    EXPECT_EQ(ib.node_type, "CA");
    EXPECT_EQ(ib.hca_type, "MT4123");
    ASSERT_TRUE(ib.pci);
    EXPECT_EQ(ib.pci->address, "0000:19:00.0");
    EXPECT_EQ(ib.pci->current_width, 16);
    EXPECT_EQ(ib.pci->max_width, 16);
    EXPECT_EQ(ib.pci->current_speed_gts, 16.0);
    EXPECT_EQ(ib.pci->numa_node, 0);
    ASSERT_EQ(ib.ports.size(), 1u);
    const HostPort& p = ib.ports[0];
    EXPECT_TRUE(p.active());
    EXPECT_EQ(p.phys_state, "LinkUp");
    EXPECT_EQ(p.link_layer, "InfiniBand");
    EXPECT_EQ(p.width, Width::X4);
    EXPECT_EQ(p.speed, Speed::HDR);
    EXPECT_EQ(p.lid, 0x12U);
    EXPECT_EQ(p.sm_lid, 1U);
    ASSERT_EQ(p.gids.size(), 1u);  // the two all-zero entries are unused
    EXPECT_EQ(p.gids[0].type, "IB/RoCE v1");
    ASSERT_TRUE(p.netdev);  // IPoIB, found through the PCI function's net/ and dev_port
    EXPECT_EQ(p.netdev->name, "ib0");
    EXPECT_EQ(p.netdev->mtu, 4092);
    EXPECT_EQ(p.counters.at("symbol_error"), 0U);
    EXPECT_EQ(p.counters.at("port_xmit_data"), 123456789U);

    const HostPort& roce = inv.devices[1].ports[0];
    EXPECT_TRUE(roce.roce());
    ASSERT_EQ(roce.gids.size(), 4u);
    EXPECT_EQ(roce.gids[1].type, "RoCE v2");
    EXPECT_EQ(roce.gids[3].gid, "0000:0000:0000:0000:0000:ffff:0a00:000b");
    ASSERT_TRUE(roce.netdev);
    EXPECT_EQ(roce.netdev->name, "ens1f1np1");
    EXPECT_EQ(roce.netdev->mtu, 9000);
    EXPECT_EQ(roce.netdev->operstate, "up");
}

TEST(HostInventory, GpusAndNicsNearTheDevice) {
    HostInventory inv = read_inventory(fixture("healthy"));
    ASSERT_FALSE(inv.devices.empty());
    std::map<std::string, PciNeighbour> near;
    for (const auto& n : inv.devices[0].neighbours) near[n.address] = n;
    // Below the same switch: the other function of the NIC and the GPU.
    ASSERT_TRUE(near.count("0000:1a:00.0"));
    EXPECT_EQ(near["0000:1a:00.0"].kind, "gpu");
    EXPECT_TRUE(near["0000:1a:00.0"].same_switch);
    EXPECT_TRUE(near["0000:19:00.1"].same_switch);
    EXPECT_EQ(near["0000:19:00.1"].kind, "nic");
    // On other root ports of NUMA node 0: a GPU and an Ethernet NIC.
    ASSERT_TRUE(near.count("0000:1b:00.0"));
    EXPECT_FALSE(near["0000:1b:00.0"].same_switch);
    EXPECT_TRUE(near["0000:1b:00.0"].same_numa);
    EXPECT_EQ(near["0000:1c:00.0"].kind, "nic");
    // NUMA node 1's GPU is neither; bridges are no neighbours.
    EXPECT_FALSE(near.count("0000:81:00.0"));
    EXPECT_FALSE(near.count("0000:18:01.0"));
    EXPECT_EQ(near.size(), 4u);
    EXPECT_TRUE(is_gpu(0x030200, 0x1234));
    EXPECT_TRUE(is_gpu(0x030000, 0x10de));
    EXPECT_FALSE(is_gpu(0x030000, 0x8086));  // an integrated VGA is no compute GPU
}

TEST(HostInventory, DowntrainedLinkIsRead) {
    HostInventory inv = read_inventory(fixture("pcie-x8"));
    ASSERT_FALSE(inv.devices.empty());
    EXPECT_EQ(inv.devices[0].pci->current_width, 8);
    EXPECT_EQ(inv.devices[0].pci->max_width, 16);
}

TEST(HostInventory, NoDevicesIsAnEmptyInventory) {
    TreeCopy t("healthy");
    fs::remove_all(fs::path(t.root()) / "sys/class/infiniband");
    HostInventory inv = read_inventory(t.root());
    EXPECT_TRUE(inv.devices.empty());
    EXPECT_TRUE(inv.problems.empty());
    EXPECT_TRUE(read_inventory("/nonexistent-fabscope-root").devices.empty());
}

TEST(HostInventory, BadValuesAreProblemsNamingTheFile) {
    TreeCopy t("healthy");
    t.write(std::string(kIbPort) + "rate", "very fast\n");
    t.write(std::string(kIbPort) + "state", "ACTIVE\n");
    t.write(std::string(kIbPort) + "lid", "0x123456\n");
    t.write(std::string(kIbPort) + "counters/symbol_error", "many\n");
    t.write(std::string(kIbPort) + "gids/0", "fe80::1\n");
    t.write("sys/class/net/ib0/mtu", "12\n");
    t.write("sys/class/infiniband/mlx5_0/device/numa_node", "seven\n");
    t.write("sys/class/infiniband/mlx5_0/device/current_link_width", "x99\n");
    // An attribute larger than a page, and one that is a FIFO (a read would hang).
    t.write(std::string(kIbPort) + "phys_state", std::string(10000, '5'));
    fs::remove(fs::path(t.root()) / kIbPort / "link_layer");
    ASSERT_EQ(::mkfifo((fs::path(t.root()) / kIbPort / "link_layer").c_str(), 0600), 0);

    HostInventory inv = read_inventory(t.root());
    ASSERT_EQ(inv.devices.size(), 2u);
    const HostPort& p = inv.devices[0].ports[0];
    EXPECT_FALSE(p.active());
    EXPECT_FALSE(p.width);
    EXPECT_FALSE(p.lid);
    EXPECT_FALSE(p.counters.count("symbol_error"));
    EXPECT_TRUE(p.gids.empty());
    EXPECT_EQ(p.link_layer, "");
    std::map<std::string, std::string> problems;
    for (const auto& pr : inv.problems)
        problems[fs::path(pr.file).lexically_relative(t.root()).string()] = pr.message;
    const std::string port = kIbPort;
    EXPECT_EQ(problems[port + "rate"], "\"very fast\" is not a port rate");
    EXPECT_EQ(problems[port + "state"], "\"ACTIVE\" is not a port state");
    EXPECT_EQ(problems[port + "lid"], "\"0x123456\" is not a LID");
    EXPECT_EQ(problems[port + "counters/symbol_error"], "\"many\" is not a counter value");
    EXPECT_EQ(problems[port + "gids/0"], "\"fe80::1\" is not a GID");
    EXPECT_EQ(problems[port + "phys_state"], "cannot read: larger than 4096 bytes");
    EXPECT_EQ(problems[port + "link_layer"], "cannot read: not a regular file");
    EXPECT_EQ(problems["sys/class/net/ib0/mtu"], "\"12\" is not an MTU");
    // PCI attributes are named by their real path, the link resolved.
    bool numa = false, width = false;
    for (const auto& [file, msg] : problems) {
        numa = numa || msg == "\"seven\" is not a NUMA node";
        width = width || msg == "\"x99\" is not a PCIe link width";
    }
    EXPECT_TRUE(numa);
    EXPECT_TRUE(width);
}

TEST(HostInventory, LinksLeavingTheTreeAreRefused) {
    TreeCopy t("healthy");
    fs::path dev = fs::path(t.root()) / "sys/class/infiniband/mlx5_0/device";
    fs::remove(dev);
    fs::create_symlink("/sys/devices", dev);
    HostInventory inv = read_inventory(t.root());
    ASSERT_EQ(inv.devices.size(), 2u);
    EXPECT_FALSE(inv.devices[0].pci);
    ASSERT_FALSE(inv.problems.empty());
    EXPECT_NE(inv.problems[0].message.find("links outside"), std::string::npos);
}

TEST(HostInventory, SameSwitchNeedsThreeSharedParents) {
    std::vector<std::string> nic{"pci0000:16", "0000:16:00.0", "0000:17:00.0", "0000:18:00.0",
                                 "0000:19:00.0"};
    std::vector<std::string> gpu{"pci0000:16", "0000:16:00.0", "0000:17:00.0", "0000:18:01.0",
                                 "0000:1a:00.0"};
    std::vector<std::string> other{"pci0000:16", "0000:16:02.0", "0000:1b:00.0"};
    EXPECT_TRUE(same_pcie_switch(nic, gpu));
    EXPECT_FALSE(same_pcie_switch(nic, other));
    // Two devices straight on one root port share no switch.
    EXPECT_FALSE(same_pcie_switch({"pci0000:16", "0000:16:00.0", "0000:17:00.0"},
                                  {"pci0000:16", "0000:16:00.0", "0000:17:00.1"}));
}

}  // namespace
}  // namespace fabscope::host
