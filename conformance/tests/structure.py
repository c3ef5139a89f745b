"""The runner's structure in figures a reader can repeat: lines per file, the longest
functions (from ctags' start and end lines), and the modules that call each other in a
circle (the dsr__ functions and variables each file defines and the ones it uses).

    python3 structure.py [SRC_DIR] [--longest N] [--limit LINES]

With --limit, exits 1 when a function is longer than LINES lines and has no comment
starting "Long:" in the lines above it (the written reason), or when there is a circle;
77 (skipped) without ctags.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict


def functions(path: str) -> list[tuple[str, int, int]]:
    out = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+ne", "--kinds-C=f", "-o", "-", path],
        check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        t = json.loads(line)
        if t.get("_type") == "tag" and "end" in t:
            found.append((t["name"], t["line"], t["end"]))
    return found


def has_reason(lines: list[str], start: int) -> bool:
    """A comment beginning "Long:" among the comment lines just above line START."""
    i = start - 2
    while i >= 0 and (lines[i].lstrip().startswith(("/*", "*", "//")) or
                      lines[i].rstrip().endswith("*/")):
        if "Long:" in lines[i]:
            return True
        i -= 1
    return False


def sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv: list[str]) -> int:
    if not shutil.which("ctags"):
        print("structure.py: SKIP: no ctags (Universal Ctags) on PATH")
        return 77
    args = list(argv[1:])
    longest, limit = 12, 0
    if "--longest" in args:
        i = args.index("--longest")
        longest = int(args[i + 1])
        del args[i:i + 2]
    if "--limit" in args:
        i = args.index("--limit")
        limit = int(args[i + 1])
        del args[i:i + 2]
    src = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "src")
    files = sorted(f for f in os.listdir(src) if f.endswith((".c", ".h")))
    print("lines per file:")
    total = 0
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        total += n
        print(f"  {n:6d} {f}")
    print(f"  {total:6d} total")

    funcs = []
    defines: dict[str, str] = {}
    text: dict[str, str] = {}
    for f in files:
        path = os.path.join(src, f)
        with open(path, encoding="utf-8") as fh:
            text[f] = fh.read()
        if not f.endswith(".c"):
            continue
        lines = text[f].splitlines()
        for name, start, end in functions(path):
            funcs.append((end - start + 1, f, name, has_reason(lines, start)))
            if name.startswith("dsr__"):
                defines[name] = f
        for m in re.finditer(r"^(?:extern\s+)?const[^;=(]*\b(dsr__\w+)\s*(?:\[\]\s*)?=",
                             text[f], re.M):
            defines[m.group(1)] = f
    funcs.sort(reverse=True)
    print("longest functions (lines; * : a reason is written above it):")
    for n, f, name, reason in funcs[:longest]:
        print(f"  {n:5d} {f}:{name}{' *' if reason else ''}")

    graph: dict[str, set[str]] = defaultdict(set)
    for f in files:
        if not f.endswith(".c"):
            continue
        graph[f]
        for name in set(re.findall(r"\bdsr__\w+", text[f])):
            g = defines.get(name)
            if g and g != f:
                graph[f].add(g)
    circles = sccs(graph)
    print("modules in a circle:", "none" if not circles else "")
    for c in circles:
        print("  " + " <-> ".join(c))
    bad = [x for x in funcs if limit and x[0] > limit and not x[3]]
    if limit:
        for n, f, name, _ in bad:
            print(f"over {limit} lines with no written reason: {f}:{name} ({n})")
    return 1 if limit and (bad or circles) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
