#pragma once
// Running fabscope and the infiniband-diags against a real simulated lab.
// A Lab brings the simulator up in its constructor and always stops it (by
// the PIDs the lab recorded) in its destructor, also when a test fails.

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace fabscope::labtest {

struct CmdResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

/// Runs a command, capturing stdout and stderr; fails the test on timeout.
/// `env` is added to (or overrides) the environment.
CmdResult run(const std::vector<std::string>& argv,
              std::chrono::seconds timeout = std::chrono::seconds(300),
              const std::map<std::string, std::string>& env = {});
/// A fresh path under the tests' scratch folder (not created).
std::string scratch_path(const char* what);
/// The fabscope binary under test.
std::string fabscope();
/// A file's bytes (empty when it cannot be read).
std::string slurp(const std::string& path);
/// A file under tests/fixtures/ (FABSCOPE_SOURCE_DIR's).
std::string fixture(const std::string& relative);

/// Waits until the file at `path` holds `text` (a child's stderr saying it
/// reached a step), polling every 50 ms; false after `timeout`. Tests wait
/// for the step they act on, never a fixed time.
bool wait_for_text(const std::string& path, const std::string& text,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(60000));

/// A folder of one test's own, named after the test and this process: made
/// when the fixture is, removed with all it holds when the fixture goes.
class ScratchDir {
  public:
    explicit ScratchDir(const std::string& prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& dir() const { return dir_; }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    /// Writes `text` to `name` in the folder; returns its path.
    std::string write(const std::string& name, const std::string& text) const;

  private:
    std::filesystem::path dir_;
};

class Lab {
  public:
    /// `up_args`: arguments to `fabscope lab up` after the directory.
    explicit Lab(std::vector<std::string> up_args);
    ~Lab();
    Lab(const Lab&) = delete;
    Lab& operator=(const Lab&) = delete;

    const std::string& dir() const { return dir_; }
    bool up() const { return up_; }
    /// `fabscope lab exec --dir DIR -- argv...`
    CmdResult exec(const std::vector<std::string>& argv,
                   std::chrono::seconds timeout = std::chrono::seconds(300)) const;
    /// `fabscope lab fault --dir DIR words...`
    CmdResult fault(const std::vector<std::string>& words) const;

  private:
    std::string dir_;
    bool up_ = false;
};

/// The lab's own OpenSM, stopped with SIGSTOP until this goes out of scope:
/// its port still claims IsSM and no longer answers SMInfo.
class FrozenSm {
  public:
    explicit FrozenSm(const Lab& lab);
    ~FrozenSm();
    FrozenSm(const FrozenSm&) = delete;
    FrozenSm& operator=(const FrozenSm&) = delete;

  private:
    int pid_ = 0;
};

/// What ibnetdiscover printed: node GUIDs with descriptions, and links as
/// ordered pairs of (node GUID, port) with the rate it showed ("4xHDR").
struct PeerTopology {
    std::map<uint64_t, std::string> nodes;
    std::map<uint64_t, std::string> types;  // "Switch" / "Ca"
    std::map<std::pair<std::pair<uint64_t, int>, std::pair<uint64_t, int>>, std::string> links;
};
PeerTopology parse_ibnetdiscover(const std::string& text);

/// The same view of a fabscope snapshot JSON document.
PeerTopology topology_of_snapshot(const std::string& json_text);

/// perfquery's "Name:.......value" lines.
std::map<std::string, uint64_t> parse_perfquery(const std::string& text);
/// ibroute's "0x0001 001 : (...)" lines: LID -> egress port.
std::map<int, int> parse_ibroute(const std::string& text);
/// ibtracert's hops "[out] -> switch port {guid}[in] ... \"name\"": (out port, in port, name).
std::vector<std::tuple<int, int, std::string>> parse_ibtracert(const std::string& text);

}  // namespace fabscope::labtest
