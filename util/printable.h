#pragma once
// Text from outside (a node's description off the wire or out of a file, a
// name in a plan) is printed on terminals and in reports: a control byte or
// an escape sequence in it could move the cursor, retitle the window or hide
// a line. Every such text goes through printable() once, where it enters.

#include <string>
#include <string_view>

namespace fabscope {

/// `s` with every byte that is not printable ASCII (control bytes, ESC,
/// DEL, bytes >= 0x80) replaced by '?', and trailing spaces removed.
std::string printable(std::string_view s);

/// A name a client chose, for a log or a refusal: printable(), at most
/// `max` characters of it, "..." when it was longer.
std::string printable_capped(std::string_view s, size_t max = 64);

/// An error message as the one line it must be on a terminal and in a log:
/// line breaks (and the blanks around them) become "; ", other control bytes '?'.
std::string one_line(std::string_view s);

}  // namespace fabscope
