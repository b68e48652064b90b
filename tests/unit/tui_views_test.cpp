// Golden tests of every view at fixed sizes: the text and the colours of
// each frame are compared with tests/fixtures/tui/*.txt. After an intended
// change, regenerate with UPDATE_GOLDEN=1 (that run fails, having rewritten
// them), review the diff, and run again without it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tui/keys.h"
#include "tui/screen.h"
#include "tui/views.h"
#include "tui_scenario.h"

namespace fabscope::tui {
namespace {

namespace fs = std::filesystem;

std::string render(const TuiData* d, ViewState s, int w, int h) {
    Canvas c(w, h);
    draw_frame(d, s, c, FrameInfo{testing::kSecondReadingMs + 3000, false, 0});
    return c.to_text() + "--- colours ---\n" + c.style_map();
}

void expect_golden(const std::string& name, const std::string& actual) {
    const fs::path path = fs::path(FIXTURES_DIR) / "tui" / (name + ".txt");
    if (std::getenv("UPDATE_GOLDEN")) {
        // Rewritten, and still a failure: a run that accepts new goldens
        // must never pass as if it had checked them.
        std::ofstream(path) << actual;
        ADD_FAILURE() << "UPDATE_GOLDEN is set: rewrote " << path
                      << "; review the diff and run again without it";
        return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing; create it with UPDATE_GOLDEN=1";
    std::stringstream want;
    want << in.rdbuf();
    if (want.str() != actual) {
        const fs::path got = fs::temp_directory_path() / (name + ".actual.txt");
        std::ofstream(got) << actual;
        ADD_FAILURE() << name << " differs from " << path << "; this run drew " << got
                      << " (UPDATE_GOLDEN=1 accepts it)\n"
                      << actual;
    }
}

class TuiGolden : public ::testing::TestWithParam<std::tuple<ViewId, int, int>> {};

TEST_P(TuiGolden, DrawsAsRecorded) {
    auto [view, w, h] = GetParam();
    auto d = testing::tui_scenario();
    ViewState s;
    s.view = view;
    expect_golden(view_word(view) + "-" + std::to_string(w) + "x" + std::to_string(h),
                  render(d.get(), s, w, h));
}

INSTANTIATE_TEST_SUITE_P(Views, TuiGolden,
                         ::testing::Combine(::testing::Values(ViewId::Fabric, ViewId::Links,
                                                              ViewId::Counters, ViewId::Pairs,
                                                              ViewId::Findings),
                                            ::testing::Values(80), ::testing::Values(24)));
INSTANTIATE_TEST_SUITE_P(Wide, TuiGolden,
                         ::testing::Combine(::testing::Values(ViewId::Fabric, ViewId::Links,
                                                              ViewId::Findings),
                                            ::testing::Values(132), ::testing::Values(40)));

TEST(TuiGoldenExtra, HelpFilterAndStates) {
    auto d = testing::tui_scenario();
    ViewState s;
    s.help = true;
    expect_golden("help-80x24", render(d.get(), s, 80, 24));
    ViewState f;
    f.view = ViewId::Links;
    f.editing = true;
    f.edit = "leaf02";
    expect_golden("links-filtered-80x24", render(d.get(), f, 80, 24));
    expect_golden("waiting-80x24", render(nullptr, ViewState{}, 80, 24));
    auto none = testing::tui_scenario(false);
    ViewState p;
    p.view = ViewId::Pairs;
    expect_golden("pairs-none-80x24", render(none.get(), p, 80, 24));
}

TEST(TuiViews, TheDownLinkIsARedCrossInTheFabricView) {
    auto d = testing::tui_scenario();
    ViewState s;
    Canvas c(80, 24);
    draw_frame(d.get(), s, c, FrameInfo{testing::kSecondReadingMs, false, 0});
    // Find leaf02's row; its first spine column is the unplugged cable.
    int found = 0;
    for (int y = 0; y < c.height(); ++y) {
        std::string row;
        for (int x = 0; x < 6; ++x) append_utf8(row, c.at(x, y).ch);
        if (row != "leaf02") continue;
        for (int x = 6; x < c.width(); ++x) {
            if (c.at(x, y).ch == U'×') {
                EXPECT_EQ(c.at(x, y).style.fg, Color::Red);
                ++found;
            }
        }
    }
    EXPECT_EQ(found, 1);
}

TEST(TuiViews, EveryViewFitsTheSmallestScreenAndHugeOnes) {
    auto d = testing::tui_scenario();
    for (auto [w, h] : {std::pair{40, 10}, std::pair{300, 120}}) {
        for (size_t v = 0; v < kViewCount; ++v) {
            ViewState s;
            s.view = static_cast<ViewId>(v);
            Canvas c(w, h);
            draw_frame(d.get(), s, c, FrameInfo{});
            const std::string text = c.to_text();
            std::vector<std::string> lines;
            std::istringstream in(text);
            for (std::string l; std::getline(in, l);) lines.push_back(l);
            // Every line of the canvas, the tabs on top with the view's own
            // tab, the summary, and the key line at the bottom.
            ASSERT_EQ(lines.size(), static_cast<size_t>(h)) << text;
            EXPECT_EQ(lines[0].rfind(" fabscope ", 0), 0u) << lines[0];
            if (w >= 100) {
                EXPECT_NE(lines[0].find(std::string(view_name(s.view))), std::string::npos)
                    << lines[0];
            }
            EXPECT_EQ(lines[1].rfind("16 hosts", 0), 0u) << lines[1];
            EXPECT_EQ(lines.back().rfind("Tab/1-6 views", 0), 0u) << lines.back();
        }
    }
    // Below 40x10: one line that says so, not a clipped frame.
    Canvas small(39, 9);
    ViewState s;
    draw_frame(d.get(), s, small, FrameInfo{});
    EXPECT_EQ(small.to_text().rfind("fabscope: the terminal is 39×9; it nee…\n", 0), 0u)
        << small.to_text();
}

/// How many rows the unfiltered view `s.view` of `d` lists: the cursor's range.
int rows_in_view(const TuiData& d, const ViewState& s) {
    size_t n = 0;
    switch (s.view) {
        case ViewId::Fabric:
            for (const TierBlock& blk : d.board.blocks) n += blk.rows.size();
            break;
        case ViewId::Links: n = d.board.links.size(); break;
        case ViewId::Counters:
            for (const PortSeries& p : d.history->series()) n += !p.samples.empty();
            break;
        case ViewId::Pairs: n = d.pairs.grids[static_cast<size_t>(s.pair_test)].rows.size(); break;
        case ViewId::Findings: n = d.findings.size(); break;
        case ViewId::Congestion:
            // No congestion report: a heading, then the ports waiting now.
            for (const PortSeries& p : d.history->series())
                n += !p.samples.empty() && p.last_ms == d.meta.taken_ms && p.now().wait > 0;
            n = 1 + std::max<size_t>(n, 1);
            break;
    }
    return static_cast<int>(n);
}

TEST(TuiViews, TheCursorStaysInRangeWhateverTheKeys) {
    auto d = testing::tui_scenario();
    ASSERT_NE(d->history, nullptr);
    ViewState s;
    for (size_t v = 0; v < kViewCount; ++v) {
        s.view = static_cast<ViewId>(v);
        const int rows = rows_in_view(*d, s);
        ASSERT_GT(rows, 1) << view_name(s.view);  // else End lands where Home does
        for (int k : {key::kEnd, key::kPageDown, key::kRight, key::kRight, key::kHome, key::kUp,
                      key::kLeft}) {
            apply_key(s, k);
            Canvas c(80, 24);
            draw_frame(d.get(), s, c, FrameInfo{});
            EXPECT_GE(s.cursor().row, 0);
            EXPECT_GE(s.cursor().col, 0);
            // End asks for row 1 << 30 and PageDown for a page past it: the view
            // brings the cursor back to a row it lists, End to the last one.
            EXPECT_LT(s.cursor().row, rows) << view_name(s.view) << " after key " << k;
            if (k == key::kEnd) {
                EXPECT_EQ(s.cursor().row, rows - 1) << view_name(s.view);
            }
        }
    }
}

TEST(TuiViews, EveryGlyphDrawnHasAnAsciiStandIn) {
    auto d = testing::tui_scenario();
    for (size_t v = 0; v < kViewCount + 1; ++v) {
        ViewState s;
        s.view = static_cast<ViewId>(v % kViewCount);
        s.help = v == kViewCount;
        Canvas c(132, 40);
        draw_frame(d.get(), s, c, FrameInfo{});
        for (int y = 0; y < c.height(); ++y) {
            for (int x = 0; x < c.width(); ++x) {
                const char32_t ch = c.at(x, y).ch;
                if (ch >= 0x80) {
                    EXPECT_NE(ascii_glyph(ch), U'?')
                        << "U+" << std::hex << static_cast<uint32_t>(ch) << " in view " << v
                        << ", line " << std::dec << y;
                }
            }
        }
    }
}

}  // namespace
}  // namespace fabscope::tui
