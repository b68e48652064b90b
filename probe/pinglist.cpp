#include "probe/pinglist.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "net/channel.h"
#include "util/host_name.h"
#include "util/input_file.h"
#include "util/word_lines.h"

namespace fabscope::probe {
namespace {

constexpr size_t kMaxLine = 1024;
constexpr uint64_t kMaxFile = uint64_t{4} << 20;

/// "host:port" for the token: a port given is kept, else `default_port`.
/// A bare IPv6 address (more than one colon, no brackets) has no port.
std::string with_port(const std::string& token, uint16_t default_port, std::string* why) {
    const bool bracketed = token.front() == '[';
    const size_t colons = static_cast<size_t>(std::count(token.begin(), token.end(), ':'));
    std::string port;
    std::string host = token;
    if (bracketed) {
        const auto close = token.find(']');
        if (close == std::string::npos) {
            *why = "an IPv6 address opened with [ is not closed";
            return "";
        }
        host = token.substr(0, close + 1);
        if (close + 1 < token.size()) {
            if (token[close + 1] != ':') {
                *why = "after [address] only :port may follow";
                return "";
            }
            port = token.substr(close + 2);
        }
    } else if (colons == 1) {
        host = token.substr(0, token.find(':'));
        port = token.substr(token.find(':') + 1);
    } else if (colons > 1) {
        host = "[" + token + "]";
    }
    if (!port.empty() || (colons == 1 && !bracketed)) {
        unsigned v = 0;
        const bool digits =
            !port.empty() && port.size() <= 5 && std::all_of(port.begin(), port.end(), ::isdigit);
        if (digits) v = static_cast<unsigned>(std::stoul(port));
        if (!digits || v < 1 || v > 65535) {
            *why = fmt::format("port \"{}\" is not 1 .. 65535", port);
            return "";
        }
        return host + ":" + port;
    }
    return fmt::format("{}:{}", host, default_port);
}

/// The address:port as one spelling: a literal address in its canonical
/// form (fd00::4 and fd00:0::4 are one), a name in lower case.
std::string same_where(const std::string& where) {
    const bool v6 = where.front() == '[';
    auto [host, port] = perf::split_host_port(where);
    unsigned char bin[sizeof(in6_addr)] = {};
    char text[INET6_ADDRSTRLEN] = {};
    const int family = v6 ? AF_INET6 : AF_INET;
    if (::inet_pton(family, host.c_str(), bin) == 1 &&
        ::inet_ntop(family, bin, text, sizeof text) != nullptr)
        host = text;
    std::transform(host.begin(), host.end(), host.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return host + "|" + port;
}

}  // namespace

Result<std::vector<ProbeHost>> parse_pinglist(const std::string& text, const std::string& source,
                                              uint16_t default_port) {
    std::vector<ProbeHost> hosts;
    std::set<std::string> names;
    std::map<std::string, size_t> wheres;  // an address:port's host, by where()
    auto one = [&](int n, const std::vector<std::string>& w) -> std::string {
        if (w.size() < 2 || w.size() > 3) return "expected \"HOST[:PORT] NAME [LEAF]\"";
        for (const std::string& t : w) {
            if (!host_token_ok(t, true))
                return fmt::format("\"{}\" is not a host name or address", t);
        }
        if (hosts.size() >= kMaxProbeHosts)
            return fmt::format("more than {} hosts", kMaxProbeHosts);
        std::string why;
        ProbeHost h{with_port(w[0], default_port, &why), w[1], w.size() == 3 ? w[2] : "", n};
        if (!why.empty()) return why;
        if (!names.insert(h.name).second) return fmt::format("host {} is listed twice", h.name);
        // One agent answers at an address:port: two names there would be one host twice.
        if (auto [at, fresh] = wheres.try_emplace(same_where(h.where), hosts.size()); !fresh) {
            const ProbeHost& first = hosts[at->second];
            return fmt::format("{} is given to host {} here and to host {} on line {}", h.where,
                               h.name, first.name, first.line);
        }
        if (!hosts.empty() && hosts.front().leaf.empty() != h.leaf.empty())
            return "either every line names a leaf or none does";
        hosts.push_back(std::move(h));
        return "";
    };
    if (auto st = for_each_word_line(text, source, kMaxLine, one); !st) return st.error();
    if (hosts.empty()) return make_error(fmt::format("{}: no hosts in it", source));
    return hosts;
}

Result<std::vector<ProbeHost>> load_pinglist(const std::string& path, uint16_t default_port) {
    auto text = read_text_file(path, kMaxFile);
    if (!text) return text.error();
    return parse_pinglist(*text, path, default_port);
}

size_t find_host(const std::vector<ProbeHost>& hosts, const std::string& name) {
    for (size_t i = 0; i < hosts.size(); ++i) {
        if (hosts[i].name == name) return i;
    }
    return hosts.size();
}

Pinglist make_pinglist(const std::vector<ProbeHost>& hosts, size_t self, const PinglistOptions& o) {
    Pinglist p;
    // Leaves in the order of their first host; hosts in file order.
    std::vector<std::string> order;
    std::map<std::string, std::vector<size_t>> by_leaf;
    for (size_t i = 0; i < hosts.size(); ++i) {
        auto& list = by_leaf[hosts[i].leaf];
        if (list.empty()) order.push_back(hosts[i].leaf);
        list.push_back(i);
    }
    const std::string& mine = hosts[self].leaf;
    const auto& own = by_leaf[mine];
    p.position = static_cast<size_t>(std::find(own.begin(), own.end(), self) - own.begin());
    for (size_t i : own) {
        if (i != self) p.leaf_peers.push_back(i);
    }
    // The other leaves, numbered 0..L-2 from the one after this host's: host
    // j of a leaf covers leaf m when (m - j) mod size < cross_probers, so
    // each leaf is covered by cross_probers hosts (all, in a smaller leaf).
    const size_t at =
        static_cast<size_t>(std::find(order.begin(), order.end(), mine) - order.begin());
    const size_t size = own.size();
    const size_t probers = std::min<size_t>(std::max<uint32_t>(o.cross_probers, 1), size);
    for (size_t k = 1; k < order.size(); ++k) {
        const size_t m = k - 1;
        const size_t offset = (m + size - p.position % size) % size;
        if (offset >= probers) continue;
        const std::string& leaf = order[(at + k) % order.size()];
        p.covered_leaves.push_back(leaf);
        p.covered.push_back(by_leaf[leaf]);
    }
    return p;
}

std::vector<size_t> round_peers(const Pinglist& p, uint64_t round, uint32_t cross_hosts) {
    std::vector<size_t> out = p.leaf_peers;
    for (const auto& hosts : p.covered) {
        const size_t take = std::min<size_t>(cross_hosts, hosts.size());
        const uint64_t start = round * cross_hosts + p.position;
        for (size_t i = 0; i < take; ++i) out.push_back(hosts[(start + i) % hosts.size()]);
    }
    return out;
}

}  // namespace fabscope::probe
