// Inputs and outputs that cannot be turned against the host (issue 27,
// section 3): only regular files are read, at once and within their limit;
// outputs go through a new file of a random name and replace only a regular
// file (or the one a symlink points at), keeping its mode. Each case failed
// before its fix: a FIFO blocked in open, /dev/zero was read to its limit, a
// link planted at FILE.tmp.PID was followed, a FIFO or read-only target was
// replaced by a regular file.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model/json_io.h"
#include "schedule/schedule_json.h"
#include "util/input_file.h"
#include "util/output_file.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

class IoSafety : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("fabscope-io-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    static std::string text_of(const std::string& p) {
        std::ifstream in(p);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    static Status write_text(const std::string& p, const std::string& text) {
        return json_io::write_file_atomically(p, [&](std::ostream& out) { out << text; });
    }
    fs::path dir_;
};

TEST_F(IoSafety, AFifoADeviceAndADirectoryAreRefusedAtOnceByName) {
    const std::string fifo = path("plan.yaml");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto r = read_text_file(fifo, 1 << 20);  // blocked in open before: no writer ever comes
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, 2);
    EXPECT_NE(r.error().message.find(fifo + ": a FIFO, not a regular file"), std::string::npos)
        << r.error().message;
    auto zero = read_text_file("/dev/zero", 1 << 20);
    ASSERT_FALSE(zero);
    EXPECT_NE(zero.error().message.find("a character device"), std::string::npos);
    auto d = read_text_file(dir_.string(), 1 << 20);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().message.find("a directory"), std::string::npos);
    EXPECT_FALSE(check_regular_input("/dev/null"));
    std::ofstream(path("ok.yaml")) << "fabscope_plan: 1\n";
    EXPECT_TRUE(check_regular_input(path("ok.yaml")));
}

TEST_F(IoSafety, StandardInputIsReadWithinItsLimitEvenFromAPipe) {
    const int saved = ::dup(STDIN_FILENO);
    ASSERT_GE(saved, 0);
    auto from_pipe = [&](const std::string& text, uint64_t max) {
        int fds[2];
        EXPECT_EQ(::pipe(fds), 0);
        EXPECT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
        ::close(fds[1]);
        ::dup2(fds[0], STDIN_FILENO);
        ::close(fds[0]);
        auto r = read_text_file("-", max);
        ::dup2(saved, STDIN_FILENO);
        return r;
    };
    auto small = from_pipe("fabscope_plan: 1\n", 1024);
    ASSERT_TRUE(small) << small.error().message;
    EXPECT_EQ(*small, "fabscope_plan: 1\n");
    auto big = from_pipe(std::string(2048, 'x'), 1024);
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().message.find("<stdin>: more than the"), std::string::npos)
        << big.error().message;
    ::close(saved);
}

TEST_F(IoSafety, APairsFileThatIsADeviceIsRefusedNotReadToItsLimit) {
    auto pairs = read_pair_names("/dev/zero");
    ASSERT_FALSE(pairs);
    EXPECT_NE(pairs.error().message.find("/dev/zero: a character device"), std::string::npos)
        << pairs.error().message;
}

TEST_F(IoSafety, ALinkPlantedWhereTheTemporaryFileUsedToBeIsNotFollowed) {
    const std::string out = path("report.json");
    const std::string victim = path("victim");
    std::ofstream(victim) << "precious\n";
    fs::create_symlink(victim, out + ".tmp." + std::to_string(::getpid()));
    ASSERT_TRUE(write_text(out, "{}\n"));
    EXPECT_EQ(text_of(victim), "precious\n");
    EXPECT_EQ(text_of(out), "{}\n");
    for (const auto& e : fs::directory_iterator(dir_))  // no temporary left behind
        EXPECT_EQ(e.path().filename().string().rfind(".report.json.", 0), std::string::npos);
}

TEST_F(IoSafety, OnlyARegularFileIsReplacedAndItKeepsItsMode) {
    const std::string fifo = path("metrics.prom");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto w = write_text(fifo, "x\n");
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().code, 2);
    EXPECT_NE(w.error().message.find("a FIFO, not a regular file"), std::string::npos);
    EXPECT_TRUE(fs::is_fifo(fifo)) << "left as it was";
    EXPECT_FALSE(write_text(dir_.string(), "x\n"));

    const std::string ro = path("frozen.json");
    std::ofstream(ro) << "old\n";
    fs::permissions(ro, fs::perms::owner_read | fs::perms::group_read);
    auto r = write_text(ro, "new\n");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("read-only (mode 0440)"), std::string::npos)
        << r.error().message;
    EXPECT_EQ(text_of(ro), "old\n");

    const std::string kept = path("kept.json");
    std::ofstream(kept) << "old\n";
    fs::permissions(kept, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    ASSERT_TRUE(write_text(kept, "new\n"));
    EXPECT_EQ(text_of(kept), "new\n");
    EXPECT_EQ(fs::status(kept).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(IoSafety, ALinkToARegularFileIsFollowedADanglingOneRefused) {
    const std::string real = path("real.prom");
    std::ofstream(real) << "old\n";
    const std::string link = path("link.prom");
    fs::create_symlink(real, link);
    ASSERT_TRUE(write_text(link, "new\n"));
    EXPECT_TRUE(fs::is_symlink(link)) << "the link stays";
    EXPECT_EQ(text_of(real), "new\n");
    const std::string dangling = path("dangling.prom");
    fs::create_symlink(path("nowhere"), dangling);
    EXPECT_FALSE(write_text(dangling, "x\n"));
    EXPECT_FALSE(fs::exists(path("nowhere")));
}

}  // namespace
}  // namespace fabscope
