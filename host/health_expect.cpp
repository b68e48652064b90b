#include "host/health_expect.h"

#include <fmt/format.h>

#include <cstdint>

#include "model/plan.h"
#include "util/yaml_io.h"

namespace fabscope::host {
namespace {

HealthExpect read_expect(const YAML::Node& root, const std::string& origin) {
    if (!root.IsMap()) yaml_io::fail(root, "expected a mapping with fabscope_health: 1");
    auto version = yaml_io::require(root, "fabscope_health");
    if (yaml_io::as_int(version, 0, 1000) != kHealthExpectVersion)
        yaml_io::fail(version, fmt::format("fabscope_health: only version {} is known",
                                           kHealthExpectVersion));
    HealthExpect e;
    e.rate_source = "--expect " + origin;
    for (const auto& kv : root) {
        std::string key = yaml_io::as_string(kv.first);
        const YAML::Node& v = kv.second;
        if (key == "fabscope_health") continue;
        if (key == "devices") {
            if (v.IsSequence()) {
                for (const auto& d : v) e.devices.push_back(yaml_io::as_string(d));
                e.min_devices = static_cast<int>(e.devices.size());
            } else {
                e.min_devices = static_cast<int>(yaml_io::as_int(v, 0, 1024));
            }
        } else if (key == "expect") {
            if (!v.IsMap()) yaml_io::fail(v, "expect: a mapping {width: 4X, speed: HDR}");
            for (const auto& f : v) {
                std::string field = yaml_io::as_string(f.first);
                std::string value = yaml_io::as_string(f.second);
                if (field == "width") {
                    e.width = parse_width(value);
                    if (!e.width)
                        yaml_io::fail(f.second, fmt::format("width: \"{}\" is not one of 1X, 2X, "
                                                            "4X, 8X, 12X",
                                                            value));
                } else if (field == "speed") {
                    e.speed = parse_speed(value);
                    if (!e.speed)
                        yaml_io::fail(f.second,
                                      fmt::format("speed: \"{}\" is not one of SDR, DDR, QDR, "
                                                  "FDR10, FDR, EDR, HDR, NDR, XDR",
                                                  value));
                } else {
                    yaml_io::fail(f.first, fmt::format("expect: unknown key \"{}\" (width, "
                                                       "speed)",
                                                       field));
                }
            }
        } else if (key == "counter_rise") {
            if (!v.IsMap()) yaml_io::fail(v, "counter_rise: a mapping {counter: allowed rise}");
            for (const auto& f : v)
                e.counter_rise[yaml_io::as_string(f.first)] =
                    static_cast<uint64_t>(yaml_io::as_int(f.second, 0, INT64_MAX));
        } else {
            yaml_io::fail(kv.first, fmt::format("unknown key \"{}\" (devices, expect, "
                                                "counter_rise)",
                                                key));
        }
    }
    return e;
}

}  // namespace

Result<HealthExpect> load_health_expect(const std::string& path) {
    return yaml_io::load<HealthExpect>(path, "health expectations", [&](const YAML::Node& root) {
        return read_expect(root, path);
    });
}

Result<HealthExpect> parse_health_expect(const std::string& text, const std::string& origin) {
    return yaml_io::load_text<HealthExpect>(
        text, origin, "health expectations",
        [&](const YAML::Node& root) { return read_expect(root, origin); });
}

std::vector<PlannedCable> planned_cables(const Plan& plan) {
    std::vector<PlannedCable> out;
    for (const PlanLink& l : plan.links) {
        if (!l.cable) continue;
        for (const PlanEnd& end : {l.a, l.b}) out.push_back({end.node, end.port, *l.cable});
    }
    return out;
}

}  // namespace fabscope::host
