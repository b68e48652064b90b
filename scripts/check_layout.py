#!/usr/bin/python3
"""The house rules of the layout (docs/architecture.md), from the includes:

- a folder includes only the folders its row of the include table in
  docs/architecture.md names (a folder is a directory of sources: mesh/ and
  mesh/results/ are two); every folder holding product sources has a row,
  and every row names folders that exist;
- no two folders include each other, directly or round a loop;
- no header includes, directly or round a loop, a header that includes it;
- the lint covers every folder of the table: scripts/lint's header filter,
  .clang-tidy's HeaderFilterRegex and scripts/check_duplicates.py's folders
  (tests/ are not product; bench/ is linted but not in the table).

Prints each problem found (file:line first) and exits 1 when there is one,
2 when the table cannot be read.

--print-table prints the arrows the code has today as the table's Markdown,
to paste over the table when folders move; --lint-folders prints the linted
folders as a regex alternation, for scripts/lint.
"""

import argparse
import ast
import collections
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layout_table  # noqa: E402  (beside this script)

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]')
CITE = "(docs/architecture.md, the include table)"


def loops(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def includes(root, files, tracked):
    """(file, line, included file) for each include of a tracked file, named
    from the root or relative to the includer (a "../host/x.h" counts too)."""
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as src:
            for n, line in enumerate(src, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                beside = os.path.normpath(os.path.join(os.path.dirname(f), inc))
                if inc in tracked:
                    yield f, n, inc
                elif beside in tracked and line.find('"') >= 0:
                    yield f, n, beside


def scan(root):
    """The product's files, and the folder and header arrows with the first
    include that makes each folder arrow."""
    tracked = set(layout_table.source_files(root))
    files = sorted(f for f in tracked if layout_table.is_product(f))
    folders = collections.defaultdict(set)
    headers = collections.defaultdict(set)
    why = {}  # (folder, folder) -> [(file, line, include)]
    for f, n, inc in includes(root, files, tracked):
        a_dir, b_dir = os.path.dirname(f), os.path.dirname(inc)
        if a_dir != b_dir:
            folders[a_dir].add(b_dir)
            why.setdefault((a_dir, b_dir), []).append((f, n, inc))
        if f.endswith(".h"):
            headers[f].add(inc)
    return files, folders, headers, why


def check_table(table, files, why):
    """Arrows not in the table, folders without a row, rows naming no folder."""
    problems = []
    have = {os.path.dirname(f) for f in files}
    for folder in sorted(have - set(table)):
        first = min(f for f in files if os.path.dirname(f) == folder)
        problems.append(f"{first}: {folder}/ holds product sources and has no row in "
                        f"docs/architecture.md's include table")
    for (a_dir, b_dir), sites in sorted(why.items()):
        if a_dir in table and b_dir not in table[a_dir][0]:
            for f, n, inc in sites:
                problems.append(f"{f}:{n}: includes {inc}, and {a_dir}/ may not include "
                                f"{b_dir}/ {CITE}")
    for folder, (allowed, line) in sorted(table.items()):
        for name in sorted({folder} | allowed):
            if name not in have:
                problems.append(f"{layout_table.DOC}:{line}: the include table names {name}/, "
                                f"which holds no product sources")
    return problems


def covers(pattern, root, folder):
    """Whether a header filter takes a header of folder (and of a folder under it)."""
    return all(re.search(pattern, os.path.join(root, p))
               for p in (f"{folder}/x.h", f"{folder}/sub/x.h"))


def check_lint_lists(root, table):
    """Each list of linted folders that is not read from the table names every
    folder of it: a folder left out of one goes unchecked without a word."""
    problems = []
    want = set(layout_table.lint_folders(root))
    path = os.path.join(root, ".clang-tidy")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^HeaderFilterRegex:\s*'([^']*)'", text, re.M)
    if not m:
        problems.append(".clang-tidy: no HeaderFilterRegex, so no header of the product is checked")
    else:
        line = text[:m.start()].count("\n") + 1
        for folder in sorted(want):
            if not covers(m.group(1), root, folder):
                problems.append(f".clang-tidy:{line}: {folder}/ is missing from HeaderFilterRegex, "
                                f"so clang-tidy does not check its headers")
    path = os.path.join(root, "scripts", "lint")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'^\s*LINT_FILTER="(.*)"', text, re.M)
    if not m:
        problems.append("scripts/lint: no LINT_FILTER, so clang-tidy checks no header")
    elif "--lint-folders" not in m.group(1):
        line = text[:m.start()].count("\n") + 1
        pattern = m.group(1).replace("$root", re.escape(root))
        for folder in sorted(want):
            if not covers(pattern, root, folder):
                problems.append(f"scripts/lint:{line}: {folder}/ is missing from LINT_FILTER, "
                                f"so clang-tidy does not check its headers")
    path = os.path.join(root, "scripts", "check_duplicates.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^PRODUCT\s*=\s*(\([^)]*\))", text, re.M)
    if m:
        line = text[:m.start()].count("\n") + 1
        listed = set(ast.literal_eval(m.group(1)))
        for folder in sorted(set(layout_table.product_folders(root)) - listed):
            problems.append(f"scripts/check_duplicates.py:{line}: {folder}/ is missing from "
                            f"PRODUCT, so its repeated code is not looked for")
    elif "layout_table" not in text:
        problems.append("scripts/check_duplicates.py: no PRODUCT list and the include table "
                        "not read, so which folders it covers is unknown")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--print-table", action="store_true",
                    help="print the arrows found as the include table's Markdown")
    ap.add_argument("--lint-folders", action="store_true",
                    help="print the folders the lint covers, a|b|c")
    a = ap.parse_args()
    root = os.path.realpath(a.root)
    files, folders, headers, why = scan(root)
    if a.print_table:
        print(layout_table.render(folders, {os.path.dirname(f) for f in files}))
        return 0
    try:
        table = layout_table.read(root)
    except layout_table.TableError as e:
        print(f"layout: {e}", file=sys.stderr)
        return 2
    if a.lint_folders:
        print("|".join(re.escape(f) for f in layout_table.lint_folders(root)))
        return 0
    problems = check_table(table, files, why)
    for comp in loops(folders):
        problems.append("folders in a loop: " + " ".join(comp))
        for x in comp:
            for y in comp:
                if (x, y) in why:
                    f, n, inc = why[(x, y)][0]
                    problems.append(f"  {f}:{n}: includes {inc}")
    for comp in loops(headers):
        problems.append("headers in a loop: " + " ".join(comp))
    problems += check_lint_lists(root, table)
    for p in problems:
        print(p)
    if problems:
        print("layout: the includes or the lint lists break docs/architecture.md's include "
              "table (above); --print-table shows the arrows the code has", file=sys.stderr)
        return 1
    print(f"layout: {len(table)} folders, each including only what the include table allows, "
          f"no loop, all linted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
