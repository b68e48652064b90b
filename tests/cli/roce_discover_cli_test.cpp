// `fabscope discover --roce` run as a process on the synthetic sysfs trees of
// tests/fixtures/host, with no lldpd on the socket it is given: alone it
// cannot run (exit 3, naming the socket); as a host report it records why,
// and the snapshot merged from that report holds the host's devices, the
// finding, and passes docs/snapshot.schema.json. The VM lab test
// (tests/lab/lldp_vm_test.cpp) runs it with lldpd.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope {
namespace {

using labtest::fabscope;
using labtest::run;
using nlohmann::json;

TEST(RoceDiscoverCli, NoLldpdAloneCannotRunAndAHostReportSaysWhy) {
    labtest::ScratchDir scratch("fabscope-roce-discover");
    std::string sock = scratch.path("no-lldpd.sock");
    auto alone =
        run({fabscope(), "discover", "--roce", "--sysfs-root", labtest::fixture("host/healthy"),
             "--lldp-socket", sock, "-o", scratch.path("alone.json")},
            std::chrono::seconds(30));
    EXPECT_EQ(alone.exit_code, 3) << alone.err;
    EXPECT_NE(alone.err.find("no lldpd answers on " + sock), std::string::npos) << alone.err;

    auto rep = run({fabscope(), "discover", "--roce", "--sysfs-root",
                    labtest::fixture("host/healthy"), "--lldp-socket", sock, "--host-name", "gpu07",
                    "--host-report", scratch.path("gpu07.json")},
                   std::chrono::seconds(30));
    EXPECT_EQ(rep.exit_code, 0) << rep.err;
    auto merged = run({fabscope(), "discover", "--roce", "--merge", scratch.path("gpu07.json"),
                       "-o", scratch.path("snap.json")},
                      std::chrono::seconds(30));
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    std::string header = "Fabric from ";
    header += scratch.path("gpu07.json");
    header += " (roce-lldp";
    EXPECT_NE(merged.err.find(header), std::string::npos) << merged.err;
    std::ifstream in(scratch.path("snap.json"));
    json snap = json::parse(in);
    EXPECT_EQ(testing::schema_errors(snap, "snapshot.schema.json"), std::vector<std::string>{});
    EXPECT_EQ(snap["source"]["method"], "roce-lldp");
    // The tree's RoCE device only (mlx5_0 is InfiniBand), unlinked.
    ASSERT_EQ(snap["nodes"].size(), 1U) << snap["nodes"].dump();
    EXPECT_EQ(snap["nodes"][0]["type"], "CA");
    EXPECT_EQ(snap["nodes"][0]["description"], "gpu07 mlx5_1");
    EXPECT_TRUE(snap["links"].empty());
    bool unavailable = false;
    for (const json& f : snap["findings"]) unavailable |= f["kind"] == "lldp_unavailable";
    EXPECT_TRUE(unavailable) << snap["findings"].dump();
    EXPECT_EQ(snap["lldp"], json::parse(R"([{"host": "gpu07", "neighbours": []}])"));

    // A file that is no host report: exit 2, naming it.
    auto bad = run({fabscope(), "discover", "--roce", "--merge", scratch.path("snap.json")},
                   std::chrono::seconds(30));
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("not a fabscope RoCE host report"), std::string::npos) << bad.err;
}

TEST(RoceDiscoverCli, TraceNeedsMpiAndSaneProbeSettings) {
    auto alone = run({fabscope(), "discover", "--roce", "--trace"}, std::chrono::seconds(30));
    EXPECT_EQ(alone.exit_code, 2) << alone.err;
    EXPECT_NE(alone.err.find("--trace requires --mpi"), std::string::npos) << alone.err;
    auto slow = run({fabscope(), "discover", "--roce", "--mpi", "--trace", "--trace-timeout", "1h"},
                    std::chrono::seconds(30));
    EXPECT_EQ(slow.exit_code, 2) << slow.err;
    EXPECT_NE(slow.err.find("a duration from 1ms to 10s"), std::string::npos) << slow.err;
    auto ports = run({fabscope(), "discover", "--roce", "--mpi", "--trace", "--trace-ports", "0"},
                     std::chrono::seconds(30));
    EXPECT_EQ(ports.exit_code, 2) << ports.err;
}

}  // namespace
}  // namespace fabscope
