#pragma once
// Terminal conventions: colour only on a terminal and never with NO_COLOR
// (https://no-color.org); progress only when stderr is a terminal.

#include <string>
#include <string_view>

namespace fabscope {

/// ANSI styling that is a no-op when colour is off.
struct TextStyle {
    bool color = false;

    std::string bold(std::string_view s) const { return wrap("1", s); }
    std::string dim(std::string_view s) const { return wrap("2", s); }
    std::string red(std::string_view s) const { return wrap("31", s); }
    std::string green(std::string_view s) const { return wrap("32", s); }
    std::string yellow(std::string_view s) const { return wrap("33", s); }
    std::string cyan(std::string_view s) const { return wrap("36", s); }

  private:
    std::string wrap(std::string_view code, std::string_view s) const {
        if (!color) return std::string(s);
        return "\033[" + std::string(code) + "m" + std::string(s) + "\033[0m";
    }
};

bool is_terminal(int fd);
/// Colour for a stream: a terminal, NO_COLOR unset, and not disabled by flag.
TextStyle style_for(int fd, bool no_color_flag);

}  // namespace fabscope
