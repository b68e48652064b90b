// fabscope perf in the Soft-RoCE VM lab (lab/rxe/vm): real libibverbs, real
// RC QPs, real RoCEv2 on veth between network namespaces. Each test boots the
// VM once and runs a scenario script; the results come back as JSON files.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct VmRun {
    int exit_code = -1;
    fs::path dir;
    std::string output;  ///< what the guest script printed
    /// A perf report the guest wrote (`perf run -o`), checked against its schema.
    json file(const std::string& name) const {
        std::ifstream in(dir / name);
        if (!in) {
            ADD_FAILURE() << name << " was not written; guest output:\n" << output;
            return json::object();
        }
        std::ostringstream text;
        text << in.rdbuf();
        for (const auto& e : fabscope::testing::text_schema_errors(text.str(), "perf.schema.json"))
            ADD_FAILURE() << name << ": " << e;
        return json::parse(text.str());
    }
    /// "KEY=VALUE" lines the guest printed.
    std::string value(const std::string& key) const {
        std::istringstream in(output);
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
        }
        ADD_FAILURE() << "no " << key << "= in the guest output:\n" << output;
        return "";
    }
};

VmRun run_in_vm(const std::string& name, const std::string& script) {
    fs::path dir =
        fs::temp_directory_path() / ("fabscope-vm-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::path file = dir.string() + ".sh";
    std::ofstream(file) << "F=$(guest_path " << fabscope() << ")\n" << script;
    CmdResult r =
        run({std::string(FABSCOPE_SOURCE_DIR) + "/lab/rxe/vm", "-o", dir.string(), file.string()},
            std::chrono::seconds(900));
    VmRun v;
    v.exit_code = r.exit_code;
    v.dir = dir;
    std::ifstream out(dir / "output.log");
    v.output.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
    EXPECT_EQ(r.exit_code, 0) << "the VM did not run the scenario:\n" << r.err << "\n" << v.output;
    fs::remove(file);
    return v;
}

TEST(PerfVm, EveryTestBetweenTwoHostsAndEveryWayToFail) {
    VmRun vm = run_in_vm("all", R"SH(
rxe_init
rxe_bridge 2
echo "h1_devices=$(in_host h1 ibv_devices | awk 'NR>2 {print $1}' | xargs)"
in_host h2 $F perf serve -q --allow 10.0.0.0/24 > serve.log 2>&1 &
sleep 1
in_host h1 $F perf run 10.0.0.2 --all -D 2s -n 300 -q -o all.json; echo "all_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test write --test read --test send --bidirectional -D 1s -q -o bidir.json; echo "bidir_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test write --sweep --max-size 4K -D 1s --warmup 200ms -q -o sweep.json; echo "sweep_rc=$?"
# The server dies 3 s into a 20 s test: the client must say so, not wait.
in_host h1 $F perf run 10.0.0.2 -D 20s -q -o killed.json &
client=$!
sleep 3
kill -9 $(pgrep -f 'perf serve')
t0=$(date +%s.%N)
wait $client; echo "killed_rc=$?"
echo "killed_after=$(echo "$(date +%s.%N) - $t0" | bc)"
in_host h1 $F perf run 10.0.0.99 -D 1s 2> unreachable.err; echo "unreachable_rc=$?"
echo "unreachable_err=$(cat unreachable.err)"
in_host h1 $F perf run 10.0.0.2 --size 0 2>/dev/null; echo "badsize_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test atomic 2>/dev/null; echo "badtest_rc=$?"
# Across the routed leaf-spine fabric, through a spine (ECMP).
rxe_leaf_spine
in_host b1 $F perf serve -q --once --allow 10.1.0.0/16 &
sleep 1
in_host a1 $F perf run 10.2.0.1 -D 1s -q -o leafspine.json; echo "leafspine_rc=$?"
echo "spine_packets=$(( $(ip netns exec s1 cat /sys/class/net/down1/statistics/rx_packets) + $(ip netns exec s2 cat /sys/class/net/down1/statistics/rx_packets) ))"
)SH");
    // Exclusive RDMA namespaces: a host sees its own device only.
    EXPECT_EQ(vm.value("h1_devices"), "rxe_h1");

    EXPECT_EQ(vm.value("all_rc"), "0");
    json all = vm.file("all.json");
    std::set<std::string> tests;
    for (const json& r : all["results"]) {
        EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
        tests.insert(r["test"]);
        if (r.contains("bandwidth")) {
            EXPECT_GT(r["bandwidth"]["avg_gbps"].get<double>(), 0.01) << r["test"];
            EXPECT_GE(r["bandwidth"]["peak_gbps"].get<double>(),
                      r["bandwidth"]["min_window_gbps"].get<double>());
            // Both sides' hardware counters saw the traffic.
            EXPECT_GT(r["counters"]["local"].value("sent_pkts", 0) +
                          r["counters"]["local"].value("rcvd_pkts", 0),
                      0);
            EXPECT_FALSE(r["counters"]["remote"].empty());
        } else {
            const json& l = r["latency_us"];
            EXPECT_EQ(l["samples"], 300);
            EXPECT_GT(l["min"].get<double>(), 0);
            EXPECT_LE(l["min"].get<double>(), l["median"].get<double>());
            EXPECT_LE(l["median"].get<double>(), l["p99"].get<double>());
            EXPECT_LE(l["p99"].get<double>(), l["max"].get<double>());
        }
    }
    EXPECT_EQ(tests, (std::set<std::string>{"write_bw", "read_bw", "send_bw", "write_lat",
                                            "read_lat", "send_lat"}));

    EXPECT_EQ(vm.value("bidir_rc"), "0");
    json bidir = vm.file("bidir.json");
    ASSERT_EQ(bidir["results"].size(), 3u);
    for (const json& r : bidir["results"]) EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();

    EXPECT_EQ(vm.value("sweep_rc"), "0");
    json sweep = vm.file("sweep.json");
    ASSERT_EQ(sweep["results"].size(), 12u);  // 2 B .. 4K, doubling
    EXPECT_EQ(sweep["results"][0]["spec"]["size"], 2);
    EXPECT_EQ(sweep["results"][11]["spec"]["size"], 4096);

    // A peer that dies: an error result for that test, well within its deadline.
    EXPECT_EQ(vm.value("killed_rc"), "1");
    EXPECT_LT(std::stod(vm.value("killed_after")), 5.0);
    json killed = vm.file("killed.json");
    ASSERT_EQ(killed["results"].size(), 1u);
    EXPECT_FALSE(killed["results"][0]["ok"].get<bool>());
    EXPECT_NE(killed["results"][0]["error"].get<std::string>().find("closed the connection"),
              std::string::npos)
        << killed["results"][0]["error"];
    EXPECT_EQ(killed["findings"][0]["kind"], "test_failed");

    EXPECT_EQ(vm.value("unreachable_rc"), "3");
    EXPECT_EQ(vm.value("unreachable_err"),
              "fabscope: cannot reach a fabscope perf server at 10.0.0.99:18515: No route to host "
              "(is `fabscope "
              "perf serve` running there, and the port open?)");
    EXPECT_EQ(vm.value("badsize_rc"), "2");
    EXPECT_EQ(vm.value("badtest_rc"), "2");

    EXPECT_EQ(vm.value("leafspine_rc"), "0");
    EXPECT_TRUE(vm.file("leafspine.json")["results"][0]["ok"].get<bool>());
    EXPECT_GT(std::stoi(vm.value("spine_packets")), 1000);
    fs::remove_all(vm.dir);
}

// perf serve as a network service and perf run's Ctrl-C, in one boot: caps
// applied and reported, malformed clients that end only their own session,
// the allow list, the shared secret, and a report kept on Ctrl-C.
TEST(PerfVm, ServerIsANetworkServiceAndCtrlCKeepsTheResults) {
    VmRun vm = run_in_vm("service", R"SH(
rxe_init
rxe_bridge 3
umask 077; echo 'lab secret' > /run/perf.secret; umask 022
# Small caps: a tx depth at rxe's limit of 4K messages drains in a second at rxe's speed.
in_host h2 $F perf serve --allow 10.0.0.0/24 --max-size 4K --max-duration 2s > serve.log 2>&1 &
in_host h2 $F perf serve --allow 10.0.0.0/24 --secret-file /run/perf.secret -p 18600 > secret.log 2>&1 &
in_host h3 $F perf serve > loopback.log 2>&1 &
sleep 1
in_host h1 $F perf run 10.0.0.2 -s 1M -D 30s --warmup 200ms -t 100000 -q -o caps.json; echo "caps_rc=$?"
in_host h1 bash -c 'exec 3<>/dev/tcp/10.0.0.2/18515; read -r w <&3; echo "{\"type\":5}" >&3; read -r r <&3; echo "malformed_reply=$r"'
in_host h1 bash -c 'exec 3<>/dev/tcp/10.0.0.2/18515; read -r w <&3; { printf "%*s" 100000 "" | tr " " "["; echo; } >&3; cat <&3 >/dev/null'
in_host h1 bash -c 'exec 3<>/dev/tcp/10.0.0.2/18515; read -r w <&3; head -c 3000000 /dev/zero | tr "\0" x >&3 2>/dev/null; cat <&3 >/dev/null'
in_host h1 $F perf run 10.0.0.2 -D 1s --warmup 200ms -q -o after.json; echo "after_rc=$?"
echo "ended_lines=$(grep -c 'ended' serve.log)"
in_host h1 $F perf run 10.0.0.3 -D 1s 2> refused.err; echo "refused_rc=$?"
echo "refused_err=$(grep -o 'does not answer [0-9.]*' refused.err)"
in_host h1 $F perf run 10.0.0.2:18600 -D 1s --warmup 200ms -q --secret-file /run/perf.secret -o secret.json; echo "secret_rc=$?"
in_host h1 $F perf run 10.0.0.2:18600 -D 1s --warmup 200ms -q -o nosecret.json; echo "nosecret_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test write --test read --test send -D 2s --warmup 200ms -q -o partial.json &
client=$!
sleep 5
kill -INT $(pgrep -f 'perf run 10.0.0.2 --test write --test read')
t0=$(date +%s.%N)
wait $client; echo "partial_rc=$?"
echo "partial_after=$(echo "$(date +%s.%N) - $t0" | bc)"
)SH");
    EXPECT_EQ(vm.value("caps_rc"), "0");
    json caps = vm.file("caps.json");
    ASSERT_EQ(caps["results"].size(), 1u);
    const json& c = caps["results"][0];
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    EXPECT_EQ(c["spec"]["size"], 4096);
    EXPECT_EQ(c["spec"]["duration_ms"], 2000);
    std::string notes = c["caps"].dump();
    EXPECT_NE(notes.find("size 1M capped to 4K (--max-size)"), std::string::npos) << notes;
    EXPECT_NE(notes.find("duration 30s capped to 2s (--max-duration)"), std::string::npos) << notes;
    EXPECT_NE(notes.find("tx depth 100000 capped"), std::string::npos) << notes;

    EXPECT_NE(vm.value("malformed_reply").find("\"error\""), std::string::npos);
    EXPECT_EQ(vm.value("after_rc"), "0");
    EXPECT_TRUE(vm.file("after.json")["results"][0]["ok"].get<bool>());
    EXPECT_EQ(vm.value("ended_lines"), "3");

    EXPECT_EQ(vm.value("refused_rc"), "1");
    EXPECT_EQ(vm.value("refused_err"), "does not answer 10.0.0.1");

    EXPECT_EQ(vm.value("secret_rc"), "0");
    EXPECT_TRUE(vm.file("secret.json")["results"][0]["ok"].get<bool>());
    EXPECT_EQ(vm.value("nosecret_rc"), "1");
    EXPECT_NE(vm.file("nosecret.json")["results"][0]["error"].get<std::string>().find(
                  "needs a shared secret"),
              std::string::npos);

    EXPECT_EQ(vm.value("partial_rc"), "130");
    json partial = vm.file("partial.json");
    EXPECT_EQ(partial["complete"], false);
    EXPECT_GE(partial["results"].size(), 1u);
    EXPECT_LT(partial["results"].size(), 3u);
    for (const json& r : partial["results"]) EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_LT(std::stod(vm.value("partial_after")), 3.0);
    fs::remove_all(vm.dir);
}

TEST(PerfVm, DegradedPathsAreNamedNextToACleanOne) {
    VmRun vm = run_in_vm("degraded", R"SH(
rxe_init
rxe_bridge 5
for h in h2 h3 h4 h5; do in_host $h $F perf serve -q --allow 10.0.0.0/24 & done
impair h3 netem loss 1%
impair h4 netem delay 2ms
impair h5 tbf rate 50mbit burst 32kbit latency 400ms
sleep 1
in_host h1 $F perf run 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 --bandwidth --latency -D 2s -q -o degraded.json
echo "rc=$?"
)SH");
    EXPECT_EQ(vm.value("rc"), "1");
    json d = vm.file("degraded.json");
    std::set<std::pair<std::string, std::string>> flagged;  // (peer, test)
    for (const json& f : d["findings"]) {
        EXPECT_EQ(f["kind"], "pair_degraded") << f.dump();
        flagged.insert({f["peer"].get<std::string>(), f["test"].get<std::string>()});
    }
    // 1% loss and a 50 Mb/s shaper show in bandwidth, 2 ms of delay in latency;
    // the clean path is the yardstick and is never flagged.
    EXPECT_TRUE(flagged.count({"10.0.0.3", "write_bw"})) << d["findings"].dump(1);
    EXPECT_TRUE(flagged.count({"10.0.0.5", "write_bw"})) << d["findings"].dump(1);
    EXPECT_TRUE(flagged.count({"10.0.0.4", "write_lat"})) << d["findings"].dump(1);
    for (const auto& [peer, test] : flagged) EXPECT_NE(peer, "10.0.0.2");
    // The lossy path's evidence: retransmissions counted by the hardware (rxe).
    for (const json& f : d["findings"]) {
        if (f["peer"] == "10.0.0.3" && f["test"] == "write_bw") {
            const json& local = f["evidence"]["counters"]["local"];
            EXPECT_GT(local.value("completer_retry_err", 0) + local.value("rcvd_seq_err", 0), 0)
                << f.dump(1);
        }
    }
    fs::remove_all(vm.dir);
}

}  // namespace
}  // namespace fabscope::labtest
