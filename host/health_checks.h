#pragma once
// The checks of `fabscope health`: pure functions over a host's inventory,
// what is expected of it and the counters of the last run. Each returns the
// findings of one check; check_health runs them all in order.

#include <optional>
#include <string>
#include <vector>

#include "host/health_expect.h"
#include "host/health_state.h"
#include "host/inventory.h"
#include "model/link_rate.h"

namespace fabscope::host {

/// Error: the node should not run jobs. Warning: worth a look, never fails.
enum class HealthSeverity : uint8_t { Warning, Error };

struct HealthFinding {
    std::string check;  ///< "devices", "port_state", "port_rate", "pcie", "roce_gid", ...
    HealthSeverity severity = HealthSeverity::Error;
    std::string subject;  ///< "mlx5_0", "mlx5_0/1", a file
    std::string message;  ///< one line naming the subject
};

/// The width and speed every Active port should run at, and where that came from.
struct ExpectedRate {
    std::optional<Width> width;
    std::optional<Speed> speed;
    std::string source;  ///< "--expect FILE", "--plan FILE", "majority of 3 ports", ""
};

/// The error counters whose rise fails a node: physical-layer and link
/// integrity errors (ports/N/counters, Documentation/ABI/stable/sysfs-class-infiniband).
const std::vector<std::string>& error_counters();

std::vector<HealthFinding> check_devices(const HostInventory& inv, const HealthExpect& e);
std::vector<HealthFinding> check_port_state(const HostInventory& inv);
/// The most common width and speed among Active ports of each link layer;
/// nullopt members when there is no Active port or no single most common one.
ExpectedRate majority_rate(const HostInventory& inv);
std::vector<HealthFinding> check_port_rate(const HostInventory& inv, const ExpectedRate& want);
std::vector<HealthFinding> check_pcie(const HostInventory& inv);
std::vector<HealthFinding> check_roce_gid(const HostInventory& inv);
std::vector<HealthFinding> check_ib_sm(const HostInventory& inv);
/// Each RoCE port's module by its own limits (formats/module_eeprom.h):
/// beyond an alarm threshold or in its fault state an error, beyond a
/// warning threshold or a latched alarm a warning. A port without a module
/// to read (a veth, Soft-RoCE) is no finding.
std::vector<HealthFinding> check_modules(const HostInventory& inv);
/// Each port the plan gives a cable (HealthExpect::cables) against its
/// module: a plan end names a port of this host as "HOST DEVICE" (as
/// `plan --from` writes a RoCE snapshot's hosts) or, on a host with one
/// device, as "HOST". Another vendor or part number is an error (the wrong
/// cable), another length a warning; a planned port whose module could not
/// be read (a veth, an InfiniBand port: health reads RoCE ports' modules) a
/// warning that the cable went unchecked.
std::vector<HealthFinding> check_planned_cables(const HostInventory& inv, const HealthExpect& e);
std::vector<HealthFinding> check_counters(const HostInventory& inv, const CounterState& before,
                                          const HealthExpect& e);
/// Every inventory problem as a warning naming its file.
std::vector<HealthFinding> inventory_findings(const HostInventory& inv);

struct HealthResult {
    ExpectedRate expected;
    std::vector<HealthFinding> findings;
    bool healthy() const;
    /// The first error's message, "+N more" when there are others; "" when healthy.
    std::string reason() const;
};

/// Every check. The expected rate is `e`'s when it names one, else the
/// majority of this host's ports. `before` is the last run's counters.
HealthResult check_health(const HostInventory& inv, const HealthExpect& e,
                          const std::optional<CounterState>& before);

std::string_view name(HealthSeverity s);  ///< "warning", "error"

}  // namespace fabscope::host
