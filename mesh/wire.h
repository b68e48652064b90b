#pragma once
// What a rank of a launcher-run test (`mesh run`, its incast pattern) does
// with its device, the same in both: opening it, and one bandwidth
// measurement reported as the ranks report it.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ranks/rank.h"
#include "rdma/open_device.h"
#include "rdma/test_spec.h"
#include "rdma/verbs_device.h"
#include "util/duration.h"
#include "util/interrupt.h"

namespace fabscope::perf {

/// This rank's device and plane: `device` (-d; "" the first), or with
/// `devices` (--devices) the one of local rank `local_rank`, which is then
/// its plane; a local rank beyond them gets the reason in `self.error`.
void choose_device(int local_rank, const std::string& device,
                   const std::vector<std::string>& devices, MeshRank& self);

/// Opens this rank's device: `self` takes the device's name and port as
/// opened, or the reason it could not be opened (then nullptr).
std::unique_ptr<VerbsDevice> open_rank_device(const OpenDevice& open, MeshRank& self);

/// The LID and port GUID of `dev`'s port (InfiniBand: rank 0 finds the
/// port in its snapshot by them) and, with `want_address`, the IPv4 address
/// of its RoCE GID (flows come from it), from an endpoint of `cfg`; nothing
/// when no endpoint can be created (the run's own set-up says why later).
void learn_port(const VerbsDevice& dev, const EndpointConfig& cfg, MeshRank& self,
                bool want_address);

/// One WRITE bandwidth test of `spec` on a connected endpoint, ended by
/// `stop` or after its duration, warm-up and `step_timeout`; the result as
/// the ranks report it (ok, error, avg/peak/min-window Gb/s, bytes, seconds).
nlohmann::json measure_bandwidth(TestEndpoint& ep, const TestSpec& spec, Millis step_timeout,
                                 const StopToken& stop);

}  // namespace fabscope::perf
