#pragma once
// Reading the files people write (plans, thresholds) with yaml-cpp, with
// errors that say file, line and column: "plan.yaml:12:5: width: \"3X\" is
// not one of 1X, 2X, 4X, 8X, 12X". JSON is valid YAML, so both are accepted.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <new>
#include <string>

#include "util/input_file.h"
#include "util/result.h"

namespace fabscope::yaml_io {

/// The largest plan or thresholds file we read (a 100,000-host plan is ~10 MiB).
inline constexpr uint64_t kMaxYamlBytes = uint64_t{32} << 20;
/// Plans and thresholds nest 4 deep; the limit keeps every walk shallow.
inline constexpr size_t kMaxYamlDepth = 64;

/// A problem at a place in the document; converted to an Error by load().
struct Problem {
    YAML::Mark mark;
    std::string message;
};

[[noreturn]] void fail(const YAML::Node& at, const std::string& message);

/// Parses `path` and hands the root to `read`, which may call fail(). Every
/// error, from the parser or from `read`, becomes "path:line:col: message"
/// with code kExitUsage. `what` names the document for an empty file. A file
/// over kMaxYamlBytes, a mapping with a key twice, nesting past
/// kMaxYamlDepth and running out of memory are errors too.
template <class T, class Fn>
Result<T> load(const std::string& path, const std::string& what, Fn&& read);
/// The same for text already read; `origin` names it in errors.
template <class T, class Fn>
Result<T> load_text(const std::string& text, const std::string& origin, const std::string& what,
                    Fn&& read);

// Typed getters that fail() with the value's place.
const YAML::Node require(const YAML::Node& map, const char* key);
std::string as_string(const YAML::Node& n);
int64_t as_int(const YAML::Node& n, int64_t min, int64_t max);
double as_double(const YAML::Node& n, double min, double max);

// Implementation details of load().
Result<std::string> read_file(const std::string& path);
Result<YAML::Node> parse_text(const std::string& text, const std::string& origin,
                              const std::string& what);
std::string describe(const std::string& path, const YAML::Mark& m, const std::string& message);

template <class T, class Fn>
Result<T> load(const std::string& path, const std::string& what, Fn&& read) {
    auto text = read_file(path);
    if (!text) return text.error();
    return load_text<T>(*text, path, what, std::forward<Fn>(read));
}

template <class T, class Fn>
Result<T> load_text(const std::string& text, const std::string& path, const std::string& what,
                    Fn&& read) {
    auto root = parse_text(text, path, what);
    if (!root) return root.error();
    try {
        return read(*root);
    } catch (const Problem& p) {
        return make_error(describe(path, p.mark, p.message));
    } catch (const YAML::Exception& e) {
        return make_error(describe(path, e.mark, e.msg));
    } catch (const std::bad_alloc&) {
        return out_of_memory(path);
    }
}

}  // namespace fabscope::yaml_io
