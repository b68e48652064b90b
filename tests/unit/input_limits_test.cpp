// Inputs that used to blow up (issue 9, section 3): every field of a snapshot
// in range, JSON depth and size, out of memory as an input error, text cleaned
// on load, links that name no node, duplicate YAML keys, sub-millisecond
// durations. Each case failed before its fix.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "check/identity_checks.h"
#include "model/counter_readings.h"
#include "model/json_io.h"
#include "model/plan.h"
#include "model/snapshot.h"
#include "model/thresholds.h"
#include "pairtest/results/report.h"
#include "test_fabrics.h"
#include "util/duration.h"
#include "util/input_file.h"
#include "util/json_census.h"
#include "util/json_shape.h"
#include "util/memory.h"
#include "util/printable.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json small_snapshot() {
    Snapshot s;
    s.fabric = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    return snapshot_to_json(s);
}

// nodes 0-3 are hosts (one port each, index 0 = port 1), 4-5 leaves, 6-7 spines.
constexpr int kLeaf = 4;

class InputFile : public ::testing::Test {
  protected:
    std::string write(const std::string& name, const std::string& text) {
        auto path = (fs::temp_directory_path() / ("limits-" + name)).string();
        std::ofstream(path) << text;
        paths_.push_back(path);
        return path;
    }
    // The load must fail with code 2 and a message "PATH: ..."; returns the rest.
    template <class Load>
    std::string error_of(const std::string& name, const std::string& text, Load load) {
        auto path = write(name, text);
        auto r = load(path);
        if (r) {
            ADD_FAILURE() << name << " loaded without an error";
            return {};
        }
        EXPECT_EQ(r.error().code, 2) << r.error().message;
        EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
        if (r.error().message.rfind(path, 0) != 0) {
            ADD_FAILURE() << "the error does not start with the path: " << r.error().message;
            return r.error().message;
        }
        return r.error().message.substr(path.size());
    }
    std::string snapshot_error(const std::string& name, const json& j) {
        return error_of(name, j.dump(), load_snapshot);
    }
    void TearDown() override {
        for (auto& p : paths_) fs::remove(p);
    }
    std::vector<std::string> paths_;
};

TEST_F(InputFile, AnLmcOutsideZeroToSevenIsRefused) {
    // The 98 KB file that grew the duplicate-LID check to 3.5 GB had LMC 40.
    json j = small_snapshot();
    j["nodes"][0]["ports"][0]["lmc"] = 40;
    EXPECT_EQ(snapshot_error("lmc.json", j),
              ": /nodes/0/ports/0/lmc: 40 is out of range (at most 7)");
}

TEST_F(InputFile, EveryPortFieldIsRangeChecked) {
    struct Case {
        const char* field;
        json value;
        const char* error;
    };
    for (const Case& c : std::vector<Case>{
             {"lid", 0xC000, ": /nodes/0/ports/0/lid: 49152 is out of range (at most 49151)"},
             {"num", 255, ": /nodes/0/ports/0/num: 255 is out of range (at most 254)"},
             {"capability_mask", "0x100000000",
              ": /nodes/0/ports/0/capability_mask: 0x100000000 is out of range (at most "
              "0xffffffff)"},
         }) {
        json j = small_snapshot();
        j["nodes"][0]["ports"][0][c.field] = c.value;
        EXPECT_EQ(snapshot_error(std::string(c.field) + ".json", j), c.error) << c.field;
    }
    json j = small_snapshot();
    j["nodes"][0]["ports"][0]["lid"] = 0xBFFE;
    j["nodes"][0]["ports"][0]["lmc"] = 2;
    EXPECT_EQ(snapshot_error("lid-lmc.json", j),
              ": /nodes/0/ports/0/lid: LID 49150 with LMC 2 runs past the last unicast LID "
              "(49151)");
    j = small_snapshot();
    j["nodes"][0]["ports"][0]["mtu"]["active"] = 3000;
    EXPECT_EQ(snapshot_error("mtu.json", j),
              ": /nodes/0/ports/0/mtu/active: 3000 is not an MTU (256, 512, 1024, 2048, 4096)");
    j = small_snapshot();
    j["nodes"][0]["ports"][0]["peer"]["port"] = 255;
    EXPECT_EQ(snapshot_error("peer.json", j),
              ": /nodes/0/ports/0/peer/port: 255 is out of range (at most 254)");
}

TEST_F(InputFile, NodeFieldsAndTablesAreRangeChecked) {
    json j = small_snapshot();
    j["nodes"][0]["device_id"] = "0x10000";
    EXPECT_EQ(snapshot_error("devid.json", j),
              ": /nodes/0/device_id: 0x10000 is out of range (at most 0xffff)");
    j = small_snapshot();
    j["nodes"][0]["vendor_id"] = "0x1000000";
    EXPECT_EQ(snapshot_error("vendor.json", j),
              ": /nodes/0/vendor_id: 0x1000000 is out of range (at most 0xffffff)");
    j = small_snapshot();
    j["nodes"][kLeaf]["num_ports"] = 3;  // it lists ports up to 4
    EXPECT_EQ(snapshot_error("num-ports.json", j),
              ": /nodes/4/ports/4/num: port 4 is beyond the node's num_ports (3)");
    j = small_snapshot();
    j["nodes"][kLeaf]["lft"] = {255, 0, 1, 9};  // the leaf has 4 ports
    EXPECT_EQ(snapshot_error("lft.json", j),
              ": /nodes/4/lft/3: must be a port number 0..4 or 255 (no route)");
}

TEST_F(InputFile, CountersAndTimesAreRangeChecked) {
    json j = small_snapshot();
    j["nodes"][0]["ports"][0]["counters"] = {{"read_at_ms", 1764000000000},
                                             {"SymbolErrorCounter", 70000}};  // 16 bits
    EXPECT_EQ(snapshot_error("counter.json", j),
              ": /nodes/0/ports/0/counters/SymbolErrorCounter: 70000 is out of range (at most "
              "65535)");
    j["nodes"][0]["ports"][0]["counters"] = {{"read_at_ms", 253402300800000}};  // year 10000
    EXPECT_EQ(snapshot_error("read-at.json", j),
              ": /nodes/0/ports/0/counters/read_at_ms: 253402300800000 is out of range (at most "
              "253402300799999)");
    j = small_snapshot();
    j["source"] = {{"duration_s", -1}};
    EXPECT_EQ(snapshot_error("duration.json", j), ": /source/duration_s: must not be negative");
    j["source"] = {{"ca_port", 300}};
    EXPECT_EQ(snapshot_error("ca-port.json", j),
              ": /source/ca_port: 300 is out of range (at most 254)");
}

TEST_F(InputFile, LinksNamingNodesThatDoNotExistAreAnError) {
    json j = small_snapshot();
    j["links"][0]["a"]["guid"] = "0x00000000deadbeef";
    EXPECT_EQ(snapshot_error("ghost.json", j),
              ": /links/0/a: node 0x00000000deadbeef is not in the snapshot's nodes");
    j = small_snapshot();
    j["links"][0]["b"]["port"] = 7;
    auto e = snapshot_error("ghost-port.json", j);
    EXPECT_NE(e.find("/links/0/b: "), std::string::npos) << e;
    EXPECT_NE(e.find("[7] is not a port in the snapshot's nodes"), std::string::npos) << e;
    j = small_snapshot();
    j["links"][0]["b"] = j["links"][1]["b"];  // both ports exist, but are not cabled so
    e = snapshot_error("not-cabled.json", j);
    EXPECT_NE(e.find("is not a cable the ports' peers make"), std::string::npos) << e;
    // The report's port-reference shape ("node_guid") is read too.
    j = small_snapshot();
    for (auto& l : j["links"]) {
        for (const char* end : {"a", "b"}) {
            l[end]["node_guid"] = l[end]["guid"];
            l[end].erase("guid");
        }
    }
    EXPECT_TRUE(load_snapshot(write("node-guid.json", j.dump())));
}

TEST_F(InputFile, DescriptionsAreCleanedOnLoadAsOffTheWire) {
    json j = small_snapshot();
    j["nodes"][0]["description"] = "h1\x1b]0;owned\x07\x1b[2J HCA-1";
    j["source"] = {{"method", "sweep"}, {"tool_version", "0.9\r\x1b[1A"}};
    auto s = load_snapshot(write("escape.json", j.dump()));
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->fabric.nodes()[0].description, "h1?]0;owned??[2J HCA-1");
    EXPECT_EQ(s->source.tool_version, "0.9??[1A");
}

TEST_F(InputFile, StringsAreCappedAtTheSizeOfTheirField) {
    // A NodeDescription is 64 bytes on the wire; 200 MB of one was exit 3.
    json j = small_snapshot();
    j["nodes"][1]["description"] = std::string(65, 'x');
    EXPECT_EQ(snapshot_error("desc.json", j),
              ": /nodes/1/description: a string of 65 bytes, longer than the 64 this field holds");
    j["nodes"][1]["description"] = std::string(64, 'x');
    EXPECT_TRUE(load_snapshot(write("desc64.json", j.dump())));
    // A RoCE node is named by its LLDP system name: up to 255 bytes.
    j["source"] = {{"method", "roce-lldp"}};
    j["nodes"][1]["description"] = std::string(255, 'x');
    EXPECT_TRUE(load_snapshot(write("desc-roce.json", j.dump())));
    j["nodes"][1]["description"] = std::string(256, 'x');
    EXPECT_EQ(snapshot_error("desc-roce-long.json", j),
              ": /nodes/1/description: a string of 256 bytes, longer than the 255 this field "
              "holds");
    j = small_snapshot();
    j["source"] = {{"ca", std::string(65, 'm')}};
    EXPECT_EQ(snapshot_error("ca.json", j),
              ": /source/ca: a string of 65 bytes, longer than the 64 this field holds");
    j["source"] = {{"method", "guessed"}};
    EXPECT_EQ(snapshot_error("method.json", j),
              ": /source/method: \"guessed\" is not one of ibnetdisc, ibnetdiscover-cache, sweep, "
              "roce-lldp, roce-lldp-trace, planes");
    j["source"] = {{"started", "yesterday"}};
    EXPECT_EQ(snapshot_error("started.json", j),
              ": /source/started: \"yesterday\" is not an ISO 8601 date-time such as "
              "2026-11-29T16:01:54Z");
    j["source"] = {{"started", "2026-11-29T16:01:54.250+01:00"}};
    EXPECT_TRUE(load_snapshot(write("started-ok.json", j.dump())));
    j = small_snapshot();
    j["nodes"][0]["tier"] = std::string(33, 't');
    EXPECT_EQ(snapshot_error("tier.json", j),
              ": /nodes/0/tier: a string of 33 bytes, longer than the 32 this field holds");
    // Any string: past 1 MiB it is refused before the document is built.
    std::string huge = R"({"format": "fabscope-perf", "x": [{"note": ")" +
                       std::string((1 << 20) + 1, 'a') + "\"}]}";
    EXPECT_EQ(error_of("huge-string.json", huge, json_io::read_json_file),
              ": /x/0/note: a string of 1048577 bytes, more than the 1048576 fabscope reads in "
              "one");
}

TEST_F(InputFile, ANodesLidIsItsPortsLid) {
    // Derived and recomputed, so it was never looked at: 70000 loaded.
    json j = small_snapshot();
    j["nodes"][0]["lid"] = 70000;
    EXPECT_EQ(snapshot_error("node-lid.json", j),
              ": /nodes/0/lid: 70000 is out of range (at most 49151)");
    const uint64_t port_lid = j["nodes"][0]["ports"][0]["lid"].get<uint64_t>();
    j["nodes"][0]["lid"] = port_lid + 1;
    EXPECT_EQ(snapshot_error("node-lid-other.json", j),
              fmt::format(": /nodes/0/lid: {} is not the node's LID: its ports give {} (the "
                          "lowest LID of its ports, 0 for none)",
                          port_lid + 1, port_lid));
    const uint64_t leaf_lid = j["nodes"][kLeaf]["lid"].get<uint64_t>();
    j["nodes"][kLeaf]["lid"] = leaf_lid + 100;
    j["nodes"][0]["lid"] = port_lid;
    auto e = snapshot_error("switch-lid.json", j);
    EXPECT_NE(e.find(fmt::format("/nodes/4/lid: {} is not the node's LID", leaf_lid + 100)),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("(port 0's)"), std::string::npos) << e;
    // An unassigned host port: LID 0, the node's 0 too.
    j = small_snapshot();
    j["nodes"][0]["ports"][0]["lid"] = 0;
    j["nodes"][0]["lid"] = 0;
    EXPECT_TRUE(load_snapshot(write("lid0.json", j.dump())));
    j["nodes"][0].erase("lid");  // and absent: nothing to check
    EXPECT_TRUE(load_snapshot(write("no-lid.json", j.dump())));
}

TEST_F(InputFile, ADuplicateKeyIsAnErrorNamingItsPath) {
    // nlohmann keeps the last silently; a second "format" gave "not a
    // fabscope snapshot" for one that says it is.
    std::string text = small_snapshot().dump();
    std::string dup_format = text;
    dup_format.insert(1, R"("format": "other", )");
    EXPECT_EQ(error_of("dup-format.json", dup_format, load_snapshot),
              ": /format: duplicate key \"format\" (JSON keeps one of them silently: say it "
              "once)");
    std::string dup_lid = text;
    const size_t at = dup_lid.find(R"("lid":)", dup_lid.find(R"("ports":)"));
    dup_lid.insert(at, R"("lid": 7, )");
    EXPECT_EQ(error_of("dup-lid.json", dup_lid, load_snapshot),
              ": /nodes/0/ports/0/lid: duplicate key \"lid\" (JSON keeps one of them silently: "
              "say it once)");
    // The same key in two objects is no duplicate.
    EXPECT_TRUE(json_io::parse_json_text(R"([{"a": 1}, {"a": 2, "b": {"a": 3}}])", "x"));
}

TEST_F(InputFile, TheCensusCostsArraysAsTheyGrow) {
    // 1,000 numbers in one array: a vector of 1,024 slots of 24 bytes, and
    // up to three times its values again while nlohmann's destructor
    // flattens it.
    std::string text = "[";
    for (int i = 0; i < 1000; ++i) text += std::to_string(i) + ",";
    text.back() = ']';
    auto c = json_io::census_json(text, "x");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->arrays, 1u);
    EXPECT_EQ(c->array_slots, 1024u);
    EXPECT_EQ(c->largest_container, 1000u);
    EXPECT_EQ(c->parsed_bytes(), 32u + 1024u * 24 + 3u * 1000 * 24);
}

TEST_F(InputFile, PlanNamesAreCleanedToo) {
    auto p = parse_plan("fabscope_plan: 1\nlinks:\n  - [\"h\\e[2J\", 1, leaf01, 1]\n", "p.yaml");
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(p->links[0].a.node, "h?[2J");
}

std::string nested(size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

TEST_F(InputFile, APerfReportNested100000DeepIsAnInputError) {
    // It crashed `tui --perf` with a stack overflow.
    std::string text =
        R"({"format": "fabscope-perf", "version": 1, "results": [)" + nested(100000) + "]}";
    EXPECT_EQ(error_of("deep-perf.json", text, perf::load_perf_report),
              ": JSON nested deeper than 64 levels at line 1, column 117");
}

TEST_F(InputFile, DepthIsCheckedBeforeAnythingIsBuilt) {
    // Brackets inside strings do not count; 64 levels load, 65 do not.
    json_io::JsonShape ok = json_io::scan_json(R"({"a": "[[[[{{{{", "b": [[1]]})");
    EXPECT_EQ(ok.depth, 3u);
    EXPECT_FALSE(ok.too_deep());
    EXPECT_TRUE(json_io::parse_json_text(nested(64), "x"));
    auto deep = json_io::parse_json_text(nested(65), "peer 10.0.0.2");
    ASSERT_FALSE(deep);
    EXPECT_EQ(deep.error().message,
              "peer 10.0.0.2: JSON nested deeper than 64 levels at line 1, column 65");
    EXPECT_EQ(json_io::scan_json(R"(["\"[[", {"k": [true, null]}])").depth, 3u);
}

TEST_F(InputFile, TheParsedSizeIsEstimatedBeforeParsing) {
    json_io::JsonShape s = json_io::scan_json(R"({"a": [1, 2, 3], "b": "xyz"})");
    EXPECT_EQ(s.containers, 2u);
    EXPECT_EQ(s.members, 2u);
    EXPECT_EQ(s.scalars, 6u);  // two keys, three numbers, one string
    EXPECT_GT(s.parsed_bytes(), 200u);
    EXPECT_LT(s.parsed_bytes(), 2000u);
}

TEST_F(InputFile, AFileLargerThanItsKindMayBeIsRefusedUnread) {
    auto path = write("big.txt", std::string(100, 'x'));
    auto r = read_text_file(path, 64);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, 2);
    EXPECT_EQ(r.error().message,
              path + ": the file is 100 bytes, more than the 64 bytes fabscope reads");
    EXPECT_TRUE(read_text_file(path, 100));
}

Result<int> runs_out_of_memory(const json&) {
    throw std::bad_alloc();
}

TEST_F(InputFile, RunningOutOfMemoryWhileLoadingIsAnInputError) {
    // It ended as "internal error", exit 3.
    // With the figures: the file's size and the memory it had.
    const std::string e = error_of("oom.json", "{\"a\": 1}", [](const std::string& p) {
        return json_io::load_file<int>(p, runs_out_of_memory);
    });
    EXPECT_EQ(e.rfind(": out of memory while loading it (the file is 8 bytes, ", 0), 0u) << e;
    EXPECT_NE(e.find(" of memory available): give fabscope more memory (ulimit -v, the cgroup) "
                     "or a smaller file"),
              std::string::npos)
        << e;
}

TEST_F(InputFile, DuplicateYamlKeysAreAnError) {
    EXPECT_EQ(error_of("dup-plan.yaml",
                       "fabscope_plan: 1\nexpect: {width: 4X}\nlinks: []\nexpect: {width: 1X}\n",
                       load_plan),
              ":4:1: duplicate key \"expect\" (first at line 2)");
    EXPECT_EQ(error_of("dup-thr.yaml",
                       "fabscope_thresholds: 1\ncounters:\n  SymbolErrorCounter: {limit: 10, "
                       "per: 1m}\n  SymbolErrorCounter: {limit: 99999, per: 1m}\n",
                       load_thresholds),
              ":4:3: duplicate key \"SymbolErrorCounter\" (first at line 3)");
    EXPECT_EQ(
        error_of("dup-inner.yaml", "fabscope_plan: 1\nexpect: {width: 4X, width: 1X}\n", load_plan),
        ":2:21: duplicate key \"width\" (first at line 2)");
}

TEST_F(InputFile, DeepYamlIsAnError) {
    auto e = error_of("deep.yaml", "fabscope_plan: 1\nx: " + nested(100), load_plan);
    EXPECT_NE(e.find("nested deeper than 64 levels"), std::string::npos) << e;
    e = error_of("deeper.yaml", "fabscope_plan: 1\nx: " + nested(100000), load_plan);
    EXPECT_NE(e.find("nested too deep"), std::string::npos) << e;
}

TEST(Durations, BelowOneMillisecondIsNoDuration) {
    // "--interval 0.0001ms" silently became one reading.
    EXPECT_FALSE(parse_duration("0.0001ms"));
    EXPECT_FALSE(parse_duration("0.4ms"));
    EXPECT_EQ(parse_duration("0"), Millis(0));
    EXPECT_EQ(parse_duration("1ms"), Millis(1));
    EXPECT_DOUBLE_EQ(*parse_duration_ms("0.0001ms"), 0.0001);
}

TEST(Identities, OverlappingLmcRangesAreOneFinding) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    Port& a = testing::node_named(nodes, "h0001 HCA-1").ports[0];
    Port& b = testing::node_named(nodes, "h0002 HCA-1").ports[0];
    a.lid = 100;
    a.lmc = 2;  // 100..103
    b.lid = 102;
    b.lmc = 1;  // 102..103
    auto fs = check_identities(*Fabric::build(nodes));
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].summary,
              "LIDs 102-103 are assigned to more than one of 2 ports: h0001 HCA-1[1], h0002 "
              "HCA-1[1]");
    EXPECT_EQ(fs[0].evidence["lid"], 102);
    EXPECT_EQ(fs[0].evidence["last_lid"], 103);
}

TEST(Identities, AnImpossibleLmcInMemoryCostsNoMoreThanSeven) {
    // From a source that did not range-check: bounded work, no shift past 31.
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    for (Node& n : nodes) {
        for (Port& p : n.ports) p.lmc = 200;
    }
    auto fs = check_identities(*Fabric::build(nodes));
    for (const Finding& x : fs) EXPECT_EQ(x.kind, "duplicate_lid");
}

TEST(Text, PrintableAndOneLine) {
    EXPECT_EQ(printable("leaf\x1b[31m01\x7f\xc3\xa9  "), "leaf?[31m01???");
    EXPECT_EQ(one_line("lab fault: bad\nFaults:\n  link-down X\n"),
              "lab fault: bad; Faults:; link-down X");
    EXPECT_EQ(one_line("a\tb\x1b"), "a b?");
}

TEST(Readings, MeanIntervalOfTheSharedPorts) {
    CounterReadings a;
    CounterReadings b;
    a[PortRef{1, 1}].read_at_ms = 1000;
    b[PortRef{1, 1}].read_at_ms = 3100;
    b[PortRef{2, 1}].read_at_ms = 9000;  // in one reading only
    EXPECT_DOUBLE_EQ(mean_interval_s(a, b), 2.1);
    EXPECT_EQ(mean_interval_s(a, {}), 0);
}

}  // namespace
}  // namespace fabscope
