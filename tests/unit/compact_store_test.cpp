// What rank 0 of a large mesh run keeps compact: a JSON value packed as CBOR,
// names in a table, traced hop sequences once each, and the collector's
// lookup of a round's flows by rank.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "mesh/collect.h"
#include "mesh/plan.h"
#include "mesh/run_data.h"
#include "trace/hop_sequences.h"
#include "util/name_table.h"
#include "util/packed_json.h"

namespace fabscope {
namespace {

using nlohmann::json;

TEST(PackedJson, GivesBackWhatItWasGivenAndNullCostsNothing) {
    const json counters = {{"local", {{"completer_retry_err", 3}, {"rx_write_requests", 1U << 31}}},
                           {"remote", json::object()},
                           {"note", "ünïcode"},
                           {"ratio", 0.7},
                           {"list", {1, -2, nullptr, true}}};
    PackedJson p(counters);
    EXPECT_EQ(p.unpack(), counters);
    EXPECT_FALSE(p.is_null());
    EXPECT_GT(p.packed_size(), 0U);
    PackedJson copy = p;  // a copy is its own
    p = json{{"other", 1}};
    EXPECT_EQ(copy.unpack(), counters);
    EXPECT_EQ(p.unpack(), (json{{"other", 1}}));
    PackedJson none;
    EXPECT_TRUE(none.is_null());
    EXPECT_EQ(none.packed_size(), 0U);
    EXPECT_TRUE(none.unpack().is_null());
    p = nullptr;
    EXPECT_TRUE(p.is_null());
    // An empty object is an object, not null.
    PackedJson empty(json::object());
    EXPECT_TRUE(empty.unpack().is_object());
}

TEST(NameTable, EachNameOnceTheEmptyNameIsZeroAndTheTableIsBounded) {
    NameTable t;
    EXPECT_EQ(t.intern(""), 0);
    const auto a = t.intern("mlx5_0/1");
    const auto b = t.intern("mlx5_1/1");
    EXPECT_NE(a, 0);
    EXPECT_NE(a, b);
    EXPECT_EQ(t.intern("mlx5_0/1"), a);
    EXPECT_EQ(t.name(a), "mlx5_0/1");
    EXPECT_EQ(t.name(0), "");
    EXPECT_EQ(t.name(60000), "");  // never given: empty, not out of range
    EXPECT_EQ(t.size(), 2U);
    // A peer that sends a new name each time fills it, and no further.
    for (size_t i = 0; t.size() < NameTable::kMaxNames - 1; ++i)
        t.intern("dev" + std::to_string(i));
    EXPECT_EQ(t.intern("one more"), 0);
    EXPECT_EQ(t.intern("mlx5_1/1"), b);  // the names it has still answer
}

TEST(HopSequences, ASequenceSeenAgainIsTheSameIndexAndItsFirstRoundTripStands) {
    using perf::HopSequences;
    using perf::TraceHop;
    HopSequences s;
    const std::vector<TraceHop> up = {{1, "10.1.0.254", "l1", 0.1}, {2, "10.9.11.1", "s1", 0.2}};
    std::vector<TraceHop> again = up;
    again[1].rtt_ms = 9.0;
    std::vector<TraceHop> other = up;
    other[1].name = "s2";
    EXPECT_EQ(s.intern({}), HopSequences::kEmpty);
    const auto a = s.intern(up);
    EXPECT_NE(a, HopSequences::kEmpty);
    EXPECT_EQ(s.intern(again), a);
    EXPECT_NE(s.intern(other), a);
    EXPECT_DOUBLE_EQ(s[a][1].rtt_ms, 0.2);
    EXPECT_TRUE(s[HopSequences::kEmpty].empty());
    EXPECT_TRUE(s[12345].empty());
    ASSERT_EQ(s.all().size(), 3U);  // the empty one, then in the order first seen
    EXPECT_EQ(s.all()[1][1].name, "s1");
    EXPECT_EQ(s.all()[2][1].name, "s2");

    perf::MeshRunData d;
    d.add_trace(0, 1, 0, up);
    d.add_trace(1, 0, 0, again);
    d.add_trace(0, 2, 0, {});
    EXPECT_EQ(d.traces[0].hops, d.traces[1].hops);
    EXPECT_EQ(d.hops_of(d.traces[1])[0].address, "10.1.0.254");
    EXPECT_TRUE(d.hops_of(d.traces[2]).empty());
}

TEST(StepCollector, AReportFindsItsFlowWhateverTheOrderOfRoundsAndAfterFlowsAreAdded) {
    perf::MeshRunData d;
    d.ranks.resize(4);
    for (int r = 0; r < 4; ++r) d.ranks[static_cast<size_t>(r)].host = "h" + std::to_string(r);
    d.rounds = {{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}};
    perf::add_flows(d, 0);
    perf::StepCollector c(d, RoceLimits{});
    auto flow = [](double gbps) { return json{{"flow", {{"ok", true}, {"avg_gbps", gbps}}}}; };
    auto counted = [](const char* side, const char* dev) {
        return json{{side, {{"counters", json::object()}, {"seconds", 1.0}, {"device", dev}}}};
    };
    c.absorb(1, 3, flow(13));  // round 1 first, then round 0, then round 1 again
    c.absorb(0, 3, flow(3));
    c.absorb(1, 1, flow(11));
    c.absorb(0, 2, counted("rx", "mlx5_2/1"));
    auto at = [&](size_t round, int src, int dst) -> const perf::MeshFlow& {
        for (const perf::MeshFlow& f : d.flows)
            if (f.round == round && f.src == src && f.dst == dst) return f;
        throw std::runtime_error("no such flow");
    };
    EXPECT_DOUBLE_EQ(at(1, 3, 1).avg_gbps, 13);
    EXPECT_DOUBLE_EQ(at(0, 3, 2).avg_gbps, 3);
    EXPECT_DOUBLE_EQ(at(1, 1, 3).avg_gbps, 11);
    EXPECT_EQ(d.devices.name(at(0, 3, 2).dst_device), "mlx5_2/1");
    EXPECT_FALSE(at(0, 2, 3).measured);
    // An adaptive round added after: its flows are found too.
    d.rounds.push_back({{3, 0}});
    perf::add_flows(d, 2);
    c.absorb(2, 3, flow(30));
    c.absorb(2, 0, counted("rx", "mlx5_0/1"));
    EXPECT_DOUBLE_EQ(at(2, 3, 0).avg_gbps, 30);
    EXPECT_EQ(d.devices.name(at(2, 3, 0).dst_device), "mlx5_0/1");
    // A rank out of range, or a round with no flow of it, is no flow.
    c.absorb(2, 7, flow(1));
    c.absorb(5, 0, flow(1));
    EXPECT_EQ(d.flows.size(), 10U);
}

}  // namespace
}  // namespace fabscope
