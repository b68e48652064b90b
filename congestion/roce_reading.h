#pragma once
// One reading of a RoCE host: the hw_counters of every RDMA device port, the
// ethtool statistics of the netdev behind each, and that netdev's DCB
// settings. Read live (sysfs, the ethtool ioctl, dcbnl) or from a saved
// reading folder, with the same sources behind their interfaces:
//
//   DIR/infiniband/DEV/ports/P/{counters,hw_counters}/NAME   (sysfs layout)
//   DIR/infiniband/DEV/ports/P/gid_attrs/ndevs/0              (the netdev)
//   DIR/ethtool/NETDEV.stats, DIR/ethtool/NETDEV.pause        (`ethtool -S`, `-a`)
//   DIR/dcb.json                                              ({NETDEV: settings})
//
// A folder of such folders holds one reading per host, named by the folder.

#include <map>
#include <string>
#include <vector>

#include "congestion/counter_source.h"
#include "congestion/dcb_settings.h"
#include "congestion/ethtool_stats.h"
#include "util/clock.h"
#include "util/result.h"

namespace fabscope {

struct RoceHostReading {
    std::string host;
    std::vector<CounterSample> rdma;  ///< every device port, hw_counters and counters
    /// The netdev behind each device port ("" when sysfs names none), by "DEV/P".
    std::map<std::string, std::string> netdev_of;
    std::map<std::string, EthtoolReading> ethtool;  ///< by netdev
    std::map<std::string, DcbSettings> dcb;         ///< by netdev
    std::vector<std::string> problems;              ///< what could not be read, one line each
};

/// "mlx5_0/1"
std::string port_key(const std::string& device, int port);

/// The netdev behind DEV port P per sysfs (gid_attrs/ndevs/*, the first
/// that names one), or "".
std::string sysfs_netdev(const std::string& sysfs_root, const std::string& device, int port);

/// True when DEV port P's link layer is Ethernet (RoCE) per sysfs.
bool sysfs_is_roce(const std::string& sysfs_root, const std::string& device, int port);

/// Every device port of `rdma` with its netdev's ethtool statistics and DCB
/// settings. A netdev that cannot be read is a problem line, not an abort.
RoceHostReading read_roce_host(const std::string& host, CounterSource& rdma,
                               const std::string& sysfs_root, EthtoolSource& ethtool,
                               DcbSource& dcb);

/// A saved reading: one host folder (it has infiniband/) or a folder of host
/// folders, hosts sorted by name. Each is stamped by `clock` as it is read.
Result<std::vector<RoceHostReading>> read_saved_roce(const std::string& dir, const Clock& clock);

}  // namespace fabscope
