// Every example in the user guide and the man page, run in order against one
// small lab each, with the documented exit code and output (see
// doc_examples.h for how the docs mark them). The docs cannot drift from the
// tool without this failing, and it names the example and why.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "doc_examples.h"
#include "lab_harness.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;

std::string doc(const std::string& name) {
    return std::string(FABSCOPE_SOURCE_DIR) + "/docs/" + name;
}

std::string last_lines(const std::string& text, size_t n = 3) {
    size_t pos = text.size();
    while (pos > 0 && n > 0) {
        pos = text.rfind('\n', pos - 1 - (text[pos - 1] == '\n' ? 1 : 0));
        if (pos == std::string::npos) return text;
        --n;
    }
    return text.substr(pos + 1);
}

/// Runs the examples in order in a scratch directory whose lab folder is
/// private to the run, `fabscope` on PATH being the binary under test.
/// Commands other than `fabscope lab ...` run as clients of the lab.
void run_examples(const std::vector<DocExample>& examples) {
    ASSERT_FALSE(examples.empty());
    const std::string root = scratch_path("docs");
    const std::string base = root + "/labs", work = root + "/work", bin = root + "/bin";
    fs::create_directories(work);
    fs::create_directories(bin);
    fs::create_directory(base);
    ::chmod(base.c_str(), 0700);
    fs::create_symlink(fabscope(), bin + "/fabscope");
    const std::map<std::string, std::string> env{{"FABSCOPE_LAB_BASE", base},
                                                 {"PATH", bin + ":" + std::getenv("PATH")}};
    std::vector<std::string> skipped;
    for (const DocExample& ex : examples) {
        const std::string where =
            ex.file + ":" + std::to_string(ex.line) + ": `" + ex.command + "`";
        if (!ex.needs.empty()) {
            skipped.push_back(where + " (needs " + ex.needs + ")");
            continue;
        }
        std::vector<std::string> argv;
        const std::string in_work = "cd '" + work + "' && " + ex.command;
        if (ex.command.rfind("fabscope lab ", 0) == 0)
            argv = {"sh", "-c", in_work};
        else
            argv = {fabscope(), "lab", "exec", "--timeout", "60", "--", "sh", "-c", in_work};
        auto start = std::chrono::steady_clock::now();
        CmdResult r = run(argv, std::chrono::seconds(90), env);
        double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (took > 5) std::printf("slow: %s took %.1f s\n", where.c_str(), took);
        if (r.exit_code != ex.exit_code) {
            ADD_FAILURE() << where << ": exit " << r.exit_code << ", the doc says " << ex.exit_code
                          << "\n"
                          << last_lines(r.err + r.out);
        }
        for (const std::string& phrase : ex.shows) {
            if ((r.out + r.err).find(phrase) == std::string::npos)
                ADD_FAILURE() << where << ": does not show \"" << phrase << "\"\n"
                              << last_lines(r.err + r.out);
        }
    }
    // Whatever an example left running is stopped (its recorded PIDs only).
    run({fabscope(), "lab", "down", "--name", "default"}, std::chrono::seconds(60), env);
    for (const auto& s : skipped) std::printf("not run here: %s\n", s.c_str());
    fs::remove_all(root);
}

TEST(DocExamples, MarkingConvention) {
    auto ex = markdown_examples(
        "text\n    $ fabscope lab up\n    fabscope lab up [--spines S]\n"
        "```\n$ fabscope validate --plan p.yaml  # exit 1  # shows \"1X\"\n```\n"
        "$ not in a block\n    $ fabscope perf serve   # needs roce  # on host2\n",
        "g.md");
    ASSERT_EQ(ex.size(), 3u);
    EXPECT_EQ(ex[0].command, "fabscope lab up");
    EXPECT_EQ(ex[0].line, 2);
    EXPECT_EQ(ex[1].command, "fabscope validate --plan p.yaml");
    EXPECT_EQ(ex[1].exit_code, 1);
    EXPECT_EQ(ex[1].shows, std::vector<std::string>{"1X"});
    EXPECT_EQ(ex[2].needs, "roce");
    auto man =
        man_examples(".SH EXAMPLES\n.nf\n$ fabscope lab up \\-\\-spines 2\n.fi\n$ no\n", "f.1");
    ASSERT_EQ(man.size(), 1u);
    EXPECT_EQ(man[0].command, "fabscope lab up --spines 2");
}

TEST(DocExamples, UserGuide) {
    run_examples(markdown_examples(slurp(doc("user-guide.md")), "docs/user-guide.md"));
}

TEST(DocExamples, ManPage) {
    run_examples(man_examples(slurp(doc("fabscope.1")), "docs/fabscope.1"));
}

}  // namespace
}  // namespace fabscope::labtest
