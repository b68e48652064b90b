// The sweep and the MAD engine against a fake fabric: loops, max hops,
// silent, dropping, late, duplicating and garbage-answering nodes.

#include "discover/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "check/link_checks.h"
#include "fake_fabric.h"
#include "model/route.h"
#include "model/tiers.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FakeFabric;

struct Rig {
    std::vector<Node> nodes;
    Fabric fabric;
    FakeClock clock;
    std::unique_ptr<FakeFabric> fake;
    LocalPort local;

    explicit Rig(std::vector<Node> n) : nodes(std::move(n)) {
        testing::program_min_hop_routes(nodes);
        fabric = *Fabric::build(nodes);
        const Node& h = nodes.front();
        fake = std::make_unique<FakeFabric>(fabric, h.guid, h.ports.front().num, clock);
        local.ca = "fake0";
        local.port = h.ports.front().num;
    }
    Guid guid(const std::string& name) const { return fabric.find(name)->guid; }
    Result<SweepOutput> sweep(SweepOptions o = {}) { return sweep_fabric(*fake, clock, local, o); }
};

std::set<std::pair<PortRef, PortRef>> links_of(const Fabric& f) {
    std::set<std::pair<PortRef, PortRef>> s;
    for (const Link& l : f.links()) s.insert({l.a, l.b});
    return s;
}

std::vector<std::string> kinds(const std::vector<Finding>& fs) {
    std::vector<std::string> k;
    for (const auto& f : fs) k.push_back(f.kind);
    std::sort(k.begin(), k.end());
    return k;
}

TEST(Sweep, ErrorDetailsAreAskedOnlyWhereTheirTotalIsAboveZero) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    PortCounters rcv;
    rcv.set(Counter::PortRcvErrors, 40);
    rcv.set(Counter::PortLocalPhysicalErrors, 31);
    rcv.set(Counter::PortLoopingErrors, 9);
    testing::node_named(nodes, "leaf01").port(3)->counters = rcv;
    PortCounters xmit;
    xmit.set(Counter::PortXmitDiscards, 7);
    xmit.set(Counter::PortNeighborMTUDiscards, 7);
    testing::node_named(nodes, "spine02").port(2)->counters = xmit;
    PortCounters refused = xmit;  // a PMA that does not know the attribute
    testing::node_named(nodes, "leaf02").port(3)->counters = refused;
    Rig rig(nodes);
    rig.fake->details_refused.insert(rig.guid("leaf02"));
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(out->problems.empty()) << out->problems.front().summary;
    const Fabric& got = out->snapshot.fabric;
    const PortCounters& a = *got.node(rig.guid("leaf01"))->port(3)->counters;
    EXPECT_EQ(a.get(Counter::PortLocalPhysicalErrors), 31u);
    EXPECT_EQ(a.get(Counter::PortLoopingErrors), 9u);
    EXPECT_EQ(a.get(Counter::PortMalformedPktErrors), 0u);
    EXPECT_FALSE(a.get(Counter::PortNeighborMTUDiscards));  // PortXmitDiscards is 0: not asked
    const PortCounters& b = *got.node(rig.guid("spine02"))->port(2)->counters;
    EXPECT_EQ(b.get(Counter::PortNeighborMTUDiscards), 7u);
    EXPECT_FALSE(b.get(Counter::PortLocalPhysicalErrors));
    const PortCounters& c = *got.node(rig.guid("leaf02"))->port(3)->counters;
    EXPECT_EQ(c.get(Counter::PortXmitDiscards), 7u);  // the refusal costs nothing else
    EXPECT_FALSE(c.get(Counter::PortNeighborMTUDiscards));
    // Exactly three detail Gets: two answered, one refused; none for clean ports.
    const auto asked = [&](uint16_t attr) {
        return std::count(rig.fake->pma_asked.begin(), rig.fake->pma_asked.end(), attr);
    };
    EXPECT_EQ(asked(mad::kAttrPortRcvErrorDetails), 1);
    EXPECT_EQ(asked(mad::kAttrPortXmitDiscardDetails), 2);
    EXPECT_EQ(asked(mad::kAttrPortCounters), asked(mad::kAttrPortCountersExtended));
}

TEST(Sweep, TheTickIsAskedOncePerPmaModelNeverOfAnSmsNodeAndARefusalCostsNoTime) {
    // Three PMA models: the hosts, the switches, and spine02 (another revision).
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    for (Node& n : nodes) n.device_id = n.type == NodeType::Switch ? 0xD2F0 : 0x101B;
    testing::node_named(nodes, "spine02").revision = 0xA1;
    // The SM runs on h0001, the local host and the first node swept: its
    // model's tick is asked of another host.
    testing::node_named(nodes, "h0001 HCA-1").ports.front().capability_mask |= kCapIsSM;
    Rig rig(nodes);
    for (const Node& n : nodes) {
        if (n.type == NodeType::Switch) rig.fake->samples_tick[n.guid] = 3;
        if (n.type == NodeType::CA)
            rig.fake->samples_tick[n.guid] = n.description[4] == '1' ? 7 : 0;
    }
    rig.fake->samples_tick.erase(rig.guid("spine02"));
    rig.fake->pma_returned.insert(rig.guid("spine02"));  // as ibsim: back at once, status 110
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(out->problems.empty()) << out->problems.front().summary;
    const Fabric& got = out->snapshot.fabric;
    for (const char* sw : {"leaf01", "leaf02", "spine01"})
        EXPECT_EQ(got.find(sw)->pma_tick, 3) << sw;
    EXPECT_FALSE(got.find("spine02")->pma_tick);
    for (const char* h : {"h0001 HCA-1", "h0002 HCA-1", "h0003 HCA-1", "h0004 HCA-1"})
        EXPECT_EQ(got.find(h)->pma_tick, 0) << h;  // h0001's own 7 was never asked
    const auto asked = std::count(rig.fake->pma_asked.begin(), rig.fake->pma_asked.end(),
                                  mad::kAttrPortSamplesControl);
    EXPECT_EQ(asked, 5);  // one a model; spine02 returned all three attempts
    ASSERT_TRUE(out->snapshot.source.mad_stats);
    EXPECT_EQ(out->snapshot.source.mad_stats->timeouts, 0u);
    // spine02's: its tick and its model's PortExtendedSpeedsCounters probe.
    EXPECT_EQ(out->snapshot.source.mad_stats->optional_unanswered, 2u);
    // Nothing waited for a deadline: as long as a sweep whose PMAs refuse it.
    Rig plain(nodes);
    ASSERT_TRUE(plain.sweep());
    EXPECT_LE(rig.clock.now(), plain.clock.now() + std::chrono::milliseconds(5));
}

/// A PortExtendedSpeedsCounters data block: SyncHeaderErrorCounter `sync`,
/// and 32-bit values at bytes 44 (lane 0's corrected blocks, or symbols) and
/// 148 (RS-FEC: the port's corrected symbols). Synthetic, after the IBA's layout.
std::array<uint8_t, 192> ext_speeds_block(uint16_t sync, uint32_t lane0, uint32_t symbols) {
    std::array<uint8_t, 192> d{};
    d[16] = static_cast<uint8_t>(sync >> 8U);
    d[17] = static_cast<uint8_t>(sync & 0xFFU);
    for (size_t i = 0; i < 4; ++i) {
        d[44 + i] = static_cast<uint8_t>(lane0 >> (24U - (8U * i)));
        d[148 + i] = static_cast<uint8_t>(symbols >> (24U - (8U * i)));
    }
    return d;
}

TEST(Sweep, ExtendedSpeedsCountersAreProbedOnceAModelAndReadInTheLayoutPerfqueryPicks) {
    // Two PMA models: the switches (which refuse 0x1F) and the hosts (which
    // answer it). The SM runs on h0001, so the hosts' probe goes to h0002;
    // once it answers, h0001 is read too.
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    for (Node& n : nodes) n.device_id = n.type == NodeType::Switch ? 0xD2F0 : 0x101B;
    testing::node_named(nodes, "h0001 HCA-1").ports.front().capability_mask |= kCapIsSM;
    Rig rig(nodes);
    for (const Node& n : nodes) {
        if (n.type != NodeType::CA) continue;
        rig.fake->ext_speeds[PortRef{n.guid, 1}] = ext_speeds_block(n.guid & 0xFFU, 500, 70000);
        rig.fake->pma_class_cap[n.guid] = 0x5300;  // IsPMRSFECCountersSupported
    }
    // FECModeActive: RS-FEC2, RS-FEC, Fire-code; h0004 has no PortInfoExtended.
    rig.fake->fec_mode_active[rig.guid("h0001 HCA-1")] = 4;
    rig.fake->fec_mode_active[rig.guid("h0002 HCA-1")] = 2;
    rig.fake->fec_mode_active[rig.guid("h0003 HCA-1")] = 1;
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(out->problems.empty()) << out->problems.front().summary;
    const Fabric& got = out->snapshot.fabric;
    const auto counters = [&](const char* node) { return *got.find(node)->port(1)->counters; };
    for (const char* h : {"h0001 HCA-1", "h0002 HCA-1"}) {
        EXPECT_EQ(counters(h).fec, FecLayout::RsFec) << h;
        EXPECT_EQ(counters(h).get(Counter::PortFECCorrectedSymbolCtr), 70000u) << h;
    }
    for (const char* h : {"h0003 HCA-1", "h0004 HCA-1"}) {
        EXPECT_EQ(counters(h).fec, FecLayout::Original) << h;
        EXPECT_EQ(counters(h).get(Counter::PortFECCorrectableBlockCtr), 500u) << h;
        EXPECT_FALSE(counters(h).get(Counter::PortFECCorrectedSymbolCtr)) << h;
    }
    EXPECT_EQ(counters("h0003 HCA-1").get(Counter::SyncHeaderErrorCounter),
              rig.guid("h0003 HCA-1") & 0xFFU);
    EXPECT_EQ(counters("leaf01").fec, FecLayout::None);
    EXPECT_FALSE(counters("leaf01").get(Counter::SyncHeaderErrorCounter));
    const auto asked = [](const std::vector<uint16_t>& v, uint16_t attr) {
        return std::count(v.begin(), v.end(), attr);
    };
    // One probe for the switches' model (refused), every host port once.
    EXPECT_EQ(asked(rig.fake->pma_asked, mad::kAttrPortExtendedSpeedsCounters), 1 + 4);
    EXPECT_EQ(asked(rig.fake->pma_asked, mad::kAttrClassPortInfo), 1);
    EXPECT_EQ(asked(rig.fake->smp_asked, mad::kAttrPortInfoExtended), 3);
    EXPECT_EQ(out->snapshot.source.mad_stats->timeouts, 0u);
}

TEST(Sweep, ALayoutNotKnownIsNotGuessedAndOneWithoutRsFecAsksNoFecMode) {
    auto nodes = testing::leaf_spine_nodes({.spines = 1, .leaves = 2, .hosts_per_leaf = 2});
    for (Node& n : nodes) n.device_id = n.type == NodeType::Switch ? 0xD2F0 : 0x101B;
    // The hosts answer 0x1F and have PortInfoExtended, but their PMA's
    // ClassPortInfo goes unanswered (refused): which layout is unknown.
    Rig unknown(nodes);
    for (const Node& n : nodes) {
        if (n.type != NodeType::CA) continue;
        unknown.fake->ext_speeds[PortRef{n.guid, 1}] = ext_speeds_block(3, 500, 70000);
        unknown.fake->fec_mode_active[n.guid] = 2;
    }
    auto out = unknown.sweep();
    ASSERT_TRUE(out) << out.error().message;
    const Node* h = out->snapshot.fabric.find("h0002 HCA-1");
    EXPECT_EQ(h->port(1)->counters->fec, FecLayout::None);
    EXPECT_FALSE(h->port(1)->counters->get(Counter::PortFECUncorrectableBlockCtr));
    // ClassPortInfo answers without IsPMRSFECCountersSupported: the original
    // layout, and no PortInfoExtended asked (as perfquery).
    Rig fire_code(nodes);
    for (const Node& n : nodes) {
        if (n.type != NodeType::CA) continue;
        fire_code.fake->ext_speeds[PortRef{n.guid, 1}] = ext_speeds_block(3, 500, 70000);
        fire_code.fake->fec_mode_active[n.guid] = 1;
        fire_code.fake->pma_class_cap[n.guid] = 0x1300;
    }
    out = fire_code.sweep();
    ASSERT_TRUE(out) << out.error().message;
    h = out->snapshot.fabric.find("h0002 HCA-1");
    EXPECT_EQ(h->port(1)->counters->fec, FecLayout::Original);
    EXPECT_EQ(h->port(1)->counters->get(Counter::PortFECCorrectableBlockCtr), 500u);
    EXPECT_EQ(std::count(fire_code.fake->smp_asked.begin(), fire_code.fake->smp_asked.end(),
                         mad::kAttrPortInfoExtended),
              0);
}

TEST(Sweep, AFabricWithoutExtendedSpeedsCountersCostsOneReturnedGetAModel) {
    // As in ibsim: every PMA returns what it lacks at once (status 110).
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    for (Node& n : nodes) n.device_id = n.type == NodeType::Switch ? 0xD2F0 : 0x101B;
    Rig rig(nodes);
    for (const Node& n : nodes) rig.fake->pma_returned.insert(n.guid);
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    for (const Node& n : out->snapshot.fabric.nodes()) {
        for (const Port& p : n.ports) {
            if (p.counters) {
                EXPECT_EQ(p.counters->fec, FecLayout::None) << n.description;
            }
        }
    }
    const auto fec_asked = std::count(rig.fake->pma_asked.begin(), rig.fake->pma_asked.end(),
                                      mad::kAttrPortExtendedSpeedsCounters);
    EXPECT_EQ(fec_asked, 2 * 3);  // two models, three attempts each
    EXPECT_EQ(
        std::count(rig.fake->pma_asked.begin(), rig.fake->pma_asked.end(), mad::kAttrClassPortInfo),
        0);
    EXPECT_EQ(out->snapshot.source.mad_stats->timeouts, 0u);
    Rig plain(nodes);
    ASSERT_TRUE(plain.sweep());
    EXPECT_LE(rig.clock.now(), plain.clock.now() + std::chrono::milliseconds(5));
}

TEST(Sweep, LeafSpineEqualsTheFabric) {
    auto nodes = testing::leaf_spine_nodes(
        {.spines = 3, .leaves = 4, .hosts_per_leaf = 3, .links_per_pair = 2});
    testing::set_link_width(nodes, "leaf02", 4, Width::X1, WidthSet{Width::X1});
    testing::unplug(nodes, "leaf03", 6);
    PortCounters pc;
    pc.set(Counter::SymbolErrorCounter, 77);
    pc.set(Counter::PortXmitData,
           1ULL << 40);  // beyond 32 bits: must come from the extended counters
    testing::node_named(nodes, "leaf04").port(5)->counters = pc;
    Rig rig(nodes);
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    const Fabric& got = out->snapshot.fabric;
    EXPECT_EQ(got.nodes().size(), rig.fabric.nodes().size());
    EXPECT_EQ(links_of(got), links_of(rig.fabric));
    EXPECT_TRUE(out->problems.empty()) << out->problems.front().summary;
    for (const Node& want : rig.fabric.nodes()) {
        const Node* n = got.node(want.guid);
        ASSERT_NE(n, nullptr) << want.description;
        EXPECT_EQ(n->description, want.description);
        EXPECT_EQ(n->lft, want.lft) << want.description;
        for (const Port& wp : want.ports) {
            const Port* p = n->port(wp.num);
            ASSERT_NE(p, nullptr) << want.description << "[" << int(wp.num) << "]";
            EXPECT_EQ(p->phys_state, wp.phys_state);
            EXPECT_EQ(p->width_active, wp.width_active);
            EXPECT_EQ(p->speed_active, wp.speed_active);
            EXPECT_EQ(p->lid, wp.lid);
        }
    }
    const Port* counted = got.node(rig.guid("leaf04"))->port(5);
    ASSERT_TRUE(counted->counters);
    EXPECT_EQ(counted->counters->get(Counter::SymbolErrorCounter), 77u);
    EXPECT_EQ(counted->counters->get(Counter::PortXmitData), 1ULL << 40);
    EXPECT_TRUE(counted->counters->extended);
    // Counters of every active port, none of the down ones.
    EXPECT_FALSE(got.node(rig.guid("leaf03"))->port(6)->counters);
    const MadStats& st = *out->snapshot.source.mad_stats;
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.retries, 0u);
    EXPECT_GE(st.max_chain,
              9);  // host -> leaf -> spine -> leaf -> host, two MADs a hop, then counters
    EXPECT_LE(rig.fake->max_outstanding, SweepOptions{}.engine.window);
    EXPECT_EQ(rig.fake->non_get_methods, 0);  // read-only: Gets only
    // A cable is asked for from one end only: one NodeInfo a link, and the local node's.
    EXPECT_EQ(
        std::count(rig.fake->smp_asked.begin(), rig.fake->smp_asked.end(), mad::kAttrNodeInfo),
        static_cast<long>(got.links().size() + 1));
}

TEST(Sweep, LoopsAreWalkedOnce) {
    Rig rig(testing::switch_ring(7));
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->snapshot.fabric.nodes().size(), 14u);
    EXPECT_EQ(links_of(out->snapshot.fabric), links_of(rig.fabric));
    EXPECT_TRUE(out->problems.empty());
    // Every switch is asked for its NodeInfo once per link into it, not once per path.
    for (int i = 0; i < 7; ++i) EXPECT_LE(rig.fake->requests_to[0x6000 + static_cast<Guid>(i)], 40);
}

TEST(Sweep, StopsAtMaxHops) {
    Rig rig(testing::switch_ring(12));
    SweepOptions o;
    o.max_hops = 4;
    auto out = rig.sweep(o);
    ASSERT_TRUE(out);
    EXPECT_LT(out->snapshot.fabric.nodes().size(), 24u);
    auto k = kinds(out->problems);
    EXPECT_TRUE(std::all_of(k.begin(), k.end(), [](auto& s) { return s == "max_hops"; }));
    EXPECT_FALSE(k.empty());
}

TEST(Sweep, ASilentSwitchCostsOneTimeoutNotOnePerNodeBehindIt) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 6, .hosts_per_leaf = 4}));
    rig.fake->behaviour(rig.guid("spine02")).silent = true;
    rig.fake->down_port_answers = false;  // like real switches: nothing comes back
    SweepOptions o;
    o.engine.timeout = 200ms;
    o.engine.retries = 2;
    auto out = rig.sweep(o);
    ASSERT_TRUE(out) << out.error().message;
    const Fabric& f = out->snapshot.fabric;
    EXPECT_EQ(f.nodes().size(), rig.fabric.nodes().size() - 1);  // all but spine02
    EXPECT_EQ(f.node(rig.guid("spine02")), nullptr);
    // Every leaf's link to spine02 is named as unreachable, and nothing else failed.
    auto k = kinds(out->problems);
    EXPECT_EQ(std::count(k.begin(), k.end(), "unreachable"), 6);
    EXPECT_EQ(k.size(), 6u);
    // One deadline chain (200 + 400 + 800 ms) per level of the sweep, in parallel:
    // not one per leaf, let alone one per port behind the spine.
    auto elapsed = rig.clock.now() - Clock::time_point{};
    EXPECT_LT(elapsed, 3s) << std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()
                           << " ms";
    EXPECT_EQ(out->snapshot.source.mad_stats->timeouts, 6u);
    // Counters and routes of everything else are complete.
    EXPECT_TRUE(f.node(rig.guid("leaf03"))->port(1)->counters);
    EXPECT_FALSE(f.node(rig.guid("spine01"))->lft.empty());
}

TEST(Sweep, DeadNodeBlocksWhatIsBehindIt) {
    // Silent leaf01 (the first hop from the local host): nothing behind it is
    // even tried, so the sweep ends after one deadline chain.
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}));
    rig.fake->behaviour(rig.guid("leaf01")).silent = true;
    auto out = rig.sweep();
    ASSERT_TRUE(out);
    EXPECT_EQ(out->snapshot.fabric.nodes().size(), 1u);  // only the local host
    EXPECT_EQ(kinds(out->problems), std::vector<std::string>{"unreachable"});
    EXPECT_LE(rig.clock.now() - Clock::time_point{}, 1500ms);
}

TEST(Sweep, DroppedMadsAreRetried) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}));
    for (const char* n : {"spine01", "leaf03", "h0009 HCA-1"})
        rig.fake->behaviour(rig.guid(n)).drop_rate = 0.4;
    SweepOptions o;
    o.engine.retries = 8;
    auto out = rig.sweep(o);
    ASSERT_TRUE(out);
    EXPECT_EQ(links_of(out->snapshot.fabric), links_of(rig.fabric));
    EXPECT_TRUE(out->problems.empty()) << out->problems.front().summary;
    EXPECT_GT(out->snapshot.source.mad_stats->dropped, 0u);
    EXPECT_GT(out->snapshot.source.mad_stats->retries, 0u);
}

TEST(Sweep, DroppingEverythingOnAPathMakesItUnreachableQuickly) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}));
    rig.fake->behaviour(rig.guid("leaf04")).drop_rate = 1.0;  // like ibsim's Error 100
    auto out = rig.sweep();
    ASSERT_TRUE(out);
    EXPECT_EQ(out->snapshot.fabric.node(rig.guid("leaf04")), nullptr);
    // leaf04 is tried from both spines; its four hosts are never reached.
    auto k = kinds(out->problems);
    EXPECT_EQ(k, (std::vector<std::string>{"unreachable", "unreachable"}));
    EXPECT_EQ(out->snapshot.fabric.nodes().size(), rig.fabric.nodes().size() - 5);
    EXPECT_LT(rig.clock.now() - Clock::time_point{}, 100ms);  // 110s come back at once: no waiting
}

TEST(Sweep, LateAnswersAreAcceptedAndTheirRetriesIgnored) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2}));
    rig.fake->behaviour(rig.guid("spine02")).delay = 300ms;  // after the 200 ms deadline
    auto out = rig.sweep();
    ASSERT_TRUE(out);
    EXPECT_EQ(links_of(out->snapshot.fabric), links_of(rig.fabric));
    EXPECT_TRUE(out->problems.empty());
    const MadStats& st = *out->snapshot.source.mad_stats;
    EXPECT_GT(st.retries, 0u);
    EXPECT_GT(st.stray, 0u);  // the answers to the retries came after the request was done
    EXPECT_EQ(st.timeouts, 0u);
}

TEST(Sweep, DuplicatedAnswersAreCountedOnce) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2}));
    for (const Node& n : rig.fabric.nodes()) rig.fake->behaviour(n.guid).duplicate = true;
    auto out = rig.sweep();
    ASSERT_TRUE(out);
    EXPECT_EQ(links_of(out->snapshot.fabric), links_of(rig.fabric));
    // Every second copy is a stray, except those still on the wire when the sweep ended.
    const MadStats& st = *out->snapshot.source.mad_stats;
    EXPECT_EQ(st.stray + rig.fake->undelivered(), st.answered);
    EXPECT_EQ(st.retries, 0u);
}

TEST(Sweep, GarbageIsNeverTrusted) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 3, .hosts_per_leaf = 2}));
    rig.fake->behaviour(rig.guid("leaf02")).garbage = true;
    rig.fake->behaviour(rig.guid("spine02")).wrong_attribute = true;
    auto out = rig.sweep();
    ASSERT_TRUE(out);
    const Fabric& f = out->snapshot.fabric;
    EXPECT_EQ(f.node(rig.guid("leaf02")), nullptr);
    EXPECT_EQ(f.node(rig.guid("spine02")), nullptr);
    for (const Finding& x : out->problems) EXPECT_EQ(x.kind, "unreachable") << x.summary;
    EXPECT_GT(out->snapshot.source.mad_stats->garbage + out->snapshot.source.mad_stats->stray, 0u);
    // What is left is consistent and complete.
    EXPECT_TRUE(f.node(rig.guid("leaf03")));
    EXPECT_EQ(f.nodes().size(), rig.fabric.nodes().size() - 4);  // leaf02, its hosts, spine02
}

TEST(Sweep, UnsupportedAttributesAreQueryFailuresNotHangs) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2}));
    rig.fake->behaviour(rig.guid("h0004 HCA-1")).status = 0x001C;
    auto out = rig.sweep();
    ASSERT_TRUE(out);
    // NodeInfo itself failed, so the host is unreachable; status errors are not retried.
    EXPECT_EQ(kinds(out->problems), std::vector<std::string>{"unreachable"});
    EXPECT_NE(out->problems[0].summary.find("invalid attribute"), std::string::npos)
        << out->problems[0].summary;
    EXPECT_EQ(out->snapshot.source.mad_stats->retries, 0u);
}

TEST(Sweep, TheLocalNodeMustAnswer) {
    Rig rig(testing::leaf_spine_nodes({.spines = 1, .leaves = 1, .hosts_per_leaf = 2}));
    rig.fake->behaviour(rig.nodes.front().guid).silent = true;
    auto out = rig.sweep();
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, 3);
    EXPECT_NE(out.error().message.find("local node did not answer"), std::string::npos);
}

TEST(Sweep, WindowBoundsWhatIsInFlight) {
    Rig rig(testing::leaf_spine_nodes({.spines = 4, .leaves = 8, .hosts_per_leaf = 8}));
    SweepOptions o;
    o.engine.window = 5;
    auto out = rig.sweep(o);
    ASSERT_TRUE(out);
    EXPECT_LE(rig.fake->max_outstanding, 5u);
    EXPECT_EQ(links_of(out->snapshot.fabric), links_of(rig.fabric));
}

std::vector<std::string> check_kinds(const Fabric& f) {
    return kinds(check_links(f, classify_tiers(f)));
}

TEST(Sweep, MadsLostAtAPortAreSaidToBeLostNotAMissingLink) {
    // Like ibsim's `Error "leaf02"[5] 100`: every MAD across leaf02's uplink
    // to spine01 is dropped, both ways, directed or LID-routed.
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}));
    rig.fake->set_port_drop_rate(PortRef{rig.guid("leaf02"), 5}, 1.0);
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    const Fabric& f = out->snapshot.fabric;
    EXPECT_EQ(f.nodes().size(), rig.fabric.nodes().size());  // leaf02 is reached through spine02
    EXPECT_EQ(f.links().size(), rig.fabric.links().size() - 1);
    int unreachable = 0;
    for (const Finding& x : out->problems) {
        if (x.kind == "unreachable") {
            ++unreachable;
            EXPECT_EQ(x.evidence["cause"], "lost") << x.summary;
            EXPECT_NE(x.summary.find("were lost on the way"), std::string::npos) << x.summary;
            EXPECT_EQ(x.summary.find("nothing answered"), std::string::npos) << x.summary;
        } else {
            // LID routes (PMA) through the lossy port fail; the finding says why.
            EXPECT_EQ(x.kind, "query_failed") << x.summary;
            EXPECT_NE(x.summary.find("LID-routed path to it is losing MADs"), std::string::npos)
                << x.summary;
        }
    }
    EXPECT_EQ(unreachable, 2);  // from leaf02 up, and from spine01 down
    // The forwarding table is read by directed route where the LID route loses MADs.
    EXPECT_EQ(f.node(rig.guid("leaf02"))->lft, rig.fabric.node(rig.guid("leaf02"))->lft);
    // The cable is there (both ports up): no "joined by 0 links".
    EXPECT_EQ(check_kinds(f), std::vector<std::string>{});
}

TEST(Sweep, ARouteThroughASilentSpineSaysTheSpineDidNotAnswer) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}));
    rig.fake->behaviour(rig.guid("spine01")).silent = true;  // the routes' first choice
    auto out = rig.sweep();
    ASSERT_TRUE(out) << out.error().message;
    const Fabric& f = out->snapshot.fabric;
    for (const Finding& x : out->problems) {
        if (x.kind == "unreachable") {
            EXPECT_EQ(x.evidence["cause"], "silent") << x.summary;
        } else {  // PMA Gets are LID-routed, through the silent spine
            EXPECT_EQ(x.kind, "query_failed") << x.summary;
        }
    }
    auto route = trace_route(f, *f.find("h0001 HCA-1"), f.find("h0013 HCA-1")->lid());
    ASSERT_FALSE(route);
    EXPECT_NE(route.error().message.find("did not answer the sweep"), std::string::npos)
        << route.error().message;
    EXPECT_EQ(route.error().message.find("has no link"), std::string::npos);
    EXPECT_EQ(check_kinds(f), std::vector<std::string>{});
}

TEST(Sweep, AStopKeepsWhatWasReadAndMarksTheSnapshotIncomplete) {
    Rig rig(testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}));
    rig.fake->behaviour(rig.guid("spine02")).silent = true;  // in flight when the stop comes
    StopToken stop;
    rig.fake->on_send = [&](size_t sent) {
        if (sent == 40) stop.request_stop(2);
    };
    SweepOptions o;
    o.engine.stop = &stop;
    o.engine.timeout = 200ms;
    o.engine.retries = 5;
    auto out = rig.sweep(o);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(out->interrupted);
    const SnapshotSource& src = out->snapshot.source;
    EXPECT_FALSE(src.complete);
    EXPECT_TRUE(src.interrupted);
    EXPECT_EQ(src.mad_stats->sent, 40u);  // nothing new after the stop, no retries
    const size_t found = out->snapshot.fabric.nodes().size();
    EXPECT_GT(found, 0u);
    EXPECT_LT(found, rig.fabric.nodes().size() - 1);
    // What was not read because of the stop is no finding about the fabric.
    for (const Finding& x : out->problems) EXPECT_NE(x.kind, "query_failed") << x.summary;
    // In flight work ended within its first deadline: no retry chains.
    EXPECT_LE(rig.clock.now() - Clock::time_point{}, 250ms);
    // The snapshot says so, and reads back the same.
    nlohmann::json j = snapshot_to_json(out->snapshot);
    EXPECT_EQ(j["source"]["complete"], false);
    EXPECT_EQ(j["source"]["interrupted"], true);
    auto back = snapshot_from_json(j);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_FALSE(back->source.complete);
    EXPECT_TRUE(back->source.interrupted);
}

TEST(Sweep, AStopBeforeTheLocalNodeAnswersIsExit130) {
    Rig rig(testing::leaf_spine_nodes({.spines = 1, .leaves = 1, .hosts_per_leaf = 2}));
    StopToken stop;
    stop.request_stop();
    SweepOptions o;
    o.engine.stop = &stop;
    auto out = rig.sweep(o);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, 130);
    EXPECT_EQ(rig.fake->requests_to.size(), 0u);
}

}  // namespace
}  // namespace fabscope
