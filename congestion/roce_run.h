#pragma once
// `fabscope congestion` on a RoCE host: this host's RDMA devices (sysfs
// hw_counters), the netdev behind each (ethtool ioctl) and its DCB settings
// (dcbnl), read twice --interval apart (again and again with --watch), or two
// saved readings replayed --interval apart. The command's loop lives here;
// cli/ parses the options.

#include <functional>
#include <string>

#include "model/thresholds.h"
#include "util/duration.h"
#include "util/interrupt.h"
#include "util/progress.h"
#include "util/term.h"

namespace fabscope {

struct RoceRunOptions {
    std::string sysfs_root = "/sys/class/infiniband";
    Millis interval{10000};
    bool watch = false;
    Thresholds thresholds;
    /// Replay: two saved readings (a host folder, or a folder of hosts).
    std::string before_dir, after_dir;
    bool json = false;
    bool quiet = false;
    Progress progress = Progress::Off;
    TextStyle style;
};

/// True when `sysfs_root` has RDMA device ports and every one is Ethernet.
bool local_devices_are_roce(const std::string& sysfs_root);

/// Runs the measurement, prints the summary (stderr) and JSON (stdout);
/// returns the exit status (0 clean, 1 findings, 2 bad input, 3 cannot run,
/// 130 interrupted).
int run_roce_congestion(const RoceRunOptions& o, const StopToken& stop);

}  // namespace fabscope
