#include "util/printable.h"

namespace fabscope {

std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        out += c >= 0x20 && c < 0x7f ? ch : '?';
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::string printable_capped(std::string_view s, size_t max) {
    if (s.size() <= max) return printable(s);
    return printable(s.substr(0, max)) + "...";
}

std::string one_line(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
        if (s[i] == '\n' || s[i] == '\r') {
            while (!out.empty() && out.back() == ' ') out.pop_back();
            while (i < s.size() && (s[i] == '\n' || s[i] == '\r' || s[i] == ' ')) ++i;
            if (!out.empty() && i < s.size()) out += "; ";
            continue;
        }
        auto c = static_cast<unsigned char>(s[i++]);
        out += c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

}  // namespace fabscope
