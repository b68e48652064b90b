#include <fmt/format.h>

#include <algorithm>

#include "tui/keys.h"
#include "tui/views.h"
#include "util/time_util.h"

namespace fabscope::tui {
namespace {

constexpr int kMinWidth = 40;
constexpr int kMinHeight = 10;

std::string ago(int64_t now_ms, int64_t then_ms) {
    const int64_t s = std::max<int64_t>(0, (now_ms - then_ms + 500) / 1000);
    if (s < 120) return fmt::format("{} s ago", s);
    if (s < 7200) return fmt::format("{} min ago", s / 60);
    return fmt::format("{} h ago", s / 3600);
}

/// Right of the tabs: the source, how often and how long ago it was read.
std::string tabs_right(const TuiData* d, const ViewState& s, const FrameInfo& info) {
    std::string right;
    if (d) {
        right = d->meta.source;
        if (d->meta.live) right += fmt::format(" · every {:.0f} s", d->meta.interval_s);
        // Live: how old the data is; files: when they were taken.
        right += d->meta.live ? " · read " + ago(info.now_ms, d->meta.taken_ms)
                              : " · " + iso8601(d->meta.taken_ms);
    }
    if (info.sweeping) right = fmt::format("reading… {:.0f} s · ", info.sweeping_s) + right;
    if (s.paused) right = "PAUSED · " + right;
    return right + " ";
}

/// The tab of view `v`: its number and name, or (`compact`, for a view
/// not shown) its number alone.
std::string tab_text(size_t v, bool on, bool compact) {
    if (compact && !on) return fmt::format(" {} ", v + 1);
    return fmt::format(" {} {} ", v + 1, view_name(static_cast<ViewId>(v)));
}

void draw_tabs(const TuiData* d, const ViewState& s, Canvas& c, const FrameInfo& info) {
    const Style bar{Color::Default, Color::Default, false, true};
    c.fill({0, 0, c.width(), 1}, U' ', bar);
    const std::string right = tabs_right(d, s, info);
    // The other views' names go before what is read and when (they are in
    // the help; the source and its age are not anywhere else).
    int full = 10;
    for (size_t v = 0; v < kViewCount; ++v) full += text_width(tab_text(v, false, false));
    const bool compact = full + 1 + text_width(right) > c.width();
    int x = c.text(0, 0, " fabscope ", Style{Color::Default, Color::Default, true, true});
    for (size_t v = 0; v < kViewCount; ++v) {
        const bool on = static_cast<size_t>(s.view) == v;
        x += c.text(x, 0, tab_text(v, on, compact), on ? kBold : bar);
    }
    const int w = text_width(right);
    if (x + 1 + w <= c.width()) {
        c.text(c.width() - w, 0, right, bar);
    } else if (x + 4 < c.width()) {
        c.text(x + 1, 0, right, bar, c.width() - x - 1);
    }
}

void draw_summary(const TuiData& d, Canvas& c) {
    const Board& b = d.board;
    int x = 0;
    std::string tiers;
    for (size_t t = 0; t < b.tiers.size(); ++t) {
        if (!tiers.empty()) tiers += " · ";
        tiers += tier_count(static_cast<int>(t), b.tiers[t].size());
    }
    if (!b.unreachable.empty()) tiers += fmt::format(" · {} unreachable", b.unreachable.size());
    x += c.text(x, 1, tiers, kBold) + 3;
    const size_t up = b.count(LinkStatus::Up);
    const size_t swapped = b.count(LinkStatus::Miscabled);
    const size_t down = b.links.size() - up - swapped;
    x += c.text(x, 1, fmt::format("links {} up", up));
    if (swapped)
        x += c.text(x, 1, fmt::format(", {} miscabled", swapped), health_style(Health::Error));
    if (down) x += c.text(x, 1, fmt::format(", {} down", down), health_style(Health::Error));
    if (const size_t deg = b.count(Health::Warning); deg)
        x += c.text(x, 1, fmt::format(", {} with warnings", deg), health_style(Health::Warning));
    x += 3;
    const size_t e = d.count(Severity::Error);
    const size_t w = d.count(Severity::Warning);
    if (e == 0 && w == 0) {
        c.text(x, 1, "no findings", health_style(Health::Ok));
        return;
    }
    if (e)
        x += c.text(x, 1, fmt::format("{} error{}", e, e == 1 ? "" : "s"),
                    health_style(Health::Error)) +
             1;
    if (w)
        c.text(x, 1, fmt::format("{} warning{}", w, w == 1 ? "" : "s"),
               health_style(Health::Warning));
}

/// Rows under the view: the status (wrapped onto two), then the keys.
constexpr int kBottomRows = 3;

/// The status of what is under the cursor, on two lines; cut only beyond them.
void draw_status(const ViewOutput& v, Canvas& c, int y) {
    std::vector<std::string> lines = wrap_words(v.status, c.width());
    for (size_t i = 0; i < lines.size() && i < 2; ++i) {
        std::string text = lines[i];
        if (i == 1) {
            for (size_t k = 2; k < lines.size(); ++k) text += " " + lines[k];
        }
        c.text(0, y + static_cast<int>(i), text, v.status_style, c.width());
    }
}

/// The keys that work in this view: Enter only where it drills somewhere.
std::string key_line(const ViewState& s, const ViewOutput& v) {
    std::string keys = "Tab/1-6 views  arrows move  / filter";
    if (s.view == ViewId::Links || s.view == ViewId::Counters) keys += "  s sort";
    if (auto to = drill_target(s.view); to && !v.drill.empty()) keys += "  Enter " + view_word(*to);
    if (s.view == ViewId::Pairs) keys += "  t test";
    return keys + "  r read now  p pause  ? help  q quit";
}

void draw_bottom(const TuiData* d, const ViewState& s, const ViewOutput& v, Canvas& c) {
    const int y_keys = c.height() - 1;
    draw_status(v, c, c.height() - kBottomRows);
    if (s.editing) {
        const int x = c.text(0, y_keys, "filter: " + s.edit, kBold);
        c.put(x, y_keys, U'▏', kBold);
        c.text(x + 2, y_keys, "name, GUID or LID · Enter keeps · Esc clears", kDim);
        return;
    }
    if (d && !d->meta.error.empty()) {
        c.text(0, y_keys, "reading failed: " + d->meta.error, health_style(Health::Error),
               c.width());
        return;
    }
    int x = 0;
    if (!s.filter.empty())
        x += c.text(0, y_keys, fmt::format("filter \"{}\" (Esc clears)  ", s.filter),
                    Style{Color::Cyan});
    if (!s.message.empty()) {
        c.text(x, y_keys, s.message, Style{Color::Cyan});
        return;
    }
    c.text(x, y_keys, key_line(s, v), kDim, c.width() - x);
}

}  // namespace

std::string_view view_name(ViewId v) {
    switch (v) {
        case ViewId::Fabric: return "Fabric";
        case ViewId::Links: return "Links";
        case ViewId::Counters: return "Counters";
        case ViewId::Pairs: return "Pairs";
        case ViewId::Findings: return "Findings";
        case ViewId::Congestion: return "Congestion";
    }
    return "?";
}

std::string view_word(ViewId v) {
    std::string n(view_name(v));
    n[0] = static_cast<char>(n[0] - 'A' + 'a');
    return n;
}

std::optional<ViewId> parse_view(std::string_view s) {
    for (size_t v = 0; v < kViewCount; ++v) {
        if (view_word(static_cast<ViewId>(v)) == s) return static_cast<ViewId>(v);
    }
    return std::nullopt;
}

void draw_help(Canvas& c) {
    static constexpr std::array<std::pair<const char*, const char*>, 13> kKeys{{
        {"1-6 Tab S-Tab", "views: fabric, links, counters, pairs, findings, congestion"},
        {"arrows h j k l", "move (the fabric view: across links too)"},
        {"PgUp PgDn g G", "page, first, last"},
        {"/", "filter by name, GUID or LID (a|b: either); Enter keeps, Esc clears"},
        {"Enter",
         "drill in: a switch's links (fabric); a link's or a finding's ports' counters "
         "(links, findings); a port's links (counters)"},
        {"s  S", "sort by the next column, reverse (links, counters)"},
        {"t  T", "next, previous test or mesh run (pairs)"},
        {"r", "read the fabric now (live)"},
        {"p", "pause or resume reading"},
        {"?", "this help; any key closes it"},
        {"q  Ctrl-C", "quit"},
        {"rates", "err/s, Gb/s, wait: over the last --rate-window (default 1 min) of readings"},
        {"errors", "counted since the first reading, beside the rates"},
    }};
    // Keys in 15 columns, what they do wrapped into the rest: everything
    // shows from 80 columns up.
    const int w = std::min(c.width() - 2, 96);
    const int what_w = w - 4 - 16;
    std::vector<std::pair<const char*, std::vector<std::string>>> rows;
    int lines = 0;
    for (const auto& [k, what] : kKeys) {
        rows.emplace_back(k, wrap_words(what, what_w));
        lines += static_cast<int>(rows.back().second.size());
    }
    const int h = std::min(c.height() - 2, lines + 7);
    const Rect r{(c.width() - w) / 2, (c.height() - h) / 2, w, h};
    c.fill(r, U' ');
    c.box(r, kBold, "fabscope tui: keys");
    c.set_clip({r.x + 1, r.y + 1, r.w - 2, r.h - 2});
    int y = r.y + 1;
    for (const auto& [k, what] : rows) {
        c.text(r.x + 2, y, k, kBold, 15);
        for (const std::string& line : what) c.text(r.x + 18, y++, line, {});
    }
    ++y;
    int x = r.x + 2;
    x += c.text(x, y, "■ healthy ", health_style(Health::Ok));
    x += c.text(x, y, "▲ warning ", health_style(Health::Warning));
    x += c.text(x, y, "◆ error ", health_style(Health::Error));
    x += c.text(x, y, "⇄ swapped ", health_style(Health::Error));
    x += c.text(x, y, "× down ", health_style(Health::Error));
    c.text(x, y, "· no link", kDim);
    c.text(r.x + 2, y + 1, "Down: expected (plan, baseline or first reading) but not up.", kDim);
    c.text(r.x + 2, y + 2,
           "Swapped: up, but the plan has other cables at its ports (it names them).", kDim);
    c.reset_clip();
}

ViewOutput draw_frame(const TuiData* d, ViewState& s, Canvas& c, const FrameInfo& info) {
    ViewOutput out;
    if (c.width() < kMinWidth || c.height() < kMinHeight) {
        c.text(0, 0,
               fmt::format("fabscope: the terminal is {}×{}; it needs at least {}×{}", c.width(),
                           c.height(), kMinWidth, kMinHeight));
        return out;
    }
    draw_tabs(d, s, c, info);
    const Rect body{0, 3, c.width(), c.height() - 3 - kBottomRows};
    if (!d) {
        c.text(0, 1, "Reading the fabric…", kBold);
        c.text(0, 3, fmt::format("The first reading is in progress ({:.0f} s).", info.sweeping_s),
               kDim);
        draw_bottom(d, s, out, c);
        if (s.help) draw_help(c);
        return out;
    }
    draw_summary(*d, c);
    switch (s.view) {
        case ViewId::Fabric: out = draw_fabric(*d, s, c, body); break;
        case ViewId::Links: out = draw_links(*d, s, c, body); break;
        case ViewId::Counters: out = draw_counters(*d, s, c, body); break;
        case ViewId::Pairs: out = draw_pairs(*d, s, c, body); break;
        case ViewId::Findings: out = draw_findings(*d, s, c, body); break;
        case ViewId::Congestion: out = draw_congestion(*d, s, c, body); break;
    }
    draw_bottom(d, s, out, c);
    if (s.help) draw_help(c);
    return out;
}

}  // namespace fabscope::tui
