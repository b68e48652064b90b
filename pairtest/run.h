#pragma once
// `fabscope perf run`: every test against every peer, test by test (so each
// comparison is measured close in time), keeping what was measured whatever
// happens: a peer that cannot be reached is skipped for the rest of the run,
// one that answers nonsense fails that test only, and an interrupt stops
// the run between tests with every result so far (the report then says
// complete: false).

#include <functional>
#include <string>
#include <vector>

#include "pairtest/results/compare.h"
#include "pairtest/results/report.h"
#include "pairtest/session.h"
#include "rdma/verbs_device.h"
#include "util/interrupt.h"

namespace fabscope::perf {

struct RunPlan {
    std::vector<std::string> peers;
    std::vector<TestSpec> specs;
    PeerOptions peer;
    double degraded_at = 0.7;
};

struct RunOutcome {
    std::vector<TestResult> results;
    std::vector<PerfFinding> findings;
    PerfRunMeta meta;
    bool nothing_ran = false;  ///< no peer could be reached
};

/// Called after each test run with its result and whether the server was reached.
using OnResult = std::function<void(const TestResult&, bool reachable)>;

RunOutcome run_tests(const VerbsDevice& dev, const RunPlan& plan, const StopToken& stop,
                     const OnResult& on_result);

/// 130 if interrupted, 3 if nothing ran, 1 with findings, else 0.
int exit_code(const RunOutcome& out);

/// A peer argument that looks like a flag's value ("4" from `-q 4`): an
/// error saying which perftest flag fabscope spells differently.
Status check_peer_name(const std::string& peer);

}  // namespace fabscope::perf
