#include "model/plan_cable.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "formats/module_eeprom.h"

namespace fabscope {
namespace {

/// Upper case without the blanks around it (SFF-8636 and CMIS pad with spaces).
std::string folded(const std::string& s) {
    const auto first = s.find_first_not_of(' ');
    if (first == std::string::npos) return "";
    const auto last = s.find_last_not_of(' ');
    std::string out = s.substr(first, last - first + 1);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

std::string metres(double m) {
    return fmt::format("{:g} m", m);
}

}  // namespace

CableMismatch cable_mismatch(const PlanCable& planned, const ModuleInfo& module) {
    CableMismatch out;
    auto differs = [&](const char* what, const std::string& want, const std::string& have) {
        if (want.empty() || folded(want) == folded(have)) return;
        out.wrong_part = true;
        out.differences.push_back(fmt::format("{} {} where the plan has {}", what,
                                              have.empty() ? "unknown" : have, want));
    };
    differs("vendor", planned.vendor, module.vendor);
    differs("part number", planned.part_number, module.part_number);
    if (planned.length_m) {
        if (!module.length_m)
            out.differences.push_back(
                fmt::format("length unknown where the plan has {}", metres(*planned.length_m)));
        else if (std::fabs(*module.length_m - *planned.length_m) > 0.5)
            out.differences.push_back(fmt::format("length {} where the plan has {}",
                                                  metres(*module.length_m),
                                                  metres(*planned.length_m)));
    }
    return out;
}

std::string describe_cable(const PlanCable& c) {
    std::vector<std::string> rest;
    if (!c.vendor.empty()) rest.push_back(c.vendor);
    if (c.length_m) rest.push_back(metres(*c.length_m));
    std::string head = c.part_number.empty() ? "a cable" : c.part_number;
    if (rest.empty()) return head;
    return fmt::format("{} ({})", head, fmt::join(rest, ", "));
}

}  // namespace fabscope
