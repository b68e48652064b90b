#!/usr/bin/python3
"""scripts/check_layout.py on planted trees: a clean one passes; an include
the table does not allow, a loop, a folder without a row, a row without a
folder and a folder left out of the lint's lists each fail, naming where.
Then the real tree, which must pass.

Usage: check_layout_test.py SOURCE_DIR [unittest args]
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SOURCE = os.path.realpath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.realpath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
CHECKER = os.path.join(SOURCE, "scripts", "check_layout.py")

TABLE = """\
# Architecture

Prose before the table.

| folder | may include |
| --- | --- |
| util/ | (none) |
| model/ | util/ |
| host/ | model/, util/ |
| reports/ | model/, util/ |
| cli/ | reports/, host/, model/, util/ |

Prose after it.
"""

FOLDERS = "model|host|reports|cli|util|bench"


class PlantedTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        subprocess.run(["git", "init", "-q", self.root], check=True)
        self.write("docs/architecture.md", TABLE)
        self.write("util/result.h", "#pragma once\n")
        self.write("model/fabric.h", '#pragma once\n#include "util/result.h"\n')
        self.write("model/fabric.cpp", '#include "model/fabric.h"\n')
        self.write("host/inventory.h", '#pragma once\n#include "model/fabric.h"\n')
        self.write("reports/view.cpp", '#include <string>\n\n#include "model/fabric.h"\n')
        self.write("cli/main.cpp", '#include "host/inventory.h"\n#include "reports/view.h"\n')
        self.write("reports/view.h", "#pragma once\n")
        self.write("tests/any_test.cpp", '#include "host/inventory.h"\n#include "cli/x.h"\n')
        self.write("bench/b.cpp", '#include "cli/main.cpp"\n')
        self.write(".clang-tidy", f"Checks: '-*'\nHeaderFilterRegex: '.*/({FOLDERS})/([^/]+/)?[^/]+$'\n")
        self.write("scripts/lint", f'#!/bin/sh\nLINT_FILTER="^$root/({FOLDERS})/"\n')
        self.write("scripts/check_duplicates.py",
                   'PRODUCT = ("util", "model", "host", "reports", "cli")\n')

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run(["git", "add", path], cwd=self.root, check=True)

    def edit(self, path, old, new):
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            text = f.read()
        self.assertIn(old, text)
        self.write(path, text.replace(old, new))

    def check(self, *args):
        r = subprocess.run([CHECKER, "--root", self.root, *args], capture_output=True, text=True)
        return r.returncode, r.stdout

    def fails_with(self, *lines):
        code, out = self.check()
        self.assertEqual(code, 1, out)
        for line in lines:
            self.assertIn(line, out.splitlines(), out)

    def test_clean_tree_passes(self):
        code, out = self.check()
        self.assertEqual(code, 0, out)

    def test_an_arrow_not_in_the_table_fails_with_its_file_and_line(self):
        self.write("reports/view.cpp",
                   '#include "model/fabric.h"\n\n#include "host/inventory.h"\n')
        self.fails_with("reports/view.cpp:3: includes host/inventory.h, and reports/ may not "
                        "include host/ (docs/architecture.md, the include table)")

    def test_a_relative_include_counts_too(self):
        self.write("reports/view.cpp", '#include "../host/inventory.h"\n')
        self.fails_with("reports/view.cpp:1: includes host/inventory.h, and reports/ may not "
                        "include host/ (docs/architecture.md, the include table)")

    def test_a_loop_fails_even_when_the_table_allows_it(self):
        self.edit("docs/architecture.md", "| host/ | model/, util/ |", "| host/ | reports/, model/ |")
        self.edit("docs/architecture.md", "| reports/ | model/, util/ |",
                  "| reports/ | host/, model/ |")
        self.write("host/inventory.cpp", '#include "reports/view.h"\n')
        self.write("reports/view.cpp", '#include "host/inventory.h"\n')
        self.fails_with("folders in a loop: host reports")

    def test_a_header_loop_fails(self):
        self.write("model/a.h", '#pragma once\n#include "model/b.h"\n')
        self.write("model/b.h", '#pragma once\n#include "model/a.h"\n')
        self.fails_with("headers in a loop: model/a.h model/b.h")

    def test_a_folder_without_a_row_fails(self):
        self.write("probe/engine.cpp", '#include "model/fabric.h"\n')
        self.fails_with("probe/engine.cpp: probe/ holds product sources and has no row in "
                        "docs/architecture.md's include table")

    def test_a_subfolder_is_a_folder_of_its_own(self):
        self.write("host/results/r.h", "#pragma once\n")
        self.fails_with("host/results/r.h: host/results/ holds product sources and has no row "
                        "in docs/architecture.md's include table")

    def test_a_row_naming_no_folder_fails(self):
        self.edit("docs/architecture.md", "| cli/ |", "| ghost/ | util/ |\n| cli/ |")
        self.fails_with("docs/architecture.md:11: the include table names ghost/, which holds "
                        "no product sources")

    def test_rows_in_any_order_read_the_same(self):
        self.edit("docs/architecture.md", "| util/ | (none) |\n", "")
        self.edit("docs/architecture.md", "| cli/ | reports/, host/, model/, util/ |",
                  "| `cli/` | util/,model/ , `host/`, reports |\n| util/ | (none) |")
        code, out = self.check()
        self.assertEqual(code, 0, out)

    def test_the_printed_table_is_the_table(self):
        code, printed = self.check("--print-table")
        self.assertEqual(code, 0)
        self.assertIn("| reports/ | model/ |", printed.splitlines())
        start = TABLE.index("| folder")
        end = TABLE.index("\n\nProse after")
        self.write("docs/architecture.md", TABLE[:start] + printed.strip() + TABLE[end:])
        code, out = self.check()
        self.assertEqual(code, 0, out)

    def test_a_folder_missing_from_clang_tidy_fails(self):
        self.edit(".clang-tidy", "|host|", "|")
        self.fails_with(".clang-tidy:2: host/ is missing from HeaderFilterRegex, so clang-tidy "
                        "does not check its headers")

    def test_a_folder_missing_from_the_lint_filter_fails(self):
        self.edit("scripts/lint", "(model|host|", "(model|")
        self.fails_with("scripts/lint:2: host/ is missing from LINT_FILTER, so clang-tidy does "
                        "not check its headers")

    def test_bench_missing_from_the_lint_filter_fails(self):
        self.edit("scripts/lint", "|bench)", ")")
        self.fails_with("scripts/lint:2: bench/ is missing from LINT_FILTER, so clang-tidy does "
                        "not check its headers")

    def test_a_folder_missing_from_the_duplicates_check_fails(self):
        self.edit("scripts/check_duplicates.py", '"host", ', "")
        self.fails_with("scripts/check_duplicates.py:1: host/ is missing from PRODUCT, so its "
                        "repeated code is not looked for")

    def test_a_lint_filter_read_from_the_table_passes(self):
        self.write("scripts/lint", textwrap.dedent('''\
            #!/bin/sh
            LINT_FILTER="^$root/($(scripts/check_layout.py --root . --lint-folders))/"
            '''))
        code, out = self.check()
        self.assertEqual(code, 0, out)
        code, out = self.check("--lint-folders")
        self.assertEqual(out.strip(), "bench|cli|host|model|reports|util")


class RealTree(unittest.TestCase):
    def test_the_source_tree_keeps_its_table(self):
        r = subprocess.run([CHECKER, "--root", SOURCE], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
