#pragma once
// The cable a plan expects on a link (`links: - [h1 mlx5_0, 1, leaf01, 7,
// {cable: {vendor: NVIDIA, part_number: MCP1650-H002E26, length_m: 2}}]`),
// and how a module read off a port differs from it. Pure.

#include <optional>
#include <string>
#include <vector>

namespace fabscope {

struct ModuleInfo;

struct PlanCable {
    std::string vendor;       ///< "" = any
    std::string part_number;  ///< "" = any
    std::optional<double> length_m;

    bool any() const { return vendor.empty() && part_number.empty() && !length_m; }
};

/// How a module differs from the planned cable, one line per field that
/// differs ("part number MCP1600-E003 where the plan has MCP1650-H002E26").
/// Vendor and part number compare without case and the blanks modules pad
/// them with; the length within half a metre (modules state whole metres,
/// or tenths for short optics). `wrong_part` says whether the vendor
/// or part number differs (the wrong cable), not only the length.
struct CableMismatch {
    std::vector<std::string> differences;
    bool wrong_part = false;
};
CableMismatch cable_mismatch(const PlanCable& planned, const ModuleInfo& module);

/// "MCP1650-H002E26 (NVIDIA, 2 m)": the planned cable as people read it.
std::string describe_cable(const PlanCable& c);

}  // namespace fabscope
