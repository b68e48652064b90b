#pragma once
// `mesh plan`: the plan `mesh run` would run over a snapshot, without
// sending traffic. The ranks are the snapshot's host ports that are up with
// a LID, one each (a rank's host is the first word of its node's
// description, its plane the snapshot's, as `--devices` gives one device a
// plane), the routes are the snapshot's, and the plan is plan_run's, the
// run's own dispatch (mesh/plan.h): a cover with nothing to cover tests
// every pair, all-pairs pairs within each plane, a ring per plane. The
// rounds come back as the scheduler's over the endpoints, for
// schedule/schedule_json.h to print. Incast is the scheduler's: K senders
// to one receiver (`mesh run --pattern incast` has no rounds to plan: the
// receiver, the prober and every other rank sending).

#include <memory>
#include <string>
#include <vector>

#include "mesh/plan.h"
#include "mesh/run_data.h"
#include "model/fabric.h"
#include "schedule/schedule.h"
#include "util/result.h"

namespace fabscope::perf {

struct DryRunRequest {
    PlanRequest plan;        ///< its pattern and cover's options; its pairs read here
    std::string pairs_file;  ///< "pairs": "SRC DST" lines
    size_t incast = 0;       ///< "incast": the senders
    std::string receiver;    ///< "incast": the receiver (default: the first endpoint)
};

struct DryRun {
    std::vector<MeshEndpoint> endpoints;  ///< rank i's port is endpoint i
    MeshRunData run;                      ///< the ranks and the plan, as plan_run left them
    /// The plan's rounds over the endpoints, with the lanes they cross and
    /// the pairs without a path.
    Schedule schedule;
};

/// The plan over `routes` (the snapshot read from `from`). Errors (exit 2,
/// "mesh plan: ..." naming `from`, or the pairs file and line): an unknown pattern, no
/// forwarding tables, fewer than two endpoints, a pair not in the snapshot,
/// incast without K, or a pattern with nothing to plan.
Result<DryRun> dry_run(std::shared_ptr<const Fabric> routes, const std::string& from,
                       const DryRunRequest& r);

}  // namespace fabscope::perf
