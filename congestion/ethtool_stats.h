#pragma once
// Ethernet driver statistics and link pause settings of one netdev, through
// the ethtool kernel interface (the SIOCETHTOOL ioctl: ETHTOOL_GSSET_INFO,
// ETHTOOL_GSTRINGS and ETHTOOL_GSTATS for the ETH_SS_STATS set, and
// ETHTOOL_GPAUSEPARAM), never by running ethtool. A fixture source reads the
// same readings from files, in the text `ethtool -S` and `ethtool -a` print,
// so saved readings and synthetic mlx5 trees (no mlx5 here) stand in for a NIC.
//
// The names read and interpreted are mlx5's (kernel
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst):
// rx/tx_prioN_pause, rx/tx_prioN_pause_duration (microseconds),
// rx/tx_prioN_pause_transition, tx_pause_storm_warning_events,
// tx_pause_storm_error_events, rx_discards_phy, rx_prioN_discards,
// rx/tx_prioN_packets and rx/tx_prioN_bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/counter_map.h"
#include "util/clock.h"
#include "util/result.h"

namespace fabscope {

/// The most statistics one netdev may report: mlx5 with many channels has a
/// few thousand; a driver claiming more is refused rather than believed.
inline constexpr uint32_t kMaxEthtoolStats = 32768;
/// IEEE 802.1Q priorities.
inline constexpr int kPriorities = 8;

/// Link-level (global) pause, `ethtool -a`.
struct PauseSettings {
    bool autoneg = false;
    bool rx = false;
    bool tx = false;
};

struct EthtoolReading {
    std::string netdev;
    CounterMap stats;                    ///< by the driver's name, as `ethtool -S` prints them
    std::optional<PauseSettings> pause;  ///< absent when the driver has no pause settings
    int64_t read_at_ms = 0;              ///< Unix time, from the source's clock
};

/// Where a netdev's statistics come from: the kernel or saved files.
class EthtoolSource {
  public:
    virtual ~EthtoolSource() = default;
    virtual Result<EthtoolReading> read(const std::string& netdev) = 0;
};

/// The kernel, through SIOCETHTOOL on a socket opened in the constructor (in
/// the network namespace of the thread that constructs it).
class IoctlEthtoolSource final : public EthtoolSource {
  public:
    explicit IoctlEthtoolSource(const Clock& clock);
    ~IoctlEthtoolSource() override;
    IoctlEthtoolSource(const IoctlEthtoolSource&) = delete;
    IoctlEthtoolSource& operator=(const IoctlEthtoolSource&) = delete;
    Result<EthtoolReading> read(const std::string& netdev) override;

  private:
    const Clock& clock_;
    int fd_ = -1;
    int open_errno_ = 0;
};

/// Files under `root`: NETDEV.stats (`ethtool -S NETDEV` output) and,
/// optionally, NETDEV.pause (`ethtool -a NETDEV` output).
class FixtureEthtoolSource final : public EthtoolSource {
  public:
    FixtureEthtoolSource(std::string root, const Clock& clock)
        : root_(std::move(root)), clock_(clock) {}
    Result<EthtoolReading> read(const std::string& netdev) override;

  private:
    std::string root_;
    const Clock& clock_;
};

/// "NIC statistics:" then "     name: value" lines, as `ethtool -S` prints
/// them. Lines that are not a name and an unsigned value are errors naming
/// `origin` and the line.
Result<CounterMap> parse_ethtool_stats(std::string_view text, const std::string& origin);
/// "Autonegotiate:\ton" / "RX:\ton" / "TX:\toff" lines, as `ethtool -a` prints them.
Result<PauseSettings> parse_ethtool_pause(std::string_view text, const std::string& origin);

/// The per-priority flow-control statistics of one priority, by mlx5's names.
struct PriorityCounters {
    int priority = 0;
    std::optional<uint64_t> rx_pause, tx_pause;                        ///< pause frames
    std::optional<uint64_t> rx_pause_duration, tx_pause_duration;      ///< microseconds paused
    std::optional<uint64_t> rx_pause_transition, tx_pause_transition;  ///< XOFF->XON
    std::optional<uint64_t> rx_discards;
    std::optional<uint64_t> rx_packets, tx_packets, rx_bytes, tx_bytes;
};

/// "rx_prio3_pause" for ("rx", 3, "pause").
std::string prio_stat(std::string_view dir, int priority, std::string_view what);

/// The priority view of a map of statistics (or of their deltas).
PriorityCounters priority_counters(const CounterMap& stats, int priority);

}  // namespace fabscope
