// fabscope perf flags, run as a user types them, on a host with or without
// an RDMA device: what must be refused is refused (exit 2) before any device
// is opened, and perftest's short flags mean what perftest users expect.

#include <gtest/gtest.h>

#include "lab_harness.h"

namespace fabscope::labtest {
namespace {

TEST(PerfCli, BadServeFlagsAreUsageErrorsBeforeTheDevice) {
    CmdResult listen = run({fabscope(), "perf", "serve", "--listen", "10.0.0"});
    EXPECT_EQ(listen.exit_code, 2) << listen.err;
    EXPECT_NE(listen.err.find("--listen 10.0.0: not an IP address"), std::string::npos)
        << listen.err;
    CmdResult idle = run({fabscope(), "perf", "serve", "--idle-timeout", "soon"});
    EXPECT_EQ(idle.exit_code, 2) << idle.err;
    EXPECT_NE(idle.err.find("--idle-timeout soon"), std::string::npos) << idle.err;
    CmdResult allow = run({fabscope(), "perf", "serve", "--allow", "10.0.0.0/40"});
    EXPECT_EQ(allow.exit_code, 2) << allow.err;
    CmdResult secret = run({fabscope(), "perf", "serve", "--secret-file", "/nonexistent/secret"});
    EXPECT_EQ(secret.exit_code, 2) << secret.err;
    for (const char* session : {"forever", "0", "8d"}) {
        CmdResult r = run({fabscope(), "perf", "serve", "--max-session", session});
        EXPECT_EQ(r.exit_code, 2) << session << ": " << r.err;
        EXPECT_NE(r.err.find(std::string("--max-session ") + session + ": use a duration up to 7d"),
                  std::string::npos)
            << r.err;
    }
}

TEST(PerfCli, ABareNumberWhereAPeerGoesIsRefused) {
    // -q is --quiet: "4" would otherwise be a peer named 4.
    CmdResult r = run({fabscope(), "perf", "run", "h2", "-q", "4"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("peer \"4\" is a number"), std::string::npos) << r.err;
}

TEST(PerfCli, DashTIsTheTxDepthAsInPerftest) {
    // Accepted as a depth (the run then needs a device); as --test it was "--test 64: use
    // write...".
    CmdResult r = run({fabscope(), "perf", "run", "127.0.0.1", "-t", "64", "-D", "1s"});
    EXPECT_NE(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.find("--test"), std::string::npos) << r.err;
    CmdResult test = run({fabscope(), "perf", "run", "127.0.0.1", "--test", "atomic"});
    EXPECT_EQ(test.exit_code, 2) << test.err;
}

}  // namespace
}  // namespace fabscope::labtest
