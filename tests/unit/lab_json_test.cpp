// `lab status --json` and `lab fault --json` against their schemas in docs/.

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "lab/faults.h"
#include "lab/ib_lab.h"
#include "schema_checker.h"

namespace fabscope {
namespace {

using nlohmann::json;

json load_schema(const std::string& name) {
    std::ifstream in(std::string(FIXTURES_DIR) + "/../../docs/" + name);
    EXPECT_TRUE(in) << name;
    return json::parse(in);
}

TEST(LabJson, StatusMatchesItsSchema) {
    LabState s;
    s.dir = "/tmp/fabscope-lab-0/default";
    s.net_file = s.dir + "/net";
    s.created = "2026-12-01T10:00:00Z";
    s.stats.switches = 6;
    s.stats.cas = 16;
    s.ibsim = {1, 2, "ibsim -s net"};
    s.swaps = {{"leaf01[5]", "leaf02[6]"}};
    json doc = lab_status_json(s);
    testing::SchemaChecker checker(load_schema("lab-status.schema.json"));
    for (const auto& e : checker.check(doc)) ADD_FAILURE() << e;
    EXPECT_EQ(doc["running"], false);  // PID 1 is not the simulator recorded
    EXPECT_EQ(doc["processes"].size(), 3u);
}

TEST(LabJson, EveryFaultResultMatchesItsSchema) {
    testing::SchemaChecker checker(load_schema("lab-fault.schema.json"));
    const std::vector<std::vector<std::string>> faults = {
        {"link-down", "leaf01[5]"},
        {"link-up", "leaf01[5]"},
        {"swap", "leaf01[5]", "leaf02[6]"},
        {"restore-cabling"},
        {"width", "leaf01[5]", "1x"},
        {"speed", "leaf01[5]", "qdr"},
        {"counter", "leaf01[5]", "SymbolErrorCounter=1"},
        {"mad-drop", "leaf01[5]", "50"},
        {"silent", "spine01"},
        {"answer", "spine01"},
        {"console", "Dump"}};
    std::set<std::string> kinds;
    for (const auto& words : faults) {
        auto f = parse_fault(words);
        ASSERT_TRUE(f) << words[0];
        FaultOutcome o{.message = "done", .answer = "sim answer", .width = "4X", .speed = "QDR"};
        json doc = fault_json(*f, o);
        for (const auto& e : checker.check(doc)) ADD_FAILURE() << words[0] << ": " << e;
        kinds.insert(doc["fault"]);
    }
    // Every fault the schema names is exercised.
    EXPECT_EQ(kinds.size(),
              load_schema("lab-fault.schema.json")["properties"]["fault"]["enum"].size());
}

}  // namespace
}  // namespace fabscope
