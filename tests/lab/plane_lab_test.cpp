// Every plane: a two-plane (rail-optimised) lab, each host with one HCA per
// plane and each plane its own switches and OpenSM. The snapshot's planes are
// checked against ibnetdiscover run from a port of each plane, node by node
// and link by link; a plane whose SM stopped is still swept by directed route
// and reported unmanaged.
//
// The simulator's preload library gives a process one HCA (its SIM_HOST), so
// here each plane is swept from its own process (`lab exec --plane N`) and the
// planes joined with `discover --load A --load B`; `--all-ports` in one process
// is what a real host with one HCA per plane runs.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lab_harness.h"
#include "schema_check.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

constexpr uint64_t kPlaneGuidBase = 0x00fab5c0de000000ULL;  // lab/topology.cpp's SM HCAs

CmdResult on_plane(const Lab& lab, int plane, const std::vector<std::string>& argv) {
    std::vector<std::string> full{
        fabscope(), "lab", "exec", "--dir", lab.dir(), "--plane", std::to_string(plane), "--"};
    full.insert(full.end(), argv.begin(), argv.end());
    return run(full, std::chrono::seconds(120));
}

// The nodes and links of one plane of a snapshot, as ibnetdiscover shows them.
PeerTopology plane_topology(const json& snapshot, int plane) {
    json part{{"nodes", json::array()}, {"links", json::array()}};
    std::set<std::string> guids;
    for (const json& n : snapshot["nodes"]) {
        if (n.value("plane", 0) != plane) continue;
        part["nodes"].push_back(n);
        guids.insert(n["guid"].get<std::string>());
    }
    for (const json& l : snapshot["links"]) {
        if (guids.count(l["a"]["guid"].get<std::string>())) part["links"].push_back(l);
    }
    return topology_of_snapshot(part.dump());
}

void expect_plane_matches(const Lab& lab, const json& snapshot, int plane) {
    // ibnetdiscover from the plane's port: the one HCA this process has.
    CmdResult peer = on_plane(lab, plane + 1, {"ibnetdiscover", "-C", "ibsim0", "-P", "1"});
    ASSERT_EQ(peer.exit_code, 0) << peer.err;
    PeerTopology theirs = parse_ibnetdiscover(peer.out);
    PeerTopology ours = plane_topology(snapshot, plane);
    ASSERT_FALSE(theirs.nodes.empty());
    EXPECT_EQ(ours.nodes, theirs.nodes) << "plane " << plane;
    EXPECT_EQ(ours.types, theirs.types) << "plane " << plane;
    EXPECT_EQ(ours.links.size(), theirs.links.size()) << "plane " << plane;
    EXPECT_TRUE(ours.links == theirs.links) << "plane " << plane << ": links or rates differ";
}

json parse_snapshot(const CmdResult& r) {
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "snapshot.schema.json"))
        ADD_FAILURE() << e;
    return json::parse(r.out.empty() ? "{}" : r.out);
}

TEST(PlaneLab, TwoPlanesMatchIbnetdiscoverFromEachPortAndAStoppedSmLeavesAPlaneUnmanaged) {
    Lab lab({"--planes", "2", "--spines", "2", "--leaves", "2", "--hosts-per-leaf", "2"});
    ASSERT_TRUE(lab.up());
    ScratchDir scratch("planes");

    // Each plane from its own port, then joined into one snapshot.
    for (int plane = 1; plane <= 2; ++plane) {
        CmdResult d = on_plane(lab, plane,
                               {fabscope(), "discover", "--all-ports", "-q", "-o",
                                scratch.path("plane" + std::to_string(plane) + ".json")});
        ASSERT_EQ(d.exit_code, 0) << d.err;
    }
    CmdResult joined = run({fabscope(), "discover", "--load", scratch.path("plane1.json"), "--load",
                            scratch.path("plane2.json"), "--json"});
    ASSERT_EQ(joined.exit_code, 0) << joined.err;
    json snap = parse_snapshot(joined);
    ASSERT_EQ(snap["planes"].size(), 2u) << joined.out.substr(0, 2000);
    EXPECT_EQ(snap["source"]["method"], "planes");
    for (int plane = 0; plane < 2; ++plane) {
        const json& p = snap["planes"][plane];
        EXPECT_TRUE(p["managed"].get<bool>()) << p.dump();
        EXPECT_EQ(p["ca"], "ibsim0");
        // Each plane's SM runs on the plane's first host HCA (opensm -g).
        EXPECT_EQ(std::stoull(p["sm"]["guid"].get<std::string>(), nullptr, 16),
                  kPlaneGuidBase + static_cast<uint64_t>(plane + 1) * 0x100 + 1)
            << p.dump();
        expect_plane_matches(lab, snap, plane);
    }
    EXPECT_EQ(snap["planes"][0]["subnet_prefix"], "0xfe80000000000000");
    EXPECT_EQ(snap["planes"][1]["subnet_prefix"], "0xfe80000000000002");
    // 4 hosts, 2 leaves, 2 spines per plane; the same LIDs on both planes are no finding.
    EXPECT_EQ(snap["nodes"].size(), 16u);
    for (const json& f : snap["findings"]) ADD_FAILURE() << f.dump();
    EXPECT_NE(joined.err.find("Plane 1"), std::string::npos) << joined.err;

    // Plane 2's SM stops: the plane is still swept by directed route, and unmanaged.
    std::string state = lab.dir() + "/state.json";
    json st = json::parse(run({"cat", state}).out);
    const json& sm = st["processes"]["plane_sms"][0];
    stop_process(ProcessId{sm["pid"].get<pid_t>(), sm["start_time"].get<unsigned long long>(),
                           sm["cmdline"].get<std::string>()},
                 std::chrono::milliseconds(3000));
    CmdResult after = on_plane(lab, 2, {fabscope(), "sweep", "--all-ports", "--json"});
    ASSERT_EQ(after.exit_code, 0) << after.err;
    json unmanaged = parse_snapshot(after);
    ASSERT_EQ(unmanaged["planes"].size(), 1u);
    EXPECT_FALSE(unmanaged["planes"][0]["managed"].get<bool>()) << unmanaged["planes"].dump();
    EXPECT_EQ(plane_topology(unmanaged, 0).nodes, plane_topology(snap, 1).nodes);
    bool reported = false;
    for (const json& f : unmanaged["findings"])
        reported = reported || f["kind"] == "unmanaged_plane";
    EXPECT_TRUE(reported) << unmanaged["findings"].dump(1);
    EXPECT_NE(after.err.find("unmanaged"), std::string::npos) << after.err;
}

}  // namespace
}  // namespace fabscope::labtest
