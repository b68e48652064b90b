#include "lab/faults.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "lab/lab_sm.h"
#include "lab/sim_console.h"
#include "model/json_io.h"
#include "model/link_rate.h"
#include "util/exit_status.h"
#include "util/process.h"

namespace fabscope {
namespace {

// PortCounters fields the simulator's PerformanceSet knows (IBA names).
const std::vector<std::string> kPortCounters = {"SymbolErrorCounter",
                                                "LinkErrorRecoveryCounter",
                                                "LinkDownedCounter",
                                                "PortRcvErrors",
                                                "PortRcvRemotePhysicalErrors",
                                                "PortRcvSwitchRelayErrors",
                                                "PortXmitDiscards",
                                                "PortXmitConstraintErrors",
                                                "PortRcvConstraintErrors",
                                                "LocalLinkIntegrityErrors",
                                                "ExcessiveBufferOverrunErrors",
                                                "VL15Dropped",
                                                "PortXmitData",
                                                "PortRcvData",
                                                "PortXmitPkts",
                                                "PortRcvPkts",
                                                "PortXmitWait"};

// Attribute names the simulator's Error command documents.
const std::map<std::string, int> kAttributes = {{"NodeDescription", 0x10},
                                                {"NodeInfo", 0x11},
                                                {"SwitchInfo", 0x12},
                                                {"PortInfo", 0x15},
                                                {"LinearForwardingTable", 0x19}};

std::optional<int> parse_int(std::string_view s) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

// The simulator answers a bad command with a complaint, not a status: its
// complaints start with "#" ("# port 6 at nodeid \"leaf01\" is not linked",
// "# attribute X not found") or say "bad" or "Usage".
bool refused(const std::string& answer) {
    std::istringstream in(answer);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind('#', 0) == 0 || line.find("bad ") != std::string::npos ||
            line.find("Usage") != std::string::npos) {
            return true;
        }
    }
    return false;
}

Result<std::string> normalise_counter(const std::string& assignment) {
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size()) {
        return make_error(fmt::format("lab fault counter: \"{}\" is not NAME=VALUE", assignment));
    }
    std::string name = assignment.substr(0, eq);
    std::string value = assignment.substr(eq + 1);
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || p != value.data() + value.size()) {
        return make_error(
            fmt::format("lab fault counter: \"{}\" is not a non-negative number", value));
    }
    if (name.find('.') == std::string::npos) {
        if (std::find(kPortCounters.begin(), kPortCounters.end(), name) == kPortCounters.end()) {
            std::string known;
            for (const auto& c : kPortCounters) known += (known.empty() ? "" : ", ") + c;
            return make_error(fmt::format(
                "lab fault counter: unknown counter {} (PortCounters has: {}; "
                "for others write Attribute.Field, e.g. PortCountersExtended.PortXmitData)",
                name, known));
        }
        name = "PortCounters." + name;
    }
    return name + "=" + value;
}

// OpenSM answers a trap (a port changed) with a heavy sweep that reads every
// PortInfo and later writes some back: a width or speed set between the two
// would be written over with what it read. Quiet: every trap logged has been
// followed by SUBNET UP, and stays so for a moment.
void wait_for_sm_quiet(const LabState& lab) {
    auto pending = [&] {
        std::ifstream in(lab.dir + "/osm/opensm.log");
        std::string line;
        bool trap_after_up = false;
        while (std::getline(in, line)) {
            if (line.find("Received Generic Notice") != std::string::npos) trap_after_up = true;
            if (line.find("SUBNET UP") != std::string::npos) trap_after_up = false;
        }
        return trap_after_up;
    };
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    int calm = 0;
    while (calm < 3 && std::chrono::steady_clock::now() < end) {
        calm = pending() ? 0 : calm + 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

// After a re-cabling, the ports of the new links must be Active before the
// next command looks. A SUBNET UP after the console commands is not enough:
// a sweep can read a port before its Link, and a repeated trap may set off
// no sweep at all (ask_for_heavy_sweep), leaving the port Init for 10 s or
// more (one restore in four when swaps follow each other here). So the
// simulator is asked until every port is Active, and the SM for a sweep
// every second they are not. Returns the ports still not Active after kSmWait.
std::vector<std::string> wait_for_active(const LabState& lab,
                                         const std::vector<PortTarget>& ports) {
    SimConsole console(lab.dir);
    std::vector<std::string> waiting;
    wait_for_sm(lab, std::chrono::milliseconds(100), [&] {
        waiting.clear();
        for (const PortTarget& p : ports) {
            auto dump = console.command("Dump " + console_quote(p.node));
            auto state = dump ? dumped_port_state(*dump, p.port) : std::nullopt;
            if (state != "Active")
                waiting.push_back(fmt::format("{} {}", to_string(p), state.value_or("unknown")));
        }
        return waiting.empty();
    });
    return waiting;
}

/// " (still not Active after 15 s: P State, ...; is the SM running?)", or "".
std::string not_active_note(const std::vector<std::string>& waiting) {
    if (waiting.empty()) return "";
    std::string list;
    for (const std::string& w : waiting) list += (list.empty() ? "" : ", ") + w;
    return fmt::format(" (still not Active after {} s: {}; is the lab's SM running?)",
                       kSmWait.count(), list);
}

// Silent nodes are the supervisor's relay's business: it re-reads
// silent.json when it changes. The node's GUID and LID come from a client of
// the lab that looks them up by name.
Result<std::string> set_silent(const LabState& lab, const Fault& f) {
    const std::string file = lab.dir + "/silent.json";
    nlohmann::json doc{{"silent", nlohmann::json::array()}};
    if (auto old = json_io::read_json_file(file); old && old->contains("silent")) doc = *old;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& s : doc["silent"]) {
        if (s.value("node", "") != f.target.node) kept.push_back(s);
    }
    if (f.kind == Fault::Kind::Silent) {
        const std::string out = lab.dir + "/locate.out";
        auto rc = lab_exec(lab, {self_exe(), "lab", "_locate", f.target.node},
                           {.deadline = std::chrono::milliseconds(60000), .stdout_path = out});
        if (!rc) return rc.error();
        if (*rc != 0)
            return make_error(
                fmt::format("lab fault silent: {} not found in the lab fabric", f.target.node),
                *rc);
        auto found = json_io::read_json_file(out);
        if (!found) return found.error();
        (*found)["node"] = f.target.node;
        kept.push_back(*found);
    }
    doc["silent"] = kept;
    if (auto w = json_io::write_json_file(doc, file); !w) return w.error();
    return f.kind == Fault::Kind::Silent ? fmt::format(
                                               "{}: silent: no MAD to it or through it gets an "
                                               "answer (lab clients only; the SM still sees it)",
                                               f.target.node)
                                         : fmt::format("{}: answers again", f.target.node);
}

}  // namespace

std::string to_string(const PortTarget& t) {
    return fmt::format("{}[{}]", t.node, t.port);
}

Result<PortTarget> parse_port_target(const std::string& s) {
    PortTarget t;
    std::string port;
    if (auto lb = s.find('['); lb != std::string::npos && s.back() == ']') {
        t.node = s.substr(0, lb);
        port = s.substr(lb + 1, s.size() - lb - 2);
    } else if (auto colon = s.rfind(':'); colon != std::string::npos) {
        t.node = s.substr(0, colon);
        port = s.substr(colon + 1);
    }
    auto p = parse_int(port);
    if (t.node.empty() || !p || *p < 0 || *p > 254) {
        return make_error(fmt::format("\"{}\" is not a port: write NODE[PORT], e.g. leaf01[5]", s));
    }
    t.port = *p;
    return t;
}

namespace {

/// At least `n` words, or the usage of the fault `w[0]`.
Status need_words(const std::vector<std::string>& w, size_t n, const char* usage) {
    if (w.size() < n)
        return make_error(fmt::format("lab fault {}: usage: lab fault {}", w[0], usage));
    return Ok{};
}

/// The port the fault acts on, from its second word.
Status take_target(const std::vector<std::string>& w, Fault& f) {
    auto t = parse_port_target(w[1]);
    if (!t) return t.error();
    f.target = *t;
    return Ok{};
}

Result<Fault> console_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 2, "console 'COMMAND'"); !s) return s.error();
    f.kind = Fault::Kind::Console;
    for (size_t i = 1; i < w.size(); ++i) f.raw += (i > 1 ? " " : "") + w[i];
    return f;
}

/// silent or answer: a whole node, by name.
Result<Fault> node_fault(const std::vector<std::string>& w, Fault f) {
    const std::string& kind = w[0];
    if (auto s = need_words(w, 2, "silent|answer NODE"); !s) return s.error();
    f.kind = kind == "silent" ? Fault::Kind::Silent : Fault::Kind::Answer;
    f.target.node = w[1];
    if (f.target.node.empty() || f.target.node.find_first_of("[]:") != std::string::npos) {
        return make_error(fmt::format("lab fault {}: give a node name, e.g. spine02", kind));
    }
    return f;
}

Result<Fault> swap_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 3, "swap NODE[PORT] NODE[PORT]"); !s) return s.error();
    if (auto s = take_target(w, f); !s) return s.error();
    auto o = parse_port_target(w[2]);
    if (!o) return o.error();
    f.kind = Fault::Kind::Swap;
    f.other = *o;
    if (f.other.node == f.target.node && f.other.port == f.target.port) {
        return make_error("lab fault swap: give two different ports");
    }
    return f;
}

Result<Fault> link_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 2, "link-down|link-up NODE[PORT]"); !s) return s.error();
    if (auto s = take_target(w, f); !s) return s.error();
    f.kind = w[0] == "link-down" ? Fault::Kind::LinkDown : Fault::Kind::LinkUp;
    return f;
}

Result<Fault> width_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 3, "width NODE[PORT] 1x|2x|4x|8x|12x"); !s) return s.error();
    if (auto s = take_target(w, f); !s) return s.error();
    if (!parse_width(w[2]))
        return make_error(
            fmt::format("lab fault width: \"{}\" is not 1x, 2x, 4x, 8x or 12x", w[2]));
    f.kind = Fault::Kind::Width;
    f.value = w[2];
    return f;
}

Result<Fault> speed_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 3, "speed NODE[PORT] sdr|ddr|qdr|fdr|edr|hdr"); !s) return s.error();
    if (auto s = take_target(w, f); !s) return s.error();
    auto sp = parse_speed(w[2]);
    if (!sp || *sp == Speed::FDR10 || *sp > Speed::HDR) {
        return make_error(fmt::format(
            "lab fault speed: \"{}\" is not one of sdr, ddr, qdr, fdr, edr, hdr", w[2]));
    }
    f.kind = Fault::Kind::Speed;
    f.value = w[2];
    return f;
}

Result<Fault> counter_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 3, "counter NODE[PORT] NAME=VALUE [NAME=VALUE ...]"); !s)
        return s.error();
    if (auto s = take_target(w, f); !s) return s.error();
    f.kind = Fault::Kind::Counter;
    for (size_t i = 2; i < w.size(); ++i) {
        auto a = normalise_counter(w[i]);
        if (!a) return a.error();
        f.assignments.push_back(*a);
    }
    return f;
}

Result<Fault> mad_drop_fault(const std::vector<std::string>& w, Fault f) {
    if (auto s = need_words(w, 3, "mad-drop NODE[PORT] PERCENT [ATTRIBUTE]"); !s) return s.error();
    if (auto s = take_target(w, f); !s) return s.error();
    auto pct = parse_int(w[2]);
    if (!pct || *pct < 0 || *pct > 100) {
        return make_error(
            fmt::format("lab fault mad-drop: \"{}\" is not a percentage 0..100", w[2]));
    }
    f.kind = Fault::Kind::MadDrop;
    f.percent = *pct;
    if (w.size() > 3) {
        if (auto it = kAttributes.find(w[3]); it != kAttributes.end()) {
            f.attribute = std::to_string(it->second);
        } else if (auto id = parse_int(w[3])) {
            f.attribute = std::to_string(*id);
        } else {
            return make_error(
                fmt::format("lab fault mad-drop: unknown attribute {} (use NodeInfo, "
                            "NodeDescription, SwitchInfo, PortInfo or a number)",
                            w[3]));
        }
    }
    return f;
}

}  // namespace

Result<Fault> parse_fault(const std::vector<std::string>& w) {
    // One line, as every error is; the table is in `lab fault --help`.
    constexpr const char* kFaults =
        "link-down, link-up, swap, width, speed, counter, mad-drop, silent, answer, console; "
        "`fabscope lab fault --help` describes each";
    if (w.empty()) return make_error(fmt::format("lab fault: say which fault ({})", kFaults));
    Fault f;
    const std::string& kind = w[0];
    f.word = kind;
    if (kind == "console") return console_fault(w, std::move(f));
    if (kind == "silent" || kind == "answer") return node_fault(w, std::move(f));
    if (kind == "restore-cabling") {
        if (w.size() != 1) return make_error("lab fault restore-cabling: takes no arguments");
        f.kind = Fault::Kind::RestoreCabling;
        return f;
    }
    if (kind == "swap") return swap_fault(w, std::move(f));
    if (kind == "link-down" || kind == "link-up") return link_fault(w, std::move(f));
    if (kind == "width") return width_fault(w, std::move(f));
    if (kind == "speed") return speed_fault(w, std::move(f));
    if (kind == "counter") return counter_fault(w, std::move(f));
    if (kind == "mad-drop") return mad_drop_fault(w, std::move(f));
    return make_error(fmt::format("lab fault: unknown fault \"{}\" ({})", kind, kFaults));
}

std::vector<std::string> console_commands(const Fault& f) {
    std::string port = fmt::format("{}[{}]", console_quote(f.target.node), f.target.port);
    switch (f.kind) {
        case Fault::Kind::LinkDown: return {"Unlink " + port};
        case Fault::Kind::LinkUp: return {"ReLink " + port};
        case Fault::Kind::Counter: {
            std::vector<std::string> out;
            for (const auto& a : f.assignments)
                out.push_back(fmt::format("PerformanceSet {} {}", port, a));
            return out;
        }
        case Fault::Kind::MadDrop:
            return {fmt::format("Error {} {}{}", port, f.percent,
                                f.attribute.empty() ? "" : " " + f.attribute)};
        case Fault::Kind::Console: return {f.raw};
        case Fault::Kind::Swap:  // needs the cabling: built in apply_fault
        case Fault::Kind::Width:
        case Fault::Kind::Speed:
        case Fault::Kind::Silent:
        case Fault::Kind::RestoreCabling:
        case Fault::Kind::Answer: return {};
    }
    return {};
}

Status check_swap(const std::vector<CableSwap>& in_force, const PortTarget& a,
                  const PortTarget& peer_a, const PortTarget& b, const PortTarget& peer_b) {
    auto same = [](const PortTarget& x, const PortTarget& y) {
        return x.node == y.node && x.port == y.port;
    };
    if (same(peer_a, b) || same(peer_b, a)) {
        return make_error(fmt::format("lab fault swap: {} and {} are the two ends of one cable: "
                                      "swapping them changes nothing",
                                      to_string(a), to_string(b)),
                          kExitUsage);
    }
    for (const CableSwap& c : in_force) {
        for (const PortTarget* p : {&a, &b, &peer_a, &peer_b}) {
            if (to_string(*p) == c.a || to_string(*p) == c.b) {
                return make_error(
                    fmt::format("lab fault swap: {} is on a cable already swapped ({} <-> {}); "
                                "undo it first with `lab fault restore-cabling`",
                                to_string(*p), c.a, c.b),
                    kExitUsage);
            }
        }
    }
    return Ok{};
}

namespace {

std::string read_net(const LabState& lab) {
    std::ifstream in(lab.net_file);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string console_port(const PortTarget& t) {
    return fmt::format("{}[{}]", console_quote(t.node), t.port);
}

/// Runs console commands, failing on the first the simulator refuses.
Result<std::string> run_console(const LabState& lab, const std::vector<std::string>& commands,
                                bool check) {
    SimConsole console(lab.dir);
    std::string answers;
    for (const std::string& cmd : commands) {
        auto a = console.command(cmd);
        if (!a) return a.error();
        if (check && refused(*a)) {
            return make_error(fmt::format("lab fault: the simulator refused `{}`: {}", cmd, *a));
        }
        answers += a->empty() ? "" : "\n" + *a;
    }
    return answers.empty() ? answers : answers.substr(1);
}

/// Console commands that cable a to b's peer and b to a's peer.
std::vector<std::string> recable(const PortTarget& a, const PortTarget& a_to, const PortTarget& b,
                                 const PortTarget& b_to) {
    return {"Unlink " + console_port(a), "Unlink " + console_port(b),
            fmt::format("Link {} {}", console_port(a), console_port(a_to)),
            fmt::format("Link {} {}", console_port(b), console_port(b_to))};
}

Result<PortTarget> net_peer(const std::string& net, const PortTarget& p) {
    auto peer = net_file_peer(net, p.node, p.port);
    if (!peer) {
        return make_error(
            fmt::format("lab fault swap: {} is not cabled in the net file", to_string(p)),
            kExitUsage);
    }
    return PortTarget{peer->node, peer->port};
}

Result<FaultOutcome> swap_cables(LabState lab, const Fault& f) {
    const std::string net = read_net(lab);
    auto pa = net_peer(net, f.target);
    if (!pa) return pa.error();
    auto pb = net_peer(net, f.other);
    if (!pb) return pb.error();
    if (auto ok = check_swap(lab.swaps, f.target, *pa, f.other, *pb); !ok) return ok.error();
    if (auto r = run_console(lab, recable(f.target, *pb, f.other, *pa), true); !r) return r.error();
    lab.swaps.push_back({to_string(f.target), to_string(f.other)});
    if (auto w = save_lab_state(lab); !w) return w.error();
    auto waiting = wait_for_active(lab, {f.target, *pb, f.other, *pa});
    return FaultOutcome{.message =
                            fmt::format("{} now goes to {}, {} to {} (undo: `fabscope lab "
                                        "fault{} restore-cabling`){}",
                                        to_string(f.target), to_string(*pb), to_string(f.other),
                                        to_string(*pa), lab.which_flags, not_active_note(waiting))};
}

Result<FaultOutcome> restore_cabling(LabState lab) {
    if (lab.swaps.empty()) return FaultOutcome{.message = "cabling as the net file has it"};
    const std::string net = read_net(lab);
    size_t undone = 0;
    std::vector<PortTarget> relinked;
    while (!lab.swaps.empty()) {
        auto a = parse_port_target(lab.swaps.back().a);
        auto b = parse_port_target(lab.swaps.back().b);
        if (!a || !b) return make_error("lab state: a recorded swap is not two ports", kExitUsage);
        auto pa = net_peer(net, *a);
        auto pb = net_peer(net, *b);
        if (!pa || !pb) return make_error("lab state: a swapped port is not in the net file");
        if (auto r = run_console(lab, recable(*a, *pa, *b, *pb), true); !r) return r.error();
        relinked.insert(relinked.end(), {*a, *pa, *b, *pb});
        lab.swaps.pop_back();
        ++undone;
        if (auto w = save_lab_state(lab); !w) return w.error();
    }
    auto waiting = wait_for_active(lab, relinked);
    return FaultOutcome{.message =
                            fmt::format("{} swap(s) undone: cabling as the net file has it{}",
                                        undone, not_active_note(waiting))};
}

Result<FaultOutcome> set_port(const LabState& lab, const Fault& f) {
    const std::string where = to_string(f.target);
    const std::string out = lab.dir + "/set-port.out";
    std::vector<std::string> argv{self_exe(),
                                  "lab",
                                  "_set-port",
                                  f.target.node,
                                  std::to_string(f.target.port),
                                  f.kind == Fault::Kind::Width ? "width" : "speed",
                                  f.value};
    wait_for_sm_quiet(lab);
    auto rc =
        lab_exec(lab, argv, {.deadline = std::chrono::milliseconds(120000), .stdout_path = out});
    if (!rc) return rc.error();
    wait_for_sm_quiet(lab);  // the sweep our change set off: done before the next fault
    if (*rc != 0)
        return make_error(
            fmt::format("lab fault: setting {} {} on {} failed", f.word, f.value, where), *rc);
    auto now = json_io::read_json_file(out);
    if (!now || !now->is_object())
        return make_error(fmt::format("lab fault: {}: no read-back of {}", out, where),
                          kExitCannotRun);
    FaultOutcome o;
    o.width = now->value("width", "");
    o.speed = now->value("speed", "");
    o.message = fmt::format("{} <-> {}: now {} {} (read back from both ports)", where,
                            now->value("peer", "?"), o.width, o.speed);
    return o;
}

}  // namespace

Result<FaultOutcome> apply_fault(const LabState& lab, const Fault& f) {
    if (!is_running(lab.ibsim)) {
        return make_error(fmt::format("the lab in {} is not running (`fabscope lab down{}` then "
                                      "`fabscope lab up{}`)",
                                      lab.dir, lab.which_flags, lab.which_flags),
                          kExitCannotRun);
    }
    if (f.kind != Fault::Kind::Console && f.kind != Fault::Kind::RestoreCabling) {
        auto names = net_file_node_names(read_net(lab));
        for (const PortTarget* t : {&f.target, &f.other}) {
            if (t == &f.other && f.kind != Fault::Kind::Swap) continue;
            if (std::find(names.begin(), names.end(), t->node) == names.end()) {
                return make_error(fmt::format("lab fault: no node \"{}\" in this lab's net file {}",
                                              t->node, lab.net_file));
            }
        }
    }
    const std::string where = to_string(f.target);
    switch (f.kind) {
        case Fault::Kind::Width:
        case Fault::Kind::Speed: return set_port(lab, f);
        case Fault::Kind::Swap: return swap_cables(lab, f);
        case Fault::Kind::RestoreCabling: return restore_cabling(lab);
        case Fault::Kind::Silent:
        case Fault::Kind::Answer: {
            auto m = set_silent(lab, f);
            if (!m) return m.error();
            return FaultOutcome{.message = *m};
        }
        default: break;
    }
    // link-up waits for its port to be Active below, which implies the sweep.
    const bool unplugged = f.kind == Fault::Kind::LinkDown;
    size_t sweeps_before = unplugged ? subnet_ups(lab) : 0;
    auto answers = run_console(lab, console_commands(f), f.kind != Fault::Kind::Console);
    if (!answers) return answers.error();
    // The SM re-sweeps after a cabling change; the fault is in place when it is done.
    if (unplugged) wait_for_subnet_up(lab, sweeps_before);
    switch (f.kind) {
        case Fault::Kind::LinkDown:
            return FaultOutcome{.message = where + ": link down (both ends Polling)"};
        case Fault::Kind::LinkUp:
            return FaultOutcome{.message = where + ": link restored" +
                                           not_active_note(wait_for_active(lab, {f.target}))};
        case Fault::Kind::Counter: return FaultOutcome{.message = where + ": counters set"};
        case Fault::Kind::MadDrop:
            return FaultOutcome{.message = fmt::format("{}: dropping {}% of MADs arriving there",
                                                       where, f.percent)};
        default: return FaultOutcome{.answer = *answers};
    }
}

nlohmann::json fault_json(const Fault& f, const FaultOutcome& done) {
    nlohmann::json j{{"format", "fabscope-lab-fault"},
                     {"version", 1},
                     {"fault", f.word},
                     {"applied", true},
                     {"message", done.message}};
    switch (f.kind) {
        case Fault::Kind::Console: j["answer"] = done.answer; break;
        case Fault::Kind::RestoreCabling: break;
        case Fault::Kind::Silent:
        case Fault::Kind::Answer: j["node"] = f.target.node; break;
        case Fault::Kind::Swap:
            j["port"] = to_string(f.target);
            j["other"] = to_string(f.other);
            break;
        case Fault::Kind::Width:
        case Fault::Kind::Speed:
            j["port"] = to_string(f.target);
            j["now"] = {{"width", done.width}, {"speed", done.speed}};
            break;
        default: j["port"] = to_string(f.target); break;
    }
    return j;
}

std::string fault_usage() {
    return R"(Faults (NODE is a name from the lab's net file: h0001, leaf01, spine01):
  link-down NODE[PORT]                 unplug the cable at that port (both ends go Polling)
  link-up NODE[PORT]                   plug it back in
  swap NODE[PORT] NODE[PORT]           swap two cables (as the net file has them) between the ports;
                                       not both ends of one cable, not a port already swapped
  restore-cabling                      undo every swap: cabling as the net file has it
  width NODE[PORT] 1x|2x|4x|8x|12x     set the link's width (both ends; read back, exit 3 if not so)
  speed NODE[PORT] sdr|ddr|qdr|fdr|edr|hdr   set the link's speed (both ends; read back)
  counter NODE[PORT] NAME=VALUE ...    set port counters, e.g. SymbolErrorCounter=500,
                                       PortXmitWait=4000000, PortCountersExtended.PortXmitData=9000
  mad-drop NODE[PORT] PERCENT [ATTR]   drop MADs arriving at the port (0 clears); ATTR: NodeInfo,
                                       NodeDescription, SwitchInfo, PortInfo or a number
  silent NODE                          the node never answers (a hung management agent): no MAD
                                       to it or routed through it by directed route gets a reply
  answer NODE                          it answers again
  console 'COMMAND'                    any simulator console command

Examples:
  fabscope lab fault link-down leaf01[5]
  fabscope lab fault width leaf02[5] 1x
  fabscope lab fault counter leaf04[5] SymbolErrorCounter=5000 LinkErrorRecoveryCounter=12)";
}

}  // namespace fabscope
