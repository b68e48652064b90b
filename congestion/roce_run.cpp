#include "congestion/roce_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "congestion/roce_report.h"
#include "util/exit_status.h"
#include "util/host_name.h"
#include "util/time_util.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

/// The RDMA ports of this host, as a counter source that reads only RoCE ones.
class RoceSysfsSource final : public CounterSource {
  public:
    RoceSysfsSource(std::string root, const Clock& clock)
        : root_(std::move(root)), all_(root_, clock) {}
    std::vector<CounterSample> read() override {
        std::vector<CounterSample> out;
        for (CounterSample& s : all_.read()) {
            if (sysfs_is_roce(root_, s.device, s.port)) out.push_back(std::move(s));
        }
        return out;
    }

  private:
    std::string root_;
    SysfsCounterSource all_;
};

int print(const RoceCongestionResult& r, const RoceMeta& m, const RoceRunOptions& o) {
    if (!o.quiet) std::fputs(render_roce_summary(r, m, o.style).c_str(), stderr);
    if (o.json) {
        std::string doc = roce_congestion_to_json(r, m).dump(o.watch ? -1 : 2) + "\n";
        std::fputs(doc.c_str(), stdout);
        std::fflush(stdout);
    }
    return r.failed() ? kExitFindings : kExitClean;
}

int fail(const std::string& message, int code) {
    std::fprintf(stderr, "fabscope: %s\n", message.c_str());
    return code;
}

int replay(const RoceRunOptions& o) {
    // The saved readings carry no time: they are stamped --interval apart.
    ManualClock clock;
    auto before = read_saved_roce(o.before_dir, clock);
    if (!before) return fail(before.error().message, kExitUsage);
    clock.advance(o.interval);
    auto after = read_saved_roce(o.after_dir, clock);
    if (!after) return fail(after.error().message, kExitUsage);
    RoceMeta m;
    m.started = iso8601_now();
    m.from = fmt::format("saved readings {} and {}", o.before_dir, o.after_dir);
    m.thresholds = o.thresholds;
    return print(analyse_roce(*before, *after, {}, o.thresholds.roce), m, o);
}

}  // namespace

bool local_devices_are_roce(const std::string& sysfs_root) {
    std::error_code ec;
    bool any = false;
    for (const auto& dev : fs::directory_iterator(sysfs_root, ec)) {
        for (const auto& port : fs::directory_iterator(dev.path() / "ports", ec)) {
            if (!sysfs_is_roce(sysfs_root, dev.path().filename().string(),
                               std::atoi(port.path().filename().c_str())))
                return false;
            any = true;
        }
    }
    return any;
}

int run_roce_congestion(const RoceRunOptions& o, const StopToken& stop) {
    if (!o.before_dir.empty() || !o.after_dir.empty()) return replay(o);
    const Clock& clock = system_clock();
    RoceSysfsSource rdma(o.sysfs_root, clock);
    IoctlEthtoolSource ethtool(clock);
    NetlinkDcbSource dcb;
    std::string host = host_name();
    if (host.empty()) host = "localhost";
    auto read = [&] { return std::vector{read_roce_host(host, rdma, o.sysfs_root, ethtool, dcb)}; };
    std::vector<RoceHostReading> before = read();
    if (before[0].rdma.empty())
        return fail(fmt::format("no RoCE device ports under {}", o.sysfs_root), kExitCannotRun);
    RoceMeta m;
    m.from = fmt::format("{} (RDMA devices under {})", host, o.sysfs_root);
    m.thresholds = o.thresholds;
    std::vector<RoceChange> earlier;
    bool failed = false;
    for (;;) {
        m.started = iso8601_now();
        if (!wait_with_countdown(o.interval, stop, o.progress, "Reading the counters again"))
            return kExitInterrupted;
        std::vector<RoceHostReading> after = read();
        RoceCongestionResult r = analyse_roce(before, after, earlier, o.thresholds.roce);
        failed = print(r, m, o) == kExitFindings || failed;
        if (!o.watch) break;
        earlier = std::move(r.hosts);
        before = std::move(after);
        ++m.round;
    }
    return failed ? kExitFindings : kExitClean;
}

}  // namespace fabscope
