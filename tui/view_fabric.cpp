#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

struct RowRef {
    size_t block;
    size_t row;  ///< index into the block's rows
};

/// Kept right of the cells for a row's "up/total up".
constexpr int kTailW = 7;

std::string tier_title(const Board& b, const TierBlock& blk) {
    if (blk.cols.empty()) return tier_count(blk.tier, blk.rows.size());
    size_t links = 0;
    size_t down = 0;
    size_t swapped = 0;
    for (const auto& cell : blk.cells) {
        for (size_t li : cell) {
            ++links;
            down += !b.links[li].cabled();
            swapped += b.links[li].status == LinkStatus::Miscabled;
        }
    }
    std::string t = fmt::format("{} × {}  {} × {}, {} links", tier_plural(blk.tier),
                                tier_plural(blk.tier + 1), blk.rows.size(), blk.cols.size(), links);
    if (swapped) t += fmt::format(", {} miscabled", swapped);
    if (down) t += fmt::format(", {} down", down);
    return t;
}

Style cell_style(const BoardLink* l) {
    return l ? health_style(l->health) : kDim;
}

/// The most links any row of `blk` has down to the tier below.
int max_down(const TierBlock& blk) {
    size_t m = 0;
    for (const auto& dl : blk.down) m = std::max(m, dl.size());
    return static_cast<int>(m);
}

/// The glyph of each state, on the top line.
void draw_legend(Canvas& c, Rect body) {
    int x = body.x;
    for (auto [glyph, style, text] : {std::tuple{U'■', health_style(Health::Ok), "healthy"},
                                      std::tuple{U'▲', health_style(Health::Warning), "warning"},
                                      std::tuple{U'◆', health_style(Health::Error), "error"},
                                      std::tuple{U'⇄', health_style(Health::Error), "swapped"},
                                      std::tuple{U'×', health_style(Health::Error), "down"},
                                      std::tuple{U'·', kDim, "no link"}}) {
        c.put(x, body.y, glyph, style);
        x += 2 + c.text(x + 2, body.y, text, kDim) + 2;
    }
}

/// What the filter keeps and marks, block by block.
struct Shown {
    std::vector<std::vector<size_t>> rows;   ///< indices into the block's rows
    std::vector<std::vector<bool>> col_hit;  ///< per column: the filter matches its node
};

/// Rows that pass the filter, block by block.
Shown filter_rows(const Board& b, const std::string& filter) {
    Shown shown;
    shown.rows.resize(b.blocks.size());
    shown.col_hit.resize(b.blocks.size());
    for (size_t bi = 0; bi < b.blocks.size(); ++bi) {
        const TierBlock& blk = b.blocks[bi];
        std::vector<bool>& col_hit = shown.col_hit[bi];
        col_hit.assign(blk.cols.size(), false);
        bool any_col = false;
        for (size_t ci = 0; ci < blk.cols.size(); ++ci) {
            col_hit[ci] = !filter.empty() && node_matches(b.nodes[blk.cols[ci]], filter);
            any_col = any_col || col_hit[ci];
        }
        for (size_t r = 0; r < blk.rows.size(); ++r) {
            bool keep = filter.empty() || any_col || node_matches(b.nodes[blk.rows[r]], filter);
            for (size_t li : blk.down[r]) {
                if (keep) break;
                const BoardLink& l = b.links[li];
                keep = node_matches(b.nodes[l.a.node == blk.rows[r] ? l.b.node : l.a.node], filter);
            }
            if (keep) shown.rows[bi].push_back(r);
        }
    }
    return shown;
}

struct MatrixLine {
    enum Kind { Title, Digits, Row, Blank } kind;
    size_t block;
    size_t index;  // digit row, or index into shown.rows[block]
};

/// The matrices as lines, the rows the cursor can be on, and the width of
/// the row labels.
struct FabricLayout {
    std::vector<MatrixLine> lines;
    std::vector<RowRef> rows;
    std::vector<size_t> line_of_row;  ///< per entry of `rows`: its index in `lines`
    int label_w = 4;
};

/// Lines: per block a title, its column numbers, its rows; a blank between.
FabricLayout lay_out(const Board& b, const Shown& shown, Rect body) {
    FabricLayout lay;
    for (size_t bi = 0; bi < b.blocks.size(); ++bi) {
        const TierBlock& blk = b.blocks[bi];
        for (size_t r : blk.rows) lay.label_w = std::max(lay.label_w, text_width(b.nodes[r].label));
        if (bi) lay.lines.push_back({MatrixLine::Blank, bi, 0});
        lay.lines.push_back({MatrixLine::Title, bi, 0});
        const size_t digits = fmt::format("{}", blk.cols.size()).size();
        for (size_t k = 0; k < digits && !blk.cols.empty(); ++k)
            lay.lines.push_back({MatrixLine::Digits, bi, k});
        for (size_t i = 0; i < shown.rows[bi].size(); ++i) {
            lay.line_of_row.push_back(lay.lines.size());
            lay.rows.push_back({bi, shown.rows[bi][i]});
            lay.lines.push_back({MatrixLine::Row, bi, i});
        }
    }
    lay.label_w = std::min(lay.label_w, std::max(6, body.w / 4));
    return lay;
}

/// Keeps the cursor on a row that exists and returns the first line to show.
int scroll_to_cursor(Cursor& cur, const FabricLayout& lay, int list_h) {
    keep_in_view(cur, static_cast<int>(lay.rows.size()), 1);
    // Scroll by lines so the cursor's row is shown, with its block's title when it fits.
    const int cur_line = static_cast<int>(lay.line_of_row[static_cast<size_t>(cur.row)]);
    int first = std::clamp(cur.top, 0, std::max(0, static_cast<int>(lay.lines.size()) - list_h));
    if (cur_line < first) first = cur_line;
    if (cur_line >= first + list_h) first = cur_line - list_h + 1;
    cur.top = first;
    return first;
}

/// Columns: the upper tier's nodes, then (for leaves) the hosts by port.
/// Keeps the cursor's column among the selected block's, and shown.
void keep_column_in_view(Cursor& cur, const TierBlock& sel_blk, int avail) {
    const int sel_cols = static_cast<int>(sel_blk.cols.size()) + max_down(sel_blk);
    const int gap = !sel_blk.cols.empty() && max_down(sel_blk) > 0 ? 2 : 0;
    keep_in_view_cols(cur, sel_cols, std::max(1, avail - gap));
}

/// What drawing a line of the matrices needs.
struct Grid {
    const Board& b;
    const Shown& shown;
    const std::string& filter;
    Rect body;
    int label_w = 0;
    int avail = 0;  ///< width for the cells
    int left = 0;   ///< the first column shown (upper-tier nodes and hosts combined)
    RowRef sel{};
    int cur_col = 0;
};

/// Where column `combined` of `blk` is drawn (the hosts after a gap); -1: scrolled off.
int col_x(const Grid& g, const TierBlock& blk, int combined) {
    const int ncols = static_cast<int>(blk.cols.size());
    int rel = combined - g.left;
    if (rel < 0) return -1;
    int xx = g.body.x + g.label_w + 1 + rel +
             (combined >= ncols && ncols > 0 && max_down(blk) > 0 ? 2 : 0);
    return xx < g.body.x + g.label_w + 1 + g.avail ? xx : -1;
}

/// One digit of each column's number, the last line with the columns' names.
void draw_digits(Canvas& c, const Grid& g, const MatrixLine& line, int y) {
    const TierBlock& blk = g.b.blocks[line.block];
    const int ncols = static_cast<int>(blk.cols.size());
    const size_t digits = fmt::format("{}", blk.cols.size()).size();
    for (int ci = 0; ci < ncols; ++ci) {
        const int xx = col_x(g, blk, ci);
        if (xx < 0) continue;
        const std::string num = fmt::format("{:>{}}", ci + 1, digits);
        const char ch = num[line.index];
        c.put(xx, y, static_cast<char32_t>(ch),
              g.shown.col_hit[line.block][static_cast<size_t>(ci)] ? kBold : kDim);
    }
    if (line.index + 1 == digits) {
        c.text(g.body.x, y, fmt::format("{:>{}}", tier_plural(blk.tier + 1), g.label_w), kDim,
               g.label_w);
        if (max_down(blk) > 0) {
            const int xx = col_x(g, blk, ncols);
            if (xx >= 0) c.text(xx, y, fmt::format("{} by port", tier_plural(blk.tier - 1)), kDim);
        }
    }
}

/// A row being drawn: which, where, and whether the cursor is on it.
struct RowAt {
    size_t block;
    size_t row;  ///< index into the block's rows
    int y;
    bool is_cur;
};

/// A row's links to the upper tier, and how many of them are up.
struct UpCount {
    size_t up = 0;
    size_t total = 0;
};

/// A row's cells to the upper tier: the worst link of each; counts its links.
UpCount draw_up_cells(Canvas& c, const Grid& g, const RowAt& at) {
    const TierBlock& blk = g.b.blocks[at.block];
    const int ncols = static_cast<int>(blk.cols.size());
    UpCount n;
    for (int ci = 0; ci < ncols; ++ci) {
        const auto& cell = blk.cell(at.row, static_cast<size_t>(ci));
        const BoardLink* w = worst_link(g.b, cell);
        for (size_t l : cell) {
            ++n.total;
            n.up += g.b.links[l].cabled();
        }
        const int xx = col_x(g, blk, ci);
        if (xx < 0) continue;
        Style st = cell_style(w);
        if (g.shown.col_hit[at.block][static_cast<size_t>(ci)]) st.underline = true;
        if (at.is_cur && ci == g.cur_col) st.reverse = true;
        c.put(xx, at.y, w ? link_glyph(*w) : U'·', st);
    }
    return n;
}

/// A row's links to the tier below, by port.
void draw_down_cells(Canvas& c, const Grid& g, const RowAt& at) {
    const TierBlock& blk = g.b.blocks[at.block];
    const int ncols = static_cast<int>(blk.cols.size());
    const int ndown = max_down(blk);
    const auto& down = blk.down[at.row];
    for (int di = 0; di < ndown; ++di) {
        const int xx = col_x(g, blk, ncols + di);
        if (xx < 0) continue;
        const BoardLink* w = static_cast<size_t>(di) < down.size()
                                 ? &g.b.links[down[static_cast<size_t>(di)]]
                                 : nullptr;
        Style st = cell_style(w);
        if (w && !g.filter.empty() &&
            node_matches(g.b.nodes[w->a.node == blk.rows[at.row] ? w->b.node : w->a.node],
                         g.filter))
            st.underline = true;
        if (at.is_cur && ncols + di == g.cur_col) st.reverse = true;
        c.put(xx, at.y, w ? link_glyph(*w) : U' ', st);
    }
}

/// A row: its node's label, its cells, and how many of its uplinks are up.
void draw_row(Canvas& c, const Grid& g, const MatrixLine& line, int y) {
    const TierBlock& blk = g.b.blocks[line.block];
    const size_t r = g.shown.rows[line.block][line.index];
    const BoardNode& node = g.b.nodes[blk.rows[r]];
    const RowAt at{line.block, r, y, line.block == g.sel.block && r == g.sel.row};
    Style ls = node.present ? Style{} : health_style(Health::Error);
    if (!g.filter.empty() && node_matches(node, g.filter)) ls.bold = true;
    if (at.is_cur) ls.reverse = true;
    c.text(g.body.x, y, fit(node.label, g.label_w), ls, g.label_w);
    const UpCount n = draw_up_cells(c, g, at);
    draw_down_cells(c, g, at);
    if (n.total) {
        const Style ts = n.up == n.total ? kDim : health_style(Health::Error);
        c.text(g.body.x + g.label_w + 1 + g.avail + 1, y,
               fmt::format("{:>2}/{:<2} up", n.up, n.total), ts, kTailW + 2);
    }
}

/// One line of the matrices, at `y`.
void draw_line(Canvas& c, const Grid& g, const MatrixLine& line, int y) {
    switch (line.kind) {
        case MatrixLine::Blank: break;
        case MatrixLine::Title:
            c.text(g.body.x, y, tier_title(g.b, g.b.blocks[line.block]), kBold);
            break;
        case MatrixLine::Digits: draw_digits(c, g, line, y); break;
        case MatrixLine::Row: draw_row(c, g, line, y); break;
    }
}

/// What is under the cursor: a cell's link (the worst of several), a host's
/// link, or else the row's node.
ViewOutput describe_cursor(const Board& b, RowRef sel, int col) {
    ViewOutput out;
    const TierBlock& sel_blk = b.blocks[sel.block];
    const BoardNode& row_node = b.nodes[sel_blk.rows[sel.row]];
    out.drill = row_node.label;
    const int ncols = static_cast<int>(sel_blk.cols.size());
    if (col < ncols) {
        const auto& cell = sel_blk.cell(sel.row, static_cast<size_t>(col));
        const BoardNode& col_node = b.nodes[sel_blk.cols[static_cast<size_t>(col)]];
        if (cell.empty()) {
            out.status = fmt::format("{} ↔ {}: no link", row_node.label, col_node.label);
        } else {
            const BoardLink* w = worst_link(b, cell);
            out.status =
                (cell.size() > 1 ? fmt::format("{} links, worst: ", cell.size()) : std::string()) +
                link_line(b, *w);
            out.status_style = health_style(w->health);
        }
    } else if (const auto& down = sel_blk.down[sel.row];
               static_cast<size_t>(col - ncols) < down.size()) {
        const BoardLink& l = b.links[down[static_cast<size_t>(col - ncols)]];
        out.status = link_line(b, l);
        out.status_style = health_style(l.health);
    } else {
        out.status =
            fmt::format("{}  {}  LID {}", row_node.name, format_guid(row_node.guid), row_node.lid);
    }
    return out;
}

}  // namespace

ViewOutput draw_fabric(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    const Board& b = d.board;
    ViewOutput out;
    c.set_clip(body);
    draw_legend(c, body);
    if (b.blocks.empty()) {
        c.text(body.x, body.y + 2, "No switches: nothing to draw by tier (see the links view).",
               kDim);
        c.reset_clip();
        return out;
    }
    const std::string& filter = s.active_filter();
    const Shown shown = filter_rows(b, filter);
    const FabricLayout lay = lay_out(b, shown, body);
    Cursor& cur = s.cursor();
    const int list_h = body.h - 2;  // below the legend and a blank
    s.page = list_h;
    if (lay.rows.empty()) {
        c.text(body.x, body.y + 2,
               fmt::format("Nothing matches \"{}\" (Esc clears the filter).", filter), kDim);
        c.reset_clip();
        return out;
    }
    const int first = scroll_to_cursor(cur, lay, list_h);
    const RowRef sel = lay.rows[static_cast<size_t>(cur.row)];
    const int avail = body.w - lay.label_w - 1 - kTailW;
    keep_column_in_view(cur, b.blocks[sel.block], avail);
    const Grid g{b, shown, filter, body, lay.label_w, avail, cur.left, sel, cur.col};
    for (int li = 0; li < list_h && first + li < static_cast<int>(lay.lines.size()); ++li) {
        draw_line(c, g, lay.lines[static_cast<size_t>(first) + static_cast<size_t>(li)],
                  body.y + 2 + li);
    }
    out = describe_cursor(b, sel, cur.col);
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
