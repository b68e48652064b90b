// fabscope tui end to end: the real binary in a real terminal (tmux) against
// the simulated lab. Keys go in with send-keys, the screen comes back with
// capture-pane, colours included. The tmux server has a socket of its own
// and is killed in the destructor, also when the test fails.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "lab_harness.h"

namespace fabscope::labtest {
namespace {

using namespace std::chrono_literals;

/// One tmux server and its single pane, running bash.
class Tmux {
  public:
    Tmux(int cols, int rows) : socket_("fabscope-test-" + std::to_string(::getpid())) {
        CmdResult r =
            tmux({"-f", "/dev/null", "new-session", "-d", "-x", std::to_string(cols), "-y",
                  std::to_string(rows),
                  "env -i PATH=/usr/bin:/bin TERM=screen HOME=/tmp bash --norc --noprofile"});
        started_ = r.exit_code == 0;
        EXPECT_TRUE(started_) << r.err;
    }
    ~Tmux() { tmux({"kill-server"}); }
    Tmux(const Tmux&) = delete;
    Tmux& operator=(const Tmux&) = delete;

    bool started() const { return started_; }
    /// Types `text` (literally) and Enter.
    void type_line(const std::string& text) {
        tmux({"send-keys", "-t", "0", "-l", text});
        tmux({"send-keys", "-t", "0", "Enter"});
    }
    void key(const std::string& k) { tmux({"send-keys", "-t", "0", k}); }
    void resize(int cols, int rows) {
        tmux({"resize-window", "-t", "0", "-x", std::to_string(cols), "-y", std::to_string(rows)});
    }
    /// The screen as text, and with the SGR sequences of its colours.
    std::string screen() { return tmux({"capture-pane", "-p", "-t", "0"}).out; }
    std::string screen_with_colours() { return tmux({"capture-pane", "-p", "-e", "-t", "0"}).out; }
    std::string format(const std::string& f) {
        return tmux({"display-message", "-p", "-t", "0", f}).out;
    }

    /// Polls the screen until `pred` holds or `timeout` passes; the last screen.
    template <typename Pred>
    bool wait_for(Pred pred, std::chrono::milliseconds timeout, std::string* last = nullptr) {
        const auto end = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            std::string s = screen_with_colours();
            const bool ok = pred(s);
            if (last) *last = s;
            if (ok || std::chrono::steady_clock::now() >= end) return ok;
            std::this_thread::sleep_for(100ms);
        }
    }

  private:
    CmdResult tmux(std::vector<std::string> args) {
        args.insert(args.begin(), {"tmux", "-u", "-L", socket_});
        return run(args, 20s);
    }
    std::string socket_;
    bool started_ = false;
};

/// The text of a captured line, escape sequences removed.
std::string plain(const std::string& line) {
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && (line[i] < 0x40 || line[i] > 0x7e)) ++i;
            continue;
        }
        out += line[i];
    }
    return out;
}

/// The foreground colour (ANSI 0-7, -1 default) in effect where `glyph`
/// first appears on `line`, following its SGR sequences.
int fg_at(const std::string& line, const std::string& glyph) {
    int fg = -1;
    for (size_t i = 0; i < line.size();) {
        if (line.compare(i, 2, "\x1b[") == 0) {
            size_t j = i + 2;
            while (j < line.size() && (line[j] < 0x40 || line[j] > 0x7e)) ++j;
            if (j < line.size() && line[j] == 'm') {
                std::stringstream params(line.substr(i + 2, j - i - 2));
                std::string p;
                std::vector<int> codes;
                while (std::getline(params, p, ';')) codes.push_back(p.empty() ? 0 : std::stoi(p));
                if (codes.empty()) codes.push_back(0);
                for (size_t k = 0; k < codes.size(); ++k) {
                    const int code = codes[k];
                    if (code == 0 || code == 39) fg = -1;
                    if (code >= 30 && code <= 37) fg = code - 30;
                    if (code >= 90 && code <= 97) fg = code - 90;
                    if (code == 38 && k + 2 < codes.size() && codes[k + 1] == 5)
                        fg = codes[k + 2] % 8;
                    if (code == 38) k += 2;
                }
            }
            i = j + 1;
            continue;
        }
        if (line.compare(i, glyph.size(), glyph) == 0) return fg;
        ++i;
    }
    return -2;  // not on the line
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

/// The captured line whose text starts with `prefix` ("" if none).
std::string line_starting(const std::string& screen, const std::string& prefix) {
    for (const std::string& l : lines_of(screen)) {
        if (plain(l).rfind(prefix, 0) == 0) return l;
    }
    return {};
}

constexpr int kRed = 1;

TEST(TuiTmux, ShowsTheTiersTurnsADownLinkRedAndRestoresTheTerminal) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    Tmux t(100, 30);
    ASSERT_TRUE(t.started());
    const std::string state = lab.dir() + "-stty";
    t.type_line("stty -g > " + state + ".before; echo READY");
    ASSERT_TRUE(t.wait_for(
        [](const std::string& s) { return plain(s).find("\nREADY") != std::string::npos; }, 10s));

    // Start: the tiers and the links between them.
    const std::string refresh = "1s";
    t.type_line("LC_ALL=C.UTF-8 " + fabscope() + " lab exec --dir " + lab.dir() + " -- " +
                fabscope() + " tui --refresh " + refresh + "; echo EXIT=$?");
    std::string shown;
    const bool tiers = t.wait_for(
        [](const std::string& s) {
            const std::string p = plain(s);
            return p.find("16 hosts · 4 leaves · 2 spines") != std::string::npos &&
                   p.find("leaves × spines") != std::string::npos &&
                   !line_starting(s, "leaf02 ").empty();
        },
        20s, &shown);
    ASSERT_TRUE(tiers) << plain(shown);
    EXPECT_EQ(t.format("#{alternate_on}"), "1\n");
    const std::string before = line_starting(shown, "leaf02 ");
    EXPECT_EQ(plain(before).find("×"), std::string::npos) << plain(before);

    // A leaf-spine link down: red within two refreshes (and the reading).
    ASSERT_EQ(lab.fault({"link-down", "leaf02[5]"}).exit_code, 0);
    const auto t0 = std::chrono::steady_clock::now();
    const bool red = t.wait_for(
        [](const std::string& s) { return fg_at(line_starting(s, "leaf02 "), "×") == kRed; }, 3s,
        &shown);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(red) << "leaf02 row after " << took << " s: " << line_starting(shown, "leaf02 ")
                     << "\n"
                     << plain(shown);
    std::printf("the down link turned red %.2f s after the fault (refresh %s)\n", took,
                refresh.c_str());
    EXPECT_NE(plain(shown).find("1 down"), std::string::npos) << plain(shown);
    // The other leaves stay as they were.
    EXPECT_EQ(fg_at(line_starting(shown, "leaf01 "), "×"), -2);

    // Keys work while the fabric is polled: the links view, the help overlay.
    t.key("2");
    EXPECT_TRUE(
        t.wait_for([](const std::string& s) { return plain(s).find("end A") != std::string::npos; },
                   5s, &shown))
        << plain(shown);
    // Two host cables swapped: drawn as swapped (not down), the first reading's
    // cables named; the link that went down is still the one down.
    ASSERT_EQ(lab.fault({"swap", "leaf01[1]", "leaf01[2]"}).exit_code, 0);
    EXPECT_TRUE(t.wait_for(
        [](const std::string& s) {
            const std::string p = plain(s);
            return p.find("2 miscabled, 1 down") != std::string::npos &&
                   p.find("swapped") != std::string::npos;
        },
        5s, &shown))
        << plain(shown);
    // Enter on the second link (a swapped one; the down one is first): both
    // ends' counters, and only theirs.
    t.key("Down");
    t.key("Enter");
    EXPECT_TRUE(t.wait_for(
        [](const std::string& s) {
            const std::string p = plain(s);
            const auto lines = lines_of(p);
            return p.find("3 Counters") != std::string::npos &&
                   p.find("filter \"h000") != std::string::npos && lines.size() > 6 &&
                   (lines[4].rfind("h000", 0) == 0 || lines[4].rfind("leaf01[", 0) == 0) &&
                   (lines[5].rfind("h000", 0) == 0 || lines[5].rfind("leaf01[", 0) == 0) &&
                   lines[6].find_first_not_of(' ') == std::string::npos;
        },
        5s, &shown))
        << plain(shown);
    t.key("Escape");
    t.key("2");
    // The help at 100 columns: every line whole.
    t.key("?");
    EXPECT_TRUE(t.wait_for(
        [](const std::string& s) {
            const std::string p = plain(s);
            return p.find("fabscope tui: keys") != std::string::npos &&
                   p.find("a port's links (counters)") != std::string::npos &&
                   p.find("Swapped: up, but the plan has other cables") != std::string::npos;
        },
        5s, &shown))
        << plain(shown);
    t.key("Escape");

    // A resize: the frame follows it (the key line is the new last line).
    t.resize(80, 24);
    EXPECT_TRUE(t.wait_for(
        [](const std::string& s) {
            const auto lines = lines_of(plain(s));
            return lines.size() >= 24 && lines[23].rfind("Tab/1-6 views", 0) == 0 &&
                   plain(s).find("end A") != std::string::npos;
        },
        5s, &shown))
        << plain(shown);

    // Quit: the exit code, the main screen back, the tty modes as they were.
    t.key("q");
    ASSERT_TRUE(t.wait_for(
        [](const std::string& s) { return plain(s).find("\nEXIT=") != std::string::npos; }, 10s,
        &shown))
        << plain(shown);
    EXPECT_NE(plain(shown).find("\nEXIT=0"), std::string::npos) << plain(shown);
    EXPECT_EQ(t.format("#{alternate_on}"), "0\n");
    EXPECT_NE(plain(shown).find("READY"), std::string::npos)
        << "the shell's screen is back: " << plain(shown);
    t.type_line("stty -g > " + state + ".after; echo DONE");
    ASSERT_TRUE(t.wait_for(
        [](const std::string& s) { return plain(s).find("\nDONE") != std::string::npos; }, 10s));
    std::ifstream a(state + ".before");
    std::ifstream b(state + ".after");
    std::string sa;
    std::string sb;
    std::getline(a, sa);
    std::getline(b, sb);
    EXPECT_FALSE(sa.empty());
    EXPECT_EQ(sa, sb) << "terminal modes changed";

    // Ctrl-C: a key in the raw terminal; the terminal comes back and the exit code is 130.
    t.type_line("clear; LC_ALL=C.UTF-8 " + fabscope() + " lab exec --dir " + lab.dir() + " -- " +
                fabscope() + " tui --refresh 1s; echo EXIT=$?");
    ASSERT_TRUE(t.wait_for(
        [](const std::string& s) { return plain(s).find("leaves × spines") != std::string::npos; },
        20s, &shown))
        << plain(shown);
    t.key("C-c");
    ASSERT_TRUE(t.wait_for(
        [](const std::string& s) {  // the status, not the command line's "EXIT=$?"
            const std::string p = plain(s);
            return p.find("EXIT=1") != std::string::npos || p.find("EXIT=0") != std::string::npos;
        },
        10s, &shown))
        << plain(shown);
    EXPECT_NE(plain(shown).find("EXIT=130"), std::string::npos) << plain(shown);
    EXPECT_EQ(t.format("#{alternate_on}"), "0\n");
    std::remove((state + ".before").c_str());
    std::remove((state + ".after").c_str());
}

}  // namespace
}  // namespace fabscope::labtest
