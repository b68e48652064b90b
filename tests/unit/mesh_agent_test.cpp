// Mesh runs launched by agents (mesh/agent.h): the order and its
// bounds, the relayed messages, the hosts file, all pure; then whole runs on
// loopback: real `perf serve` servers as agents (fake devices), a real
// coordinator, the rank logic of mesh/run unchanged on both sides.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "mesh/agent.h"
#include "mesh/hosts.h"
#include "mesh/order.h"
#include "mesh/report.h"
#include "pairtest/server.h"
#include "ranks/comm_relay.h"
#include "rdma/fake_verbs.h"
#include "schema_check.h"

namespace fabscope::perf {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

MeshOrder good_order() {
    MeshOrder o;
    o.rank = 2;
    o.size = 5;
    o.device = "rxe0";
    o.spec.size = 65536;
    o.spec.duration = 500ms;
    o.spec.warmup_time = 100ms;
    o.gid_index = 1;
    o.traffic_class = 2;
    o.pattern = "cover";
    o.step_timeout = 5s;
    o.plan_extra = 60s;
    o.names = {{"10.9.12.0", "l1"}, {"10.9.12.1", "s2"}};
    return o;
}

std::string refused(const json& j, const MeshAgentBounds& b = {}, const ServeCaps& caps = {}) {
    auto o = order_from_json(j, b, caps);
    return o ? "" : o.error().message;
}

TEST(MeshOrder, RoundTripsEveryField) {
    MeshOrder in = good_order();
    auto out = order_from_json(order_to_json(in), {}, {});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->rank, 2);
    EXPECT_EQ(out->size, 5);
    EXPECT_EQ(out->device, "rxe0");
    EXPECT_EQ(out->spec.size, 65536u);
    EXPECT_EQ(out->spec.duration, 500ms);
    EXPECT_EQ(out->gid_index, 1);
    EXPECT_EQ(out->traffic_class, 2);
    EXPECT_EQ(out->pattern, "cover");
    EXPECT_EQ(out->step_timeout, 5s);
    EXPECT_EQ(out->names.at("10.9.12.1"), "s2");
    EXPECT_EQ(out->plan_extra, 60s);
    // An order without the extra wait (no --load) waits none.
    json plain = order_to_json(in);
    plain.erase("plan_extra_ms");
    EXPECT_EQ(order_from_json(plain, {}, {})->plan_extra, 0s);
}

TEST(MeshOrder, EveryBoundIsCheckedAndNamed) {
    const json good = order_to_json(good_order());
    struct Case {
        const char* key;
        json value;
        const char* says;
    };
    const Case cases[] = {
        {"version", 2, "version 2"},
        {"version", "1", "version -1"},
        {"size", 5000, "size 5000 is outside 3 .. 4097"},
        {"size", 2, "size 2"},
        {"size", (int64_t{1} << 32) + 5, "size 4294967301"},  // not narrowed to 5
        {"rank", 0, "rank 0 is outside 1 .. 4"},
        {"rank", 5, "rank 5"},
        {"step_timeout_ms", 10, "step_timeout_ms 10"},
        {"step_timeout_ms", 3600000, "step_timeout_ms 3600000"},
        {"max_cover_rounds", 65, "max_cover_rounds 65"},
        {"adaptive_rounds", 17, "adaptive_rounds 17"},
        {"trace_variants", 0, "trace_variants 0"},
        {"trace_timeout_ms", 60000, "trace_timeout_ms 60000"},
        {"plan_extra_ms", 300001, "plan_extra_ms 300001 is outside 0 .. 300000"},
        {"traffic_class", 256, "traffic_class 256"},
        {"pattern", "incast", "pattern \"incast\""},
        {"names", "l1", "names is not an array"},
        {"names", json::array({json::array({"10.0.0.1"})}), "[address, name]"},
        {"spec", nullptr, "no spec"},
        {"device", std::string(65, 'x'), "longer than 64"},
    };
    EXPECT_EQ(refused(good), "");
    for (const Case& c : cases) {
        json j = good;
        j[c.key] = c.value;
        EXPECT_NE(refused(j).find(c.says), std::string::npos)
            << c.key << " = " << c.value.dump() << ": " << refused(j);
    }
    EXPECT_NE(refused(json::array()).find("not an object"), std::string::npos);
}

TEST(MeshOrder, TheAgentsCapsAndTheRunsLengthAreItsOwn) {
    json j = order_to_json(good_order());
    ServeCaps small;
    small.max_size = 4096;
    EXPECT_NE(refused(j, {}, small).find("--max-size"), std::string::npos);
    ServeCaps quick;
    quick.max_duration = 200ms;
    EXPECT_NE(refused(j, {}, quick).find("--max-duration"), std::string::npos);
    j["spec"]["iterations"] = 100;
    EXPECT_NE(refused(j).find("bandwidth test by duration"), std::string::npos);

    // 4,097 ranks of all-pairs at a minute a step: longer than four hours.
    MeshOrder big = good_order();
    big.pattern = "all-pairs";
    big.size = 4097;
    big.spec.duration = 60s;
    EXPECT_NE(refused(order_to_json(big)).find("the run could take"), std::string::npos);
    // All-pairs over 2,048 agents at mesh run's default timeouts (a 10 s
    // step, 2 s flows): two days at the longest. An agent refuses it unless
    // started with a --max-session that long, and says which flag.
    MeshOrder wide = good_order();
    wide.pattern = "all-pairs";
    wide.size = 2049;
    wide.step_timeout = 10s;
    wide.spec.duration = 2s;
    wide.spec.warmup_time = 0s;
    EXPECT_NE(refused(order_to_json(wide)).find("more than this agent's --max-session 4h"),
              std::string::npos);
    EXPECT_LT(order_session_limit(wide), 48h);
    MeshAgentBounds patient;
    patient.max_session = 48h;
    EXPECT_EQ(refused(order_to_json(wide), patient), "");
    MeshAgentBounds few;
    few.max_names = 1;
    EXPECT_NE(refused(order_to_json(good_order()), few).find("2 names, more than 1"),
              std::string::npos);
    EXPECT_GT(order_session_limit(big), order_session_limit(good_order()));
}

TEST(MeshOrder, TheCoordinatorSaysBeforeItStartsWhatMaxSessionTheAgentsNeed) {
    CoordinatorOptions c;
    c.run.pattern = "all-pairs";
    c.run.step_timeout = 10s;
    c.run.spec.duration = 2s;
    c.run.spec.warmup_time = 0s;
    EXPECT_EQ(session_note(c, 100), "");  // about 2.4 h: within the default
    const std::string note = session_note(c, 2048);
    EXPECT_NE(note.find("up to 47.8 h"), std::string::npos) << note;
    EXPECT_NE(note.find("--max-session 48h or more"), std::string::npos) << note;
    // What it says is what the agents hold the order to.
    MeshAgentBounds told;
    told.max_session = 48h;
    const json order = order_to_json(agent_order(c, MeshAgent{}, 7, 2049));
    EXPECT_EQ(refused(order, told), "");
    EXPECT_NE(refused(order), "");
    c.run.pattern = "cover";
    EXPECT_EQ(session_note(c, 4096), "");  // a cover's rounds do not grow with the agents
}

MeshOrder ring_order_of() {
    MeshOrder o = good_order();
    o.pattern = "ring";
    o.ring = {.sizes = {1 << 20, 8 << 20}, .iterations = 7, .warmup = 2, .timeout = 90s};
    return o;
}

TEST(MeshOrder, ARingCarriesItsSizesIterationsAndTimeoutWithinTheAgentsBounds) {
    auto out = order_from_json(order_to_json(ring_order_of()), {}, {});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->pattern, "ring");
    EXPECT_EQ(out->ring.sizes, (std::vector<uint64_t>{1 << 20, 8 << 20}));
    EXPECT_EQ(out->ring.iterations, 7u);
    EXPECT_EQ(out->ring.warmup, 2u);
    EXPECT_EQ(out->ring.timeout, 90s);
    const json good = order_to_json(ring_order_of());
    struct Case {
        json ring;
        const char* says;
    };
    const Case cases[] = {
        {nullptr, "ring: missing"},
        {{{"sizes", json::array()}, {"iterations", 1}, {"warmup", 0}, {"timeout_ms", 1000}},
         "sizes: 1 .. 32 sizes"},
        {{{"sizes", {0}}, {"iterations", 1}, {"warmup", 0}, {"timeout_ms", 1000}},
         "each 1 byte .. this agent's --max-size"},
        {{{"sizes", {1 << 20}}, {"iterations", 0}, {"warmup", 0}, {"timeout_ms", 1000}},
         "iterations 1 .. 100000"},
        {{{"sizes", {1 << 20}}, {"iterations", 1}, {"warmup", 0}, {"timeout_ms", 3600001}},
         "timeout_ms 1 .. 3600000"},
    };
    for (const Case& c : cases) {
        json j = good;
        j["ring"] = c.ring;
        EXPECT_NE(refused(j).find(c.says), std::string::npos)
            << c.ring.dump() << ": " << refused(j);
    }
    ServeCaps small;
    small.max_size = 4 << 20;
    EXPECT_NE(refused(good, {}, small).find("--max-size 4M"), std::string::npos)
        << refused(good, {}, small);
    // Each size within its timeout: 32 sizes of an hour each is longer than four hours.
    MeshOrder slow = ring_order_of();
    slow.ring.sizes.assign(32, 1 << 20);
    slow.ring.timeout = 3600s;
    EXPECT_NE(refused(order_to_json(slow)).find("the run could take"), std::string::npos);
}

TEST(MeshRelay, OnlyWellFormedRelaysToKnownRanksPass) {
    auto r = relay_from_json(relay_json("to", {3, 17, "{\"x\":1}"}), "to", 4);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->peer, 3);
    EXPECT_EQ(r->tag, 17);
    EXPECT_EQ(r->body, "{\"x\":1}");
    EXPECT_FALSE(relay_from_json(relay_json("to", {4, 17, ""}), "to", 4));   // no such rank
    EXPECT_FALSE(relay_from_json(relay_json("to", {-1, 17, ""}), "to", 4));  // nor this
    EXPECT_FALSE(relay_from_json(relay_json("to", {1, -2, ""}), "to", 4));
    json wide = relay_json("to", {1, 2, ""});
    wide["to"] = (int64_t{1} << 32) + 1;  // not narrowed to rank 1
    EXPECT_FALSE(relay_from_json(wide, "to", 4));
    EXPECT_FALSE(relay_from_json(relay_json("from", {1, 2, ""}), "to", 4));  // wrong direction
    EXPECT_FALSE(relay_from_json({{"type", "relay"}, {"to", 1}, {"tag", 2}, {"body", 3}}, "to", 4));
    EXPECT_FALSE(relay_from_json({{"type", "hello"}, {"to", 1}, {"tag", 2}}, "to", 4));
}

TEST(MeshRelay, TheMailboxBlamesThePeerPastItsBytesAndKeepsTheOthers) {
    constexpr size_t kCost = MailboxLimits::kEntryCost;
    Mailbox box(MailboxLimits{.peer_bytes = 2 * (100 + kCost), .total_bytes = SIZE_MAX});
    EXPECT_FALSE(box.put(1, 10, std::string(100, 'a')));
    EXPECT_FALSE(box.put(2, 10, std::string(100, 'b')));
    EXPECT_FALSE(box.put(1, 11, std::string(100, 'a')));
    EXPECT_FALSE(
        box.put(1, 11, std::string(100, 'c')));  // the same key replaces, costs nothing more
    EXPECT_EQ(box.put(1, 12, "x"), 1);           // rank 1's third: blamed
    EXPECT_FALSE(box.take(1, 10));               // and what it held is gone
    EXPECT_FALSE(box.take(1, 12));
    EXPECT_EQ(box.take(2, 10), std::string(100, 'b'));  // rank 2's stays
    EXPECT_EQ(box.size(), 0u);
    EXPECT_EQ(box.bytes(), 0u);
    // Taken messages free their peer's share.
    for (int i = 0; i < 1000; ++i) {
        ASSERT_FALSE(box.put(3, i, std::string(100, 'd')));
        ASSERT_TRUE(box.take(3, i));
    }
    EXPECT_EQ(box.bytes(), 0u);
    // Many empty messages are bounded too.
    std::optional<int> blamed;
    for (int i = 0; i < 10 && !blamed; ++i) blamed = box.put(4, i, "");
    EXPECT_EQ(blamed, 4);
    EXPECT_NE(mailbox_breach(box, 4).find("rank 4 sent more than"), std::string::npos);
}

TEST(MeshRelay, PastTheTotalThePeerHoldingMostIsBlamed) {
    Mailbox box(MailboxLimits{.peer_bytes = 10000, .total_bytes = 3000});
    EXPECT_FALSE(box.put(1, 1, std::string(500, 'a')));
    EXPECT_FALSE(box.put(2, 1, std::string(1500, 'b')));
    EXPECT_EQ(box.put(1, 2, std::string(900, 'a')), 2);  // over 3000 in all: rank 2 holds most
    EXPECT_TRUE(box.take(1, 1));
    EXPECT_TRUE(box.take(1, 2));
    EXPECT_FALSE(box.take(2, 1));
}

TEST(MeshRelay, TheUndeliverableSetForgetsTheOldestPastItsBound) {
    Mailbox box(MailboxLimits{.failed = 3});
    for (int tag = 0; tag < 5; ++tag) box.fail(4, tag);
    box.fail(4, 4);  // again: still one entry
    EXPECT_FALSE(box.failed(4, 0));
    EXPECT_FALSE(box.failed(4, 1));
    EXPECT_TRUE(box.failed(4, 2));
    EXPECT_TRUE(box.failed(4, 4));
    EXPECT_FALSE(box.failed(4, 5));
}

TEST(MeshHosts, OneAgentPerLineWithPortAndDevice) {
    auto a = parse_mesh_hosts(
        "# the agents\n"
        "a1\n"
        "10.1.0.2:18600 rxe_a2   # its own port\n"
        "\n"
        "[fd00::3]:7000 mlx5_1\n"
        "fd00::4\n",
        "agents.txt", 18515);
    ASSERT_TRUE(a) << a.error().message;
    ASSERT_EQ(a->size(), 4u);
    EXPECT_EQ((*a)[0].where(), "a1:18515");
    EXPECT_EQ((*a)[0].line, 2);
    EXPECT_EQ((*a)[1].where(), "10.1.0.2:18600");
    EXPECT_EQ((*a)[1].device, "rxe_a2");
    EXPECT_EQ((*a)[2].host, "fd00::3");
    EXPECT_EQ((*a)[2].where(), "[fd00::3]:7000");
    EXPECT_EQ((*a)[3].where(), "[fd00::4]:18515");
}

TEST(MeshHosts, ErrorsNameTheFileAndTheLine) {
    struct Case {
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"a1\na2:0\n", "agents.txt:2: port \"0\" is not 1 .. 65535"},
        {"a1\na2:x\n", "agents.txt:2: port \"x\""},
        {"a1\na2:70000\n", "agents.txt:2: port \"70000\""},
        {"a1 rxe0 extra\na2\n", "agents.txt:1: \"extra\": one agent per line"},
        {"a1\na2\na1:18515\n", "agents.txt:3: a1:18515 is already on line 1"},
        {"a1\n[fd00::1\n", "agents.txt:2: an IPv6 address opened with [ is not closed"},
        {"a1\nbad/host\n", "agents.txt:2: \"bad/host\" is not a host name"},
        {"a1\n" + std::string(1100, 'x') + "\n", "agents.txt:2: line longer than 1024"},
        {"# none\na1\n", "agents.txt: 1 agent: a mesh run needs at least two"},
    };
    for (const Case& c : cases) {
        auto a = parse_mesh_hosts(c.text, "agents.txt", 18515);
        ASSERT_FALSE(a) << c.says;
        EXPECT_NE(a.error().message.find(c.says), std::string::npos) << a.error().message;
        EXPECT_EQ(a.error().code, 2);
    }
    std::string many;
    for (size_t i = 0; i <= kMaxMeshAgents; ++i)
        many.append("h").append(std::to_string(i)).append("\n");
    auto a = parse_mesh_hosts(many, "agents.txt", 18515);
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().message.find("agents.txt:4097: more than 4096 agents"), std::string::npos)
        << a.error().message;
}

// ---- whole runs on loopback ----

/// A `perf serve` on a free loopback port whose mesh orders open fake
/// devices (`on_run` called at each of their flows).
class Agent {
  public:
    Agent() { start(); }
    explicit Agent(ServeOptions o) : opts_(std::move(o)) { start(); }
    explicit Agent(std::function<void(int)> on_run) : on_run_(std::move(on_run)) { start(); }
    ~Agent() {
        stop_.request_stop();
        thread_.join();
    }
    Agent(const Agent&) = delete;
    Agent& operator=(const Agent&) = delete;
    MeshAgent where(int line) const { return {"127.0.0.1", server_->port(), "", line}; }

  private:
    void start() {
        opts_.port = 0;
        opts_.limits.step_timeout = 2s;
        opts_.limits.hello_handlers["mesh"] = mesh_order_handler(
            MeshAgentBounds{},
            [this](const std::string&, int) -> Result<std::unique_ptr<VerbsDevice>> {
                auto d = std::make_unique<testing::FakeDevice>();
                d->on_run = on_run_;
                return std::unique_ptr<VerbsDevice>(std::move(d));
            });
        auto s = Server::open(opts_);
        if (!s) throw std::runtime_error(s.error().message);
        server_ = std::move(*s);
        thread_ = std::thread([this] { server_->run(dev_, stop_, [](std::string_view) {}); });
    }

    ServeOptions opts_;
    std::function<void(int)> on_run_;
    testing::FakeDevice dev_;
    StopToken stop_;
    std::unique_ptr<Server> server_;
    std::thread thread_;
};

CoordinatorOptions quick(const std::string& pattern = "all-pairs") {
    CoordinatorOptions c;
    c.run.spec.duration = 20ms;
    c.run.spec.warmup_time = 0ms;
    c.run.step_timeout = 1s;
    c.run.pattern = pattern;
    c.trace = false;
    c.connect_timeout = 1s;
    return c;
}

const MeshFinding* finding(const MeshRunData& d, const std::string& kind, int rank) {
    for (const MeshFinding& f : d.findings) {
        if (f.kind == kind && f.rank == rank) return &f;
    }
    return nullptr;
}

TEST(MeshAgents, ACoordinatorRunsAllPairsOverPerfServeAgents) {
    Agent a1, a2, a3, a4;
    std::vector<MeshAgent> agents = {a1.where(1), a2.where(2), a3.where(3), a4.where(4)};
    StopToken stop;
    MeshRunOutcome out = coordinate_mesh(agents, quick(), stop);
    const MeshRunData& d = out.data;
    EXPECT_EQ(out.error, "");
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.launcher, "fabscope agents (mesh order 1)");
    ASSERT_EQ(d.ranks.size(), 5u);
    EXPECT_TRUE(d.ranks[0].coordinator);
    EXPECT_EQ(d.rounds.size(), 3u);  // 4 agents, the coordinator in no pair
    ASSERT_EQ(d.flows.size(), 12u);
    for (const MeshFlow& f : d.flows) {
        EXPECT_TRUE(f.measured && f.ok) << f.src << "->" << f.dst << ": " << f.error;
        EXPECT_NE(f.src, 0);
        EXPECT_NE(f.dst, 0);
    }
    EXPECT_TRUE(d.findings.empty());
    json doc = mesh_run_json(d, analyse_mesh(d, 0.6));
    for (const auto& e : fabscope::testing::schema_errors(doc, "mesh-run.schema.json"))
        ADD_FAILURE() << e;
    EXPECT_EQ(doc["ranks"][0]["coordinator"], true);
}

TEST(MeshAgents, ACoordinatorRunsARingOverAgentsAndIsInNoEdge) {
    Agent a1, a2, a3;
    std::vector<MeshAgent> agents = {a1.where(1), a2.where(2), a3.where(3)};
    StopToken stop;
    CoordinatorOptions c = quick("ring");
    c.run.ring = {.sizes = {65536, 1 << 20}, .iterations = 3, .warmup = 1, .timeout = 10s};
    MeshRunOutcome out = coordinate_mesh(agents, c, stop);
    const MeshRunData& d = out.data;
    EXPECT_EQ(out.error, "");
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "ring");
    EXPECT_TRUE(d.ranks[0].coordinator);
    ASSERT_EQ(d.rings.size(), 1u);
    EXPECT_EQ(d.rings.at(0).order, (std::vector<int>{1, 2, 3}));
    ASSERT_EQ(d.rings.at(0).sizes.size(), 2u);
    for (const RingSize& s : d.rings.at(0).sizes) EXPECT_TRUE(s.measured);
    ASSERT_EQ(d.flows.size(), 3u);
    for (const MeshFlow& f : d.flows) EXPECT_TRUE(f.measured) << f.error;
    EXPECT_TRUE(d.findings.empty());
    // The fake's steps run at 10 Gb/s: a ring of them has that bus bandwidth and overhead none.
    EXPECT_NEAR(d.rings.at(0).sizes[1].busbw_gbs, 10.0 / 8, 0.01);
}

TEST(MeshAgents, AnAgentThatRefusesOrCannotBeReachedIsAFindingAndTheRunGoesOn) {
    ServeOptions elsewhere;
    elsewhere.allow = AllowList();
    ASSERT_TRUE(elsewhere.allow.add("10.0.0.0/8"));
    ServeOptions small;
    small.limits.caps.max_size = 1024;  // below the order's 64K
    Agent a1, a2, a3(elsewhere), a4(small);
    MeshAgent closed{"127.0.0.1", 1, "", 5};  // nothing listens on port 1
    std::vector<MeshAgent> agents = {a1.where(1), a2.where(2), a3.where(3), a4.where(4), closed};
    StopToken stop;
    MeshRunOutcome out = coordinate_mesh(agents, quick(), stop);
    const MeshRunData& d = out.data;
    EXPECT_EQ(d.status, "complete");
    ASSERT_NE(finding(d, "rank-unavailable", 3), nullptr);
    EXPECT_NE(finding(d, "rank-unavailable", 3)->message.find("does not answer 127.0.0.1"),
              std::string::npos)
        << finding(d, "rank-unavailable", 3)->message;
    ASSERT_NE(finding(d, "rank-unavailable", 4), nullptr);
    EXPECT_NE(finding(d, "rank-unavailable", 4)->message.find("--max-size"), std::string::npos)
        << finding(d, "rank-unavailable", 4)->message;
    ASSERT_NE(finding(d, "rank-unavailable", 5), nullptr);
    EXPECT_NE(finding(d, "rank-unavailable", 5)->message.find("line 5"), std::string::npos);
    ASSERT_EQ(d.flows.size(), 2u);  // a1 <-> a2 only
    for (const MeshFlow& f : d.flows) EXPECT_TRUE(f.measured && f.ok) << f.error;
}

TEST(MeshAgents, AnAgentThatDiesMidRunIsNamedAndTheRunEndsWithoutIt) {
    // a3's rank fails hard on its second flow: its session closes mid-run.
    Agent a1, a2, a4;
    Agent a3(std::function<void(int)>([](int run) {
        if (run == 2) throw std::runtime_error("the agent died");
    }));
    std::vector<MeshAgent> agents = {a1.where(1), a2.where(2), a3.where(3), a4.where(4)};
    StopToken stop;
    auto t0 = std::chrono::steady_clock::now();
    MeshRunOutcome out = coordinate_mesh(agents, quick(), stop);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const MeshRunData& d = out.data;
    EXPECT_EQ(d.status, "complete");
    ASSERT_NE(finding(d, "rank-gone", 3), nullptr);
    EXPECT_NE(finding(d, "rank-gone", 3)->message.find("closed its session"), std::string::npos)
        << finding(d, "rank-gone", 3)->message;
    EXPECT_TRUE(d.ranks[3].gone);
    size_t ok_without_3 = 0;
    for (const MeshFlow& f : d.flows) {
        if (f.src != 3 && f.dst != 3) ok_without_3 += f.measured && f.ok;
    }
    EXPECT_EQ(ok_without_3, 6u);  // every flow among a1, a2, a4
    EXPECT_LT(seconds, 6.0);      // a closed session is not waited for
}

TEST(MeshAgents, CtrlCOnTheCoordinatorKeepsWhatWasMeasured) {
    Agent a1, a2, a3, a4;
    std::vector<MeshAgent> agents = {a1.where(1), a2.where(2), a3.where(3), a4.where(4)};
    StopToken stop;
    CoordinatorOptions c = quick();
    c.run.on_progress = [&](const MeshRunData& d) {
        if (d.rounds_done >= 1) stop.request_stop(2);
    };
    MeshRunOutcome out = coordinate_mesh(agents, c, stop);
    const MeshRunData& d = out.data;
    EXPECT_EQ(d.status, "interrupted");
    EXPECT_GE(d.rounds_done, 1u);
    EXPECT_LT(d.rounds_done, 3u);
    size_t measured = 0;
    for (const MeshFlow& f : d.flows) measured += f.measured;
    EXPECT_GE(measured, 4u);
}

}  // namespace
}  // namespace fabscope::perf
