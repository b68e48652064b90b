#include "util/term.h"

#include <unistd.h>

#include <cstdlib>

namespace fabscope {

bool is_terminal(int fd) {
    return ::isatty(fd) == 1;
}

TextStyle style_for(int fd, bool no_color_flag) {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    bool dumb = term && std::string_view(term) == "dumb";
    return TextStyle{!no_color_flag && !(no_color && *no_color) && !dumb && is_terminal(fd)};
}

}  // namespace fabscope
