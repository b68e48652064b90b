// The subnet managers and partitions on the lab's own OpenSM: a standby
// started beside the master and stopped again, the master frozen; a
// partition file that leaves a host out. What fabscope reads is compared
// with sminfo and smpquery pkeys in the same run.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

/// `validate --json` with `extra`, its report checked against the schema.
json sm_validate(const Lab& lab, const std::vector<std::string>& extra, int* code = nullptr) {
    std::vector<std::string> argv{fabscope(), "validate", "--interval", "0", "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    CmdResult r = lab.exec(argv);
    if (code) *code = r.exit_code;
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "validation.schema.json"))
        ADD_FAILURE() << "validate --json: " << e;
    return json::parse(r.out.empty() ? "{}" : r.out);
}

std::vector<json> findings_of(const json& report, const std::string& prefix) {
    std::vector<json> out;
    for (const json& f : report["findings"])
        if (f["kind"].get<std::string>().rfind(prefix, 0) == 0) out.push_back(f);
    return out;
}

std::string check_detail(const json& report, const std::string& id) {
    for (const json& c : report["check_list"])
        if (c["id"] == id) return c["detail"];
    return "(no check " + id + ")";
}

/// sminfo's "sm lid 1 sm guid 0x100001, activity count 118 priority 0 state 3 SMINFO_MASTER".
struct SmInfoLine {
    std::string guid;
    long act = -1;
    int priority = -1;
    int state = -1;
};
SmInfoLine parse_sminfo(const std::string& text) {
    std::smatch m;
    static const std::regex re(
        R"(sm guid (0x[0-9a-f]+), activity count (\d+) priority (\d+) state (\d+))");
    SmInfoLine s;
    if (std::regex_search(text, m, re)) {
        s.guid = m[1];
        s.act = std::stol(m[2]);
        s.priority = std::stoi(m[3]);
        s.state = std::stoi(m[4]);
    }
    return s;
}

TEST(SmLab, AStandbyAsSminfoSeesItThenStoppedThenTheMasterFrozen) {
    Lab lab({"--spines", "1", "--leaves", "2", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    CmdResult started =
        run({fabscope(), "lab", "sm", "start", "--dir", lab.dir(), "--on", "h0005"});
    ASSERT_EQ(started.exit_code, 0) << started.err;
    EXPECT_NE(started.err.find("STANDBY"), std::string::npos) << started.err;
    ScratchDir scratch("sm");
    const std::string plan = scratch.write("plan.yaml", "fabscope_plan: 1\nsm: {standby: 1}\n");
    const std::string snap = scratch.path("snap.json");

    json good = sm_validate(lab, {"--plan", plan, "--snapshot", snap});
    std::printf("subnet_manager check: %s\n", check_detail(good, "subnet_manager").c_str());
    EXPECT_TRUE(findings_of(good, "sm_").empty()) << good["findings"].dump(1);
    // What fabscope read equals what sminfo reads, for the master and the standby.
    json s = json::parse(slurp(snap));
    std::map<std::string, json> sms;  // node -> its port's sm
    for (const json& n : s["nodes"])
        for (const json& p : n["ports"])
            if (p.contains("sm")) {
                json& sm = sms[n["description"]] = p["sm"];
                sm["lid"] = p["lid"];
            }
    ASSERT_EQ(sms.size(), 2u) << s["nodes"].dump();
    for (const auto& [node, sm] : sms) {
        CmdResult r = lab.exec({"sminfo", std::to_string(sm["lid"].get<int>())});
        SmInfoLine peer = parse_sminfo(r.out);
        std::printf("%s: fabscope %s, act %ld, priority %d | sminfo: %s", node.c_str(),
                    sm["state"].get<std::string>().c_str(), sm["act_count"].get<long>(),
                    sm["priority"].get<int>(), r.out.c_str());
        EXPECT_EQ(peer.guid,
                  fmt::format("{:#x}", std::stoull(sm["guid"].get<std::string>(), nullptr, 16)));
        EXPECT_EQ(peer.priority, sm["priority"].get<int>());
        EXPECT_EQ(peer.state, sm["state"] == "master" ? 3 : 2) << node;
        // Read later, and the SM counts the answers: at least fabscope's figure.
        EXPECT_GE(peer.act, sm["act_count"].get<long>());
        EXPECT_EQ(sm["state"] == "master", node == "h0001 HCA-1");
    }

    ASSERT_EQ(run({fabscope(), "lab", "sm", "stop", "--dir", lab.dir(), "--on", "h0005"}).exit_code,
              0);
    int code = -1;
    json lost = sm_validate(lab, {"--plan", plan}, &code);
    auto missing = findings_of(lost, "sm_");
    ASSERT_EQ(missing.size(), 1u) << lost["findings"].dump(1);
    std::printf("after the standby stopped: %s\n",
                missing[0]["summary"].get<std::string>().c_str());
    EXPECT_EQ(missing[0]["kind"], "sm_standby_missing");
    EXPECT_EQ(code, 1);

    // The master frozen (SIGSTOP): it still claims IsSM and no longer answers.
    json frozen;
    {
        FrozenSm stop(lab);
        frozen = sm_validate(lab, {"--plan", plan, "-t", "100", "--retries", "1"}, &code);
    }
    std::set<std::string> kinds;
    for (const json& f : findings_of(frozen, "sm_")) {
        kinds.insert(f["kind"]);
        std::printf("frozen master: %s\n", f["summary"].get<std::string>().c_str());
    }
    EXPECT_EQ(kinds,
              (std::set<std::string>{"sm_no_master", "sm_not_answering", "sm_standby_missing"}))
        << frozen["findings"].dump(1);
    EXPECT_EQ(code, 1);
}

/// Port GUID and LID of each host, from a sweep's snapshot.
std::map<std::string, std::pair<std::string, int>> partition_host_ports(const Lab& lab,
                                                                        const ScratchDir& scratch) {
    const std::string out = scratch.path("hosts.json");
    CmdResult r = lab.exec({fabscope(), "sweep", "--no-counters", "--no-routes", "-q", "-o", out});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::pair<std::string, int>> hosts;
    json s = json::parse(slurp(out));
    for (const json& n : s["nodes"]) {
        if (n["type"] != "CA") continue;
        const json& p = n["ports"][0];
        hosts[n["description"].get<std::string>().substr(0, 5)] = {p["guid"], p["lid"]};
    }
    return hosts;
}

/// smpquery pkeys' entries: "   0: 0xffff 0x8001 0x0000 ..." lines, the zeros left out.
std::vector<std::string> parse_pkeys(const std::string& text) {
    std::vector<std::string> keys;
    static const std::regex re("0x([0-9a-f]{4})");
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
        if ((*it)[1] != "0000") keys.push_back("0x" + (*it)[1].str());
    return keys;
}

TEST(SmLab, AHostLeftOutOfItsPartitionAsSmpqueryPkeysSays) {
    Lab lab({"--spines", "1", "--leaves", "2", "--hosts-per-leaf", "2"});
    ASSERT_TRUE(lab.up());
    ScratchDir scratch("partitions");
    auto hosts = partition_host_ports(lab, scratch);
    ASSERT_EQ(hosts.size(), 4u);
    // h0003 is left out of compute; h0002 is a limited member.
    const std::string conf =
        scratch.write("partitions.conf", fmt::format("Default=0x7fff, ipoib : ALL=full ;\n"
                                                     "compute=0x0001 : {}=full, {}=limited ;\n",
                                                     hosts["h0001"].first, hosts["h0002"].first));
    CmdResult applied = run({fabscope(), "lab", "partitions", "--dir", lab.dir(), conf});
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
    const std::string plan =
        scratch.write("plan.yaml",
                      "fabscope_plan: 1\npartitions:\n"
                      "  - {name: compute, pkey: 0x0001, full: [h0001, h0003], limited: [h0002]}\n"
                      "  - {name: default, pkey: 0x7fff, full: [ALL]}\n");
    const std::string snap = scratch.path("snap.json");
    int code = -1;
    json report = sm_validate(lab, {"--plan", plan, "--snapshot", snap}, &code);
    std::printf("partitions check: %s\n", check_detail(report, "partitions").c_str());
    auto found = findings_of(report, "partition_");
    for (const json& f : found)
        std::printf("fabscope: %s\n", f["summary"].get<std::string>().c_str());
    ASSERT_EQ(found.size(), 1u) << report["findings"].dump(1);
    EXPECT_EQ(found[0]["kind"], "partition_missing");
    EXPECT_EQ(found[0]["where"][0]["node"], "h0003 HCA-1");
    EXPECT_EQ(found[0]["evidence"]["pkey"], "0x0001");
    EXPECT_EQ(code, 1);

    // Every host's table as fabscope read it equals smpquery's.
    json s = json::parse(slurp(snap));
    for (const json& n : s["nodes"]) {
        if (n["type"] != "CA") continue;
        const json& p = n["ports"][0];
        ASSERT_TRUE(p.contains("pkeys")) << n["description"];
        CmdResult q = lab.exec({"smpquery", "pkeys", std::to_string(p["lid"].get<int>())});
        ASSERT_EQ(q.exit_code, 0) << q.err;
        auto peer = parse_pkeys(q.out);
        std::printf("%s: fabscope %s | smpquery %s\n", n["description"].get<std::string>().c_str(),
                    p["pkeys"].dump().c_str(), json(peer).dump().c_str());
        EXPECT_EQ(p["pkeys"].get<std::vector<std::string>>(), peer) << n["description"];
    }
}

}  // namespace
}  // namespace fabscope::labtest
