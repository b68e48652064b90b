#pragma once
// One interface for a source of port counters, readings stamped by an
// injected clock, and rates between two readings by one rule (counter_rise's:
// a counter that went down was cleared, so its new value is a lower bound).
// The RDMA devices' sysfs counters are one source; the root is a parameter,
// so fixture trees named as mlx5 and rxe name their files stand in for
// hardware this machine does not have.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "congestion/sysfs_counters.h"
#include "model/counters.h"
#include "util/clock.h"

namespace fabscope {

/// The counters of one port of one device, as read at one moment.
struct CounterSample {
    std::string device;  ///< "mlx5_0", "rxe0"
    int port = 0;
    CounterMap values;       ///< by the driver's name: "np_cnp_sent", "port_xmit_wait"
    int64_t read_at_ms = 0;  ///< Unix time, from the source's clock
};

class CounterSource {
  public:
    virtual ~CounterSource() = default;
    /// Every port the source knows, read now.
    virtual std::vector<CounterSample> read() = 0;
};

/// /sys/class/infiniband/DEV/ports/P/{counters,hw_counters}/* for every DEV
/// and P under `root`.
class SysfsCounterSource final : public CounterSource {
  public:
    SysfsCounterSource(std::string root, const Clock& clock)
        : root_(std::move(root)), clock_(clock) {}
    std::vector<CounterSample> read() override;

  private:
    std::string root_;
    const Clock& clock_;
};

struct CounterChange {
    uint64_t delta = 0;
    double per_second = 0;
    bool cleared = false;  ///< went down in between: `delta` is its new value, a lower bound
};

/// The change of every counter both samples of one port hold; empty if no
/// time passed between them.
std::map<std::string, CounterChange> sample_changes(const CounterSample& before,
                                                    const CounterSample& after);

}  // namespace fabscope
