#include "tui/canvas.h"

#include <algorithm>

namespace fabscope::tui {

Canvas::Canvas(int width, int height)
    : width_(std::max(0, width)),
      height_(std::max(0, height)),
      clip_{0, 0, width_, height_},
      cells_(static_cast<size_t>(width_) * static_cast<size_t>(height_)) {}

void Canvas::set_clip(Rect clip) {
    const int x0 = std::clamp(clip.x, 0, width_);
    const int y0 = std::clamp(clip.y, 0, height_);
    const int x1 = std::clamp(clip.right(), x0, width_);
    const int y1 = std::clamp(clip.bottom(), y0, height_);
    clip_ = {x0, y0, x1 - x0, y1 - y0};
}

void Canvas::put(int x, int y, char32_t ch, Style style) {
    if (x < clip_.x || y < clip_.y || x >= clip_.right() || y >= clip_.bottom()) return;
    cells_[index(x, y)] = Cell{ch, style};
}

int Canvas::text(int x, int y, std::string_view utf8, Style style, int max_cols) {
    const std::u32string s = decode_utf8(utf8);
    int limit = max_cols < 0 ? clip_.right() - x : max_cols;
    if (limit <= 0) return 0;
    const auto n = static_cast<int>(s.size());
    const bool cut = n > limit;
    const int shown = cut ? limit - 1 : n;
    for (int i = 0; i < shown; ++i) put(x + i, y, s[static_cast<size_t>(i)], style);
    if (cut) put(x + shown, y, U'…', style);
    return cut ? limit : n;
}

void Canvas::fill(Rect r, char32_t ch, Style style) {
    for (int y = r.y; y < r.bottom(); ++y) {
        for (int x = r.x; x < r.right(); ++x) put(x, y, ch, style);
    }
}

void Canvas::restyle(Rect r, Style style) {
    for (int y = std::max(r.y, clip_.y); y < std::min(r.bottom(), clip_.bottom()); ++y) {
        for (int x = std::max(r.x, clip_.x); x < std::min(r.right(), clip_.right()); ++x) {
            cells_[index(x, y)].style = style;
        }
    }
}

void Canvas::box(Rect r, Style style, std::string_view title) {
    if (r.w < 2 || r.h < 2) return;
    for (int x = r.x + 1; x < r.right() - 1; ++x) {
        put(x, r.y, U'─', style);
        put(x, r.bottom() - 1, U'─', style);
    }
    for (int y = r.y + 1; y < r.bottom() - 1; ++y) {
        put(r.x, y, U'│', style);
        put(r.right() - 1, y, U'│', style);
    }
    put(r.x, r.y, U'┌', style);
    put(r.right() - 1, r.y, U'┐', style);
    put(r.x, r.bottom() - 1, U'└', style);
    put(r.right() - 1, r.bottom() - 1, U'┘', style);
    if (!title.empty() && r.w > 4) {
        Style t = style;
        t.bold = true;
        // Appended, not `" " + std::string(title)`: GCC 12 at -O3 reports a false
        // -Wrestrict in the string::_M_replace that operator+ inlines (GCC bug 105329).
        std::string label = " ";
        label.append(title).append(" ");
        text(r.x + 2, r.y, label, t, r.w - 4);
    }
}

std::string Canvas::to_text() const {
    std::string out;
    for (int y = 0; y < height_; ++y) {
        std::string line;
        for (int x = 0; x < width_; ++x) append_utf8(line, at(x, y).ch);
        line.erase(line.find_last_not_of(' ') + 1);
        out += line;
        out += '\n';
    }
    return out;
}

std::string Canvas::style_map() const {
    static constexpr char kLetters[] = ".rgybmcwkn";
    std::string out;
    for (int y = 0; y < height_; ++y) {
        std::string line;
        for (int x = 0; x < width_; ++x) {
            const Style& s = at(x, y).style;
            char c = kLetters[static_cast<size_t>(s.fg)];
            if (s.bg != Color::Default) {
                c = static_cast<char>(kLetters[static_cast<size_t>(s.bg)] - 'a' + 'A');
            } else if (s.reverse) {
                c = c == '.' ? '#' : static_cast<char>(c - 'a' + 'A');
            }
            line += c;
        }
        line.erase(line.find_last_not_of('.') + 1);
        out += line;
        out += '\n';
    }
    return out;
}

std::u32string decode_utf8(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        int len = b < 0x80           ? 1
                  : (b >> 5) == 0x6  ? 2
                  : (b >> 4) == 0xE  ? 3
                  : (b >> 3) == 0x1E ? 4
                                     : 0;
        if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
            out += U'\uFFFD';
            ++i;
            continue;
        }
        char32_t c = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        bool ok = true;
        for (int k = 1; k < len; ++k) {
            const auto cb = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
            if ((cb & 0xC0) != 0x80) ok = false;
            c = (c << 6) | (cb & 0x3F);
        }
        out += ok ? c : U'\uFFFD';
        i += ok ? static_cast<size_t>(len) : 1;
    }
    return out;
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

int text_width(std::string_view utf8) {
    int n = 0;
    for (char c : utf8) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

std::string fit(std::string_view utf8, int cols) {
    if (cols <= 0) return {};
    const std::u32string s = decode_utf8(utf8);
    std::string out;
    const auto n = static_cast<int>(s.size());
    if (n <= cols) {
        out.assign(utf8);
        out.append(static_cast<size_t>(cols - n), ' ');
        return out;
    }
    for (int i = 0; i < cols - 1; ++i) append_utf8(out, s[static_cast<size_t>(i)]);
    append_utf8(out, U'…');
    return out;
}

}  // namespace fabscope::tui
