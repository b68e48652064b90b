#pragma once
// `fabscope health --json`: the verdict, its findings and the inventory
// they were drawn from (docs/health.schema.json).

#include <nlohmann/json.hpp>
#include <string>

#include "host/health_checks.h"
#include "host/inventory.h"

namespace fabscope::host {

nlohmann::json inventory_to_json(const HostInventory& inv);

struct HealthMeta {
    std::string node;        ///< the Slurm node name (or short hostname)
    std::string started;     ///< ISO 8601 UTC
    double elapsed_ms = 0;   ///< time the checks took
    std::string state_file;  ///< "" without one
    bool drained = false;    ///< --drain asked scontrol and it succeeded
};

nlohmann::json health_to_json(const HostInventory& inv, const HealthResult& r,
                              const HealthMeta& meta);

}  // namespace fabscope::host
