// The switch-level fabric built from RoCE traces (trace/trace_fabric) and the
// cables a mesh run's slow flows point at (mesh/links), on traces shaped
// like the VM lab's routed leaf-spine (lab/rxe/guest.sh rxe_fabric): hop 1 is
// the source's leaf answering from its host side, hop 2 the spine answering
// from its end of the leaf's cable, hop 3 the far leaf from its end of the
// spine's cable.

#include "trace/trace_fabric.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mesh/links.h"
#include "mesh/report.h"

namespace fabscope::perf {
namespace {

std::vector<TraceHop> lab_path(int from_leaf, int spine, int to_leaf, bool named = true) {
    auto hop = [&](int ttl, std::string addr, std::string name) {
        return TraceHop{ttl, std::move(addr), named ? std::move(name) : "", 0.5};
    };
    return {hop(1, fmt::format("10.{}.0.254", from_leaf), fmt::format("l{}", from_leaf)),
            hop(2, fmt::format("10.9.{}{}.1", from_leaf, spine), fmt::format("s{}", spine)),
            hop(3, fmt::format("10.9.{}{}.0", to_leaf, spine), fmt::format("l{}", to_leaf))};
}

TEST(TracedFabric, RoutersAreSwitchesAndConsecutiveHopsAreCables) {
    auto f = TracedFabric::from_paths({lab_path(1, 2, 2), lab_path(2, 2, 1), lab_path(1, 1, 2)});
    EXPECT_EQ(f.fabric().nodes().size(), 4u);  // l1 s2 l2 s1
    EXPECT_EQ(f.fabric().links().size(), 4u);
    EXPECT_EQ(f.lanes().size(), 8u);
    auto up = f.lanes_of(lab_path(1, 2, 2));
    ASSERT_EQ(up.size(), 2u);
    // Both ends named by the addresses they answered from, in either direction.
    EXPECT_EQ(f.lane_name(up[0]), "l1[10.9.12.0] -> s2[10.9.12.1]");
    EXPECT_EQ(f.lane_name(up[1]), "s2[10.9.22.1] -> l2[10.9.22.0]");
    auto back = f.lanes_of(lab_path(2, 2, 1));
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[1], reverse_lane(up[0]));
    EXPECT_EQ(f.cable_name(link_of_lane(up[0])), "l1[10.9.12.0] <-> s2[10.9.12.1]");
    // A cable seen one way only names the near end by its router.
    auto once = f.lanes_of(lab_path(1, 1, 2));
    EXPECT_EQ(f.lane_name(once[0]), "l1 -> s1[10.9.11.1]");
    EXPECT_EQ(f.first_router(lab_path(2, 1, 1)), f.router("l2"));
}

TEST(TracedFabric, UnnamedRoutersAreKnownByAddressAndUnknownHopsCrossNoLane) {
    auto f = TracedFabric::from_paths({lab_path(1, 2, 2, false)});
    EXPECT_EQ(f.fabric().nodes().size(), 3u);
    auto lanes = f.lanes_of(lab_path(1, 2, 2, false));
    ASSERT_EQ(lanes.size(), 2u);
    EXPECT_EQ(f.lane_name(lanes[0]), "10.1.0.254 -> 10.9.12.1");
    EXPECT_TRUE(f.lanes_of(lab_path(3, 1, 4, false)).empty());
    EXPECT_TRUE(TracedFabric::from_paths({}).lanes().empty());
}

/// A finished run over 9 ranks, three under each of three leaves, whose
/// flows take spine (src + dst) % 2 + 1 and run at rate(src leaf, spine, dst leaf).
MeshRunData three_leaf_run(const std::function<double(int, int, int)>& rate, int leaves = 3) {
    MeshRunData d;
    const int n = leaves * 3;
    for (int r = 0; r < n; ++r) d.ranks.push_back({.rank = r, .host = fmt::format("h{}", r)});
    for (int s = 0; s < n; ++s) {
        for (int t = 0; t < n; ++t) {
            if (s == t) continue;
            MeshFlow f{.round = 0, .src = s, .dst = t, .measured = true, .ok = true};
            int ls = s / 3 + 1;
            int lt = t / 3 + 1;
            int spine = (s + t) % 2 + 1;
            f.avg_gbps = ls == lt ? 1.0 : rate(ls, spine, lt);
            if (ls != lt) {
                FlowTrace tr{.sport = 49153, .hops = lab_path(ls, spine, lt), .end = "silent"};
                f.path = flow_trace_to_json(tr);
            }
            d.flows.push_back(f);
        }
    }
    d.status = "complete";
    return d;
}

TEST(MeshLinks, AShapedCableIsNamedWithTheFlowsThroughIt) {
    auto d = three_leaf_run(
        [](int ls, int spine, int lt) { return spine == 2 && (ls == 1 || lt == 1) ? 0.2 : 1.0; });
    MeshAnalysis a = analyse_mesh(d, 0.6);
    // Every flow's path is known: 54 traced through a spine, and the 18 between
    // two hosts of one leaf, which cross no router (their hosts' cables only).
    EXPECT_EQ(a.links.traced, 72u);
    EXPECT_EQ(a.links.coverage.lanes, 12u);
    EXPECT_EQ(a.links.coverage.crossed, 12u);
    ASSERT_EQ(a.links.cables.size(), 1u) << a.links.suspects.front().name;
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]");
    EXPECT_EQ(a.links.cables[0].directions.size(), 2u);
    EXPECT_EQ(a.links.suspects.size(), 2u);
    for (const LinkSuspect& s : a.links.suspects) {
        EXPECT_EQ(s.slow_flows, s.total_flows);
        EXPECT_TRUE(s.healthy.empty());
        EXPECT_NEAR(s.mean_ratio, 0.2, 1e-9);
    }
    // The hosts of l1 are slow only through s2: no endpoint is blamed.
    EXPECT_TRUE(a.suspects.empty());
    auto lines = mesh_run_summary(d, a);
    EXPECT_EQ(lines.front().rfind("suspect: cable l1[10.9.12.0] <-> s2[10.9.12.1] (both ways)", 0),
              0u)
        << lines.front();
    nlohmann::json doc = mesh_run_json(d, a);
    EXPECT_EQ(doc["cable_suspects"][0]["name"], "l1[10.9.12.0] <-> s2[10.9.12.1]");
    EXPECT_EQ(doc["fabric"]["coverage"]["fraction"], 1.0);
}

TEST(MeshLinks, EachSuspectCarriesTheCountersOfItsFlows) {
    // The shaped cable's flows retransmit (rxe's counters on both ends); the
    // others count only traffic. A host that receives slowly counts receive
    // errors on its own port (an IB HCA's counters/ would).
    auto d = three_leaf_run(
        [](int ls, int spine, int lt) { return spine == 2 && (ls == 1 || lt == 1) ? 0.2 : 1.0; });
    for (MeshFlow& f : d.flows) {
        const bool shaped = f.avg_gbps < 0.5;
        nlohmann::json c = {{"local", {{"sent_pkts", 100}}}, {"remote", {{"rcvd_pkts", 100}}}};
        if (shaped) {
            c["local"]["completer_retry_err"] = 4;
            c["remote"]["duplicate_request"] = 10;
        }
        f.counters = c;
    }
    MeshAnalysis a = analyse_mesh(d, 0.6);
    ASSERT_EQ(a.links.cables.size(), 1u);
    const LinkSuspect& up = a.links.suspects[a.links.cables[0].directions[0]];
    const size_t n = up.slow_flows;
    EXPECT_EQ(up.slow_counters.flows, n);
    EXPECT_EQ(up.slow_counters.counted, n);
    EXPECT_EQ(up.slow_counters.sum, (CounterMap{{"completer_retry_err", 4 * n},
                                                {"duplicate_request", 10 * n},
                                                {"rcvd_pkts", 100 * n},
                                                {"sent_pkts", 100 * n}}));
    EXPECT_EQ(up.healthy_counters.flows, 0u);
    auto line = mesh_run_summary(d, a).front();
    EXPECT_NE(line.find(fmt::format("on its slow flows the ends counted duplicate_request +{}, "
                                    "completer_retry_err +{}",
                                    10 * n, 4 * n)),
              std::string::npos)
        << line;
    nlohmann::json doc = mesh_run_json(d, a);
    EXPECT_EQ(doc["link_suspects"][0]["counters"]["slow"]["sum"]["duplicate_request"], 10 * n);
    EXPECT_EQ(doc["link_suspects"][0]["counters"]["healthy"]["flows"], 0);

    // A host that receives at a third: its own receive side's counters.
    auto h = three_leaf_run([](int, int, int) { return 1.0; });
    size_t into = 0;
    for (MeshFlow& f : h.flows) {
        nlohmann::json c = {{"local", {{"port_xmit_data", 50}}},
                            {"remote", {{"port_rcv_data", 50}}}};
        if (f.dst == 4) {
            f.avg_gbps = 0.3;
            c["remote"]["port_rcv_errors"] = 2;
            ++into;
        }
        if (f.src == 4) c["local"]["port_xmit_wait"] = 1;  // its sending side: healthy
        f.counters = c;
    }
    MeshAnalysis b = analyse_mesh(h, 0.6);
    // Its cable from the leaf is the lane that explains them: the host (or
    // that cable, the leaf's port named) comes first, and no leaf-spine cable.
    ASSERT_EQ(b.links.cables.size(), 1u);
    EXPECT_EQ(b.links.cables[0].host, "h4");
    const LinkSuspect& down = b.links.suspects[b.links.cables[0].directions[0]];
    EXPECT_EQ(down.slow_counters.sum, (CounterMap{{"port_rcv_data", 50 * into},
                                                  {"port_rcv_errors", 2 * into},
                                                  {"port_xmit_data", 50 * into}}));
    EXPECT_EQ(down.healthy_counters.flows, 0u);  // every flow into it was slow
    auto lines = mesh_run_summary(h, b);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0],
              fmt::format("suspect: host h4 (receiving) or its cable from l2[10.2.0.254]: {} of {} "
                          "flows through it slow (at 0.30 of the median), 0 healthy; on its slow "
                          "flows the ends counted port_rcv_errors +{}",
                          into, into, 2 * into));
    // The host is not named again by its flows' ends alone: the lane of its
    // cable explains every one of them.
    EXPECT_TRUE(b.suspects.empty());
    EXPECT_EQ(lines[1].rfind("mesh run ", 0), 0u) << lines[1];
}

TEST(MeshLinks, OneWayBadIsOneLane) {
    auto d =
        three_leaf_run([](int ls, int spine, int) { return spine == 1 && ls == 3 ? 0.3 : 1.0; });
    MeshAnalysis a = analyse_mesh(d, 0.6);
    ASSERT_EQ(a.links.cables.size(), 1u);
    ASSERT_EQ(a.links.cables[0].directions.size(), 1u);
    EXPECT_EQ(a.links.suspects[a.links.cables[0].directions[0]].name,
              "l3[10.9.31.0] -> s1[10.9.31.1]");
    EXPECT_NE(mesh_run_summary(d, a).front().find("(one way)"), std::string::npos);
}

TEST(MeshLinks, TwoLeavesCannotTellTheUpCableFromTheDownCable) {
    // With two leaves every flow through l1 -> s2 also crosses s2 -> l2:
    // no measurement separates them, and the report says so.
    auto d =
        three_leaf_run([](int ls, int spine, int) { return spine == 2 && ls == 1 ? 0.2 : 1.0; }, 2);
    MeshAnalysis a = analyse_mesh(d, 0.6);
    EXPECT_TRUE(a.links.cables.empty());
    ASSERT_EQ(a.links.suspects.size(), 1u);
    EXPECT_EQ(a.links.suspects[0].lanes.size(), 2u);
    EXPECT_EQ(a.links.suspects[0].name,
              "l1[10.9.12.0] -> s2[10.9.12.1] or s2[10.9.22.1] -> l2[10.9.22.0]");
    EXPECT_NE(mesh_run_summary(d, a).front().find("cannot tell apart"), std::string::npos);
}

TEST(MeshLinks, HealthyRunNamesNothingAndUntracedFlowsCrossNoLane) {
    auto d = three_leaf_run([](int, int, int) { return 1.0; });
    // h0 -> h3 and h0 -> h4 go from leaf 1 to leaf 2: without a trace their
    // path is not known. h0 -> h2 stays under leaf 1: its hosts' cables only.
    ASSERT_EQ(d.flows[2].dst, 3);
    ASSERT_EQ(d.flows[3].dst, 4);
    d.flows[2].path = PackedJson();
    d.flows[3].path = nlohmann::json{{"hops", "not a list"}};
    MeshAnalysis a = analyse_mesh(d, 0.6);
    EXPECT_FALSE(a.any_suspect());
    EXPECT_TRUE(a.links.flow_lanes[2].empty());
    EXPECT_TRUE(a.links.flow_lanes[3].empty());
    ASSERT_EQ(d.flows[1].dst, 2);
    ASSERT_EQ(a.links.flow_lanes[1].size(), 2u);
    EXPECT_EQ(a.links.fabric.lane_name(a.links.flow_lanes[1][0]), "h0 -> l1[10.1.0.254]");
    EXPECT_EQ(a.links.fabric.lane_name(a.links.flow_lanes[1][1]), "l1[10.1.0.254] -> h2");
}

}  // namespace
}  // namespace fabscope::perf
