#pragma once
// What the views share: health colours and glyphs, number formats, the
// filter match, sparklines, and keeping a cursor in range and on screen.

#include <string>
#include <string_view>
#include <vector>

#include "tui/board.h"
#include "tui/canvas.h"
#include "tui/history.h"
#include "tui/view_state.h"

namespace fabscope::tui {

/// What a view says about the item under the cursor, for the status line,
/// and what Enter drills into.
struct ViewOutput {
    std::string status;
    Style status_style;
    std::string drill;
};

Style health_style(Health h);
Style severity_style(Severity s);
inline constexpr Style kDim{Color::Grey};
inline constexpr Style kBold{Color::Default, Color::Default, true};
inline constexpr Style kCursor{Color::Default, Color::Default, false, true};

/// The glyph of a link: its health in shape as well as colour (for
/// NO_COLOR, colour-blind eyes, text captures): ■ healthy, ▲ warning,
/// ◆ error, ⇄ up but swapped or miscabled, × down or missing.
char32_t link_glyph(const BoardLink& l);
/// The worst of several links (a leaf-spine pair with parallel cables).
const BoardLink* worst_link(const Board& b, const std::vector<size_t>& links);

/// "0", "0.25", "12.5", "1.2k", "3.4M".
std::string format_rate(double v);
/// "0", "512", "1.2k", "3.4M": a count in at most 5 columns.
std::string format_count(uint64_t n);
/// "4X HDR", or "-" when down.
std::string format_link_rate(const BoardLink& l);
/// A link for the status line: its ends, rate and state, its error rate
/// over the window and errors since the first reading, its wait, the
/// planned cables a miscabled one stands in for, its first finding.
std::string link_line(const Board& b, const BoardLink& l);

/// Case-insensitive: a substring of the name or label, the GUID (with or
/// without 0x, leading zeros optional), or the LID exactly; "a|b" matches
/// either (what Enter filters by: a link's two ports).
bool node_matches(const BoardNode& n, std::string_view filter);
bool text_matches(std::string_view text, std::string_view filter);

/// One cell per sample (the newest right), `width` cells; bars scaled to the
/// largest value shown (at least `floor`); a value at or above `floor` is
/// never drawn flat, one below a level's half is.
std::u32string sparkline(const std::vector<RateSample>& samples, float RateSample::*field,
                         int width, float floor);

/// Greedy word wrap into lines of at most `w` columns (a longer word is a
/// line of its own, cut when drawn).
std::vector<std::string> wrap_words(const std::string& text, int w);

/// A list of `rows` under one heading line: its page is the body less the
/// heading, the cursor kept in range and shown. Without rows, says `none`
/// and returns false.
bool start_list(Canvas& c, ViewState& s, Rect body, size_t rows, const std::string& none);

/// Keeps `c.row` within [0, rows) and the view's scroll so it is shown.
void keep_in_view(Cursor& c, int rows, int visible);
/// The same for columns.
void keep_in_view_cols(Cursor& c, int cols, int visible);

}  // namespace fabscope::tui
