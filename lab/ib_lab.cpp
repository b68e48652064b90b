#include "lab/ib_lab.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "lab/sim_console.h"
#include "model/fabric.h"
#include "model/json_io.h"
#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/time_util.h"

namespace fabscope {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

bool file_contains(const std::string& path, std::string_view needle) {
    return lab_file_text(path).find(needle) != std::string::npos;
}

std::string tail(const std::string& text, size_t lines) {
    size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n')) --pos;
    size_t end = pos;
    for (size_t n = 0; pos > 0 && n < lines; --pos) {
        if (text[pos - 1] == '\n' && ++n == lines) break;
    }
    return text.substr(pos, end - pos);
}

json process_json(const ProcessId& p) {
    return {{"pid", p.pid}, {"start_time", p.start_time}, {"cmdline", p.cmdline}};
}
ProcessId process_from(const json& j) {
    return ProcessId{static_cast<pid_t>(j.value("pid", 0)), j.value("start_time", 0ULL),
                     j.value("cmdline", std::string())};
}

}  // namespace

std::string lab_file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Status lab_wait_for(const std::function<bool()>& pred, const std::function<bool()>& alive,
                    std::chrono::seconds timeout, const std::string& what_failed,
                    const std::string& what_timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
        if (!alive()) return make_error(what_failed, kExitCannotRun);
        if (std::chrono::steady_clock::now() >= deadline)
            return make_error(what_timeout, kExitCannotRun);
        std::this_thread::sleep_for(milliseconds(50));
    }
    return Ok{};
}

Status save_lab_state(const LabState& s) {
    json swaps = json::array();
    for (const CableSwap& c : s.swaps) swaps.push_back({{"a", c.a}, {"b", c.b}});
    json j{{"format", "fabscope-lab"},
           {"dir", s.dir},
           {"created_dir", s.created_dir},
           {"sockname", s.sockname},
           {"net_file", s.net_file},
           {"created", s.created},
           {"subnet_up_s", s.subnet_up_s},
           {"stats",
            {{"switches", s.stats.switches},
             {"cas", s.stats.cas},
             {"routers", s.stats.routers},
             {"ports", s.stats.ports}}},
           {"processes",
            {{"ibsim", process_json(s.ibsim)},
             {"opensm", process_json(s.opensm)},
             {"supervisor", process_json(s.supervisor)}}},
           {"swaps", swaps}};
    if (s.sm_dump) j["sm_dump"] = true;
    if (!s.routing_engine.empty()) j["routing_engine"] = s.routing_engine;
    if (!s.root_guids.empty()) {
        json roots = json::array();
        for (uint64_t g : s.root_guids) roots.push_back(format_guid(g));
        j["root_guids"] = std::move(roots);
    }
    if (!s.extra_sms.empty()) {
        json extra = json::array();
        for (const LabSm& x : s.extra_sms) {
            json e = process_json(x.process);
            e["node"] = x.node;
            e["priority"] = x.priority;
            extra.push_back(std::move(e));
        }
        j["processes"]["extra_sms"] = std::move(extra);
    }
    if (s.planes > 1) {
        j["planes"] = s.planes;
        json sms = json::array();
        for (const ProcessId& p : s.plane_sms) sms.push_back(process_json(p));
        j["processes"]["plane_sms"] = std::move(sms);
    }
    return json_io::write_json_file(j, s.dir + "/state.json");
}

namespace {

std::string sockname_for(const std::string& dir) {
    return fmt::format("fabscope-{:016x}", std::hash<std::string>{}(dir));
}

// Table sizes for the simulator: its defaults (2048 nodes, 256 switches,
// 13312 ports) are too small for the larger labs.
std::vector<std::string> ibsim_size_args(const NetFileStats& st) {
    auto room = [](int need, int dflt) {
        return std::to_string(std::max(dflt, need + need / 4 + 16));
    };
    return {"-N", room(st.nodes(), 2048), "-S", room(st.switches, 256),
            "-P", room(st.ports, 13312)};
}

void stop_all(const LabState& s) {
    for (const LabSm& x : s.extra_sms) {
        if (x.process.pid > 0) stop_process(x.process, milliseconds(3000));
    }
    for (const ProcessId& p : s.plane_sms) {
        if (p.pid > 0) stop_process(p, milliseconds(3000));
    }
    for (const ProcessId* p : {&s.opensm, &s.ibsim, &s.supervisor}) {
        if (p->pid > 0) stop_process(*p, milliseconds(3000));
    }
}

// OpenSM for one plane. Plane 1 keeps the one-plane lab's files (osm/,
// opensm.out); plane k > 1 has its own under osm/plane<k>/, its own subnet
// prefix, and is bound to its plane's first host HCA (SIM_HOST, opensm -g).
// force_link_* 0: the SM must not rewrite LinkWidth/SpeedEnabled, or every
// sweep would "repair" a degraded link injected by `lab fault`.
Result<ProcessId> start_sm(const LabState& s, int plane) {
    SmLaunch how;
    how.dir = plane == 1 ? s.dir + "/osm" : fmt::format("{}/osm/plane{}", s.dir, plane);
    how.out = plane == 1 ? s.dir + "/opensm.out" : how.dir + "/opensm.out";
    if (plane > 1) how.subnet_prefix = 0xfe80000000000000ULL + static_cast<uint64_t>(plane);
    if (s.planes > 1) {
        how.attach = plane_attach_node(plane);
        how.port_guid = plane_sm_port_guid(plane);
    }
    return start_opensm(s, how);
}

}  // namespace

std::string lab_partitions_file(const LabState& s) {
    return s.dir + "/osm/partitions.conf";
}

Result<ProcessId> start_opensm(const LabState& s, const SmLaunch& how) {
    std::error_code ec;
    fs::create_directories(how.dir, ec);
    {
        std::ofstream conf(how.dir + "/opensm.conf");
        conf << "force_log_flush TRUE\n"
             << "log_file " << how.dir << "/opensm.log\n"
             << "dump_files_dir " << how.dir << "\n"
             << "force_link_width 0\nforce_link_speed 0\nforce_link_speed_ext 0\n"
             // Absent until `lab partitions`: OpenSM then keeps the default partition.
             << "partition_config_file " << lab_partitions_file(s) << "\n";
        // Errors, info and routing: the routing flag makes OpenSM write
        // opensm-subnet.lst and opensm.fdbs into dump_files_dir (ibdmchk's input).
        if (s.sm_dump) conf << "log_flags 0x43\n";
        if (!s.routing_engine.empty()) conf << "routing_engine " << s.routing_engine << "\n";
        if (!s.root_guids.empty()) {
            const std::string roots = how.dir + "/root_guids";
            std::ofstream r(roots);
            for (uint64_t g : s.root_guids) r << fmt::format("{:#018x}\n", g);
            conf << "root_guid_file " << roots << "\n";
        }
        if (how.subnet_prefix != 0)
            conf << fmt::format("subnet_prefix {:#018x}\n", how.subnet_prefix);
        if (how.priority >= 0) conf << "sm_priority " << how.priority << "\n";
    }
    auto env = lab_client_env(s);
    env["IBSIM_SOCKNAME"] =
        s.sockname;  // the SM talks to the simulator directly, not through the relay
    env["OSM_TMP_DIR"] = how.dir;
    env["OSM_CACHE_DIR"] = how.dir;
    std::vector<std::string> argv{"opensm", "-F", how.dir + "/opensm.conf"};
    if (!how.attach.empty()) env["SIM_HOST"] = how.attach;
    if (how.port_guid != 0) {
        argv.push_back("-g");
        argv.push_back(fmt::format("{:#018x}", how.port_guid));
    }
    auto sm = spawn({.argv = argv,
                     .env = env,
                     .cwd = s.dir,
                     .stdout_path = how.out,
                     .stderr_path = how.out,
                     .new_session = true});
    if (!sm) {
        return make_error(
            fmt::format("cannot start OpenSM: {} (install opensm)", sm.error().message),
            kExitCannotRun);
    }
    return *sm;
}

namespace {

std::string sm_log(const LabState& s, int plane) {
    return plane == 1 ? s.dir + "/osm/opensm.log"
                      : fmt::format("{}/osm/plane{}/opensm.log", s.dir, plane);
}
std::string sm_out(const LabState& s, int plane) {
    return plane == 1 ? s.dir + "/opensm.out"
                      : fmt::format("{}/osm/plane{}/opensm.out", s.dir, plane);
}

pid_t g_forward_to = 0;

void forward_signal(int sig, siginfo_t* info, void*) {
    // A terminal's Ctrl-C already reaches the child (same process group);
    // a signal sent to us alone (kill, a test's deadline) is passed on.
    if (info && info->si_code == SI_USER && g_forward_to > 0) ::kill(g_forward_to, sig);
}

/// While alive, SIGINT/SIGTERM/SIGHUP sent to this process go to `child` instead.
class SignalForwarder {
  public:
    explicit SignalForwarder(pid_t child) {
        g_forward_to = child;
        struct sigaction sa {};
        sa.sa_sigaction = forward_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
    }
    ~SignalForwarder() {
        for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
        g_forward_to = 0;
    }
    SignalForwarder(const SignalForwarder&) = delete;
    SignalForwarder& operator=(const SignalForwarder&) = delete;

  private:
    static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
    std::array<struct sigaction, 3> old_{};
};

/// Makes `s.dir` the lab's: created, or a stopped lab's files removed; refused
/// while a lab runs there or without the simulator's preload library.
Status claim_lab_dir(LabState& s) {
    auto use = check_lab_dir_for_up(s.dir);
    if (!use) return use.error();
    if (*use == LabDirUse::ReuseLab) {
        auto old = load_lab_state(s.dir);
        if (old &&
            (is_running(old->ibsim) || is_running(old->opensm) || is_running(old->supervisor))) {
            return make_error(
                fmt::format("a lab is already up in {} (stop it with `fabscope lab down --dir {}`)",
                            s.dir, s.dir),
                kExitCannotRun);
        }
        s.created_dir = old && old->created_dir;
    }
    if (::access(kUmad2simPath, R_OK) != 0) {
        return make_error(
            fmt::format("the simulator's preload library {} is missing: install ibsim-utils "
                        "(scripts/setup does)",
                        kUmad2simPath),
            kExitCannotRun);
    }
    std::error_code ec;
    if (*use == LabDirUse::Create) {
        fs::create_directories(fs::path(s.dir).parent_path(), ec);
        if (::mkdir(s.dir.c_str(), 0700) != 0)
            return make_error(
                fmt::format("lab {}: cannot create directory: {}", s.dir, std::strerror(errno)),
                kExitCannotRun);
        s.created_dir = true;
    } else if (*use == LabDirUse::ReuseLab) {
        // A stopped lab's files are replaced; nothing else in the directory is touched.
        if (auto r = remove_lab_files(s.dir, false); !r) return r.error();
    }
    return Ok{};
}

/// The net file's text: generated from the spec (which sets the planes) or read.
Result<std::string> lab_net_text(const LabUpOptions& opts, LabState& s) {
    if (opts.spec) {
        if (auto v = validate(*opts.spec); !v) return v.error();
        std::string net = generate_leaf_spine(*opts.spec);
        s.planes = opts.spec->planes;
        return net;
    }
    auto text = read_text_file(opts.net_file, 256U << 20U);  // a 16k-host net file is ~5 MB
    if (!text) return make_error(fmt::format("net file {}", text.error().message));
    return std::move(text).value();
}

/// Writes the net file into the lab, counting what it declares (none: not a net file).
Status write_lab_net(const LabUpOptions& opts, LabState& s) {
    auto net = lab_net_text(opts, s);
    if (!net) return net.error();
    s.stats = count_net_file(*net);
    if (s.stats.nodes() == 0) {
        return make_error(fmt::format("{}: no Switch/Hca declarations: not an ibsim net file",
                                      opts.spec ? "generated topology" : opts.net_file));
    }
    s.net_file = s.dir + "/net";
    std::ofstream out(s.net_file);
    out << *net;
    if (!out)
        return make_error(fmt::format("{}: cannot write: {}", s.net_file, std::strerror(errno)),
                          kExitCannotRun);
    return Ok{};
}

/// Creates the fifo the simulator reads its console commands from.
Status make_console_fifo(const SimConsole& console) {
    if (::mkfifo(console.fifo_path().c_str(), 0600) != 0) {
        return make_error(fmt::format("{}: mkfifo: {}", console.fifo_path(), std::strerror(errno)),
                          kExitCannotRun);
    }
    return Ok{};
}

/// Starts the supervisor and waits until it is ready; on failure, stops what the lab started.
Status start_supervisor(LabState& s) {
    auto sup = spawn({.argv = {self_exe(), "lab", "_supervise", s.dir, s.sockname},
                      .stdout_path = s.dir + "/supervisor.log",
                      .stderr_path = s.dir + "/supervisor.log",
                      .new_session = true});
    if (!sup) return sup.error();
    s.supervisor = *sup;
    (void)save_lab_state(s);
    if (auto w = lab_wait_for([&] { return fs::exists(s.dir + "/supervisor.ready"); },
                              [&] { return is_running(s.supervisor); }, std::chrono::seconds(10),
                              "the lab supervisor died at start: see " + s.dir + "/supervisor.log",
                              "the lab supervisor did not start within 10 s");
        !w) {
        stop_all(s);
        return w.error();
    }
    return Ok{};
}

/// Starts the simulator on the console fifo; on failure, stops what the lab started.
Status spawn_simulator(LabState& s, const SimConsole& console) {
    int console_in = ::open(console.fifo_path().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (console_in < 0) {
        stop_all(s);
        return make_error(fmt::format("{}: {}", console.fifo_path(), std::strerror(errno)),
                          kExitCannotRun);
    }
    ::fcntl(console_in, F_SETFL, ::fcntl(console_in, F_GETFL) & ~O_NONBLOCK);
    std::vector<std::string> argv{"ibsim", "-s"};
    for (auto& a : ibsim_size_args(s.stats)) argv.push_back(a);
    argv.push_back(s.net_file);
    auto sim = spawn({.argv = argv,
                      .env = {{"IBSIM_SOCKNAME", s.sockname}},
                      .cwd = s.dir,
                      .stdin_fd = console_in,
                      .stdout_path = console.output_path(),
                      .stderr_path = s.dir + "/ibsim.err",
                      .new_session = true});
    ::close(console_in);
    if (!sim) {
        stop_all(s);
        return make_error(fmt::format("cannot start the simulator: {} (install ibsim-utils)",
                                      sim.error().message),
                          kExitCannotRun);
    }
    s.ibsim = *sim;
    (void)save_lab_state(s);
    return Ok{};
}

/// Waits until the simulator says it is ready; on failure, stops the lab.
Status wait_simulator_ready(const LabState& s, const SimConsole& console) {
    if (auto w = lab_wait_for(
            [&] { return file_contains(console.output_path(), "Network simulator ready"); },
            [&] { return is_running(s.ibsim); }, std::chrono::seconds(120),
            "the simulator exited at start: " + tail(lab_file_text(s.dir + "/ibsim.err"), 3),
            "the simulator did not get ready within 120 s");
        !w) {
        stop_all(s);
        return w.error();
    }
    return Ok{};
}

/// Starts one OpenSM per plane, each waited for until SUBNET UP; on failure,
/// stops the lab.
Status start_sms(LabState& s, std::chrono::seconds subnet_up_timeout) {
    for (int plane = 1; plane <= s.planes; ++plane) {
        auto sm = start_sm(s, plane);
        if (!sm) {
            stop_all(s);
            return sm.error();
        }
        if (plane == 1) {
            s.opensm = *sm;
        } else {
            s.plane_sms.push_back(*sm);
        }
        (void)save_lab_state(s);
        const std::string log = sm_log(s, plane);
        const ProcessId pid = *sm;
        if (auto w =
                lab_wait_for([&] { return file_contains(log, "SUBNET UP"); },
                             [&] { return is_running(pid); }, subnet_up_timeout,
                             fmt::format("OpenSM{} exited before SUBNET UP: {}",
                                         s.planes > 1 ? fmt::format(" of plane {}", plane) : "",
                                         tail(lab_file_text(sm_out(s, plane)), 3)),
                             fmt::format("no SUBNET UP from OpenSM within {} s (see {})",
                                         subnet_up_timeout.count(), log));
            !w) {
            stop_all(s);
            return w.error();
        }
    }
    return Ok{};
}

}  // namespace

std::string which_flags(const std::string& name, const std::string& dir) {
    auto quote = [](const std::string& v) {
        bool plain = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) ||
                   std::string_view("/._-+:,=@").find(c) != std::string_view::npos;
        });
        if (plain) return v;
        std::string q = "'";
        for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    };
    if (!dir.empty()) return " --dir " + quote(dir);
    if (!name.empty() && name != "default") return " --name " + quote(name);
    return "";
}

Result<LabState> lab_up(const LabUpOptions& opts) {
    LabState s;
    s.dir = opts.dir;
    s.sm_dump = opts.sm_dump;
    s.routing_engine = opts.routing_engine;
    s.root_guids = opts.root_guids;
    if (auto r = claim_lab_dir(s); !r) return r.error();
    if (auto r = write_lab_net(opts, s); !r) return r.error();
    s.sockname = sockname_for(s.dir);
    s.created = iso8601_now();
    // The state is written before anything starts, so a lab that fails half
    // way is still this lab's to clean up with `lab down`.
    if (auto w = save_lab_state(s); !w) return w.error();
    std::error_code ec;
    fs::create_directories(s.dir + "/osm", ec);

    SimConsole console(s.dir);
    if (auto r = make_console_fifo(console); !r) return r.error();
    // 1. The supervisor holds the console fifo open for writing, so the
    //    simulator never reads end-of-file on its console.
    if (auto r = start_supervisor(s); !r) return r.error();
    // 2. The simulator.
    if (auto r = spawn_simulator(s, console); !r) return r.error();
    Stopwatch sw;
    if (auto r = wait_simulator_ready(s, console); !r) return r.error();
    // 3. One OpenSM per plane, each waited for until SUBNET UP.
    if (auto r = start_sms(s, opts.subnet_up_timeout); !r) return r.error();
    s.subnet_up_s = sw.seconds();
    if (auto w = save_lab_state(s); !w) {
        stop_all(s);
        return w.error();
    }
    return s;
}

Result<LabState> load_lab_state(const std::string& dir, const std::string& which) {
    const std::string path = dir + "/state.json";
    if (!fs::exists(path)) {
        return make_error(
            fmt::format("no lab in {} (start one with `fabscope lab up{}`)", dir, which),
            kExitCannotRun);
    }
    if (!holds_lab_state(dir)) {
        return make_error(
            fmt::format("{}: not the state of a fabscope lab in {}: refused", path, dir),
            kExitUsage);
    }
    auto doc = json_io::read_json_file(path);
    if (!doc) return doc.error();
    const json& j = *doc;
    return json_io::guarded([&]() -> Result<LabState> {
        LabState s;
        s.dir = json_io::get_string(j, "dir");
        s.which_flags = which;
        s.created_dir = j.value("created_dir", false);
        s.sockname = json_io::get_string(j, "sockname");
        s.net_file = json_io::get_string(j, "net_file");
        s.created = json_io::get_string(j, "created", "");
        s.subnet_up_s = json_io::get_double(j, "subnet_up_s", 0);
        const json& st = json_io::get_object(j, "stats");
        s.stats.switches = st.value("switches", 0);
        s.stats.cas = st.value("cas", 0);
        s.stats.routers = st.value("routers", 0);
        s.stats.ports = st.value("ports", 0);
        const json& p = json_io::get_object(j, "processes");
        s.ibsim = process_from(json_io::get_object(p, "ibsim"));
        s.opensm = process_from(json_io::get_object(p, "opensm"));
        s.supervisor = process_from(json_io::get_object(p, "supervisor"));
        s.planes = j.value("planes", 1);
        s.sm_dump = j.value("sm_dump", false);
        s.routing_engine = j.value("routing_engine", std::string());
        if (auto roots = j.find("root_guids"); roots != j.end() && roots->is_array()) {
            for (const json& g : *roots) {
                if (auto guid = parse_guid(g.is_string() ? g.get<std::string>() : ""))
                    s.root_guids.push_back(*guid);
            }
        }
        if (auto sms = p.find("plane_sms"); sms != p.end() && sms->is_array()) {
            for (const json& e : *sms) s.plane_sms.push_back(process_from(e));
        }
        if (auto sms = p.find("extra_sms"); sms != p.end() && sms->is_array()) {
            for (const json& e : *sms) {
                s.extra_sms.push_back(
                    {e.value("node", std::string()), e.value("priority", 0), process_from(e)});
            }
        }
        if (auto sw = j.find("swaps"); sw != j.end() && sw->is_array()) {
            for (const json& c : *sw)
                s.swaps.push_back({c.value("a", std::string()), c.value("b", std::string())});
        }
        return s;
    });
}

Result<std::vector<std::string>> lab_down(const std::string& dir, bool keep,
                                          const std::string& which) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::exists(dir + "/state.json", ec)) {
        return make_error(fmt::format("lab down: {} holds no fabscope lab: nothing stopped, "
                                      "nothing removed",
                                      dir),
                          kExitUsage);
    }
    auto s = load_lab_state(dir, which);
    if (!s) return s.error();
    stop_all(*s);
    if (keep) return std::vector<std::string>{};
    return remove_lab_files(dir, s->created_dir);
}

std::string lab_status(const LabState& s) {
    std::string out = fmt::format("lab {}\n  net file  {} ({} switches, {} CAs)\n  created   {}\n",
                                  s.dir, s.net_file, s.stats.switches, s.stats.cas, s.created);
    auto line = [&](const char* role, const ProcessId& p) {
        out += fmt::format("  {:<10} pid {:<8} {}\n", role, p.pid,
                           is_running(p) ? "running" : "NOT RUNNING");
    };
    line("ibsim", s.ibsim);
    line("opensm", s.opensm);
    for (size_t i = 0; i < s.plane_sms.size(); ++i)
        line(fmt::format("opensm p{}", i + 2).c_str(), s.plane_sms[i]);
    line("supervisor", s.supervisor);
    for (const LabSm& x : s.extra_sms) line(fmt::format("opensm {}", x.node).c_str(), x.process);
    for (const CableSwap& c : s.swaps)
        out +=
            fmt::format("  swapped    {} <-> {} (undo: `fabscope lab fault{} restore-cabling`)\n",
                        c.a, c.b, s.which_flags);
    return out;
}

json lab_status_json(const LabState& s) {
    json processes = json::array();
    bool all = true;
    for (const auto& [role, p] : {std::pair<const char*, const ProcessId*>{"ibsim", &s.ibsim},
                                  {"opensm", &s.opensm},
                                  {"supervisor", &s.supervisor}}) {
        bool up = is_running(*p);
        all = all && up;
        processes.push_back({{"role", role}, {"pid", p->pid}, {"running", up}});
    }
    for (size_t i = 0; i < s.plane_sms.size(); ++i) {
        bool up = is_running(s.plane_sms[i]);
        all = all && up;
        processes.push_back(
            {{"role", "opensm"}, {"plane", i + 2}, {"pid", s.plane_sms[i].pid}, {"running", up}});
    }
    for (const LabSm& x : s.extra_sms) {
        bool up = is_running(x.process);
        all = all && up;
        processes.push_back({{"role", "opensm"},
                             {"node", x.node},
                             {"priority", x.priority},
                             {"pid", x.process.pid},
                             {"running", up}});
    }
    json swaps = json::array();
    for (const CableSwap& c : s.swaps) swaps.push_back({{"a", c.a}, {"b", c.b}});
    return {{"format", "fabscope-lab-status"},
            {"version", 1},
            {"dir", s.dir},
            {"net_file", s.net_file},
            {"created", s.created},
            {"switches", s.stats.switches},
            {"cas", s.stats.cas},
            {"running", all},
            {"processes", processes},
            {"swaps", swaps}};
}

std::map<std::string, std::string> lab_client_env(const LabState& s, bool direct) {
    std::string preload = kUmad2simPath;
    if (const char* old = std::getenv("LD_PRELOAD");
        old && *old && std::string_view(old).find("umad2sim") == std::string_view::npos) {
        preload += std::string(":") + old;
    }
    return {{"LD_PRELOAD", preload},
            {"IBSIM_SOCKNAME", direct ? s.sockname : s.proxy_sockname()},
            {"FABSCOPE_LAB_DIR", s.dir}};
}

Result<std::map<std::string, std::string>> lab_plane_env(const LabState& s, int plane,
                                                         bool direct) {
    auto env = lab_client_env(s, direct);
    if (plane == 0) return env;
    if (plane < 1 || plane > s.planes) {
        return make_error(fmt::format("--plane {}: the lab in {} has {} plane{}", plane, s.dir,
                                      s.planes, s.planes == 1 ? "" : "s"),
                          kExitUsage);
    }
    if (s.planes > 1) env["SIM_HOST"] = plane_attach_node(plane);
    return env;
}

const ProcessId* plane_sm(const LabState& s, int plane) {
    if (plane == 1) return &s.opensm;
    if (plane >= 2 && static_cast<size_t>(plane - 2) < s.plane_sms.size())
        return &s.plane_sms[static_cast<size_t>(plane - 2)];
    return nullptr;
}

Result<int> reap_dead_clients(const std::string& dir) {
    SimConsole console(dir);
    auto answer = console.command("Attached");
    if (!answer) return answer.error();
    int freed = 0;
    for (const SimClient& c : parse_attached(*answer)) {
        if (process_start_time(c.pid)) continue;
        if (auto r = console.command(fmt::format("X {}", c.number)); !r) return r.error();
        ++freed;
    }
    return freed;
}

Result<int> lab_exec(const LabState& s, const std::vector<std::string>& argv,
                     const ExecSettings& how) {
    if (!is_running(s.ibsim)) {
        return make_error(
            fmt::format("the lab in {} is not running (its simulator is gone); `fabscope lab "
                        "down{}` then `fabscope lab up{}`",
                        s.dir, s.which_flags, s.which_flags),
            kExitCannotRun);
    }
    if (::access(".", W_OK) != 0) {
        return make_error(
            "lab exec: the simulator's client library writes ./sys-PID in the current directory, "
            "which is not writable here; cd to a writable directory",
            kExitCannotRun);
    }
    auto env = lab_plane_env(s, how.plane, how.direct);
    if (!env) return env.error();
    if (auto r = reap_dead_clients(s.dir); !r) return r.error();
    std::error_code ec;
    std::string cwd = fs::current_path(ec).string();
    auto child =
        spawn({.argv = argv, .env = *env, .stdout_path = how.stdout_path, .inherit_stdin = true});
    if (!child) return child.error();
    RunResult r;
    {
        SignalForwarder forward(child->pid);
        r = wait_child(child->pid, how.deadline);
    }
    // The preload library leaves its fake sysfs tree behind when a client is killed.
    fs::remove_all(fmt::format("{}/sys-{}", cwd, child->pid), ec);
    if (r.timed_out) {
        return make_error(fmt::format("`{}` did not finish within {} s and was stopped",
                                      argv.front(), how.deadline.count() / 1000),
                          kExitCannotRun);
    }
    return r.exit_code;
}

}  // namespace fabscope
