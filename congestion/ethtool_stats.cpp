#include "congestion/ethtool_stats.h"

#include <fmt/format.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <memory>

#include "util/exit_status.h"
#include "util/input_file.h"

namespace fabscope {
namespace {

constexpr uint64_t kMaxStatsFile = 4 << 20;  // 32768 lines of a 32-byte name and a value

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

/// Lines of `text`, each with its 1-based number.
template <class F>
void for_each_line(std::string_view text, F f) {
    int no = 0;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        f(++no, line);
    }
}

/// The buffer of an ethtool command with a flexible array of `n` T behind the header.
template <class Header, class T>
struct Flex {
    explicit Flex(size_t n) : bytes(sizeof(Header) + n * sizeof(T)) {
        buf = std::make_unique<uint64_t[]>((bytes + 7) / 8);
        std::memset(buf.get(), 0, bytes);
    }
    Header* get() { return reinterpret_cast<Header*>(buf.get()); }  // NOLINT
    size_t bytes;
    std::unique_ptr<uint64_t[]> buf;  // 8-byte aligned for the u64 arrays
};

Error ioctl_error(const std::string& netdev, const char* what, int err) {
    return make_error(fmt::format("{}: ethtool {} failed: {}", netdev, what, std::strerror(err)),
                      kExitCannotRun);
}

}  // namespace

IoctlEthtoolSource::IoctlEthtoolSource(const Clock& clock) : clock_(clock) {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) open_errno_ = errno;
}

IoctlEthtoolSource::~IoctlEthtoolSource() {
    if (fd_ >= 0) ::close(fd_);
}

Result<EthtoolReading> IoctlEthtoolSource::read(const std::string& netdev) {
    if (fd_ < 0) return ioctl_error(netdev, "socket", open_errno_);
    if (netdev.empty() || netdev.size() >= IFNAMSIZ)
        return make_error(fmt::format("\"{}\": not a network interface name", netdev));
    auto call = [&](void* data) {
        ifreq ifr{};
        std::memcpy(ifr.ifr_name, netdev.data(), netdev.size());
        ifr.ifr_data = static_cast<char*>(data);
        return ::ioctl(fd_, SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
    };
    EthtoolReading r;
    r.netdev = netdev;

    Flex<ethtool_sset_info, uint32_t> info(1);
    info.get()->cmd = ETHTOOL_GSSET_INFO;
    info.get()->sset_mask = 1ULL << ETH_SS_STATS;
    if (int e = call(info.get())) return ioctl_error(netdev, "GSSET_INFO", e);
    uint32_t n = 0;
    if (info.get()->sset_mask & (1ULL << ETH_SS_STATS)) n = info.get()->data[0];
    if (n > kMaxEthtoolStats)
        return make_error(
            fmt::format("{}: the driver reports {} statistics, more than the {} fabscope reads",
                        netdev, n, kMaxEthtoolStats),
            kExitCannotRun);
    if (n > 0) {
        Flex<ethtool_gstrings, char> names(static_cast<size_t>(n) * ETH_GSTRING_LEN);
        names.get()->cmd = ETHTOOL_GSTRINGS;
        names.get()->string_set = ETH_SS_STATS;
        names.get()->len = n;
        if (int e = call(names.get())) return ioctl_error(netdev, "GSTRINGS", e);
        Flex<ethtool_stats, uint64_t> values(n);
        values.get()->cmd = ETHTOOL_GSTATS;
        values.get()->n_stats = n;
        if (int e = call(values.get())) return ioctl_error(netdev, "GSTATS", e);
        // The kernel fills at most what it was told; a driver whose set changed
        // in between answers with fewer.
        uint32_t got = std::min(std::min(names.get()->len, values.get()->n_stats), n);
        const char* base = reinterpret_cast<const char*>(names.get()->data);  // NOLINT
        for (uint32_t i = 0; i < got; ++i) {
            const char* s = base + static_cast<size_t>(i) * ETH_GSTRING_LEN;
            std::string name(s, strnlen(s, ETH_GSTRING_LEN));
            // Duplicate names exist (per-queue sets of some drivers): the first wins,
            // as `ethtool -S | grep` would show it first.
            r.stats.emplace(std::move(name), values.get()->data[i]);
        }
    }
    ethtool_pauseparam pause{};
    pause.cmd = ETHTOOL_GPAUSEPARAM;
    if (call(&pause) == 0)
        r.pause = PauseSettings{pause.autoneg != 0, pause.rx_pause != 0, pause.tx_pause != 0};
    r.read_at_ms = clock_.unix_ms();
    return r;
}

Result<EthtoolReading> FixtureEthtoolSource::read(const std::string& netdev) {
    namespace fs = std::filesystem;
    const std::string stats_path = (fs::path(root_) / (netdev + ".stats")).string();
    auto text = read_text_file(stats_path, kMaxStatsFile);
    if (!text) return text.error();
    auto stats = parse_ethtool_stats(*text, stats_path);
    if (!stats) return stats.error();
    EthtoolReading r;
    r.netdev = netdev;
    r.stats = std::move(stats).value();
    const std::string pause_path = (fs::path(root_) / (netdev + ".pause")).string();
    std::error_code ec;
    if (fs::exists(pause_path, ec)) {
        auto ptext = read_text_file(pause_path, 4096);
        if (!ptext) return ptext.error();
        auto p = parse_ethtool_pause(*ptext, pause_path);
        if (!p) return p.error();
        r.pause = *p;
    }
    r.read_at_ms = clock_.unix_ms();
    return r;
}

Result<CounterMap> parse_ethtool_stats(std::string_view text, const std::string& origin) {
    CounterMap out;
    std::string error;
    for_each_line(text, [&](int no, std::string_view raw) {
        if (!error.empty()) return;
        std::string_view line = trim(raw);
        if (line.empty() || line == "NIC statistics:") return;
        size_t colon = line.rfind(':');
        std::string_view name = colon == std::string_view::npos ? "" : trim(line.substr(0, colon));
        std::string_view value =
            colon == std::string_view::npos ? line : trim(line.substr(colon + 1));
        uint64_t v = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (name.empty() || name.size() >= ETH_GSTRING_LEN || ec != std::errc() ||
            end != value.data() + value.size()) {
            error = fmt::format(
                "{}:{}: expected \"name: unsigned value\" as `ethtool -S` prints "
                "it, got \"{}\"",
                origin, no, std::string(line.substr(0, 80)));
            return;
        }
        if (out.size() == kMaxEthtoolStats) {
            error = fmt::format("{}: more than {} statistics", origin, kMaxEthtoolStats);
            return;
        }
        out.emplace(std::string(name), v);
    });
    if (!error.empty()) return make_error(error);
    return out;
}

Result<PauseSettings> parse_ethtool_pause(std::string_view text, const std::string& origin) {
    PauseSettings p;
    int seen = 0;
    std::string error;
    for_each_line(text, [&](int no, std::string_view raw) {
        if (!error.empty()) return;
        std::string_view line = trim(raw);
        size_t colon = line.find(':');
        if (line.empty() || colon == std::string_view::npos || line.starts_with("Pause parameters"))
            return;
        std::string_view key = trim(line.substr(0, colon));
        std::string_view val = trim(line.substr(colon + 1));
        bool* field = key == "Autonegotiate" ? &p.autoneg
                      : key == "RX"          ? &p.rx
                      : key == "TX"          ? &p.tx
                                             : nullptr;
        if (!field) return;  // newer ethtool adds "RX negotiated:" and the like
        if (val != "on" && val != "off") {
            error = fmt::format("{}:{}: {}: expected on or off, got \"{}\"", origin, no,
                                std::string(key), std::string(val.substr(0, 40)));
            return;
        }
        *field = val == "on";
        ++seen;
    });
    if (!error.empty()) return make_error(error);
    if (seen == 0)
        return make_error(
            fmt::format("{}: no Autonegotiate/RX/TX lines (`ethtool -a` output)", origin));
    return p;
}

std::string prio_stat(std::string_view dir, int priority, std::string_view what) {
    return fmt::format("{}_prio{}_{}", dir, priority, what);
}

PriorityCounters priority_counters(const CounterMap& stats, int priority) {
    PriorityCounters c;
    c.priority = priority;
    auto get = [&](std::string_view dir, std::string_view what) -> std::optional<uint64_t> {
        auto it = stats.find(prio_stat(dir, priority, what));
        if (it == stats.end()) return std::nullopt;
        return it->second;
    };
    c.rx_pause = get("rx", "pause");
    c.tx_pause = get("tx", "pause");
    c.rx_pause_duration = get("rx", "pause_duration");
    c.tx_pause_duration = get("tx", "pause_duration");
    c.rx_pause_transition = get("rx", "pause_transition");
    c.tx_pause_transition = get("tx", "pause_transition");
    c.rx_discards = get("rx", "discards");
    c.rx_packets = get("rx", "packets");
    c.tx_packets = get("tx", "packets");
    c.rx_bytes = get("rx", "bytes");
    c.tx_bytes = get("tx", "bytes");
    return c;
}

}  // namespace fabscope
