// The Ethernet half of the RoCE counter sources on real kernel parts: a
// network namespace of the test's own with a veth pair in it. The ethtool
// ioctl reading of the veth must agree with `ethtool -S` name by name and
// value by value, and dcbnl must answer "DCB not available" for a driver
// without DCB. The namespace (and with it the veth pair) is deleted by the
// name the test recorded, also when a test fails. Needs root, as CI runs it.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <thread>

#include "congestion/dcb_settings.h"
#include "congestion/ethtool_stats.h"
#include "lab_harness.h"

namespace fabscope::labtest {
namespace {

/// A network namespace with a veth pair, both ends up. Everything it makes is
/// named after this process and deleted by that name in the destructor.
class VethNetns {
  public:
    VethNetns()
        : ns_("fabscope-rc-" + std::to_string(::getpid())),
          a_("fsrc" + std::to_string(::getpid()) + "a"),
          b_("fsrc" + std::to_string(::getpid()) + "b") {
        CmdResult add = run({"ip", "netns", "add", ns_}, std::chrono::seconds(20));
        created_ = add.exit_code == 0;
        if (!created_) {
            ADD_FAILURE() << "ip netns add " << ns_ << " failed (the test needs root):\n"
                          << add.err;
            return;
        }
        for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
                 {"link", "add", a_, "type", "veth", "peer", "name", b_},
                 {"link", "set", a_, "up"},
                 {"link", "set", b_, "up"}}) {
            std::vector<std::string> argv{"ip", "-n", ns_};
            argv.insert(argv.end(), cmd.begin(), cmd.end());
            CmdResult r = run(argv, std::chrono::seconds(20));
            if (r.exit_code != 0) {
                ADD_FAILURE() << "ip -n " << ns_ << " " << cmd[0] << " " << cmd[1] << " failed:\n"
                              << r.err;
                ok_ = false;
            }
        }
    }
    ~VethNetns() {
        if (created_) run({"ip", "netns", "del", ns_}, std::chrono::seconds(20));
    }
    VethNetns(const VethNetns&) = delete;
    VethNetns& operator=(const VethNetns&) = delete;

    bool ok() const { return created_ && ok_; }
    const std::string& a() const { return a_; }
    const std::string& b() const { return b_; }

    /// Runs `f` on a thread that has entered the namespace: sockets it opens
    /// (the sources' ioctl and netlink sockets) belong to the namespace.
    void inside(const std::function<void()>& f) const {
        std::string err;
        std::thread t([&] {
            int fd = ::open(("/run/netns/" + ns_).c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
                err = std::strerror(errno);
                if (fd >= 0) ::close(fd);
                return;
            }
            ::close(fd);
            f();
        });
        t.join();
        if (!err.empty()) ADD_FAILURE() << "cannot enter " << ns_ << ": " << err;
    }
    /// A command run inside the namespace.
    CmdResult exec(std::vector<std::string> argv) const {
        argv.insert(argv.begin(), {"ip", "netns", "exec", ns_});
        return run(argv, std::chrono::seconds(20));
    }

  private:
    std::string ns_, a_, b_;
    bool created_ = false;
    bool ok_ = true;
};

/// Sends `n` raw Ethernet frames out of `netdev` (inside the namespace), so
/// the pair carries traffic between the readings.
void send_frames(const std::string& netdev, int n) {
    int fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
    ASSERT_GE(fd, 0) << std::strerror(errno);
    sockaddr_ll to{};
    to.sll_family = AF_PACKET;
    to.sll_ifindex = static_cast<int>(if_nametoindex(netdev.c_str()));
    to.sll_halen = ETH_ALEN;
    std::memset(to.sll_addr, 0xff, ETH_ALEN);
    unsigned char frame[64] = {};
    std::memset(frame, 0xff, ETH_ALEN);  // broadcast
    frame[12] = 0x88;                    // IEEE local experimental ethertype
    frame[13] = 0xb5;
    for (int i = 0; i < n; ++i) {
        EXPECT_EQ(::sendto(fd, frame, sizeof frame, 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
                  static_cast<ssize_t>(sizeof frame))
            << std::strerror(errno);
    }
    ::close(fd);
}

class RoceNetns : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { netns_ = new VethNetns(); }
    static void TearDownTestSuite() {
        delete netns_;
        netns_ = nullptr;
    }
    static VethNetns* netns_;
};
VethNetns* RoceNetns::netns_ = nullptr;

TEST_F(RoceNetns, EthtoolIoctlAgreesWithEthtoolNameByNameValueByValue) {
    ASSERT_TRUE(netns_->ok());
    const VethNetns& ns = *netns_;
    Result<EthtoolReading> reading = make_error("not read");
    ns.inside([&] {
        send_frames(ns.a(), 5);
        IoctlEthtoolSource src(system_clock());
        reading = src.read(ns.a());
    });
    ASSERT_TRUE(reading) << reading.error().message;
    CmdResult tool = ns.exec({"ethtool", "-S", ns.a()});
    ASSERT_EQ(tool.exit_code, 0) << tool.err;
    auto want = parse_ethtool_stats(tool.out, "ethtool -S " + ns.a());
    ASSERT_TRUE(want) << want.error().message;
    ASSERT_FALSE(want->empty());
    EXPECT_EQ(reading->stats, *want);  // same names, same values
    // veth's peer_ifindex is a value no zeroed buffer could fake.
    CmdResult idx = ns.exec({"cat", "/sys/class/net/" + ns.b() + "/ifindex"});
    ASSERT_EQ(idx.exit_code, 0) << idx.err;
    ASSERT_TRUE(reading->stats.count("peer_ifindex"));
    EXPECT_EQ(reading->stats.at("peer_ifindex"), std::stoull(idx.out));
    // Link pause settings: what `ethtool -a` says, or none where the driver has none.
    CmdResult pause = ns.exec({"ethtool", "-a", ns.a()});
    if (pause.exit_code == 0) {
        auto p = parse_ethtool_pause(pause.out, "ethtool -a");
        ASSERT_TRUE(p) << p.error().message;
        ASSERT_TRUE(reading->pause.has_value());
        EXPECT_EQ(reading->pause->rx, p->rx);
        EXPECT_EQ(reading->pause->tx, p->tx);
        EXPECT_EQ(reading->pause->autoneg, p->autoneg);
    } else {
        EXPECT_FALSE(reading->pause.has_value());
    }
}

TEST_F(RoceNetns, EthtoolOnAMissingNetdevIsAClearError) {
    ASSERT_TRUE(netns_->ok());
    Result<EthtoolReading> reading = make_error("not read");
    netns_->inside([&] {
        IoctlEthtoolSource src(system_clock());
        reading = src.read("fsrc-nosuch");
    });
    ASSERT_FALSE(reading);
    EXPECT_NE(reading.error().message.find("fsrc-nosuch: ethtool"), std::string::npos)
        << reading.error().message;
}

TEST_F(RoceNetns, DcbOnVethIsNotAvailableWithAClearMessage) {
    ASSERT_TRUE(netns_->ok());
    Result<DcbSettings> dcb = make_error("not read");
    Result<DcbSettings> missing = make_error("not read");
    netns_->inside([&] {
        NetlinkDcbSource src;
        dcb = src.read(netns_->a());
        missing = src.read("fsrc-nosuch");
    });
    ASSERT_TRUE(dcb) << dcb.error().message;
    EXPECT_FALSE(dcb->available);
    EXPECT_EQ(dcb->unavailable_message(),
              "DCB not available on " + netns_->a() + " (the driver has no DCB support)");
    // A netdev that does not exist is an error, not "no DCB".
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("fsrc-nosuch: no such network interface"),
              std::string::npos)
        << missing.error().message;
}

}  // namespace
}  // namespace fabscope::labtest
