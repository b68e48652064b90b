#include "model/node_name_map.h"

#include <fmt/format.h>

#include <cctype>

#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/printable.h"

namespace fabscope {
namespace {

bool blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

std::string_view trim_left(std::string_view s) {
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    return s;
}

/// The GUID at the start of `s`, in hex with 0x as ibnetdiscover writes it,
/// advancing `s` past it.
std::optional<Guid> take_guid(std::string_view& s) {
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
    size_t end = 2;
    while (end < s.size() && std::isxdigit(static_cast<unsigned char>(s[end]))) ++end;
    auto g = parse_guid(s.substr(0, end));
    if (g) s.remove_prefix(end);
    return g;
}

}  // namespace

Result<NodeNameMap> parse_node_name_map(std::string_view text, const std::string& source) {
    NodeNameMap map;
    std::map<Guid, size_t> line_of;
    size_t line_no = 0;
    while (!text.empty()) {
        ++line_no;
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        auto bad = [&](std::string_view why) {
            return make_error(fmt::format("{}:{}: {}", source, line_no, why), kExitUsage);
        };
        if (line.size() > kMaxNodeNameMapLine) {
            return bad(fmt::format("line longer than {} bytes", kMaxNodeNameMapLine));
        }
        std::string_view s = trim_left(line);
        if (s.empty() || s.front() == '#') continue;
        auto guid = take_guid(s);
        if (!guid) return bad("expected a node GUID such as 0x0002c90300000001 and a \"name\"");
        s = trim_left(s);
        if (s.empty() || s.front() != '"')
            return bad("expected a \"name\" in quotes after the GUID");
        s.remove_prefix(1);
        size_t close = s.find('"');
        if (close == std::string_view::npos) return bad("the name's closing quote is missing");
        std::string name = printable(s.substr(0, close));
        s = trim_left(s.substr(close + 1));
        if (!s.empty() && s.front() != '#') return bad("unexpected text after the name");
        if (name.empty()) return bad("empty name");
        if (name.size() > kMaxNodeName) {
            return bad(fmt::format("name longer than {} bytes", kMaxNodeName));
        }
        if (auto [it, fresh] = line_of.emplace(*guid, line_no); !fresh) {
            return bad(
                fmt::format("{} is named already on line {}", format_guid(*guid), it->second));
        }
        map.names.emplace(*guid, std::move(name));
    }
    return map;
}

Result<NodeNameMap> load_node_name_map(const std::string& path) {
    auto text = read_text_file(path, kMaxNodeNameMapBytes);
    if (!text) return text.error();
    return parse_node_name_map(*text, path);
}

Fabric apply_node_names(const Fabric& f, const NodeNameMap& map) {
    if (map.names.empty()) return f;
    std::vector<Node> nodes = f.nodes();
    bool renamed = false;
    for (Node& n : nodes) {
        if (auto it = map.names.find(n.guid); it != map.names.end()) {
            n.description = it->second;
            renamed = true;
        }
    }
    if (!renamed) return f;
    // The same nodes and peers as a fabric that was built already: cannot fail.
    auto built = Fabric::build(std::move(nodes));
    return built ? std::move(built).value() : f;
}

}  // namespace fabscope
