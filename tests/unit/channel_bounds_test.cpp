// Every line-oriented read path holds a peer to kMaxMessage: a line with no
// newline ends that peer's part at the limit instead of growing the buffer,
// whether the reader receives, peeks or waits, and whether it is a plain
// channel, the coordinator pumping its agents or an agent waiting for the
// coordinator. Fake peers are raw loopback sockets that write what they are told.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "loopback.h"
#include "net/channel.h"
#include "ranks/comm_relay.h"

namespace fabscope::perf {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

/// Our Channel and the raw socket of the fake peer at its other end.
class Wire {
  public:
    Wire() {
        auto l = Channel::listen("127.0.0.1", 0);
        if (!l) throw std::runtime_error(l.error().message);
        listen_fd_ = *l;
        sockaddr_in6 a{};
        socklen_t len = sizeof a;
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
        peer_ = fabscope::testing::connect_loopback(ntohs(a.sin6_port));
        if (peer_ < 0) throw std::runtime_error("connect");
        auto c = Channel::accept(listen_fd_, 2000ms);
        if (!c) throw std::runtime_error(c.error().message);
        ours = std::move(*c);
    }
    ~Wire() {
        // Unblocks a writer stuck on a reader that stopped reading.
        ::shutdown(peer_, SHUT_RDWR);
        if (writer_.joinable()) writer_.join();
        ::close(peer_);
        ::close(listen_fd_);
    }
    Wire(const Wire&) = delete;
    Wire& operator=(const Wire&) = delete;

    /// Writes `bytes` from a thread of its own (the reader may stop taking them).
    void write(std::string bytes) {
        writer_ = std::thread([this, b = std::move(bytes)] {
            size_t off = 0;
            while (off < b.size()) {
                ssize_t n = ::send(peer_, b.data() + off, b.size() - off, MSG_NOSIGNAL);
                if (n <= 0) return;
                off += static_cast<size_t>(n);
            }
        });
    }

    Channel ours;

  private:
    int listen_fd_ = -1;
    int peer_ = -1;
    std::thread writer_;
};

/// More than a line may hold, and no newline.
std::string endless_line() {
    return std::string(kMaxMessage + 512 * 1024, 'x');
}

bool says_too_long(const Result<json>& r) {
    return !r && r.error().message.find("longer than") != std::string::npos;
}

TEST(ChannelBounds, PeekStopsAtTheLimitAndReceiveSaysWhy) {
    Wire w;
    w.write(endless_line());
    Channel::Peek p = Channel::Peek::Nothing;
    const auto end = std::chrono::steady_clock::now() + 10s;
    while (p == Channel::Peek::Nothing && std::chrono::steady_clock::now() < end) {
        p = w.ours.peek();
        if (p == Channel::Peek::Nothing) w.ours.wait(50ms);
    }
    // Before the limit, peek kept reading and said Nothing for ever.
    ASSERT_EQ(p, Channel::Peek::Message);
    EXPECT_TRUE(w.ours.buffered());
    EXPECT_TRUE(says_too_long(w.ours.receive(1ms)));
}

TEST(ChannelBounds, WaitStopsAtTheLimit) {
    Wire w;
    w.write(endless_line());
    Channel::Peek p = Channel::Peek::Nothing;
    const auto end = std::chrono::steady_clock::now() + 10s;
    while (p == Channel::Peek::Nothing && std::chrono::steady_clock::now() < end)
        p = w.ours.wait(100ms);
    ASSERT_EQ(p, Channel::Peek::Message);
    EXPECT_TRUE(says_too_long(w.ours.receive(1ms)));
}

TEST(ChannelBounds, AGoodMessageBeforeTheLongLineIsStillDelivered) {
    Wire w;
    w.write("{\"type\":\"ok\"}\n" + endless_line());
    auto first = w.ours.receive(5s);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ((*first)["type"], "ok");
    EXPECT_TRUE(says_too_long(w.ours.receive(5s)));
}

std::vector<CoordinatorComm::Agent> one_agent(Wire& w) {
    std::vector<CoordinatorComm::Agent> agents(2);
    agents[1].ch = std::move(w.ours);
    agents[1].open = true;
    return agents;
}

TEST(ChannelBounds, TheCoordinatorEndsAnAgentWhoseLineHasNoEnd) {
    Wire w;
    CoordinatorComm comm(one_agent(w), 1);
    w.write(endless_line());
    auto got = comm.gather(20, "mine", {0, 0}, MeshClock::now() + 10s, nullptr);
    EXPECT_FALSE(got[1]);
    EXPECT_NE(comm.closed_why(1).find("longer than"), std::string::npos) << comm.closed_why(1);
}

TEST(ChannelBounds, TheCoordinatorEndsAnAgentThatFloodsItsMailbox) {
    Wire w;
    CoordinatorComm comm(one_agent(w), 1);
    // Relays to rank 0 under tags no step asks for: 100 KB each, 12 MB in all.
    std::string flood;
    for (int tag = 100; tag < 220; ++tag)
        flood += relay_json("to", {0, tag, std::string(100 * 1024, 'f')}).dump() + "\n";
    w.write(flood);
    auto got = comm.gather(20, "mine", {0, 0}, MeshClock::now() + 10s, nullptr);
    EXPECT_FALSE(got[1]);
    EXPECT_NE(comm.closed_why(1).find("rank 1 sent more than"), std::string::npos)
        << comm.closed_why(1);
}

TEST(ChannelBounds, AnAgentEndsItsSessionWhenTheCoordinatorsLineHasNoEnd) {
    Wire w;
    AgentComm comm(w.ours, 1, 3, MeshClock::now() + 30s, nullptr);
    w.write(endless_line());
    EXPECT_FALSE(comm.exchange(2, 20, "mine", MeshClock::now() + 10s));
    EXPECT_NE(comm.lost().find("longer than"), std::string::npos) << comm.lost();
}

TEST(ChannelBounds, AnAgentFloodedThroughTheRelayNamesTheRank) {
    Wire w;
    AgentComm comm(w.ours, 1, 3, MeshClock::now() + 30s, nullptr);
    std::string flood;
    for (int tag = 100; tag < 220; ++tag)
        flood += relay_json("from", {2, tag, std::string(100 * 1024, 'f')}).dump() + "\n";
    w.write(flood);
    EXPECT_FALSE(comm.exchange(2, 20, "mine", MeshClock::now() + 10s));
    EXPECT_NE(comm.lost().find("rank 2 sent more than"), std::string::npos) << comm.lost();
}

}  // namespace
}  // namespace fabscope::perf
