#include "lab/lab_sm.h"

#include <fmt/format.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "model/json_io.h"
#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/process.h"

namespace fabscope {
namespace {

constexpr uint64_t kMaxPartitionFile = 1U << 20;

/// Whether the lab's net file has a CA called `node` (`Hca N "h0004"`).
bool has_ca(const LabState& lab, const std::string& node) {
    std::ifstream in(lab.net_file);
    std::string line;
    const std::string quoted = "\"" + node + "\"";
    while (std::getline(in, line)) {
        if (line.rfind("Hca", 0) == 0 && line.find(quoted) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

size_t subnet_ups(const LabState& lab) {
    std::ifstream in(lab.dir + "/osm/opensm.log");
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) n += line.find("SUBNET UP") != std::string::npos;
    return n;
}

// OpenSM does not sweep again for a trap that repeats one it had within its
// trap aging time: a link taken down or up twice in a few seconds can wait
// for the periodic sweep (10 s, and longer seen here). The lab's own SMs
// (recorded by `lab up`) are asked for a heavy sweep with SIGHUP instead, as
// OpenSM's man page has it.
void ask_for_heavy_sweep(const LabState& lab) {
    signal_process(lab.opensm, SIGHUP);
    for (const ProcessId& sm : lab.plane_sms) signal_process(sm, SIGHUP);
}

/// Polls `done` every `every` until it holds or kSmWait has passed, asking
/// the SM for a sweep each second it does not; returns what `done` said last.
bool wait_for_sm(const LabState& lab, std::chrono::milliseconds every,
                 const std::function<bool()>& done) {
    const auto start = std::chrono::steady_clock::now();
    auto next_hup = start + std::chrono::seconds(1);
    for (;;) {
        if (done()) return true;
        const auto now = std::chrono::steady_clock::now();
        if (now >= start + kSmWait) return false;
        if (now >= next_hup) {
            ask_for_heavy_sweep(lab);
            next_hup = now + std::chrono::seconds(1);
        }
        std::this_thread::sleep_for(every);
    }
}

/// Until the SM logs a SUBNET UP after `before` of them.
void wait_for_subnet_up(const LabState& lab, size_t before) {
    wait_for_sm(lab, std::chrono::milliseconds(50), [&] { return subnet_ups(lab) > before; });
}

Result<std::string> lab_sm_start(LabState& lab, const std::string& node, int priority) {
    if (priority < 0 || priority > 15)
        return make_error(fmt::format("lab sm start: --priority {} is not 0..15", priority));
    if (!has_ca(lab, node)) {
        return make_error(
            fmt::format("lab sm start: the lab in {} has no host \"{}\" (its CAs "
                        "are named in {})",
                        lab.dir, node, lab.net_file));
    }
    for (const LabSm& x : lab.extra_sms) {
        if (x.node == node && is_running(x.process))
            return make_error(
                fmt::format("lab sm start: an OpenSM already runs on {} (pid {}); "
                            "`fabscope lab sm stop{} {}` first",
                            node, x.process.pid, lab.which_flags, node));
    }
    SmLaunch how;
    how.dir = fmt::format("{}/osm/sm-{}", lab.dir, node);
    how.out = how.dir + "/opensm.out";
    how.attach = node;
    how.priority = priority;
    auto sm = start_opensm(lab, how);
    if (!sm) return sm.error();
    std::erase_if(lab.extra_sms, [&](const LabSm& x) { return x.node == node; });
    lab.extra_sms.push_back({node, priority, *sm});
    if (auto w = save_lab_state(lab); !w) return w.error();
    // OpenSM prints the state it enters on stdout: STANDBY, or MASTER for a rival.
    std::string entered;
    auto said = [&] {
        const std::string out = lab_file_text(how.out);
        for (const char* state : {"Entering STANDBY state", "Entering MASTER state"}) {
            if (entered.empty() && out.find(state) != std::string::npos) entered = state;
        }
        return !entered.empty();
    };
    const ProcessId pid = *sm;
    if (auto w = lab_wait_for(
            said, [&] { return is_running(pid); }, std::chrono::seconds(30),
            fmt::format("lab sm start: OpenSM on {} exited: see {}", node, how.out),
            fmt::format("lab sm start: OpenSM on {} entered no state within 30 s (see {})", node,
                        how.out));
        !w)
        return w.error();
    return entered;
}

Status lab_sm_stop(LabState& lab, const std::string& node) {
    auto it = std::find_if(lab.extra_sms.begin(), lab.extra_sms.end(),
                           [&](const LabSm& x) { return x.node == node; });
    if (it == lab.extra_sms.end())
        return make_error(fmt::format("lab sm stop: no OpenSM of `lab sm start` on {}", node));
    stop_process(it->process, std::chrono::milliseconds(3000));
    lab.extra_sms.erase(it);
    return save_lab_state(lab);
}

Status lab_partitions(const LabState& lab, const std::string& file) {
    auto text = read_text_file(file, kMaxPartitionFile);
    if (!text) return text.error();
    const size_t before = subnet_ups(lab);
    auto w = json_io::write_file_atomically(lab_partitions_file(lab),
                                            [&](std::ostream& out) { out << *text; });
    if (!w) return w;
    // OpenSM reads its partition file at every heavy sweep.
    ask_for_heavy_sweep(lab);
    if (!wait_for_sm(lab, std::chrono::milliseconds(50),
                     [&] { return subnet_ups(lab) > before; })) {
        return make_error(fmt::format("lab partitions: no SUBNET UP from OpenSM within 15 s of "
                                      "the new partitions (see {}/osm/opensm.log)",
                                      lab.dir),
                          kExitCannotRun);
    }
    return Ok{};
}

}  // namespace fabscope
