#include "model/snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/json_io.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

Snapshot sample() {
    auto nodes = testing::leaf_spine_nodes(
        {.spines = 2, .leaves = 3, .hosts_per_leaf = 2, .links_per_pair = 2});
    testing::unplug(nodes, "leaf02", 4);
    testing::set_link_width(nodes, "leaf01", 3, Width::X1, WidthSet{Width::X1});
    testing::node_named(nodes, "leaf03").lft = {255, 0, 5, 5, 1, 2, 255};
    PortCounters pc;
    pc.set(Counter::SymbolErrorCounter, 12);
    pc.set(Counter::PortXmitData, 1ULL << 50);
    pc.extended = true;
    pc.read_at_ms = 1764000000123;
    testing::node_named(nodes, "leaf03").port(2)->counters = pc;
    Snapshot s;
    s.source.mad_stats = MadStats{.sent = 10, .answered = 9, .retries = 1, .max_chain = 7};
    s.source.method = "ibnetdisc";
    s.source.ca = "mlx5_0";
    s.source.ca_port = 1;
    s.source.started = "2026-11-29T16:00:00Z";
    s.source.duration_s = 0.25;
    s.source.mads_sent = 1234;
    s.fabric = *Fabric::build(nodes);
    return s;
}

void expect_same(const Fabric& a, const Fabric& b) {
    ASSERT_EQ(a.nodes().size(), b.nodes().size());
    for (size_t i = 0; i < a.nodes().size(); ++i) {
        const Node& x = a.nodes()[i];
        const Node& y = b.nodes()[i];
        EXPECT_EQ(x.guid, y.guid);
        EXPECT_EQ(x.type, y.type);
        EXPECT_EQ(x.description, y.description);
        EXPECT_EQ(x.enhanced_port0, y.enhanced_port0);
        EXPECT_EQ(x.lft, y.lft);
        ASSERT_EQ(x.ports.size(), y.ports.size());
        for (size_t p = 0; p < x.ports.size(); ++p) {
            const Port& u = x.ports[p];
            const Port& v = y.ports[p];
            EXPECT_EQ(u.num, v.num);
            EXPECT_EQ(u.guid, v.guid);
            EXPECT_EQ(u.lid, v.lid);
            EXPECT_EQ(u.state, v.state);
            EXPECT_EQ(u.phys_state, v.phys_state);
            EXPECT_EQ(u.width_active, v.width_active);
            EXPECT_EQ(u.width_enabled, v.width_enabled);
            EXPECT_EQ(u.width_supported, v.width_supported);
            EXPECT_EQ(u.speed_active, v.speed_active);
            EXPECT_EQ(u.speed_enabled, v.speed_enabled);
            EXPECT_EQ(u.speed_supported, v.speed_supported);
            EXPECT_EQ(u.mtu_cap, v.mtu_cap);
            EXPECT_EQ(u.mtu_active, v.mtu_active);
            EXPECT_EQ(u.capability_mask, v.capability_mask);
            EXPECT_EQ(u.peer, v.peer);
            ASSERT_EQ(u.counters.has_value(), v.counters.has_value());
            if (u.counters) {
                EXPECT_EQ(u.counters->values, v.counters->values);
                EXPECT_EQ(u.counters->extended, v.counters->extended);
                EXPECT_EQ(u.counters->read_at_ms, v.counters->read_at_ms);
            }
        }
    }
    EXPECT_EQ(a.links().size(), b.links().size());
}

TEST(Snapshot, RoundTripsThroughJson) {
    Snapshot s = sample();
    auto j = snapshot_to_json(s);
    EXPECT_EQ(j["format"], "fabscope-snapshot");
    EXPECT_EQ(j["version"], 1);
    auto back = snapshot_from_json(j);
    ASSERT_TRUE(back) << back.error().message;
    expect_same(s.fabric, back->fabric);
    EXPECT_EQ(back->source.mads_sent, 1234u);
    EXPECT_EQ(back->source.ca, "mlx5_0");
    ASSERT_TRUE(back->source.mad_stats);
    EXPECT_EQ(back->source.mad_stats->max_chain, 7);
    EXPECT_EQ(back->source.mad_stats->retries, 1u);
    // And the text form is stable: a second round trip gives the same document.
    EXPECT_EQ(snapshot_to_json(*back).dump(), j.dump());
}

TEST(Snapshot, StreamedDocumentEqualsTheInMemoryOne) {
    Snapshot s = sample();
    std::ostringstream out;
    write_snapshot(
        out, s,
        nlohmann::json{{"findings", nlohmann::json::array({{{"kind", "x"}}, {{"kind", "y"}}})},
                       {"note", "hi"}});
    auto streamed = nlohmann::json::parse(out.str());
    auto expected = snapshot_to_json(s);
    expected["findings"] = nlohmann::json::array({{{"kind", "x"}}, {{"kind", "y"}}});
    expected["note"] = "hi";
    EXPECT_EQ(streamed, expected);
    // One node per line: greppable and diffable.
    const std::string text = out.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
              static_cast<long>(s.fabric.nodes().size() + s.fabric.links().size() + 2 + 11));
}

TEST(Snapshot, RoundTripsThroughAFile) {
    auto path = (fs::temp_directory_path() / "fabscope-snapshot-test.json").string();
    Snapshot s = sample();
    ASSERT_TRUE(save_snapshot(s, path));
    auto back = load_snapshot(path);
    ASSERT_TRUE(back) << back.error().message;
    expect_same(s.fabric, back->fabric);
    fs::remove(path);
}

class SnapshotFileErrors : public ::testing::Test {
  protected:
    std::string write(const std::string& name, const std::string& text) {
        auto path = (fs::temp_directory_path() / name).string();
        std::ofstream(path) << text;
        paths_.push_back(path);
        return path;
    }
    // Writes TEXT to the file NAME and loads it: the load must fail with exit
    // code 2 and a message that starts with the file's path. Returns the rest.
    std::string load_error(const std::string& name, const std::string& text) {
        auto path = write(name, text);
        auto r = load_snapshot(path);
        if (r) {
            ADD_FAILURE() << name << " loaded without an error";
            return {};
        }
        EXPECT_EQ(r.error().code, 2) << r.error().message;
        const std::string prefix = path + ": ";
        if (r.error().message.rfind(prefix, 0) != 0) {
            ADD_FAILURE() << "the error does not start with the path: " << r.error().message;
            return r.error().message;
        }
        return r.error().message.substr(prefix.size());
    }
    void TearDown() override {
        for (auto& p : paths_) fs::remove(p);
    }
    std::vector<std::string> paths_;
};

TEST_F(SnapshotFileErrors, MissingFile) {
    auto r = load_snapshot("/nonexistent/fabric.json");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, 2);
    EXPECT_EQ(r.error().message,
              "/nonexistent/fabric.json: cannot open: No such file or directory");
}

TEST_F(SnapshotFileErrors, Empty) {
    EXPECT_EQ(load_error("fs-empty.json", "  \n"), "file is empty");
}

TEST_F(SnapshotFileErrors, Truncated) {
    std::string full = snapshot_to_json(sample()).dump(1);
    auto e = load_error("fs-trunc.json", full.substr(0, full.size() / 2));
    EXPECT_EQ(e.rfind("truncated JSON", 0), 0u) << e;
}

TEST_F(SnapshotFileErrors, MalformedNamesLineAndColumn) {
    auto e = load_error("fs-bad.json",
                        "{\n  \"format\": \"fabscope-snapshot\",\n  \"version\": 1,,\n}\n");
    EXPECT_EQ(e.rfind("invalid JSON at line 3", 0), 0u) << e;
}

TEST_F(SnapshotFileErrors, ANumberNoDoubleHolds) {
    // Found by fuzz_snapshot: nlohmann/json throws out_of_range, not parse_error.
    EXPECT_EQ(load_error("fs-overflow.json",
                         "{\"format\": \"fabscope-snapshot\", \"version\": 0.0048e1661}"),
              "invalid JSON: number overflow parsing '0.0048e1661'");
}

TEST_F(SnapshotFileErrors, NotASnapshot) {
    EXPECT_EQ(load_error("fs-other.json", "{\"hello\": 1}"),
              "not a fabscope snapshot (no \"format\": \"fabscope-snapshot\")");
}

TEST_F(SnapshotFileErrors, WrongVersion) {
    auto j = snapshot_to_json(sample());
    j["version"] = 7;
    EXPECT_EQ(load_error("fs-v7.json", j.dump()),
              "snapshot version 7 is not supported (this fabscope reads version 1; it was "
              "written by a newer fabscope)");
}

TEST_F(SnapshotFileErrors, BadFieldNamesItsPath) {
    auto j = snapshot_to_json(sample());
    j["nodes"][6]["ports"][2]["lid"] = "seven";  // nodes 0-5 are hosts, 6 is leaf01
    EXPECT_EQ(load_error("fs-field.json", j.dump()),
              "/nodes/6/ports/2/lid: must be an unsigned integer");

    j = snapshot_to_json(sample());
    j["nodes"][0]["ports"][0]["speed"]["active"] = "WARP";
    EXPECT_EQ(load_error("fs-enum.json", j.dump()),
              "/nodes/0/ports/0/speed/active: \"WARP\" is not one of SDR, DDR, QDR, FDR10, FDR, "
              "EDR, HDR, NDR, XDR");

    j = snapshot_to_json(sample());
    j["nodes"][1].erase("guid");
    EXPECT_EQ(load_error("fs-missing.json", j.dump()), "/nodes/1: missing required key \"guid\"");

    j = snapshot_to_json(sample());
    j["nodes"][1]["ports"][0]["num"] = 300;
    EXPECT_EQ(load_error("fs-range.json", j.dump()),
              "/nodes/1/ports/0/num: 300 is out of range (at most 254)");
}

TEST_F(SnapshotFileErrors, AReadTimePastInt64IsOutOfRange) {
    // Found by fuzz_snapshot: 2^63 was read as a negative time and the
    // snapshot written from it could not be read back.
    auto j = snapshot_to_json(sample());
    j["nodes"][8]["ports"][1]["counters"]["read_at_ms"] = 9223372036854775808ULL;
    EXPECT_EQ(load_error("fs-read-at.json", j.dump()),
              "/nodes/8/ports/1/counters/read_at_ms: 9223372036854775808 is out of range (at "
              "most 253402300799999)");
}

TEST_F(SnapshotFileErrors, InconsistentPeers) {
    auto j = snapshot_to_json(sample());
    j["nodes"][0]["ports"][0]["peer"]["port"] = 9;
    auto e = load_error("fs-peer.json", j.dump());
    EXPECT_NE(e.find("peer"), std::string::npos) << e;
}

}  // namespace
}  // namespace fabscope
