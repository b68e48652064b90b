#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

struct RowRef {
    size_t block;
    size_t row;  ///< index into the block's rows
};

std::string tier_title(const Board& b, const TierBlock& blk) {
    if (blk.cols.empty()) return tier_count(blk.tier, blk.rows.size());
    size_t links = 0;
    size_t down = 0;
    for (const auto& cell : blk.cells) {
        for (size_t li : cell) {
            ++links;
            down += b.links[li].status != LinkStatus::Up;
        }
    }
    std::string t = fmt::format("{} × {}  {} × {}, {} links", tier_plural(blk.tier),
                                tier_plural(blk.tier + 1), blk.rows.size(), blk.cols.size(), links);
    if (down) t += fmt::format(", {} down", down);
    return t;
}

Style cell_style(const BoardLink* l) {
    return l ? health_style(l->health) : kDim;
}

std::string link_status(const Board& b, const BoardLink& l) {
    std::string s = fmt::format("{} ↔ {}  {}  {}", b.end_name(l.a), b.end_name(l.b),
                                format_link_rate(l), l.state);
    if (l.rates) {
        s += fmt::format("  err {}/s", format_rate(l.rates->errors_per_s));
        if (l.rates->xmit_wait) s += fmt::format("  wait {:.1f}%", *l.rates->xmit_wait * 100);
    }
    if (!l.findings.empty()) s += "  — " + b.findings[l.findings.front()].summary;
    return s;
}

}  // namespace

ViewOutput draw_fabric(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    const Board& b = d.board;
    ViewOutput out;
    c.set_clip(body);
    // Legend.
    int x = body.x;
    for (auto [glyph, style, text] : {std::tuple{U'■', health_style(Health::Ok), "healthy"},
                                      std::tuple{U'▲', health_style(Health::Warning), "warning"},
                                      std::tuple{U'◆', health_style(Health::Error), "error"},
                                      std::tuple{U'×', health_style(Health::Error), "down"},
                                      std::tuple{U'·', kDim, "no link"}}) {
        c.put(x, body.y, glyph, style);
        x += 2 + c.text(x + 2, body.y, text, kDim) + 2;
    }
    if (b.blocks.empty()) {
        c.text(body.x, body.y + 2, "No switches: nothing to draw by tier (see the links view).",
               kDim);
        c.reset_clip();
        return out;
    }
    const std::string& filter = s.active_filter();
    // Rows that pass the filter, block by block.
    std::vector<std::vector<size_t>> shown(b.blocks.size());
    std::vector<std::vector<bool>> col_hit(b.blocks.size());
    for (size_t bi = 0; bi < b.blocks.size(); ++bi) {
        const TierBlock& blk = b.blocks[bi];
        col_hit[bi].assign(blk.cols.size(), false);
        bool any_col = false;
        for (size_t ci = 0; ci < blk.cols.size(); ++ci) {
            col_hit[bi][ci] = !filter.empty() && node_matches(b.nodes[blk.cols[ci]], filter);
            any_col = any_col || col_hit[bi][ci];
        }
        for (size_t r = 0; r < blk.rows.size(); ++r) {
            bool keep = filter.empty() || any_col || node_matches(b.nodes[blk.rows[r]], filter);
            for (size_t li : blk.down[r]) {
                if (keep) break;
                const BoardLink& l = b.links[li];
                keep = node_matches(b.nodes[l.a.node == blk.rows[r] ? l.b.node : l.a.node], filter);
            }
            if (keep) shown[bi].push_back(r);
        }
    }
    // Lines: per block a title, its column numbers, its rows; a blank between.
    struct Line {
        enum Kind { Title, Digits, Row, Blank } kind;
        size_t block;
        size_t index;  // digit row, or index into shown[block]
    };
    std::vector<Line> lines;
    std::vector<RowRef> rows;
    std::vector<size_t> line_of_row;
    int label_w = 4;
    for (size_t bi = 0; bi < b.blocks.size(); ++bi) {
        const TierBlock& blk = b.blocks[bi];
        for (size_t r : blk.rows) label_w = std::max(label_w, text_width(b.nodes[r].label));
        if (bi) lines.push_back({Line::Blank, bi, 0});
        lines.push_back({Line::Title, bi, 0});
        const size_t digits = fmt::format("{}", blk.cols.size()).size();
        for (size_t k = 0; k < digits && !blk.cols.empty(); ++k)
            lines.push_back({Line::Digits, bi, k});
        for (size_t i = 0; i < shown[bi].size(); ++i) {
            line_of_row.push_back(lines.size());
            rows.push_back({bi, shown[bi][i]});
            lines.push_back({Line::Row, bi, i});
        }
    }
    label_w = std::min(label_w, std::max(6, body.w / 4));
    Cursor& cur = s.cursor();
    const int list_h = body.h - 2;  // below the legend and a blank
    s.page = list_h;
    if (rows.empty()) {
        c.text(body.x, body.y + 2,
               fmt::format("Nothing matches \"{}\" (Esc clears the filter).", filter), kDim);
        c.reset_clip();
        return out;
    }
    keep_in_view(cur, static_cast<int>(rows.size()), 1);
    // Scroll by lines so the cursor's row is shown, with its block's title when it fits.
    const int cur_line = static_cast<int>(line_of_row[static_cast<size_t>(cur.row)]);
    int first = std::clamp(cur.top, 0, std::max(0, static_cast<int>(lines.size()) - list_h));
    if (cur_line < first) first = cur_line;
    if (cur_line >= first + list_h) first = cur_line - list_h + 1;
    cur.top = first;
    const RowRef sel = rows[static_cast<size_t>(cur.row)];
    const TierBlock& sel_blk = b.blocks[sel.block];
    // Columns: the upper tier's nodes, then (for leaves) the hosts by port.
    auto max_down = [&](const TierBlock& blk) {
        size_t m = 0;
        for (const auto& dl : blk.down) m = std::max(m, dl.size());
        return static_cast<int>(m);
    };
    const int tail_w = 7;
    const int avail = body.w - label_w - 1 - tail_w;
    const int sel_cols = static_cast<int>(sel_blk.cols.size()) + max_down(sel_blk);
    const int gap = !sel_blk.cols.empty() && max_down(sel_blk) > 0 ? 2 : 0;
    keep_in_view_cols(cur, sel_cols, std::max(1, avail - gap));
    const int left = cur.left;
    auto col_x = [&](const TierBlock& blk, int combined) -> int {  // -1: scrolled off
        const int ncols = static_cast<int>(blk.cols.size());
        int rel = combined - left;
        if (rel < 0) return -1;
        int xx = body.x + label_w + 1 + rel +
                 (combined >= ncols && ncols > 0 && max_down(blk) > 0 ? 2 : 0);
        return xx < body.x + label_w + 1 + avail ? xx : -1;
    };
    for (int li = 0; li < list_h && first + li < static_cast<int>(lines.size()); ++li) {
        const Line& line = lines[static_cast<size_t>(first) + static_cast<size_t>(li)];
        const int y = body.y + 2 + li;
        const TierBlock& blk = b.blocks[line.block];
        const int ncols = static_cast<int>(blk.cols.size());
        const int ndown = max_down(blk);
        switch (line.kind) {
            case Line::Blank: break;
            case Line::Title: c.text(body.x, y, tier_title(b, blk), kBold); break;
            case Line::Digits: {
                const size_t digits = fmt::format("{}", blk.cols.size()).size();
                for (int ci = 0; ci < ncols; ++ci) {
                    const int xx = col_x(blk, ci);
                    if (xx < 0) continue;
                    const std::string num = fmt::format("{:>{}}", ci + 1, digits);
                    const char ch = num[line.index];
                    c.put(xx, y, static_cast<char32_t>(ch),
                          col_hit[line.block][static_cast<size_t>(ci)] ? kBold : kDim);
                }
                if (line.index + 1 == digits) {
                    c.text(body.x, y, fmt::format("{:>{}}", tier_plural(blk.tier + 1), label_w),
                           kDim, label_w);
                    if (ndown > 0) {
                        const int xx = col_x(blk, ncols);
                        if (xx >= 0)
                            c.text(xx, y, fmt::format("{} by port", tier_plural(blk.tier - 1)),
                                   kDim);
                    }
                }
                break;
            }
            case Line::Row: {
                const size_t r = shown[line.block][line.index];
                const BoardNode& node = b.nodes[blk.rows[r]];
                const bool is_cur = line.block == sel.block && r == sel.row;
                Style ls = node.present ? Style{} : health_style(Health::Error);
                if (!filter.empty() && node_matches(node, filter)) ls.bold = true;
                if (is_cur) ls.reverse = true;
                c.text(body.x, y, fit(node.label, label_w), ls, label_w);
                size_t up = 0;
                size_t total = 0;
                for (int ci = 0; ci < ncols; ++ci) {
                    const auto& cell = blk.cell(r, static_cast<size_t>(ci));
                    const BoardLink* w = worst_link(b, cell);
                    for (size_t l : cell) {
                        ++total;
                        up += b.links[l].status == LinkStatus::Up;
                    }
                    const int xx = col_x(blk, ci);
                    if (xx < 0) continue;
                    Style st = cell_style(w);
                    if (col_hit[line.block][static_cast<size_t>(ci)]) st.underline = true;
                    if (is_cur && ci == cur.col) st.reverse = true;
                    c.put(xx, y, w ? link_glyph(*w) : U'·', st);
                }
                const auto& down = blk.down[r];
                for (int di = 0; di < ndown; ++di) {
                    const int xx = col_x(blk, ncols + di);
                    if (xx < 0) continue;
                    const BoardLink* w = static_cast<size_t>(di) < down.size()
                                             ? &b.links[down[static_cast<size_t>(di)]]
                                             : nullptr;
                    Style st = cell_style(w);
                    if (w && !filter.empty() &&
                        node_matches(b.nodes[w->a.node == blk.rows[r] ? w->b.node : w->a.node],
                                     filter))
                        st.underline = true;
                    if (is_cur && ncols + di == cur.col) st.reverse = true;
                    c.put(xx, y, w ? link_glyph(*w) : U' ', st);
                }
                if (total) {
                    const Style ts = up == total ? kDim : health_style(Health::Error);
                    c.text(body.x + label_w + 1 + avail + 1, y,
                           fmt::format("{:>2}/{:<2} up", up, total), ts, tail_w + 2);
                }
                break;
            }
        }
    }
    // What is under the cursor.
    const BoardNode& row_node = b.nodes[sel_blk.rows[sel.row]];
    out.drill = row_node.label;
    const int ncols = static_cast<int>(sel_blk.cols.size());
    if (cur.col < ncols) {
        const auto& cell = sel_blk.cell(sel.row, static_cast<size_t>(cur.col));
        const BoardNode& col_node = b.nodes[sel_blk.cols[static_cast<size_t>(cur.col)]];
        if (cell.empty()) {
            out.status = fmt::format("{} ↔ {}: no link", row_node.label, col_node.label);
        } else {
            const BoardLink* w = worst_link(b, cell);
            out.status =
                (cell.size() > 1 ? fmt::format("{} links, worst: ", cell.size()) : std::string()) +
                link_status(b, *w);
            out.status_style = health_style(w->health);
        }
    } else if (const auto& down = sel_blk.down[sel.row];
               static_cast<size_t>(cur.col - ncols) < down.size()) {
        const BoardLink& l = b.links[down[static_cast<size_t>(cur.col - ncols)]];
        out.status = link_status(b, l);
        out.status_style = health_style(l.health);
    } else {
        out.status =
            fmt::format("{}  {}  LID {}", row_node.name, format_guid(row_node.guid), row_node.lid);
    }
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
