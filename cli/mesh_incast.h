#pragma once
// `mesh run --pattern incast` (cli/cmd_mesh_incast.cpp): what cmd_mesh_run
// hands over once it has parsed the options every mesh run shares.

#include <string>

#include "cli/cli.h"
#include "mesh/run.h"

namespace fabscope::cli {

struct MeshIncastArgs {
    perf::MeshRunOptions base;  ///< spec (the senders' WRITE), device, port, peer, step timeout
    int receiver = 0;
    int prober = 1;
    std::string probe_size = "64";
    std::string probe_time = "2s";
    std::string thresholds;
    std::string output;
};

int run_mesh_incast(const MeshIncastArgs& a, const Globals& g);

}  // namespace fabscope::cli
