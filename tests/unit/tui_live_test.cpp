// What an engineer at the live view relies on: rates over a recent window
// (a burst shows at its size and then leaves, the errors since the first
// reading stay beside it) and the same number in every view; Enter drilling
// from links and findings to their ports' counters; swapped cables drawn as
// swapped with the plan's cables; everything readable at 100 columns.

#include <gtest/gtest.h>

#include <sstream>

#include "model/plan.h"
#include "model/tiers.h"
#include "test_fabrics.h"
#include "tui/keys.h"
#include "tui/views.h"
#include "tui_scenario.h"

namespace fabscope::tui {
namespace {

std::vector<std::string> lines_of(const TuiData& d, ViewState& s, int w = 120, int h = 40) {
    Canvas c(w, h);
    draw_frame(&d, s, c, FrameInfo{});
    std::vector<std::string> out;
    std::istringstream in(c.to_text());
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

/// The first row under a view's heading.
std::string first_row(const TuiData& d, ViewId v, LinkSort ls, CounterSort cs) {
    ViewState s;
    s.view = v;
    s.link_sort = ls;
    s.counter_sort = cs;
    return lines_of(d, s)[4];
}

const FindingRow* finding_of(const TuiData& d, const std::string& kind) {
    for (const FindingRow& f : d.findings) {
        if (f.kind == kind) return &f;
    }
    return nullptr;
}

/// leaf03[2] (to h0010) counts 500 symbol errors between the first two
/// readings, then none; readings every 2 s for 80 s.
class Burst : public ::testing::Test {
  protected:
    void SetUp() override {
        nodes_ = testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
        BuilderConfig cfg;
        cfg.rate_window_s = 60;
        builder_.emplace(std::move(cfg));
        builder_->add(testing::counted_reading(nodes_, testing::kFirstReadingMs));
        auto& port = *testing::node_named(nodes_, "leaf03").port(2);
        port.counters = PortCounters{};
        port.counters->extended = true;
        for (int i = 0; i < kCounterCount; ++i) port.counters->set(static_cast<Counter>(i), 0);
        port.counters->set(Counter::SymbolErrorCounter, 500);
    }
    std::shared_ptr<const TuiData> read_at(int64_t s) {
        return builder_->add(testing::counted_reading(nodes_, testing::kFirstReadingMs + s * 1000));
    }
    std::vector<Node> nodes_;
    std::optional<DataBuilder> builder_;
};

TEST_F(Burst, ShowsAtItsSizeThenLeavesTheWindowWhileItsTotalStays) {
    auto d = read_at(2);
    const auto& errs = d->history->series();
    auto it = std::find_if(errs.begin(), errs.end(),
                           [](const PortSeries& p) { return p.label.rfind("leaf03[2]", 0) == 0; });
    ASSERT_NE(it, errs.end());
    EXPECT_FLOAT_EQ(it->recent.errors, 250);  // 500 in 2 s
    EXPECT_EQ(it->errors_total, 500u);
    // 30 s on: still in the window, over its whole span.
    for (int64_t s = 4; s <= 30; s += 2) d = read_at(s);
    it = std::find_if(d->history->series().begin(), d->history->series().end(),
                      [](const PortSeries& p) { return p.label.rfind("leaf03[2]", 0) == 0; });
    EXPECT_NEAR(it->recent.errors, 500.0 / 30, 0.01);
    EXPECT_NEAR(it->recent_s, 30, 1e-9);
    // 80 s on: the burst has left the 60 s window; the total has not.
    for (int64_t s = 32; s <= 80; s += 2) d = read_at(s);
    it = std::find_if(d->history->series().begin(), d->history->series().end(),
                      [](const PortSeries& p) { return p.label.rfind("leaf03[2]", 0) == 0; });
    EXPECT_EQ(it->recent.errors, 0);
    EXPECT_NEAR(it->recent_s, 60, 1e-9);
    EXPECT_EQ(it->errors_total, 500u);
    // The board's link carries the same window.
    const BoardLink* link = nullptr;
    for (const BoardLink& l : d->board.links) {
        if (d->board.end_name(l.b) == "leaf03[2]") link = &l;
    }
    ASSERT_NE(link, nullptr);
    ASSERT_TRUE(link->rates);
    EXPECT_NEAR(link->rates->seconds, 60, 1e-9);
    // The finding still stands (500 since the first reading is over the
    // limit) and says what the window saw.
    const FindingRow* f = finding_of(*d, "counter_rising");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->summary.find("in the last 1m: +0 (0 per hour)"), std::string::npos) << f->summary;
    EXPECT_NE(f->evidence.find("\"recent\""), std::string::npos) << f->evidence;
}

TEST_F(Burst, TheLinksAndCountersViewsShowAndSortByTheSameRate) {
    auto d = read_at(2);
    // Both views put the port on top, with 250 errors/s over the window.
    std::string links = first_row(*d, ViewId::Links, LinkSort::Errors, CounterSort::Errors);
    std::string counters = first_row(*d, ViewId::Counters, LinkSort::Errors, CounterSort::Errors);
    EXPECT_NE(links.find("leaf03[2]"), std::string::npos) << links;
    EXPECT_NE(links.find("250"), std::string::npos) << links;
    EXPECT_EQ(counters.rfind("leaf03[2] → h0010", 0), 0u) << counters;
    EXPECT_NE(counters.find("250"), std::string::npos) << counters;
    // After the burst left the window: still on top in both, by its total.
    for (int64_t s = 4; s <= 80; s += 2) d = read_at(s);
    links = first_row(*d, ViewId::Links, LinkSort::Errors, CounterSort::Errors);
    counters = first_row(*d, ViewId::Counters, LinkSort::Errors, CounterSort::Errors);
    EXPECT_NE(links.find("leaf03[2]"), std::string::npos) << links;
    EXPECT_NE(links.find("500"), std::string::npos) << links;
    EXPECT_EQ(counters.rfind("leaf03[2] → h0010", 0), 0u) << counters;
    EXPECT_NE(counters.find("500"), std::string::npos) << counters;
}

TEST_F(Burst, EnterOnALinkShowsBothEndsCountersOnAFindingItsPorts) {
    auto d = read_at(2);
    ViewState s;
    s.view = ViewId::Links;
    s.link_sort = LinkSort::Errors;
    Canvas c(120, 40);
    ViewOutput out = draw_frame(d.get(), s, c, FrameInfo{});
    apply_key(s, key::kEnter, out.drill);
    EXPECT_EQ(s.view, ViewId::Counters);
    std::vector<std::string> rows = lines_of(*d, s);
    EXPECT_EQ(rows[4].rfind("leaf03[2] → h0010", 0), 0u) << rows[4];
    EXPECT_EQ(rows[5].rfind("h0010 HCA-1[1] → leaf03", 0), 0u) << rows[5];
    EXPECT_EQ(rows[6].find_first_not_of(' '), std::string::npos)
        << "only the two ends: " << rows[6];

    ViewState f;
    f.view = ViewId::Findings;
    out = draw_frame(d.get(), f, c, FrameInfo{});
    ASSERT_FALSE(out.drill.empty());
    apply_key(f, key::kEnter, out.drill);
    EXPECT_EQ(f.view, ViewId::Counters);
    EXPECT_EQ(lines_of(*d, f)[4].rfind("leaf03[2] → h0010", 0), 0u);
    EXPECT_EQ(lines_of(*d, f)[5].rfind("h0010 HCA-1[1] → leaf03", 0), 0u);
}

TEST(TuiLive, TheKeyLineOffersEnterOnlyWhereItDrills) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    DataBuilder b(BuilderConfig{});
    auto d = b.add(testing::counted_reading(nodes, testing::kFirstReadingMs));
    for (ViewId v : {ViewId::Fabric, ViewId::Links, ViewId::Pairs}) {
        ViewState s;
        s.view = v;
        const std::string keys = lines_of(*d, s).back();
        EXPECT_EQ(keys.find("Enter") != std::string::npos, v != ViewId::Pairs)
            << view_name(v) << ": " << keys;
        // Enter where it does nothing changes nothing.
        apply_key(s, key::kEnter, "h0001");
        EXPECT_EQ(s.view, v == ViewId::Pairs    ? ViewId::Pairs
                          : v == ViewId::Fabric ? ViewId::Links
                                                : ViewId::Counters);
    }
}

/// A 2x2x2 fabric planned healthy, read with leaf02's two host cables swapped.
std::shared_ptr<const TuiData> swapped_against_the_plan() {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    const Fabric planned = Fabric::build(nodes).value();
    BuilderConfig cfg;
    cfg.plan = plan_from_fabric(planned, classify_tiers(planned));
    testing::swap_cables(nodes, "leaf02", 1, 2);
    DataBuilder b(std::move(cfg));
    return b.add(testing::counted_reading(nodes, testing::kFirstReadingMs));
}

TEST(TuiLive, SwappedCablesAreDrawnAsSwappedWithThePlansCables) {
    auto d = swapped_against_the_plan();
    const Board& board = d->board;
    EXPECT_EQ(board.count(LinkStatus::Miscabled), 2u);
    EXPECT_EQ(board.count(LinkStatus::Down), 0u);
    EXPECT_EQ(board.count(LinkStatus::Up), board.links.size() - 2);
    for (const BoardLink& l : board.links) {
        if (l.status != LinkStatus::Miscabled) continue;
        EXPECT_EQ(l.state, "swapped");
        EXPECT_EQ(l.health, Health::Error);
        // Both planned cables at its ports, by name.
        ASSERT_EQ(l.planned.size(), 2u);
        EXPECT_EQ(link_glyph(l), U'⇄');
        const std::string line = link_line(board, l);
        EXPECT_NE(line.find("plan: "), std::string::npos) << line;
        EXPECT_NE(line.find("h0003[1] ↔ leaf02[1]"), std::string::npos) << line;
        EXPECT_NE(line.find("h0004[1] ↔ leaf02[2]"), std::string::npos) << line;
    }
    ViewState s;
    const std::vector<std::string> screen = lines_of(*d, s, 100, 30);
    EXPECT_NE(screen[1].find("2 miscabled"), std::string::npos) << screen[1];
    EXPECT_EQ(screen[1].find("down"), std::string::npos) << screen[1];
}

TEST(TuiLive, At100ColumnsTheHelpAndALongStatusShowEverything) {
    auto d = swapped_against_the_plan();

    ViewState s;
    s.help = true;
    Canvas c(100, 40);
    draw_frame(d.get(), s, c, FrameInfo{});
    const std::string help = c.to_text();
    // Nothing on the screen is cut: not the help, not the tabs.
    EXPECT_EQ(help.find("…"), std::string::npos) << help;
    EXPECT_NE(help.find("a port's links (counters)"), std::string::npos) << help;

    // The swapped link's status (ends, state, plan, finding) on two lines, uncut.
    ViewState l;
    l.view = ViewId::Links;
    Canvas lc(100, 30);
    ViewOutput out = draw_frame(d.get(), l, lc, FrameInfo{});
    ASSERT_GT(text_width(out.status), 100);
    ASSERT_LE(text_width(out.status), 200) << out.status;
    std::istringstream in(lc.to_text());
    std::vector<std::string> rows;
    for (std::string r; std::getline(in, r);) rows.push_back(r);
    const std::string status = rows[rows.size() - 3] + rows[rows.size() - 2];
    EXPECT_EQ(status.find("…"), std::string::npos) << status;
    EXPECT_NE(status.find("cables_swapped"), std::string::npos) << status;
    EXPECT_NE(status.find("plan: "), std::string::npos) << status;
}

}  // namespace
}  // namespace fabscope::tui
