#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

double rate_of(const BoardLink& l) {
    return l.cabled() && l.width && l.speed ? link_data_gbps(*l.width, *l.speed) : -1;
}
double errors_of(const BoardLink& l) {
    return l.rates ? l.rates->errors_per_s : -1;
}
double total_of(const BoardLink& l) {
    return l.errors_total ? static_cast<double>(*l.errors_total) : -1;
}
double wait_of(const BoardLink& l) {
    return l.rates && l.rates->xmit_wait ? *l.rates->xmit_wait : -1;
}
double traffic_of(const BoardLink& l) {
    return l.rates ? std::max(l.rates->xmit_gbps, l.rates->rcv_gbps) : -1;
}

constexpr std::array<const char*, kLinkSorts> kLinkSortNames{"health", "rate", "state", "err/s",
                                                             "wait",   "Gb/s", "name"};

/// The links the filter keeps: either end's node, or the state.
std::vector<size_t> filter_links(const Board& b, const std::string& filter) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < b.links.size(); ++i) {
        const BoardLink& l = b.links[i];
        if (filter.empty() || node_matches(b.nodes[l.a.node], filter) ||
            node_matches(b.nodes[l.b.node], filter) || text_matches(l.state, filter))
            rows.push_back(i);
    }
    return rows;
}

/// Sorts `rows` by the view's sort order, ties by name.
void sort_links(const Board& b, const ViewState& s, std::vector<size_t>& rows) {
    auto by_name = [&](size_t x, size_t y) {
        const BoardLink& p = b.links[x];
        const BoardLink& q = b.links[y];
        if (p.a.node != q.a.node)
            return natural_less(b.nodes[p.a.node].name, b.nodes[q.a.node].name);
        return p.a.port < q.a.port;
    };
    auto desc = [&](auto key) {
        return [&, key](size_t x, size_t y) {
            const double kx = key(b.links[x]);
            const double ky = key(b.links[y]);
            return kx != ky ? kx > ky : by_name(x, y);
        };
    };
    switch (s.link_sort) {
        case LinkSort::Health:
            std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) {
                const BoardLink& p = b.links[x];
                const BoardLink& q = b.links[y];
                if (p.health != q.health) return p.health > q.health;
                if (p.status != q.status) return p.status > q.status;
                return by_name(x, y);
            });
            break;
        case LinkSort::Rate:
            std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) {
                const double rx = rate_of(b.links[x]);
                const double ry = rate_of(b.links[y]);
                return rx != ry ? rx < ry : by_name(x, y);
            });
            break;
        case LinkSort::State:
            std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) {
                const BoardLink& p = b.links[x];
                const BoardLink& q = b.links[y];
                if (p.status != q.status) return p.status > q.status;
                if (p.state != q.state) return p.state < q.state;
                return by_name(x, y);
            });
            break;
        case LinkSort::Errors:
            // As the counters view: the rate over the window, then the errors
            // since the first reading (a burst that left the window stays up).
            std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) {
                const BoardLink& p = b.links[x];
                const BoardLink& q = b.links[y];
                if (errors_of(p) != errors_of(q)) return errors_of(p) > errors_of(q);
                if (total_of(p) != total_of(q)) return total_of(p) > total_of(q);
                return by_name(x, y);
            });
            break;
        case LinkSort::XmitWait: std::stable_sort(rows.begin(), rows.end(), desc(wait_of)); break;
        case LinkSort::Traffic: std::stable_sort(rows.begin(), rows.end(), desc(traffic_of)); break;
        case LinkSort::Name: std::stable_sort(rows.begin(), rows.end(), by_name); break;
    }
    if (s.reverse) std::reverse(rows.begin(), rows.end());
}

/// Where each column starts, and how wide the two ends are.
struct Columns {
    int end_w = 0;
    int x_a = 0;
    int x_b = 0;
    int x_rate = 0;
    int x_state = 0;
    int x_err = 0;
    int x_total = 0;
    int x_wait = 0;
    int x_gbps = 0;
};

/// Columns: health, A, B, rate, state, err/s (over the window), errors
/// (since the first reading), wait, Gb/s.
Columns lay_out(Rect body) {
    const int fixed = 2 + 10 + 15 + 8 + 8 + 7 + 7;
    Columns cols;
    cols.end_w = std::max(8, (body.w - fixed - 2) / 2);
    cols.x_a = body.x + 2;
    cols.x_b = cols.x_a + cols.end_w + 1;
    cols.x_rate = cols.x_b + cols.end_w + 1;
    cols.x_state = cols.x_rate + 10;
    cols.x_err = cols.x_state + 15;
    cols.x_total = cols.x_err + 8;
    cols.x_wait = cols.x_total + 8;
    cols.x_gbps = cols.x_wait + 7;
    return cols;
}

/// The column heads, the sorted one underlined with the order's arrow.
void draw_heads(Canvas& c, Rect body, const Columns& cols, const ViewState& s) {
    const std::array<std::pair<int, const char*>, 8> heads{
        std::pair{cols.x_a, "end A"}, {cols.x_b, "end B"},   {cols.x_rate, "rate"},
        {cols.x_state, "state"},      {cols.x_err, "err/s"}, {cols.x_total, "errors"},
        {cols.x_wait, "wait"},        {cols.x_gbps, "Gb/s"}};
    const std::array<LinkSort, 8> sort_of{LinkSort::Name,     LinkSort::Name,   LinkSort::Rate,
                                          LinkSort::State,    LinkSort::Errors, LinkSort::Errors,
                                          LinkSort::XmitWait, LinkSort::Traffic};
    for (size_t i = 0; i < heads.size(); ++i) {
        const bool sorted = sort_of[i] == s.link_sort && i != 1 && i != 5;
        Style hs = kBold;
        hs.underline = sorted;
        const int w = c.text(heads[i].first, body.y, heads[i].second, hs);
        if (sorted) c.put(heads[i].first + w, body.y, s.reverse ? U'▲' : U'▼', kBold);
    }
    if (s.link_sort == LinkSort::Health) c.put(body.x, body.y, s.reverse ? U'▲' : U'▼', kBold);
}

/// One link's line at `y`.
void draw_link(Canvas& c, const Board& b, Rect body, const Columns& cols, const BoardLink& l,
               int y) {
    const Style hs = health_style(l.health);
    c.put(body.x, y, link_glyph(l), hs);
    c.text(cols.x_a, y, fit(b.end_name(l.a), cols.end_w), {}, cols.end_w);
    c.text(cols.x_b, y, fit(b.end_name(l.b), cols.end_w), {}, cols.end_w);
    const bool below = !l.findings.empty() && l.health >= Health::Warning && l.cabled();
    c.text(cols.x_rate, y, format_link_rate(l), below ? hs : Style{}, 9);
    c.text(cols.x_state, y, l.state, l.status == LinkStatus::Up ? Style{} : hs, 14);
    if (l.rates) {
        const Style es = l.rates->errors_per_s > 0 ? health_style(Health::Warning) : kDim;
        c.text(cols.x_err, y, fmt::format("{:>6}", format_rate(l.rates->errors_per_s)), es, 7);
        c.text(cols.x_total, y, fmt::format("{:>6}", format_count(l.errors_total.value_or(0))),
               l.errors_total.value_or(0) > 0 ? health_style(Health::Warning) : kDim, 7);
        if (l.rates->xmit_wait)
            c.text(cols.x_wait, y, fmt::format("{:>5.1f}%", *l.rates->xmit_wait * 100),
                   *l.rates->xmit_wait > 0.05 ? hs : kDim, 6);
        c.text(cols.x_gbps, y,
               fmt::format("{:>6}", format_rate(std::max(l.rates->xmit_gbps, l.rates->rcv_gbps))),
               {}, 7);
    } else {
        c.text(cols.x_err, y, "     -", kDim);
        c.text(cols.x_total, y, "     -", kDim);
        c.text(cols.x_wait, y, "    -", kDim);
        c.text(cols.x_gbps, y, "     -", kDim);
    }
}

/// The link under the cursor, where it is in the list and the sort order.
ViewOutput describe_link(const Board& b, const ViewState& s, const std::vector<size_t>& rows) {
    ViewOutput out;
    const Cursor& cur = s.cursor();
    const BoardLink& sel = b.links[rows[static_cast<size_t>(cur.row)]];
    out.status = fmt::format("{}/{}  sorted by {}{}  ", cur.row + 1, rows.size(),
                             kLinkSortNames[static_cast<size_t>(s.link_sort)],
                             s.reverse ? " (reversed)" : "");
    out.status += link_line(b, sel);
    out.status_style = health_style(sel.health);
    // Enter: both ends' counters, named as the counters view names ports.
    out.drill = fmt::format("{}[{}]|{}[{}]", b.nodes[sel.a.node].name, sel.a.port,
                            b.nodes[sel.b.node].name, sel.b.port);
    return out;
}

}  // namespace

ViewOutput draw_links(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    const Board& b = d.board;
    ViewOutput out;
    c.set_clip(body);
    const std::string& filter = s.active_filter();
    std::vector<size_t> rows = filter_links(b, filter);
    sort_links(b, s, rows);

    const Columns cols = lay_out(body);
    draw_heads(c, body, cols, s);
    if (!start_list(
            c, s, body, rows.size(),
            filter.empty() ? "No links." : fmt::format("No link matches \"{}\".", filter))) {
        c.reset_clip();
        return out;
    }
    const int list_h = s.page;
    const Cursor& cur = s.cursor();
    for (int i = 0; i < list_h && cur.top + i < static_cast<int>(rows.size()); ++i) {
        const int y = body.y + 1 + i;
        draw_link(c, b, body, cols,
                  b.links[rows[static_cast<size_t>(cur.top) + static_cast<size_t>(i)]], y);
        if (cur.top + i == cur.row) c.restyle({body.x + 1, y, body.w - 1, 1}, kCursor);
    }
    out = describe_link(b, s, rows);
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
