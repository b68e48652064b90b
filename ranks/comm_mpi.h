#pragma once
// The MeshComm of a run launched by mpirun or srun: point-to-point MPI
// messages on a duplicate of MPI_COMM_WORLD whose errors return instead of
// aborting, each wait a test loop against its deadline (ranks/comm.h
// says why there are no blocking collectives). Built only when CMake finds
// MPI (FABSCOPE_HAVE_MPI).

#include <memory>
#include <string>

#include "ranks/comm.h"
#include "util/result.h"

namespace fabscope::perf {

class MpiComm final : public MeshComm {
  public:
    /// MPI_Init. An error (exit 3) when MPI cannot start.
    static Result<std::unique_ptr<MpiComm>> init(int* argc, char*** argv);
    /// MPI_Finalize, unless finalize_with_peers_gone() was called.
    ~MpiComm() override;
    MpiComm(const MpiComm&) = delete;
    MpiComm& operator=(const MpiComm&) = delete;

    /// Some rank died: MPI_Finalize would wait for it, so leave it out (the
    /// process exits without it; mpirun --enable-recovery accepts that).
    void finalize_with_peers_gone() { skip_finalize_ = true; }
    /// "Open MPI v4.1.4" (MPI_Get_library_version, first line).
    static std::string library_version();
    /// The library and, in a Slurm step, the job and step (ranks/launcher.h).
    static std::string launcher();

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return local_rank_; }
    std::optional<std::string> exchange(int peer, int tag, const std::string& mine,
                                        MeshDeadline deadline) override;
    Messages gather(int tag, const std::string& mine, const std::vector<char>& skip,
                    MeshDeadline deadline,
                    const std::function<bool(const Messages& so_far)>& give_up) override;
    std::optional<std::string> broadcast(int tag, const std::string& msg,
                                         const std::vector<char>& skip,
                                         MeshDeadline deadline) override;

  private:
    struct State;  ///< the MPI handles: mpi.h stays in one file
    explicit MpiComm(std::unique_ptr<State> s);
    /// Starts sending `msg`; its buffer lives as long as this object, since
    /// a send to a dead peer may never complete.
    void post_send(int peer, int tag, const std::string& msg);
    /// A message of `tag` from `peer` if one has arrived (never waits).
    std::optional<std::string> try_receive(int peer, int tag);
    std::optional<std::string> receive(int peer, int tag, MeshDeadline deadline);

    std::unique_ptr<State> s_;
    int rank_ = 0;
    int size_ = 1;
    int local_rank_ = 0;
    bool skip_finalize_ = false;
};

}  // namespace fabscope::perf
