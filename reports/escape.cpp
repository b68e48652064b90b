#include "reports/escape.h"

namespace fabscope {

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
                    out += "\xEF\xBF\xBD";
                } else {
                    out += c;
                }
        }
    }
    return out;
}

std::string csv_field(std::string_view s) {
    std::string v;
    if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) {
        // Numbers stay numbers: only a leading sign followed by a non-digit is a formula risk.
        bool number = s.size() > 1 && (s[0] == '-' || s[0] == '+') && s[1] >= '0' && s[1] <= '9';
        if (!number) v += '\'';
    }
    v += s;
    if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
    std::string out = "\"";
    for (char c : v) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string md_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '\\':
            case '`':
            case '*':
            case '_':
            case '[':
            case ']':
            case '#':
            case '|':
            case '~':
            case '!':
            // CommonMark escapes these as it does the others: the text reads
            // "<->" rendered, and no tag or entity can start.
            case '<':
            case '>':
            case '&':
                out += '\\';
                out += c;
                break;
            case '\n':
            case '\r': out += ' '; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += ' ';
                } else {
                    out += c;
                }
        }
    }
    return out;
}

std::string html_id(std::string_view s) {
    std::string out;
    for (char c : s) {
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
        out += keep ? c : '_';
    }
    return out;
}

}  // namespace fabscope
