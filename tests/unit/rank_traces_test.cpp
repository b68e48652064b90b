// Traces between the ranks of a launcher-run job (host/roce_gather), one
// thread per rank on the in-process MeshComm: every rank traces to every
// other, rank 0 gets them all, and a rank that dies costs the others no more
// than the deadline and is named.

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "fake_mesh_comm.h"
#include "fake_traces.h"
#include "host/roce_gather.h"

namespace fabscope::perf {
namespace {

using namespace std::chrono_literals;

/// A trace whose one hop names the pair, so rank 0's result can be checked
/// against who traced what.
TraceSports fake_trace(std::atomic<int>& calls) {
    return [&calls](const std::string& from, const std::string& to,
                    const std::vector<uint16_t>& sports) {
        ++calls;
        return fake::traces_over(sports, {TraceHop{.ttl = 1, .address = from + ">" + to}});
    };
}

struct Outcome {
    std::optional<RankTraces> root;
    double seconds = 0;
};

Outcome run(int size, int dies, std::atomic<int>& calls, const TraceTargets& targets = {}) {
    fake::PostOffice po;
    Outcome out;
    std::vector<std::thread> ranks;
    std::vector<RankAddress> addresses;
    for (int r = 0; r < size; ++r) addresses.push_back({r, "10.0.0." + std::to_string(r + 1)});
    auto t0 = MeshClock::now();
    for (int r = 0; r < size; ++r) {
        ranks.emplace_back([&, r] {
            fake::FakeComm comm(po, r, size, 0);
            if (r == dies) comm.die_after_broadcasts = 0;
            std::vector<char> skip(static_cast<size_t>(size), 0);
            try {
                auto got = trace_between_ranks(
                    comm, r == 0 ? addresses : std::vector<RankAddress>{}, targets, {49152, 49153},
                    fake_trace(calls), skip, MeshClock::now() + 2s, MeshClock::now() + 400ms);
                if (r == 0) out.root = std::move(got);
            } catch (const fake::Died&) {
            }
        });
    }
    for (auto& t : ranks) t.join();
    out.seconds = std::chrono::duration<double>(MeshClock::now() - t0).count();
    return out;
}

TEST(RankTraces, EveryRankTracesToEveryOtherAndRankZeroHasThemAll) {
    std::atomic<int> calls{0};
    Outcome o = run(3, -1, calls);
    ASSERT_TRUE(o.root);
    EXPECT_TRUE(o.root->missing.empty());
    EXPECT_EQ(calls.load(), 6);             // 3 ranks x 2 others
    ASSERT_EQ(o.root->traces.size(), 12U);  // x 2 ports
    std::set<std::string> pairs;
    for (const RankTrace& t : o.root->traces) {
        pairs.insert(t.trace.hops.at(0).address);
        EXPECT_EQ(t.trace.hops[0].address,
                  "10.0.0." + std::to_string(t.src + 1) + ">10.0.0." + std::to_string(t.dst + 1));
    }
    EXPECT_EQ(pairs.size(), 6U);
}

TEST(RankTraces, ADeadRankIsNamedAndCostsNoMoreThanTheDeadline) {
    std::atomic<int> calls{0};
    Outcome o = run(3, 2, calls);
    ASSERT_TRUE(o.root);
    EXPECT_EQ(o.root->missing, std::vector<int>{2});
    // Ranks 0 and 1 still traced, to the dead rank's address too.
    EXPECT_EQ(calls.load(), 4);
    EXPECT_EQ(o.root->traces.size(), 8U);
    EXPECT_LT(o.seconds, 1.5);
}

TEST(RankTraces, OnlyTheTargetsRankZeroGaveAreTraced) {
    std::atomic<int> calls{0};
    Outcome o = run(3, -1, calls, {{0, {2}}, {1, {}}});
    ASSERT_TRUE(o.root);
    EXPECT_EQ(calls.load(), 3);  // 0 -> 2; 1 -> none; 2 (no entry) -> 0 and 1
    std::set<std::pair<int, int>> pairs;
    for (const RankTrace& t : o.root->traces) pairs.insert({t.src, t.dst});
    EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{0, 2}, {2, 0}, {2, 1}}));
}

TEST(RankTraces, OneHostPerOtherLeafRotatedByPlace) {
    // Ranks 0-2 under leaf 10, 3-4 under leaf 20, 5 under leaf 30, 6 unknown.
    TraceTargets t =
        one_host_per_leaf({{0, 10}, {1, 10}, {2, 10}, {3, 20}, {4, 20}, {5, 30}, {6, 0}});
    EXPECT_EQ(t[0], (std::vector<int>{3, 5}));
    EXPECT_EQ(t[1], (std::vector<int>{4, 5}));
    EXPECT_EQ(t[2], (std::vector<int>{3, 5}));
    EXPECT_EQ(t[3], (std::vector<int>{0, 5}));
    EXPECT_EQ(t[4], (std::vector<int>{1, 5}));
    EXPECT_EQ(t[5], (std::vector<int>{0, 3}));
    EXPECT_EQ(t.count(6), 0U);  // no leaf known: it traces to everyone

    // Two tracers a leaf: rank 2, third under leaf 10, traces nothing; the
    // others as before, and rank 6 still to everyone.
    TraceTargets two =
        one_host_per_leaf({{0, 10}, {1, 10}, {2, 10}, {3, 20}, {4, 20}, {5, 30}, {6, 0}}, 2);
    EXPECT_EQ(two[0], t[0]);
    EXPECT_EQ(two[1], t[1]);
    ASSERT_EQ(two.count(2), 1U);
    EXPECT_TRUE(two[2].empty());
    EXPECT_EQ(two[3], t[3]);
    EXPECT_EQ(two[5], t[5]);
    EXPECT_EQ(two.count(6), 0U);
}

}  // namespace
}  // namespace fabscope::perf
