#pragma once
// The terminal, through ncurses: the one place the TUI touches it. It shows
// canvases and reads keys; the terminal is restored when the screen goes,
// also after SIGINT, SIGTERM or SIGHUP (which end the loop, not the process).

#include <memory>

#include "tui/canvas.h"
#include "util/result.h"

namespace fabscope::tui {

struct ScreenOptions {
    bool color = true;   ///< off with NO_COLOR or --no-color
    bool ascii = false;  ///< force ASCII glyphs (also without a UTF-8 locale)
};

class Screen {
  public:
    /// Fails (exit code 3) when standard input or output is not a terminal.
    static Result<std::unique_ptr<Screen>> open(const ScreenOptions& o);
    ~Screen();
    Screen(const Screen&) = delete;
    Screen& operator=(const Screen&) = delete;

    int width() const;
    int height() const;
    void present(const Canvas& c);
    /// A key (keys.h), key::kResize after a resize, or key::kNone after
    /// `timeout_ms` without one.
    int read_key(int timeout_ms);
    /// SIGINT, SIGTERM or SIGHUP arrived.
    static bool interrupted();
    /// The signal, for the exit code.
    static int signal_number();

  private:
    Screen(bool unicode, bool color) : unicode_(unicode), color_(color) {}
    short pair_of(Color fg, Color bg);

    bool unicode_;
    bool color_;
    short next_pair_ = 1;
    short pairs_[10][10] = {};
};

/// The ASCII stand-in for a glyph the views draw ('■' -> '#', '×' -> 'x').
char32_t ascii_glyph(char32_t c);
/// A canvas as text with every glyph replaced by its ASCII stand-in.
std::string ascii_text(const Canvas& c);

}  // namespace fabscope::tui
