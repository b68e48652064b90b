#include "mesh/hosts.h"

#include <fmt/format.h>

#include <charconv>
#include <map>

#include "util/host_name.h"
#include "util/input_file.h"
#include "util/word_lines.h"

namespace fabscope::perf {
namespace {

constexpr size_t kMaxLine = 1024;
constexpr uint64_t kMaxFile = uint64_t{1} << 20;

/// "host", "host:port", "[v6]", "[v6]:port", or a bare IPv6 address.
std::string split_agent(const std::string& token, MeshAgent& a, uint16_t default_port) {
    std::string port;
    bool has_port = false;
    if (token.front() == '[') {
        auto close = token.find(']');
        if (close == std::string::npos) return "an IPv6 address opened with [ is not closed";
        a.host = token.substr(1, close - 1);
        std::string rest = token.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return "after [address] only :port may follow";
            port = rest.substr(1);
            has_port = true;
        }
    } else if (auto colon = token.find(':');
               colon != std::string::npos && colon == token.rfind(':')) {
        a.host = token.substr(0, colon);
        port = token.substr(colon + 1);
        has_port = true;
    } else {
        a.host = token;  // a name, an IPv4 address, or a bare IPv6 address: no port
    }
    if (!host_token_ok(a.host)) return fmt::format("\"{}\" is not a host name or address", a.host);
    a.port = default_port;
    if (has_port) {
        unsigned v = 0;
        auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
        if (ec != std::errc() || end != port.data() + port.size() || v < 1 || v > 65535)
            return fmt::format("port \"{}\" is not 1 .. 65535", port);
        a.port = static_cast<uint16_t>(v);
    }
    return "";
}

}  // namespace

std::string MeshAgent::where() const {
    if (host.find(':') != std::string::npos) return fmt::format("[{}]:{}", host, port);
    return fmt::format("{}:{}", host, port);
}

Result<std::vector<MeshAgent>> parse_mesh_hosts(const std::string& text, const std::string& source,
                                                uint16_t default_port) {
    std::vector<MeshAgent> agents;
    std::map<std::string, int> seen;
    auto one = [&](int n, const std::vector<std::string>& w) -> std::string {
        if (w.size() > 2)
            return fmt::format("\"{}\": one agent per line, host[:port] [device]", w[2]);
        if (agents.size() >= kMaxMeshAgents)
            return fmt::format("more than {} agents", kMaxMeshAgents);
        MeshAgent a;
        a.line = n;
        if (std::string why = split_agent(w[0], a, default_port); !why.empty()) return why;
        if (w.size() == 2) {
            a.device = w[1];
            if (a.device.size() > 64) return "device name longer than 64 characters";
        }
        auto [it, fresh] = seen.emplace(a.where(), n);
        if (!fresh)
            return fmt::format("{} is already on line {}: one agent serves one rank", a.where(),
                               it->second);
        agents.push_back(std::move(a));
        return "";
    };
    if (auto st = for_each_word_line(text, source, kMaxLine, one); !st) return st.error();
    if (agents.size() < 2)
        return make_error(fmt::format("{}: {} agent{}: a mesh run needs at least two", source,
                                      agents.size(), agents.size() == 1 ? "" : "s"));
    return agents;
}

Result<std::vector<MeshAgent>> load_mesh_hosts(const std::string& path, uint16_t default_port) {
    auto text = read_text_file(path, kMaxFile);
    if (!text) return text.error();
    return parse_mesh_hosts(*text, path, default_port);
}

}  // namespace fabscope::perf
