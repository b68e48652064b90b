#pragma once
// Keys as the TUI understands them, independent of ncurses (the screen
// translates), and what each does to the view state.

#include <optional>
#include <string>

#include "tui/view_state.h"

namespace fabscope::tui {

namespace key {
// Printable keys are their code point; the rest sit above Unicode.
inline constexpr int kNone = -1;
inline constexpr int kUp = 0x110001;
inline constexpr int kDown = 0x110002;
inline constexpr int kLeft = 0x110003;
inline constexpr int kRight = 0x110004;
inline constexpr int kPageUp = 0x110005;
inline constexpr int kPageDown = 0x110006;
inline constexpr int kHome = 0x110007;
inline constexpr int kEnd = 0x110008;
inline constexpr int kBackTab = 0x110009;
inline constexpr int kResize = 0x11000A;
inline constexpr int kF1 = 0x110010;  ///< F1..F5: kF1 + n - 1
inline constexpr int kEnter = '\n';
inline constexpr int kTab = '\t';
inline constexpr int kEscape = 27;
inline constexpr int kBackspace = 127;
inline constexpr int kCtrlC = 3;
inline constexpr int kCtrlL = 12;
}  // namespace key

/// Quit: q (exit 0). Interrupt: Ctrl-C, which the raw terminal delivers as
/// a key, not a signal (exit 130, as for SIGINT).
enum class Command : uint8_t { None, Redraw, Quit, Interrupt, Refresh, TogglePause };

/// Where Enter goes from a view, filtered to what the cursor is on (none:
/// Enter does nothing there, and the key line does not offer it): a switch's
/// links, a link's or a finding's ports' counters, a port's node's links.
std::optional<ViewId> drill_target(ViewId from);

/// Applies one key. `selected_label` is what Enter drills into: the filter
/// the view drilled to starts with (ViewOutput::drill).
Command apply_key(ViewState& s, int k, const std::string& selected_label = {});

}  // namespace fabscope::tui
