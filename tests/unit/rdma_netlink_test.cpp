// RDMA netlink (NETLINK_RDMA, NLDEV): the dump requests, the parsing of
// replies captured from Soft-RoCE in the VM lab (tests/fixtures/rdma-netlink)
// and of broken ones, and the merge into the sysfs inventory.

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "host/inventory.h"
#include "host/rdma_nl_merge.h"
#include "host/rdma_nl_parse.h"

namespace fabscope::host {
namespace {

// Builds netlink messages the way the kernel lays them out.
class Msg {
  public:
    Msg(uint16_t command, uint32_t seq) {
        buf_.resize(NLMSG_HDRLEN);
        h_.nlmsg_type = nldev_type(command);
        h_.nlmsg_seq = seq;
        h_.nlmsg_flags = NLM_F_MULTI;
    }
    Msg& raw(uint16_t type, const void* data, size_t len) {
        nlattr a{};
        a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
        a.nla_type = type;
        size_t off = buf_.size();
        buf_.resize(off + NLA_ALIGN(a.nla_len), 0);
        std::memcpy(buf_.data() + off, &a, sizeof a);
        if (len) std::memcpy(buf_.data() + off + NLA_HDRLEN, data, len);
        return *this;
    }
    template <class T>
    Msg& num(uint16_t type, T v) {
        return raw(type, &v, sizeof v);
    }
    Msg& str(uint16_t type, const std::string& s) { return raw(type, s.c_str(), s.size() + 1); }
    std::vector<uint8_t> bytes() {
        h_.nlmsg_len = static_cast<uint32_t>(buf_.size());
        std::memcpy(buf_.data(), &h_, sizeof h_);
        return buf_;
    }

  private:
    nlmsghdr h_{};
    std::vector<uint8_t> buf_;
};

std::vector<uint8_t> done(uint32_t seq) {
    nlmsghdr h{};
    h.nlmsg_len = NLMSG_HDRLEN + sizeof(int);
    h.nlmsg_type = NLMSG_DONE;
    h.nlmsg_seq = seq;
    std::vector<uint8_t> b(h.nlmsg_len, 0);
    std::memcpy(b.data(), &h, sizeof h);
    return b;
}

std::vector<uint8_t> cat(std::vector<std::vector<uint8_t>> parts) {
    std::vector<uint8_t> out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

/// The "# reply N" hex blocks rdma_nl_capture wrote.
std::vector<std::vector<uint8_t>> fixture(const std::string& name) {
    std::ifstream in(std::string(FIXTURES_DIR) + "/rdma-netlink/" + name);
    EXPECT_TRUE(in) << name;
    std::vector<std::vector<uint8_t>> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# reply", 0) == 0) {
            out.emplace_back();
            continue;
        }
        if (line.empty() || line[0] == '#' || out.empty()) continue;
        std::istringstream hex(line);
        std::string b;
        while (hex >> b) out.back().push_back(static_cast<uint8_t>(std::stoul(b, nullptr, 16)));
    }
    return out;
}

TEST(RdmaNetlink, DumpRequestsAreNldevGetsWithTheDeviceForPorts) {
    auto req = nldev_dump_request(RDMA_NLDEV_CMD_PORT_GET, 7, 3);
    ASSERT_EQ(req.size(), NLMSG_HDRLEN + NLA_HDRLEN + 4U);
    nlmsghdr h{};
    std::memcpy(&h, req.data(), sizeof h);
    EXPECT_EQ(h.nlmsg_len, req.size());
    EXPECT_EQ(h.nlmsg_type, (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_PORT_GET);
    EXPECT_EQ(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
    EXPECT_EQ(h.nlmsg_seq, 7U);
    nlattr a{};
    std::memcpy(&a, req.data() + NLMSG_HDRLEN, sizeof a);
    EXPECT_EQ(a.nla_type, RDMA_NLDEV_ATTR_DEV_INDEX);
    uint32_t idx = 0;
    std::memcpy(&idx, req.data() + NLMSG_HDRLEN + NLA_HDRLEN, 4);
    EXPECT_EQ(idx, 3U);
    EXPECT_EQ(nldev_dump_request(RDMA_NLDEV_CMD_GET, 1).size(), size_t{NLMSG_HDRLEN});
}

TEST(RdmaNetlink, DeviceAndPortMessagesAreParsed) {
    NlDump d;
    auto dev = Msg(RDMA_NLDEV_CMD_GET, 1)
                   .num<uint32_t>(RDMA_NLDEV_ATTR_DEV_INDEX, 2)
                   .str(RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0")
                   .num<uint32_t>(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
                   .str(RDMA_NLDEV_ATTR_FW_VERSION, "20.31.1014")
                   .num<uint64_t>(RDMA_NLDEV_ATTR_NODE_GUID, 0x0c42a10300123456ULL)
                   .num<uint8_t>(RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1)
                   .str(RDMA_NLDEV_ATTR_DEV_PROTOCOL, "ib")
                   .num<uint32_t>(999, 5)  // an attribute of a newer kernel: skipped
                   .bytes();
    parse_nldev_reply(cat({dev, done(1)}), 1, d);
    EXPECT_TRUE(d.done);
    EXPECT_TRUE(d.problems.empty());
    ASSERT_EQ(d.devices.size(), 1U);
    EXPECT_EQ(d.devices[0].index, 2U);
    EXPECT_EQ(d.devices[0].name, "mlx5_0");
    EXPECT_EQ(d.devices[0].fw_ver, "20.31.1014");
    EXPECT_EQ(d.devices[0].node_guid, 0x0c42a10300123456ULL);
    EXPECT_EQ(d.devices[0].ports, 1U);
    EXPECT_EQ(d.devices[0].protocol, "ib");

    NlDump p;
    auto port = Msg(RDMA_NLDEV_CMD_PORT_GET, 2)
                    .num<uint32_t>(RDMA_NLDEV_ATTR_DEV_INDEX, 2)
                    .str(RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0")
                    .num<uint32_t>(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
                    .num<uint32_t>(RDMA_NLDEV_ATTR_LID, 0x12)
                    .num<uint32_t>(RDMA_NLDEV_ATTR_SM_LID, 1)
                    .num<uint8_t>(RDMA_NLDEV_ATTR_PORT_STATE, 4)
                    .num<uint8_t>(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5)
                    .bytes();
    // A message of an earlier dump (another sequence number) is not this dump's.
    auto stale =
        Msg(RDMA_NLDEV_CMD_PORT_GET, 1).num<uint32_t>(RDMA_NLDEV_ATTR_PORT_INDEX, 9).bytes();
    parse_nldev_reply(cat({stale, port, done(2)}), 2, p);
    ASSERT_EQ(p.ports.size(), 1U);
    EXPECT_EQ(p.ports[0].port, 1U);
    EXPECT_EQ(p.ports[0].lid, 0x12U);
    EXPECT_EQ(p.ports[0].state, 4);
    EXPECT_EQ(p.ports[0].phys_state, 5);
    EXPECT_EQ(p.ports[0].netdev, "");
    EXPECT_EQ(nl_port_state_name(4), "ACTIVE");
    EXPECT_EQ(nl_phys_state_name(5), "LINK_UP");
}

TEST(RdmaNetlink, BrokenRepliesEndTheWalkAndSaySo) {
    auto port = Msg(RDMA_NLDEV_CMD_PORT_GET, 1)
                    .num<uint32_t>(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
                    .str(RDMA_NLDEV_ATTR_NDEV_NAME, "eth0")
                    .bytes();
    {
        // An attribute longer than its message.
        auto bad = port;
        uint16_t len = 200;
        std::memcpy(bad.data() + NLMSG_HDRLEN + 8, &len, 2);
        NlDump d;
        parse_nldev_reply(bad, 1, d);
        ASSERT_EQ(d.ports.size(), 1U);
        EXPECT_EQ(d.ports[0].port, 1U);
        EXPECT_EQ(d.ports[0].netdev, "");
        ASSERT_EQ(d.problems.size(), 1U);
        EXPECT_EQ(d.problems[0], "attribute 51 at byte 8 has length 200, 12 bytes left");
    }
    {
        // A message longer than the buffer: nothing read past it.
        auto bad = port;
        bad.resize(bad.size() - 4);
        NlDump d;
        parse_nldev_reply(bad, 1, d);
        EXPECT_TRUE(d.ports.empty());
        ASSERT_EQ(d.problems.size(), 1U);
        EXPECT_NE(d.problems[0].find("has length 36, 32 bytes left"), std::string::npos)
            << d.problems[0];
    }
    {
        // A string without its NUL, a number of the wrong size.
        auto odd = Msg(RDMA_NLDEV_CMD_PORT_GET, 1)
                       .raw(RDMA_NLDEV_ATTR_NDEV_NAME, "eth0", 4)
                       .num<uint16_t>(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
                       .bytes();
        NlDump d;
        parse_nldev_reply(odd, 1, d);
        ASSERT_EQ(d.ports.size(), 1U);
        EXPECT_EQ(d.ports[0].netdev, "eth0");
        EXPECT_EQ(d.ports[0].port, 0U);
    }
    {
        // The kernel's error answer.
        nlmsghdr h{};
        h.nlmsg_len = NLMSG_HDRLEN + sizeof(nlmsgerr);
        h.nlmsg_type = NLMSG_ERROR;
        h.nlmsg_seq = 1;
        nlmsgerr e{};
        e.error = -EINVAL;
        std::vector<uint8_t> b(h.nlmsg_len);
        std::memcpy(b.data(), &h, sizeof h);
        std::memcpy(b.data() + NLMSG_HDRLEN, &e, sizeof e);
        NlDump d;
        parse_nldev_reply(b, 1, d);
        EXPECT_TRUE(d.done);
        EXPECT_EQ(d.error, EINVAL);
    }
}

TEST(RdmaNetlink, CapturedSoftRoceRepliesAreParsed) {
    // rxe_h1 in the VM lab: `rdma dev` said node_guid b0b2:91ff:feff:256d,
    // `rdma link` said rxe_h1/1 ACTIVE LINK_UP netdev eth0 (netdev_index 2).
    auto replies = fixture("rxe-h1.hex");
    ASSERT_EQ(replies.size(), 4U);  // devices, their DONE; ports, their DONE
    NlDump devs;
    parse_nldev_reply(replies[0], 1, devs);
    parse_nldev_reply(replies[1], 1, devs);
    EXPECT_TRUE(devs.done);
    EXPECT_EQ(devs.error, 0);
    EXPECT_TRUE(devs.problems.empty());
    ASSERT_EQ(devs.devices.size(), 1U);
    const NlDevice& d = devs.devices[0];
    EXPECT_EQ(d.index, 0U);
    EXPECT_EQ(d.name, "rxe_h1");
    EXPECT_EQ(d.node_guid, 0xb0b291fffeff256dULL);
    EXPECT_EQ(d.sys_image_guid, 0xb0b291fffeff256dULL);
    EXPECT_EQ(d.node_type, 1);
    EXPECT_EQ(d.ports, 1U);
    EXPECT_EQ(d.protocol, "roce");
    NlDump ports;
    parse_nldev_reply(replies[2], 2, ports);
    parse_nldev_reply(replies[3], 2, ports);
    EXPECT_TRUE(ports.done);
    EXPECT_TRUE(ports.problems.empty());
    ASSERT_EQ(ports.ports.size(), 1U);
    const NlPort& p = ports.ports[0];
    EXPECT_EQ(p.dev_name, "rxe_h1");
    EXPECT_EQ(p.port, 1U);
    EXPECT_EQ(p.state, 4);
    EXPECT_EQ(p.phys_state, 5);
    EXPECT_EQ(p.netdev, "eth0");
    EXPECT_EQ(p.netdev_index, 2U);
    EXPECT_FALSE(p.lid);  // RoCE: no LIDs
    // Every truncation of a captured reply parses without reading past it.
    for (size_t n = 0; n < replies[2].size(); ++n) {
        NlDump cut;
        parse_nldev_reply(std::span<const uint8_t>(replies[2].data(), n), 2, cut);
        EXPECT_TRUE(cut.ports.empty()) << n;
    }
}

HostInventory ib_host() {
    HostInventory inv;
    RdmaDevice d;
    d.name = "mlx5_0";
    d.node_guid = "0c42:a103:0012:3456";
    d.fw_ver = "20.31.1014";
    HostPort p;
    p.port = 1;
    p.state_code = 4;
    p.state = "ACTIVE";
    p.phys_state = "LinkUp";
    p.phys_state_code = 5;
    p.link_layer = "InfiniBand";
    p.lid = 0x12;
    p.sm_lid = 1;
    d.ports.push_back(p);
    inv.devices.push_back(d);
    return inv;
}

NlDump ib_dump() {
    NlDump nl;
    nl.devices.push_back(
        {2, "mlx5_0", 0x0c42a10300123456ULL, std::nullopt, "20.31.1014", 1, 1, "ib"});
    NlPort p;
    p.dev_index = 2;
    p.dev_name = "mlx5_0";
    p.port = 1;
    p.state = 4;
    p.phys_state = 5;
    p.lid = 0x12;
    p.sm_lid = 1;
    p.netdev = "ib0";
    nl.ports.push_back(p);
    return nl;
}

TEST(RdmaNetlinkMerge, AgreementFillsGapsAndAddsNoProblem) {
    HostInventory inv = ib_host();
    merge_netlink(inv, ib_dump());
    EXPECT_TRUE(inv.problems.empty());
    const auto& d = inv.devices[0];
    EXPECT_EQ(d.netlink_index, 2U);
    EXPECT_EQ(d.protocol, "ib");
    ASSERT_TRUE(d.ports[0].netlink);
    EXPECT_EQ(d.ports[0].netlink->state, "ACTIVE");
    EXPECT_EQ(d.ports[0].netlink->phys_state, "LINK_UP");
    ASSERT_TRUE(d.ports[0].netdev);  // sysfs had no netdev for the port: netlink's
    EXPECT_EQ(d.ports[0].netdev->name, "ib0");
    EXPECT_EQ(inv.sources, (std::vector<std::string>{"sysfs", "netlink"}));
}

TEST(RdmaNetlinkMerge, DisagreementsAreProblemsNamingBothValues) {
    HostInventory inv = ib_host();
    inv.devices[0].ports[0].netdev = NetDev{"ib1", 2044, "up"};
    NlDump nl = ib_dump();
    nl.devices[0].node_guid = 0x0c42a10300123457ULL;
    nl.ports[0].state = 1;
    nl.ports[0].phys_state = 2;
    nl.ports[0].sm_lid = 7;
    NlDevice extra{3, "mlx5_1", 1, std::nullopt, "", 1, 1, "roce"};
    nl.devices.push_back(extra);
    merge_netlink(inv, nl);
    std::vector<std::string> got;
    for (const auto& p : inv.problems) got.push_back(p.file + ": " + p.message);
    EXPECT_EQ(got, (std::vector<std::string>{
                       "netlink:mlx5_0: node GUID: RDMA netlink says 0c42:a103:0012:3457, sysfs "
                       "says 0c42:a103:0012:3456",
                       "netlink:mlx5_0/1: port state: RDMA netlink says DOWN, sysfs says ACTIVE",
                       "netlink:mlx5_0/1: physical state: RDMA netlink says POLLING, sysfs says "
                       "LinkUp",
                       "netlink:mlx5_0/1: SM LID: RDMA netlink says 7, sysfs says 1",
                       "netlink:mlx5_0/1: netdev: RDMA netlink says ib0, sysfs says ib1",
                       "netlink:mlx5_1: listed by RDMA netlink but not in sysfs",
                   }));
    ASSERT_EQ(inv.devices.size(), 2U);
    EXPECT_EQ(inv.devices[1].name, "mlx5_1");
    EXPECT_EQ(inv.devices[1].node_guid, "0000:0000:0000:0001");
}

}  // namespace
}  // namespace fabscope::host
