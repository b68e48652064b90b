// fabscope perf in the Soft-RoCE VM lab (lab/rxe/vm): real libibverbs, real
// RC QPs, real RoCEv2 on veth between network namespaces. Each test boots the
// VM once and runs a scenario script; the results come back as JSON files.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
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

// rxe retransmits when the emulated VM's CPUs fall behind (TCG on a busy
// 2-core CI machine): the congestion detectors see it and the run exits 1.
// That exit is allowed only when every finding is a congestion finding and
// every result is there; the findings are printed so a CI log shows them.
void expect_clean_or_congestion_only(const std::string& rc, const json& report, const char* what) {
    if (rc == "0") return;
    EXPECT_EQ(rc, "1") << what;
    ASSERT_TRUE(report.contains("findings")) << what;
    EXPECT_FALSE(report["findings"].empty()) << what << ": exit 1 without a finding";
    for (const json& f : report["findings"]) {
        EXPECT_EQ(f["kind"], "congestion") << what << ": " << report["findings"].dump(1);
        std::printf("%s: %s\n", what, f.value("summary", "").c_str());
    }
}

TEST(PerfVm, EveryTestBetweenTwoHostsAndEveryWayToFail) {
    VmRun vm = run_in_vm("all", R"SH(
rxe_init
rxe_bridge 2
echo "h1_devices=$(in_host h1 ibv_devices | awk 'NR>2 {print $1}' | xargs)"
in_host h2 $F perf serve --allow 10.0.0.0/24 > serve.log 2>&1 &
port_wait h2 18515
in_host h1 $F perf run 10.0.0.2 --all -D 2s -n 300 -q -o all.json; echo "all_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test write --test read --test send --bidirectional -D 1s -q -o bidir.json; echo "bidir_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test write --sweep --max-size 4K -D 1s --warmup 200ms -q -o sweep.json; echo "sweep_rc=$?"
# The server dies while a 20 s test's data flows: the client must say so,
# not wait. The session's log line comes before the data; the data has begun
# once h2's device has taken packets since (the handshake is TCP), at most
# 60 s on. One counter file, one process: host_counters reads them all, a
# process each, 2 to 5 s a reading in the emulated VM under load, and a wait
# on it let the test end before the kill.
sessions=$(grep -c ' from ' serve.log)
in_host h1 $F perf run 10.0.0.2 -D 20s -q -o killed.json &
client=$!
for i in $(seq 1 600); do [ "$(grep -c ' from ' serve.log)" -gt "$sessions" ] && break; sleep 0.1; done
rcvd() { ip netns exec h2 cat /sys/class/infiniband/rxe_h2/ports/1/hw_counters/rcvd_pkts; }
base=$(rcvd)
end=$(($(date +%s) + 60))
while [ "$(rcvd)" -lt $((base + 100)) ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.1; done
echo "killed_in_data_pkts=$(($(rcvd) - base))"
kill -0 $client 2>/dev/null && echo "killed_mid_test=1"
kill -9 $(pgrep -f 'perf serve')
t0=$(date +%s.%N)
wait $client; echo "killed_rc=$?"
echo "killed_after=$(echo "$(date +%s.%N) - $t0" | bc)"
# No route to 10.9.9.9 from h1: the connect fails at once. (10.0.0.99, on
# h1's own subnet where nobody answers ARP, was the target until two CI runs
# of 2026-12-06 saw its connect succeed and the "server" close the
# connection: exit 1 with a table, not understood, not seen here in four.)
in_host h1 $F perf run 10.9.9.9 -D 1s 2> unreachable.err; echo "unreachable_rc=$?"
# On one line, all of it: a failure shows everything the client said.
echo "unreachable_err=$(tr '\n' '|' < unreachable.err | sed 's/|$//')"
in_host h1 $F perf run 10.0.0.2 --size 0 2>/dev/null; echo "badsize_rc=$?"
in_host h1 $F perf run 10.0.0.2 --test atomic 2>/dev/null; echo "badtest_rc=$?"
# Across the routed leaf-spine fabric, through a spine (ECMP).
rxe_leaf_spine
in_host b1 $F perf serve -q --once --allow 10.1.0.0/16 &
port_wait b1 18515
in_host a1 $F perf run 10.2.0.1 -D 1s -q -o leafspine.json; echo "leafspine_rc=$?"
echo "spine_packets=$(( $(ip netns exec s1 cat /sys/class/net/down1/statistics/rx_packets) + $(ip netns exec s2 cat /sys/class/net/down1/statistics/rx_packets) ))"
)SH");
    // Exclusive RDMA namespaces: a host sees its own device only.
    EXPECT_EQ(vm.value("h1_devices"), "rxe_h1");

    json all = vm.file("all.json");
    expect_clean_or_congestion_only(vm.value("all_rc"), all, "all");
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

    // Both ways at once on two rxe devices in one emulated VM: the results
    // must all be there.
    json bidir = vm.file("bidir.json");
    ASSERT_EQ(bidir["results"].size(), 3u);
    for (const json& r : bidir["results"]) EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    expect_clean_or_congestion_only(vm.value("bidir_rc"), bidir, "bidir");

    json sweep = vm.file("sweep.json");
    expect_clean_or_congestion_only(vm.value("sweep_rc"), sweep, "sweep");
    ASSERT_EQ(sweep["results"].size(), 12u);  // 2 B .. 4K, doubling
    EXPECT_EQ(sweep["results"][0]["spec"]["size"], 2);
    EXPECT_EQ(sweep["results"][11]["spec"]["size"], 4096);

    // A peer that dies while the data flows: an error result for that test,
    // well within its deadline.
    EXPECT_GE(std::stoll(vm.value("killed_in_data_pkts")), 100);
    EXPECT_EQ(vm.value("killed_mid_test"), "1");  // the client still running
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
              "fabscope: cannot reach a fabscope perf server at 10.9.9.9:18515: Network is "
              "unreachable (is `fabscope perf serve` running there, and the port open?)");
    EXPECT_EQ(vm.value("badsize_rc"), "2");
    EXPECT_EQ(vm.value("badtest_rc"), "2");

    json leafspine = vm.file("leafspine.json");
    expect_clean_or_congestion_only(vm.value("leafspine_rc"), leafspine, "leafspine");
    EXPECT_TRUE(leafspine["results"][0]["ok"].get<bool>());
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
port_wait h2 18515 && port_wait h2 18600 && port_wait h3 18515
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
in_host h1 $F perf run 10.0.0.2 --test write --test read --test send -D 2s --warmup 200ms -o partial.json 2> partial.err &
client=$!
text_wait partial.err write_bw
kill -INT $(pgrep -f 'perf run 10.0.0.2 --test write --test read')
t0=$(date +%s.%N)
wait $client; echo "partial_rc=$?"
echo "partial_after=$(echo "$(date +%s.%N) - $t0" | bc)"
)SH");
    json caps = vm.file("caps.json");
    expect_clean_or_congestion_only(vm.value("caps_rc"), caps, "caps");
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
    json after = vm.file("after.json");
    expect_clean_or_congestion_only(vm.value("after_rc"), after, "after");
    EXPECT_TRUE(after["results"][0]["ok"].get<bool>());
    EXPECT_EQ(vm.value("ended_lines"), "3");

    EXPECT_EQ(vm.value("refused_rc"), "1");
    EXPECT_EQ(vm.value("refused_err"), "does not answer 10.0.0.1");

    json secret = vm.file("secret.json");
    expect_clean_or_congestion_only(vm.value("secret_rc"), secret, "secret");
    EXPECT_TRUE(secret["results"][0]["ok"].get<bool>());
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

// The impairments cost 80-95 % (0.05-0.19 of the best in a run), the
// emulated CPUs' own jitter up to about 30 % (a CI run once measured the
// clean path's latency at under 0.8 of a shaped one's): --degraded-at 0.5
// tells them apart.
TEST(PerfVm, DegradedPathsAreNamedNextToACleanOne) {
    VmRun vm = run_in_vm("degraded", R"SH(
rxe_init
rxe_bridge 5
for h in h2 h3 h4 h5; do in_host $h $F perf serve -q --allow 10.0.0.0/24 & done
impair h3 netem loss 1%
impair h4 netem delay 2ms
impair h5 tbf rate 50mbit burst 32kbit latency 400ms
for h in h2 h3 h4 h5; do port_wait $h 18515; done
in_host h1 $F perf run 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 --bandwidth --latency -D 2s --degraded-at 0.5 -q -o degraded.json
echo "rc=$?"
)SH");
    EXPECT_EQ(vm.value("rc"), "1");
    json d = vm.file("degraded.json");
    for (const json& f : d["findings"]) {
        if (f["kind"] == "pair_degraded")
            std::printf("%s %s: %.2f of the best\n", f["peer"].get<std::string>().c_str(),
                        f["test"].get<std::string>().c_str(), f["evidence"]["ratio"].get<double>());
    }
    std::set<std::pair<std::string, std::string>> flagged;  // (peer, test)
    // congestion: loss during the test, and its loss signals (both ends summed)
    std::map<std::pair<std::string, std::string>, int64_t> lossy;
    for (const json& f : d["findings"]) {
        const std::pair<std::string, std::string> at{f["peer"], f["test"]};
        if (f["kind"] == "congestion") {
            // rxe counts retransmissions (sender) and duplicates (receiver):
            // the loss detector over each test's interval, both ends.
            EXPECT_EQ(f["evidence"]["congestion"]["kind"], "loss_on_lossless_class") << f.dump();
            for (const json& c : f["evidence"]["congestion"]["evidence"]["counters"])
                lossy[at] += c.value("delta", int64_t{0});
            continue;
        }
        EXPECT_EQ(f["kind"], "pair_degraded") << f.dump();
        flagged.insert(at);
    }
    const auto impaired = lossy.find({"10.0.0.3", "write_bw"});
    ASSERT_NE(impaired, lossy.end()) << d["findings"].dump(1);
    // The clean path may retransmit a little: rxe's retransmit timer fires when
    // the emulated CPUs fall behind (a CI run counted 36 duplicate requests at
    // h2 over 3.5 s against 623 loss signals on the 1 % loss path). Its loss is
    // the VM's, and at most a fifth of the impaired path's.
    for (const auto& [at, signals] : lossy) {
        if (at.first != "10.0.0.2") continue;
        EXPECT_LE(signals * 5, impaired->second) << d["findings"].dump(1);
    }
    for (const json& r : d["results"]) {
        if (r["peer"] != "10.0.0.3" || r["test"] != "write_bw") continue;
        ASSERT_FALSE(r["congestion"].empty()) << r.dump(1);
        const std::string host = r["congestion"][0]["evidence"]["host"];
        EXPECT_TRUE(host == "h1" || host == "h3") << r.dump(1);  // the ends, by name
    }
    // 1% loss and a 50 Mb/s shaper show in bandwidth, 2 ms of delay in latency;
    // the clean path is the yardstick and is never flagged.
    EXPECT_TRUE(flagged.count({"10.0.0.3", "write_bw"})) << d["findings"].dump(1);
    EXPECT_TRUE(flagged.count({"10.0.0.5", "write_bw"})) << d["findings"].dump(1);
    EXPECT_TRUE(flagged.count({"10.0.0.4", "write_lat"})) << d["findings"].dump(1);
    for (const auto& [peer, test] : flagged)
        EXPECT_NE(peer, "10.0.0.2") << test << ": " << d["findings"].dump(1);
    // The lossy path's evidence: retransmissions counted by the hardware (rxe).
    for (const json& f : d["findings"]) {
        if (f["kind"] == "pair_degraded" && f["peer"] == "10.0.0.3" && f["test"] == "write_bw") {
            const json& local = f["evidence"]["counters"]["local"];
            EXPECT_GT(local.value("completer_retry_err", 0) + local.value("rcvd_seq_err", 0), 0)
                << f.dump(1);
        }
    }
    fs::remove_all(vm.dir);
}

// RoCE paths through a routed 2x2 leaf-spine of 8 hosts (issue 10 section 3),
// in one boot: a trace of 16 flows sees both spines and only the fabric's
// routers; a test's recorded path is the one its packets took (spine
// counters, and the source port on the wire is the one derived from the
// QPNs); with one leaf-spine cable shaped, tests whose path crosses it are
// the slow ones.
TEST(PerfVm, TracedPathsAreTheFlowsOwnAcrossAnEcmpFabric) {
    VmRun vm = run_in_vm("ecmp", R"SH(
rxe_init
t0=$(date +%s.%N)
rxe_fabric 2 2 4
echo "fabric_s=$(echo "$(date +%s.%N) - $t0" | bc)"
N=/run/fabric.hosts
in_host a1 $F perf trace 10.2.0.1 --flows 16 --names $N --json > trace16.json; echo "trace_rc=$?"
in_host a1 $F perf trace 10.2.0.1 --flows 16 --names $N -t 300ms; echo "trace_text_rc=$?"
for h in b1 b2 b3 b4; do in_host $h $F perf serve -q --allow 10.1.0.0/16 & done
for h in b1 b2 b3 b4; do port_wait $h 18515; done
spine_rx() { ip netns exec "$1" cat /sys/class/net/down1/statistics/rx_packets; }
ip netns exec l1 timeout 20 tcpdump -nn -i any -c 20 'udp dst port 4791 and src host 10.1.0.1' > wire.txt 2>/dev/null &
s1=$(spine_rx s1); s2=$(spine_rx s2)
in_host a1 $F perf run 10.2.0.1 -D 1s --warmup 200ms -q --names $N -o flow.json; echo "flow_rc=$?"
echo "s1_packets=$(( $(spine_rx s1) - s1 ))"
echo "s2_packets=$(( $(spine_rx s2) - s2 ))"
wait %%
echo "wire_sport=$(grep -o '10\.1\.0\.1\.[0-9]*' wire.txt | head -1 | sed 's/.*\.//')"
impair_link l1 s1 tbf rate 20mbit burst 32kbit latency 50ms
# 4K messages, 4 in flight: 16 KB queued at most, well inside the shaper's
# 125 KB, so a test through it is slow but loses nothing; perf run's default
# (128 x 64K, 8 MB) overflows it and each test then waits out RC retries
# (13 s a test instead of 2).
# ECMP sends each test by its QP's source port, which rxe picks at random:
# eight tests all on one spine happen (1 in 128; seen once in CI). Another
# round, up to four, until both spines carried a test.
for k in 1 2 3 4; do
    in_host a1 $F perf run 10.2.0.1 10.2.0.2 10.2.0.3 10.2.0.4 -D 1s --warmup 200ms -s 4K -t 4 -q --names $N -o shaped$k-1.json
    in_host a2 $F perf run 10.2.0.1 10.2.0.2 10.2.0.3 10.2.0.4 -D 1s --warmup 200ms -s 4K -t 4 -q --names $N -o shaped$k-2.json
    rounds=$k
    cat shaped*.json | grep -Eq '"name": ?"s1"' && cat shaped*.json | grep -Eq '"name": ?"s2"' && break
done
echo "shaped_rounds=$rounds"
echo "done=1"
)SH");
    EXPECT_EQ(vm.value("trace_rc"), "0");
    std::ifstream in(vm.dir / "trace16.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& e : fabscope::testing::text_schema_errors(text, "perf-trace.schema.json"))
        ADD_FAILURE() << e;
    json trace = json::parse(text, nullptr, false);
    ASSERT_TRUE(trace.is_object()) << vm.output;
    // (a) Both spines, every hop a router of the fabric, three of them.
    std::set<std::string> spines;
    const std::set<std::string> routers{"l1", "l2", "s1", "s2"};
    ASSERT_EQ(trace["flows"].size(), 16u);
    for (const json& f : trace["flows"]) {
        ASSERT_EQ(f["hops"].size(), 3u) << f.dump();
        EXPECT_EQ(f["end"], "silent");
        for (const json& h : f["hops"]) EXPECT_TRUE(routers.count(h.value("name", ""))) << h;
        EXPECT_EQ(f["hops"][0]["name"], "l1");
        EXPECT_EQ(f["hops"][2]["name"], "l2");
        spines.insert(f["hops"][1]["name"].get<std::string>());
    }
    EXPECT_EQ(spines, (std::set<std::string>{"s1", "s2"}));
    EXPECT_EQ(trace["paths"].size(), 2u);
    EXPECT_EQ(vm.value("trace_text_rc"), "0");
    EXPECT_NE(vm.output.find("2 distinct paths:"), std::string::npos) << vm.output;

    // (b) The recorded path is the flow's: its port is the one on the wire,
    // and its spine carried the traffic.
    EXPECT_EQ(vm.value("flow_rc"), "0");
    json flow = vm.file("flow.json");
    ASSERT_EQ(flow["results"].size(), 1u);
    const json& path = flow["results"][0]["path"];
    ASSERT_TRUE(path.is_object()) << flow.dump(1);
    EXPECT_EQ(std::to_string(path["sport"].get<int>()), vm.value("wire_sport"));
    std::string spine = path["hops"][1]["name"];
    int s1 = std::stoi(vm.value("s1_packets"));
    int s2 = std::stoi(vm.value("s2_packets"));
    int busy = spine == "s1" ? s1 : s2;
    int idle = spine == "s1" ? s2 : s1;
    EXPECT_GT(busy, 1000) << spine << " s1=" << s1 << " s2=" << s2;
    EXPECT_LT(idle * 10, busy) << spine << " s1=" << s1 << " s2=" << s2;

    // (c) The cable l1-s1 shaped to 20 Mb/s: the tests through s1 are the slow ones.
    std::vector<double> through;
    std::vector<double> around;
    std::vector<std::string> shaped;
    const int rounds = std::stoi(vm.value("shaped_rounds"));
    for (int k = 1; k <= rounds; ++k) {
        shaped.push_back("shaped" + std::to_string(k) + "-1.json");
        shaped.push_back("shaped" + std::to_string(k) + "-2.json");
    }
    for (const std::string& name : shaped) {
        json doc = vm.file(name);
        for (const json& r : doc["results"]) {
            ASSERT_TRUE(r.contains("path")) << r.dump();
            double gbps = r["bandwidth"]["avg_gbps"];
            (r["path"]["hops"][1]["name"] == "s1" ? through : around).push_back(gbps);
        }
    }
    ASSERT_FALSE(through.empty());
    ASSERT_FALSE(around.empty());
    double fastest_through = *std::max_element(through.begin(), through.end());
    double slowest_around = *std::min_element(around.begin(), around.end());
    EXPECT_LT(fastest_through * 2, slowest_around)
        << "through l1-s1: " << fastest_through << " Gb/s at best; around: " << slowest_around
        << " at worst";
    std::cout << "fabric setup " << vm.value("fabric_s") << " s; " << rounds
              << " round(s) of shaped tests; " << through.size()
              << " tests through the shaped cable (best " << fastest_through << " Gb/s), "
              << around.size() << " around it (worst " << slowest_around << " Gb/s)\n";
    fs::remove_all(vm.dir);
}

}  // namespace
}  // namespace fabscope::labtest
