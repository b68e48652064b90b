// fabscope probe's parts: the pinglist (parsing, who covers which leaf, the
// rotation), a peer's window and baseline, the judgement, the packet, what
// /metrics serves at 4,096 hosts, and the engine over a fake UD network
// (UdPort is the seam; the real one is tested in the Soft-RoCE VM:
// tests/lab/probe_vm_test.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "probe/engine.h"
#include "probe/judge.h"
#include "probe/packet.h"
#include "probe/pinglist.h"
#include "probe/render.h"
#include "schema_check.h"
#include "util/clock.h"

namespace fabscope::probe {
namespace {

using nlohmann::json;

std::vector<ProbeHost> fabric_hosts(int leaves, int per_leaf) {
    std::string text;
    for (int l = 1; l <= leaves; ++l) {
        for (int h = 1; h <= per_leaf; ++h)
            text += "10." + std::to_string(l) + ".0." + std::to_string(h) + " h" +
                    std::to_string(l) + "-" + std::to_string(h) + " l" + std::to_string(l) + "\n";
    }
    auto hosts = parse_pinglist(text, "fabric", 18516);
    EXPECT_TRUE(hosts) << hosts.error().message;
    return hosts ? *hosts : std::vector<ProbeHost>{};
}

TEST(ProbePinglist, ParsesAddressesPortsAndLeavesAndNamesEveryBadLine) {
    auto ok = parse_pinglist(
        "# the lab\n10.1.0.1 a1 l1\n10.1.0.2:19000 a2 l1 # b\n[fd00::3]:7 a3 l2\nfd00::4 a4 l2\n",
        "hosts", 18516);
    ASSERT_TRUE(ok) << ok.error().message;
    ASSERT_EQ(ok->size(), 4u);
    EXPECT_EQ((*ok)[0].where, "10.1.0.1:18516");
    EXPECT_EQ((*ok)[1].where, "10.1.0.2:19000");
    EXPECT_EQ((*ok)[2].where, "[fd00::3]:7");
    EXPECT_EQ((*ok)[3].where, "[fd00::4]:18516");
    EXPECT_EQ((*ok)[3].leaf, "l2");
    const std::map<std::string, std::string> bad = {
        {"10.0.0.1\n", "hosts:1: expected"},
        {"10.0.0.1 a l1\n10.0.0.2 a l1\n", "hosts:2: host a is listed twice"},
        {"10.0.0.1 a l1\n10.0.0.1:18516 b l1\n",
         "hosts:2: 10.0.0.1:18516 is given to host b here and to host a on line 1"},
        {"# v6\n[fd00::4]:7 a l1\nfd00:0::4:8 c l1\n[FD00:0:0::4]:7 b l1\n",
         "hosts:4: [FD00:0:0::4]:7 is given to host b here and to host a on line 2"},
        {"10.0.0.1 a l1\n10.0.0.2 b\n", "hosts:2: either every line names a leaf"},
        {"10.0.0.1:0 a\n", "hosts:1: port \"0\""},
        {"10.0.0.1 a;rm l1\n", "hosts:1: \"a;rm\" is not"},
        {"# nothing\n", "hosts: no hosts"},
        {std::string(2000, 'x') + "\n", "hosts:1: line longer than 1024"},
    };
    for (const auto& [text, why] : bad) {
        auto r = parse_pinglist(text, "hosts", 18516);
        ASSERT_FALSE(r) << text;
        EXPECT_EQ(r.error().message.rfind(why, 0), 0u) << r.error().message;
    }
}

TEST(ProbePinglist, EveryLeafPairIsCoveredByAsManyHostsAsAskedAndTheRotationReachesEveryHost) {
    const auto hosts = fabric_hosts(5, 4);
    const PinglistOptions o{2, 2};
    std::map<std::pair<std::string, std::string>, int> probers;
    for (size_t self = 0; self < hosts.size(); ++self) {
        Pinglist p = make_pinglist(hosts, self, o);
        EXPECT_EQ(p.leaf_peers.size(), 3u);
        for (const std::string& leaf : p.covered_leaves) ++probers[{hosts[self].leaf, leaf}];
        // Over as many rounds as a leaf has hosts, every host of a covered leaf is probed.
        std::set<size_t> reached;
        for (uint64_t round = 0; round < 4; ++round) {
            for (size_t h : round_peers(p, round, o.cross_hosts)) reached.insert(h);
        }
        EXPECT_EQ(reached.size(), 3u + 4u * p.covered.size()) << hosts[self].name;
    }
    EXPECT_EQ(probers.size(), 20u);  // 5 leaves x 4 others
    for (const auto& [pair, n] : probers) EXPECT_EQ(n, 2) << pair.first << " -> " << pair.second;
    // A leaf of one host covers every other leaf by itself; no leaves: all peers.
    auto flat = parse_pinglist("10.0.0.1 a\n10.0.0.2 b\n10.0.0.3 c\n", "flat", 1);
    ASSERT_TRUE(flat);
    EXPECT_EQ(make_pinglist(*flat, 1, o).leaf_peers, (std::vector<size_t>{0, 2}));
}

TEST(ProbeHistory, TheWindowSumsItsIntervalsAndTheBaselineIsTheMedianP99BeforeIt) {
    PeerHistory h(2, 3);
    auto interval = [&](uint64_t lost, double rtt) {
        ProbeTally& t = h.current();
        t.sent = 10;
        t.answered = 10 - lost;
        t.lost = lost;
        for (uint64_t i = 0; i < t.answered; ++i) t.rtt_us.push_back(rtt + static_cast<double>(i));
        h.close_interval();
    };
    interval(0, 100);
    interval(0, 200);
    interval(0, 300);
    EXPECT_FALSE(h.baseline_p99());  // one interval before the window of two: not three yet
    interval(0, 100);
    interval(1, 1000);
    ASSERT_TRUE(h.baseline_p99());
    EXPECT_DOUBLE_EQ(*h.baseline_p99(), 209);  // the p99s 109, 209, 309
    WindowFigures w = h.window();
    EXPECT_EQ(w.sent, 20u);
    EXPECT_EQ(w.lost, 1u);
    EXPECT_DOUBLE_EQ(w.loss_ratio, 1.0 / 20);
    EXPECT_DOUBLE_EQ(*w.p99_us, 1008);
    EXPECT_EQ(h.total_sent(), 50u);
}

PeerView peer(const std::string& name, const std::string& leaf, bool leaf_peer, uint64_t lost,
              double p99 = 20, std::optional<double> base = std::nullopt) {
    PeerView v{name, leaf, leaf_peer, {}, base, ""};
    v.window.sent = 500;
    v.window.answered = 500 - lost;
    v.window.lost = lost;
    v.window.intervals = 5;
    v.window.loss_ratio = static_cast<double>(lost) / 500;
    v.window.p50_us = p99 / 2;
    v.window.p99_us = p99;
    return v;
}

std::vector<std::string> kinds(const std::vector<Finding>& f) {
    std::vector<std::string> k;
    k.reserve(f.size());
    for (const Finding& x : f)
        k.push_back(
            x.kind + ":" +
            x.evidence.value("peer", x.evidence.value("peer_leaf", x.evidence.value("host", ""))));
    return k;
}

TEST(ProbeJudge, MostPeersLosingIsTheHostOnePeerIsThePeerAndACleanFabricSaysNothing) {
    const ProbeSelf self{"a1", "l1", 5};
    const ProbeThresholds t;
    std::vector<PeerView> clean = {peer("a2", "l1", true, 0), peer("b1", "l2", false, 0),
                                   peer("c1", "l3", false, 0)};
    EXPECT_TRUE(judge_probes(self, clean, {}, t).empty());
    // One lost probe is not a verdict.
    std::vector<PeerView> one = clean;
    one[1] = peer("b1", "l2", false, 1);
    EXPECT_TRUE(judge_probes(self, one, {}, t).empty());
    std::vector<PeerView> host = {peer("a2", "l1", true, 3), peer("b1", "l2", false, 2),
                                  peer("c1", "l3", false, 0)};
    EXPECT_EQ(kinds(judge_probes(self, host, {}, t)),
              (std::vector<std::string>{"probe-host-loss:a1"}));
    std::vector<PeerView> one_peer = {peer("a2", "l1", true, 0), peer("b1", "l2", false, 4),
                                      peer("c1", "l3", false, 0)};
    auto f = judge_probes(self, one_peer, {}, t);
    EXPECT_EQ(kinds(f), (std::vector<std::string>{"probe-peer-loss:b1"}));
    EXPECT_EQ(f[0].summary,
              "b1: 4 of 500 probes from a1 lost (0.80 %) over the last 5 intervals: its link, NIC "
              "or agent");
    std::vector<PeerView> gone = clean;
    gone[2].unreachable = "connection refused";
    gone[2].window = {};
    EXPECT_EQ(kinds(judge_probes(self, gone, {}, t)),
              (std::vector<std::string>{"probe-peer-unreachable:c1"}));
}

TEST(ProbeJudge, AllHostsOfOneLeafDegradingTogetherIsTheLeafPairAndARiseNeedsABaseline) {
    const ProbeSelf self{"a1", "l1", 5};
    const ProbeThresholds t;
    std::vector<PeerView> peers = {peer("a2", "l1", true, 0), peer("b1", "l2", false, 3),
                                   peer("b2", "l2", false, 2), peer("c1", "l3", false, 0),
                                   peer("c2", "l3", false, 0)};
    LeafPairView l2{"l2", {}, std::nullopt};
    l2.window.sent = 1000;
    l2.window.answered = 995;
    l2.window.lost = 5;
    l2.window.loss_ratio = 0.005;
    LeafPairView l3{"l3", {}, std::nullopt};
    l3.window.sent = 1000;
    l3.window.answered = 1000;
    auto f = judge_probes(self, peers, {l2, l3}, t);
    EXPECT_EQ(kinds(f), (std::vector<std::string>{"probe-leaf-pair:l2"}));
    EXPECT_NE(f[0].summary.find("the uplinks between the two leaves"), std::string::npos)
        << f[0].summary;
    // p99: 200 us over a baseline of 40 is a rise; 90 over 40 is not (under 3x); no baseline:
    // nothing.
    std::vector<PeerView> slow = {peer("a2", "l1", true, 0, 200, 40),
                                  peer("a3", "l1", true, 0, 90, 40), peer("a4", "l1", true, 0, 500),
                                  peer("a5", "l1", true, 0, 30, 40)};
    EXPECT_EQ(kinds(judge_probes(self, slow, {}, t)),
              (std::vector<std::string>{"probe-peer-p99:a2"}));
}

TEST(ProbePacket, RoundTripsAndRejectsWhatIsNotAProbe) {
    ProbePacket p{PacketKind::Answer, 7, 4095, 123456, 0x1122334455667788ULL};
    auto b = encode(p);
    auto back = decode(b.data(), b.size());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->kind, PacketKind::Answer);
    EXPECT_EQ(back->id, 7u);
    EXPECT_EQ(back->token, 4095u);
    EXPECT_EQ(back->seq, 123456u);
    EXPECT_EQ(back->sent_ns, 0x1122334455667788ULL);
    EXPECT_FALSE(decode(b.data(), b.size() - 1));
    b[0] ^= 1;
    EXPECT_FALSE(decode(b.data(), b.size()));
    b[0] ^= 1;
    b[4] = 9;
    EXPECT_FALSE(decode(b.data(), b.size()));
}

// ---- the engine over a fake network ----

/// Every port of one process's fake fabric: a datagram is delivered to the
/// port with its QP number unless `drop` says it is lost.
struct FakeNet {
    std::map<uint32_t, std::vector<perf::UdDatagram>> inbox;
    std::set<uint32_t> no_route;  ///< QPs no address handle can be made to (ibv_create_ah fails)
    std::function<bool(uint32_t from, uint32_t to)> drop = [](uint32_t, uint32_t) { return false; };
};

class FakeUdPort final : public perf::UdPort {
  public:
    FakeUdPort(FakeNet& net, uint32_t qpn) : net_(net), qpn_(qpn) {}
    perf::UdAddress address() const override { return {qpn_, 0, {}, true}; }
    Result<int> add_destination(const perf::UdAddress& to) override {
        if (net_.no_route.count(to.qpn))
            return make_error("ibv_create_ah on fake port 1 failed: Network is unreachable", 3);
        dests_[next_] = to.qpn;
        return next_++;
    }
    void remove_destination(int h) override { dests_.erase(h); }
    bool send(int h, const uint8_t* bytes, size_t size) override {
        auto it = dests_.find(h);
        if (it == dests_.end()) return false;
        if (net_.drop(qpn_, it->second)) return true;
        perf::UdDatagram d;
        d.src_qpn = qpn_;
        d.size = size;
        std::copy(bytes, bytes + size, d.bytes.begin());
        net_.inbox[it->second].push_back(d);
        return true;
    }
    Result<std::vector<perf::UdDatagram>> receive(std::chrono::milliseconds) override {
        std::vector<perf::UdDatagram> out;
        out.swap(net_.inbox[qpn_]);
        return out;
    }

  private:
    FakeNet& net_;
    uint32_t qpn_;
    std::map<int, uint32_t> dests_;
    int next_ = 1;
};

TEST(ProbeEngine, OneHostsLossyLinkIsNamedByItselfAndItsPeersAndNothingOnAHealthyFabric) {
    const auto hosts = fabric_hosts(3, 2);  // h1-1 h1-2 | h2-1 h2-2 | h3-1 h3-2
    FakeNet net;
    std::vector<std::unique_ptr<FakeUdPort>> ports;
    std::vector<std::unique_ptr<ProbeEngine>> engines;
    ProbeConfig cfg;
    cfg.interval = std::chrono::milliseconds(100);
    cfg.timeout = std::chrono::milliseconds(60);  // a stalled test thread is not a loss
    cfg.count = 20;
    cfg.window = 3;
    const auto start = Clock::now();
    for (size_t i = 0; i < hosts.size(); ++i) {
        ports.push_back(std::make_unique<FakeUdPort>(net, static_cast<uint32_t>(100 + i)));
        engines.push_back(std::make_unique<ProbeEngine>(*ports[i], hosts, i, cfg, start));
    }
    // Every hello answered: each engine knows every other as a source and a peer.
    for (size_t i = 0; i < hosts.size(); ++i) {
        for (size_t j = 0; j < hosts.size(); ++j) {
            if (i == j) continue;
            ASSERT_TRUE(engines[i]->learn_source(j, ports[j]->address()));
            ASSERT_TRUE(engines[i]->learn_peer(j, ports[j]->address(), static_cast<uint32_t>(i)));
        }
    }
    // h2-1 (QP 102) loses one datagram in ten it sends, from the fourth interval on.
    bool lossy = false;
    std::mt19937 rng(7);  // at random: a fixed cadence aliases with the round-robin
    net.drop = [&](uint32_t from, uint32_t) { return lossy && from == 102 && rng() % 10 == 0; };
    std::vector<std::vector<ProbeSnapshot>> snaps(hosts.size());
    while (snaps[0].size() < 7) {
        for (size_t i = 0; i < engines.size(); ++i) {
            ASSERT_TRUE(engines[i]->step(std::chrono::milliseconds(0)));
            if (Clock::now() >= engines[i]->interval_end())
                snaps[i].push_back(engines[i]->close_interval(0));
        }
        lossy = snaps[0].size() >= 3;
    }
    for (size_t i = 0; i < hosts.size(); ++i) {
        for (size_t k = 0; k < snaps[i].size(); ++k) {
            const ProbeSnapshot& s = snaps[i][k];
            if (k < 3) {
                EXPECT_TRUE(s.findings.empty())
                    << hosts[i].name << " interval " << k + 1 << ": " << s.findings[0].summary;
            }
        }
    }
    auto named = [&](size_t i, const std::string& kind, const std::string& who) {
        for (size_t k = 3; k < snaps[i].size(); ++k) {
            for (const Finding& f : snaps[i][k].findings) {
                if (f.kind == kind &&
                    (f.evidence.value("peer", "") == who || f.evidence.value("host", "") == who))
                    return true;
            }
        }
        return false;
    };
    EXPECT_TRUE(named(2, "probe-host-loss", "h2-1"));
    EXPECT_TRUE(named(3, "probe-peer-loss", "h2-1"));  // its leaf peer
    const ProbeSnapshot& last = snaps[2].back();
    EXPECT_GT(last.lost_total, 0u);
    EXPECT_GT(last.answered_for_others, 0u);
    json j = probe_json(last, "test");
    EXPECT_EQ(j["host"], "h2-1");
    EXPECT_EQ(j["peers"][0]["name"], "h2-2");  // its leaf peer first
    EXPECT_EQ(j["leaf_pairs"].size(), 2u);
    ASSERT_FALSE(j["findings"].empty());
    for (const auto& e : testing::schema_errors(j, "probe.schema.json")) ADD_FAILURE() << e;
}

TEST(ProbeEngine, AnAgentThatFloodsProbesIsAnsweredNoFasterThanTheBound) {
    const auto hosts = fabric_hosts(1, 2);
    FakeNet net;
    FakeUdPort mine(net, 1);
    FakeUdPort flooder(net, 2);
    ProbeConfig cfg;
    cfg.interval = std::chrono::milliseconds(100);  // 2,000 answers at most
    ProbeEngine e(mine, hosts, 0, cfg, Clock::now());
    ASSERT_TRUE(e.learn_source(1, flooder.address()));
    auto to_me = flooder.add_destination(mine.address());
    ASSERT_TRUE(to_me);
    for (uint32_t i = 0; i < 5000; ++i) {
        const auto b = encode({PacketKind::Probe, 1, 0, i, 0});
        flooder.send(*to_me, b.data(), b.size());
    }
    ASSERT_TRUE(e.step(std::chrono::milliseconds(0)));
    ProbeSnapshot s = e.close_interval(0);
    EXPECT_EQ(s.answered_for_others, 2000u);
    EXPECT_EQ(s.answers_refused, 3000u);
    EXPECT_EQ(net.inbox[2].size(), 2000u);
}

TEST(ProbeEngine, APeerWithoutAnAddressHandleIsUnreachableAndRetriedBackingOffWhileTheRestGoOn) {
    const auto hosts = fabric_hosts(1, 3);  // h1-1 h1-2 h1-3
    FakeNet net;
    net.no_route = {103};  // h1-3's GID has no route from h1-1
    FakeUdPort mine(net, 101);
    FakeUdPort good(net, 102);
    FakeUdPort bad(net, 103);
    ProbeConfig cfg;
    cfg.interval = std::chrono::milliseconds(100);
    cfg.timeout = std::chrono::milliseconds(50);
    ManualClock clock;
    ProbeEngine e(mine, hosts, 0, cfg, clock.now(), clock);
    ProbeEngine peer(good, hosts, 1, cfg, clock.now(), clock);  // answer h1-1's probes
    ProbeEngine far(bad, hosts, 2, cfg, clock.now(), clock);
    ASSERT_TRUE(peer.learn_source(0, mine.address()));
    ASSERT_TRUE(far.learn_source(0, mine.address()));
    ASSERT_TRUE(e.learn_peer(1, good.address(), 0));
    auto st = e.learn_peer(2, bad.address(), 0);
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("h1-3: no address handle: ibv_create_ah"), std::string::npos)
        << st.error().message;
    std::vector<uint64_t> asked;  // the intervals at whose end h1-3 is asked again
    std::vector<ProbeSnapshot> snaps;
    for (int k = 0; k < 9; ++k) {
        for (int tick = 0; tick < 10; ++tick) {
            clock.advance(std::chrono::milliseconds(10));
            ASSERT_TRUE(e.step(std::chrono::milliseconds(0)));
            ASSERT_TRUE(peer.step(std::chrono::milliseconds(0)));
            ASSERT_TRUE(far.step(std::chrono::milliseconds(0)));
            ASSERT_TRUE(e.step(std::chrono::milliseconds(0)));
        }
        ASSERT_GE(clock.now(), e.interval_end());
        snaps.push_back(e.close_interval(0));
        const auto todo = e.to_resolve();
        if (std::find(todo.begin(), todo.end(), 2) == todo.end()) continue;
        asked.push_back(snaps.back().interval);
        if (asked.size() == 3) net.no_route.clear();  // the route is back
        (void)e.learn_peer(2, bad.address(), 0);
    }
    // Asked again after 1, 2 and 4 intervals; the fourth time it is reachable.
    EXPECT_EQ(asked, (std::vector<uint64_t>{1, 3, 7}));
    const ProbeSnapshot& s = snaps[5];  // interval 6: backing off
    ASSERT_EQ(s.peers.size(), 2u);
    EXPECT_EQ(s.peers[0].name, "h1-2");
    EXPECT_EQ(s.peers[0].state, "probing");
    EXPECT_EQ(s.peers[0].window.lost, 0u);
    EXPECT_GT(s.peers[0].window.answered, 40u);  // 10 an interval, over the window of 5
    EXPECT_EQ(s.peers[1].state, "unreachable");
    EXPECT_EQ(s.peers[1].unreachable_reason, "address-handle");
    EXPECT_EQ(s.peers[1].retry_interval, 7u);
    EXPECT_EQ(s.peers[1].sent_total, 0u);
    EXPECT_EQ(kinds(s.findings), (std::vector<std::string>{"probe-peer-unreachable:h1-3"}));
    json j = probe_json(s, "test");
    EXPECT_EQ(j["peers"][1]["unreachable_reason"], "address-handle");
    EXPECT_NE(j["peers"][1]["unreachable"].get<std::string>().find("Network is unreachable"),
              std::string::npos);
    for (const auto& err : testing::schema_errors(j, "probe.schema.json")) ADD_FAILURE() << err;
    EXPECT_NE(probe_metrics(s, "test").find(
                  "fabscope_probe_peers_unreachable{reason=\"address-handle\"} 1\n"),
              std::string::npos);
    // Once its address handle is made it is probed like the others.
    EXPECT_EQ(snaps.back().peers[1].state, "probing");
    EXPECT_GT(snaps.back().peers[1].sent_total, 0u);
    EXPECT_EQ(snaps.back().peers[1].lost_total, 0u);
}

TEST(ProbeMetrics, AHostOfA4096HostFabricServesUnderAHundredAndFiftySeries) {
    const auto hosts = fabric_hosts(128, 32);
    FakeNet net;
    FakeUdPort port(net, 1);
    ProbeEngine e(port, hosts, 40, ProbeConfig{}, Clock::now());
    for (size_t h = 0; h < hosts.size(); ++h) {
        if (h != 40) {
            ASSERT_TRUE(e.learn_peer(h, {static_cast<uint32_t>(h + 2), 0, {}, true}, 1));
        }
    }
    // Each peer of the round answered: every series there is.
    ProbeSnapshot s = e.close_interval(0);
    for (PeerFigures& f : s.peers) f.window = {1, 1, 0, 1, 0, 10.0, 20.0};
    for (PeerFigures& f : s.pairs) f.window = {1, 1, 0, 1, 0, 10.0, 20.0};
    const std::string text = probe_metrics(s, "test");
    std::istringstream in(text);
    size_t series = 0;
    for (std::string line; std::getline(in, line);) series += !line.empty() && line[0] != '#';
    std::printf("4,096 hosts: %zu series an agent, %zu in all; %zu leaves covered\n", series,
                series * hosts.size(), s.pairs.size());
    EXPECT_LE(series, 150u);
    EXPECT_EQ(s.pairs.size(), 8u);  // 127 leaves x 2 probers / 32 hosts
}

}  // namespace
}  // namespace fabscope::probe
