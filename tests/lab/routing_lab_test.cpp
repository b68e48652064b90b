// The forwarding tables' credit loops and balance, on fabrics routed by the
// lab's own OpenSM, checked against ibdmchk (Debian's ibutils), which
// verifies OpenSM's routing dump files (opensm-subnet.lst, opensm.fdbs) for
// credit loops, and against ibroute's dump of the same switches.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

/// An ibsim net file: `n` switches in a ring (port 1 to the previous, 2 to
/// the next), each with a host on port 3; the hosts first (OpenSM runs on
/// the first node).
std::string ring_net(int n) {
    std::string out = "# a ring of switches, for credit loops under min-hop routing\n";
    for (int i = 1; i <= n; ++i)
        out += fmt::format("Hca\t1 \"r{:02d}\"\t# \"r{:02d} HCA-1\"\n[1]\t\"ring{:02d}\"[3]\n\n", i,
                           i, i);
    for (int i = 1; i <= n; ++i) {
        const int prev = i == 1 ? n : i - 1;
        const int next = i == n ? 1 : i + 1;
        out += fmt::format(
            "Switch\t3 \"ring{:02d}\"\t# \"ring{:02d}\" enhanced port 0\n[1]\t\"ring{:02d}\"[2]\n"
            "[2]\t\"ring{:02d}\"[1]\n[3]\t\"r{:02d}\"[1]\n\n",
            i, i, prev, next, i);
    }
    return out;
}

struct Verdicts {
    json report;          ///< validate's
    std::string ibdmchk;  ///< what ibdmchk printed
};

json validate(const Lab& lab, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv{fabscope(), "validate", "--interval", "0", "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    CmdResult r = lab.exec(argv);
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "validation.schema.json"))
        ADD_FAILURE() << "validate --json: " << e;
    return json::parse(r.out.empty() ? "{}" : r.out);
}

Verdicts both_verdicts(const Lab& lab, const std::vector<std::string>& extra = {}) {
    Verdicts v;
    v.report = validate(lab, extra);
    // Verify mode reads OpenSM's dumps and checks every CA-to-CA path for
    // credit loops on the VLs the SLs use (one here, as fabscope assumes).
    const std::string osm = lab.dir() + "/osm/";
    CmdResult d = run({"ibdmchk", "-s", osm + "opensm-subnet.lst", "-f", osm + "opensm.fdbs", "-m",
                       osm + "opensm.mcfdbs"},
                      std::chrono::seconds(120));
    v.ibdmchk = d.out + d.err;
    return v;
}

std::vector<json> of_kind(const json& report, const std::string& kind) {
    std::vector<json> out;
    for (const json& f : report["findings"])
        if (f["kind"] == kind) out.push_back(f);
    return out;
}

std::string routing_check(const json& report) {
    for (const json& c : report["check_list"])
        if (c["id"] == "routing") return c["detail"];
    return "";
}

TEST(RoutingLab, MinHopOnARingHasCreditLoopsAsIbdmchkSays) {
    ScratchDir scratch("routing");
    Lab lab({"--net", scratch.write("ring.net", ring_net(5)), "--sm-dump"});
    ASSERT_TRUE(lab.up());
    const std::string snap = scratch.path("ring-snapshot.json");
    Verdicts v = both_verdicts(lab, {"--snapshot", snap});
    std::printf("ibdmchk:\n%s\n", v.ibdmchk.c_str());
    const auto loops = of_kind(v.report, "credit_loop");
    for (const json& f : loops)
        std::printf("fabscope: %s\n", f["summary"].get<std::string>().c_str());
    std::printf("routing check: %s\n", routing_check(v.report).c_str());
    EXPECT_NE(v.ibdmchk.find("credit loops in routing"), std::string::npos) << v.ibdmchk;
    ASSERT_EQ(loops.size(), 2u) << v.report["findings"].dump(1);  // one each way round
    for (const json& f : loops) {
        EXPECT_EQ(f["severity"], "error");
        EXPECT_EQ(f["evidence"]["lanes"].size(), 5u) << f.dump(1);
    }
    EXPECT_EQ(v.report["result"], "fail");
    // Checked again per VL: every flow on SL 0, OpenSM's tables map it to VL 0.
    EXPECT_NE(
        routing_check(v.report).find("2 credit loops (per VL: the SLs of 20 flows from the SA"),
        std::string::npos)
        << routing_check(v.report);
    for (const json& f : loops) {
        EXPECT_EQ(f["evidence"]["vl_from"], "sl_to_vl");
        EXPECT_EQ(f["evidence"]["vl"], 0);
    }

    // The report of the snapshot validate read: both loops listed, each
    // drawn as five numbered arrows on the ring.
    const std::string html = scratch.path("ring.html");
    CmdResult rep = run({fabscope(), "report", snap, "-o", html}, std::chrono::seconds(60));
    ASSERT_EQ(rep.exit_code, 0) << rep.err;
    const std::string page = slurp(html);
    for (int loop = 1; loop <= 2; ++loop) {
        const std::string group = fmt::format("<g class=\"credit-loop\" id=\"loop-{}\"", loop);
        const size_t at = page.find(group);
        ASSERT_NE(at, std::string::npos) << group;
        const std::string drawn = page.substr(at, page.find("</g>", at) - at);
        size_t arrows = 0;
        for (size_t k = drawn.find("class=\"loop-step\""); k != std::string::npos;
             k = drawn.find("class=\"loop-step\"", k + 1))
            ++arrows;
        EXPECT_EQ(arrows, 5u) << drawn;
        EXPECT_NE(page.find(fmt::format("credit loop {} on VL 0, 5 cables: ring", loop)),
                  std::string::npos);
    }
}

/// ibdmchk's inputs for a check per VL, gathered with the peer tools from
/// the live fabric: each host's path SL to every host LID (saquery -p: "guid
/// dlid sl" a line) and every switch's SL-to-VL tables (smpquery sl2vl:
/// "guid in out 0x(sl0)(sl1) ..." a line).
struct PeerVlFiles {
    std::string path_sl;
    std::string sl2vl;
};

PeerVlFiles peer_vl_files(const Lab& lab, const json& snapshot, const ScratchDir& scratch) {
    std::string psl;
    std::string slvl;
    for (const json& src : snapshot["nodes"]) {
        if (src["type"] == "Switch") {
            const std::string lid = std::to_string(src["lid"].get<int>());
            for (int out = 1; out <= src["num_ports"].get<int>(); ++out) {
                CmdResult q = lab.exec({"smpquery", "sl2vl", lid, std::to_string(out)});
                EXPECT_EQ(q.exit_code, 0) << q.err;
                std::istringstream lines(q.out);
                for (std::string line; std::getline(lines, line);) {
                    int in = 0;
                    int o = 0;
                    std::array<int, 16> vl{};
                    if (std::sscanf(line.c_str(),  // NOLINT: parsing smpquery's fixed format
                                    "ports: in %d, out %d: |%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|"
                                    "%d|%d|%d|",
                                    &in, &o, &vl[0], &vl[1], &vl[2], &vl[3], &vl[4], &vl[5], &vl[6],
                                    &vl[7], &vl[8], &vl[9], &vl[10], &vl[11], &vl[12], &vl[13],
                                    &vl[14], &vl[15]) != 18)
                        continue;
                    slvl += fmt::format("{} {} {}", src["guid"].get<std::string>(), in, o);
                    for (size_t sl = 0; sl < 16; sl += 2)
                        slvl += fmt::format(" 0x{:x}{:x}", vl[sl], vl[sl + 1]);
                    slvl += "\n";
                }
            }
            continue;
        }
        for (const json& dst : snapshot["nodes"]) {
            if (dst["type"] == "Switch" || dst["guid"] == src["guid"]) continue;
            const std::string dlid = std::to_string(dst["lid"].get<int>());
            CmdResult pr = lab.exec(
                {"saquery", "-p", "--slid", std::to_string(src["lid"].get<int>()), "--dlid", dlid});
            EXPECT_EQ(pr.exit_code, 0) << pr.err;
            const size_t at = pr.out.find("sl......................0x");
            EXPECT_NE(at, std::string::npos) << pr.out;
            if (at == std::string::npos) continue;
            const int sl = std::stoi(pr.out.substr(at + 26), nullptr, 16);
            psl += fmt::format("{} {} {}\n", src["guid"].get<std::string>(), dlid, sl);
        }
    }
    return {scratch.write("path-sl.txt", psl), scratch.write("sl2vl.txt", slvl)};
}

TEST(RoutingLab, LashOnTheSameRingHasNoCreditLoopPerVlAsIbdmchkFindsWithTheSls) {
    // LASH breaks the ring's loops with layers: each path's SL (from the SA)
    // puts it on a VL whose routes cannot close a cycle. Taken on one VL, as
    // ibdmchk takes OpenSM's dumps by default, the same tables have loops;
    // given the paths' SLs (saquery) and the switches' SL-to-VL tables
    // (smpquery), ibdmchk finds none either.
    ScratchDir scratch("routing");
    Lab lab(
        {"--net", scratch.write("ring.net", ring_net(5)), "--sm-dump", "--routing-engine", "lash"});
    ASSERT_TRUE(lab.up());
    const std::string snap = scratch.path("lash-snapshot.json");
    Verdicts v = both_verdicts(lab, {"--snapshot", snap});
    std::printf("ibdmchk, one VL:\n%s\n", v.ibdmchk.c_str());
    std::printf("routing check: %s\n", routing_check(v.report).c_str());
    EXPECT_TRUE(of_kind(v.report, "credit_loop").empty()) << v.report["findings"].dump(1);
    EXPECT_NE(
        routing_check(v.report).find("no credit loop (per VL: the SLs of 20 flows from the SA"),
        std::string::npos)
        << routing_check(v.report);
    EXPECT_NE(v.ibdmchk.find("credit loops in routing"), std::string::npos) << v.ibdmchk;

    // route --balance live: the same check, per VL.
    CmdResult balance = lab.exec({fabscope(), "route", "--balance", "--json", "-q"});
    EXPECT_EQ(balance.exit_code, 0) << balance.err;
    const json b = json::parse(balance.out.empty() ? "{}" : balance.out);
    EXPECT_EQ(b.value("credit_loops", 99), 0) << balance.out;
    EXPECT_EQ(b.value("vl_basis", "").rfind("per VL: the SLs of 20 flows", 0), 0u) << balance.out;

    const PeerVlFiles files = peer_vl_files(lab, json::parse(slurp(snap)), scratch);
    EXPECT_NE(slurp(files.path_sl).find(" 1\n"), std::string::npos)  // LASH's second layer
        << slurp(files.path_sl);
    const std::string osm = lab.dir() + "/osm/";
    CmdResult per_vl = run({"ibdmchk", "-s", osm + "opensm-subnet.lst", "-f", osm + "opensm.fdbs",
                            "-m", osm + "opensm.mcfdbs", "-c", files.path_sl, "-d", files.sl2vl},
                           std::chrono::seconds(120));
    std::printf("ibdmchk, per VL:\n%s\n", (per_vl.out + per_vl.err).c_str());
    EXPECT_NE((per_vl.out + per_vl.err).find("Defined 2 SLs in use"), std::string::npos);
    EXPECT_NE((per_vl.out + per_vl.err).find("no credit loops found"), std::string::npos)
        << per_vl.out << per_vl.err;
}

TEST(RoutingLab, UpDownOnTheSameRingHasNoCreditLoopByBothTools) {
    ScratchDir scratch("routing");
    const std::string net = scratch.write("ring.net", ring_net(5));
    // The root: ring01, by the GUID the simulator gives it (the same net file
    // gives the same GUIDs), as OpenSM's up/down wants it.
    std::string root;
    {
        Lab probe({"--net", net});
        ASSERT_TRUE(probe.up());
        const std::string snap = scratch.path("ring.json");
        CmdResult r =
            probe.exec({fabscope(), "sweep", "--no-counters", "--no-routes", "-q", "-o", snap});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const json swept = json::parse(slurp(snap));
        for (const json& n : swept["nodes"])
            if (n["description"] == "ring01") root = n["guid"];
    }
    ASSERT_FALSE(root.empty());
    Lab lab({"--net", net, "--sm-dump", "--routing-engine", "updn", "--root-guid", root});
    ASSERT_TRUE(lab.up());
    Verdicts v = both_verdicts(lab);
    std::printf("updn rooted at ring01 (%s)\nibdmchk:\n%s\nrouting check: %s\n", root.c_str(),
                v.ibdmchk.c_str(), routing_check(v.report).c_str());
    EXPECT_NE(v.ibdmchk.find("no credit loops found"), std::string::npos) << v.ibdmchk;
    EXPECT_TRUE(of_kind(v.report, "credit_loop").empty()) << v.report["findings"].dump(1);
    EXPECT_TRUE(of_kind(v.report, "route_hole").empty()) << v.report["findings"].dump(1);
    EXPECT_NE(routing_check(v.report).find("no credit loop"), std::string::npos);
}

TEST(RoutingLab, ALeafSpineHasNoCreditLoopAndAFailedUplinkShiftsItsRoutes) {
    Lab lab({"--spines", "4", "--leaves", "2", "--hosts-per-leaf", "8", "--sm-dump"});
    ASSERT_TRUE(lab.up());
    Verdicts v = both_verdicts(lab);
    std::printf("ibdmchk:\n%s\nrouting check: %s\n", v.ibdmchk.c_str(),
                routing_check(v.report).c_str());
    EXPECT_NE(v.ibdmchk.find("no credit loops found"), std::string::npos) << v.ibdmchk;
    EXPECT_TRUE(of_kind(v.report, "credit_loop").empty()) << v.report["findings"].dump(1);
    EXPECT_TRUE(of_kind(v.report, "route_imbalance").empty()) << v.report["findings"].dump(1);
    EXPECT_NE(routing_check(v.report).find("no credit loop"), std::string::npos);

    EXPECT_NE(v.ibdmchk.find("1 SLs, 1 VLs used"), std::string::npos) << v.ibdmchk;

    // An uplink down: OpenSM routes leaf01's 8 remote hosts over its other
    // three uplinks (3, 3 and 2: as even as 8 over 3 can be), and leaf02 can
    // no longer reach them through spine01 (3, 3, 2 and 0 over four: 1.5x).
    // With the limit at 1.4x, leaf02's busiest uplink is named with its
    // share, and ibroute's dump of leaf02 counts the same host LIDs per uplink.
    ASSERT_EQ(lab.fault({"link-down", "leaf01[9]"}).exit_code, 0);
    ScratchDir scratch("routing");
    const std::string limits =
        scratch.write("t.yaml", "fabscope_thresholds: 1\nrouting: {imbalance: 1.4}\n");
    const std::string snap = scratch.path("after-snapshot.json");
    json after = validate(lab, {"--thresholds", limits, "--snapshot", snap});
    std::printf("after leaf01[9] went down: %s\n", routing_check(after).c_str());
    EXPECT_TRUE(of_kind(after, "route_hole").empty()) << after["findings"].dump(1);
    const auto imbalance = of_kind(after, "route_imbalance");
    ASSERT_EQ(imbalance.size(), 1u) << after["findings"].dump(1);
    const json& f = imbalance[0];
    std::printf("fabscope: %s\n", f["summary"].get<std::string>().c_str());
    EXPECT_EQ(f["where"][0]["node"], "leaf02");
    EXPECT_EQ(f["evidence"]["destinations"], 8);
    EXPECT_NEAR(f["evidence"]["spread"].get<double>(), 1.5, 1e-9);
    std::map<int, int> carried;  // uplink port -> destinations, as fabscope counts them
    for (const json& u : f["evidence"]["uplinks"])
        carried[u["port"].get<int>()] = u["destinations"].get<int>();
    EXPECT_EQ(carried[f["where"][0]["port"].get<int>()], 3) << f.dump(1);
    CmdResult ib = lab.exec({"ibroute", std::to_string(f["where"][0]["lid"].get<int>())});
    ASSERT_EQ(ib.exit_code, 0) << ib.err;
    std::map<int, int> dumped;  // the same from ibroute's lines, per uplink
    std::istringstream lines(ib.out);
    for (std::string line; std::getline(lines, line);) {
        // "0x0011 010 : (Channel Adapter portguid 0x...: 'h0009 HCA-1')"
        if (line.find(" : (Channel Adapter") == std::string::npos) continue;
        const int port = std::stoi(line.substr(7, 3));
        if (carried.count(port)) ++dumped[port];
    }
    std::printf("ibroute of leaf02, host LIDs per uplink:");
    for (auto [port, n] : dumped) std::printf(" [%d] %d", port, n);
    std::printf("\n");
    for (auto [port, n] : carried)
        EXPECT_EQ(dumped[port], n) << "leaf02[" << port << "]\n" << ib.out;

    // The report's balance table of the same snapshot, at the same limit:
    // leaf02 first and marked, every uplink with what ibroute counted.
    CmdResult md = run({fabscope(), "report", snap, "--thresholds", limits, "-f", "md"},
                       std::chrono::seconds(60));
    ASSERT_LT(md.exit_code, 2) << md.err;  // 1 with an error among the findings
    std::printf("%s\n", md.out.substr(md.out.find("### Routing")).c_str());
    const std::string row = "| leaf02 | **imbalanced** | 4 | 8 | 1.50x | ";
    const size_t at = md.out.find(row);
    ASSERT_NE(at, std::string::npos) << md.out;
    EXPECT_LT(at, md.out.find("| leaf01 |")) << md.out;
    const std::string cells = md.out.substr(at, md.out.find('\n', at) - at);
    for (auto [port, n] : dumped)
        EXPECT_NE(cells.find(fmt::format("leaf02\\[{}\\] → ", port)), std::string::npos) << cells;
    for (auto [port, n] : carried) {
        const size_t p = cells.find(fmt::format("leaf02\\[{}\\] → ", port));
        ASSERT_NE(p, std::string::npos) << cells;
        const std::string one = cells.substr(p, cells.find(';', p) - p);
        EXPECT_NE(one.find(fmt::format(": {}", dumped[port])), std::string::npos) << one;
    }
}

}  // namespace
}  // namespace fabscope::labtest
