#!/usr/bin/python3
"""The house rules of the layout (docs/architecture.md), from the includes:

- no two folders include each other, directly or round a loop (a folder is a
  directory of sources: mesh/ and mesh/results/ are two);
- no header includes, directly or round a loop, a header that includes it.

Prints each loop found and exits 1 when there is one.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    a = ap.parse_args()
    root = os.path.realpath(a.root)
    files = subprocess.run(["git", "ls-files", "*.cpp", "*.h"], cwd=root, check=True,
                           capture_output=True, text=True).stdout.split()
    files = [f for f in files if not f.startswith(("tests/", "bench/"))]
    folders = collections.defaultdict(set)
    headers = collections.defaultdict(set)
    why = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as src:
            for inc in INCLUDE.findall(src.read()):
                if not os.path.exists(os.path.join(root, inc)):
                    continue
                a_dir, b_dir = os.path.dirname(f), os.path.dirname(inc)
                if a_dir != b_dir:
                    folders[a_dir].add(b_dir)
                    why.setdefault((a_dir, b_dir), f"{f} includes {inc}")
                if f.endswith(".h"):
                    headers[f].add(inc)
    bad = 0
    for comp in loops(folders):
        bad += 1
        print("folders in a loop: " + " ".join(comp))
        for x in comp:
            for y in comp:
                if (x, y) in why:
                    print("  " + why[(x, y)])
    for comp in loops(headers):
        bad += 1
        print("headers in a loop: " + " ".join(comp))
    if bad:
        print("layout: a folder or header that includes one that includes it back; "
              "docs/architecture.md says which way each may include", file=sys.stderr)
        return 1
    print(f"layout: no loop among {len(folders)} folders and their headers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
