#include "perf/cq_wait.h"

#include <poll.h>

namespace fabscope::perf {

bool CqWaiter::after_poll(int n) {
    if (n != 0 || !channel_) {
        empty_ = 0;
        return false;
    }
    if (++empty_ < spins_) return false;
    if (!armed_) {
        if (ibv_req_notify_cq(cq_, 0) != 0) {
            empty_ = 0;  // cannot arm: keep spinning
            return false;
        }
        armed_ = true;
        // Poll once more before sleeping: a completion that arrived before
        // the CQ was armed raises no event.
        return false;
    }
    empty_ = 0;
    ++sleeps_;
    pollfd p{channel_->fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(nap_.count())) > 0) {
        ibv_cq* cq = nullptr;
        void* context = nullptr;
        if (ibv_get_cq_event(channel_, &cq, &context) == 0) {
            ibv_ack_cq_events(cq, 1);
            armed_ = false;  // an event disarms the CQ
        }
    }
    return true;
}

}  // namespace fabscope::perf
