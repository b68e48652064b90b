// A finished command ends with its own exit code whatever a library's exit
// handler would do (umad2sim's hung once and crashed once in lab runs), and
// what it printed is not lost.

#include "util/end_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "util/process.h"

namespace fabscope {
namespace {

void hang() {
    for (;;) pause();
}

void crash() {
    std::raise(SIGSEGV);
}

/// Runs `handler` as an exit handler in a child that then ends with code 3,
/// its output (buffered, not yet flushed) to `out`.
RunResult end_with(void (*handler)(), const std::string& out) {
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        std::FILE* f = std::freopen(out.c_str(), "w", stdout);
        if (!f) _exit(99);
        std::atexit(handler);
        std::printf("the report\n");  // still in stdio's buffer
        end_process(3);
    }
    return wait_child(child, std::chrono::milliseconds(20000));
}

TEST(EndProcess, AHangingOrCrashingExitHandlerDoesNotChangeTheCodeOrLoseOutput) {
    for (auto* handler : {hang, crash}) {
        const std::string out = ::testing::TempDir() + "end-process.out";
        const auto t0 = std::chrono::steady_clock::now();
        RunResult r = end_with(handler, out);
        EXPECT_FALSE(r.timed_out);
        EXPECT_EQ(r.exit_code, 3);
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
        std::FILE* f = std::fopen(out.c_str(), "r");
        ASSERT_NE(f, nullptr);
        char line[64] = {};
        EXPECT_NE(std::fgets(line, sizeof line, f), nullptr);
        std::fclose(f);
        EXPECT_EQ(std::string(line), "the report\n");
    }
}

}  // namespace
}  // namespace fabscope
