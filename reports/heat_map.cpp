#include "reports/heat_map.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/escape.h"

namespace fabscope {
namespace {

constexpr int kCellW = 64;
constexpr int kCellH = 30;
constexpr int kRowLabelW = 110;
constexpr int kColLabelH = 80;

std::string clip(const std::string& s) {
    return s.size() > 14 ? s.substr(0, 13) + "…" : s;
}

}  // namespace

double pair_score(const PairMatrix& pm, const PairCheck& c) {
    if (!c.ok || pm.best <= 0 || c.value <= 0) return 0;
    double r = pm.higher_is_better ? c.value / pm.best : pm.best / c.value;
    return std::clamp(r, 0.0, 1.0);
}

std::string render_heat_map_svg(const ReportModel& m, const PairMatrix& pm) {
    int width = kRowLabelW + static_cast<int>(pm.cols.size()) * kCellW + 8;
    int height = kColLabelH + static_cast<int>(pm.rows.size()) * kCellH + 8;
    std::string out = fmt::format(
        "<svg class=\"heat-map\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
        "role=\"img\" aria-label=\"{2}: each host against each peer\">\n",
        width, height, html_escape(pm.test));
    for (size_t k = 0; k < pm.cols.size(); ++k) {
        int x = kRowLabelW + static_cast<int>(k) * kCellW + kCellW / 2;
        out += fmt::format(
            "<text class=\"col\" transform=\"translate({},{}) rotate(-40)\">{}</text>\n", x,
            kColLabelH - 6, html_escape(clip(pm.cols[k])));
    }
    for (size_t r = 0; r < pm.rows.size(); ++r) {
        int y = kColLabelH + static_cast<int>(r) * kCellH;
        out += fmt::format("<text class=\"row\" x=\"{}\" y=\"{}\">{}</text>\n", kRowLabelW - 6,
                           y + kCellH / 2 + 4, html_escape(clip(pm.rows[r])));
        for (size_t k = 0; k < pm.cols.size(); ++k) {
            long idx = pm.cells[r * pm.cols.size() + k];
            if (idx < 0) continue;
            const PairCheck& c = m.pairs[static_cast<size_t>(idx)];
            int x = kRowLabelW + static_cast<int>(k) * kCellW;
            std::string fill = "#444";
            std::string text = "fail";
            if (c.ok) {
                // Hue 0 (red) at half the best or less, 120 (green) at the best.
                double hue = 120.0 * std::clamp((pair_score(pm, c) - 0.5) / 0.5, 0.0, 1.0);
                fill = fmt::format("hsl({:.0f},70%,45%)", hue);
                text = fmt::format("{:.3g}", c.value);
            }
            std::string cls = !c.ok ? "failed" : c.degraded ? "degraded" : "ok";
            out += fmt::format(
                "<g class=\"heat-cell {0}\" data-from=\"{1}\" data-to=\"{2}\"><title>{1} → {2}: "
                "{3} {4}{5}</title><rect x=\"{6}\" y=\"{7}\" width=\"{8}\" height=\"{9}\" "
                "fill=\"{10}\"/><text x=\"{11}\" y=\"{12}\">{13}</text></g>\n",
                cls, html_escape(c.from), html_escape(c.to), html_escape(text),
                html_escape(c.ok ? c.unit : ""),
                html_escape(c.message.empty() ? "" : "\n" + c.message), x + 1, y + 1, kCellW - 2,
                kCellH - 2, fill, x + kCellW / 2, y + kCellH / 2 + 4, html_escape(text));
        }
    }
    out += "</svg>\n";
    return out;
}

}  // namespace fabscope
