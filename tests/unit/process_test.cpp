// A process is recognised again only by PID, start time and command line
// together: a record missing any of them matches nothing, so `lab down`
// never stops a process that is not the lab's.

#include "util/process.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(Process, RecognisedByPidStartTimeAndCommandLine) {
    auto child = spawn({.argv = {"sleep", "30"}});
    ASSERT_TRUE(child) << child.error().message;
    EXPECT_GT(child->start_time, 0u);
    EXPECT_EQ(child->cmdline, "sleep 30");
    EXPECT_TRUE(is_running(*child));

    ProcessId no_start = *child;
    no_start.start_time = 0;
    EXPECT_FALSE(is_running(no_start));
    ProcessId other_start = *child;
    other_start.start_time += 1;
    EXPECT_FALSE(is_running(other_start));
    ProcessId no_cmd = *child;
    no_cmd.cmdline.clear();
    EXPECT_FALSE(is_running(no_cmd));
    ProcessId other_cmd = *child;
    other_cmd.cmdline = "sleep 31";
    EXPECT_FALSE(is_running(other_cmd));

    // A record that does not match is never stopped.
    for (const ProcessId& p : {no_start, other_start, no_cmd, other_cmd})
        stop_process(p, std::chrono::milliseconds(100));
    EXPECT_TRUE(is_running(*child));
    stop_process(*child, std::chrono::milliseconds(2000));
    EXPECT_FALSE(is_running(*child));
}

TEST(Process, TheRecordIsTheNewProgramsEvenWhileItsExecIsStillLoading) {
    // The error pipe closes early in exec, before the kernel has set up the
    // new program's arguments: a record read at that moment had an empty
    // command line, matched nothing, and the lab could not stop its own process.
    // A race: seen under load (ctest -j2), so this repeats the spawn.
    for (int i = 0; i < 50; ++i) {
        auto child = spawn({.argv = {"sleep", "30"}});
        ASSERT_TRUE(child) << child.error().message;
        EXPECT_EQ(child->cmdline, "sleep 30") << "spawn " << i;
        EXPECT_TRUE(is_running(*child)) << "spawn " << i;
        stop_process(*child, std::chrono::milliseconds(2000));
        if (::testing::Test::HasFailure()) break;
    }
}

TEST(Process, WaitChildStopsItsOwnChildOnTimeout) {
    auto child = spawn({.argv = {"sleep", "30"}});
    ASSERT_TRUE(child);
    RunResult r = wait_child(child->pid, std::chrono::milliseconds(200));
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(process_start_time(child->pid));
}

}  // namespace
}  // namespace fabscope
