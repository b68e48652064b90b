// fabscope mesh run in the Soft-RoCE VM lab (lab/rxe/vm): Debian's Open MPI
// launches one rank in each of 8 host namespaces (mesh_mpirun in
// lab/rxe/guest.sh, orted started through lab/rxe/netns-rsh), the ranks
// exchange their QPs over MPI and measure real RoCEv2 WRITE bandwidth between
// rxe devices. One boot: a run with one host's port shaped, then a run in
// which one rank is killed after the first round.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lab_harness.h"
#include "schema_check.h"
#include "vm_run.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(MeshVm, MpirunAllPairsNamesTheShapedHostAndOutlivesAKilledRank) {
    VmRun g = run_in_vm("mesh", R"SH(
rxe_init
rxe_bridge 8
# What h3 receives is shaped to well below what a flow gets here (1 MB/s).
impair h3 tbf rate 8mbit burst 32kbit latency 400ms
t0=$(date +%s.%N)
mesh_mpirun 8 $F mesh run -D 700ms --warmup 200ms -t 8 --step-timeout 5s -o shaped.json 2> shaped.err
echo "shaped_rc=$?"
echo "shaped_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "shaped_top=$(grep -m1 '^suspect:' shaped.err)"
for h in h1 h3; do echo "${h}_counters=$(host_counters $h | grep -E '^(sent|rcvd)_bytes|retry' | xargs)"; done
ip netns exec sw tc qdisc del dev p3 root
# h6's rank is killed once rank 0 says round 1 is done; --enable-recovery
# keeps mpirun from killing the others with it.
t0=$(date +%s.%N)
FABSCOPE_MPIRUN_OPTIONS="--enable-recovery --timeout 150" mesh_mpirun 8 $F mesh run -D 300ms \
    --warmup 100ms -t 8 --step-timeout 3s -o killed.json 2> killed.err &
job=$!
for i in $(seq 1 600); do grep -q 'round 1/' killed.err 2>/dev/null && break; sleep 0.1; done
for p in $(ip netns pids h6); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = fabscope ] && kill -9 "$p" && echo "victim=$p"
done
t1=$(date +%s.%N)
wait $job
echo "killed_rc=$?"
echo "killed_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "after_kill_s=$(echo "$(date +%s.%N) - $t1" | bc)"
)SH",
                        std::chrono::seconds(600));
    ASSERT_EQ(g.exit_code, 0);
    double wall = g.wall_s;
    std::printf("mesh VM: %.1f s wall; all-pairs run %s s, killed run %s s; top: %s\n", wall,
                g.value("shaped_s").c_str(), g.value("killed_s").c_str(),
                g.value("shaped_top").c_str());

    // All pairs, both ways, every one measured; h3 is the top suspect.
    EXPECT_EQ(g.value("shaped_rc"), "1");  // a suspect
    json shaped = g.file("shaped.json", "mesh-run.schema.json");
    EXPECT_EQ(shaped["status"], "complete");
    EXPECT_EQ(shaped["rounds"].size(), 7u);
    ASSERT_EQ(shaped["flows"].size(), 56u);
    std::set<std::pair<std::string, std::string>> directions;
    for (const json& f : shaped["flows"]) {
        EXPECT_TRUE(f["measured"].get<bool>() && f["ok"].get<bool>()) << f.dump();
        EXPECT_GT(f["avg_gbps"].get<double>(), 0.0) << f.dump();
        directions.insert({f["src_host"].get<std::string>(), f["dst_host"].get<std::string>()});
    }
    EXPECT_EQ(directions.size(), 56u);
    std::set<std::string> hosts;
    for (const json& rk : shaped["ranks"]) hosts.insert(rk["host"].get<std::string>());
    EXPECT_EQ(hosts, (std::set<std::string>{"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"}));
    ASSERT_FALSE(shaped["suspects"].empty()) << g.output;
    const json& top = shaped["suspects"][0];
    EXPECT_EQ(top["name"], "h3 (receiving)") << top.dump();
    EXPECT_NE(g.value("shaped_top").find("h3 (receiving)"), std::string::npos);

    // The killed rank is a finding; the run still ended, with rank 0's report.
    EXPECT_FALSE(g.value("victim").empty());
    // Rank 0 exits 1 (a finding), but mpirun --enable-recovery (Open MPI 4.1.4) was
    // seen to return 0 for the job: the report is the verdict here, not mpirun's code.
    std::printf("killed run: mpirun exit code %s\n", g.value("killed_rc").c_str());
    EXPECT_LT(std::stod(g.value("after_kill_s")), 60.0);
    json killed = g.file("killed.json", "mesh-run.schema.json");
    EXPECT_EQ(killed["status"], "complete");
    EXPECT_EQ(killed["rounds_done"], 7);
    bool named = false;
    for (const json& f : killed["findings"]) {
        if (f["kind"] == "rank-gone" && f["host"] == "h6") named = true;
    }
    EXPECT_TRUE(named) << killed["findings"].dump();
    size_t measured = 0;
    for (const json& f : killed["flows"]) {
        bool with_h6 = f["src_host"] == "h6" || f["dst_host"] == "h6";
        if (!with_h6) {
            EXPECT_TRUE(f["measured"].get<bool>() && f["ok"].get<bool>()) << f.dump();
        }
        measured += f["measured"].get<bool>();
    }
    EXPECT_GE(measured, 42u);  // every flow of the 7 others
}

}  // namespace
}  // namespace fabscope::labtest
