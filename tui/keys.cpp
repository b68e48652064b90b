#include "tui/keys.h"

#include <algorithm>

#include "tui/canvas.h"

namespace fabscope::tui {
namespace {

void switch_to(ViewState& s, ViewId v) {
    s.view = v;
    s.message.clear();
}

Command edit_filter(ViewState& s, int k) {
    switch (k) {
        case key::kEnter:
            s.filter = s.edit;
            s.editing = false;
            break;
        case key::kEscape:
            s.editing = false;
            s.edit.clear();
            s.filter.clear();
            break;
        case key::kBackspace:
        case 8:
            if (!s.edit.empty()) {
                // Drop one code point, not one byte.
                size_t n = s.edit.size() - 1;
                while (n > 0 && (static_cast<unsigned char>(s.edit[n]) & 0xC0) == 0x80) --n;
                s.edit.resize(n);
            }
            break;
        case key::kCtrlC: return Command::Interrupt;
        default:
            if (k >= 32 && k < 0x110000 && k != 127) append_utf8(s.edit, static_cast<char32_t>(k));
            break;
    }
    for (Cursor& c : s.cursors) c.row = c.top = 0;  // the rows changed
    return Command::Redraw;
}

}  // namespace

std::optional<ViewId> drill_target(ViewId from) {
    switch (from) {
        case ViewId::Fabric:    // a switch's links
        case ViewId::Counters:  // the port's node's links
            return ViewId::Links;
        case ViewId::Links:     // both ends' counters
        case ViewId::Findings:  // its ports' counters
            return ViewId::Counters;
        case ViewId::Pairs:
        case ViewId::Congestion: return std::nullopt;
    }
    return std::nullopt;
}

Command apply_key(ViewState& s, int k, const std::string& selected_label) {
    if (s.editing) return edit_filter(s, k);
    if (s.help) {  // any key closes the help; q still quits
        s.help = false;
        if (k == key::kCtrlC) return Command::Interrupt;
        return k == 'q' || k == 'Q' ? Command::Quit : Command::Redraw;
    }
    Cursor& c = s.cursor();
    const int page = std::max(1, s.page - 1);
    switch (k) {
        case 'q':
        case 'Q': return Command::Quit;
        case key::kCtrlC: return Command::Interrupt;
        case '?':
        case key::kF1: s.help = true; return Command::Redraw;
        case '1': switch_to(s, ViewId::Fabric); return Command::Redraw;
        case '2': switch_to(s, ViewId::Links); return Command::Redraw;
        case '3': switch_to(s, ViewId::Counters); return Command::Redraw;
        case '4': switch_to(s, ViewId::Pairs); return Command::Redraw;
        case '5': switch_to(s, ViewId::Findings); return Command::Redraw;
        case '6': switch_to(s, ViewId::Congestion); return Command::Redraw;
        case key::kTab:
            switch_to(s, static_cast<ViewId>((static_cast<size_t>(s.view) + 1) % kViewCount));
            return Command::Redraw;
        case key::kBackTab:
            switch_to(s, static_cast<ViewId>((static_cast<size_t>(s.view) + kViewCount - 1) %
                                             kViewCount));
            return Command::Redraw;
        case key::kUp:
        case 'k': c.row = std::max(0, c.row - 1); return Command::Redraw;
        case key::kDown:
        case 'j': c.row += 1; return Command::Redraw;
        case key::kLeft:
        case 'h': c.col = std::max(0, c.col - 1); return Command::Redraw;
        case key::kRight:
        case 'l': c.col += 1; return Command::Redraw;
        case key::kPageUp: c.row = std::max(0, c.row - page); return Command::Redraw;
        case key::kPageDown:
        case ' ': c.row += page; return Command::Redraw;
        case key::kHome:
        case 'g':
            c.row = 0;
            c.col = 0;
            return Command::Redraw;
        case key::kEnd:
        case 'G': c.row = 1 << 30; return Command::Redraw;
        case '/':
            s.editing = true;
            s.edit = s.filter;
            return Command::Redraw;
        case key::kEscape:
            s.filter.clear();
            s.message.clear();
            return Command::Redraw;
        case 's':
            if (s.view == ViewId::Links)
                s.link_sort =
                    static_cast<LinkSort>((static_cast<size_t>(s.link_sort) + 1) % kLinkSorts);
            if (s.view == ViewId::Counters)
                s.counter_sort = static_cast<CounterSort>(
                    (static_cast<size_t>(s.counter_sort) + 1) % kCounterSorts);
            c.row = c.top = 0;
            return Command::Redraw;
        case 'S':
            s.reverse = !s.reverse;
            c.row = c.top = 0;
            return Command::Redraw;
        case 't': ++s.pair_test; return Command::Redraw;
        case 'T': --s.pair_test; return Command::Redraw;
        case key::kEnter:
            if (auto to = drill_target(s.view); to && !selected_label.empty()) {
                s.filter = selected_label;
                switch_to(s, *to);
                s.cursor() = Cursor{};
            }
            return Command::Redraw;
        case 'r': return Command::Refresh;
        case 'p': s.paused = !s.paused; return Command::TogglePause;
        case key::kCtrlL:
        case key::kResize: return Command::Redraw;
        default: return Command::None;
    }
}

}  // namespace fabscope::tui
