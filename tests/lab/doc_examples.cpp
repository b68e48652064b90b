#include "doc_examples.h"

#include <sstream>

namespace fabscope::labtest {
namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// "$ CMD  # exit 1  # shows "x"" -> the example, or nothing if not one.
bool parse_example(const std::string& raw, DocExample& ex) {
    std::string line = trim(raw);
    if (line.rfind("$ ", 0) != 0) return false;
    line = line.substr(2);
    size_t cut = line.find("  #");
    ex.command = trim(line.substr(0, cut));
    while (cut != std::string::npos) {
        size_t next = line.find("  #", cut + 3);
        std::string note =
            trim(line.substr(cut + 3, next == std::string::npos ? next : next - cut - 3));
        if (note.rfind("exit ", 0) == 0) {
            ex.exit_code = std::stoi(note.substr(5));
        } else if (note.rfind("shows \"", 0) == 0 && note.size() > 8 && note.back() == '"') {
            ex.shows.push_back(note.substr(7, note.size() - 8));
        } else if (note.rfind("needs ", 0) == 0) {
            ex.needs = note.substr(6);
        }
        cut = next;
    }
    return !ex.command.empty();
}

std::string unroff(std::string s) {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"\\-", "-"},
                                   {"\\(aq", "'"},
                                   {"\\e", "\\"},
                                   {"\\&", ""}}) {
        for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
            s.replace(p, from.size(), to);
    }
    return s;
}

}  // namespace

std::vector<DocExample> markdown_examples(const std::string& text, const std::string& file) {
    std::vector<DocExample> out;
    std::istringstream in(text);
    std::string line;
    bool fenced = false;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.rfind("```", 0) == 0) {
            fenced = !fenced;
            continue;
        }
        if (!fenced && line.rfind("    ", 0) != 0 && line.rfind("\t", 0) != 0) continue;
        DocExample ex{.file = file, .line = n};
        if (parse_example(line, ex)) out.push_back(ex);
    }
    return out;
}

std::vector<DocExample> man_examples(const std::string& text, const std::string& file) {
    std::vector<DocExample> out;
    std::istringstream in(text);
    std::string line;
    bool nofill = false;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.rfind(".nf", 0) == 0) nofill = true;
        if (line.rfind(".fi", 0) == 0) nofill = false;
        if (!nofill) continue;
        DocExample ex{.file = file, .line = n};
        if (parse_example(unroff(line), ex)) out.push_back(ex);
    }
    return out;
}

}  // namespace fabscope::labtest
