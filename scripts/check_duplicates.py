#!/usr/bin/python3
"""Repeated code in the product's sources: runs of --min (6) lines that stand
the same in two places, after what says nothing is dropped (blank lines,
comments, #include lines, lone braces) and white space is folded.

One piece of code should serve where the logic is the same; a run found here
is a place to look. A run that must stay (the overrides of one interface in
two implementations) is listed in scripts/duplicates-allowed with the reason,
by its first line. Prints each run found and exits 1 when any is not allowed.
"""

import argparse
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layout_table  # noqa: E402  (beside this script; the product's folders)

TRIVIAL = re.compile(r"^[{}()\[\];,]*$|^(public|private|protected):$|^#(include|pragma)")


def significant(path):
    """(line number, folded text) of the lines that say something."""
    out, in_block = [], False
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if in_block:
                if "*/" in line:
                    in_block = False
                    line = line.split("*/", 1)[1].strip()
                else:
                    continue
            if line.startswith("/*") and "*/" not in line:
                in_block = True
                continue
            line = re.sub(r"\s*//.*$", "", line) if not line.startswith('"') else line
            line = " ".join(line.split())
            if line and not TRIVIAL.match(line):
                out.append((n, line))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--min", type=int, default=6)
    a = ap.parse_args()
    root = os.path.realpath(a.root)
    files = subprocess.run(["git", "ls-files", "*.cpp", "*.h"], cwd=root, check=True,
                           capture_output=True, text=True).stdout.split()
    product = set(layout_table.product_folders(root))
    files = [f for f in files if f.split("/", 1)[0] in product]
    allowed = set()
    allow_file = os.path.join(root, "scripts", "duplicates-allowed")
    if os.path.exists(allow_file):
        with open(allow_file, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    allowed.add(" ".join(line.split()))
    seen = {}  # window text -> (file, first line)
    found = []
    for path in files:
        lines = significant(os.path.join(root, path))
        last = {}  # other place -> the window index it was last extended to
        for i in range(len(lines) - a.min + 1):
            key = "\n".join(t for _, t in lines[i:i + a.min])
            where = (path, lines[i][0])
            if key in seen and seen[key] != where:
                other = seen[key]
                # Report a run once, where it starts.
                if last.get(other[0]) != i - 1:
                    if lines[i][1] not in allowed:
                        found.append((other, where, lines[i][1]))
                last[other[0]] = i
            else:
                seen.setdefault(key, where)
    for other, where, first in found:
        print(f"{where[0]}:{where[1]} repeats {other[0]}:{other[1]}: {first}")
    if found:
        print(f"duplicates: {len(found)} repeated runs of {a.min}+ lines; make them one piece "
              "of code, or list the first line in scripts/duplicates-allowed with the reason",
              file=sys.stderr)
        return 1
    print(f"duplicates: none in {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
