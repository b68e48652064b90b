// One verdict: the TUI's findings are validate's on the same inputs. The
// same snapshot, the same pairs of counter readings, the same baseline give
// the same findings through `validate()` and through the TUI's data.

#include <gtest/gtest.h>

#include <algorithm>

#include "check/validate.h"
#include "model/port_label.h"
#include "test_fabrics.h"
#include "tui/tui_data.h"
#include "tui_scenario.h"

namespace fabscope::tui {
namespace {

/// Counters on every port with a link: all zero, read at `at_ms`.
void give_counters(std::vector<Node>& nodes, int64_t at_ms) {
    for (Node& n : nodes) {
        for (Port& p : n.ports) {
            if ((p.num == 0 && n.type == NodeType::Switch) || !p.link_up()) continue;
            PortCounters pc;
            pc.extended = true;
            pc.read_at_ms = at_ms;
            for (int i = 0; i < kCounterCount; ++i) pc.set(static_cast<Counter>(i), 0);
            p.counters = pc;
        }
    }
}

Reading plain_reading(const std::vector<Node>& nodes, int64_t at_ms) {
    Reading r;
    r.snapshot.fabric = Fabric::build(nodes).value();
    r.taken_ms = at_ms;
    return r;
}

/// What a finding says, for comparing two lists.
std::vector<std::string> said(const Fabric& f, const std::vector<Finding>& v) {
    std::vector<std::string> out;
    for (const Finding& x : v) {
        std::string s = std::string(name(x.severity)) + " " + x.kind + ": " + x.summary;
        for (const PortRef& r : x.where) s += " @ " + to_text(port_label(f, r));
        out.push_back(s);
    }
    return out;
}

std::vector<std::string> kinds(const std::vector<Finding>& v) {
    std::vector<std::string> out;
    for (const Finding& x : v) out.push_back(x.kind);
    return out;
}

/// 2 spines, 4 leaves, 4 hosts each: leaf02's first uplink at 1X among 4X,
/// leaf03's second uplink out, spine02[4] saturated: bad from the start.
std::vector<Node> bad_from_the_start() {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    testing::set_link_width(nodes, "leaf02", 5, Width::X1, WidthSet{Width::X1, Width::X4});
    testing::unplug(nodes, "leaf03", 6);
    give_counters(nodes, testing::kFirstReadingMs);
    testing::node_named(nodes, "spine02")
        .port(4)
        ->counters->set(Counter::SymbolErrorCounter,
                        counter_max(Counter::SymbolErrorCounter, false));
    return nodes;
}

TEST(TuiVerdict, OneSnapshotGivesValidatesFindingsFromTheFirstFrame) {
    const Reading r = plain_reading(bad_from_the_start(), testing::kFirstReadingMs);
    const Fabric& f = r.snapshot.fabric;
    // `validate --load`: one reading of the counters, no plan.
    const Tiers tiers = classify_tiers(f);
    const CounterReadings once = readings_of(f);
    ValidationInput in{f, tiers, {}};
    in.before = &once;
    const Validation v = validate(in);

    DataBuilder b(BuilderConfig{});
    const auto d = b.add(r);
    EXPECT_EQ(said(f, d->board.findings), said(f, v.findings));
    // The 1X uplink is a warning in the first frame, the missing uplink is
    // reported, and so is the saturated counter.
    const auto k = kinds(d->board.findings);
    for (const char* want : {"link_below_peers", "link_count_asymmetry", "counter_saturated"})
        EXPECT_NE(std::find(k.begin(), k.end(), want), k.end()) << want;
    EXPECT_GE(d->count(Severity::Warning), 3u);
    // The 1X link is drawn as a warning.
    const TierBlock& blk = d->board.blocks.at(0);
    EXPECT_EQ(d->board.links[blk.cell(1, 0).at(0)].health, Health::Warning);
}

TEST(TuiVerdict, ARiseBetweenAnyTwoReadingsIsAFindingAsOverValidatesInterval) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    give_counters(nodes, testing::kFirstReadingMs);
    auto second = nodes;
    give_counters(second, testing::kFirstReadingMs + 1000);
    testing::node_named(second, "leaf03").port(2)->counters->set(Counter::SymbolErrorCounter, 1000);
    auto third = second;  // no rise since the second reading
    for (Node& n : third)
        for (Port& p : n.ports)
            if (p.counters) p.counters->read_at_ms = testing::kFirstReadingMs + 2000;

    DataBuilder b(BuilderConfig{});
    b.add(plain_reading(nodes, testing::kFirstReadingMs));
    b.add(plain_reading(second, testing::kFirstReadingMs + 1000));
    const Reading last = plain_reading(third, testing::kFirstReadingMs + 2000);
    const auto d = b.add(last);

    // `validate --interval 2s`: the sweep's counters, then the counters again.
    const Fabric& f = last.snapshot.fabric;
    const Tiers tiers = classify_tiers(f);
    const CounterReadings before = readings_of(Fabric::build(nodes).value());
    const CounterReadings after = readings_of(f);
    ValidationInput in{f, tiers, {}};
    in.before = &before;
    in.after = &after;
    const Validation v = validate(in);

    EXPECT_EQ(said(f, d->board.findings), said(f, v.findings));
    // 1000 symbol errors in 2 s: the rise, and a bit error rate above 1e-12.
    auto found = kinds(d->board.findings);
    std::sort(found.begin(), found.end());
    ASSERT_EQ(found, (std::vector<std::string>{"bit_error_rate", "counter_rising"}));
    const auto rising = std::find_if(d->board.findings.begin(), d->board.findings.end(),
                                     [](const Finding& x) { return x.kind == "counter_rising"; });
    EXPECT_EQ(rising->evidence["delta"], 1000);
    EXPECT_EQ(rising->evidence["counter"], "SymbolErrorCounter");
    ASSERT_FALSE(d->findings.empty());
}

TEST(TuiVerdict, TheSameBaselineGivesTheSameFindings) {
    auto good = testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    const Fabric gf = Fabric::build(good).value();
    auto now = good;
    testing::unplug(now, "leaf04", 5);
    testing::set_link_width(now, "leaf01", 6, Width::X1, WidthSet{Width::X1, Width::X4});
    const Reading r = plain_reading(now, testing::kFirstReadingMs);
    const Fabric& f = r.snapshot.fabric;

    const Plan baseline = plan_from_fabric(gf, classify_tiers(gf));
    const Tiers tiers = classify_tiers(f);
    ValidationInput in{f, tiers, {}};
    in.baseline = &baseline;
    const Validation v = validate(in);

    BuilderConfig cfg;
    cfg.baseline = Snapshot{{}, gf};
    DataBuilder b(std::move(cfg));
    const auto d = b.add(r);
    EXPECT_EQ(said(f, d->board.findings), said(f, v.findings));
    const auto k = kinds(d->board.findings);
    EXPECT_NE(std::find(k.begin(), k.end(), "link_down"), k.end());
    EXPECT_NE(std::find(k.begin(), k.end(), "degraded_link"), k.end());
}

TEST(TuiVerdict, TheFindingsViewNamesEveryPortByNameGuidAndLid) {
    const Reading r = plain_reading(bad_from_the_start(), testing::kFirstReadingMs);
    DataBuilder b(BuilderConfig{});
    const auto d = b.add(r);
    bool seen = false;
    for (const FindingRow& row : d->findings) {
        if (row.kind != "link_below_peers") continue;
        seen = true;
        ASSERT_EQ(row.where.size(), 2u);
        // The GUID from the model, as every report prints it (leaf02 is 0x2002, LID 2).
        const std::string leaf02 = to_text(port_label(r.snapshot.fabric, PortRef{0x2002, 5}));
        EXPECT_EQ(leaf02, "leaf02[5]  0x0000000000002002  LID 2");
        EXPECT_TRUE(row.where[0] == leaf02 || row.where[1] == leaf02)
            << row.where[0] << " / " << row.where[1];
    }
    EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace fabscope::tui
