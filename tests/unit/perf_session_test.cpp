// perf sessions, server and run over the VerbsDevice seam: real TCP on
// loopback, a fake device. What a hostile or broken client can do to a
// server, what the server applies and says, and what `perf run` keeps.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "loopback.h"
#include "net/allow_list.h"
#include "net/auth.h"
#include "net/channel.h"
#include "net/message.h"
#include "pairtest/results/report.h"
#include "pairtest/run.h"
#include "pairtest/server.h"
#include "rdma/caps.h"
#include "rdma/fake_verbs.h"
#include "rdma/pacer.h"
#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

using nlohmann::json;
using testing::FakeDevice;
using namespace std::chrono_literals;

// A server on a free loopback port, in its own thread, with its log kept.
class TestServer {
  public:
    // The options are a member, not a defaulted `ServeOptions o = {}` argument:
    // GCC 12 at -O3 reports a false -Wmaybe-uninitialized on the string inside
    // that temporary when it is destroyed.
    TestServer() { start(); }
    explicit TestServer(ServeOptions o) : opts_(std::move(o)) { start(); }
    ~TestServer() { stop(); }
    int stop() {
        stop_.request_stop();
        if (thread_.joinable()) thread_.join();
        return rc_;
    }
    std::string where() const { return "127.0.0.1:" + std::to_string(server_->port()); }
    uint16_t port() const { return server_->port(); }
    std::vector<std::string> log() {
        std::lock_guard lock(m_);
        return log_;
    }
    size_t log_count(const std::string& part) {
        size_t n = 0;
        for (const std::string& l : log()) n += l.find(part) != std::string::npos;
        return n;
    }
    FakeDevice& dev() { return dev_; }

  private:
    void start() {
        opts_.port = 0;
        auto s = Server::open(opts_);
        if (!s) throw std::runtime_error(s.error().message);
        server_ = std::move(*s);
        thread_ = std::thread([this] {
            rc_ = server_->run(dev_, stop_, [this](std::string_view line) {
                std::lock_guard lock(m_);
                log_.emplace_back(line);
            });
        });
    }

    ServeOptions opts_;
    FakeDevice dev_;
    StopToken stop_;
    std::unique_ptr<Server> server_;
    std::thread thread_;
    int rc_ = -1;
    std::mutex m_;
    std::vector<std::string> log_;
};

// A client that writes whatever it is given.
class RawClient {
  public:
    explicit RawClient(uint16_t port) {
        fd_ = fabscope::testing::connect_loopback(port);
        if (fd_ < 0) ADD_FAILURE();
    }
    ~RawClient() { ::close(fd_); }
    RawClient(const RawClient&) = delete;
    RawClient& operator=(const RawClient&) = delete;
    void write(const std::string& bytes) {
        size_t off = 0;
        while (off < bytes.size()) {
            ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return;  // the server gave up on us: fine
            off += static_cast<size_t>(n);
        }
    }
    /// The next line, or "" if the server closed or `timeout` passed.
    std::string line(std::chrono::milliseconds timeout = 5000ms) {
        auto end = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            if (auto nl = buf_.find('\n'); nl != std::string::npos) {
                std::string l = buf_.substr(0, nl);
                buf_.erase(0, nl + 1);
                return l;
            }
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                end - std::chrono::steady_clock::now());
            if (left.count() <= 0) return "";
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) != 1) return "";
            char b[4096];
            ssize_t n = ::recv(fd_, b, sizeof b, 0);
            if (n <= 0) return "";
            buf_.append(b, static_cast<size_t>(n));
        }
    }
    /// True once the server has closed the connection (within `timeout`).
    bool closed(std::chrono::milliseconds timeout = 5000ms) {
        auto end = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < end) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) == 1) {
                char b[4096];
                if (::recv(fd_, b, sizeof b, 0) <= 0) return true;
            }
        }
        return false;
    }

  private:
    int fd_ = -1;
    std::string buf_;
};

TestSpec quick_spec() {
    TestSpec s;
    s.duration = 100ms;
    s.warmup_time = 0ms;
    return s;
}

PeerOptions quick_peer() {
    PeerOptions p;
    p.connect_timeout = 2000ms;
    p.step_timeout = 5000ms;
    return p;
}

TEST(PerfServe, AGoodClientIsServed) {
    TestServer srv;
    FakeDevice here;
    TestResult r = run_client(here, srv.where(), quick_spec(), quick_peer());
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_GT(r.avg_gbps, 0);
    EXPECT_TRUE(r.caps.empty());
    EXPECT_EQ(r.counters["remote"]["sent_pkts"], 10);
}

TEST(PerfServe, TheClientTracesItsOwnFlowOnceTheTestIsOver) {
    TestServer srv;
    FakeDevice here;
    PeerOptions p = quick_peer();
    std::vector<std::pair<uint32_t, uint32_t>> asked;
    p.trace_flow = [&](const EndpointInfo& local, const EndpointInfo& remote) {
        asked.emplace_back(local.qpn, remote.qpn);
        return nlohmann::json{{"sport", 49441}};
    };
    TestResult r = run_client(here, srv.where(), quick_spec(), p);
    EXPECT_TRUE(r.ok) << r.error;
    ASSERT_EQ(asked.size(), 1u);  // once, after the test
    EXPECT_EQ(r.path["sport"], 49441);
    EXPECT_EQ(result_to_json(r)["path"]["sport"], 49441);
    // Without a tracer, no path.
    EXPECT_TRUE(run_client(here, srv.where(), quick_spec(), quick_peer()).path.is_null());
}

// A bidirectional SEND whose server finishes its sends first must go on
// posting receives until the client is done: a server that only waited left
// the client's SENDs to RNR NAKs until its deadline (CI, stop 20).
TEST(PerfServe, ABidirectionalSendServerThatFinishesFirstKeepsReceivingUntilDone) {
    TestServer srv;
    FakeDevice here;
    // The client ends last: its run waits until the server has sent all it
    // had and is only receiving.
    here.on_run = [&srv](int) {
        const auto until = std::chrono::steady_clock::now() + 5s;
        while (srv.dev().receive_loops() < 1 && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(5ms);
    };
    TestSpec s = quick_spec();
    s.op = Op::Send;
    s.bidirectional = true;
    TestResult r = run_client(here, srv.where(), s, quick_peer());
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(srv.dev().receive_loops(), 1);
    // One way, the client's receives are the server's business only.
    s.bidirectional = false;
    EXPECT_TRUE(run_client(here, srv.where(), s, quick_peer()).ok);
    EXPECT_EQ(srv.dev().receive_loops(), 2);
    // A WRITE needs none.
    s.op = Op::Write;
    s.bidirectional = true;
    EXPECT_TRUE(run_client(here, srv.where(), s, quick_peer()).ok);
    EXPECT_EQ(srv.dev().receive_loops(), 2);
}

TEST(PerfServe, MalformedLinesEndOnlyTheirSession) {
    TestServer srv;
    const std::string nl = "\n";
    const std::vector<std::string> bad = {
        R"({"type":5})" + nl,                                // a type of the wrong type
        R"({"type":"hello","protocol":"2"})" + nl,           // a protocol of the wrong type
        R"(["hello"])" + nl,                                 // not an object
        R"({"type":"hello","protocol":2,"spec":[1]})" + nl,  // a spec of the wrong type
        R"({"type":"hello","protocol":2,"spec":{"op":"write","measure":"bandwidth","size":"big"}})" +
            nl,
        "not json at all" + nl,
        std::string(100000, '[') + std::string(100000, ']') + nl,  // nested 100,000 deep
        std::string(3 << 20, 'x'),                                 // a 3 MB line
    };
    for (const std::string& payload : bad) {
        RawClient c(srv.port());
        ASSERT_NE(c.line().find("welcome"), std::string::npos);
        c.write(payload);
        EXPECT_TRUE(c.closed()) << payload.substr(0, 80);
    }
    // Each ended its own session with a log line; the server still serves.
    TestResult r = run_client(srv.dev(), srv.where(), quick_spec(), quick_peer());
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(srv.log_count("ended"), bad.size());
    EXPECT_EQ(srv.log_count("deeper than 64"), 1u);
    EXPECT_EQ(srv.log_count("longer than"), 1u);
}

TEST(PerfServe, CapsAreAppliedAndToldToTheClient) {
    ServeOptions o;
    o.limits.caps.max_size = 8U << 20;
    o.limits.caps.max_duration = 200ms;
    TestServer srv(o);
    srv.dev().limits_ = {4096, 8192};
    FakeDevice here;
    TestSpec s = quick_spec();
    s.op = Op::Send;
    s.size = 1U << 30;                         // 1 GiB: 2 GiB pinned at hello before
    s.duration = std::chrono::hours(24 * 30);  // a month
    s.tx_depth = 0x80000000U;                  // 2 * depth + 16 wraps in 32 bits
    TestResult r = run_client(here, srv.where(), s, quick_peer());
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.spec.size, 8U << 20);
    EXPECT_EQ(r.spec.duration, 200ms);
    EXPECT_EQ(r.spec.tx_depth, 4088U);  // (8192 - 16) / 2: sends and receives share the CQ
    ASSERT_EQ(r.caps.size(), 3u);
    EXPECT_EQ(r.caps[0], "server: size 1024M capped to 8M (--max-size)");
    // What the server allocated stayed within its caps and its device.
    auto made = srv.dev().created();
    ASSERT_EQ(made.size(), 1u);
    EXPECT_EQ(made[0].buffer_size, 8U << 20);
    EXPECT_LE(cq_entries(made[0]), 8192u);
    // And the report says so.
    json j = result_to_json(r);
    EXPECT_EQ(j["caps"].size(), 3u);
    EXPECT_EQ(result_from_json(j).caps, r.caps);
}

TEST(PerfCaps, CqSizeIsComputedWithoutOverflow) {
    EndpointConfig c;
    c.send_depth = 0xFFFFFFFFU;
    c.recv_depth = 0xFFFFFFFFU;
    EXPECT_EQ(cq_entries(c), 2ULL * 0xFFFFFFFFULL + 16);
    EXPECT_EQ(max_tx_depth({16384, 65536}), 16384u);
    EXPECT_EQ(max_tx_depth({16384, 1000}), 492u);
    EXPECT_EQ(max_tx_depth({0, 0}), 1u);
    TestSpec s;
    s.tx_depth = 100;
    s.cq_moderation = 1000;
    EXPECT_TRUE(apply_caps(s, nullptr, {}).empty());
    EXPECT_EQ(s.cq_moderation, 100u);
}

TEST(PerfServe, QueueIsBoundedAndTheRestRefused) {
    ServeOptions o;
    o.max_queue = 1;
    o.limits.handshake_timeout = 1500ms;
    TestServer srv(o);
    const std::string hello =
        json{{"type", "hello"}, {"protocol", kProtocol}, {"spec", spec_to_json(quick_spec())}}
            .dump() +
        "\n";
    RawClient a(srv.port());  // served: its hello answered, then it says nothing
    EXPECT_EQ(json::parse(a.line())["waiting"], 0);
    a.write(hello);
    // The worker has taken it from the queue: the one place left is b's.
    EXPECT_EQ(json::parse(a.line())["type"], "endpoint");
    RawClient b(srv.port());  // waits behind a, once its hello is read
    EXPECT_EQ(json::parse(b.line())["waiting"], 1);
    b.write(hello);
    RawClient c(srv.port());  // one too many: refused at once, or when its hello comes
    json refusal = json::parse(c.line());
    if (refusal["type"] == "welcome") {
        c.write(hello);
        refusal = json::parse(c.line());
    }
    EXPECT_EQ(refusal["type"], "error");
    EXPECT_NE(refusal["message"].get<std::string>().find("busy"), std::string::npos);
    EXPECT_EQ(srv.log_count("already waiting"), 1u);
}

/// A TCP connection to the loopback server from source address `from`
/// (127.0.0.0/8 is all loopback), or -1.
int connect_from(const char* from, uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in src{};
    src.sin_family = AF_INET;
    ::inet_pton(AF_INET, from, &src.sin_addr);
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(port);
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) == 0 &&
        ::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) == 0)
        return fd;
    if (fd >= 0) ::close(fd);
    return -1;
}

// Fifty connections that say nothing, from another address and from the
// client's own: a client that answers is still served at once, with the
// secret too, and each of them either waits out its grace or makes room.
TEST(PerfServe, IdleConnectionsNeverKeepAClientOut) {
    for (const char* from : {"127.0.0.2", "127.0.0.1"}) {
        ServeOptions o;
        ASSERT_TRUE(o.allow.add("127.0.0.0/8"));
        o.peer.secret = "correct horse";
        o.limits.handshake_timeout = 5000ms;
        TestServer srv(o);
        std::vector<int> idle;
        for (int i = 0; i < 50; ++i) idle.push_back(connect_from(from, srv.port()));
        for (int fd : idle) EXPECT_GE(fd, 0);
        PeerOptions p = quick_peer();
        p.secret = "correct horse";
        auto t0 = std::chrono::steady_clock::now();
        TestResult r = run_client(srv.dev(), srv.where(), quick_spec(), p);
        auto took = std::chrono::steady_clock::now() - t0;
        EXPECT_TRUE(r.ok) << from << ": " << r.error;
        // The test itself runs 100 ms; the rest is the handshake.
        EXPECT_LT(took, 1000ms) << from;
        for (int fd : idle) ::close(fd);
    }
}

TEST(PerfServe, HandshakeHasADeadlineWhateverTheClientTrickles) {
    ServeOptions o;
    o.limits.handshake_timeout = 500ms;
    TestServer srv(o);
    auto t0 = std::chrono::steady_clock::now();
    RawClient slow(srv.port());
    slow.line();
    // A byte every 100 ms: every single wait sees progress, the session does not end.
    for (int i = 0; i < 8 && !slow.closed(100ms); ++i) slow.write("{");
    EXPECT_TRUE(slow.closed(2000ms));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2000ms);
    EXPECT_EQ(srv.log_count("no hello"), 1u);
    TestResult r = run_client(srv.dev(), srv.where(), quick_spec(), quick_peer());
    EXPECT_TRUE(r.ok) << r.error;
}

TEST(PerfServe, AClientThatNeverFinishesCannotHoldTheServer) {
    ServeOptions o;
    o.limits.caps.max_duration = 100ms;
    o.limits.run_slack = 200ms;
    o.limits.step_timeout = 300ms;
    TestServer srv(o);
    // A full handshake for a month-long test, then silence: no "done", ever.
    TestSpec month = quick_spec();
    month.duration = std::chrono::hours(24 * 30);
    RawClient hog(srv.port());
    ASSERT_NE(hog.line().find("welcome"), std::string::npos);
    hog.write(
        json{{"type", "hello"}, {"protocol", kProtocol}, {"spec", spec_to_json(month)}}.dump() +
        "\n");
    ASSERT_NE(hog.line().find("endpoint"), std::string::npos);
    hog.write(json{{"type", "endpoint"}, {"info", info_to_json(EndpointInfo{})}}.dump() + "\n");
    ASSERT_NE(hog.line().find("ready"), std::string::npos);
    auto t0 = std::chrono::steady_clock::now();
    // Meanwhile another client waits its turn; it is served once the hog's time is up.
    TestResult next = run_client(srv.dev(), srv.where(), quick_spec(), quick_peer());
    EXPECT_TRUE(next.ok) << next.error;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3000ms);
    EXPECT_EQ(srv.log_count("ran past its deadline"), 1u);
}

TEST(PerfServe, AClientOutsideTheAllowListIsRefused) {
    ServeOptions o;
    o.allow = AllowList();
    ASSERT_TRUE(o.allow.add("10.0.0.0/24"));
    TestServer srv(o);
    TestResult r = run_client(srv.dev(), srv.where(), quick_spec(), quick_peer());
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("does not answer 127.0.0.1"), std::string::npos) << r.error;
    // The client is told no; the list is the operator's, for the log alone.
    EXPECT_EQ(r.error.find("10.0.0.0/24"), std::string::npos) << r.error;
    EXPECT_EQ(srv.log_count("not in --allow (10.0.0.0/24)"), 1u);
    EXPECT_TRUE(srv.dev().created().empty());
}

TEST(PerfAllowList, NetworksOfBothFamilies) {
    AllowList a = AllowList::loopback();
    EXPECT_TRUE(a.allows("127.0.0.1"));
    EXPECT_TRUE(a.allows("127.9.9.9"));
    EXPECT_TRUE(a.allows("::1"));
    EXPECT_TRUE(a.allows("::ffff:127.0.0.1"));
    EXPECT_FALSE(a.allows("10.0.0.1"));
    EXPECT_FALSE(a.allows("::2"));
    EXPECT_FALSE(a.allows("garbage"));
    AllowList b;
    ASSERT_TRUE(b.add("10.1.0.0/17"));
    ASSERT_TRUE(b.add("fd00::/8"));
    ASSERT_TRUE(b.add("192.168.1.5"));
    EXPECT_TRUE(b.allows("10.1.127.255"));
    EXPECT_FALSE(b.allows("10.1.128.0"));
    EXPECT_TRUE(b.allows("fd12::1"));
    EXPECT_FALSE(b.allows("fe80::1"));
    EXPECT_TRUE(b.allows("192.168.1.5"));
    EXPECT_FALSE(b.allows("192.168.1.6"));
    EXPECT_FALSE(b.add("10.0.0.0/33"));
    EXPECT_FALSE(b.add("10.0.0.0/"));
    EXPECT_FALSE(b.add("host.example"));
    EXPECT_EQ(b.add("10.0.0.0/x").error().code, kExitUsage);
}

TEST(PerfServe, ASecretIsProvedNeverSent) {
    ServeOptions o;
    o.peer.secret = "correct horse";
    TestServer srv(o);
    PeerOptions p = quick_peer();
    p.secret = "correct horse";
    TestResult good = run_client(srv.dev(), srv.where(), quick_spec(), p);
    EXPECT_TRUE(good.ok) << good.error;
    p.secret = "wrong horse";
    TestResult wrong = run_client(srv.dev(), srv.where(), quick_spec(), p);
    EXPECT_FALSE(wrong.ok);
    EXPECT_NE(wrong.error.find("authentication failed"), std::string::npos) << wrong.error;
    p.secret.clear();
    TestResult none = run_client(srv.dev(), srv.where(), quick_spec(), p);
    EXPECT_NE(none.error.find("needs a shared secret"), std::string::npos) << none.error;
    // The answer depends on the nonce and does not carry the secret.
    RawClient c(srv.port());
    json w = json::parse(c.line());
    std::string nonce = w["nonce"];
    EXPECT_EQ(nonce.size(), 64u);
    std::string answer = auth_response("correct horse", nonce);
    EXPECT_EQ(answer.find("horse"), std::string::npos);
    EXPECT_NE(answer, auth_response("correct horse", make_nonce()));
    EXPECT_TRUE(auth_matches("correct horse", nonce, answer));
    EXPECT_FALSE(auth_matches("correct horse", "", auth_response("correct horse", "")));
}

TEST(PerfChannel, DepthAndSizeAreBounded) {
    std::string deep64 = std::string(64, '[') + std::string(64, ']');
    EXPECT_TRUE(parse_message(deep64));
    std::string deep65 = std::string(65, '[') + std::string(65, ']');
    EXPECT_FALSE(parse_message(deep65));
    EXPECT_FALSE(parse_message(std::string(1000000, '[')));
    EXPECT_FALSE(parse_message("{\"a\":"));
}

TEST(PerfProtocol, FieldsOfTheWrongTypeAreAbsent) {
    json m = json::parse(R"({"type":5,"message":["x"],"protocol":"2","auth":1,"caps":[1,"a"]})");
    EXPECT_EQ(message_type(m), "");
    EXPECT_EQ(message_text(m, "message", "none"), "none");
    EXPECT_EQ(message_int(m, "protocol", -1), -1);
    EXPECT_FALSE(message_bool(m, "auth"));
    EXPECT_EQ(message_strings(m, "caps"), std::vector<std::string>{"a"});
    EXPECT_EQ(message_type(json::array()), "");
}

TEST(PerfPacer, SaysDueOncePerInterval) {
    ManualClock clock;
    Pacer p(10ms, clock, 1, 1);  // a read on every call
    EXPECT_FALSE(p.due());
    clock.advance(9ms);
    EXPECT_FALSE(p.due());
    clock.advance(1ms);
    EXPECT_TRUE(p.due());
    EXPECT_FALSE(p.due());
    clock.advance(25ms);
    EXPECT_TRUE(p.due());
}

// A clock that counts its reads: where clock_gettime is a system call (the
// Soft-RoCE VM), a read per spin slowed the data path.
class CountingClock final : public Clock {
  public:
    time_point now() const override {
        ++reads;
        return clock.now();
    }
    int64_t unix_ms() const override { return clock.unix_ms(); }
    ManualClock clock;
    mutable int reads = 0;
};

TEST(PerfPacer, ReadsTheClockOncePerStrideAndStretchesTheStrideWhileSpinsAreCheap) {
    CountingClock clock;
    Pacer p(10ms, clock);
    int before = clock.reads;  // the construction's
    for (uint32_t i = 0; i < Pacer::kStride - 1; ++i) EXPECT_FALSE(p.due());
    EXPECT_EQ(clock.reads, before);
    EXPECT_FALSE(p.due());
    EXPECT_EQ(clock.reads - before, 1);
    // Time stands still: every stride was cheap, so each is twice the last
    // up to the most allowed, and then it stays there.
    for (uint32_t i = 0; i < 40 * Pacer::kMaxStride; ++i) EXPECT_FALSE(p.due());
    EXPECT_EQ(p.stride(), Pacer::kMaxStride);
    EXPECT_LT(clock.reads - before, 48);
}

// The loop's spins cost `spin` each; a second of them: the pacer says due
// about once per interval, never twice in one, and reads the clock two to
// four times per interval once it has fitted its stride.
struct Paced {
    int due = 0;
    int reads = 0;
    std::chrono::nanoseconds longest_gap{0};
};
Paced spin_for_a_second(std::chrono::nanoseconds spin) {
    CountingClock clock;
    Pacer p(10ms, clock);
    Paced out;
    auto last = clock.clock.now();
    for (auto t = 0ns; t < 1s; t += spin) {
        clock.clock.advance(spin);
        if (p.due()) {
            ++out.due;
            out.longest_gap = std::max(out.longest_gap, clock.clock.now() - last);
            last = clock.clock.now();
        }
    }
    out.reads = clock.reads;
    return out;
}

TEST(PerfPacer, FitsItsStrideToWhatASpinCosts) {
    using std::chrono::nanoseconds;
    for (nanoseconds spin :
         {nanoseconds(50ns), nanoseconds(1us), nanoseconds(2us), nanoseconds(20us)}) {
        SCOPED_TRACE(spin.count());
        Paced p = spin_for_a_second(spin);
        EXPECT_GE(p.due, 66);  // at most 15 ms between checks
        EXPECT_LE(p.due, 100);
        EXPECT_LE(p.longest_gap, 15ms);
        // The VM's empty polls: was a read per 256 spins, 3,906 a second at 1 us.
        if (spin == 1us || spin == 2us) {
            EXPECT_LE(p.reads, 500);
        }
    }
}

// A server that speaks the protocol's first steps and then answers nonsense.
class NonsenseServer {
  public:
    NonsenseServer() {
        auto fd = Channel::listen("127.0.0.1", 0);
        fd_ = *fd;
        sockaddr_in6 a{};  // the listening socket is dual-stack
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin6_port);
        thread_ = std::thread([this] {
            while (!stop_.stop_requested()) {
                auto ch = Channel::accept(fd_, 100ms);
                if (!ch) continue;
                (void)ch->send({{"type", "welcome"}, {"protocol", kProtocol}, {"waiting", 0}},
                               1000ms);
                (void)ch->receive(1000ms);
                (void)ch->send({{"type", json::array({"endpoint"})}, {"info", 5}}, 1000ms);
            }
        });
    }
    ~NonsenseServer() {
        stop_.request_stop();
        thread_.join();
        ::close(fd_);
    }
    NonsenseServer(const NonsenseServer&) = delete;
    NonsenseServer& operator=(const NonsenseServer&) = delete;
    std::string where() const { return "127.0.0.1:" + std::to_string(port_); }

  private:
    int fd_ = -1;
    uint16_t port_ = 0;
    StopToken stop_;
    std::thread thread_;
};

RunPlan plan_for(std::vector<std::string> peers, size_t tests) {
    RunPlan plan;
    plan.peers = std::move(peers);
    for (size_t i = 0; i < tests; ++i) {
        TestSpec s = quick_spec();
        s.size = static_cast<uint32_t>(4096 << i);
        plan.specs.push_back(s);
    }
    plan.peer = quick_peer();
    return plan;
}

TEST(PerfRun, OneBadServerReplyFailsThatPeerOnly) {
    TestServer good;
    NonsenseServer bad;
    FakeDevice here;
    StopToken stop;
    RunOutcome out = run_tests(here, plan_for({good.where(), bad.where()}, 2), stop, nullptr);
    ASSERT_EQ(out.results.size(), 4u);
    EXPECT_TRUE(out.results[0].ok) << out.results[0].error;
    EXPECT_FALSE(out.results[1].ok);
    EXPECT_NE(out.results[1].error.find("bad endpoint"), std::string::npos) << out.results[1].error;
    EXPECT_TRUE(out.results[2].ok);
    EXPECT_FALSE(out.results[3].ok);
    EXPECT_TRUE(out.meta.complete);
    EXPECT_EQ(exit_code(out), kExitFindings);
}

TEST(PerfRun, AnInterruptKeepsWhatWasMeasured) {
    TestServer a;
    TestServer b;
    FakeDevice here;
    StopToken stop;
    // Ctrl-C during the third test (the first test against b in round two).
    here.on_run = [&](int run) {
        if (run == 3) stop.request_stop(2);
    };
    std::vector<std::string> seen;
    RunOutcome out = run_tests(here, plan_for({a.where(), b.where()}, 3), stop,
                               [&](const TestResult& r, bool) { seen.push_back(r.peer); });
    ASSERT_EQ(out.results.size(), 2u);
    EXPECT_TRUE(out.results[0].ok);
    EXPECT_TRUE(out.results[1].ok);
    EXPECT_EQ(seen.size(), 2u);
    EXPECT_FALSE(out.meta.complete);
    EXPECT_EQ(exit_code(out), kExitInterrupted);
    json doc = perf_report_to_json(out.meta, out.results, out.findings);
    EXPECT_EQ(doc["complete"], false);
    auto back = perf_report_from_json(doc);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_FALSE(back->meta.complete);
    EXPECT_EQ(back->results.size(), 2u);
}

TEST(PerfRun, ABareNumberIsNotAPeer) {
    auto four = check_peer_name("4");
    ASSERT_FALSE(four);
    EXPECT_NE(four.error().message.find("--quiet"), std::string::npos);
    EXPECT_EQ(four.error().code, kExitUsage);
    EXPECT_FALSE(check_peer_name("64K"));
    EXPECT_TRUE(check_peer_name("h2"));
    EXPECT_TRUE(check_peer_name("10.0.0.2"));
    EXPECT_TRUE(check_peer_name("4:18515"));
}

TEST(PerfServe, AListenAddressIsCheckedBeforeAnything) {
    EXPECT_TRUE(check_listen_address(""));
    EXPECT_TRUE(check_listen_address("10.0.0.2"));
    EXPECT_TRUE(check_listen_address("::1"));
    auto bad = check_listen_address("10.0.0");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, kExitUsage);
    ServeOptions o;
    o.listen_addr = "not-an-address";
    auto s = Server::open(o);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, kExitUsage);
}

}  // namespace
}  // namespace fabscope::perf
