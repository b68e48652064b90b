#pragma once
// A character grid that views draw into: one code point and one style per
// cell. Views are pure functions of the data and a canvas, so they are tested
// as text (and a colour map) without a terminal; the screen (screen.h) is the
// only place that knows ncurses.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope::tui {

enum class Color : uint8_t { Default, Red, Green, Yellow, Blue, Magenta, Cyan, White, Grey, Black };

struct Style {
    Color fg = Color::Default;
    Color bg = Color::Default;
    bool bold = false;
    bool reverse = false;
    bool underline = false;
    bool operator==(const Style&) const = default;
};

struct Cell {
    char32_t ch = U' ';
    Style style;
    bool operator==(const Cell&) const = default;
};

struct Rect {
    int x = 0;
    int y = 0;
    int w = 0;
    int h = 0;
    int right() const { return x + w; }
    int bottom() const { return y + h; }
};

class Canvas {
  public:
    Canvas(int width, int height);

    int width() const { return width_; }
    int height() const { return height_; }
    Rect bounds() const { return {0, 0, width_, height_}; }
    const Cell& at(int x, int y) const { return cells_[index(x, y)]; }

    /// Draws inside `clip` only (the whole canvas by default).
    void set_clip(Rect clip);
    void reset_clip() { clip_ = bounds(); }

    void put(int x, int y, char32_t ch, Style style = {});
    /// UTF-8 text from (x, y), one cell per code point, cut at `max_cols`
    /// (-1: the clip edge) with "…" when cut. Returns the columns used.
    int text(int x, int y, std::string_view utf8, Style style = {}, int max_cols = -1);
    void fill(Rect r, char32_t ch, Style style = {});
    /// Restyles cells without changing their characters (a cursor bar).
    void restyle(Rect r, Style style);
    /// A frame with an optional title in its top edge.
    void box(Rect r, Style style, std::string_view title = {});

    /// The characters, one line per row, trailing blanks trimmed.
    std::string to_text() const;
    /// The styles, one letter per cell: '.' default, r g y b m c w k (grey)
    /// n (black) for the foreground colour; on a background, its letter in
    /// upper case; reversed, '#' (or the foreground's letter in upper case).
    std::string style_map() const;

  private:
    size_t index(int x, int y) const {
        return static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x);
    }
    int width_;
    int height_;
    Rect clip_;
    std::vector<Cell> cells_;
};

/// Code points of a UTF-8 string (invalid bytes become U+FFFD).
std::u32string decode_utf8(std::string_view s);
void append_utf8(std::string& out, char32_t c);
/// Columns `s` takes on the canvas (one per code point).
int text_width(std::string_view utf8);
/// `s` cut to `cols` columns with "…", or padded with blanks to exactly `cols`.
std::string fit(std::string_view utf8, int cols);

}  // namespace fabscope::tui
