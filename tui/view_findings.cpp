#include <fmt/format.h>

#include <algorithm>

#include "tui/views.h"

namespace fabscope::tui {

ViewOutput draw_findings(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    ViewOutput out;
    c.set_clip(body);
    const std::string& filter = s.active_filter();
    std::vector<size_t> rows;
    for (size_t i = 0; i < d.findings.size(); ++i) {
        const FindingRow& f = d.findings[i];
        bool hit = text_matches(f.summary, filter) || text_matches(f.kind, filter);
        for (const std::string& w : f.where) hit = hit || text_matches(w, filter);
        if (hit) rows.push_back(i);
    }
    if (rows.empty()) {
        c.text(
            body.x, body.y,
            d.findings.empty() ? "No findings." : fmt::format("No finding matches \"{}\".", filter),
            kBold);
        if (d.findings.empty()) {
            c.text(body.x, body.y + 2,
                   fmt::format("Links, ports and counters checked against {}; counters over "
                               "{} reading{}.",
                               d.meta.expected, d.meta.readings, d.meta.readings == 1 ? "" : "s"),
                   kDim);
        }
        c.reset_clip();
        return out;
    }
    const int list_h = std::max(3, body.h * 11 / 20);
    s.page = list_h;
    Cursor& cur = s.cursor();
    keep_in_view(cur, static_cast<int>(rows.size()), list_h);
    const int kind_w = std::min(24, std::max(10, body.w / 5));
    for (int i = 0; i < list_h && cur.top + i < static_cast<int>(rows.size()); ++i) {
        const FindingRow& f =
            d.findings[rows[static_cast<size_t>(cur.top) + static_cast<size_t>(i)]];
        const int y = body.y + i;
        const Style ss = severity_style(f.severity);
        c.put(body.x, y, U'●', ss);
        c.text(body.x + 2, y, std::string(name(f.severity)), ss, 7);
        c.text(body.x + 10, y, fit(f.kind, kind_w), {}, kind_w);
        c.text(body.x + 11 + kind_w, y, f.summary, {});
        if (cur.top + i == cur.row) c.restyle({body.x + 2, y, body.w - 2, 1}, kCursor);
    }
    // The evidence of the finding under the cursor.
    const FindingRow& sel = d.findings[rows[static_cast<size_t>(cur.row)]];
    int y = body.y + list_h;
    c.fill({body.x, y, body.w, 1}, U'─', kDim);
    c.text(body.x + 2, y, fmt::format(" {} {} of {} ", sel.kind, cur.row + 1, rows.size()), kBold);
    ++y;
    std::vector<std::pair<std::string, Style>> lines;
    for (const std::string& l : wrap_words(sel.summary, body.w)) lines.emplace_back(l, Style{});
    for (const std::string& w : sel.where) lines.emplace_back("at " + w, Style{Color::Cyan});
    size_t start = 0;
    while (start < sel.evidence.size()) {
        size_t nl = sel.evidence.find('\n', start);
        if (nl == std::string::npos) nl = sel.evidence.size();
        lines.emplace_back(sel.evidence.substr(start, nl - start), kDim);
        start = nl + 1;
    }
    for (const auto& [text, style] : lines) {
        if (y >= body.bottom()) break;
        c.text(body.x, y++, text, style);
    }
    out.status = fmt::format("{}/{}  {}", cur.row + 1, rows.size(), sel.summary);
    out.status_style = severity_style(sel.severity);
    for (const std::string& p : sel.ports) out.drill += (out.drill.empty() ? "" : "|") + p;
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
