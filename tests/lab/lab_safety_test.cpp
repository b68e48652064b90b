// Lab commands never touch what is not the lab's (issue 9, section 1): names
// stay in the lab folder, a directory holding anything else is refused,
// `lab down` stops only processes that are exactly the lab's, and the hidden
// PortInfo writer refuses to run outside the lab's simulator.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab_harness.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string make_home_dir() {
    std::string dir = scratch_path("home");
    fs::create_directories(dir + "/sub");
    std::ofstream(dir + "/thesis.tex") << "years of work\n";
    std::ofstream(dir + "/sub/data") << "more\n";
    return dir;
}

bool intact(const std::string& dir) {
    return fs::exists(dir + "/thesis.tex") && fs::exists(dir + "/sub/data");
}

TEST(LabSafety, DownRefusesADirectoryThatIsNotALab) {
    std::string home = make_home_dir();
    CmdResult r = run({fabscope(), "lab", "down", "--dir", home});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("holds no fabscope lab"), std::string::npos) << r.err;
    EXPECT_TRUE(intact(home));
    fs::remove_all(home);
}

TEST(LabSafety, UpRefusesADirectoryHoldingOtherFiles) {
    std::string home = make_home_dir();
    CmdResult r = run({fabscope(), "lab", "up", "--dir", home, "--spines", "1", "--leaves", "1",
                       "--hosts-per-leaf", "1"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(intact(home));
    EXPECT_FALSE(fs::exists(home + "/state.json"));
    fs::remove_all(home);
}

TEST(LabSafety, NamesArePlainNames) {
    for (const char* name : {"../x", "../../tmp", "a/b", "..", "", ".hidden"}) {
        CmdResult r = run({fabscope(), "lab", "down", "--name", name});
        EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
        EXPECT_NE(r.err.find("plain name"), std::string::npos) << r.err;
    }
}

TEST(LabSafety, TheLabFolderMustBePrivate) {
    std::string base = scratch_path("open-base");
    fs::create_directories(base);
    ::chmod(base.c_str(), 0777);
    CmdResult r = run({fabscope(), "lab", "status", "--name", "x"}, std::chrono::seconds(30),
                      {{"FABSCOPE_LAB_BASE", base}});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("writable by others"), std::string::npos) << r.err;
    fs::remove_all(base);
}

TEST(LabSafety, NoLabHintNamesTheLabTheUserGave) {
    CmdResult r = run({fabscope(), "lab", "status", "--name", "nosuchlab"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("fabscope lab up --name nosuchlab`"), std::string::npos) << r.err;
    std::string dir = scratch_path("nolab");
    r = run({fabscope(), "lab", "exec", "--dir", dir, "--", "true"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("fabscope lab up --dir " + dir + "`"), std::string::npos) << r.err;
}

TEST(LabSafety, DownStopsOnlyTheProcessesItRecorded) {
    // A state file naming a process that is not the lab's: one without start
    // time, one with the wrong command line. Neither may be stopped.
    auto a = spawn({.argv = {"sleep", "60"}});
    auto b = spawn({.argv = {"sleep", "61"}});
    ASSERT_TRUE(a && b);
    std::string dir = scratch_path("fake-lab");
    fs::create_directories(dir);
    json state{{"format", "fabscope-lab"},
               {"dir", dir},
               {"sockname", "none"},
               {"net_file", dir + "/net"},
               {"stats", json::object()},
               {"processes",
                {{"ibsim", {{"pid", a->pid}, {"start_time", 0}, {"cmdline", a->cmdline}}},
                 {"opensm", {{"pid", b->pid}, {"start_time", b->start_time}}},
                 {"supervisor",
                  {{"pid", b->pid}, {"start_time", b->start_time}, {"cmdline", "opensm -F x"}}}}}};
    std::ofstream(dir + "/state.json") << state.dump();
    CmdResult r = run({fabscope(), "lab", "down", "--dir", dir});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(is_running(*a)) << "lab down stopped a process recorded without start time";
    EXPECT_TRUE(is_running(*b)) << "lab down stopped a process whose command line differs";
    stop_process(*a, std::chrono::milliseconds(1000));
    stop_process(*b, std::chrono::milliseconds(1000));
    fs::remove_all(dir);
}

TEST(LabSafety, SetPortRefusesToRunOutsideTheLab) {
    CmdResult r = run({fabscope(), "lab", "_set-port", "leaf01", "2", "width", "1x"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("not attached to a lab's simulator"), std::string::npos) << r.err;

    Lab lab({"--spines", "1", "--leaves", "2", "--hosts-per-leaf", "1"});
    ASSERT_TRUE(lab.up());
    // Pointed at a running lab, but not a client of its simulator.
    r = run({fabscope(), "lab", "_set-port", "leaf01", "2", "width", "1x"},
            std::chrono::seconds(30), {{"FABSCOPE_LAB_DIR", lab.dir()}});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("not attached"), std::string::npos) << r.err;
    // A client of the simulator, but of another socket than this lab's.
    r = run({fabscope(), "lab", "_set-port", "leaf01", "2", "width", "1x"},
            std::chrono::seconds(30),
            {{"FABSCOPE_LAB_DIR", lab.dir()},
             {"LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"},
             {"IBSIM_SOCKNAME", "someone-elses-sim"}});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("IBSIM_SOCKNAME"), std::string::npos) << r.err;
    // Through `lab exec` it is attached (and the fault works).
    r = lab.exec({fabscope(), "lab", "_set-port", "leaf01", "2", "width", "1x"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace fabscope::labtest
