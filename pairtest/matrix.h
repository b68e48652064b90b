#pragma once
// `perf run`'s test matrix: which tests run against which servers, from the
// flags that name them (--all, --test, --latency and --bandwidth, --size or
// --sweep up to --max-size, how long and how deep), and the run of it on
// this host's device (pairtest/run.h), each test's flow traced on
// Soft-RoCE. Every input is checked before the device is opened, so a typo
// is exit 2 and not 3. cli/ parses the flags and prints the report.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pairtest/run.h"
#include "pairtest/session.h"
#include "rdma/open_device.h"
#include "rdma/test_spec.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::perf {

/// The tests as `perf run`'s flags spell them (the errors quote them).
struct TestMatrixRequest {
    std::vector<std::string> tests{"write"};  ///< --test: write, read, send
    bool latency = false;                     ///< latency instead of bandwidth
    bool bandwidth = false;                   ///< bandwidth too, with latency
    bool all = false;                         ///< every operation, bandwidth and latency
    bool bidir = false;                       ///< bandwidth both ways at once
    std::string size;                         ///< "" = perftest's default for the measure
    bool sweep = false;                       ///< every size from 2 to max_size, doubling
    std::string max_size = "64K";
    std::string duration = "5s";
    uint64_t iterations = 0;  ///< 0: for the duration
    uint32_t tx_depth = 128;
    uint32_t cq_mod = 100;
    uint32_t inline_max = 0;
    std::string window = "100ms";
    std::string warmup = "1s";
};

/// Every test in the order they run: measure by measure (latency before
/// bandwidth unless --all), operation by operation, size by size.
Result<std::vector<TestSpec>> test_matrix(const TestMatrixRequest& request);

/// `perf run` as a whole.
struct PerfRunRequest {
    std::vector<std::string> peers;  ///< HOST or HOST:PORT; several are compared
    TestMatrixRequest tests;
    std::string device;  ///< "" = the first
    int port = 0;        ///< 0 = the first active
    PeerOptions peer;    ///< GID, traffic class, MTU; the files below add limits and secret
    double degraded_at = 0.7;
    std::string thresholds;   ///< the congestion detectors' limits ("" = the defaults)
    std::string secret_file;  ///< "" = no secret
    std::string names;        ///< names of traced hops ("" = none)
    bool no_trace = false;    ///< do not trace each test's flow (Soft-RoCE)
    bool progress = true;     ///< the results table on stderr as results come
};

/// Arms what stops a run (the Ctrl-C handlers) and returns its token; called
/// once the device is open, just before the first test, as late as before.
using ArmStop = std::function<const StopToken&()>;

/// Checks every input, opens the device with `open`, arms the stop and runs
/// every test against every peer. The error is what stopped it before the
/// first test (2 bad input, 3 no device), with its exit code; once tests
/// ran, their outcome whatever it holds (exit_code() says how it ends).
Result<RunOutcome> run_perf_matrix(const PerfRunRequest& request, const OpenDevice& open,
                                   const ArmStop& arm_stop);

}  // namespace fabscope::perf
