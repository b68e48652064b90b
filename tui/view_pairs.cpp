#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

constexpr int kCellW = 4;

Style heat(const PairCell& cell, double degraded_at) {
    if (!cell.measured) return kDim;
    if (!cell.ok) return Style{Color::Black, Color::Red};
    if (cell.ratio >= 0.9) return Style{Color::Black, Color::Green};
    if (cell.ratio >= degraded_at) return Style{Color::Black, Color::Yellow};
    return Style{Color::Black, Color::Red};
}

std::string value_text(const PairGrid& g, double v) {
    if (g.probes) return fmt::format("p99 {:.0f} us", v);
    return g.bandwidth ? fmt::format("{:.3f} Gb/s", v) : fmt::format("{:.2f} us median", v);
}

/// How to get perf results into the view.
void draw_no_results(Canvas& c, Rect body) {
    c.text(body.x, body.y, "No perf results.", kBold);
    c.text(body.x, body.y + 2,
           "Measure with `fabscope perf run HOST... -o FILE` on each source host, then", kDim);
    c.text(body.x, body.y + 3,
           "start the TUI with --perf FILE (once per file): rows are sources, columns "
           "destinations.",
           kDim);
    c.text(body.x, body.y + 4,
           "A mesh run's report (`fabscope mesh run -o FILE`) goes in --perf too: its pair "
           "matrix and top suspects.",
           kDim);
}

/// The test's name, which of `n` it is, and what its cells are relative to.
void draw_title(Canvas& c, Rect body, const PairGrid& g, int test, int n) {
    c.text(body.x, body.y, g.test, kBold);
    c.text(body.x + text_width(g.test) + 2, body.y,
           g.of_median ? fmt::format("test {} of {} (t/T)  {}", test + 1, n, g.note)
                       : fmt::format("test {} of {} (t/T)  {}  best {}: {}", test + 1, n,
                                     g.bandwidth ? "bandwidth" : "latency", g.best_pair,
                                     value_text(g, g.best)),
           kDim);
}

/// The colour of each share, on the line under the title.
void draw_legend(Canvas& c, Rect body, const PairGrid& g, double degraded_at) {
    int x = body.x;
    const int ly = body.y + 1;
    for (const auto& [text, style] :
         {std::pair{std::string(" ≥90% "), Style{Color::Black, Color::Green}},
          std::pair{fmt::format(" ≥{:.0f}% ", degraded_at * 100),
                    Style{Color::Black, Color::Yellow}},
          std::pair{fmt::format(" <{:.0f}% ", degraded_at * 100), Style{Color::Black, Color::Red}},
          std::pair{std::string(g.probes ? " × probes lost " : " × failed "),
                    Style{Color::Black, Color::Red}},
          std::pair{std::string(" · not measured "), kDim}}) {
        x += c.text(x, ly, text, style) + 1;
    }
    c.text(x + 1, ly,
           g.probes      ? "cells: the median p99 as % of the pair's"
           : g.of_median ? "cells: % of the median"
                         : "cells: % of the best pair",
           kDim);
}

/// Where the grid, the destinations' key and the suspects go, and how much
/// of the grid fits.
struct PairsLayout {
    Rect body;
    int label_w = 0;
    bool short_names = false;  ///< columns headed by their names, else by numbers and a key
    int grid_y = 0;
    int avail_cols = 0;
    int avail_rows = 0;
    int shown_suspects = 0;
    int shown_evidence = 0;  ///< lines of the top suspect's evidence
    int ring_h = 0;          ///< a ring run's figures, above its suspects
    int suspects_h = 0;      ///< the ring's lines and the suspects
};

/// How much of `g` fits in `body`, and where each part goes.
PairsLayout lay_out(const PairGrid& g, Rect body) {
    PairsLayout lay;
    lay.body = body;
    int label_w = 6;
    for (const std::string& r : g.rows) label_w = std::max(label_w, text_width(r));
    lay.label_w = std::min(label_w, std::max(8, body.w / 4));
    lay.short_names = std::all_of(g.cols.begin(), g.cols.end(),
                                  [](const std::string& cl) { return text_width(cl) <= 3; });
    lay.grid_y = body.y + 3;
    lay.avail_cols = std::max(1, (body.w - lay.label_w - 1) / kCellW);
    // A mesh run's top suspects under the grid, the first one first.
    lay.shown_suspects =
        g.of_median ? std::min(static_cast<int>(g.suspects.size()), std::max(1, body.h / 4)) : 0;
    lay.shown_evidence = lay.shown_suspects > 0 ? static_cast<int>(g.top_evidence.size()) : 0;
    lay.ring_h = g.of_median ? static_cast<int>(g.ring.size()) : 0;
    lay.suspects_h =
        g.of_median ? lay.ring_h + std::max(1, lay.shown_suspects) + 1 + lay.shown_evidence : 0;
    const int footer = (lay.short_names ? 0 : 2) + lay.suspects_h;
    lay.avail_rows = std::max(1, body.h - 4 - footer);
    return lay;
}

/// The destinations shown, by name or number, the cursor's in bold.
void draw_column_heads(Canvas& c, const PairGrid& g, const PairsLayout& lay, const Cursor& cur) {
    const Rect body = lay.body;
    c.text(body.x, lay.grid_y, fit("from \\ to", lay.label_w), kDim, lay.label_w);
    for (int ci = 0; ci < lay.avail_cols && cur.left + ci < static_cast<int>(g.cols.size()); ++ci) {
        const int col = cur.left + ci;
        const std::string head =
            lay.short_names ? g.cols[static_cast<size_t>(col)] : fmt::format("{}", col + 1);
        c.text(body.x + lay.label_w + 1 + ci * kCellW, lay.grid_y, fmt::format("{:>3}", head),
               col == cur.col ? kBold : kDim);
    }
}

/// The rows shown: each source, then its cells as a share coloured by heat.
void draw_cells(Canvas& c, const PairGrid& g, const PairsLayout& lay, const Cursor& cur,
                double degraded_at) {
    const Rect body = lay.body;
    for (int ri = 0; ri < lay.avail_rows && cur.top + ri < static_cast<int>(g.rows.size()); ++ri) {
        const int row = cur.top + ri;
        const int y = lay.grid_y + 1 + ri;
        c.text(body.x, y, fit(g.rows[static_cast<size_t>(row)], lay.label_w),
               row == cur.row ? kBold : Style{}, lay.label_w);
        for (int ci = 0; ci < lay.avail_cols && cur.left + ci < static_cast<int>(g.cols.size());
             ++ci) {
            const int col = cur.left + ci;
            const PairCell& cell = g.cell(static_cast<size_t>(row), static_cast<size_t>(col));
            Style st = heat(cell, degraded_at);
            const std::string text =
                !cell.measured ? "  · "
                : !cell.ok     ? "  × "
                               : fmt::format("{:>3.0f} ", std::min(cell.ratio * 100, 999.0));
            if (row == cur.row && col == cur.col) {
                st.bold = true;
                st.reverse = true;
            }
            c.text(body.x + lay.label_w + 1 + ci * kCellW, y, text, st, kCellW);
        }
    }
}

/// Which number is which destination.
void draw_key(Canvas& c, const PairGrid& g, const PairsLayout& lay) {
    std::string key;
    for (size_t ci = 0; ci < g.cols.size(); ++ci)
        key += fmt::format("{} {}   ", ci + 1, g.cols[ci]);
    c.text(lay.body.x, lay.body.bottom() - 1 - lay.suspects_h, key, kDim, lay.body.w);
}

/// A mesh run's suspects at the bottom, or that there is none; a ring
/// run's figures above them, the slowest edge's cost in red when it has one.
void draw_suspects(Canvas& c, const PairGrid& g, const PairsLayout& lay) {
    const Rect body = lay.body;
    int y = body.bottom() - lay.suspects_h;
    for (size_t i = 0; i < static_cast<size_t>(lay.ring_h); ++i) {
        const bool cost = i == 1 && g.ring_costly;
        c.text(body.x, y++, g.ring[i],
               i == 0 ? kBold
               : cost ? health_style(Health::Error)
                      : kDim,
               body.w);
    }
    if (g.suspects.empty()) {
        c.text(body.x, y,
               g.probes ? "No finding: the agents' probes are answered, their p99s at baseline."
                        : "No suspect: no cable, lane or endpoint explains the slow flows.",
               health_style(Health::Ok), body.w);
        return;
    }
    c.text(
        body.x, y,
        fmt::format("{} ({}), top first:", g.probes ? "Findings" : "Suspects", g.suspects.size()),
        kBold);
    int line = y + 1;
    for (int i = 0; i < lay.shown_suspects; ++i) {
        c.text(body.x, line++, fmt::format("{} {}", i + 1, g.suspects[static_cast<size_t>(i)]),
               health_style(i == 0 ? Health::Error : Health::Warning), body.w);
        if (i > 0) continue;
        for (int e = 0; e < lay.shown_evidence; ++e)
            c.text(body.x + 2, line++, g.top_evidence[static_cast<size_t>(e)], kDim, body.w - 2);
    }
}

/// The flow under the cursor: its value and share, or why it has none.
ViewOutput describe_cell(const PairGrid& g, const Cursor& cur, double degraded_at) {
    ViewOutput out;
    const std::string& from = g.rows[static_cast<size_t>(cur.row)];
    const std::string& to = g.cols[static_cast<size_t>(cur.col)];
    const PairCell& cell = g.cell(static_cast<size_t>(cur.row), static_cast<size_t>(cur.col));
    if (!cell.measured) {
        out.status = fmt::format("{} → {}: not measured", from, to);
    } else if (g.probes) {
        out.status = fmt::format("{} → {} probes: {}", from, to, cell.error);
        if (!cell.ok) out.status_style = health_style(Health::Error);
    } else if (!cell.ok) {
        out.status = fmt::format("{} → {} {}: FAILED: {}", from, to, g.test, cell.error);
        out.status_style = health_style(Health::Error);
    } else {
        out.status = g.of_median
                         ? fmt::format("{} → {} {}: {}, {:.0f}% of the median", from, to, g.test,
                                       value_text(g, cell.value), cell.ratio * 100)
                         : fmt::format("{} → {} {}: {}, {:.0f}% of the best ({})", from, to, g.test,
                                       value_text(g, cell.value), cell.ratio * 100, g.best_pair);
        if (cell.ratio < degraded_at) out.status_style = health_style(Health::Warning);
    }
    return out;
}

}  // namespace

ViewOutput draw_pairs(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    ViewOutput out;
    c.set_clip(body);
    const PairMatrix& m = d.pairs;
    if (m.grids.empty()) {
        draw_no_results(c, body);
        c.reset_clip();
        return out;
    }
    const int n = static_cast<int>(m.grids.size());
    s.pair_test = ((s.pair_test % n) + n) % n;
    const PairGrid& g = m.grids[static_cast<size_t>(s.pair_test)];
    const double degraded_at = g.degraded_at > 0 ? g.degraded_at : m.degraded_at;
    draw_title(c, body, g, s.pair_test, n);
    draw_legend(c, body, g, degraded_at);

    if (g.rows.empty() || g.cols.empty()) {
        c.text(body.x, body.y + 3, "No flow was measured.", kBold);
        c.reset_clip();
        return out;
    }
    const PairsLayout lay = lay_out(g, body);
    s.page = lay.avail_rows;
    Cursor& cur = s.cursor();
    keep_in_view(cur, static_cast<int>(g.rows.size()), lay.avail_rows);
    keep_in_view_cols(cur, static_cast<int>(g.cols.size()), lay.avail_cols);
    draw_column_heads(c, g, lay, cur);
    draw_cells(c, g, lay, cur, degraded_at);
    if (!lay.short_names) draw_key(c, g, lay);
    if (g.of_median) draw_suspects(c, g, lay);
    out = describe_cell(g, cur, degraded_at);
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
