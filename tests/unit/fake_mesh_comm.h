#pragma once
// An in-process MeshComm for unit tests: one thread per rank, messages in a
// shared post office, every wait with the deadline the real one (MPI) has.
// A rank "dies" by throwing Died, which nothing under test catches. The real
// launcher is tested in the VM lab.

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ranks/comm.h"

namespace fabscope::perf::fake {

class PostOffice {
  public:
    void post(int from, int to, int tag, std::string m) {
        std::lock_guard l(m_);
        box_[{from, to, tag}].push_back(std::move(m));
        cv_.notify_all();
    }
    std::optional<std::string> take(int from, int to, int tag, MeshDeadline d) {
        std::unique_lock l(m_);
        for (;;) {
            auto it = box_.find({from, to, tag});
            if (it != box_.end() && !it->second.empty()) {
                std::string m = std::move(it->second.front());
                it->second.erase(it->second.begin());
                return m;
            }
            if (cv_.wait_until(l, d) == std::cv_status::timeout && MeshClock::now() >= d)
                return std::nullopt;
        }
    }

  private:
    std::mutex m_;
    std::condition_variable cv_;
    std::map<std::tuple<int, int, int>, std::vector<std::string>> box_;
};

/// Thrown when a rank "dies": not a std::exception, so nothing in the
/// logic under test catches it, as nothing survives a SIGKILL.
struct Died {};

class FakeComm final : public MeshComm {
  public:
    FakeComm(PostOffice& po, int rank, int size, int local_rank)
        : po_(po), rank_(rank), size_(size), local_rank_(local_rank) {}
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return local_rank_; }
    std::optional<std::string> exchange(int peer, int tag, const std::string& mine,
                                        MeshDeadline d) override {
        alive();
        po_.post(rank_, peer, tag, mine);
        return po_.take(peer, rank_, tag, d);
    }
    Messages gather(int tag, const std::string& mine, const std::vector<char>& skip, MeshDeadline d,
                    const std::function<bool(const Messages&)>& give_up) override {
        alive();
        if (rank_ != 0) {
            po_.post(rank_, 0, tag, mine);
            return {};
        }
        Messages got(static_cast<size_t>(size_));
        got[0] = mine;
        for (;;) {
            bool missing = false;
            for (int r = 1; r < size_; ++r) {
                if (got[r] || skip[r]) continue;
                got[r] = po_.take(r, 0, tag, MeshClock::now());
                missing = missing || !got[r];
            }
            if (!missing || MeshClock::now() >= d || (give_up && give_up(got))) return got;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    std::optional<std::string> broadcast(int tag, const std::string& msg,
                                         const std::vector<char>& skip, MeshDeadline d) override {
        alive();
        if (rank_ != 0) {
            auto m = po_.take(0, rank_, tag, d);
            ++broadcasts_;
            return m;
        }
        for (int r = 1; r < size_; ++r) {
            if (!skip[r]) po_.post(0, r, tag, msg);
        }
        return msg;
    }
    /// Dies at its next call after this many broadcasts received (the plan is the first).
    int die_after_broadcasts = -1;

  private:
    void alive() const {
        if (die_after_broadcasts >= 0 && broadcasts_ >= die_after_broadcasts) throw Died{};
    }
    PostOffice& po_;
    int rank_;
    int size_;
    int local_rank_;
    int broadcasts_ = 0;
};

}  // namespace fabscope::perf::fake
