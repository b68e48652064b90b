// The TUI on a mesh run's report (the pair view: its matrix as shares of the
// median, its top suspects) and on a congestion report (the congestion view:
// trees root first, the hottest ports, the findings, and the ports waiting
// between the readings), drawn as --dump draws them; golden frames in
// tests/fixtures/tui (UPDATE_GOLDEN=1 rewrites them, failing).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "congestion/congestion_report.h"
#include "exporter/http_server.h"
#include "model/json_io.h"
#include "model/thresholds.h"
#include "test_fabrics.h"
#include "tui/dump.h"
#include "tui/keys.h"
#include "tui/perf_files.h"
#include "tui/views.h"
#include "tui_scenario.h"
#include "util/exit_status.h"
#include "xmit_wait_readings.h"

namespace fabscope::tui {
namespace {

namespace fs = std::filesystem;

const std::string kCable = "l1[10.9.12.0] <-> s2[10.9.12.1]";

std::string fixture(const std::string& name) {
    return std::string(FIXTURES_DIR) + "/report/" + name;
}

MeshRunDoc mesh_fixture(const std::string& name) {
    auto d = json_io::load_file(fixture(name), mesh_run_doc_from_json);
    if (!d) throw std::runtime_error(d.error().message);
    return std::move(d).value();
}

/// spine01[3] waits toward leaf03, leaf03[2] toward its host: one tree,
/// rooted at leaf03[2], as `fabscope congestion --json` writes it.
CongestionDoc congestion_fixture() {
    std::vector<Node> nodes = fabscope::testing::leaf_spine_nodes({});
    fabscope::testing::add_dmodk_routes(nodes);
    fabscope::testing::XmitWaitReadings t(Fabric::build(std::move(nodes)).value());
    t.wait("spine01", 3, fabscope::testing::kTenPercent);
    t.wait("leaf03", 2, 2 * fabscope::testing::kTenPercent);
    Thresholds th = default_thresholds();
    CongestionResult r = analyse_congestion(t.f, t.before, t.after, true, th);
    nlohmann::json j = congestion_to_json(
        t.f, r, {"2026-12-01T13:00:00Z", "ibsim0 port 1", 1, false, th.xmit_wait});
    auto d = congestion_doc_from_json(j);
    if (!d) throw std::runtime_error(d.error().message);
    return std::move(d).value();
}

std::string frame_text(const TuiData& d, ViewState s, int w, int h) {
    Canvas c(w, h);
    draw_frame(&d, s, c, FrameInfo{fabscope::testing::kSecondReadingMs + 3000, false, 0});
    return c.to_text();
}

void expect_golden(const std::string& name, const std::string& actual) {
    const fs::path path = fs::path(FIXTURES_DIR) / "tui" / (name + ".txt");
    if (std::getenv("UPDATE_GOLDEN")) {
        std::ofstream(path) << actual;
        ADD_FAILURE() << "UPDATE_GOLDEN is set: rewrote " << path;
        return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing; create it with UPDATE_GOLDEN=1";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(want.str(), actual) << name << " differs from " << path;
}

std::shared_ptr<const TuiData> with_runs() {
    BuilderConfig cfg;
    cfg.perf = fabscope::testing::scenario_perf();
    cfg.perf_names = {"h0001.json", "h0005.json"};
    cfg.mesh = {mesh_fixture("mesh-cable.json")};
    cfg.congestion = std::make_shared<const CongestionDoc>(congestion_fixture());
    cfg.congestion_name = "congestion.json";
    return fabscope::testing::tui_scenario_with(std::move(cfg));
}

TEST(TuiMesh, ThePairViewShowsTheMeshFirstWithItsTopSuspect) {
    auto d = with_runs();
    ASSERT_EQ(d->pairs.grids.size(), 2u);  // the mesh, then perf run's write_bw
    const PairGrid& g = d->pairs.grids.front();
    EXPECT_TRUE(g.of_median);
    EXPECT_EQ(g.rows.size(), 6u);  // the hosts of the cover's flows, not all 9 ranks
    ASSERT_FALSE(g.suspects.empty());
    EXPECT_EQ(g.suspects.front().rfind("cable " + kCable + " (both ways): ", 0), 0u)
        << g.suspects.front();
    ViewState s;
    s.view = ViewId::Pairs;
    const std::string text = frame_text(*d, s, 100, 32);
    EXPECT_NE(text.find("cells: % of the median"), std::string::npos) << text;
    EXPECT_NE(text.find("1 cable " + kCable), std::string::npos) << text;
    expect_golden("pairs-mesh-100x32", text);
    // t: the perf runs' grid, as before.
    apply_key(s, 't');
    EXPECT_NE(frame_text(*d, s, 100, 32).find("cells: % of the best pair"), std::string::npos);
    // The suspect is a finding, an error, with its flows as evidence.
    auto row = std::find_if(d->findings.begin(), d->findings.end(),
                            [](const FindingRow& r) { return r.kind == "perf_mesh_suspect"; });
    ASSERT_NE(row, d->findings.end());
    EXPECT_EQ(row->severity, Severity::Error);
    EXPECT_NE(row->evidence.find("\"slow\""), std::string::npos);
}

/// The top suspect's evidence is under it: what its slow flows' ends and
/// its switch ports counted, as the report's finding says it.
TEST(TuiMesh, TheTopSuspectCarriesWhatItsEndsAndSwitchPortsCounted) {
    MeshRunDoc mesh = mesh_fixture("mesh-cable.json");
    ASSERT_FALSE(mesh.suspects.empty());
    MeshSuspectDoc& top = mesh.suspects.front();
    top.counted = {{"duplicate_request", 30}, {"completer_retry_err", 12}};
    top.switch_counted = "its switch ports counted s2[10.9.12.1] (receiving) PortRcvErrors +12";
    BuilderConfig cfg;
    cfg.mesh = {mesh};
    auto d = fabscope::testing::tui_scenario_with(std::move(cfg));
    const PairGrid& g = d->pairs.grids.front();
    EXPECT_EQ(g.top_evidence, suspect_counted_phrases(top));
    ViewState s;
    s.view = ViewId::Pairs;
    const std::string text = frame_text(*d, s, 120, 32);
    const size_t suspect = text.find("1 cable " + kCable);
    const size_t ends =
        text.find("  its slow flows' ends counted duplicate_request +30, completer_retry_err +12");
    const size_t ports = text.find("  its switch ports counted s2[10.9.12.1] (receiving)");
    ASSERT_NE(suspect, std::string::npos) << text;
    ASSERT_NE(ends, std::string::npos) << text;
    ASSERT_NE(ports, std::string::npos) << text;
    EXPECT_LT(suspect, ends);
    EXPECT_LT(ends, ports);
}

TEST(TuiMesh, ARingRunShowsItsBusBandwidthAndWhatItsSlowEdgesCost) {
    BuilderConfig cfg;
    cfg.mesh = {mesh_fixture("ring-cable.json")};
    auto d = fabscope::testing::tui_scenario_with(std::move(cfg));
    const PairGrid& g = d->pairs.grids.front();
    ASSERT_EQ(g.ring.size(), 3u);
    EXPECT_TRUE(g.ring_costly);
    EXPECT_EQ(g.note.rfind("ring run complete, 6 ranks", 0), 0u) << g.note;
    ViewState s;
    s.view = ViewId::Pairs;
    const std::string text = frame_text(*d, s, 200, 40);
    const size_t busbw = text.find("ring all-reduce of 1M over 6 ranks (rank order): busbw");
    const size_t edge = text.find("slowest edge c2 → a1");
    const size_t cable = text.find("all cross l1[10.9.11.0] <-> s1[10.9.11.1]");
    ASSERT_NE(busbw, std::string::npos) << text;
    ASSERT_NE(edge, std::string::npos) << text;
    EXPECT_NE(cable, std::string::npos) << text;
    EXPECT_LT(busbw, edge);
    EXPECT_LT(edge, text.find("Suspects"));
}

/// Probe agents' /probe.json (saved in the Soft-RoCE lab while b1's link lost
/// 1 %: tests/lab/probe_vm_test.cpp) given to --perf: one grid, agents as
/// rows, b1's lost probes red, the agents' findings under it, errors first.
TEST(TuiProbes, TheAgentsGridShowsLostProbesAndTheirFindings) {
    const std::string dir = std::string(FIXTURES_DIR) + "/probe/";
    PerfFiles files({dir + "a1.json", dir + "b1.json", dir + "b2.json"});
    auto in = files.load_all();
    ASSERT_TRUE(in) << in.error().message;
    ASSERT_EQ(in->probes.size(), 3u);
    BuilderConfig cfg;
    cfg.probes = in->probes;
    auto d = fabscope::testing::tui_scenario_with(std::move(cfg));
    const PairGrid& g = d->pairs.grids.front();
    ASSERT_TRUE(g.probes);
    EXPECT_EQ(g.rows, (std::vector<std::string>{"a1", "b1", "b2"}));
    EXPECT_EQ(g.cols, (std::vector<std::string>{"a1", "a2", "b1", "b2", "c1", "c2"}));
    // b1 lost probes to every peer; a1 and b2 to b1 only (if any).
    for (size_t c = 0; c < g.cols.size(); ++c) {
        const PairCell& cell = g.cell(1, c);
        if (g.cols[c] == "b1") {
            EXPECT_FALSE(cell.measured);
            continue;
        }
        EXPECT_TRUE(cell.measured) << g.cols[c];
        EXPECT_NE(cell.error.find("probes"), std::string::npos) << cell.error;
    }
    ASSERT_FALSE(g.suspects.empty());
    EXPECT_EQ(g.suspects.front().rfind("b1: probes to ", 0), 0u) << g.suspects.front();
    ViewState s;
    s.view = ViewId::Pairs;
    const std::string text = frame_text(*d, s, 200, 40);
    EXPECT_NE(text.find("probes p99"), std::string::npos) << text;
    EXPECT_NE(text.find("Findings ("), std::string::npos) << text;
    EXPECT_NE(text.find("3 agents, interval"), std::string::npos) << text;
    // The findings view has them too, at their agent.
    bool row = false;
    for (const FindingRow& r : d->findings)
        row =
            row || (r.kind == "perf_probe-host-loss" && r.where == std::vector<std::string>{"b1"});
    EXPECT_TRUE(row);
}

/// Live from an agent: --perf http://HOST:PORT/probe.json is fetched (here
/// from the exporter's HTTP server on loopback, serving a saved state); an
/// agent that does not answer, or serves something else, is an error naming
/// the URL.
TEST(TuiProbes, AnAgentsStateIsFetchedLiveFromItsUrl) {
    std::ifstream in(std::string(FIXTURES_DIR) + "/probe/b1.json");
    std::stringstream text;
    text << in.rdbuf();
    auto body = std::make_shared<const std::string>(text.str());
    auto server = HttpServer::bind({"127.0.0.1", 0}, HttpLimits{});
    ASSERT_TRUE(server) << server.error().message;
    StopToken stop;
    std::thread serving([&] {
        (void)(*server)->serve(
            [&](const HttpRequest& r) {
                if (r.path != "/probe.json") return text_response(404, "no\n");
                HttpResponse res;
                res.content_type = "application/json";
                res.body = body;
                return res;
            },
            stop);
    });
    const std::string base = "http://127.0.0.1:" + std::to_string((*server)->port());
    PerfFiles live({base + "/probe.json"});
    auto got = live.load_all();
    ASSERT_TRUE(got) << got.error().message;
    ASSERT_EQ(got->probes.size(), 1u);
    EXPECT_EQ(got->probes[0].host, "b1");
    EXPECT_EQ(got->probes[0].peers.size(), 5u);
    auto wrong = PerfFiles({base + "/metrics"}).load_all();
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().message, base + "/metrics: HTTP 404");
    stop.request_stop();
    serving.join();
    auto gone = PerfFiles({base + "/probe.json"}).load_all();
    ASSERT_FALSE(gone);
    EXPECT_EQ(gone.error().code, kExitCannotRun);
    EXPECT_NE(gone.error().message.find("is `fabscope probe --listen` serving there?"),
              std::string::npos)
        << gone.error().message;
}

/// A probe agent's state that is not what an agent serves: an error naming
/// the file and the JSON path, nothing half read.
TEST(TuiProbes, ABadAgentStateNamesTheFileAndThePath) {
    const fs::path dir = fs::temp_directory_path() / ("tui-probe-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string bad = (dir / "bad.json").string();
    std::ofstream(bad) << R"({"tool": "fabscope probe", "host": "b1", "leaf": "l2", "interval": 3,
        "interval_s": 2, "window": 3, "peers": [{"name": "a1", "sent": 10, "answered": 9,
        "lost": 1, "loss_ratio": 7}], "findings": []})";
    auto r = PerfFiles({bad}).load_all();
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("/peers/0/loss_ratio"), std::string::npos)
        << r.error().message;
    fs::remove_all(dir);
}

/// nccl-tests' outputs given to --perf: read by their header, judged as
/// `report` judges them (the thresholds file's collective.busbw_gbps), their
/// findings in the findings view.
TEST(TuiCollective, NcclTestsOutputsGivenToPerfAreJudgedInTheFindingsView) {
    const std::string nccl = std::string(FIXTURES_DIR) + "/nccl/";
    PerfFiles files({nccl + "all_reduce_perf-slow.txt", nccl + "all_reduce_perf-wrong.txt",
                     fixture("perf-h0001.json")});
    auto in = files.load_all();
    ASSERT_TRUE(in) << in.error().message;
    ASSERT_EQ(in->collectives.size(), 2u);
    EXPECT_EQ(in->reports.size(), 1u);
    auto kinds = [](const TuiData& d) {
        std::vector<std::string> k;
        for (const FindingRow& r : d.findings)
            if (r.kind.rfind("perf_collective_", 0) == 0) k.push_back(r.kind);
        return k;
    };
    BuilderConfig judged;
    judged.thresholds.collective.busbw_gbps = 180;
    judged.collectives = in->collectives;
    auto d = fabscope::testing::tui_scenario_with(std::move(judged));
    const std::vector<std::string> both = kinds(*d);
    EXPECT_EQ(std::count(both.begin(), both.end(), "perf_collective_busbw_low"), 1) << both.size();
    EXPECT_EQ(std::count(both.begin(), both.end(), "perf_collective_wrong"), 1) << both.size();
    for (const FindingRow& r : d->findings) {
        if (r.kind.rfind("perf_collective_", 0) == 0) {
            EXPECT_EQ(r.severity, Severity::Error) << r.kind;
        }
    }
    // Without an expectation the bandwidth is not judged; a wrong result still is.
    BuilderConfig unjudged;
    unjudged.collectives = in->collectives;
    EXPECT_EQ(kinds(*fabscope::testing::tui_scenario_with(std::move(unjudged))),
              std::vector<std::string>{"perf_collective_wrong"});
    // A cut output is exit 2 naming the file, as in `report`.
    const std::string cut = ::testing::TempDir() + "tui-cut-nccl.txt";
    {
        std::ifstream whole(nccl + "all_reduce_perf-healthy.txt");
        std::ofstream out(cut);
        std::string line;
        for (int i = 0; i < 30 && std::getline(whole, line); ++i) out << line << "\n";
        out << "        4096  1024  float  sum  -1  12.5\n";
    }
    auto bad = PerfFiles({cut}).load_all();
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, 2);
    EXPECT_NE(bad.error().message.find("tui-cut-nccl.txt:31"), std::string::npos)
        << bad.error().message;
}

TEST(TuiMesh, PerfFilesTellAMeshReportFromAPerfReport) {
    PerfFiles files({fixture("perf-h0001.json"), fixture("mesh-host.json")});
    auto in = files.load_all();
    ASSERT_TRUE(in) << in.error().message;
    EXPECT_EQ(in->reports.size(), 1u);
    EXPECT_EQ(in->names, std::vector<std::string>{fixture("perf-h0001.json")});
    ASSERT_EQ(in->mesh.size(), 1u);
    EXPECT_EQ(in->mesh[0].suspects.front().name, "h3 (receiving)");

    nlohmann::json bad = json_io::read_json_file(fixture("mesh-host.json")).value();
    bad["flows"][2]["dst"] = 40;
    const std::string path = ::testing::TempDir() + "tui-bad-mesh.json";
    std::ofstream(path) << bad.dump();
    auto err = PerfFiles({path}).load_all();
    ASSERT_FALSE(err);
    EXPECT_EQ(err.error().code, 2);
    EXPECT_EQ(err.error().message.rfind(path + ": /flows/2/dst", 0), 0u) << err.error().message;
}

TEST(TuiCongestion, TreesRootFirstThenTheHottestPortsThenTheReadings) {
    auto d = with_runs();
    ViewState s;
    ASSERT_EQ(apply_key(s, '6'), Command::Redraw);
    EXPECT_EQ(s.view, ViewId::Congestion);
    const std::string text = frame_text(*d, s, 100, 32);
    const size_t root = text.find("◆ root leaf03[2]");
    const size_t victim = text.find("▲ victim spine01[3]");
    const size_t hottest = text.find("Hottest ports");
    const size_t live = text.find("Waiting now");
    ASSERT_NE(root, std::string::npos) << text;
    ASSERT_NE(victim, std::string::npos) << text;
    EXPECT_LT(root, victim);
    EXPECT_LT(victim, hottest);
    EXPECT_LT(hottest, live);
    // leaf01[5] waited between the scenario's two readings.
    EXPECT_NE(text.find("leaf01[5]", live), std::string::npos) << text;
    expect_golden("congestion-100x32", text);
    // The congestion report's findings join the findings view.
    EXPECT_TRUE(std::any_of(d->findings.begin(), d->findings.end(),
                            [](const FindingRow& r) { return r.kind == "congestion_root"; }));
}

TEST(TuiCongestion, WithoutAReportOrRatesItSaysWhatToGive) {
    auto d = fabscope::testing::tui_large(1, 1, 1);  // one reading: no rates
    ViewState s;
    s.view = ViewId::Congestion;
    auto one = std::make_shared<TuiData>(*d);
    one->history = nullptr;
    EXPECT_NE(frame_text(*one, s, 100, 32).find("No congestion data."), std::string::npos);
    auto views = parse_dump_views("congestion");
    ASSERT_TRUE(views);
    EXPECT_EQ(views->front().second, ViewId::Congestion);
    EXPECT_EQ(parse_dump_views("all")->size(), kViewCount);
}

}  // namespace
}  // namespace fabscope::tui
