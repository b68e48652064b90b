// The bash completion (completion/fabscope.bash) against the binary it
// completes: every subcommand, at every level, and every option of each one
// is offered. The expected names come from the binary's --help, read here on
// its own, so a subcommand the completion misses fails this test.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "lab_harness.h"

namespace fabscope {
namespace {

using labtest::CmdResult;
using labtest::fabscope;
using labtest::run;

struct Level {
    std::vector<std::string> subcommands;
    std::vector<std::string> options;  // every name: -o and --output
};

// The "Subcommands:" and "Options:" tables of `fabscope PATH... --help`.
Level help_of(const std::vector<std::string>& path) {
    std::vector<std::string> argv{fabscope()};
    argv.insert(argv.end(), path.begin(), path.end());
    argv.push_back("--help");
    CmdResult r = run(argv, std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Level level;
    std::istringstream in(r.out);
    std::string line, section;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] != ' ') {
            section = line;
            continue;
        }
        if (line.size() < 3 || line[2] == ' ') continue;  // a wrapped description
        std::string head = line.substr(2, line.find(' ', 2) - 2);
        if (section == "Subcommands:") level.subcommands.push_back(head);
        if (section == "Options:") {
            std::istringstream names(head);
            for (std::string n; std::getline(names, n, ',');) level.options.push_back(n);
        }
    }
    return level;
}

// What _fabscope offers for the command line `fabscope WORDS... CUR`.
std::set<std::string> complete(const std::vector<std::string>& words, const std::string& cur) {
    std::string script =
        "source \"$1\"; shift; COMP_WORDS=(\"$@\"); "
        "COMP_CWORD=$(($# - 1)); _fabscope; printf '%s\\n' \"${COMPREPLY[@]}\"";
    const std::string file = std::string(FABSCOPE_SOURCE_DIR) + "/completion/fabscope.bash";
    std::vector<std::string> argv{"bash", "-c", script, "completion", file, fabscope()};
    argv.insert(argv.end(), words.begin(), words.end());
    argv.push_back(cur);
    CmdResult r = run(argv, std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::set<std::string> offered;
    std::istringstream in(r.out);
    for (std::string w; std::getline(in, w);) {
        if (!w.empty()) offered.insert(w);
    }
    return offered;
}

std::string joined(const std::vector<std::string>& words) {
    std::string s = "fabscope";
    for (const auto& w : words) s += " " + w;
    return s;
}

TEST(Completion, OffersEverySubcommandAndOptionOfTheBinary) {
    std::vector<std::vector<std::string>> todo{{}};
    size_t levels = 0;
    while (!todo.empty()) {
        std::vector<std::string> path = todo.back();
        todo.pop_back();
        ++levels;
        Level level = help_of(path);
        if (!level.subcommands.empty()) {
            std::set<std::string> all(level.subcommands.begin(), level.subcommands.end());
            EXPECT_EQ(complete(path, ""), all) << joined(path);
        }
        for (const auto& sub : level.subcommands) {
            std::set<std::string> offered = complete(path, sub.substr(0, 2));
            EXPECT_TRUE(offered.contains(sub)) << joined(path) << " " << sub.substr(0, 2);
            auto next = path;
            next.push_back(sub);
            todo.push_back(next);
        }
        ASSERT_FALSE(level.options.empty()) << joined(path);  // --help at least
        std::set<std::string> offered = complete(path, "-");
        for (const auto& opt : level.options)
            EXPECT_TRUE(offered.contains(opt)) << joined(path) << " " << opt;
        // The global flags work after a subcommand too (CLI11 fallthrough).
        EXPECT_TRUE(offered.contains("--json")) << joined(path);
    }
    // fabscope, its subcommands, and lab's, perf's and mesh's: the walk went down.
    EXPECT_GE(levels, 17u);
}

TEST(Completion, TheBriefsExampleDiCompletesToDiscoverAndDiff) {
    EXPECT_EQ(complete({}, "di"), (std::set<std::string>{"discover", "diff"}));
}

TEST(Completion, AnOptionsValueIsNotTakenForASubcommand) {
    // `--name perf` names a lab: the next word is one of lab's subcommands, not perf's.
    EXPECT_EQ(complete({"lab", "--name", "perf"}, "ru"), std::set<std::string>{});
    EXPECT_EQ(complete({"lab", "--name", "perf"}, "u"), std::set<std::string>{"up"});
}

TEST(Completion, AChoiceListOffersItsChoicesAndAFileOptionOffersFiles) {
    EXPECT_EQ(complete({"perf", "run", "--mtu"}, "1"), std::set<std::string>{"1024"});
    EXPECT_EQ(complete({"perf", "run", "-m"}, "").size(), 5u);
    // -o takes a file: the source tree's README is one.
    std::string readme = FABSCOPE_SOURCE_DIR "/READM";
    EXPECT_EQ(complete({"discover", "-o"}, readme),
              std::set<std::string>{std::string(FABSCOPE_SOURCE_DIR) + "/README.md"});
}

}  // namespace
}  // namespace fabscope
