#include "check/counter_checks.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "check/identity_checks.h"
#include "model/port_rates.h"
#include "model/snapshot.h"
#include "model/thresholds.h"
#include "test_fabrics.h"
#include "util/duration.h"

namespace fabscope {
namespace {

PortCounters reading(int64_t at_ms, std::initializer_list<std::pair<Counter, uint64_t>> values) {
    PortCounters pc;
    pc.read_at_ms = at_ms;
    for (auto [c, v] : values) pc.set(c, v);
    return pc;
}

struct Fixture {
    Fabric f = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    PortRef port{f.find("leaf01")->guid, 3};
};

TEST(Duration, ParsesWhatPeopleWrite) {
    EXPECT_EQ(parse_duration("30s"), Millis(30000));
    EXPECT_EQ(parse_duration("500ms"), Millis(500));
    EXPECT_EQ(parse_duration("1.5m"), Millis(90000));
    EXPECT_EQ(parse_duration("2h"), Millis(7200000));
    EXPECT_EQ(parse_duration("10"), Millis(10000));
    EXPECT_EQ(parse_duration("0"), Millis(0));
    EXPECT_FALSE(parse_duration(""));
    EXPECT_FALSE(parse_duration("s"));
    EXPECT_FALSE(parse_duration("10x"));
    EXPECT_FALSE(parse_duration("-5s"));
    EXPECT_FALSE(parse_duration("1e9h"));
    EXPECT_EQ(format_duration(Millis(10000)), "10s");
    EXPECT_EQ(format_duration(Millis(3600000)), "1h");
    EXPECT_EQ(format_duration(Millis(1500)), "1.5s");
}

TEST(CounterChecks, RisingAboveTheScaledLimit) {
    Fixture x;
    CounterReadings before{{x.port, reading(1000, {{Counter::SymbolErrorCounter, 100}})}};
    CounterReadings after{{x.port, reading(11000, {{Counter::SymbolErrorCounter, 500}})}};
    auto fs = check_counter_rates(x.f, before, after, default_thresholds());
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].kind, "counter_rising");
    EXPECT_EQ(fs[0].evidence["delta"], 400);
    EXPECT_DOUBLE_EQ(fs[0].evidence["per_hour"].get<double>(), 144000.0);
    EXPECT_EQ(fs[0].where.size(), 2u);  // the port and the far end of its cable
    EXPECT_NE(
        fs[0].summary.find("leaf01[3] (link to spine01[1]): SymbolErrorCounter rose by 400 in 10s"),
        std::string::npos)
        << fs[0].summary;
}

TEST(CounterChecks, WithinTheLimitOverALongInterval) {
    Fixture x;
    Thresholds t = default_thresholds();  // SymbolErrorCounter: 10 per hour
    CounterReadings before{{x.port, reading(0, {{Counter::SymbolErrorCounter, 100}})}};
    CounterReadings after{{x.port, reading(3600000, {{Counter::SymbolErrorCounter, 105}})}};
    EXPECT_TRUE(check_counter_rates(x.f, before, after, t).empty());
    after[x.port].set(Counter::SymbolErrorCounter, 111);
    EXPECT_EQ(check_counter_rates(x.f, before, after, t).size(), 1u);
}

TEST(CounterChecks, SaturatedCountersCannotShowRates) {
    Fixture x;
    CounterReadings before{{x.port, reading(0, {{Counter::SymbolErrorCounter, 65000}})}};
    CounterReadings after{{x.port, reading(10000, {{Counter::SymbolErrorCounter, 65535}})}};
    auto fs = check_counter_rates(x.f, before, after, default_thresholds());
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].kind, "counter_saturated");
    EXPECT_EQ(fs[0].evidence["rose_at_least"], 535);
    // 8-bit and 4-bit counters saturate at their own maximum.
    before = {{x.port, reading(0, {{Counter::LinkDownedCounter, 255},
                                   {Counter::LocalLinkIntegrityErrors, 15}})}};
    fs = check_saturated(x.f, before);
    EXPECT_EQ(fs.size(), 2u);
}

TEST(CounterChecks, ACounterClearedDuringTheIntervalCountsFromZero) {
    Fixture x;
    CounterReadings before{{x.port, reading(0, {{Counter::LinkDownedCounter, 9}})}};
    CounterReadings after{{x.port, reading(10000, {{Counter::LinkDownedCounter, 2}})}};
    auto fs = check_counter_rates(x.f, before, after, default_thresholds());
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].severity, Severity::Error);  // LinkDowned: any rise
    EXPECT_TRUE(fs[0].evidence["cleared_during_interval"].get<bool>());
    EXPECT_NE(fs[0].summary.find("rose by at least 2"), std::string::npos);
}

TEST(CounterChecks, XmitWaitAsAShareOfTheInterval) {
    Fixture x;
    // 4X HDR: a lane carries a byte in 0.16 ns; 10 s is 6.25e10 ticks: 10% of it is 6.25e9,
    // beyond 32 bits: use 1 s and 10% = 6.25e8 ticks.
    CounterReadings before{{x.port, reading(0, {{Counter::PortXmitWait, 1000}})}};
    CounterReadings after{{x.port, reading(1000, {{Counter::PortXmitWait, 1000 + 625000000}})}};
    auto fs = check_counter_rates(x.f, before, after, default_thresholds());
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].kind, "xmit_wait");
    EXPECT_EQ(fs[0].severity, Severity::Warning);  // 10%: above 5%, below 20%
    EXPECT_NEAR(fs[0].evidence["fraction"].get<double>(), 0.10, 1e-9);
    EXPECT_DOUBLE_EQ(xmit_wait_tick_seconds(Speed::SDR, 1), 4e-9);  // the IBA's SDR symbol time
}

TEST(CounterChecks, ANodesOwnTickWinsOverTheThresholdsMultiplier) {
    // leaf01's PMA said Tick 3: a tick is 4 byte times, so the same count is
    // 40 % of the second, an error; leaf02 said nothing: the default, 10 %.
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    testing::node_named(nodes, "leaf01").pma_tick = 3;
    const Fabric f = *Fabric::build(nodes);
    const PortRef told{f.find("leaf01")->guid, 3};
    const PortRef untold{f.find("leaf02")->guid, 3};
    EXPECT_EQ(xmit_wait_tick_multiplier(f.node(told.node), 1), 4);
    EXPECT_EQ(xmit_wait_tick_multiplier(f.node(untold.node), 2), 2);
    EXPECT_EQ(xmit_wait_tick_multiplier(nullptr, 2), 2);
    CounterReadings before{{told, reading(0, {{Counter::PortXmitWait, 0}})},
                           {untold, reading(0, {{Counter::PortXmitWait, 0}})}};
    CounterReadings after{{told, reading(1000, {{Counter::PortXmitWait, 625000000}})},
                          {untold, reading(1000, {{Counter::PortXmitWait, 625000000}})}};
    auto fs = check_counter_rates(f, before, after, default_thresholds());
    ASSERT_EQ(fs.size(), 2u);
    for (const Finding& x : fs) {
        const bool own = x.where.front() == told;
        EXPECT_NEAR(x.evidence["fraction"].get<double>(), own ? 0.40 : 0.10, 1e-9) << x.summary;
        EXPECT_EQ(x.evidence["tick_multiplier"], own ? 4 : 1);
        EXPECT_EQ(x.severity, own ? Severity::Error : Severity::Warning);
    }
    // The rates of the TUI and congestion's shares read it the same way.
    auto rates = port_rates(f, before, after, 1);
    EXPECT_NEAR(rates.at(told).xmit_wait.value_or(0), 0.40, 1e-9);
    EXPECT_NEAR(rates.at(untold).xmit_wait.value_or(0), 0.10, 1e-9);
    // And a snapshot keeps it.
    auto back = snapshot_from_json(snapshot_to_json(Snapshot{.fabric = f}));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->fabric.node(told.node)->pma_tick, 3);
    EXPECT_FALSE(back->fabric.node(untold.node)->pma_tick);
}

TEST(Thresholds, FileOverridesDefaults) {
    auto t = parse_thresholds(R"(fabscope_thresholds: 1
counters:
  SymbolErrorCounter: {limit: 0, per: 10s, severity: error}
xmit_wait: {warn: 0.1, error: 0.5, tick_multiplier: 8}
)",
                              "t.yaml");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->counters.at(Counter::SymbolErrorCounter).limit, 0u);
    EXPECT_EQ(t->counters.at(Counter::SymbolErrorCounter).per, Millis(10000));
    EXPECT_EQ(t->counters.at(Counter::SymbolErrorCounter).severity, Severity::Error);
    EXPECT_EQ(t->counters.at(Counter::PortRcvErrors).limit, 10u);  // untouched default
    EXPECT_EQ(t->xmit_wait.tick_multiplier, 8);
}

TEST(Thresholds, ErrorsSayFileLineAndColumn) {
    struct Case {
        const char* text;
        const char* error;
    };
    for (const Case& c : std::vector<Case>{
             {"", "t.yaml: file is empty (expected a thresholds file)"},
             {"[1, 2]", "t.yaml: not a thresholds file (expected a mapping at the top)"},
             {"counters: {}", "t.yaml:1:1: missing \"fabscope_thresholds\""},
             {"fabscope_thresholds: 2",
              "t.yaml:1:22: thresholds version must be 1 (this fabscope reads version 1)"},
             {"fabscope_thresholds: 1\ncounters:\n  SymbolErrors: {limit: 1}",
              "t.yaml:3:3: \"SymbolErrors\" is not an error counter (e.g. SymbolErrorCounter, "
              "LinkDownedCounter, "
              "PortRcvErrors)"},
             {"fabscope_thresholds: 1\ncounters:\n  PortRcvErrors: {limit: -1}",
              "t.yaml:3:26: -1 is out of range"},
             {"fabscope_thresholds: 1\ncounters:\n  PortRcvErrors: {per: soon}",
              "t.yaml:3:24: per: a duration such as 10s, 5m, 1h"},
             {"fabscope_thresholds: 1\nxmit_wait: {warn: 0.5, error: 0.1}",
              "t.yaml:2:12: xmit_wait: warn must not exceed error"},
             {"fabscope_thresholds: 1\ncounters: [\n",
              "t.yaml:3:1: end of sequence flow not found"},
             {"fabscope_thresholds: 1\nsurprise: 1", "t.yaml:2:1: unknown key \"surprise\""},
         }) {
        auto t = parse_thresholds(c.text, "t.yaml");
        ASSERT_FALSE(t) << c.text;
        EXPECT_EQ(t.error().code, 2);
        EXPECT_EQ(t.error().message.rfind(c.error, 0), 0u) << t.error().message;
    }
}

TEST(Identities, DuplicateLidsAndPortGuids) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    testing::node_named(nodes, "h0002 HCA-1").ports[0].lid =
        testing::node_named(nodes, "h0001 HCA-1").ports[0].lid;
    testing::node_named(nodes, "h0004 HCA-1").ports[0].guid =
        testing::node_named(nodes, "h0003 HCA-1").ports[0].guid;
    auto f = Fabric::build(nodes);
    ASSERT_TRUE(f);
    auto fs = check_identities(*f);
    ASSERT_EQ(fs.size(), 2u);
    EXPECT_EQ(fs[0].kind, "duplicate_lid");
    EXPECT_EQ(fs[1].kind, "duplicate_guid");
    EXPECT_TRUE(check_identities(testing::leaf_spine({})).empty());
}

}  // namespace
}  // namespace fabscope
