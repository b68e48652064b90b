#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

constexpr std::array<const char*, kCounterSorts> kCounterSortNames{"errors", "xmit wait", "traffic",
                                                                   "name"};

}  // namespace

ViewOutput draw_counters(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    ViewOutput out;
    c.set_clip(body);
    const History* h = d.history.get();
    if (!h || h->series().empty()) {
        c.text(body.x, body.y, "Counter rates need two readings of the same ports.", kBold);
        c.text(body.x, body.y + 2,
               d.meta.live
                   ? fmt::format("The next reading comes within {:.0f} s.", d.meta.interval_s)
                   : "With --load, give two or more snapshots taken with counters (fabscope "
                     "sweep), oldest first.",
               kDim);
        c.reset_clip();
        return out;
    }
    const std::string& filter = s.active_filter();
    const auto& all = h->series();
    std::vector<size_t> rows;
    for (size_t i = 0; i < all.size(); ++i) {
        if (!all[i].samples.empty() && text_matches(all[i].label, filter)) rows.push_back(i);
    }
    auto by_name = [&](size_t x, size_t y) { return natural_less(all[x].label, all[y].label); };
    // Worst first: the highest rate in the kept history (a port whose errors
    // rose a few readings ago is still the one to look at), then now, then name.
    auto peak = [&](size_t i, float RateSample::*f) {
        float m = 0;
        for (const RateSample& x : all[i].samples) m = std::max(m, x.*f);
        return m;
    };
    auto worst = [&](float RateSample::*f) {
        return [&, f](size_t x, size_t y) {
            const float px = peak(x, f);
            const float py = peak(y, f);
            if (px != py) return px > py;
            const float a = all[x].now().*f;
            const float b = all[y].now().*f;
            return a != b ? a > b : by_name(x, y);
        };
    };
    auto desc = [&](float RateSample::*f) {
        return [&, f](size_t x, size_t y) {
            const float a = all[x].now().*f;
            const float b = all[y].now().*f;
            return a != b ? a > b : by_name(x, y);
        };
    };
    switch (s.counter_sort) {
        case CounterSort::Errors:
            std::stable_sort(rows.begin(), rows.end(), worst(&RateSample::errors));
            break;
        case CounterSort::XmitWait:
            std::stable_sort(rows.begin(), rows.end(), worst(&RateSample::wait));
            break;
        case CounterSort::Traffic:
            std::stable_sort(rows.begin(), rows.end(), desc(&RateSample::gbps));
            break;
        case CounterSort::Name: std::stable_sort(rows.begin(), rows.end(), by_name); break;
    }
    if (s.reverse) std::reverse(rows.begin(), rows.end());

    int label_w = 8;
    for (size_t i : rows) label_w = std::max(label_w, text_width(all[i].label));
    label_w = std::min(label_w, std::max(12, body.w * 3 / 10));
    const int group_w = (body.w - label_w - 1) / 3;
    const int spark_w = std::max(4, group_w - 8);
    const std::array<std::tuple<const char*, float RateSample::*, CounterSort>, 3> groups{
        std::tuple{"Gb/s", &RateSample::gbps, CounterSort::Traffic},
        std::tuple{"err/s", &RateSample::errors, CounterSort::Errors},
        std::tuple{"xmit wait", &RateSample::wait, CounterSort::XmitWait}};
    c.text(body.x, body.y, "port → peer", kBold);
    for (size_t g = 0; g < groups.size(); ++g) {
        const int gx = body.x + label_w + 1 + static_cast<int>(g) * group_w;
        Style hs = kBold;
        hs.underline = std::get<2>(groups[g]) == s.counter_sort;
        c.text(gx, body.y, std::get<0>(groups[g]), hs);
    }
    const int list_h = body.h - 1;
    s.page = list_h;
    Cursor& cur = s.cursor();
    keep_in_view(cur, static_cast<int>(rows.size()), list_h);
    if (rows.empty()) {
        c.text(body.x, body.y + 2, fmt::format("No port matches \"{}\".", filter), kDim);
        c.reset_clip();
        return out;
    }
    for (int i = 0; i < list_h && cur.top + i < static_cast<int>(rows.size()); ++i) {
        const PortSeries& ps = all[rows[static_cast<size_t>(cur.top) + static_cast<size_t>(i)]];
        const int y = body.y + 1 + i;
        const bool is_cur = cur.top + i == cur.row;
        Style ls = is_cur ? kCursor : Style{};
        c.text(body.x, y, fit(ps.label, label_w), ls, label_w);
        const RateSample& now = ps.now();
        for (size_t g = 0; g < groups.size(); ++g) {
            const int gx = body.x + label_w + 1 + static_cast<int>(g) * group_w;
            const auto field = std::get<1>(groups[g]);
            const float v = now.*field;
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
            for (size_t k = 0; k < line.size(); ++k)
                c.put(gx + 7 + static_cast<int>(k), y, line[k], sp);
        }
    }
    const PortSeries& sel = all[rows[static_cast<size_t>(cur.row)]];
    const RateSample& n = sel.now();
    out.status = fmt::format(
        "{}/{}  sorted by {}{}  {}: {} Gb/s, {} errors/s{}; {} samples", cur.row + 1, rows.size(),
        kCounterSortNames[static_cast<size_t>(s.counter_sort)], s.reverse ? " (reversed)" : "",
        sel.label, format_rate(n.gbps), format_rate(n.errors),
        n.wait >= 0 ? fmt::format(", waiting {:.1f}% of the time", n.wait * 100) : std::string(),
        sel.samples.size());
    out.drill = sel.label.substr(0, sel.label.find('['));
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
