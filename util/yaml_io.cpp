#include "util/yaml_io.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <cerrno>
#include <map>
#include <vector>

#include "util/exit_status.h"
#include "util/input_file.h"

namespace fabscope::yaml_io {

void fail(const YAML::Node& at, const std::string& message) {
    throw Problem{at.Mark(), message};
}

std::string describe(const std::string& path, const YAML::Mark& m, const std::string& message) {
    if (m.is_null()) return fmt::format("{}: {}", path, message);
    return fmt::format("{}:{}:{}: {}", path, m.line + 1, m.column + 1, message);
}

Result<std::string> read_file(const std::string& path) {
    return read_text_file(path, kMaxYamlBytes);
}

namespace {

// Every mapping's keys are unique (yaml-cpp keeps both of two equal keys, and
// a reader would silently take one), and nothing nests deeper than
// kMaxYamlDepth. Walked with a stack of our own: no recursion on input.
void check_structure(const YAML::Node& root) {
    std::vector<std::pair<YAML::Node, size_t>> todo{{root, 1}};
    while (!todo.empty()) {
        auto [n, depth] = todo.back();
        todo.pop_back();
        if (depth > kMaxYamlDepth)
            fail(n, fmt::format("nested deeper than {} levels", kMaxYamlDepth));
        if (n.IsMap()) {
            std::map<std::string, YAML::Mark> seen;
            for (const auto& kv : n) {
                if (kv.first.IsScalar()) {
                    auto [it, fresh] = seen.emplace(kv.first.Scalar(), kv.first.Mark());
                    if (!fresh)
                        fail(kv.first, fmt::format("duplicate key \"{}\" (first at line {})",
                                                   kv.first.Scalar(), it->second.line + 1));
                }
                todo.emplace_back(kv.first, depth + 1);
                todo.emplace_back(kv.second, depth + 1);
            }
        } else if (n.IsSequence()) {
            for (const auto& item : n) todo.emplace_back(item, depth + 1);
        }
    }
}

}  // namespace

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
        check_structure(root);
        return root;
    } catch (const Problem& p) {
        return make_error(describe(path, p.mark, p.message), kExitUsage);
    } catch (const YAML::DeepRecursion& e) {
        return make_error(describe(path, e.mark, "nested too deep"), kExitUsage);
    } catch (const YAML::Exception& e) {
        return make_error(describe(path, e.mark, e.msg), kExitUsage);
    } catch (const std::bad_alloc&) {
        return out_of_memory(path);
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
