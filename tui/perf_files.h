#pragma once
// The --perf files the pair matrix shows (`perf run` reports and mesh run
// reports, told apart by their content) and nccl-tests' outputs (their
// findings join the findings view), read again when rewritten while
// the TUI runs (a mesh run rewrites its report after every round); probe
// agents' /probe.json, saved or fetched live at every poll from an
// http:// URL (tui/agent_fetch.h). The one
// place the TUI reads perf results: what it needs of perf/ is the pure part
// (reports, comparison), never verbs.

#include <string>
#include <vector>

#include "formats/collective_bench.h"
#include "pairtest/results/report.h"
#include "reports/mesh_doc.h"
#include "reports/probe_doc.h"
#include "util/result.h"

namespace fabscope::tui {

class DataBuilder;

struct PerfInputs {
    std::vector<perf::PerfReport> reports;
    std::vector<std::string> names;  ///< the reports' file names
    std::vector<MeshRunDoc> mesh;
    std::vector<CollectiveBench> collectives;  ///< nccl-tests' text outputs
    std::vector<ProbeDoc> probes;              ///< probe agents' /probe.json (files or live)
};

class PerfFiles {
  public:
    explicit PerfFiles(std::vector<std::string> paths);

    /// Reads every file; errors name the file (exit 2).
    Result<PerfInputs> load_all();
    /// Reloads into `b` when a file changed; a bad rewrite keeps what was there.
    void reload_if_changed(DataBuilder& b);
    const std::vector<std::string>& paths() const { return paths_; }

  private:
    std::vector<std::string> paths_;
    std::vector<int64_t> mtimes_;
};

}  // namespace fabscope::tui
