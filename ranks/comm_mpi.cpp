#include "ranks/comm_mpi.h"

#include <mpi.h>

#include <cstdlib>
#include <list>
#include <thread>

#include "ranks/launcher.h"
#include "util/exit_status.h"

namespace fabscope::perf {

namespace {
/// Between two tests of a wait: short against a step, long enough not to
/// take a core from the emulated NIC.
constexpr auto kPoll = std::chrono::microseconds(500);
}  // namespace

struct MpiComm::State {
    struct Send {
        std::string buffer;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    MPI_Comm comm = MPI_COMM_NULL;
    std::list<Send> sends;  // stable addresses: MPI reads the buffers until done

    /// Completes what can complete; a send that cannot (a dead peer) stays.
    void progress() {
        for (auto it = sends.begin(); it != sends.end();) {
            int done = 0;
            if (MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done) {
                if (!done && it->request != MPI_REQUEST_NULL) {
                    ++it;  // failed but still pending: keep the buffer alive
                    continue;
                }
                it = sends.erase(it);
            } else {
                ++it;
            }
        }
    }
};

MpiComm::MpiComm(std::unique_ptr<State> s) : s_(std::move(s)) {}

Result<std::unique_ptr<MpiComm>> MpiComm::init(int* argc, char*** argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized && MPI_Init(argc, argv) != MPI_SUCCESS)
        return make_error("mesh run: MPI_Init failed", kExitCannotRun);
    auto s = std::make_unique<State>();
    MPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    // A peer that dies must not take this rank with it: errors come back as codes.
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    std::unique_ptr<MpiComm> c(new MpiComm(std::move(s)));
    MPI_Comm_rank(c->s_->comm, &c->rank_);
    MPI_Comm_size(c->s_->comm, &c->size_);
    // The ranks on this host, by the launcher's idea of a host.
    MPI_Comm local = MPI_COMM_NULL;
    if (MPI_Comm_split_type(c->s_->comm, MPI_COMM_TYPE_SHARED, c->rank_, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(local, &c->local_rank_);
        MPI_Comm_free(&local);
    }
    return c;
}

MpiComm::~MpiComm() {
    if (skip_finalize_) return;
    s_->progress();
    MPI_Comm_free(&s_->comm);
    MPI_Finalize();
}

std::string MpiComm::library_version() {
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(v, &len);
    std::string s(v, static_cast<size_t>(len));
    if (auto nl = s.find_first_of(",\n"); nl != std::string::npos) s.resize(nl);
    return s;
}

std::string MpiComm::launcher() {
    return describe_launcher(library_version(), [](const char* name) { return std::getenv(name); });
}

void MpiComm::post_send(int peer, int tag, const std::string& msg) {
    State::Send& send = s_->sends.emplace_back();
    send.buffer = msg;
    if (MPI_Isend(send.buffer.data(), static_cast<int>(send.buffer.size()), MPI_CHAR, peer, tag,
                  s_->comm, &send.request) != MPI_SUCCESS) {
        s_->sends.pop_back();
    }
}

std::optional<std::string> MpiComm::try_receive(int peer, int tag) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(peer, tag, s_->comm, &flag, &st) != MPI_SUCCESS || !flag) return std::nullopt;
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    std::string msg(static_cast<size_t>(count), '\0');
    if (MPI_Recv(msg.data(), count, MPI_CHAR, peer, tag, s_->comm, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
        return std::nullopt;
    return msg;
}

std::optional<std::string> MpiComm::receive(int peer, int tag, MeshDeadline deadline) {
    for (;;) {
        s_->progress();
        if (auto m = try_receive(peer, tag)) return m;
        if (MeshClock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(kPoll);
    }
}

std::optional<std::string> MpiComm::exchange(int peer, int tag, const std::string& mine,
                                             MeshDeadline deadline) {
    post_send(peer, tag, mine);
    return receive(peer, tag, deadline);
}

MeshComm::Messages MpiComm::gather(int tag, const std::string& mine, const std::vector<char>& skip,
                                   MeshDeadline deadline,
                                   const std::function<bool(const Messages&)>& give_up) {
    if (rank_ != 0) {
        post_send(0, tag, mine);
        s_->progress();
        return {};
    }
    Messages got(static_cast<size_t>(size_));
    got[0] = mine;
    auto missing = [&] {
        size_t n = 0;
        for (int r = 1; r < size_; ++r) n += !got[r] && !skip[r];
        return n;
    };
    auto next_ask = MeshClock::now();
    while (missing() > 0 && MeshClock::now() < deadline) {
        s_->progress();
        bool arrived = false;
        for (int r = 1; r < size_; ++r) {
            if (got[r] || skip[r]) continue;
            if (auto m = try_receive(r, tag)) {
                got[r] = std::move(m);
                arrived = true;
            }
        }
        if (missing() == 0) break;
        if (arrived || MeshClock::now() >= next_ask) {
            if (give_up && give_up(got)) break;
            next_ask = MeshClock::now() + std::chrono::milliseconds(100);
        }
        if (!arrived) std::this_thread::sleep_for(kPoll);
    }
    return got;
}

std::optional<std::string> MpiComm::broadcast(int tag, const std::string& msg,
                                              const std::vector<char>& skip,
                                              MeshDeadline deadline) {
    if (rank_ != 0) return receive(0, tag, deadline);
    for (int r = 1; r < size_; ++r) {
        if (!skip[r]) post_send(r, tag, msg);
    }
    s_->progress();
    return msg;
}

}  // namespace fabscope::perf
