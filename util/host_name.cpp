#include "util/host_name.h"

#include <unistd.h>

#include <climits>

namespace fabscope {

std::string host_name() {
    char buf[HOST_NAME_MAX + 1] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "";
    return buf;
}

bool host_token_ok(std::string_view s, bool brackets) {
    if (s.empty() || s.size() > 253) return false;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == ':' ||
                        (brackets && (c == '[' || c == ']'));
        if (!ok) return false;
    }
    return true;
}

}  // namespace fabscope
