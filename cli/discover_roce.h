#pragma once
// `fabscope discover --roce`: a RoCE fabric into the same snapshot format as
// InfiniBand's, from every host's RDMA inventory and LLDP neighbours
// (host/roce_fabric.h), gathered over MPI or merged from host reports.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace fabscope::cli {

struct RoceDiscoverOptions {
    bool enabled = false;                 ///< --roce
    std::string sysfs_root = "/";         ///< --sysfs-root
    std::string lldp_socket;              ///< --lldp-socket ("" = lldpd's default)
    std::string host_name;                ///< --host-name ("" = hostname)
    bool mpi = false;                     ///< --mpi: one rank per host, rank 0 writes
    double gather_timeout_s = 60;         ///< --gather-timeout
    std::string host_report;              ///< --host-report FILE: this host's part only
    std::vector<std::string> merge;       ///< --merge FILE...: host reports to assemble
    bool trace = false;                   ///< --trace: spines from traces between the ranks
    std::string names;                    ///< --names FILE: router names for the traces
    int trace_ports = 8;                  ///< --trace-ports: UDP source ports per pair
    int tracers_per_leaf = 2;             ///< --tracers-per-leaf (0: every host)
    std::string trace_timeout = "300ms";  ///< --trace-timeout: per probe
};

/// Adds --roce and its options to `discover`.
void add_roce_discover_options(CLI::App* cmd, RoceDiscoverOptions& o);
int run_discover_roce(const RoceDiscoverOptions& o, const std::string& output, const Globals& g);

}  // namespace fabscope::cli
