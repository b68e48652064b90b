// fabscope exporter scraped by a real Prometheus server on the IB lab: after
// `lab fault counter` raises symbol errors on one port, a PromQL query
// through Prometheus' HTTP API finds a positive rate for exactly that port,
// labelled with the name the node-name map gives its switch; promtool
// finds nothing to complain about in a scrape or in `sweep --prom`'s file.

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "../unit/loopback.h"
#include "grafana_shape.h"
#include "lab_harness.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

/// A port nothing listens on now (the kernel's pick; closed again at once).
int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
        port = ntohs(a.sin_port);
    }
    ::close(fd);
    return port;
}

/// A process this test started, stopped by its recorded identity (PID,
/// start time, command line) when the test ends, whichever way it ends.
class Child {
  public:
    explicit Child(SpawnOptions o) {
        auto p = spawn(o);
        if (p) {
            id_ = *p;
        } else {
            ADD_FAILURE() << "cannot start " << o.argv.front() << ": " << p.error().message;
        }
    }
    ~Child() {
        if (id_) stop_process(*id_, 5000ms);
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    bool running() const { return id_ && is_running(*id_); }
    pid_t pid() const { return id_ ? id_->pid : 0; }
    /// SIGTERM, and the exit code once it is gone.
    int stop() {
        if (!id_) return -1;
        ::kill(id_->pid, SIGTERM);
        RunResult r = wait_child(id_->pid, 10000ms);
        id_.reset();
        return r.exit_code;
    }

  private:
    std::optional<ProcessId> id_;
};

/// Polls `f` every 250 ms until it returns true or `limit` passes.
template <class F>
bool eventually(std::chrono::milliseconds limit, F f) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (f()) return true;
        std::this_thread::sleep_for(250ms);
    }
    return f();
}

/// The result vector of an instant PromQL query, or null on any failure.
json query(int prom_port, const std::string& promql) {
    httplib::Client c("127.0.0.1", prom_port);
    c.set_connection_timeout(2, 0);
    c.set_read_timeout(5, 0);
    auto r = c.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
    if (!r || r->status != 200) return nullptr;
    json j = json::parse(r->body, nullptr, false);
    if (j.is_discarded() || j["status"] != "success") return nullptr;
    return j["data"]["result"];
}

std::string promtool_check(const std::string& file) {
    CmdResult r =
        run({"sh", "-c", "promtool check metrics < \"$0\" 2>&1; echo \"exit $?\"", file}, 30s);
    return r.out;
}

/// The first child of `pid` (the command `lab exec` runs), 0 if none.
pid_t child_of(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    pid_t child = 0;
    f >> child;
    return child;
}

/// VmRSS of `pid` in KiB, -1 when it cannot be read.
long rss_kib(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(f, line);) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
}

/// A loopback TCP connection to `port` (-1 if it failed); the caller closes it.
int connect_to(int port) {
    return fabscope::testing::connect_loopback(static_cast<uint16_t>(port));
}

/// A scrape configuration for one exporter, every second.
std::string write_prometheus_config(const std::string& dir, int exporter_port) {
    const std::string config = dir + "/prometheus.yml";
    std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                          << "scrape_configs:\n  - job_name: fabscope\n    static_configs:\n"
                          << "      - targets: ['127.0.0.1:" << exporter_port << "']\n";
    return config;
}

SpawnOptions prometheus_options(const std::string& dir, const std::string& config, int port) {
    SpawnOptions po;
    po.argv = {"/usr/bin/prometheus", "--config.file=" + config,
               "--storage.tsdb.path=" + dir + "/tsdb",
               "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"};
    po.cwd = dir;
    po.stdout_path = dir + "/prometheus.log";
    po.stderr_path = po.stdout_path;
    return po;
}

class PrometheusLab : public ::testing::Test {
  protected:
    void SetUp() override {
        lab_ = std::make_unique<Lab>(
            std::vector<std::string>{"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
        ASSERT_TRUE(lab_->up());
        dir_ = lab_->dir() + "-prom";
        fs::create_directories(dir_);
    }
    void TearDown() override {
        prometheus_.reset();  // both stopped by PID before the lab they read goes
        exporter_.reset();
        lab_.reset();
        fs::remove_all(dir_);
    }
    /// `fabscope exporter --interval 1s` through `lab exec`, and a Prometheus
    /// scraping it every second, both stopped by PID whichever way the test
    /// ends; true once Prometheus holds a complete sweep.
    bool scrape_every_second() {
        exporter_port_ = free_port();
        prom_port_ = free_port();
        if (exporter_port_ <= 0 || prom_port_ <= 0) return false;
        SpawnOptions eo;
        eo.argv = {fabscope(),   "lab",
                   "exec",       "--dir",
                   lab_->dir(),  "--",
                   fabscope(),   "exporter",
                   "--listen",   "127.0.0.1:" + std::to_string(exporter_port_),
                   "--interval", "1s"};
        eo.stdout_path = exporter_log();
        eo.stderr_path = eo.stdout_path;
        exporter_ = std::make_unique<Child>(eo);
        prometheus_ = std::make_unique<Child>(
            prometheus_options(dir_, write_prometheus_config(dir_, exporter_port_), prom_port_));
        return eventually(30s, [&] {
            json r = query(prom_port_, "fabscope_last_sweep_success == 1");
            return r.is_array() && r.size() == 1;
        });
    }
    std::string exporter_log() const { return dir_ + "/exporter.log"; }
    std::string logs() const { return slurp(dir_ + "/prometheus.log") + slurp(exporter_log()); }

    std::unique_ptr<Lab> lab_;
    std::string dir_;
    int exporter_port_ = 0;
    int prom_port_ = 0;
    std::unique_ptr<Child> exporter_;
    std::unique_ptr<Child> prometheus_;
};

TEST_F(PrometheusLab, ARealPrometheusSeesSymbolErrorsRiseOnExactlyThatPort) {
    // The name engineers use for leaf02, by its GUID from a sweep.
    CmdResult sw = lab_->exec({fabscope(), "sweep", "--json", "-q", "--no-routes"});
    ASSERT_EQ(sw.exit_code, 0) << sw.err;
    json snap = json::parse(sw.out);
    std::string leaf_guid;
    for (const auto& n : snap["nodes"]) {
        if (n["description"] == "leaf02") leaf_guid = n["guid"];
    }
    ASSERT_FALSE(leaf_guid.empty());
    const std::string map = dir_ + "/names.map";
    std::ofstream(map) << "# rack names\n" << leaf_guid << " \"rack7-leaf-b\"\n";

    // sweep --prom with the map: the textfile is clean for promtool and uses the name.
    const std::string textfile = dir_ + "/fabscope.prom";
    CmdResult sp = lab_->exec(
        {fabscope(), "--node-name-map", map, "sweep", "-q", "--no-routes", "--prom", textfile});
    ASSERT_EQ(sp.exit_code, 0) << sp.err;
    EXPECT_NE(slurp(textfile).find("node=\"rack7-leaf-b\""), std::string::npos);
    EXPECT_EQ(promtool_check(textfile), "exit 0\n");

    const int exporter_port = free_port();
    const int prom_port = free_port();
    ASSERT_GT(exporter_port, 0);
    ASSERT_GT(prom_port, 0);
    SpawnOptions eo;
    eo.argv = {fabscope(),   "lab",      "exec",     "--dir",
               lab_->dir(),  "--",       fabscope(), "--node-name-map",
               map,          "exporter", "--listen", "127.0.0.1:" + std::to_string(exporter_port),
               "--interval", "1s"};
    eo.stdout_path = dir_ + "/exporter.log";
    eo.stderr_path = eo.stdout_path;
    Child exporter(eo);

    const std::string config = write_prometheus_config(dir_, exporter_port);
    SpawnOptions po = prometheus_options(dir_, config, prom_port);
    Child prometheus(po);

    // Prometheus has scraped a complete sweep of the fabric.
    ASSERT_TRUE(eventually(30s,
                           [&] {
                               json r = query(prom_port, "fabscope_last_sweep_success == 1");
                               return r.is_array() && r.size() == 1;
                           }))
        << slurp(po.stdout_path) << slurp(eo.stdout_path);
    ASSERT_TRUE(eventually(10s, [&] {
        json r = query(prom_port, "count(fabscope_port_symbol_errors_total)");
        return r.is_array() && r.size() == 1;
    }));
    json none = query(prom_port, "rate(fabscope_port_symbol_errors_total[10s]) > 0");
    ASSERT_TRUE(none.is_array());
    EXPECT_EQ(none.size(), 0U) << none.dump();

    ASSERT_EQ(lab_->fault({"counter", "leaf02[3]", "SymbolErrorCounter=50"}).exit_code, 0);
    json rising;
    ASSERT_TRUE(eventually(15s, [&] {
        rising = query(prom_port, "rate(fabscope_port_symbol_errors_total[10s]) > 0");
        return rising.is_array() && !rising.empty();
    })) << slurp(eo.stdout_path);
    ASSERT_EQ(rising.size(), 1U) << rising.dump(1);
    const json& m = rising[0]["metric"];
    EXPECT_EQ(m["node"], "rack7-leaf-b");
    EXPECT_EQ(m["node_guid"], leaf_guid);
    EXPECT_EQ(m["port"], "3");
    EXPECT_EQ(m["peer_node"], "h0007 HCA-1");
    EXPECT_EQ(m["peer_port"], "1");
    EXPECT_GT(std::stod(rising[0]["value"][1].get<std::string>()), 0.0);

    // A scrape of our own: promtool's linter has nothing to say.
    httplib::Client c("127.0.0.1", exporter_port);
    auto scrape = c.Get("/metrics");
    ASSERT_TRUE(scrape);
    EXPECT_EQ(scrape->status, 200);
    EXPECT_EQ(scrape->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    const std::string scraped = dir_ + "/scrape.txt";
    std::ofstream(scraped) << scrape->body;
    EXPECT_EQ(promtool_check(scraped), "exit 0\n") << scrape->body.substr(0, 2000);
    // Scrapes are answered from the last sweep, never start one: fifty of them
    // within a fraction of the 1 s interval see at most one sweep end.
    auto sweeps = [&] {
        auto r = c.Get("/metrics");
        if (!r) return -1L;
        auto at = r->body.find("\nfabscope_sweeps_total ");
        return at == std::string::npos ? -1L : std::stol(r->body.substr(at + 23));
    };
    const long before = sweeps();
    for (int i = 0; i < 48; ++i) ASSERT_TRUE(c.Get("/metrics"));
    const long after = sweeps();
    EXPECT_GE(before, 1);
    EXPECT_LE(after - before, 1) << before << " -> " << after;
    // The port is taken: a second exporter says so and exits 3.
    CmdResult taken = lab_->exec(
        {fabscope(), "exporter", "--listen", "127.0.0.1:" + std::to_string(exporter_port)}, 20s);
    EXPECT_EQ(taken.exit_code, 3) << taken.err;
    EXPECT_NE(taken.err.find("cannot listen"), std::string::npos) << taken.err;
    // Nothing but GET (and HEAD) of / and /metrics.
    auto post = c.Post("/metrics", "x", "text/plain");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, 405);
    auto other = c.Get("/debug");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->status, 404);

    // SIGTERM stops it cleanly, through `lab exec`.
    EXPECT_EQ(exporter.stop(), 0) << slurp(eo.stdout_path);
}

/// The `fabscope_findings{kind,severity} count` samples of a Prometheus text.
std::set<std::string> finding_samples(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("fabscope_findings{", 0) == 0) out.insert(line);
    }
    return out;
}

// One fabric, its master SM frozen (its port claims IsSM and does not answer
// SMInfo): the `.prom` of `sweep --prom` and the exporter's `/metrics` carry
// the same findings, the subnet managers' among them. (The exporter checked
// the subnet managers and `sweep` did not.)
TEST_F(PrometheusLab, SweepPromAndTheExporterCarryTheSameFindings) {
    FrozenSm frozen(*lab_);
    const std::vector<std::string> fast{"-t", "100", "--retries", "1"};
    const std::string textfile = dir_ + "/fabscope.prom";
    std::vector<std::string> sweep{fabscope(), "sweep", "-q", "--no-routes", "--prom", textfile};
    sweep.insert(sweep.end(), fast.begin(), fast.end());
    CmdResult sp = lab_->exec(sweep);
    ASSERT_EQ(sp.exit_code, 0) << sp.err;
    const std::set<std::string> from_sweep = finding_samples(slurp(textfile));

    const int port = free_port();
    ASSERT_GT(port, 0);
    SpawnOptions eo;
    eo.argv = {fabscope(), "lab",      "exec",     "--dir",    lab_->dir(),
               "--",       fabscope(), "exporter", "--listen", "127.0.0.1:" + std::to_string(port)};
    eo.argv.insert(eo.argv.end(), fast.begin(), fast.end());
    eo.stdout_path = exporter_log();
    eo.stderr_path = eo.stdout_path;
    Child exporter(eo);
    httplib::Client c("127.0.0.1", port);
    std::string scraped;
    ASSERT_TRUE(eventually(30s, [&] {
        auto r = c.Get("/metrics");
        scraped = r ? r->body : "";
        return scraped.find("\nfabscope_last_sweep_success 1") != std::string::npos;
    })) << slurp(exporter_log());
    const std::set<std::string> from_exporter = finding_samples(scraped);

    EXPECT_EQ(from_sweep, from_exporter) << slurp(textfile) << "\n----\n" << scraped;
    bool sm_not_answering = false;
    for (const std::string& s : from_exporter) {
        std::printf("%s\n", s.c_str());
        sm_not_answering |= s.find("kind=\"sm_not_answering\"") != std::string::npos;
    }
    EXPECT_TRUE(sm_not_answering) << scraped;
    EXPECT_EQ(exporter.stop(), 0) << slurp(exporter_log());
}

// The exporter as a neighbour would test it: 500 idle sockets, two clients
// trickling a request a byte a second, a flood of oversized heads and 10,000
// scrapes of our own, all while a real Prometheus scrapes every second. Every
// one of its scrapes succeeds, quickly, and the exporter's memory is what it
// was before. (With cpp-httplib's two workers, the two tricklers alone made
// every scrape time out.)
TEST_F(PrometheusLab, ScrapesGoOnThroughIdleSocketsTricklersAndAHeaderFlood) {
    ASSERT_TRUE(scrape_every_second()) << logs();
    const int exporter_port = exporter_port_;
    const int prom_port = prom_port_;
    const pid_t pid = child_of(exporter_->pid());
    ASSERT_GT(pid, 0);
    httplib::Client c("127.0.0.1", exporter_port);
    c.set_keep_alive(true);
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(c.Get("/metrics"));  // allocator warmed up
    const long rss_before = rss_kib(pid);
    const auto attack_start = std::chrono::steady_clock::now();

    std::vector<int> idle;
    for (int i = 0; i < 500; ++i) idle.push_back(connect_to(exporter_port));
    std::atomic<bool> done{false};
    auto trickle = [&] {
        int fd = connect_to(exporter_port);
        const std::string head =
            "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(200, 'a');
        for (size_t i = 0; i < head.size() && !done; ++i) {
            if (::send(fd, head.data() + i, 1, MSG_NOSIGNAL) != 1) {  // cut off: start again
                ::close(fd);
                fd = connect_to(exporter_port);
            }
            std::this_thread::sleep_for(1s);  // the trickle's pace, not a wait
        }
        ::close(fd);
    };
    std::thread t1(trickle), t2(trickle);
    // 1,000 heads of 64 KiB in 1 KiB headers, each until the server hangs up.
    std::thread flood([&] {
        std::string head = "GET /metrics HTTP/1.1\r\n";
        for (int h = 0; h < 64; ++h)
            head += "X-" + std::to_string(h) + ": " + std::string(1024, 'h') + "\r\n";
        for (int i = 0; i < 1000 && !done; ++i) {
            int fd = connect_to(exporter_port);
            (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
            ::close(fd);
        }
    });
    int scraped = 0;
    for (int i = 0; i < 10000; ++i) scraped += static_cast<bool>(c.Get("/metrics"));
    flood.join();
    EXPECT_EQ(scraped, 10000);
    const long rss_after = rss_kib(pid);
    // Prometheus's own view of the attack's window: every scrape up, and quick.
    const auto window = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::steady_clock::now() - attack_start)
                            .count();
    ASSERT_GE(window, 3);
    const std::string range = "[" + std::to_string(window) + "s]";
    json ups = query(prom_port, "count_over_time(up{job=\"fabscope\"}" + range + ")");
    json lowest = query(prom_port, "min_over_time(up{job=\"fabscope\"}" + range + ")");
    json slowest =
        query(prom_port, "max_over_time(scrape_duration_seconds{job=\"fabscope\"}" + range + ")");
    done = true;
    t1.join();
    t2.join();
    for (int fd : idle) ::close(fd);
    ASSERT_TRUE(ups.is_array() && ups.size() == 1) << ups.dump();
    EXPECT_GE(std::stol(ups[0]["value"][1].get<std::string>()), window - 2) << window;
    ASSERT_TRUE(lowest.is_array() && lowest.size() == 1) << lowest.dump();
    EXPECT_EQ(lowest[0]["value"][1], "1");  // not one scrape failed
    ASSERT_TRUE(slowest.is_array() && slowest.size() == 1) << slowest.dump();
    EXPECT_LT(std::stod(slowest[0]["value"][1].get<std::string>()), 0.5);
    // Flat: the attack leaves nothing behind (at most 2 MiB of allocator slack).
    EXPECT_GT(rss_before, 0);
    EXPECT_LT(rss_after - rss_before, 2048) << rss_before << " KiB -> " << rss_after << " KiB";
    std::printf(
        "exporter under attack: %d scrapes of ours, %s of Prometheus's in %lld s, RSS %ld -> %ld "
        "KiB\n",
        scraped, ups[0]["value"][1].get<std::string>().c_str(), static_cast<long long>(window),
        rss_before, rss_after);
    EXPECT_EQ(exporter_->stop(), 0) << logs();
    const std::string log = slurp(exporter_log());
    EXPECT_NE(log.find("to make room"), std::string::npos) << log;
}

// The fabric dashboard of docs/grafana, on the lab with a 1X cable and a
// port counting symbol errors: every query of every panel, run by a real
// Prometheus scraping the exporter, returns data, and the width panel shows
// the 1X port among the 4X ones.
TEST_F(PrometheusLab, EveryPanelOfTheGrafanaDashboardReturnsData) {
    const std::string file =
        std::string(FABSCOPE_SOURCE_DIR) + "/docs/grafana/fabscope-fabric.json";
    const json d = json::parse(slurp(file));
    ASSERT_EQ(dashboard_shape_errors(d), "");
    ASSERT_EQ(lab_->fault({"width", "leaf02[5]", "1x"}).exit_code, 0);
    ASSERT_EQ(lab_->fault({"counter", "leaf03[2]", "SymbolErrorCounter=40"}).exit_code, 0);
    ASSERT_TRUE(scrape_every_second()) << logs();
    size_t queries = 0;
    for (const json& p : d["panels"]) {
        for (const json& t : p["targets"]) {
            const std::string expr = t["expr"];
            json r;
            // Rates want two scrapes of a series: a few seconds at most.
            EXPECT_TRUE(eventually(20s,
                                   [&] {
                                       r = query(prom_port_, expr);
                                       return r.is_array() && !r.empty();
                                   }))
                << p["title"] << ": " << expr << " returned " << r.dump();
            ++queries;
        }
    }
    EXPECT_GE(queries, 10U);
    json widths = query(prom_port_, "count_values(\"lanes\", fabscope_port_link_width_lanes)");
    std::set<std::string> seen;
    for (const json& w : widths) seen.insert(w["metric"]["lanes"].get<std::string>());
    EXPECT_EQ(seen, (std::set<std::string>{"1", "4"})) << widths.dump();
}

}  // namespace
}  // namespace fabscope::labtest
