// `mesh run` on InfiniBand (mesh/ib, mesh/switch_counters), in the
// threads of mesh_world.h: every rank's device has its host's LID in a
// leaf-spine snapshot with D-mod-K forwarding tables, and a flow is slow when
// its route there (from the sender's LID to the LID it sends to, the pair's
// LMC path bits included) crosses the one shaped lane. Rank 0 plans from the
// tables, no rank traces, and the switch ports' counters come from a reader
// that stands for the umad PMA (which is tested on ibsim by congestion).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "mesh/paths_ib.h"
#include "mesh/plan.h"
#include "mesh/report.h"
#include "mesh_world.h"
#include "model/paths.h"
#include "net/channel.h"
#include "ranks/rank.h"
#include "schema_check.h"
#include "test_fabrics.h"

namespace fabscope::perf {
namespace {

using mesh_test::World;

/// The lane from `from` to `to` (both switches, one cable between them).
Lane lane_between(const Fabric& f, const std::string& from, const std::string& to) {
    for (size_t i = 0; i < f.links().size(); ++i) {
        const Link& l = f.links()[i];
        const Node* a = f.node(l.a.node);
        const Node* b = f.node(l.b.node);
        if (a->description == from && b->description == to) return lane_of(i, true);
        if (b->description == from && a->description == to) return lane_of(i, false);
    }
    ADD_FAILURE() << "no cable " << from << " - " << to;
    return 0;
}

/// A routed leaf-spine snapshot whose `slow` lane runs flows at a fifth of
/// the others' rate; the ranks are its hosts in order.
struct RoutedWorld {
    std::shared_ptr<const Fabric> fabric;
    std::vector<MeshEndpoint> hosts;
    Lane slow = 0;
    std::mutex mu;
    std::set<std::pair<uint16_t, uint16_t>> sent;  ///< (LID, destination LID) of every flow

    RoutedWorld(const testing::LeafSpineShape& shape, uint8_t lmc)
        : fabric(std::make_shared<const Fabric>(testing::routed_leaf_spine(shape, lmc))),
          hosts(endpoints_from_fabric(*fabric)),
          slow(lane_between(*fabric, "leaf01", "spine02")) {}

    const MeshEndpoint* host_of(uint16_t lid) const {
        for (const MeshEndpoint& e : hosts) {
            if (lid >= e.lid && lid < e.lid + (1U << e.lmc)) return &e;
        }
        return nullptr;
    }

    void wire(World& w) {
        w.size = static_cast<int>(hosts.size());
        for (const MeshEndpoint& e : hosts) {
            w.lids.push_back(e.lid);
            w.port_guids.push_back(fabric->port(PortRef{e.node, e.port})->guid);
        }
        w.options.pattern = "cover";
        w.options.routes = fabric;
        w.options.routes_from = "fabric.json";
        w.steered = [this](int lid, int dlid, uint32_t) {
            {
                std::lock_guard lock(mu);
                sent.emplace(lid, dlid);
            }
            const MeshEndpoint* src = host_of(static_cast<uint16_t>(lid));
            const MeshEndpoint* dst = host_of(static_cast<uint16_t>(dlid));
            if (!src || !dst) return 1.0;
            FlowPath p = IbPathOracle(*fabric).path(*src, *dst, dlid - dst->lid);
            return std::count(p.lanes.begin(), p.lanes.end(), slow) > 0 ? 0.2 : 1.0;
        };
        // No rank traces on InfiniBand: a call is a failure.
        w.options.trace_sports = [](const std::string&, const std::string&,
                                    const std::vector<uint16_t>& sports) {
            EXPECT_TRUE(sports.empty()) << "traced on InfiniBand";
            return std::vector<FlowTrace>{};
        };
    }
};

/// Every switch-to-switch port reads the same but for what the shaped lane
/// counted over the run: symbol errors where it arrives, waits where it
/// leaves. Counts its readings.
struct SwitchMeter {
    std::shared_ptr<const Fabric> fabric;
    Lane lane = 0;
    int reads = 0;

    SwitchCounterRead operator()() {
        SwitchCounterRead r;
        const Link& l = fabric->links()[link_of_lane(lane)];
        const bool forward = (lane & 1U) == 0;
        const PortRef sender = forward ? l.a : l.b;
        const PortRef receiver = forward ? l.b : l.a;
        for (PortRef p : switch_link_ports(*fabric)) {
            PortCounters c;
            c.extended = true;
            c.set(Counter::SymbolErrorCounter, 2);
            c.set(Counter::PortRcvErrors, 0);
            c.set(Counter::PortXmitWait, 100);
            c.set(Counter::PortXmitData, 1000000ULL * static_cast<uint64_t>(reads + 1));
            if (reads > 0 && p == receiver) c.set(Counter::SymbolErrorCounter, 4002);
            if (reads > 0 && p == sender) c.set(Counter::PortXmitWait, 90100);
            r.ports[p] = c;
        }
        ++reads;
        return r;
    }
};

size_t measured_flows(const MeshRunData& d) {
    return static_cast<size_t>(std::count_if(d.flows.begin(), d.flows.end(),
                                             [](const MeshFlow& f) { return f.measured && f.ok; }));
}

size_t flows_with_path_bits(const MeshRunData& d) {
    return static_cast<size_t>(std::count_if(d.flows.begin(), d.flows.end(),
                                             [](const MeshFlow& f) { return f.path_bits != 0; }));
}

TEST(MeshRunIb, CoverIsPlannedFromTheForwardingTablesAndTheSwitchPortsAreItsEvidence) {
    World w;
    RoutedWorld fabric({.spines = 2, .leaves = 3, .hosts_per_leaf = 2}, 0);
    fabric.wire(w);
    auto meter = std::make_shared<SwitchMeter>(SwitchMeter{fabric.fabric, fabric.slow});
    w.options.read_switch_counters = [meter] { return (*meter)(); };
    w.run();
    const MeshRunData& d = w.data();
    ASSERT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "cover");
    EXPECT_TRUE(d.sports.empty());
    EXPECT_TRUE(d.traces.empty());
    ASSERT_GT(d.planned_rounds, 0u);
    EXPECT_LE(d.planned_rounds, 4u);
    EXPECT_EQ(meter->reads, 2);  // before the first round and after the last
    for (const MeshRank& r : d.ranks) EXPECT_EQ(r.lid, fabric.hosts.at(r.rank).lid);

    auto a = analyse_mesh(d, 0.6);
    EXPECT_TRUE(a.links.routed);
    EXPECT_EQ(a.links.coverage.lanes, 12u);  // 3 leaves x 2 spines, both ways
    EXPECT_EQ(a.links.coverage.crossed, 12u);
    EXPECT_EQ(a.links.traced, measured_flows(d));
    const std::string lane = describe_lane(*fabric.fabric, fabric.slow);
    ASSERT_FALSE(a.links.suspects.empty()) << mesh_run_summary(d, a).front();
    const LinkSuspect& s = a.links.suspects.front();
    EXPECT_EQ(s.name, lane);
    EXPECT_EQ(s.lanes, std::vector<Lane>{fabric.slow});
    EXPECT_TRUE(s.healthy.empty());
    // The sending port waited; the receiving one saw the damage.
    ASSERT_EQ(s.switch_ports.size(), 2u);
    EXPECT_TRUE(s.switch_ports[0].sends);
    EXPECT_EQ(s.switch_ports[0].changes.at("PortXmitWait"), 90000u);
    EXPECT_EQ(s.switch_ports[1].changes.at("SymbolErrorCounter"), 4000u);
    EXPECT_EQ(s.switch_ports[1].changes.count("PortXmitWait"), 0u);
    EXPECT_EQ(port_events_line(s.switch_ports[1]), "SymbolErrorCounter +4000");

    const auto summary = mesh_run_summary(d, a);
    auto said = [&](const std::string& text) {
        return std::any_of(summary.begin(), summary.end(), [&](const std::string& line) {
            return line.find(text) != std::string::npos;
        });
    };
    const std::string receiver = s.switch_ports[1].name;
    EXPECT_TRUE(said(fmt::format("{} (receiving) SymbolErrorCounter +4000", receiver)))
        << fmt::format("{}", fmt::join(summary, "\n"));
    EXPECT_TRUE(said("planned from the forwarding tables of fabric.json"));
    EXPECT_TRUE(said("routed by the forwarding tables; 5 switches"));
    EXPECT_TRUE(said(fmt::format("switch counters: {} ports read before and after the rounds",
                                 switch_link_ports(*fabric.fabric).size())));

    nlohmann::json doc = mesh_run_json(d, a);
    // `mesh run -o` writes the same document a flow at a time.
    std::ostringstream streamed;
    write_mesh_run_json(streamed, d, a);
    EXPECT_EQ(nlohmann::json::parse(streamed.str()), doc);
    for (const auto& e : fabscope::testing::schema_errors(doc, "mesh-run.schema.json"))
        ADD_FAILURE() << e;
    EXPECT_EQ(doc["routes"]["from"], "fabric.json");
    EXPECT_EQ(doc["routes"]["switch_counters"]["read"], true);
    EXPECT_EQ(doc["link_suspects"][0]["switch_ports"][1]["side"], "receives");
    EXPECT_EQ(doc["link_suspects"][0]["switch_ports"][1]["changes"]["SymbolErrorCounter"], 4000);
    EXPECT_EQ(doc["ranks"][0]["lid"], fabric.hosts[0].lid);
    EXPECT_EQ(doc["fabric"]["switches"].size(), 5u);  // leaves and spines, no hosts
}

// A host's receive side at a fifth of the others' rate (its NIC, or the
// cable from its leaf, as `tc` on the leaf's port does it in the VM), on a
// fabric with more hosts under a leaf than uplinks: the cover tests every
// host, and the suspect is that host's cable, not a leaf-spine cable.
TEST(MeshRunIb, ASlowHostIsNamedAsTheHostOrItsCableNeverALeafSpineCable) {
    World w;
    RoutedWorld fabric({.spines = 2, .leaves = 4, .hosts_per_leaf = 4}, 0);
    fabric.slow = lane_between(*fabric.fabric, "leaf01", "h0002 HCA-1");
    fabric.wire(w);
    w.run();
    const MeshRunData& d = w.data();
    ASSERT_EQ(d.status, "complete");
    std::set<int> senders, receivers;
    for (const MeshFlow& f : d.flows) {
        if (f.round >= d.planned_rounds) continue;
        senders.insert(f.src);
        receivers.insert(f.dst);
    }
    EXPECT_EQ(senders.size(), 16u);  // every host in the planned cover, both ways
    EXPECT_EQ(receivers.size(), 16u);
    auto a = analyse_mesh(d, 0.6);
    EXPECT_EQ(a.links.coverage.senders, 16u);
    EXPECT_EQ(a.links.coverage.receivers, 16u);
    const auto summary = mesh_run_summary(d, a);
    const std::string all = fmt::format("{}", fmt::join(summary, "\n"));
    ASSERT_FALSE(a.links.cables.empty()) << all;
    const CableSuspect& top = a.links.cables.front();
    EXPECT_EQ(top.host, "h0002 HCA-1[1]") << all;
    EXPECT_EQ(summary.front().rfind(
                  "suspect: host h0002 HCA-1[1] (receiving) or its cable from leaf01[", 0),
              0u)
        << all;
    for (const CableSuspect& c : a.links.cables) EXPECT_FALSE(c.host.empty()) << c.name;
    nlohmann::json doc = mesh_run_json(d, a);
    EXPECT_EQ(doc["cable_suspects"][0]["host"], "h0002 HCA-1[1]");
    EXPECT_EQ(doc["fabric"]["coverage"]["senders"], 16);
    for (const auto& e : fabscope::testing::schema_errors(doc, "mesh-run.schema.json"))
        ADD_FAILURE() << e;
}

TEST(MeshRunIb, LmcPathBitsChooseTheRouteTheFlowIsSentAndAnalysedOn) {
    // One host per leaf: without LMC a pair has one route; with LMC 1 each
    // host answers to two LIDs that D-mod-K sends over different spines.
    World w;
    RoutedWorld fabric({.spines = 2, .leaves = 4, .hosts_per_leaf = 1}, 1);
    fabric.wire(w);
    w.run();
    const MeshRunData& d = w.data();
    ASSERT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "cover");
    EXPECT_GT(flows_with_path_bits(d), 0u);
    // Each flow went to the LID its path bits chose, and was analysed on
    // that LID's route.
    for (const MeshFlow& f : d.flows) {
        const uint16_t lid = fabric.hosts.at(f.src).lid;
        const uint16_t dlid = fabric.hosts.at(f.dst).lid + f.path_bits;
        std::lock_guard lock(fabric.mu);
        EXPECT_EQ(fabric.sent.count({lid, dlid}), 1u) << f.src << " -> " << f.dst;
    }
    auto a = analyse_mesh(d, 0.6);
    EXPECT_EQ(a.links.coverage.crossed, a.links.coverage.lanes);
    ASSERT_FALSE(a.links.suspects.empty()) << mesh_run_summary(d, a).front();
    EXPECT_EQ(a.links.suspects.front().name, describe_lane(*fabric.fabric, fabric.slow));
    // No reader: no switch evidence, and the report says why.
    EXPECT_TRUE(a.links.suspects.front().switch_ports.empty());
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : fabscope::testing::schema_errors(doc, "mesh-run.schema.json"))
        ADD_FAILURE() << e;
    EXPECT_EQ(doc["routes"]["switch_counters"]["read"], false);
    EXPECT_EQ(doc["routes"]["switch_counters"]["why_not"], "not asked (--no-switch-counters)");
    bool bits_in_rounds = false;
    for (const auto& round : doc["rounds"]) {
        for (const auto& p : round["pairs"]) bits_in_rounds |= p.contains("path_bits_ab");
    }
    EXPECT_TRUE(bits_in_rounds);
}

TEST(MeshRunIb, LeafTestsThePairsUnderEachLeafAllLeavesAtOnce) {
    World w;
    RoutedWorld fabric({.spines = 2, .leaves = 3, .hosts_per_leaf = 3}, 0);
    fabric.wire(w);
    w.options.pattern = "leaf";
    w.run();
    const MeshRunData& d = w.data();
    ASSERT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "leaf");
    // Three hosts a leaf: three rounds (one rests each), three leaves at once.
    ASSERT_EQ(d.rounds.size(), 3u);
    for (const auto& round : d.rounds) {
        EXPECT_EQ(round.size(), 3u);
        for (const MeshPair& p : round)
            EXPECT_EQ(fabric.hosts[p.a].leaf, fabric.hosts[p.b].leaf) << p.a << " " << p.b;
    }
    EXPECT_EQ(measured_flows(d), 18u);
    // Nothing crosses a spine: no lane to blame.
    auto a = analyse_mesh(d, 0.6);
    EXPECT_EQ(a.links.coverage.crossed, 0u);
    EXPECT_TRUE(a.links.suspects.empty());
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : fabscope::testing::schema_errors(doc, "mesh-run.schema.json"))
        ADD_FAILURE() << e;
}

TEST(MeshRunIb, ARankTheSnapshotDoesNotKnowIsAFindingAndTheOthersAreCovered) {
    World w;
    RoutedWorld fabric({.spines = 2, .leaves = 3, .hosts_per_leaf = 2}, 0);
    fabric.wire(w);
    w.lids[5] = 900;                  // reassigned since the sweep
    w.port_guids[4] = 0xdeadbeefULL;  // another port has rank 4's LID in the snapshot
    w.options.read_switch_counters = [] {
        return SwitchCounterRead{{}, {}, "no umad access to mlx5_0 port 1 (run as root)"};
    };
    w.run();
    const MeshRunData& d = w.data();
    ASSERT_EQ(d.status, "complete");
    const auto finding = std::find_if(d.findings.begin(), d.findings.end(),
                                      [](const MeshFinding& f) { return f.rank == 5; });
    ASSERT_NE(finding, d.findings.end());
    EXPECT_EQ(finding->kind, "rank-not-in-routes");
    EXPECT_NE(finding->message.find("LID 900) is not in fabric.json: no port of it has that LID"),
              std::string::npos)
        << finding->message;
    const auto other = std::find_if(d.findings.begin(), d.findings.end(),
                                    [](const MeshFinding& f) { return f.rank == 4; });
    ASSERT_NE(other, d.findings.end());
    EXPECT_EQ(other->kind, "rank-not-in-routes");
    const PortRef fours{fabric.hosts[4].node, fabric.hosts[4].port};
    EXPECT_NE(other->message.find(fmt::format(
                  "it gives that LID to {} (port GUID {}), not to this port (0x00000000deadbeef)",
                  describe(*fabric.fabric, fours), format_guid(fabric.fabric->port(fours)->guid))),
              std::string::npos)
        << other->message;
    // Planned without them: ranks 4 and 5 are in no pair.
    for (const auto& round : d.rounds) {
        for (const MeshPair& p : round) {
            EXPECT_LT(p.a, 4);
            EXPECT_LT(p.b, 4);
        }
    }
    EXPECT_TRUE(std::any_of(d.findings.begin(), d.findings.end(), [](const MeshFinding& f) {
        return f.kind == "switch-counters" &&
               f.message.find("no umad access to mlx5_0") != std::string::npos;
    }));
    auto a = analyse_mesh(d, 0.6);
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : fabscope::testing::schema_errors(doc, "mesh-run.schema.json"))
        ADD_FAILURE() << e;
    EXPECT_EQ(doc["routes"]["switch_counters"]["why_not"],
              "no umad access to mlx5_0 port 1 (run as root)");
    const auto summary = mesh_run_summary(d, a);
    EXPECT_NE(std::find(summary.begin(), summary.end(),
                        "switch counters: none (no umad access to mlx5_0 port 1 (run as root))"),
              summary.end())
        << fmt::format("{}", fmt::join(summary, "\n"));
}

/// Every host of `f` as a rank that tests, as the hellos give them.
std::vector<MeshRank> ranks_of(const Fabric& f) {
    std::vector<MeshRank> out;
    for (const MeshEndpoint& e : endpoints_from_fabric(f)) {
        MeshRank r{.rank = static_cast<int>(out.size()), .host = e.name, .device = "mlx5_0"};
        r.port = 1;
        r.lid = e.lid;
        r.port_guid = f.port(PortRef{e.node, e.port})->guid;
        r.address = fmt::format("10.{}.{}.{}", out.size() / 65536, out.size() / 256 % 256,
                                out.size() % 256);
        out.push_back(std::move(r));
    }
    return out;
}

/// The plan as rank 0 broadcasts it: through agents one line of a channel.
size_t plan_bytes(const MeshRunData& d) {
    nlohmann::json plan = {{"ranks", ranks_json(d.ranks)}};
    add_plan_rounds(d, plan);
    const auto back = plan_rounds(plan, d.ranks.size());
    EXPECT_EQ(back.size(), d.rounds.size());
    for (size_t i = 0; i < std::min(back.size(), d.rounds.size()); ++i) {
        EXPECT_EQ(back[i].size(), d.rounds[i].size()) << "round " << i;
        for (size_t k = 0; k < std::min(back[i].size(), d.rounds[i].size()); ++k) {
            const MeshPair& x = back[i][k];
            const MeshPair& y = d.rounds[i][k];
            if (x.a != y.a || x.b != y.b || x.both_ways != y.both_ways ||
                x.label_ab != y.label_ab || x.label_ba != y.label_ba ||
                x.path_bits_ab != y.path_bits_ab || x.path_bits_ba != y.path_bits_ba) {
                ADD_FAILURE() << "round " << i << " pair " << k << " differs";
                return 0;
            }
        }
    }
    return plan.dump().size();
}

TEST(MeshPlanMessage, AllPairsAndCoverOf2048EndpointsFitOneLineOfAChannel) {
    // 32 hosts a leaf as the 2,048-host lab; all-pairs' 2,047 rounds of 1,024
    // pairs would be 48 MB as rounds: it goes as its members.
    const testing::LeafSpineShape shape{.spines = 32, .leaves = 64, .hosts_per_leaf = 32};
    MeshRunData all;
    all.ranks = ranks_of(testing::leaf_spine(shape));
    ASSERT_EQ(all.ranks.size(), 2048u);
    all.pattern = "all-pairs";  // as plan_run plans it, without its 4 million flows
    all.rounds = plan_all_pairs(all.ranks);
    ASSERT_EQ(all.rounds.size(), 2047u);
    const size_t all_bytes = plan_bytes(all);
    MeshRunData cover;
    cover.routes = std::make_shared<const Fabric>(testing::routed_leaf_spine(shape));
    cover.ranks = ranks_of(*cover.routes);
    ASSERT_EQ(plan_run(cover, {"cover", 8, 3, {}, ""}), "");
    ASSERT_EQ(cover.pattern, "cover");
    const size_t cover_bytes = plan_bytes(cover);
    std::printf(
        "plan messages at 2,048 endpoints: all-pairs %zu KB, cover x3 %zu KB (%zu rounds)\n",
        all_bytes / 1024, cover_bytes / 1024, cover.rounds.size());
    EXPECT_LT(all_bytes, kMaxMessage);
    EXPECT_LT(cover_bytes, kMaxMessage);
}

TEST(MeshPlanMessage, APlanWhoseRoundsNameARankOutOfRangeOrTwiceIsRefused) {
    using nlohmann::json;
    EXPECT_EQ(plan_rounds(json{{"rounds", {{{0, 1}, {2, 3, false}}}}}, 4).size(), 1u);
    EXPECT_THROW(plan_rounds(json{{"rounds", {{{0, 4}}}}}, 4), std::out_of_range);
    EXPECT_THROW(plan_rounds(json{{"rounds", {{{0, 1}, {1, 2}}}}}, 4), std::out_of_range);
    EXPECT_THROW(plan_rounds(json{{"rounds", {{{0, 1, true, 0}}}}}, 4), std::out_of_range);
    EXPECT_THROW(plan_rounds(json{{"all_pairs", {{0, 1, 7}}}}, 4), std::out_of_range);
    EXPECT_THROW(plan_rounds(json{{"all_pairs", {{0, 1, 1}}}}, 4), std::out_of_range);
}

TEST(MeshPlanMessage, ARingPlanWhoseOrdersNameARankOutOfRangeOrTwiceIsRefused) {
    auto orders = [](const char* text) { return plan_ring_orders(nlohmann::json::parse(text), 5); };
    // Two planes' rings over ranks 1..4 (rank 0 coordinates through agents).
    EXPECT_EQ(orders(R"({"orders": [[1, 3], [2, 4]]})").size(), 2u);
    for (const char* bad : {R"({"orders": []})", R"({"orders": [[1]]})", R"({"orders": [[1, 5]]})",
                            R"({"orders": [[-1, 2]]})", R"({"orders": [[1, 2, 1]]})",
                            R"({"orders": [[1, 2], [2, 3]]})"}) {
        EXPECT_THROW(orders(bad), std::out_of_range) << bad;
    }
    EXPECT_THROW(orders(R"({"orders": [[1, "2"]]})"), nlohmann::json::exception);
}

}  // namespace
}  // namespace fabscope::perf
