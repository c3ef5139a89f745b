"""A C folder's structure in figures a reader can repeat: lines per file, the longest
functions (from ctags' start and end lines), and the files that call each other in a
circle.

    python3 structure.py [SRC_DIR] [--longest N] [--limit LINES]
    python3 structure.py --products [--limit LINES]

--products checks every product folder of the project (PRODUCTS below) in turn, and fails
when a C file outside the test and bench folders lies in none of them, so that a new
folder cannot go unchecked; CI's spec phase runs it with --limit 100.

SRC_DIR is read with all its sub-folders except those named tests (test programs, each
with its own main, are not modules of the folder). The circle check follows every
external name: a file uses another when its code (comments and strings taken out) names a
function or variable that the other defines without `static`, directly or through a macro
of the folder that names it, or includes the header named after it (X.h for X.c: the
header a module is named after declares that module). A name defined in more than one file
(programs built apart) gives no edge and is listed.

With --limit, exits 1 when a function is longer than LINES lines and has no comment
starting "Long:" in the lines above it (the written reason), or when there is a circle with
no written reason: a comment in one of its files starting "Circle:" that names every other
file of the circle and says why they are one module (a dispatch table whose own slots call
back through it, say). 77 (skipped) without ctags.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from typing import Any

SKIP_DIRS = {"tests"}
# Every folder of the project that holds product C code (not tests, not benches).
PRODUCTS = ["reference/src", "reference/tools", "conformance/src", "common", "testing", "fuzz",
            "adapters/shim/src", "adapters/refarray", "adapters/host", "adapters/clblast",
            "adapters/template"]
NOT_PRODUCT = {"tests", "bench", "build", ".venv", ".git"}
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)((?:[^\n]*\\\n)*[^\n]*)", re.M)


def tags(paths: list[str]) -> list[dict[str, Any]]:
    out = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+neF", "--kinds-C=fv", "--language-force=C",
         "-o", "-", *paths], check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        t = json.loads(line)
        if t.get("_type") == "tag":
            found.append(t)
    return found


def code_only(text: str) -> str:
    """TEXT with its comments and string and character literals blanked."""
    return TOKEN.sub(" ", text)


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


def source_files(src: str) -> list[str]:
    """The .c and .h files under SRC, as paths relative to it, sub-folders included."""
    found = []
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for n in names:
            if n.endswith((".c", ".h")):
                found.append(os.path.relpath(os.path.join(root, n), src))
    return sorted(found)


CIRCLE_NOTE = re.compile(r"Circle:(.*?)\*/", re.S)


def circle_reason(circle: list[str], raw: dict[str, str]) -> str:
    """The file of CIRCLE whose "Circle:" comment names every other file of it, or ""."""
    for f in circle:
        for note in CIRCLE_NOTE.findall(raw[f]):
            named = set(re.findall(r"[\w./]+\.c\b", note))
            others = [g for g in circle if g != f]
            if all(g in named or os.path.basename(g) in named for g in others):
                return f
    return ""


def header_edges(files: list[str], raw: dict[str, str]) -> dict[str, set[str]]:
    """For each .c file, the modules whose own header (X.h beside X.c) it includes."""
    present = set(files)
    out: dict[str, set[str]] = defaultdict(set)
    for f in files:
        if not f.endswith(".c"):
            continue
        for inc in INCLUDE.findall(raw[f]):
            h = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            c = h[:-2] + ".c" if h.endswith(".h") else ""
            if c in present and c != f:
                out[f].add(c)
    return out


def uses_graph(files: list[str], text: dict[str, str], raw: dict[str, str],
               defines: dict[str, set[str]]) -> tuple[dict[str, set[str]], list[str]]:
    """Which file uses which (through the external names of DEFINES and the modules'
    headers), and the names defined in more than one file."""
    macros: dict[str, set[str]] = {}
    for f in files:
        for m in DEFINE.finditer(text[f]):
            macros[m.group(1)] = set(IDENT.findall(m.group(2)))
    graph: dict[str, set[str]] = defaultdict(set)
    for f, gs in header_edges(files, raw).items():
        graph[f] |= gs
    for f in files:
        if not f.endswith(".c"):
            continue
        graph[f]
        seen: set[str] = set()
        todo = set(IDENT.findall(text[f]))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo |= macros.get(name, set()) - seen
        for name in seen:
            where = defines.get(name, set())
            if len(where) == 1:
                (g,) = where
                if g != f:
                    graph[f].add(g)
    shared = sorted(n for n, w in defines.items() if len(w) > 1)
    return graph, shared


def unchecked(top: str) -> list[str]:
    """The C files under TOP that lie in no product folder and in no test or bench folder."""
    found = []
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs
                         if d not in NOT_PRODUCT and not d.startswith((".", "build")))
        rel = os.path.relpath(root, top)
        if any(rel == p or rel.startswith(p + os.sep) for p in PRODUCTS):
            continue
        found += [os.path.join(rel, n) for n in names if n.endswith(".c")]
    return sorted(found)


def main(argv: list[str]) -> int:
    if not shutil.which("ctags"):
        print("structure.py: SKIP: no ctags (Universal Ctags) on PATH")
        # In CI a missing tool fails instead of skipping (STYLE.md, "Tests").
        return 1 if os.environ.get("CI") == "true" else 77
    args = list(argv[1:])
    if "--products" in args:
        args.remove("--products")
        top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        worst = 0
        for p in PRODUCTS:
            print(f"=== {p}")
            worst = max(worst, main([argv[0], os.path.join(top, p), *args]))
        stray = unchecked(top)
        for f in stray:
            print(f"structure.py: {f} lies in no product folder (add its folder to PRODUCTS)")
        return 1 if stray else worst
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
    if not os.path.isdir(src):
        print(f"structure.py: {src}: not a folder")
        return 2
    files = source_files(src)
    print("lines per file:")
    total = 0
    text: dict[str, str] = {}
    raw_text: dict[str, str] = {}
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            raw = fh.read()
        n = raw.count("\n")
        total += n
        raw_text[f] = raw
        text[f] = code_only(raw)
        print(f"  {n:6d} {f}")
    print(f"  {total:6d} total")

    funcs = []
    defines: dict[str, set[str]] = defaultdict(set)
    by_path = {os.path.join(src, f): f for f in files}
    found = tags(list(by_path)) if by_path else []
    lines: dict[str, list[str]] = {}
    for t in found:
        f = by_path[t["path"]]
        if t["kind"] == "function" and "end" in t:
            if f not in lines:
                with open(t["path"], encoding="utf-8") as fh:
                    lines[f] = fh.read().splitlines()
            funcs.append((t["end"] - t["line"] + 1, f, t["name"], has_reason(lines[f], t["line"])))
        if f.endswith(".c") and not t.get("file") and t["kind"] in ("function", "variable"):
            defines[t["name"]].add(f)
    funcs.sort(reverse=True)
    print("longest functions (lines; * : a reason is written above it):")
    for n, f, name, reason in funcs[:longest]:
        print(f"  {n:5d} {f}:{name}{' *' if reason else ''}")

    graph, shared = uses_graph(files, text, raw_text, defines)
    if shared:
        print("external names defined in more than one file (no edge):", " ".join(shared))
    circles = []
    print("modules in a circle:", "none" if not sccs(graph) else "")
    for c in sccs(graph):
        why = circle_reason(c, raw_text)
        print("  " + " <-> ".join(c) + (f" (the reason is written in {why})" if why else ""))
        if not why:
            circles.append(c)
    bad = [x for x in funcs if limit and x[0] > limit and not x[3]]
    if limit:
        for n, f, name, _ in bad:
            print(f"over {limit} lines with no written reason: {f}:{name} ({n})")
    return 1 if limit and (bad or circles) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
