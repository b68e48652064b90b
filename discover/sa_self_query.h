#pragma once
// Asks the subnet administrator for the path from a local port to itself:
// one SubnAdmGet(PathRecord) to the SM's LID (QP1, the GSI Q_Key) through
// the MAD engine, with a short deadline. A port whose SM is gone, or whose
// SA does not answer or answers nonsense, gets no path: `fabscope health`
// reports that, since no job on the port could resolve a path either.

#include <chrono>
#include <optional>
#include <string>

#include "discover/mad_transport.h"
#include "discover/sa_path_record.h"
#include "model/fabric.h"

namespace fabscope {

struct SaSelfTarget {
    std::string ca;  ///< "mlx5_0", "ibsim0"
    int port = 1;
    Lid lid = 0;
    Lid sm_lid = 0;
    sa::Gid gid{};  ///< the port's GID 0
};

struct SaSelfResult {
    enum class Outcome { Ok, NoAnswer, Error, CannotRun };
    Outcome outcome = Outcome::NoAnswer;
    std::string detail;  ///< what went wrong, for people ("" when Ok)
    std::optional<sa::PathRecord> record;
    double elapsed_ms = 0;
    int attempts = 0;
};

struct SaSelfOptions {
    std::chrono::milliseconds timeout{100};  ///< per attempt
    int retries = 1;
};

/// The query over `transport`: the path record must run from the port's GID
/// to itself and name the port's LID at both ends.
SaSelfResult query_self_path(MadTransport& transport, const Clock& clock,
                             const SaSelfTarget& target, const SaSelfOptions& options);

/// The same over libibumad on `target`'s CA and port (the kernel's umad or
/// the simulator's); a port that cannot be opened is CannotRun.
SaSelfResult query_self_path_umad(const SaSelfTarget& target, const SaSelfOptions& options);

std::string_view name(SaSelfResult::Outcome o);  ///< "ok", "no_answer", "error", "cannot_run"

}  // namespace fabscope
