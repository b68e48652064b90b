// fabscope sweep and route against the simulated lab, checked against
// ibnetdiscover, perfquery, ibroute and ibtracert run on the same lab.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "lab_harness.h"
#include "schema_check.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json sweep(const Lab& lab, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{fabscope(), "sweep", "--json", "-q"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    CmdResult r = lab.exec(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "snapshot.schema.json"))
        ADD_FAILURE() << "sweep --json: " << e;
    return json::parse(r.out.empty() ? "{}" : r.out);
}

const json* node_named(const json& snap, const std::string& desc) {
    for (const auto& n : snap["nodes"]) {
        if (n["description"] == desc) return &n;
    }
    return nullptr;
}

const json* port_of(const json& node, int num) {
    for (const auto& p : node["ports"]) {
        if (p["num"] == num) return &p;
    }
    return nullptr;
}

std::vector<std::string> kinds(const json& snap) {
    std::vector<std::string> k;
    for (const auto& f : snap["findings"]) k.push_back(f["kind"]);
    std::sort(k.begin(), k.end());
    return k;
}

class SweepLab648 : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        lab_ = new Lab({"--spines", "18", "--leaves", "36", "--hosts-per-leaf", "18"});
    }
    static void TearDownTestSuite() {
        delete lab_;
        lab_ = nullptr;
    }
    static Lab* lab_;
};
Lab* SweepLab648::lab_ = nullptr;

TEST_F(SweepLab648, TopologyCountersAndRoutesMatchThePeerTools) {
    ASSERT_TRUE(lab_->up());
    const Lab& lab = *lab_;
    // Counters that must come back exactly (the simulator never changes error counters by itself).
    ASSERT_EQ(
        lab.fault({"counter", "leaf03[20]", "SymbolErrorCounter=123", "LinkErrorRecoveryCounter=7",
                   "PortRcvErrors=55", "PortXmitDiscards=9", "PortXmitWait=4000000"})
            .exit_code,
        0);
    ASSERT_EQ(lab.fault({"counter", "spine05[3]", "LinkDownedCounter=3",
                         "ExcessiveBufferOverrunErrors=15",
                         "PortCountersExtended.PortXmitData=90000000000"})
                  .exit_code,
              0);
    ASSERT_EQ(
        lab.fault({"counter", "h0100[1]", "SymbolErrorCounter=65535", "VL15Dropped=4"}).exit_code,
        0);

    json snap = sweep(lab);
    CmdResult peer = lab.exec({"ibnetdiscover"});
    ASSERT_EQ(peer.exit_code, 0);
    PeerTopology theirs = parse_ibnetdiscover(peer.out);
    PeerTopology ours = topology_of_snapshot(snap.dump());
    EXPECT_EQ(ours.nodes, theirs.nodes);
    EXPECT_TRUE(ours.links == theirs.links);
    EXPECT_EQ(ours.links.size(), 648u + 36u * 18u);
    EXPECT_TRUE(snap["findings"].empty()) << snap["findings"].dump(1);
    const json& stats = snap["source"]["mad_stats"];
    EXPECT_EQ(stats["timeouts"], 0);
    EXPECT_GT(stats["max_chain"], 8);
    // PortSamplesControl and PortExtendedSpeedsCounters: the simulator has
    // neither, as perfquery -c and -T find; the sweep asked each of one node
    // per PMA model (2 here), no port has FEC counters, and the SM lives on.
    std::set<std::pair<std::string, std::string>> models;
    for (const json& n : snap["nodes"]) {
        EXPECT_FALSE(n.contains("pma_tick")) << n["description"];
        models.insert({n["vendor_id"].get<std::string>(), n["device_id"].get<std::string>()});
        for (const json& p : n["ports"]) {
            EXPECT_FALSE(p.contains("counters") && p["counters"].contains("fec"))
                << n["description"];
        }
    }
    EXPECT_LE(stats["optional_unanswered"].get<size_t>(), 2 * models.size());
    CmdResult sampctl = lab.exec({"perfquery", "-c", "2", "1"});
    EXPECT_NE(sampctl.exit_code, 0);
    EXPECT_NE((sampctl.out + sampctl.err).find("sampctlquery"), std::string::npos)
        << sampctl.out << sampctl.err;
    CmdResult ext_speeds = lab.exec({"perfquery", "-T", "2", "1"});
    EXPECT_NE(ext_speeds.exit_code, 0);
    EXPECT_NE((ext_speeds.out + ext_speeds.err).find("PortExtendedSpeedsCounters"),
              std::string::npos)
        << ext_speeds.out << ext_speeds.err;
    CmdResult sm = lab.exec({"sminfo"});
    EXPECT_EQ(sm.exit_code, 0) << sm.err;
    EXPECT_NE(sm.out.find("SMINFO_MASTER"), std::string::npos) << sm.out;

    // Counters against perfquery on the same ports.
    struct Probe {
        std::string node;
        int port;
    };
    for (const Probe& pr : {Probe{"leaf03", 20}, Probe{"spine05", 3}, Probe{"h0100 HCA-1", 1}}) {
        const json* n = node_named(snap, pr.node);
        ASSERT_NE(n, nullptr) << pr.node;
        const json* p = port_of(*n, pr.port);
        ASSERT_TRUE(p && p->contains("counters")) << pr.node;
        const json& c = (*p)["counters"];
        std::string lid = std::to_string((*n)["lid"].get<int>());
        auto pq = parse_perfquery(lab.exec({"perfquery", lid, std::to_string(pr.port)}).out);
        auto px = parse_perfquery(lab.exec({"perfquery", "-x", lid, std::to_string(pr.port)}).out);
        ASSERT_FALSE(pq.empty());
        for (const char* k :
             {"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
              "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
              "PortXmitDiscards", "PortXmitConstraintErrors", "PortRcvConstraintErrors",
              "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
              "PortXmitWait"}) {
            EXPECT_EQ(c[k].get<uint64_t>(), pq.at(k)) << pr.node << " " << k;
        }
        // Data counters grow with every MAD the simulator carries, perfquery's own included:
        // ours were read first, and from the 64-bit extended counters.
        EXPECT_TRUE(c["extended"].get<bool>());
        EXPECT_LE(c["PortXmitData"].get<uint64_t>(), px.at("PortXmitData"));
        EXPECT_GT(c["PortXmitData"].get<uint64_t>() + 100000, px.at("PortXmitData"));
    }
    EXPECT_EQ((*port_of(*node_named(snap, "h0100 HCA-1"), 1))["counters"]["SymbolErrorCounter"],
              65535);
    EXPECT_GE(
        (*port_of(*node_named(snap, "spine05"), 3))["counters"]["PortXmitData"].get<uint64_t>(),
        90000000000ULL);

    // Forwarding tables against ibroute.
    for (const char* sw : {"leaf01", "leaf36", "spine01", "spine18"}) {
        const json* n = node_named(snap, sw);
        ASSERT_NE(n, nullptr);
        auto theirs_lft =
            parse_ibroute(lab.exec({"ibroute", std::to_string((*n)["lid"].get<int>())}).out);
        ASSERT_FALSE(theirs_lft.empty()) << sw;
        const json& lft = (*n)["lft"];
        for (const auto& [lid, port] : theirs_lft) {
            ASSERT_LT(static_cast<size_t>(lid), lft.size()) << sw;
            EXPECT_EQ(lft[static_cast<size_t>(lid)].get<int>(), port) << sw << " LID " << lid;
        }
        size_t routed = 0;
        for (const auto& e : lft) routed += e.get<int>() != 255;
        EXPECT_EQ(routed, theirs_lft.size()) << sw;
    }

    // Routes against ibtracert, from the snapshot.
    std::string snap_file = lab.dir() + "-sweep.json";
    std::ofstream(snap_file) << snap.dump();
    for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{{"h0001", "h0648"},
                                                                        {"h0100", "h0101"},
                                                                        {"h0333", "h0017"},
                                                                        {"h0500", "h0002"},
                                                                        {"h0042", "leaf30"},
                                                                        {"h0647", "spine07"}}) {
        CmdResult r = run({fabscope(), "route", a, b, "--load", snap_file, "--json", "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        json route = json::parse(r.out);
        const json* src = node_named(snap, a + " HCA-1");
        const json* dst = node_named(snap, b.rfind('h', 0) == 0 ? b + " HCA-1" : b);
        ASSERT_TRUE(src && dst);
        auto tr = parse_ibtracert(lab.exec({"ibtracert", std::to_string((*src)["lid"].get<int>()),
                                            std::to_string((*dst)["lid"].get<int>())})
                                      .out);
        std::vector<std::tuple<int, int, std::string>> mine;
        for (const auto& h : route["hops"]) {
            mine.emplace_back(h["from"]["port"].get<int>(), h["to"]["port"].get<int>(),
                              h["to"]["node"].get<std::string>());
        }
        EXPECT_EQ(mine, tr) << a << " -> " << b;
        EXPECT_FALSE(tr.empty());
    }
    std::remove(snap_file.c_str());
}

TEST_F(SweepLab648, ALinkTakenDownMidSweep) {
    ASSERT_TRUE(lab_->up());
    const Lab& lab = *lab_;
    // One MAD at a time makes the sweep last long enough to pull a cable under it.
    std::string out_file = lab.dir() + "-mid.json";
    SpawnOptions o;
    o.argv = {fabscope(), "lab",      "exec", "--dir", lab.dir(), "--",    fabscope(),
              "sweep",    "--window", "1",    "-v",    "-o",      out_file};
    o.stderr_path = lab.dir() + "-mid.err";
    auto started = std::chrono::steady_clock::now();
    auto child = spawn(o);
    ASSERT_TRUE(child);
    ASSERT_TRUE(wait_for_text(o.stderr_path, "Sweeping: topology")) << o.stderr_path;
    ASSERT_TRUE(is_running(*child)) << "the sweep ended before the cable was pulled";
    ASSERT_EQ(lab.fault({"link-down", "leaf20[25]"}).exit_code, 0);
    RunResult res = wait_child(child->pid, 120000ms);
    auto took = std::chrono::steady_clock::now() - started;
    ASSERT_FALSE(res.timed_out);
    ASSERT_EQ(res.exit_code, 0);
    EXPECT_LT(took, 60s);

    std::ifstream in(out_file);
    json snap = json::parse(in);
    std::remove(out_file.c_str());
    ASSERT_EQ(lab.fault({"link-up", "leaf20[25]"}).exit_code, 0);
    EXPECT_EQ(snap["nodes"].size(), 702u);  // nothing hangs off that one link alone
    // Whatever the sweep saw of the cable before it was pulled, everything else is there.
    PeerTopology ours = topology_of_snapshot(snap.dump());
    PeerTopology now = parse_ibnetdiscover(lab.exec({"ibnetdiscover"}).out);
    EXPECT_EQ(ours.nodes, now.nodes);
    size_t differ = 0;
    for (const auto& [k, v] : now.links) differ += !ours.links.count(k);
    for (const auto& [k, v] : ours.links) differ += !now.links.count(k);
    EXPECT_LE(differ, 1u);  // at most the pulled cable
    for (const std::string& k : kinds(snap)) {
        EXPECT_TRUE(k == "unreachable" || k == "query_failed" || k == "port_polling" ||
                    k == "link_count_asymmetry")
            << k;
    }
}

TEST_F(SweepLab648, ASwitchThatNeverAnswers) {
    ASSERT_TRUE(lab_->up());
    const Lab& lab = *lab_;
    PeerTopology before = parse_ibnetdiscover(lab.exec({"ibnetdiscover"}).out);
    // spine07's management agent hangs: the lab's relay swallows every MAD to
    // it or through it, so nothing comes back at all (not even a 110).
    ASSERT_EQ(lab.fault({"silent", "spine07"}).exit_code, 0);
    auto t0 = std::chrono::steady_clock::now();
    json snap = sweep(lab, {"-t", "100", "--retries", "2"});
    auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_EQ(lab.fault({"answer", "spine07"}).exit_code, 0);
    // One deadline chain (100 + 200 + 400 ms) per wave of the sweep, not one
    // per leaf (36 of them: 25 s). About 3.5 s alone; CI runs the lint beside
    // the ibsim labs, at the lowest priority, and the sweep once took 5.2 s.
    EXPECT_LT(took, 10s);
    uint64_t spine07 = 0;
    for (const auto& [guid, desc] : before.nodes) {
        if (desc == "spine07") spine07 = guid;
    }
    ASSERT_NE(spine07, 0u);
    PeerTopology ours = topology_of_snapshot(snap.dump());
    auto expected_nodes = before.nodes;
    expected_nodes.erase(spine07);
    EXPECT_EQ(ours.nodes, expected_nodes);
    auto expected_links = before.links;
    std::erase_if(expected_links, [&](const auto& kv) {
        return kv.first.first.first == spine07 || kv.first.second.first == spine07;
    });
    EXPECT_TRUE(ours.links == expected_links);
    // Each leaf's cable to the silent spine is named, and nothing else failed.
    int unreachable = 0;
    for (const auto& f : snap["findings"]) {
        if (f["kind"] == "unreachable") {
            ++unreachable;
            EXPECT_NE(f["summary"].get<std::string>().find("no answer after 3 attempts"),
                      std::string::npos);
        } else {
            EXPECT_EQ(f["kind"], "link_count_asymmetry") << f.dump();
        }
    }
    EXPECT_EQ(unreachable, 36);
    EXPECT_EQ(snap["source"]["mad_stats"]["timeouts"], 36);
}

TEST(SweepLab, DroppedMadsOnAPortCostOnlyWhatIsBehindIt) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    PeerTopology before = parse_ibnetdiscover(lab.exec({"ibnetdiscover"}).out);

    // Everything arriving at leaf02's uplink to spine01 is dropped.
    ASSERT_EQ(lab.fault({"mad-drop", "leaf02[5]", "100"}).exit_code, 0);
    auto t0 = std::chrono::steady_clock::now();
    json snap = sweep(lab);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
    PeerTopology ours = topology_of_snapshot(snap.dump());
    EXPECT_EQ(ours.nodes, before.nodes);  // leaf02 is reached through spine02
    // Only the one cable is missing, and the sweep says where it could not look.
    size_t missing = 0;
    for (const auto& [k, v] : before.links) missing += !ours.links.count(k);
    EXPECT_EQ(missing, 1u);
    bool named = false;
    for (const auto& f : snap["findings"]) {
        std::string s = f["summary"];
        if (f["kind"] == "unreachable") {
            named = named || s.find("leaf02[5]") != std::string::npos ||
                    s.find("spine01[2]") != std::string::npos;
            // Lost on the way, not silent: the link is there, MADs do not cross it.
            EXPECT_EQ(f["evidence"]["cause"], "lost") << s;
            EXPECT_NE(s.find("were lost on the way"), std::string::npos) << s;
        } else {
            // Never "leaf02 and spine01 are joined by 0 links": both ports are up.
            EXPECT_NE(f["kind"], "link_count_asymmetry") << s;
            // The PMA is LID-routed only: counters of ports whose LID route
            // crosses the lossy port cannot be read, and the finding says why.
            EXPECT_EQ(f["kind"], "query_failed") << s;
            EXPECT_EQ(f["evidence"]["attribute"], "PortCounters") << s;
            EXPECT_NE(s.find("LID-routed path to it is losing MADs"), std::string::npos) << s;
        }
    }
    EXPECT_TRUE(named) << snap["findings"].dump(1);
    // Forwarding tables are read by directed route where the LID route fails.
    for (const auto& n : snap["nodes"]) {
        if (n["type"] == "Switch") {
            EXPECT_TRUE(n.contains("lft")) << n["description"];
        }
    }

    // A fifth of everything the local host sends dropped where it enters
    // the fabric (leaf01[1]): retries get everything (a request fails only if
    // nine attempts in a row are lost: about 1 in 2 million).
    ASSERT_EQ(lab.fault({"mad-drop", "leaf02[5]", "0"}).exit_code, 0);
    ASSERT_EQ(lab.fault({"mad-drop", "leaf01[1]", "20"}).exit_code, 0);
    snap = sweep(lab, {"--retries", "8"});
    ours = topology_of_snapshot(snap.dump());
    EXPECT_EQ(ours.nodes, before.nodes);
    EXPECT_TRUE(ours.links == before.links);
    EXPECT_GT(snap["source"]["mad_stats"]["dropped"].get<int>(), 0);
    EXPECT_TRUE(snap["findings"].empty()) << snap["findings"].dump(1);
}

TEST(SweepLab, RouteLiveAgreesWithIbtracertAndBrokenRoutesExitOne) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    CmdResult r = lab.exec({fabscope(), "route", "h0005", "h0013", "--json", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "route.schema.json"))
        ADD_FAILURE() << "route --json: " << e;
    json route = json::parse(r.out);
    std::vector<std::tuple<int, int, std::string>> mine;
    for (const auto& h : route["hops"]) {
        mine.emplace_back(h["from"]["port"].get<int>(), h["to"]["port"].get<int>(),
                          h["to"]["node"].get<std::string>());
    }
    EXPECT_EQ(mine, parse_ibtracert(lab.exec({"ibtracert", "11", "19"}).out));
    r = lab.exec({fabscope(), "route", "h0005", "nosuchhost"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no node \"nosuchhost\""), std::string::npos) << r.err;
    // A discover snapshot has no forwarding tables: an input problem (2), not a broken route.
    std::string topo = lab.dir() + "-topology.json";
    ASSERT_EQ(lab.exec({fabscope(), "discover", "-q", "-o", topo}).exit_code, 0);
    r = run({fabscope(), "route", "h0005", "h0013", "--load", topo});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("has no forwarding tables"), std::string::npos) << r.err;
    std::remove(topo.c_str());
    // Through a silent spine: the route says the spine did not answer, not that a link is missing.
    std::string spine;
    for (const auto& [out, in, node] : mine) {
        if (node.rfind("spine", 0) == 0) spine = node;
    }
    ASSERT_FALSE(spine.empty());
    ASSERT_EQ(lab.fault({"silent", spine}).exit_code, 0);
    r = lab.exec({fabscope(), "route", "h0005", "h0013", "-t", "100", "--retries", "1"});
    ASSERT_EQ(lab.fault({"answer", spine}).exit_code, 0);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("did not answer the sweep"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("which has no link"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fabscope::labtest
