#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

constexpr std::array<const char*, kCounterSorts> kCounterSortNames{"errors", "xmit wait", "traffic",
                                                                   "name"};

/// The column groups: head, the rate drawn, and the sort its head marks.
constexpr std::array<std::tuple<const char*, float RateSample::*, CounterSort>, 3> kGroups{
    std::tuple{"Gb/s", &RateSample::gbps, CounterSort::Traffic},
    std::tuple{"err/s", &RateSample::errors, CounterSort::Errors},
    std::tuple{"xmit wait", &RateSample::wait, CounterSort::XmitWait}};

/// Why there is nothing to show yet, and what brings it.
void draw_no_rates(Canvas& c, const TuiData& d, Rect body) {
    c.text(body.x, body.y, "Counter rates need two readings of the same ports.", kBold);
    c.text(body.x, body.y + 2,
           d.meta.live ? fmt::format("The next reading comes within {:.0f} s.", d.meta.interval_s)
                       : "With --load, give two or more snapshots taken with counters (fabscope "
                         "sweep), oldest first.",
           kDim);
}

/// The series with samples that the filter keeps, in the view's sort order.
std::vector<size_t> sorted_rows(const std::vector<PortSeries>& all, const ViewState& s) {
    const std::string& filter = s.active_filter();
    std::vector<size_t> rows;
    for (size_t i = 0; i < all.size(); ++i) {
        if (!all[i].samples.empty() && text_matches(all[i].label, filter)) rows.push_back(i);
    }
    auto by_name = [&](size_t x, size_t y) { return natural_less(all[x].label, all[y].label); };
    // Worst first: the rate over the window (the one the links view shows),
    // then what the port did before it (errors since the first reading, the
    // highest wait kept: a port whose errors rose a while ago is still the
    // one to look at), then the name.
    auto peak = [&](size_t i, float RateSample::*f) {
        float m = 0;
        for (const RateSample& x : all[i].samples) m = std::max(m, x.*f);
        return m;
    };
    auto desc = [&](float RateSample::*f, auto then) {
        return [&, f, then](size_t x, size_t y) {
            const float a = all[x].recent.*f;
            const float b = all[y].recent.*f;
            if (a != b) return a > b;
            const auto tx = then(x);
            const auto ty = then(y);
            return tx != ty ? tx > ty : by_name(x, y);
        };
    };
    auto total = [&](size_t i) { return all[i].errors_total; };
    auto peak_wait = [&](size_t i) { return peak(i, &RateSample::wait); };
    auto none = [](size_t) { return 0; };
    switch (s.counter_sort) {
        case CounterSort::Errors:
            std::stable_sort(rows.begin(), rows.end(), desc(&RateSample::errors, total));
            break;
        case CounterSort::XmitWait:
            std::stable_sort(rows.begin(), rows.end(), desc(&RateSample::wait, peak_wait));
            break;
        case CounterSort::Traffic:
            std::stable_sort(rows.begin(), rows.end(), desc(&RateSample::gbps, none));
            break;
        case CounterSort::Name: std::stable_sort(rows.begin(), rows.end(), by_name); break;
    }
    if (s.reverse) std::reverse(rows.begin(), rows.end());
    return rows;
}

/// How wide the labels, each group and its sparkline are.
struct Widths {
    int label;
    int group;
    int spark;
};

/// The errors since the first reading, right of the label.
constexpr int kTotalW = 8;

/// Labels as wide as the longest shown (within limits), the rest split in three.
Widths lay_out(const std::vector<PortSeries>& all, const std::vector<size_t>& rows, Rect body) {
    int label_w = 12;  // "port → peer"
    for (size_t i : rows) label_w = std::max(label_w, text_width(all[i].label));
    label_w = std::min(label_w, std::max(12, body.w * 3 / 10));
    const int group_w = (body.w - label_w - 1 - kTotalW) / 3;
    return {label_w, group_w, std::max(4, group_w - 8)};
}

/// Where group `g` starts.
int group_x(Rect body, const Widths& w, size_t g) {
    return body.x + w.label + 1 + kTotalW + static_cast<int>(g) * w.group;
}

/// The heads, the sorted group's underlined.
void draw_heads(Canvas& c, Rect body, const Widths& w, CounterSort sort) {
    c.text(body.x, body.y, "port → peer", kBold);
    c.text(body.x + w.label + 1, body.y, "errors", kBold);
    for (size_t g = 0; g < kGroups.size(); ++g) {
        Style hs = kBold;
        hs.underline = std::get<2>(kGroups[g]) == sort;
        c.text(group_x(body, w, g), body.y, std::get<0>(kGroups[g]), hs);
    }
}

/// One rate of a port: its value now, then its sparkline, coloured by how bad.
void draw_group(Canvas& c, const PortSeries& ps, float RateSample::*field, int gx, int y,
                int spark_w) {
    const float v = ps.recent.*field;
    std::string value;
    Style vs;
    Style sp = Style{Color::Cyan};
    if (field == &RateSample::wait) {
        value = v < 0 ? "-" : fmt::format("{:.1f}%", v * 100);
        if (v >= 0.05F) vs = sp = health_style(v >= 0.2F ? Health::Error : Health::Warning);
    } else {
        value = format_rate(v);
        if (field == &RateSample::errors && v > 0) vs = sp = health_style(Health::Warning);
    }
    c.text(gx, y, fmt::format("{:>6}", value), vs, 7);
    // Bars start at a level worth a look: 5% waiting, 1 error/s, 0.1 Gb/s.
    const float floor = field == &RateSample::wait     ? 0.05F
                        : field == &RateSample::errors ? 1.0F
                                                       : 0.1F;
    const std::u32string line = sparkline(ps.samples, field, spark_w, floor);
    for (size_t k = 0; k < line.size(); ++k) c.put(gx + 7 + static_cast<int>(k), y, line[k], sp);
}

/// One port's line at `y`: its label, then each group.
void draw_port(Canvas& c, Rect body, const Widths& w, const PortSeries& ps, int y, bool is_cur) {
    Style ls = is_cur ? kCursor : Style{};
    c.text(body.x, y, fit(ps.label, w.label), ls, w.label);
    c.text(body.x + w.label + 1, y, fmt::format("{:>6}", format_count(ps.errors_total)),
           ps.errors_total > 0 ? health_style(Health::Warning) : kDim, 7);
    for (size_t g = 0; g < kGroups.size(); ++g)
        draw_group(c, ps, std::get<1>(kGroups[g]), group_x(body, w, g), y, w.spark);
}

/// The port under the cursor: its rates now, where it is in the list and the sort order.
ViewOutput describe_port(const ViewState& s, const PortSeries& sel, size_t rows) {
    ViewOutput out;
    const RateSample& n = sel.recent;
    out.status = fmt::format(
        "{}/{}  sorted by {}{}  {}: {} Gb/s, {} errors/s over {:.0f} s{}; {} errors since the "
        "first reading; {} samples",
        s.cursor().row + 1, rows, kCounterSortNames[static_cast<size_t>(s.counter_sort)],
        s.reverse ? " (reversed)" : "", sel.label, format_rate(n.gbps), format_rate(n.errors),
        sel.recent_s,
        n.wait >= 0 ? fmt::format(", waiting {:.1f}% of the time", n.wait * 100) : std::string(),
        sel.errors_total, sel.samples.size());
    out.drill = sel.label.substr(0, sel.label.find('['));
    return out;
}

}  // namespace

ViewOutput draw_counters(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    ViewOutput out;
    c.set_clip(body);
    const History* h = d.history.get();
    if (!h || h->series().empty()) {
        draw_no_rates(c, d, body);
        c.reset_clip();
        return out;
    }
    const auto& all = h->series();
    const std::vector<size_t> rows = sorted_rows(all, s);

    const Widths w = lay_out(all, rows, body);
    draw_heads(c, body, w, s.counter_sort);
    if (!start_list(c, s, body, rows.size(),
                    fmt::format("No port matches \"{}\": a port that is down or was not read "
                                "twice has no rates.",
                                s.active_filter()))) {
        c.reset_clip();
        return out;
    }
    const int list_h = s.page;
    const Cursor& cur = s.cursor();
    for (int i = 0; i < list_h && cur.top + i < static_cast<int>(rows.size()); ++i) {
        const PortSeries& ps = all[rows[static_cast<size_t>(cur.top) + static_cast<size_t>(i)]];
        draw_port(c, body, w, ps, body.y + 1 + i, cur.top + i == cur.row);
    }
    out = describe_port(s, all[rows[static_cast<size_t>(cur.row)]], rows.size());
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
