// A finished command ends even when an exit handler hangs, as umad2sim's
// did once in a lab run: with its own exit code, within the grace given.

#include "util/exit_watchdog.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "util/process.h"

namespace fabscope {
namespace {

void hang() {
    for (;;) pause();
}

TEST(ExitWatchdog, AHangingExitHandlerEndsWithTheCommandsCode) {
    std::fflush(nullptr);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::atexit(hang);
        exit_within(3, std::chrono::seconds(1));
        std::exit(3);
    }
    const auto t0 = std::chrono::steady_clock::now();
    RunResult r = wait_child(child, std::chrono::milliseconds(20000));
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

}  // namespace
}  // namespace fabscope
