"""The include table of docs/architecture.md, read as data.

The table is the one list of the product's folders: scripts/check_layout.py
enforces its arrows and checks that the lint, clang-tidy and the duplicates
check cover every folder in it; scripts/lint and scripts/check_duplicates.py
take their folders from it.

A row is `| folder/ | may include |`: the folder (a directory of sources;
mesh/ and mesh/results/ are two) and the folders its files may include
directly, comma-separated, or `(none)`. Rows may come in any order; backticks
and spaces around the names are ignored.
"""

import os
import re
import subprocess

DOC = "docs/architecture.md"
# Not product: the tests, and the benchmarks, which are linted (formatted and
# tidied like the product) but stand outside the stack: they include tests'
# fixtures and any folder they measure.
NOT_PRODUCT = ("tests",)
LINT_ONLY = ("bench",)
HEADER = ("folder", "may include")
NONE = "(none)"


class TableError(Exception):
    """The table is missing or a row cannot be read; the message names the line."""


def folder_name(cell):
    """`mesh/results/` -> mesh/results."""
    return cell.strip().strip("`").strip().rstrip("/")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read(root):
    """{folder: (set of folders it may include, line in the doc)}."""
    path = os.path.join(root, DOC)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TableError(f"{DOC}: cannot read it: {e.strerror}") from e
    start = None
    for n, line in enumerate(lines):
        if line.lstrip().startswith("|") and tuple(c.lower() for c in cells(line)) == HEADER:
            start = n
            break
    if start is None:
        raise TableError(f"{DOC}: no include table (a Markdown table headed "
                         f"'| {HEADER[0]} | {HEADER[1]} |')")
    table = {}
    for n in range(start + 2, len(lines)):  # past the header and its --- row
        line = lines[n]
        if not line.lstrip().startswith("|"):
            break
        row = cells(line)
        where = f"{DOC}:{n + 1}"
        if len(row) != 2 or not folder_name(row[0]):
            raise TableError(f"{where}: a row of the include table is '| folder/ | may include |'")
        folder = folder_name(row[0])
        if folder in table:
            raise TableError(f"{where}: {folder}/ has a second row in the include table "
                             f"(the first at line {table[folder][1]})")
        allowed = set()
        if row[1].strip("` ") not in ("", NONE):
            for item in row[1].split(","):
                name = folder_name(item)
                if not name:
                    raise TableError(f"{where}: an empty name in {folder}/'s row")
                allowed.add(name)
        table[folder] = (allowed, n + 1)
    if not table:
        raise TableError(f"{DOC}:{start + 1}: the include table has no rows")
    return table


def source_files(root):
    """The tracked .cpp and .h files, relative to root."""
    return subprocess.run(["git", "ls-files", "*.cpp", "*.h"], cwd=root, check=True,
                          capture_output=True, text=True).stdout.split()


def top(folder):
    return folder.split("/", 1)[0]


def is_product(path):
    return "/" in path and top(path) not in NOT_PRODUCT + LINT_ONLY


def product_folders(root):
    """The top-level folders of the table, for the scripts that want a list."""
    return sorted({top(f) for f in read(root)})


def lint_folders(root):
    """What clang-tidy and the formatter cover: the product and the benchmarks."""
    return sorted(set(product_folders(root)) | set(LINT_ONLY))


def render(arrows, folders):
    """The table in its Markdown form, one row per folder, from the lowest
    folder up (a folder after every folder it includes), so the output can
    replace the table in the doc as it is."""
    order, placed = [], set()
    pending = sorted(folders)
    while pending:
        ready = [f for f in pending if arrows.get(f, set()) <= placed] or pending[:1]
        for f in ready:
            order.append(f)
            placed.add(f)
        pending = [f for f in pending if f not in placed]
    out = ["| folder | may include |", "| --- | --- |"]
    for f in order:
        # The highest first, as the prose lists them: "Includes ranks/, model/, util/".
        names = sorted(arrows.get(f, set()), key=lambda x: -order.index(x) if x in order else 0)
        out.append(f"| {f}/ | {', '.join(n + '/' for n in names) if names else NONE} |")
    return "\n".join(out)
