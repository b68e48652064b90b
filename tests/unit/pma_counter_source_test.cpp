// The InfiniBand PMA as a counter source, against the fake fabric: every
// port the sweep read, read again through the MAD engine and stamped by the
// clock; a port that does not answer is listed (and a finding), never
// dropped; the per-VL PortXmitWait where a port answers it, "not supported"
// where it does not; and the congestion report that carries both.

#include "congestion/pma_counter_source.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "congestion/congestion_report.h"
#include "discover/pma_decode.h"
#include "discover/sweep.h"
#include "fake_fabric.h"
#include "schema_check.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FakeFabric;

/// A leaf-spine fabric swept once (the first reading), and the same fabric
/// with other counters behind a second fake, for the second reading.
struct Rig {
    std::vector<Node> nodes;
    Fabric before;
    Fabric after;
    FakeClock clock;
    std::unique_ptr<FakeFabric> fake_before;
    std::unique_ptr<FakeFabric> fake_after;
    Fabric swept;

    Rig() : nodes(testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2})) {
        testing::program_min_hop_routes(nodes);
        PortCounters pc;
        pc.set(Counter::PortXmitWait, 100);
        pc.set(Counter::PortXmitData, 1ULL << 40);  // beyond 32 bits: from the extended counters
        for (Node& n : nodes)
            for (Port& p : n.ports) p.counters = pc;
        before = *Fabric::build(nodes);
        testing::node_named(nodes, "leaf02").port(1)->counters->set(Counter::PortXmitWait, 1100);
        after = *Fabric::build(nodes);
        const Node& h = nodes.front();
        fake_before = std::make_unique<FakeFabric>(before, h.guid, h.ports.front().num, clock);
        fake_after = std::make_unique<FakeFabric>(after, h.guid, h.ports.front().num, clock);
        LocalPort local;
        local.ca = "fake0";
        local.port = h.ports.front().num;
        auto out = sweep_fabric(*fake_before, clock, local, SweepOptions{});
        EXPECT_TRUE(out) << out.error().message;
        swept = out->snapshot.fabric;
    }
    PortRef ref(const std::string& node, uint8_t port) const {
        return PortRef{swept.find(node)->guid, port};
    }
    PmaRead second(bool per_vl = false) {
        clock.advance(10s);
        PmaSourceOptions o;
        o.per_vl = per_vl;
        return PmaCounterSource(*fake_after, clock, swept, o).read_ports();
    }
};

TEST(PmaCounterSource, EveryPortTheSweepReadAgainStampedByTheClock) {
    Rig rig;
    CounterReadings first = readings_of(rig.swept);
    ASSERT_FALSE(first.empty());
    PmaRead r = rig.second();
    EXPECT_TRUE(r.failed.empty());
    EXPECT_FALSE(r.interrupted);
    ASSERT_EQ(r.readings.size(), first.size());
    const PortRef hot = rig.ref("leaf02", 1);
    const PortCounters& pc = r.readings.at(hot);
    EXPECT_EQ(pc.read_at_ms, rig.clock.unix_ms());
    EXPECT_TRUE(pc.extended);
    EXPECT_EQ(pc.get(Counter::PortXmitData), 1ULL << 40);
    auto rise = counter_rise(first.at(hot), pc, Counter::PortXmitWait);
    ASSERT_TRUE(rise);
    EXPECT_EQ(rise->delta, 1000u);
    EXPECT_NEAR(mean_interval_s(first, r.readings), 10.0, 0.01);
    EXPECT_EQ(rig.fake_after->non_get_methods, 0);  // read-only
}

TEST(PmaCounterSource, ExtendedSpeedsCountersAreReadAgainInTheLayoutTheSweepFound) {
    Rig rig;
    // The sweep found h0002 answering PortExtendedSpeedsCounters with RS-FEC
    // (as a sweep's FecProbe would have); nobody else.
    const PortRef host = rig.ref("h0002 HCA-1", 1);
    std::vector<Node> nodes = rig.swept.nodes();
    testing::node_named(nodes, "h0002 HCA-1").port(1)->counters->fec = FecLayout::RsFec;
    rig.swept = *Fabric::build(std::move(nodes));
    std::array<uint8_t, 192> d{};
    d[151] = 42;  // PortFECCorrectedSymbolCtr (byte 148, 32-bit): 42
    rig.fake_after->ext_speeds[host] = d;
    PmaRead r = rig.second();
    EXPECT_EQ(r.readings.at(host).fec, FecLayout::RsFec);
    EXPECT_EQ(r.readings.at(host).get(Counter::PortFECCorrectedSymbolCtr), 42u);
    EXPECT_EQ(r.readings.at(rig.ref("leaf02", 1)).fec, FecLayout::None);
    EXPECT_EQ(std::count(rig.fake_after->pma_asked.begin(), rig.fake_after->pma_asked.end(),
                         mad::kAttrPortExtendedSpeedsCounters),
              1);  // the one port, no probing
    const auto samples = pma_samples(r);
    const auto s = std::find_if(samples.begin(), samples.end(), [&](const CounterSample& c) {
        return c.device == format_guid(host.node);
    });
    ASSERT_NE(s, samples.end());
    EXPECT_EQ(s->values.at("PortFECCorrectedSymbolCtr"), 42u);
}

TEST(PmaCounterSource, SamplesCarryTheIbaNamesAndChangeByTheOneRule) {
    Rig rig;
    PmaSourceOptions o;
    PmaCounterSource first_source(*rig.fake_before, rig.clock, rig.swept, o);
    std::vector<CounterSample> first = first_source.read();
    rig.clock.advance(10s);
    std::vector<CounterSample> second =
        PmaCounterSource(*rig.fake_after, rig.clock, rig.swept, o).read();
    ASSERT_EQ(first.size(), second.size());
    const std::string device = format_guid(rig.ref("leaf02", 1).node);
    auto of = [&](const std::vector<CounterSample>& v) {
        return std::find_if(v.begin(), v.end(), [&](const CounterSample& s) {
            return s.device == device && s.port == 1;
        });
    };
    ASSERT_NE(of(first), first.end());
    ASSERT_NE(of(second), second.end());
    EXPECT_EQ(of(second)->values.at("PortXmitWait"), 1100u);
    auto changes = sample_changes(*of(first), *of(second));
    EXPECT_EQ(changes.at("PortXmitWait").delta, 1000u);
    EXPECT_NEAR(changes.at("PortXmitWait").per_second, 100.0, 0.01);
    EXPECT_EQ(changes.at("PortXmitData").delta, 0u);
}

TEST(PmaCounterSource, APortThatDoesNotAnswerIsListedAndAFindingNeverDropped) {
    Rig rig;
    // spine02 is on no route of the min-hop tables but its own.
    const Node* spine02 = rig.swept.find("spine02");
    rig.fake_after->behaviour(spine02->guid).silent = true;
    PmaRead r = rig.second();
    size_t spine02_ports = 0;
    for (const Port& p : spine02->ports) {
        if (!p.counters || p.num == 0) continue;
        ++spine02_ports;
        EXPECT_NE(std::find(r.failed.begin(), r.failed.end(), PortRef{spine02->guid, p.num}),
                  r.failed.end());
        EXPECT_FALSE(r.readings.count(PortRef{spine02->guid, p.num}));
    }
    ASSERT_GT(spine02_ports, 0u);
    EXPECT_EQ(r.failed.size(), spine02_ports);
    CongestionResult c = analyse_congestion(rig.swept, readings_of(rig.swept), r.readings,
                                            !r.interrupted, default_thresholds());
    EXPECT_EQ(c.ports_unanswered, spine02_ports);
    ASSERT_FALSE(c.findings.empty());
    EXPECT_EQ(c.findings.back().kind, "counters_unanswered");
    EXPECT_TRUE(c.failed());
}

TEST(PmaCounterSource, PerVlWaitWhereThePortAnswersItNotSupportedElsewhere) {
    Rig rig;
    VlXmitWait lanes{};
    lanes[0] = 7;
    lanes[3] = 40000;
    rig.fake_after->vl_xmit_wait[rig.ref("leaf02", 1)] = lanes;
    PmaRead r = rig.second(true);
    EXPECT_TRUE(r.failed.empty());  // refusing the per-VL counters is no failure
    ASSERT_EQ(r.vl_xmit_wait.size(), 1u);
    EXPECT_EQ(r.vl_xmit_wait.at(rig.ref("leaf02", 1)), lanes);
    EXPECT_EQ(r.per_vl_unsupported.size(), r.readings.size() - 1);
    auto samples = pma_samples(r);
    auto hot = std::find_if(samples.begin(), samples.end(), [&](const CounterSample& s) {
        return s.device == format_guid(rig.ref("leaf02", 1).node) && s.port == 1;
    });
    ASSERT_NE(hot, samples.end());
    EXPECT_EQ(hot->values.at("PortVLXmitWait3"), 40000u);
    // Without asking, nothing is sent for them and nothing is "not supported".
    PmaRead plain = rig.second(false);
    EXPECT_TRUE(plain.vl_xmit_wait.empty());
    EXPECT_TRUE(plain.per_vl_unsupported.empty());
}

TEST(PmaDecode, VlXmitWaitIsSixteenBigEndianCountersFromByteFour) {
    std::array<uint8_t, 192> d{};
    d[1] = 5;     // PortSelect
    d[4] = 0x01;  // VL0 = 0x0102, big-endian
    d[5] = 0x02;
    d[34] = 0xFF;  // VL15 = 65535
    d[35] = 0xFF;
    VlXmitWait w = decode_vl_xmit_wait(PmaData(d));
    EXPECT_EQ(w[0], 0x0102u);
    EXPECT_EQ(w[1], 0u);
    EXPECT_EQ(w[15], 65535u);
}

TEST(Congestion, PerVlLanesOnTheWaitingPortsAndNotSupportedPortsInTheReport) {
    Rig rig;
    CounterReadings before = readings_of(rig.swept);
    PmaRead r = rig.second(true);
    VlWaitReadings vl;
    const PortRef hot = rig.ref("leaf02", 1);
    const PortRef other = rig.ref("leaf01", 1);
    vl.before[hot] = VlXmitWait{};
    VlXmitWait lanes{};
    lanes[2] = 900;
    vl.after[hot] = lanes;
    vl.not_supported = {other, other};  // both readings said so: counted once
    CounterReadings after = r.readings;
    after[other].set(Counter::PortXmitWait, 200);  // leaf01[1] waited too
    auto c = analyse_congestion(rig.swept, before, after, true, default_thresholds(), &vl);
    EXPECT_EQ(c.ports_per_vl, 1u);
    ASSERT_EQ(c.vl_waits.at(hot).size(), 1u);
    EXPECT_EQ(c.vl_waits.at(hot)[0].vl, 2);
    EXPECT_EQ(c.vl_waits.at(hot)[0].rise.delta, 900u);
    CongestionMeta m{"2026-12-01T13:00:00Z", "fake0 port 1", 1, false, XmitWaitLimit{}};
    nlohmann::json doc = congestion_to_json(rig.swept, c, m);
    for (const auto& e : testing::schema_errors(doc, "congestion.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["per_vl"]["ports_read"], 1);
    EXPECT_EQ(doc["per_vl"]["ports_not_supported"], 1);
    ASSERT_EQ(doc["hottest"].size(), 2u) << doc["hottest"].dump(1);
    EXPECT_EQ(doc["hottest"][0]["node"], "leaf02");
    EXPECT_EQ(doc["hottest"][0]["vl_xmit_wait"][0]["vl"], 2);
    EXPECT_EQ(doc["hottest"][0]["vl_xmit_wait"][0]["delta_ticks"], 900);
    EXPECT_EQ(doc["hottest"][1]["node"], "leaf01");
    EXPECT_EQ(doc["hottest"][1]["per_vl_supported"], false);
    std::string text = render_congestion_summary(rig.swept, c, m, TextStyle{});
    EXPECT_NE(text.find("[VL2 +900]"), std::string::npos) << text;
    EXPECT_NE(text.find("Per-VL PortXmitWait not supported on 1 of 2 ports"), std::string::npos)
        << text;
    // Not read at all: no per-VL keys.
    nlohmann::json plain = congestion_to_json(
        rig.swept, analyse_congestion(rig.swept, before, after, true, default_thresholds()), m);
    EXPECT_FALSE(plain.contains("per_vl"));
    EXPECT_FALSE(plain["hottest"][0].contains("vl_xmit_wait"));
}

}  // namespace
}  // namespace fabscope

namespace fabscope {
namespace {

TEST(PmaCounterSource, ASwitchThatIgnoresPerVlGetsStillAnswersEveryPortsCounters) {
    // No answer at all to the optional attribute must not make the switch's
    // LID dead: its other ports' PortCounters still count.
    Rig rig;
    const Node* leaf01 = rig.swept.find("leaf01");
    rig.fake_after->vl_xmit_wait_ignored.insert(leaf01->guid);
    PmaRead r = rig.second(true);
    EXPECT_TRUE(r.failed.empty()) << r.failed.size() << " ports failed";
    for (const Port& p : leaf01->ports) {
        if (!p.counters || p.num == 0) continue;
        const PortRef ref{leaf01->guid, p.num};
        EXPECT_TRUE(r.readings.count(ref)) << int(p.num);
        EXPECT_NE(std::find(r.per_vl_unsupported.begin(), r.per_vl_unsupported.end(), ref),
                  r.per_vl_unsupported.end())
            << int(p.num);
    }
}

}  // namespace
}  // namespace fabscope
