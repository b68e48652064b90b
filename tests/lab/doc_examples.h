#pragma once
// Examples in the docs, so a test can run them. The convention: inside a code
// block (indented or fenced in Markdown, .nf/.fi in the man page) a line
// starting with "$ " is an example, run in order against one lab. Comments at
// its end, after two spaces, say what it must do:
//   $ fabscope lab fault swap leaf01[3] leaf01[3]   # exit 2
//   $ fabscope lab exec -- fabscope validate --plan plan.yaml  # exit 1  # shows "1X"
//   $ fabscope perf serve   # needs roce
// "exit N" (default 0), "shows \"TEXT\"" (TEXT in stdout or stderr),
// "needs WHAT" (not run against the IB lab: another test covers it); any
// other comment is for readers.

#include <string>
#include <vector>

namespace fabscope::labtest {

struct DocExample {
    std::string file;
    int line = 0;
    std::string command;  ///< without "$ " and the comments
    int exit_code = 0;
    std::vector<std::string> shows;
    std::string needs;  ///< "" = runs on the IB lab
};

/// Examples of a Markdown document.
std::vector<DocExample> markdown_examples(const std::string& text, const std::string& file);
/// Examples of a man page (roff escapes \- \(aq \e undone).
std::vector<DocExample> man_examples(const std::string& text, const std::string& file);

}  // namespace fabscope::labtest
