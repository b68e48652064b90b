// The cable a plan expects on a link, read from the plan and checked by
// `health --plan` against the module of the host port it names.
#include "model/plan_cable.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "formats/module_eeprom.h"
#include "host/health_checks.h"
#include "host/health_expect.h"
#include "host/inventory.h"
#include "model/plan.h"
#include "roce_host_fixture.h"
#include "schema_check.h"

namespace fabscope {
namespace {

constexpr const char* kPlan = R"(fabscope_plan: 1
expect: {width: 4X, speed: EDR}
links:
  - [node01 mlx5_0, 1, leaf01, 7, {cable: {vendor: mellanox, part_number: MMA1B00-C100D, length_m: 70}}]
  - [node01 rxe0, 1, leaf01, 8, {width: 1X, cable: {part_number: MCP1600-E003}}]
  - [node02, 1, leaf01, 9, {cable: {length_m: 3}}]
)";

ModuleInfo sr4(const std::string& part, double length) {
    ModuleInfo m;
    m.vendor = "MELLANOX        ";  // padded, as SFF-8636 pads it
    m.part_number = part;
    m.serial = "MT2104FT01234";
    m.length_m = length;
    return m;
}

/// node01: mlx5_0 port 1 (eth2) holding `module`, rxe0 port 1 a veth.
host::HostInventory node01(const ModuleInfo& module) {
    return testing::roce_host(module);
}

host::HealthExpect expect_of(const Plan& plan, const std::string& host) {
    host::HealthExpect e;
    e.cables = host::planned_cables(plan);
    e.cable_source = "--plan plan.yaml";
    e.host = host;
    return e;
}

void expect_finding(const host::HealthFinding& f, const std::string& subject,
                    host::HealthSeverity severity, const std::string& message) {
    EXPECT_EQ(f.check, "module");
    EXPECT_EQ(f.subject, subject);
    EXPECT_EQ(f.severity, severity);
    EXPECT_EQ(f.message, message);
}

TEST(PlanCable, APlanCarriesACablePerLinkAndWritesItBack) {
    auto plan = parse_plan(kPlan, "plan.yaml");
    ASSERT_TRUE(plan) << plan.error().message;
    ASSERT_EQ(plan->links.size(), 3u);
    ASSERT_TRUE(plan->links[0].cable);
    EXPECT_EQ(plan->links[0].cable->part_number, "MMA1B00-C100D");
    EXPECT_EQ(plan->links[0].cable->length_m, 70.0);
    EXPECT_EQ(plan->links[1].width, Width::X1);
    EXPECT_EQ(describe_cable(*plan->links[0].cable), "MMA1B00-C100D (mellanox, 70 m)");
    EXPECT_EQ(describe_cable(*plan->links[2].cable), "a cable (3 m)");
    EXPECT_EQ(host::planned_cables(*plan).size(), 6u);  // both ends of each link

    const nlohmann::json j = plan_to_json(*plan);
    for (const auto& e : testing::schema_errors(j, "plan.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(j["links"][1][4]["cable"]["part_number"], "MCP1600-E003");
    for (const std::string& text : {plan_to_yaml(*plan), j.dump()}) {
        auto back = parse_plan(text, "again.yaml");
        ASSERT_TRUE(back) << back.error().message << "\n" << text;
        EXPECT_EQ(plan_to_json(*back), j);
    }
}

TEST(PlanCable, ABadCableIsRefusedWithItsPlace) {
    auto refused = [](const char* options) {
        auto p = parse_plan(
            fmt::format("fabscope_plan: 1\nlinks:\n  - [h1, 1, leaf01, 1, {}]\n", options),
            "plan.yaml");
        EXPECT_FALSE(p) << options;
        return p ? std::string() : p.error().message;
    };
    EXPECT_NE(refused("{cable: {colour: red}}").find("plan.yaml:3:"), std::string::npos);
    EXPECT_NE(refused("{cable: {colour: red}}").find("unknown key \"colour\""), std::string::npos);
    EXPECT_NE(refused("{cable: {length_m: -2}}").find("plan.yaml:3:"), std::string::npos);
    EXPECT_NE(refused("{cable: {}}").find("give a vendor"), std::string::npos);
    EXPECT_NE(refused("{cable: MCP1600}").find("cable: expected"), std::string::npos);
    EXPECT_NE(refused("{colour: red}").find("(width, speed, cable)"), std::string::npos);
    EXPECT_NE(refused(("{cable: {part_number: " + std::string(65, 'x') + "}}").c_str())
                  .find("at most 64"),
              std::string::npos);
}

TEST(PlanCable, AModuleIsComparedWithoutCaseOrPaddingAndTheLengthWithinHalfAMetre) {
    PlanCable c{"Mellanox", "mma1b00-c100d ", 70.0};
    EXPECT_TRUE(cable_mismatch(c, sr4("MMA1B00-C100D", 70.4)).differences.empty());
    CableMismatch part = cable_mismatch(c, sr4("MMA1B00-C100", 70));
    EXPECT_TRUE(part.wrong_part);
    ASSERT_EQ(part.differences.size(), 1u);
    EXPECT_EQ(part.differences[0], "part number MMA1B00-C100 where the plan has mma1b00-c100d ");
    CableMismatch length = cable_mismatch(c, sr4("MMA1B00-C100D", 30));
    EXPECT_FALSE(length.wrong_part);
    EXPECT_EQ(length.differences,
              (std::vector<std::string>{"length 30 m where the plan has 70 m"}));
    ModuleInfo unknown = sr4("MMA1B00-C100D", 0);
    unknown.length_m.reset();
    EXPECT_EQ(cable_mismatch(c, unknown).differences,
              (std::vector<std::string>{"length unknown where the plan has 70 m"}));
}

TEST(PlanCable, HealthNamesTheWrongCableAndSaysWhichPlannedPortsWentUnchecked) {
    auto plan = parse_plan(kPlan, "plan.yaml");
    ASSERT_TRUE(plan) << plan.error().message;

    // As planned: nothing on mlx5_0; rxe0 is a veth, so its cable is unchecked.
    auto found =
        host::check_planned_cables(node01(sr4("MMA1B00-C100D", 70)), expect_of(*plan, "node01"));
    ASSERT_EQ(found.size(), 1u);
    expect_finding(found[0], "rxe0/1", host::HealthSeverity::Warning,
                   "rxe0 port 1: the plan's cable MCP1600-E003 (--plan plan.yaml) was not checked: "
                   "module none: Operation not supported");

    // Another part in mlx5_0's cage: the wrong cable, an error naming both.
    found = host::check_planned_cables(node01(sr4("MCP1600-E003", 3)), expect_of(*plan, "node01"));
    ASSERT_EQ(found.size(), 2u);
    expect_finding(
        found[0], "mlx5_0/1", host::HealthSeverity::Error,
        "mlx5_0 port 1 (eth2) module MELLANOX         MCP1600-E003 MT2104FT01234: not the "
        "plan's cable MMA1B00-C100D (mellanox, 70 m) (--plan plan.yaml): part number "
        "MCP1600-E003 where the plan has MMA1B00-C100D; length 3 m where the plan has 70 m");
    // And it fails the host, as a module alarm does.
    host::HostInventory inv = node01(sr4("MCP1600-E003", 3));
    EXPECT_FALSE(host::check_health(inv, expect_of(*plan, "node01"), std::nullopt).healthy());

    // Another host's plan entries are not this host's; a bare host name
    // names a host of one device only.
    EXPECT_TRUE(
        host::check_planned_cables(node01(sr4("X", 1)), expect_of(*plan, "node03")).empty());
    host::HostInventory one = node01(sr4("X", 1));
    one.devices.resize(1);
    auto node02 = host::check_planned_cables(one, expect_of(*plan, "node02"));
    ASSERT_EQ(node02.size(), 1u);
    EXPECT_EQ(node02[0].severity, host::HealthSeverity::Warning);  // only the length is planned
    EXPECT_NE(node02[0].message.find("length 1 m where the plan has 3 m"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
