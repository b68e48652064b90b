// The probe agents' hello (probe/hello.h) over real TCP on loopback: an
// agent answers a host of its pinglist with its UD address and the caller's
// number, and refuses, each with a reason and without stopping, a client
// without the secret, one with the wrong one, a host not in the pinglist, a
// bad address, an address outside --allow, garbage and a client that says
// nothing; the engine's refusal (Register) reaches the client.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "net/auth.h"
#include "net/channel.h"
#include "probe/hello.h"

namespace fabscope::probe {
namespace {

using nlohmann::json;

class ProbeHello : public ::testing::Test {
  protected:
    void start(const std::string& secret, perf::AllowList allow = perf::AllowList::loopback()) {
        auto fd = perf::Channel::listen("127.0.0.1", 0);
        ASSERT_TRUE(fd) << fd.error().message;
        fd_ = *fd;
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        ASSERT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len), 0);
        port_ = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
        auto hosts = parse_pinglist("127.0.0.1:" + std::to_string(port_) +
                                        " agent l1\n127.0.0.1 me l1\n127.0.0.2 other l2\n",
                                    "hosts", 1);
        ASSERT_TRUE(hosts);
        hosts_ = *hosts;
        HelloOptions o{secret, Millis(500)};
        thread_ = std::thread([this, o, allow] {
            (void)serve_hellos(
                fd_, hosts_, "agent", agent_addr_, allow, o,
                [this](size_t host, const perf::UdAddress& a) -> Status {
                    std::lock_guard lock(mu_);
                    if (a.qpn == 666) return make_error("no address handle to it");
                    registered_.emplace_back(host, a.qpn);
                    return Ok{};
                },
                [this](const std::string& line) {
                    std::lock_guard lock(mu_);
                    log_.push_back(line);
                },
                stop_);
        });
    }
    void TearDown() override {
        stop_.request_stop();
        if (thread_.joinable()) thread_.join();
        if (fd_ >= 0) ::close(fd_);
    }
    Result<PeerAddress> hello(const std::string& name, const std::string& secret,
                              uint32_t qpn = 77) {
        return say_hello(hosts_[0], name, {qpn, 0, {}, true}, {secret, Millis(2000)});
    }
    /// A hello as `name` from the source address `from` (loopback has all of
    /// 127/8): the agent's last message to it.
    json hello_from(const std::string& from, const std::string& name, const std::string& secret,
                    uint32_t qpn) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        EXPECT_GE(fd, 0);
        timeval tv{2, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        sockaddr_in src{};
        src.sin_family = AF_INET;
        ::inet_pton(AF_INET, from.c_str(), &src.sin_addr);
        EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src), 0);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(port_);
        ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
        EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
        auto line = [&] {
            std::string l;
            char c = 0;
            while (::recv(fd, &c, 1, 0) == 1 && c != '\n') l += c;
            return l.empty() ? json{} : json::parse(l);
        };
        const json welcome = line();
        json h = {{"type", "probe-hello"},
                  {"host", name},
                  {"ud", perf::ud_address_to_json({qpn, 0, {}, true})},
                  {"auth", perf::auth_response(secret, welcome.value("nonce", ""))}};
        const std::string out = h.dump() + "\n";
        EXPECT_EQ(::send(fd, out.data(), out.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(out.size()));
        json answer = line();
        ::close(fd);
        return answer;
    }
    std::string log() {
        std::lock_guard lock(mu_);
        std::string all;
        for (const auto& l : log_) all += l + "\n";
        return all;
    }
    /// The log once it holds `part` (the listener logs a failed hello after
    /// the client has its refusal), or as it is after 5 s.
    std::string log_with(const std::string& part) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        std::string l = log();
        while (l.find(part) == std::string::npos && std::chrono::steady_clock::now() < end) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            l = log();
        }
        return l;
    }

    int fd_ = -1;
    uint16_t port_ = 0;
    std::vector<ProbeHost> hosts_;
    perf::UdAddress agent_addr_{4242, 7, {}, true};
    StopToken stop_;
    std::thread thread_;
    std::mutex mu_;
    std::vector<std::pair<size_t, uint32_t>> registered_;
    std::vector<std::string> log_;
};

TEST_F(ProbeHello, AHostOfThePinglistWithTheSecretGetsTheAddressAndItsNumber) {
    start("s3cret");
    auto r = hello("me", "s3cret");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->ud.qpn, 4242u);
    EXPECT_EQ(r->ud.lid, 7u);
    EXPECT_EQ(r->id, 1u);  // "me" is the pinglist's second host
    std::lock_guard lock(mu_);
    ASSERT_EQ(registered_.size(), 1u);
    EXPECT_EQ(registered_[0], (std::pair<size_t, uint32_t>(1, 77)));
}

TEST_F(ProbeHello, EveryBadClientIsRefusedWithAReasonAndTheAgentGoesOn) {
    start("s3cret");
    auto r = hello("me", "");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("it needs the shared secret"), std::string::npos)
        << r.error().message;
    r = hello("me", "wrong");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("authentication failed"), std::string::npos);
    r = hello("stranger", "s3cret");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("\"stranger\" is not in this agent's pinglist"),
              std::string::npos)
        << r.error().message;
    r = hello("me", "s3cret", 666);  // the engine cannot take it
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("no address handle to it"), std::string::npos);
    // Garbage, and a client that connects and says nothing: each ends its own exchange.
    {
        auto ch = perf::Channel::connect(hosts_[0].where, Millis(1000));
        ASSERT_TRUE(ch);
        auto welcome = ch->receive(Millis(1000));
        ASSERT_TRUE(welcome);
        const std::string auth = perf::auth_response("s3cret", (*welcome)["nonce"]);
        ASSERT_TRUE(ch->send(
            json{{"type", "probe-hello"}, {"host", "me"}, {"auth", auth}, {"ud", {{"qpn", "x"}}}},
            Millis(1000)));
        (void)ch->receive(Millis(1000));
    }
    {
        auto silent = perf::Channel::connect(hosts_[0].where, Millis(1000));
        ASSERT_TRUE(silent);
        r = hello("me", "s3cret");  // served once the silent one's 500 ms are up
        ASSERT_TRUE(r) << r.error().message;
    }
    const std::string l = log();
    EXPECT_NE(l.find("authentication failed"), std::string::npos) << l;
    EXPECT_NE(l.find("sent a bad address"), std::string::npos) << l;
    EXPECT_NE(l.find("did not answer within 500ms"), std::string::npos) << l;
}

TEST_F(ProbeHello, AnAddressOutsideTheAllowListIsRefusedAndNothingListensIsSaidSo) {
    perf::AllowList allow;
    ASSERT_TRUE(allow.add("10.99.0.0/16"));
    start("", allow);
    auto r = hello("me", "");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("does not answer 127.0.0.1"), std::string::npos)
        << r.error().message;
    // The client is told no; the list is the operator's, for the log alone.
    EXPECT_EQ(r.error().message.find("10.99.0.0/16"), std::string::npos) << r.error().message;
    EXPECT_NE(log().find("not in --allow (10.99.0.0/16)"), std::string::npos) << log();
    ProbeHost nowhere{"127.0.0.1:1", "gone", "l1", 1};
    r = say_hello(nowhere, "me", {1, 0, {}, true}, {"", Millis(500)});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("cannot reach a fabscope probe agent at 127.0.0.1:1"),
              std::string::npos)
        << r.error().message;
}

TEST_F(ProbeHello, AHelloIsTakenOnlyFromTheAddressOfTheHostItNames) {
    start("s3cret");
    // "other" is 127.0.0.2 in the pinglist: its own hello is taken.
    json a = hello_from("127.0.0.2", "other", "s3cret", 88);
    EXPECT_EQ(a.value("type", ""), "probe-address") << a.dump();
    // "me" (127.0.0.1), with the secret, claims to be "other": refused, and
    // other's registration stands.
    json b = hello_from("127.0.0.1", "other", "s3cret", 666000);
    EXPECT_EQ(b.value("type", ""), "error") << b.dump();
    EXPECT_EQ(b.value("message", ""),
              "a hello as host \"other\" comes from 127.0.0.1, not from its address in the "
              "pinglist (127.0.0.2)");
    auto r = hello("me", "s3cret");  // the real "me" from 127.0.0.1
    ASSERT_TRUE(r) << r.error().message;
    {
        std::lock_guard lock(mu_);
        EXPECT_EQ(registered_, (std::vector<std::pair<size_t, uint32_t>>{{2, 88}, {1, 77}}));
    }
    EXPECT_NE(log().find("hello from 127.0.0.1:"), std::string::npos) << log();
    EXPECT_NE(log().find("a hello as host \"other\" comes from 127.0.0.1"), std::string::npos)
        << log();
}

TEST_F(ProbeHello, AClientsChosenNameIsNeverEchoedPast64PrintableCharacters) {
    start("s3cret");
    const std::string name = "\x1b[2J" + std::string(100000, 'n');
    auto r = hello(name, "s3cret");
    ASSERT_FALSE(r);
    const std::string shown = "\"?[2J" + std::string(60, 'n') + "...\"";
    EXPECT_NE(r.error().message.find(shown + " is not in this agent's pinglist"), std::string::npos)
        << r.error().message.substr(0, 200);
    EXPECT_LT(r.error().message.size(), 300u);
    const std::string l = log_with(" is not in the pinglist");
    EXPECT_NE(l.find(shown + " is not in the pinglist"), std::string::npos) << l.substr(0, 300);
    EXPECT_LT(l.size(), 300u);
}

TEST(ProbeQkey, ASecretGivesItsOwnQkeyWithTheHighBitClear) {
    EXPECT_EQ(probe_qkey("", 0x46534250), 0x46534250u);
    const uint32_t a = probe_qkey("s3cret", 0x46534250);
    EXPECT_EQ(a, probe_qkey("s3cret", 0x46534250));  // every agent with it agrees
    EXPECT_NE(a, probe_qkey("other", 0x46534250));
    EXPECT_NE(a, 0x46534250u);
    EXPECT_EQ(a & 0x80000000U, 0u);
}

}  // namespace
}  // namespace fabscope::probe
