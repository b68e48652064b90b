#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tui/views.h"

namespace fabscope::tui {
namespace {

/// One line of the view: what it says, and what the status line says when
/// the cursor is on it.
struct Line {
    std::string text;
    Style style;
    std::string status;
    float share = -1;  ///< a waiting port's share: drawn as a bar
};

std::string percent(double share, bool cleared = false) {
    return fmt::format("{:6.2f}%{}", share * 100, cleared ? "+" : "");
}

std::string padded(const std::string& s, int w) {
    std::string out = s;
    for (int n = text_width(s); n < w; ++n) out += ' ';
    return out;
}

void file_lines(const CongestionDoc& c, const std::string& from, std::vector<Line>& out) {
    out.push_back(
        {fmt::format(
             "{}: PortXmitWait of {} port{} over {:.1f} s{}{}", from, c.ports_read,
             c.ports_read == 1 ? "" : "s", c.interval_s,
             c.ports_unanswered ? fmt::format(", {} did not answer", c.ports_unanswered) : "",
             c.started.empty() ? "" : fmt::format(", {}", c.started)),
         kDim, fmt::format("{}: result {}", from, c.result)});
    if (c.trees.empty()) {
        out.push_back({"No congestion tree: no port waited past the tree threshold.",
                       health_style(Health::Ok), ""});
    }
    for (const CongestionTreeDoc& t : c.trees) {
        const std::string root = label_name(t.root.label);
        out.push_back(
            {fmt::format("◆ root {}  {}  {} waiting, {} victim{}", root, t.cause,
                         percent(t.root.share, t.root.cleared), t.victims.size(),
                         t.victims.size() == 1 ? "" : "s"),
             health_style(Health::Error),
             fmt::format("{}: the root of a congestion tree ({}); fix it first", root, t.cause)});
        for (const CongestionPort& v : t.victims) {
            std::string chain;
            for (const PortLabel& l : v.chain)
                chain.append(chain.empty() ? "" : " → ").append(label_name(l));
            out.push_back(
                {fmt::format("  ▲ victim {}  {} waiting", label_name(v.label),
                             percent(v.share, v.cleared)),
                 health_style(Health::Warning),
                 fmt::format("{} waits because {} does: {}", label_name(v.label), root, chain)});
        }
    }
    if (!c.hottest.empty()) {
        out.push_back({"", {}, ""});
        out.push_back({"Hottest ports (PortXmitWait, share of the interval)", kBold, ""});
        int w = 0;
        for (const CongestionPort& h : c.hottest) w = std::max(w, text_width(label_name(h.label)));
        for (const CongestionPort& h : c.hottest) {
            out.push_back({fmt::format("  {} {}", padded(label_name(h.label), w),
                                       percent(h.share, h.cleared)),
                           {},
                           fmt::format("{}: PortXmitWait +{} over {:.1f} s{}", label_name(h.label),
                                       h.delta_ticks, h.interval_s,
                                       h.cleared ? " (at least: the counter was cleared)" : ""),
                           static_cast<float>(h.share)});
        }
    }
    bool header = false;
    for (const ReportFinding& f : c.findings) {
        if (f.kind == "congestion_root" || f.kind == "congestion_victim") continue;  // the trees
        if (!header) {
            out.push_back({"", {}, ""});
            out.push_back({"Findings (RoCE detectors, unanswered ports)", kBold, ""});
            header = true;
        }
        const char* glyph = f.severity == Severity::Error     ? "◆"
                            : f.severity == Severity::Warning ? "▲"
                                                              : "·";
        out.push_back({fmt::format("  {} {}: {}", glyph, f.kind, f.summary),
                       severity_style(f.severity), f.summary});
    }
}

/// The ports waiting most in the newest reading's rates, from the history.
void live_lines(const TuiData& d, std::vector<Line>& out) {
    if (!d.history) return;
    std::vector<const PortSeries*> waiting;
    for (const PortSeries& p : d.history->series()) {
        if (!p.samples.empty() && p.last_ms == d.meta.taken_ms && p.now().wait > 0)
            waiting.push_back(&p);
    }
    if (waiting.empty() && d.history->series().empty()) return;
    std::stable_sort(waiting.begin(), waiting.end(), [](const PortSeries* a, const PortSeries* b) {
        return a->now().wait > b->now().wait;
    });
    if (!out.empty()) out.push_back({"", {}, ""});
    out.push_back({d.meta.live ? "Waiting now (PortXmitWait share between the last two readings)"
                               : "Waiting between the last two snapshots (PortXmitWait share)",
                   kBold, ""});
    if (waiting.empty()) {
        out.push_back({"  No port waited.", health_style(Health::Ok), ""});
        return;
    }
    if (waiting.size() > 20) waiting.resize(20);
    int w = 0;
    for (const PortSeries* p : waiting) w = std::max(w, text_width(p->label));
    for (const PortSeries* p : waiting) {
        float peak = 0;
        for (const RateSample& x : p->samples) peak = std::max(peak, x.wait);
        out.push_back({fmt::format("  {} {}", padded(p->label, w), percent(p->now().wait)),
                       {},
                       fmt::format("{}: waiting {:.2f}% of the time now, at most {:.2f}% over "
                                   "{} reading{}",
                                   p->label, p->now().wait * 100, peak * 100, p->samples.size(),
                                   p->samples.size() == 1 ? "" : "s"),
                       p->now().wait});
    }
}

}  // namespace

ViewOutput draw_congestion(const TuiData& d, ViewState& s, Canvas& c, Rect body) {
    ViewOutput out;
    c.set_clip(body);
    std::vector<Line> lines;
    if (d.congestion) file_lines(*d.congestion, d.congestion_from, lines);
    live_lines(d, lines);
    const std::string& filter = s.active_filter();
    if (!filter.empty()) {
        std::erase_if(lines, [&](const Line& l) {
            return !l.status.empty() && !text_matches(l.text, filter);
        });
    }
    if (lines.empty()) {
        c.text(body.x, body.y, "No congestion data.", kBold);
        c.text(body.x, body.y + 2,
               "Give a report of `fabscope congestion --json -o FILE` with --congestion FILE: its",
               kDim);
        c.text(body.x, body.y + 3,
               "trees (root first), hottest ports and RoCE findings. Live, or with two --load",
               kDim);
        c.text(body.x, body.y + 4, "snapshots, the ports waiting most between readings show here.",
               kDim);
        c.reset_clip();
        return out;
    }
    const int visible = std::max(1, body.h);
    s.page = visible;
    Cursor& cur = s.cursor();
    keep_in_view(cur, static_cast<int>(lines.size()), visible);
    int bar_x = 0;
    for (const Line& l : lines) {
        if (l.share >= 0) bar_x = std::max(bar_x, text_width(l.text) + 1);
    }
    for (int i = 0; i < visible && cur.top + i < static_cast<int>(lines.size()); ++i) {
        const int row = cur.top + i;
        const Line& l = lines[static_cast<size_t>(row)];
        Style st = l.style;
        if (row == cur.row && !l.status.empty()) st.reverse = true;
        c.text(body.x, body.y + i, l.text, st, body.w);
        if (l.share >= 0) {
            const int width = std::max(0, std::min(30, body.w - bar_x - 1));
            const int n = static_cast<int>(
                std::lround(std::clamp(l.share, 0.0F, 1.0F) * static_cast<float>(width)));
            std::string bar;
            for (int k = 0; k < std::max(n, l.share > 0 ? 1 : 0); ++k) bar += "█";
            c.text(body.x + bar_x, body.y + i, bar,
                   health_style(l.share >= 0.1F ? Health::Error : Health::Warning));
        }
    }
    out.status = lines[static_cast<size_t>(cur.row)].status;
    c.reset_clip();
    return out;
}

}  // namespace fabscope::tui
