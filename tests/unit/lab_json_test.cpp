// `lab status --json` and `lab fault --json` against their schemas in docs/.

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "lab/faults.h"
#include "lab/ib_lab.h"
#include "schema_check.h"

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
    for (const auto& e : testing::schema_errors(doc, "lab-status.schema.json")) ADD_FAILURE() << e;
    doc["processes"][0]["pid"] = "1";
    EXPECT_EQ(testing::schema_errors(doc, "lab-status.schema.json").size(), 1u);
    EXPECT_EQ(doc["running"], false);  // PID 1 is not the simulator recorded
    EXPECT_EQ(doc["processes"].size(), 3u);
}

TEST(LabJson, EveryFaultResultMatchesItsSchema) {
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
    std::vector<json> docs;
    for (const auto& words : faults) {
        auto f = parse_fault(words);
        ASSERT_TRUE(f) << words[0];
        FaultOutcome o{.message = "done", .answer = "sim answer", .width = "4X", .speed = "QDR"};
        docs.push_back(fault_json(*f, o));
        kinds.insert(docs.back()["fault"]);
    }
    // One run of the checker for all of them: each line names the document.
    for (const auto& e : testing::schema_errors(docs, "lab-fault.schema.json")) ADD_FAILURE() << e;
    docs.resize(2);
    docs[1]["port"] = "leaf01";  // NODE[PORT]
    auto errors = testing::schema_errors(docs, "lab-fault.schema.json");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].rfind("document 1: $.port: 'leaf01' does not match", 0), 0u) << errors[0];
    // Every fault the schema names is exercised.
    EXPECT_EQ(kinds.size(),
              load_schema("lab-fault.schema.json")["properties"]["fault"]["enum"].size());
}

}  // namespace
}  // namespace fabscope
