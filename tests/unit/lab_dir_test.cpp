// Lab commands never touch what is not the lab's: names stay inside the lab
// folder, a directory is used only when new, empty or the lab's own, and only
// the lab's own files are removed.

#include "lab/lab_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lab/ib_lab.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

class LabDir : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("fabscope-labdir-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_);
        const char* old = std::getenv("FABSCOPE_LAB_BASE");
        old_base_ = old ? old : "";
        had_base_ = old != nullptr;
    }
    void TearDown() override {
        if (had_base_)
            ::setenv("FABSCOPE_LAB_BASE", old_base_.c_str(), 1);
        else
            ::unsetenv("FABSCOPE_LAB_BASE");
        fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add);
        fs::remove_all(root_);
    }
    std::string path(const std::string& rel) const { return (root_ / rel).string(); }
    static void touch(const std::string& p, const std::string& text = "x") {
        std::ofstream(p) << text;
    }
    static void write_state(const std::string& dir) {
        touch(dir + "/state.json",
              R"({"format":"fabscope-lab","dir":")" + dir +
                  R"(","sockname":"s","net_file":"n","stats":{},"processes":{"ibsim":{},)"
                  R"("opensm":{},"supervisor":{}}})");
    }

    fs::path root_;
    std::string old_base_;
    bool had_base_ = false;
};

TEST_F(LabDir, NamesArePlainNames) {
    for (const char* ok : {"default", "b", "lab-2", "my_lab.1"})
        EXPECT_TRUE(check_lab_name(ok)) << ok;
    for (const char* bad : {"", ".", "..", "../x", "a/b", "/etc", ".hidden", "a b", "x\n"}) {
        auto r = check_lab_name(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, kExitUsage);
    }
    ::setenv("FABSCOPE_LAB_BASE", path("base").c_str(), 1);
    auto d = resolve_lab_dir("../../etc", "");
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().code, kExitUsage);
    d = resolve_lab_dir("b", "");
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(*d, path("base") + "/b");
}

TEST_F(LabDir, TheBaseFolderIsPrivate) {
    const std::string base = path("base");
    ASSERT_TRUE(ensure_private_base(base));
    struct stat st {};
    ASSERT_EQ(::stat(base.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ::chmod(base.c_str(), 0777);
    auto r = ensure_private_base(base);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, kExitCannotRun);
    EXPECT_NE(r.error().message.find("writable by others"), std::string::npos);
    ::chmod(base.c_str(), 0720);
    EXPECT_FALSE(ensure_private_base(base));
    // A symlink in place of the base folder is refused, wherever it points.
    fs::create_directory(path("elsewhere"));
    fs::create_directory_symlink(path("elsewhere"), path("link"));
    EXPECT_FALSE(ensure_private_base(path("link")));
}

TEST_F(LabDir, UpUsesOnlyNewEmptyOrItsOwnDirectory) {
    EXPECT_EQ(*check_lab_dir_for_up(path("new")), LabDirUse::Create);
    fs::create_directory(path("empty"));
    EXPECT_EQ(*check_lab_dir_for_up(path("empty")), LabDirUse::UseEmpty);
    fs::create_directory(path("home"));
    touch(path("home/thesis.tex"));
    auto r = check_lab_dir_for_up(path("home"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, kExitUsage);
    // A state file of another directory's lab is not this lab's.
    fs::create_directory(path("copied"));
    write_state(path("home"));
    fs::copy_file(path("home/state.json"), path("copied/state.json"));
    EXPECT_FALSE(check_lab_dir_for_up(path("copied")));
    fs::create_directory(path("lab"));
    write_state(path("lab"));
    EXPECT_EQ(*check_lab_dir_for_up(path("lab")), LabDirUse::ReuseLab);
    EXPECT_EQ(*check_lab_dir_for_up(path("lab") + "/"), LabDirUse::ReuseLab);
    touch(path("file"));
    EXPECT_FALSE(check_lab_dir_for_up(path("file")));
}

TEST_F(LabDir, DownRefusesADirectoryWithoutLabState) {
    fs::create_directory(path("home"));
    touch(path("home/thesis.tex"));
    auto r = lab_down(path("home"), false);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, kExitUsage);
    EXPECT_TRUE(fs::exists(path("home/thesis.tex")));
    // Another lab's state copied in is not this directory's lab either.
    fs::create_directory(path("lab"));
    write_state(path("lab"));
    fs::copy_file(path("lab/state.json"), path("home/state.json"));
    EXPECT_FALSE(lab_down(path("home"), false));
    EXPECT_TRUE(fs::exists(path("home/thesis.tex")));
}

TEST_F(LabDir, DownRemovesOnlyTheLabsFiles) {
    const std::string dir = path("lab");
    fs::create_directory(dir);
    write_state(dir);
    for (const char* f : {"net", "console", "ibsim.out", "opensm.out", "supervisor.log"})
        touch(dir + "/" + f);
    fs::create_directories(dir + "/osm");
    touch(dir + "/osm/opensm.log");
    fs::create_directories(dir + "/sys-1234/class");
    touch(dir + "/notes.txt");
    fs::create_directory(path("precious"));
    touch(path("precious/keep"));
    fs::create_directory_symlink(path("precious"), dir + "/sys-99");  // not the lab's folder
    auto left = lab_down(dir, false);
    ASSERT_TRUE(left) << left.error().message;
    EXPECT_EQ(*left, (std::vector<std::string>{"notes.txt", "sys-99"}));
    EXPECT_TRUE(fs::exists(dir + "/notes.txt"));
    EXPECT_FALSE(fs::exists(dir + "/state.json"));
    EXPECT_FALSE(fs::exists(dir + "/osm"));
    EXPECT_FALSE(fs::exists(dir + "/sys-1234"));
    EXPECT_TRUE(fs::exists(path("precious/keep")));
}

TEST_F(LabDir, DownRemovesTheDirectoryOnlyIfUpCreatedIt) {
    const std::string dir = path("lab");
    fs::create_directory(dir);
    write_state(dir);
    ASSERT_TRUE(lab_down(dir, false));
    EXPECT_TRUE(fs::exists(dir));  // it was there before the lab
    LabState s;
    s.dir = dir;
    s.created_dir = true;
    ASSERT_TRUE(save_lab_state(s));
    ASSERT_TRUE(lab_down(dir, false));
    EXPECT_FALSE(fs::exists(dir));
}

TEST_F(LabDir, NoLabHintNamesTheLabAsGiven) {
    auto r = load_lab_state(path("none"), which_flags("b", ""));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("fabscope lab up --name b`"), std::string::npos)
        << r.error().message;
    r = load_lab_state(path("none"), which_flags("default", "/tmp/my lab"));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("fabscope lab up --dir '/tmp/my lab'`"), std::string::npos)
        << r.error().message;
    EXPECT_EQ(which_flags("default", ""), "");
}

}  // namespace
}  // namespace fabscope
