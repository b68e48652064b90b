#include "model/yaml_io.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/exit_status.h"

namespace fabscope::yaml_io {

void fail(const YAML::Node& at, const std::string& message) {
    throw Problem{at.Mark(), message};
}

std::string describe(const std::string& path, const YAML::Mark& m, const std::string& message) {
    if (m.is_null()) return fmt::format("{}: {}", path, message);
    return fmt::format("{}:{}:{}: {}", path, m.line + 1, m.column + 1, message);
}

Result<std::string> read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)),
                          kExitUsage);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Result<YAML::Node> parse_text(const std::string& text, const std::string& path,
                              const std::string& what) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return make_error(fmt::format("{}: file is empty (expected a {})", path, what), kExitUsage);
    }
    try {
        YAML::Node root = YAML::Load(text);
        if (!root.IsMap()) {
            return make_error(
                fmt::format("{}: not a {} (expected a mapping at the top)", path, what),
                kExitUsage);
        }
        return root;
    } catch (const YAML::Exception& e) {
        return make_error(describe(path, e.mark, e.msg), kExitUsage);
    }
}

const YAML::Node require(const YAML::Node& map, const char* key) {
    if (!map.IsMap()) fail(map, "expected a mapping");
    YAML::Node n = map[key];
    if (!n) fail(map, fmt::format("missing \"{}\"", key));
    return n;
}

std::string as_string(const YAML::Node& n) {
    if (!n.IsScalar()) fail(n, "expected a single value");
    return n.Scalar();
}

int64_t as_int(const YAML::Node& n, int64_t min, int64_t max) {
    if (!n.IsScalar()) fail(n, "expected a whole number");
    const std::string& s = n.Scalar();
    int64_t v = 0;
    char* end = nullptr;
    errno = 0;
    v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE)
        fail(n, fmt::format("\"{}\" is not a whole number", s));
    if (v < min || v > max) fail(n, fmt::format("{} is out of range ({}..{})", v, min, max));
    return v;
}

double as_double(const YAML::Node& n, double min, double max) {
    if (!n.IsScalar()) fail(n, "expected a number");
    const std::string& s = n.Scalar();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || v != v) fail(n, fmt::format("\"{}\" is not a number", s));
    if (v < min || v > max) fail(n, fmt::format("{} is out of range ({}..{})", v, min, max));
    return v;
}

}  // namespace fabscope::yaml_io
