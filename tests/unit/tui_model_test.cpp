// The TUI's pure parts: the canvas, the board built from readings, counter
// rates and history, the pair matrix, the keys, and the polling thread.

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "check/validate.h"
#include "model/port_rates.h"
#include "test_fabrics.h"
#include "tui/board.h"
#include "tui/canvas.h"
#include "tui/draw_util.h"
#include "tui/keys.h"
#include "tui/poller.h"
#include "tui_scenario.h"

namespace fabscope::tui {
namespace {

TEST(TuiCanvas, ClipsCutsWithAnEllipsisAndDecodesUtf8) {
    Canvas c(10, 2);
    EXPECT_EQ(c.text(0, 0, "leaf01 ↔ spine01"), 10);
    EXPECT_EQ(c.to_text(), "leaf01 ↔ …\n\n");
    c.set_clip({2, 1, 3, 1});
    c.text(0, 1, "abcdefgh", Style{Color::Red});
    EXPECT_EQ(c.to_text(), "leaf01 ↔ …\n  cd…\n");
    EXPECT_EQ(c.style_map(), "\n..rrr\n");
    EXPECT_EQ(decode_utf8("a\xff"
                          "b")
                  .size(),
              3u);
    EXPECT_EQ(fit("h0001", 7), "h0001  ");
    EXPECT_EQ(fit("spine0001", 6), "spine…");
}

TEST(TuiBoard, NaturalOrderPutsH2BeforeH10) {
    EXPECT_TRUE(natural_less("h2", "h10"));
    EXPECT_FALSE(natural_less("h10", "h2"));
    EXPECT_TRUE(natural_less("leaf01", "leaf2"));
    EXPECT_TRUE(natural_less("leaf", "leaf1"));
    EXPECT_FALSE(natural_less("same", "same"));
}

TEST(TuiBoard, TiersBlocksAndTheLinksThatWentDown) {
    auto d = testing::tui_scenario();
    const Board& b = d->board;
    ASSERT_EQ(b.tiers.size(), 3u);
    EXPECT_EQ(b.tiers[0].size(), 16u);
    EXPECT_EQ(b.tiers[1].size(), 4u);
    EXPECT_EQ(b.tiers[2].size(), 2u);
    ASSERT_EQ(b.blocks.size(), 1u);
    const TierBlock& blk = b.blocks[0];
    EXPECT_EQ(b.nodes[blk.rows[1]].label, "leaf02");
    EXPECT_EQ(b.nodes[blk.cols[0]].label, "spine01");
    // The unplugged cable is still there, as Down and red.
    const auto& cell = blk.cell(1, 0);
    ASSERT_EQ(cell.size(), 1u);
    const BoardLink& down = b.links[cell[0]];
    EXPECT_EQ(down.status, LinkStatus::Down);
    EXPECT_EQ(down.health, Health::Error);
    EXPECT_EQ(b.end_name(down.a), "leaf02[5]");
    EXPECT_EQ(b.end_name(down.b), "spine01[2]");
    EXPECT_EQ(b.count(LinkStatus::Down), 1u);
    // The 1X host link is degraded, the erroring uplink is flagged, the rest is fine.
    EXPECT_EQ(blk.down[2].size(), 4u);
    EXPECT_EQ(b.links[blk.down[2][1]].health, Health::Warning);
    const BoardLink& noisy = b.links[blk.cell(0, 0)[0]];
    EXPECT_GE(noisy.health, Health::Warning);
    ASSERT_TRUE(noisy.rates);
    EXPECT_NEAR(noisy.rates->errors_per_s, 20, 1e-9);
    EXPECT_NEAR(noisy.rates->xmit_gbps, 2.0, 1e-9);
    EXPECT_EQ(b.links[blk.cell(3, 1)[0]].health, Health::Ok);
}

/// The findings view says a leaf-spine cable is out (validate's
/// link_count_asymmetry, both ports Polling) from the very first reading,
/// with no plan: the board draws it down where it belongs, not "no link".
TEST(TuiBoard, ALinkDownFromTheFirstReadingIsDrawnDown) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    testing::unplug(nodes, "leaf02", 5);  // leaf02's uplink to spine01
    DataBuilder builder({});
    auto d = builder.add(testing::counted_reading(nodes, testing::kFirstReadingMs));
    const Board& b = d->board;
    ASSERT_EQ(b.blocks.size(), 1u);
    const TierBlock& blk = b.blocks[0];
    ASSERT_EQ(b.nodes[blk.rows[1]].label, "leaf02");
    ASSERT_EQ(b.nodes[blk.cols[0]].label, "spine01");
    const auto& cell = blk.cell(1, 0);
    ASSERT_EQ(cell.size(), 1u);
    const BoardLink& down = b.links[cell[0]];
    EXPECT_EQ(down.status, LinkStatus::Down);
    EXPECT_EQ(down.health, Health::Warning);
    EXPECT_EQ(b.end_name(down.a), "leaf02[5]");
    EXPECT_EQ(b.end_name(down.b), "spine01[2]");
    EXPECT_EQ(down.state, "Down/Polling");
    EXPECT_EQ(link_glyph(down), U'×');  // the cell's glyph: down, not "no link"
    EXPECT_NE(link_line(b, down).find("joined by 0 links"), std::string::npos)
        << link_line(b, down);
    EXPECT_EQ(b.count(LinkStatus::Down), 1u);
    // Still one link down at the second reading, not two.
    d = builder.add(testing::counted_reading(nodes, testing::kSecondReadingMs));
    EXPECT_EQ(d->board.count(LinkStatus::Down), 1u);

    // Two idle ports on leaf02 that could be the uplink: it is down, its
    // ports unknown.
    testing::unplug(nodes, "leaf02", 4);  // a host's cable: leaf02[4] idle too
    Fabric f = Fabric::build(nodes).value();
    Tiers tiers = classify_tiers(f);
    Validation v = validate(ValidationInput{f, tiers, {}});
    Board two = build_board({f, tiers, nullptr, v.findings, nullptr});
    ASSERT_EQ(two.count(LinkStatus::Down), 1u);
    const BoardLink& unsure = two.links[two.blocks[0].cell(1, 0).at(0)];
    EXPECT_EQ(two.end_name(unsure.a), "leaf02[?]");
    EXPECT_EQ(two.end_name(unsure.b), "spine01[2]");
    EXPECT_EQ(unsure.state, "down (0 of 1 links up)");
}

TEST(TuiBoard, AMissingNodeKeepsItsLinksAsMissing) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    auto before = Fabric::build(nodes).value();
    Plan plan = plan_from_fabric(before, classify_tiers(before));
    // spine02 is gone: unplug everything cabled to it, then drop it.
    for (uint8_t p = 1; p <= 2; ++p) testing::unplug(nodes, "spine02", p);
    std::erase_if(nodes, [](const Node& n) { return n.description == "spine02"; });
    auto after = Fabric::build(nodes).value();
    Tiers tiers = classify_tiers(after);
    Board b = build_board({after, tiers, &plan, {}, nullptr});
    EXPECT_EQ(b.count(LinkStatus::Missing), 2u);
    auto idx = std::find_if(b.nodes.begin(), b.nodes.end(),
                            [](const BoardNode& n) { return n.name == "spine02"; });
    ASSERT_NE(idx, b.nodes.end());
    EXPECT_FALSE(idx->present);
    EXPECT_EQ(idx->tier, 2);  // where the plan put it
    ASSERT_EQ(b.blocks.size(), 1u);
    EXPECT_EQ(b.blocks[0].cols.size(), 2u);
}

TEST(TuiRates, TrafficErrorsWaitAndAClearedCounter) {
    auto f = testing::leaf_spine({.spines = 1, .leaves = 1, .hosts_per_leaf = 1});
    const PortRef ref{0x2001, 1};
    PortCounters b;
    b.read_at_ms = 1000;
    b.extended = true;
    b.set(Counter::PortXmitData, 0);
    b.set(Counter::PortRcvData, 0);
    b.set(Counter::SymbolErrorCounter, 10);
    b.set(Counter::PortXmitWait, 0);
    PortCounters a = b;
    a.read_at_ms = 3000;
    a.set(Counter::PortXmitData, 250'000'000);  // 1 GB in 2 s: 4 Gb/s
    a.set(Counter::SymbolErrorCounter, 4);      // cleared, then 4
    a.set(Counter::PortXmitWait, 625'000'000);  // 0.1 s at HDR's 50 Gb/s lanes
    RateMap r = port_rates(f, {{ref, b}}, {{ref, a}});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_NEAR(r[ref].xmit_gbps, 4.0, 1e-9);
    EXPECT_NEAR(r[ref].errors_per_s, 2.0, 1e-9);
    EXPECT_TRUE(r[ref].cleared);
    ASSERT_TRUE(r[ref].xmit_wait);
    EXPECT_NEAR(*r[ref].xmit_wait, 0.05, 1e-3);
    // No time between the readings: no rate.
    EXPECT_TRUE(port_rates(f, {{ref, a}}, {{ref, a}}).empty());
}

TEST(TuiHistory, KeepsTheLastSamplesPerPort) {
    History h;
    const PortRef ref{1, 1};
    for (int i = 0; i < static_cast<int>(History::kCapacity) + 10; ++i) {
        PortRates r;
        r.errors_per_s = i;
        const RateMap m{{ref, r}};
        h.add(i * 1000, ReadingRates{m, m, m}, [](PortRef) { return std::string("x[1]"); });
    }
    ASSERT_EQ(h.series().size(), 1u);
    EXPECT_EQ(h.series()[0].samples.size(), History::kCapacity);
    EXPECT_EQ(h.series()[0].samples.front().errors, 10.0F);
    EXPECT_EQ(h.series()[0].now().errors, static_cast<float>(History::kCapacity + 9));
}

TEST(TuiSparkline, ScaledToTheLargestTinyValuesFlatWorthALookNever) {
    std::vector<RateSample> s(4);
    s[0].gbps = 0;
    s[1].gbps = 0.004F;  // management traffic: flat
    s[2].gbps = 50;
    s[3].gbps = 100;
    EXPECT_EQ(sparkline(s, &RateSample::gbps, 6, 0.1F), U"  ▁▁▅█");
    // Well below the floor everything is flat, however it varies.
    for (auto& x : s) x.gbps /= 1e5F;
    EXPECT_EQ(sparkline(s, &RateSample::gbps, 4, 0.1F), U"▁▁▁▁");
    // One error a second among thousands still shows.
    s[0].errors = 1;
    s[3].errors = 5000;
    EXPECT_EQ(sparkline(s, &RateSample::errors, 4, 1.0F), U"▂▁▁█");
    // Unknown (negative) is a gap.
    EXPECT_EQ(sparkline(s, &RateSample::wait, 2, 0.05F), U"  ");
}

TEST(TuiPairs, GridsPerTestWithSharesOfTheBest) {
    PairMatrix m = build_pairs(testing::scenario_perf(), {"a.json", "b.json"});
    ASSERT_EQ(m.grids.size(), 1u);
    const PairGrid& g = m.grids[0];
    EXPECT_EQ(g.test, "write_bw 64K");
    EXPECT_EQ(g.rows, (std::vector<std::string>{"h0001", "h0005"}));
    EXPECT_EQ(g.cols, (std::vector<std::string>{"h0001", "h0005", "h0009", "h0013"}));
    EXPECT_EQ(g.best_pair, "h0005 → h0001");
    EXPECT_FALSE(g.cell(0, 0).measured);
    EXPECT_NEAR(g.cell(0, 3).ratio, 0.09 / 0.41, 1e-9);
    EXPECT_TRUE(g.cell(1, 3).measured);
    EXPECT_FALSE(g.cell(1, 3).ok);
}

TEST(TuiKeys, ViewsFilterSortAndQuit) {
    ViewState s;
    EXPECT_EQ(apply_key(s, '3'), Command::Redraw);
    EXPECT_EQ(s.view, ViewId::Counters);
    apply_key(s, key::kTab);
    EXPECT_EQ(s.view, ViewId::Pairs);
    apply_key(s, key::kBackTab);
    apply_key(s, key::kBackTab);
    EXPECT_EQ(s.view, ViewId::Links);
    apply_key(s, 's');
    EXPECT_EQ(s.link_sort, LinkSort::Rate);
    // Typing a filter: q is text there, Enter keeps it, Esc clears it.
    apply_key(s, '/');
    for (int k : {int{'l'}, int{'e'}, int{'a'}, int{'f'}, int{'q'}, int{key::kBackspace}})
        EXPECT_NE(apply_key(s, k), Command::Quit);
    EXPECT_EQ(s.active_filter(), "leaf");
    apply_key(s, key::kEnter);
    EXPECT_EQ(s.filter, "leaf");
    EXPECT_FALSE(s.editing);
    apply_key(s, key::kEscape);
    EXPECT_TRUE(s.filter.empty());
    // Enter in the fabric view drills into the selected node's links.
    apply_key(s, '1');
    apply_key(s, key::kEnter, "leaf03");
    EXPECT_EQ(s.view, ViewId::Links);
    EXPECT_EQ(s.filter, "leaf03");
    apply_key(s, '?');
    EXPECT_TRUE(s.help);
    EXPECT_EQ(apply_key(s, 'x'), Command::Redraw);
    EXPECT_FALSE(s.help);
    EXPECT_EQ(apply_key(s, 'p'), Command::TogglePause);
    EXPECT_TRUE(s.paused);
    EXPECT_EQ(apply_key(s, 'r'), Command::Refresh);
    EXPECT_EQ(apply_key(s, 'q'), Command::Quit);
    // Ctrl-C is a key in the raw terminal: an interrupt (exit 130), also in
    // the help and while typing a filter.
    EXPECT_EQ(apply_key(s, key::kCtrlC), Command::Interrupt);
    apply_key(s, '?');
    EXPECT_EQ(apply_key(s, key::kCtrlC), Command::Interrupt);
    apply_key(s, '/');
    EXPECT_EQ(apply_key(s, key::kCtrlC), Command::Interrupt);
}

TEST(TuiKeys, TheFilterMatchesNamesGuidsAndLids) {
    BoardNode n;
    n.name = "leaf02";
    n.label = "leaf02";
    n.guid = 0x0002c90300a1b2c3;
    n.lid = 17;
    EXPECT_TRUE(node_matches(n, "LEAF"));
    EXPECT_TRUE(node_matches(n, "0x0002c90300a1b2c3"));
    EXPECT_TRUE(node_matches(n, "a1b2c3"));
    EXPECT_TRUE(node_matches(n, "17"));
    EXPECT_FALSE(node_matches(n, "18"));
    EXPECT_FALSE(node_matches(n, "spine"));
}

/// A source that takes its time, or fails, as told.
class SlowSource : public FabricSource {
  public:
    explicit SlowSource(std::chrono::milliseconds delay) : delay_(delay) {}
    Result<Reading> read(const StopToken& stop) override {
        ++began_;
        stop.sleep_for(delay_);  // as a sweep: cut short when stopped
        if (fail_) return make_error("the local port went down");
        Reading r;
        r.snapshot.fabric = testing::leaf_spine({.spines = 1, .leaves = 1, .hosts_per_leaf = 2});
        r.taken_ms = 1000 * ++reads_;
        return r;
    }
    bool more() const override { return true; }
    std::atomic<bool> fail_{false};
    std::atomic<int> began_{0};  ///< readings begun (on the poller's thread)
    std::atomic<int> reads_{0};  ///< readings ended with data

  private:
    std::chrono::milliseconds delay_;
};

/// Polls `done` every 5 ms until it holds or 5 s pass; whether it held.
template <class F>
bool eventually(F done) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done()) {
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

TEST(TuiPoller, TheScreenNeverWaitsForASlowFabric) {
    auto src = std::make_unique<SlowSource>(std::chrono::milliseconds(300));
    SlowSource* s = src.get();
    Poller p(std::move(src), DataBuilder({}), std::chrono::milliseconds(50));
    p.start();
    // In the middle of the first reading, on the poller's thread: no wait.
    // (Before its thread reads, no data and no wait would prove nothing.)
    ASSERT_TRUE(eventually([&] { return s->began_ > 0; })) << "the poller's thread never read";
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(p.latest(), nullptr);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
    EXPECT_TRUE(p.reading_since().has_value());
    ASSERT_TRUE(eventually([&] { return p.generation() > 0; })) << "no reading in 5 s";
    ASSERT_NE(p.latest(), nullptr);
    EXPECT_EQ(p.latest()->board.tiers[0].size(), 2u);
    // A failed reading keeps the last data and says why.
    s->fail_ = true;
    const uint64_t g = p.generation();
    ASSERT_TRUE(eventually([&] { return p.generation() != g; })) << "no second reading in 5 s";
    EXPECT_EQ(p.latest()->meta.error, "the local port went down");
    EXPECT_EQ(p.latest()->board.tiers[0].size(), 2u);
    // Stopping mid-reading cancels the reading and joins the thread.
    const auto t1 = std::chrono::steady_clock::now();
    p.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::milliseconds(150));
}

TEST(TuiPoller, PausedUntilAskedToReadNow) {
    auto src = std::make_unique<SlowSource>(std::chrono::milliseconds(1));
    SlowSource* s = src.get();
    Poller p(std::move(src), DataBuilder({}), std::chrono::milliseconds(20));
    p.set_paused(true);
    p.start();
    ASSERT_TRUE(eventually([&] { return p.generation() >= 1; })) << "no first reading in 5 s";
    // Five intervals in which an unpaused poller would read again: the
    // window for a reading that should not happen, not a wait for one.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int reads = s->reads_;
    EXPECT_EQ(reads, 1);  // the first reading, then nothing while paused
    p.read_now();
    ASSERT_TRUE(eventually([&] { return s->reads_ > reads; })) << "read_now() did not read";
    EXPECT_EQ(s->reads_, reads + 1);
    p.stop();
}

/// A reading that lasts until it is stopped (a sweep of a silent fabric),
/// recording when it ends in state that outlives the poller.
class StoppableSource : public FabricSource {
  public:
    struct Seen {
        std::atomic<bool> reading{false};
        std::atomic<bool> ended{false};
    };
    explicit StoppableSource(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}
    Result<Reading> read(const StopToken& stop) override {
        seen_->reading = true;
        stop.sleep_for(std::chrono::seconds(20));
        seen_->ended = true;
        return make_error("stopped");
    }
    bool more() const override { return true; }

  private:
    std::shared_ptr<Seen> seen_;
};

void wait_until(const std::atomic<bool>& flag) {
    eventually([&] { return flag.load(); });
}

TEST(TuiPoller, GoingAwayCancelsTheReadingAndJoinsNeverDetaches) {
    auto seen = std::make_shared<StoppableSource::Seen>();
    const auto t0 = std::chrono::steady_clock::now();
    {
        Poller p(std::make_unique<StoppableSource>(seen), DataBuilder({}),
                 std::chrono::milliseconds(50));
        p.start();
        wait_until(seen->reading);
        ASSERT_TRUE(seen->reading);
    }  // no stop(): the destructor alone
    EXPECT_TRUE(seen->ended) << "the reading outlived the poller (a detached thread)";
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

TEST(TuiPoller, CtrlCCancelsTheReadingInFlight) {
    auto seen = std::make_shared<StoppableSource::Seen>();
    Poller p(std::make_unique<StoppableSource>(seen), DataBuilder({}),
             std::chrono::milliseconds(50));
    p.start();
    ASSERT_TRUE(eventually([&] { return seen->reading.load(); }))
        << "the poller's thread never read";
    interrupt_token().request_stop(SIGINT);
    wait_until(seen->ended);
    const bool ended = seen->ended;
    interrupt_token().reset();
    EXPECT_TRUE(ended) << "Ctrl-C did not reach the sweep";
    p.stop();
}

}  // namespace
}  // namespace fabscope::tui
