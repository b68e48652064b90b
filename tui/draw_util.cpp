#include "tui/draw_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace fabscope::tui {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

Style health_style(Health h) {
    switch (h) {
        case Health::Ok: return Style{Color::Green};
        case Health::Warning: return Style{Color::Yellow};
        case Health::Error: return Style{Color::Red, Color::Default, true};
        case Health::Unknown: return kDim;
    }
    return {};
}

Style severity_style(Severity s) {
    return s == Severity::Info ? Style{Color::Cyan} : health_style(health_of(s));
}

char32_t link_glyph(const BoardLink& l) {
    if (l.status != LinkStatus::Up) return U'×';
    switch (l.health) {
        case Health::Warning: return U'▲';
        case Health::Error: return U'◆';
        default: return U'■';
    }
}

const BoardLink* worst_link(const Board& b, const std::vector<size_t>& links) {
    const BoardLink* w = nullptr;
    for (size_t i : links) {
        const BoardLink& l = b.links[i];
        if (!w || l.health > w->health || (l.health == w->health && l.status > w->status)) w = &l;
    }
    return w;
}

std::string format_rate(double v) {
    if (v <= 0) return "0";
    if (v >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
    if (v >= 1e4) return fmt::format("{:.0f}k", v / 1e3);
    if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
    if (v >= 100) return fmt::format("{:.0f}", v);
    if (v >= 10) return fmt::format("{:.1f}", v);
    return fmt::format("{:.2f}", v);
}

std::string format_link_rate(const BoardLink& l) {
    if (l.status != LinkStatus::Up || !l.width || !l.speed) return "-";
    return fmt::format("{} {}", name(*l.width), name(*l.speed));
}

bool text_matches(std::string_view text, std::string_view filter) {
    return filter.empty() || lower(text).find(lower(filter)) != std::string::npos;
}

bool node_matches(const BoardNode& n, std::string_view filter) {
    if (filter.empty()) return true;
    if (text_matches(n.name, filter) || text_matches(n.label, filter)) return true;
    std::string f = lower(filter);
    if (f.rfind("0x", 0) == 0) f = f.substr(2);
    const bool hex = !f.empty() && std::all_of(f.begin(), f.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c));
    });
    if (hex && n.guid != 0) {
        const std::string g = fmt::format("{:016x}", n.guid);
        const std::string trimmed = f.substr(std::min(f.find_first_not_of('0'), f.size()));
        if (!trimmed.empty() && g.size() >= trimmed.size() &&
            g.compare(g.size() - trimmed.size(), trimmed.size(), trimmed) == 0)
            return true;
    }
    const bool digits = std::all_of(filter.begin(), filter.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
    return digits && n.lid != 0 && filter.size() <= 5 && std::stoul(std::string(filter)) == n.lid;
}

std::u32string sparkline(const std::vector<RateSample>& samples, float RateSample::*field,
                         int width, float floor) {
    static constexpr char32_t kBars[] = U"▁▂▃▄▅▆▇█";
    std::u32string out;
    if (width <= 0) return out;
    const size_t n = std::min(samples.size(), static_cast<size_t>(width));
    const size_t first = samples.size() - n;
    float top = floor;
    for (size_t i = first; i < samples.size(); ++i) top = std::max(top, samples[i].*field);
    out.append(static_cast<size_t>(width) - n, U' ');
    for (size_t i = first; i < samples.size(); ++i) {
        const float v = samples[i].*field;
        if (v < 0) {
            out += U' ';
            continue;
        }
        // Heights to scale; anything at or above `floor` is never flat.
        int level = std::clamp(static_cast<int>(std::lround(v / top * 7.0F)), 0, 7);
        if (v >= floor && level == 0) level = 1;
        out += kBars[level];
    }
    return out;
}

namespace {
/// `pos` within [0, n), and `first` (the first shown of `visible`) so it is shown.
void keep_shown(int& pos, int& first, int n, int visible) {
    pos = std::clamp(pos, 0, std::max(0, n - 1));
    visible = std::max(1, visible);
    if (pos < first) first = pos;
    if (pos >= first + visible) first = pos - visible + 1;
    first = std::clamp(first, 0, std::max(0, n - visible));
}
}  // namespace

void keep_in_view(Cursor& c, int rows, int visible) {
    keep_shown(c.row, c.top, rows, visible);
}

void keep_in_view_cols(Cursor& c, int cols, int visible) {
    keep_shown(c.col, c.left, cols, visible);
}

}  // namespace fabscope::tui
