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
    if (l.status == LinkStatus::Miscabled) return U'⇄';
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

std::string format_count(uint64_t n) {
    if (n < 10000) return std::to_string(n);
    return format_rate(static_cast<double>(n));
}

std::string format_link_rate(const BoardLink& l) {
    if (!l.cabled() || !l.width || !l.speed) return "-";
    return fmt::format("{} {}", name(*l.width), name(*l.speed));
}

std::string link_line(const Board& b, const BoardLink& l) {
    std::string s = fmt::format("{} ↔ {}  {}  {}", b.end_name(l.a), b.end_name(l.b),
                                format_link_rate(l), l.state);
    if (!l.planned.empty()) {
        s += "  plan:";
        for (const std::string& p : l.planned) s += (&p == &l.planned.front() ? " " : ", ") + p;
    }
    if (l.rates) {
        s += fmt::format("  err {}/s over {:.0f} s", format_rate(l.rates->errors_per_s),
                         l.rates->seconds);
        if (l.rates->xmit_wait) s += fmt::format("  wait {:.1f}%", *l.rates->xmit_wait * 100);
    }
    if (l.errors_total) s += fmt::format("  {} errors since the first reading", *l.errors_total);
    // A miscabled link's plan says what its finding would (the finding's kind
    // is enough); any other link's finding is said whole.
    if (!l.findings.empty()) {
        const Finding& f = b.findings[l.findings.front()];
        s += "  — " + (l.planned.empty() ? f.summary : f.kind);
    }
    return s;
}

namespace {

/// Calls `one` for each alternative of "a|b|c"; true when any matches.
template <class Fn>
bool any_alternative(std::string_view filter, Fn&& one) {
    while (true) {
        const size_t bar = filter.find('|');
        const std::string_view alt = filter.substr(0, bar);
        if (!alt.empty() && one(alt)) return true;
        if (bar == std::string_view::npos) return false;
        filter.remove_prefix(bar + 1);
    }
}

bool node_matches_one(const BoardNode& n, std::string_view filter);

}  // namespace

bool text_matches(std::string_view text, std::string_view filter) {
    if (filter.empty()) return true;
    const std::string t = lower(text);
    return any_alternative(
        filter, [&](std::string_view alt) { return t.find(lower(alt)) != std::string::npos; });
}

bool node_matches(const BoardNode& n, std::string_view filter) {
    if (filter.empty()) return true;
    return any_alternative(filter, [&](std::string_view alt) { return node_matches_one(n, alt); });
}

namespace {

bool node_matches_one(const BoardNode& n, std::string_view filter) {
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

}  // namespace

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

std::vector<std::string> wrap_words(const std::string& text, int w) {
    std::vector<std::string> out;
    std::string line;
    size_t i = 0;
    while (i < text.size()) {
        size_t j = text.find(' ', i);
        if (j == std::string::npos) j = text.size();
        const std::string word = text.substr(i, j - i);
        if (!line.empty() && text_width(line) + 1 + text_width(word) > w) {
            out.push_back(line);
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        i = j + 1;
    }
    if (!line.empty()) out.push_back(line);
    return out;
}

bool start_list(Canvas& c, ViewState& s, Rect body, size_t rows, const std::string& none) {
    s.page = body.h - 1;
    keep_in_view(s.cursor(), static_cast<int>(rows), s.page);
    if (rows > 0) return true;
    c.text(body.x, body.y + 2, none, kDim);
    return false;
}

void keep_in_view(Cursor& c, int rows, int visible) {
    keep_shown(c.row, c.top, rows, visible);
}

void keep_in_view_cols(Cursor& c, int cols, int visible) {
    keep_shown(c.col, c.left, cols, visible);
}

}  // namespace fabscope::tui
