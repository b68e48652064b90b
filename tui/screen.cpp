#include "tui/screen.h"

#include <langinfo.h>
#include <ncursesw/curses.h>
#include <unistd.h>

#include <atomic>
#include <clocale>
#include <csignal>
#include <cstring>
#include <cwchar>

#include "tui/keys.h"
#include "util/exit_status.h"
#include "util/interrupt.h"

namespace fabscope::tui {
namespace {

std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
    g_signal.store(sig);
    interrupt_token().request_stop(sig);  // a sweep in flight gives up too
}

short curses_color(Color c) {
    switch (c) {
        case Color::Default: return -1;
        case Color::Red: return COLOR_RED;
        case Color::Green: return COLOR_GREEN;
        case Color::Yellow: return COLOR_YELLOW;
        case Color::Blue: return COLOR_BLUE;
        case Color::Magenta: return COLOR_MAGENTA;
        case Color::Cyan: return COLOR_CYAN;
        case Color::White: return COLOR_WHITE;
        case Color::Grey: return COLORS >= 16 ? 8 : COLOR_WHITE;
        case Color::Black: return COLOR_BLACK;
    }
    return -1;
}

int translate(int r, wint_t ch) {
    if (r == ERR) return key::kNone;
    if (r == KEY_CODE_YES) {
        switch (ch) {
            case KEY_UP: return key::kUp;
            case KEY_DOWN: return key::kDown;
            case KEY_LEFT: return key::kLeft;
            case KEY_RIGHT: return key::kRight;
            case KEY_PPAGE: return key::kPageUp;
            case KEY_NPAGE: return key::kPageDown;
            case KEY_HOME: return key::kHome;
            case KEY_END: return key::kEnd;
            case KEY_BTAB: return key::kBackTab;
            case KEY_RESIZE: return key::kResize;
            case KEY_BACKSPACE: return key::kBackspace;
            case KEY_ENTER: return key::kEnter;
            default:
                if (ch >= KEY_F(1) && ch <= KEY_F(12))
                    return key::kF1 + static_cast<int>(ch - KEY_F(1));
                return key::kNone;
        }
    }
    if (ch == '\r') return key::kEnter;
    if (ch == 8) return key::kBackspace;
    return static_cast<int>(ch);
}

}  // namespace

char32_t ascii_glyph(char32_t c) {
    switch (c) {
        case U'■': return U'#';
        case U'×': return U'x';
        case U'◆': return U'*';
        case U'·': return U'.';
        case U'●': return U'*';
        case U'…': return U'~';
        case U'─':
        case U'—': return U'-';
        case U'│': return U'|';
        case U'┌':
        case U'┐':
        case U'└':
        case U'┘': return U'+';
        case U'↔': return U'=';
        case U'⇄': return U's';
        case U'→': return U'>';
        case U'▼': return U'v';
        case U'▲': return U'^';
        case U'▏': return U'|';
        case U'≥': return U'>';
        case U'▁': return U'_';
        case U'▂':
        case U'▃': return U'.';
        case U'▄': return U'-';
        case U'▅':
        case U'▆': return U'=';
        case U'▇': return U'*';
        case U'█': return U'#';
        default: return c < 0x80 ? c : U'?';
    }
}

std::string ascii_text(const Canvas& c) {
    std::string out;
    for (char32_t ch : decode_utf8(c.to_text())) {
        append_utf8(out, ch == U'\n' ? ch : ascii_glyph(ch));
    }
    return out;
}

Result<std::unique_ptr<Screen>> Screen::open(const ScreenOptions& o) {
    if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO)) {
        return make_error(
            "tui: standard input and output must be a terminal; for text, use `fabscope tui --dump "
            "VIEW`",
            kExitCannotRun);
    }
    std::setlocale(LC_ALL, "");
    const bool unicode = !o.ascii && std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    // Ours before ncurses': it leaves handlers alone that are already set.
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
    if (!initscr())
        return make_error("tui: the terminal could not be initialised (is TERM set?)",
                          kExitCannotRun);
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    const bool color = o.color && has_colors();
    if (color) {
        start_color();
        use_default_colors();
    }
    return std::unique_ptr<Screen>(new Screen(unicode, color));
}

Screen::~Screen() {
    curs_set(1);
    endwin();
}

int Screen::width() const {
    return COLS;
}
int Screen::height() const {
    return LINES;
}

bool Screen::interrupted() {
    return g_signal.load() != 0;
}
int Screen::signal_number() {
    return g_signal.load();
}

short Screen::pair_of(Color fg, Color bg) {
    short& p = pairs_[static_cast<size_t>(fg)][static_cast<size_t>(bg)];
    if (p == 0 && next_pair_ < COLOR_PAIRS) {
        p = next_pair_++;
        init_pair(p, curses_color(fg), curses_color(bg));
    }
    return p;
}

void Screen::present(const Canvas& c) {
    const int w = std::min(c.width(), COLS);
    const int h = std::min(c.height(), LINES);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const Cell& cell = c.at(x, y);
            attr_t attrs = A_NORMAL;
            const Style& s = cell.style;
            if (s.bold) attrs |= A_BOLD;
            if (s.reverse) attrs |= A_REVERSE;
            if (s.underline) attrs |= A_UNDERLINE;
            short pair = 0;
            if (color_ && (s.fg != Color::Default || s.bg != Color::Default)) {
                pair = pair_of(s.fg, s.bg);
            } else if (!color_ && s.bg != Color::Default) {
                attrs |= A_REVERSE;  // a heat-map cell still stands out
            }
            if (!color_ && s.fg == Color::Grey) attrs |= A_DIM;
            const char32_t ch = unicode_ ? cell.ch : ascii_glyph(cell.ch);
            wchar_t str[2] = {static_cast<wchar_t>(ch), L'\0'};
            cchar_t cc;
            setcchar(&cc, str, attrs, pair, nullptr);
            mvwadd_wch(stdscr, y, x, &cc);  // the last cell may report an error: harmless
        }
    }
    wnoutrefresh(stdscr);
    doupdate();
}

int Screen::read_key(int timeout_ms) {
    wtimeout(stdscr, timeout_ms);
    wint_t ch = 0;
    const int r = wget_wch(stdscr, &ch);
    return translate(r, ch);
}

}  // namespace fabscope::tui
