#include "lab/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "lab/ib_lab.h"
#include "lab/sim_console.h"
#include "lab/sim_proxy.h"
#include "util/exit_status.h"
#include "util/time_util.h"

namespace fabscope {

namespace fs = std::filesystem;

int run_supervisor(const std::string& dir, const std::string& sockname) {
    SimConsole console(dir);
    // O_RDWR never blocks on a fifo and keeps a writer present for the simulator.
    int fd = ::open(console.fifo_path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        std::fprintf(stderr, "supervisor: %s: %s\n", console.fifo_path().c_str(),
                     std::strerror(errno));
        return kExitCannotRun;
    }
    SimProxy proxy(sockname, LabState{.sockname = sockname}.proxy_sockname(), dir + "/silent.json");
    if (!proxy.start()) {
        std::fprintf(stderr, "supervisor: cannot bind the relay's sockets: %s\n",
                     std::strerror(errno));
        return kExitCannotRun;
    }
    { std::ofstream(dir + "/supervisor.ready") << ::getpid() << "\n"; }
    ::signal(SIGTERM, SIG_DFL);
    Stopwatch since_start;
    Stopwatch since_check;
    for (;;) {
        proxy.poll_once(std::chrono::milliseconds(200));
        if (since_check.seconds() < 1.0) continue;
        since_check = Stopwatch();
        if (!fs::exists(dir)) return kExitClean;  // lab removed
        auto s = load_lab_state(dir);
        if (!s || s->ibsim.pid == 0) {
            // Not up yet (the state is written before the simulator starts).
            if (since_start.seconds() > 900) return kExitCannotRun;
            continue;
        }
        if (!is_running(s->ibsim)) return kExitClean;
        proxy.forget_dead_clients();
        if (auto r = reap_dead_clients(dir); r && *r > 0) {
            std::fprintf(stderr, "supervisor: freed %d simulator slot(s) of dead clients\n", *r);
            std::fflush(stderr);
        }
    }
}

}  // namespace fabscope
