// `mesh plan` is a dry run of `mesh run` (mesh/dry_run): on the same
// snapshot, the plan `mesh plan` prints (its schedule over the snapshot's
// endpoints) is the plan `mesh run` makes and runs, here run in the threads
// of mesh_world.h with a rank on every host port, for every pattern: a cover
// and a cover with nothing to cover (which tests every pair), all-pairs,
// leaf, named pairs and the ring, on one plane and on two.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "mesh/dry_run.h"
#include "mesh_world.h"
#include "model/plane.h"
#include "model/snapshot.h"
#include "test_fabrics.h"

namespace fabscope::perf {
namespace {

using mesh_test::World;
/// A planned direction pair: the two ports (by GUID), both ways, path bits.
using Pair = std::tuple<uint64_t, uint64_t, bool, int, int>;
using Plan = std::vector<std::vector<Pair>>;

uint64_t guid_of(const Fabric& f, const MeshEndpoint& e) {
    return f.port(PortRef{e.node, e.port})->guid;
}

/// Rounds as sets of pairs (the order of a round's pairs is not the plan).
Plan sorted(Plan p) {
    for (auto& round : p) std::sort(round.begin(), round.end());
    return p;
}

/// A snapshot with routes, and a rank on each of its host ports: the ranks
/// of one host together, a plane each (as `--devices` gives them).
struct Fixture {
    std::shared_ptr<const Fabric> fabric;
    std::vector<MeshEndpoint> ranks;  ///< rank r's port
    int per_host = 1;

    explicit Fixture(Fabric f) : fabric(std::make_shared<const Fabric>(std::move(f))) {
        auto eps = endpoints_from_fabric(*fabric);
        std::map<std::string, std::vector<MeshEndpoint>> by_host;  // planes in fabric order
        std::vector<std::string> hosts;
        for (MeshEndpoint& e : eps) {
            if (!by_host.count(e.name)) hosts.push_back(e.name);
            by_host[e.name].push_back(std::move(e));
        }
        per_host = static_cast<int>(by_host.begin()->second.size());
        for (const std::string& h : hosts) {
            EXPECT_EQ(by_host[h].size(), static_cast<size_t>(per_host)) << h;
            for (MeshEndpoint& e : by_host[h]) ranks.push_back(std::move(e));
        }
    }

    /// `mesh run` in threads, a rank per host port; its planned rounds.
    std::pair<std::string, Plan> run(const std::string& pattern,
                                     const std::vector<NamedPair>& pairs = {}) const {
        World w;
        w.size = static_cast<int>(ranks.size());
        w.per_host = per_host;
        for (const MeshEndpoint& e : ranks) {
            w.lids.push_back(e.lid);
            w.port_guids.push_back(guid_of(*fabric, e));
            w.hosts.push_back(e.name);
        }
        if (per_host > 1) {
            for (int d = 0; d < per_host; ++d)
                w.options.devices.push_back("mlx5_" + std::to_string(d));
        }
        w.options.pattern = pattern;
        w.options.routes = fabric;
        w.options.routes_from = "fabric.json";
        w.options.pairs = pairs;
        w.options.pairs_from = "pairs.txt";
        if (pattern == "ring") {
            w.ring = RingTest{.sizes = {1 << 20}, .iterations = 2, .warmup = 1, .timeout = {}};
            w.ring->timeout = std::chrono::seconds(10);
        }
        w.run();
        const MeshRunData& d = w.data();
        EXPECT_EQ(d.status, "complete") << pattern;
        Plan plan;
        for (size_t i = 0; i < std::min(d.planned_rounds, d.rounds.size()); ++i) {
            auto& round = plan.emplace_back();
            for (const MeshPair& p : d.rounds[i]) {
                round.emplace_back(w.port_guids.at(static_cast<size_t>(p.a)),
                                   w.port_guids.at(static_cast<size_t>(p.b)), p.both_ways,
                                   p.path_bits_ab, p.path_bits_ba);
            }
        }
        return {d.pattern, sorted(std::move(plan))};
    }

    /// What `mesh plan` prints for the same pattern.
    std::pair<std::string, Plan> dry(const DryRunRequest& r) const {
        auto out = dry_run(fabric, "fabric.json", r);
        EXPECT_TRUE(out) << (out ? "" : out.error().message);
        if (!out) return {};
        Plan plan;
        for (const Round& round : out->schedule.rounds) {
            auto& pairs = plan.emplace_back();
            for (const PairTest& t : round.tests) {
                pairs.emplace_back(guid_of(*fabric, out->endpoints.at(t.a)),
                                   guid_of(*fabric, out->endpoints.at(t.b)), t.both_ways,
                                   t.variant_ab, t.both_ways ? t.variant_ba : 0);
            }
        }
        return {std::string(name(out->schedule.pattern)), sorted(std::move(plan))};
    }
};

/// Two leaf-spine planes, the second's GUIDs moved and its names ending in
/// "-p2": each host has a port on each.
Fabric two_planes(const testing::LeafSpineShape& shape) {
    std::vector<Snapshot> parts;
    for (Guid offset : {Guid{0}, Guid{1} << 24}) {
        auto nodes = testing::leaf_spine_nodes(shape);
        for (Node& n : nodes) {
            n.guid += offset;
            if (offset != 0) n.description += "-p2";
            for (Port& p : n.ports) {
                p.guid += offset;
                if (p.peer) p.peer->node += offset;
            }
        }
        testing::add_dmodk_routes(nodes);
        Snapshot s;
        s.fabric = *Fabric::build(nodes);
        parts.push_back(std::move(s));
    }
    auto merged = merge_planes(std::move(parts));
    EXPECT_TRUE(merged) << merged.error().message;
    return std::move(merged->fabric);
}

void expect_same_plans(const Fixture& fx, const std::vector<NamedPair>& pairs,
                       const std::string& pairs_file) {
    for (const char* pattern : {"cover", "all-pairs", "leaf", "pairs", "ring"}) {
        SCOPED_TRACE(pattern);
        const auto ran = fx.run(pattern, pairs);
        DryRunRequest r{.plan = {.pattern = pattern}, .pairs_file = pairs_file};
        const auto printed = fx.dry(r);
        EXPECT_EQ(printed.first, ran.first);
        EXPECT_EQ(printed.second, ran.second);
        EXPECT_FALSE(ran.second.empty());
    }
}

std::string write_pairs(const std::string& text) {
    const std::string file =
        ::testing::TempDir() + "dry_run_pairs_" + std::to_string(::getpid()) + ".txt";
    std::ofstream(file) << text;
    return file;
}

TEST(MeshDryRun, EveryPatternPlansAsMeshRunOnOnePlane) {
    const Fixture fx(testing::routed_leaf_spine({.spines = 2, .leaves = 3, .hosts_per_leaf = 2}));
    const std::string file = write_pairs("h0001 h0006\nh0002 h0003\nh0001 h0002\n");
    expect_same_plans(fx, {{"h0001", "h0006", 1}, {"h0002", "h0003", 2}, {"h0001", "h0002", 3}},
                      file);
    std::remove(file.c_str());
}

TEST(MeshDryRun, EveryPatternPlansAsMeshRunOnTwoPlanes) {
    const Fixture fx(two_planes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2}));
    ASSERT_EQ(fx.per_host, 2);
    const std::string file = write_pairs("h0001 h0004\nh0002 h0003\n");
    expect_same_plans(fx, {{"h0001", "h0004", 1}, {"h0002", "h0003", 2}}, file);
    // All-pairs stays within a plane: no pair joins two planes' ports.
    const auto printed = fx.dry({.plan = {.pattern = "all-pairs"}});
    for (const auto& round : printed.second) {
        for (const Pair& p : round) EXPECT_EQ(std::get<0>(p) >> 24, std::get<1>(p) >> 24);
    }
    std::remove(file.c_str());
}

// Hosts under one leaf and no spine: a cover has no switch-to-switch lane
// to cross, so the run tests every pair, and `mesh plan` says so.
TEST(MeshDryRun, ACoverWithNothingToCoverIsAllPairsAsMeshRunPlansIt) {
    const Fixture fx(testing::routed_leaf_spine({.spines = 0, .leaves = 1, .hosts_per_leaf = 4}));
    const auto ran = fx.run("cover");
    EXPECT_EQ(ran.first, "all-pairs");
    const auto printed = fx.dry({.plan = {.pattern = "cover"}});
    EXPECT_EQ(printed.first, "all-pairs");
    EXPECT_EQ(printed.second, ran.second);
    EXPECT_EQ(printed.second.size(), 3U);  // four hosts: three rounds of two pairs
}

}  // namespace
}  // namespace fabscope::perf
