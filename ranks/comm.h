#pragma once
// What a fabric-wide test needs from its launcher (MPI, or in tests an
// in-process fake): who am I, how many are we, and three exchanges that each
// end by a deadline, so a rank that died or hangs delays the others by at
// most that long and never stops them.
//
// Why not MPI_Barrier / MPI_Gather: once one rank is dead, no collective over
// the job's communicator completes again (Open MPI 4.1 has no ULFM shrink),
// and a pending MPI_Ibarrier cannot be cancelled. Point-to-point messages
// to and from rank 0 can: rank 0 collects what arrives by the deadline,
// names the ranks that did not report, and tells the survivors to go on
// without them. gather + broadcast is the barrier between steps.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fabscope::perf {

using MeshClock = std::chrono::steady_clock;
using MeshDeadline = MeshClock::time_point;

class MeshComm {
  public:
    virtual ~MeshComm() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// This rank's index among the ranks on its host (0 when alone): with
    /// several HCAs per host, local rank i takes device i (plane i).
    virtual int local_rank() const = 0;

    /// Sends `mine` to `peer` and returns the peer's message of the same
    /// `tag`; nullopt when it did not arrive by `deadline` (the peer is gone,
    /// hangs, or is behind by a whole step).
    virtual std::optional<std::string> exchange(int peer, int tag, const std::string& mine,
                                                MeshDeadline deadline) = 0;

    using Messages = std::vector<std::optional<std::string>>;
    /// Rank 0: every rank's message of `tag` (its own `mine` at index 0),
    /// nullopt for ranks marked in `skip` and for those that did not deliver
    /// by `deadline`, or earlier once `give_up(so_far)` says the missing ones
    /// will not come (asked when a message arrives and every 100 ms). Other
    /// ranks: send `mine` to rank 0 and return an empty vector.
    virtual Messages gather(int tag, const std::string& mine, const std::vector<char>& skip,
                            MeshDeadline deadline,
                            const std::function<bool(const Messages& so_far)>& give_up) = 0;

    /// Rank 0: sends `msg` to every rank not in `skip` and returns it.
    /// Other ranks: rank 0's message of `tag`, nullopt by `deadline`.
    virtual std::optional<std::string> broadcast(int tag, const std::string& msg,
                                                 const std::vector<char>& skip,
                                                 MeshDeadline deadline) = 0;
};

}  // namespace fabscope::perf
