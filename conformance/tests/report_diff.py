"""Compares the outputs of two runs with what changes from run to run taken out.

    python3 report_diff.py A B       # two files or two folders (same names)

Reads JSON reports (.json, .jsonl), JUnit XML (.xml), TAP and summaries (.tap, .txt, .out)
and compare pages (.html). Removed before the comparison: the times a run measures or
stamps (duration, elapsed, started, finished, time and timestamp attributes, duration_ms,
"in N s" and the loading time beside it), the suite's commit and modified flag (they change
with every commit), and the page's generation time. What
remains must be identical: the structural changes of the runner are checked with it, the
reports before and after each one. Exit status 0: identical; 1: a difference (printed as a
unified diff); 2: a file missing on one side.
"""

import difflib
import json
import os
import re
import sys

TIME_KEYS = {"duration", "elapsed", "load_elapsed", "started", "finished", "generated", "wall_s"}
# What changes from build to build: the suite's commit and whether the tree was modified.
BUILD_KEYS = {"commit", "modified", "suite_commit"}


def strip_json(v: object) -> object:
    if isinstance(v, dict):
        return {k: strip_json(x) for k, x in v.items() if k not in TIME_KEYS | BUILD_KEYS}
    if isinstance(v, list):
        return [strip_json(x) for x in v]
    return v


TEXT_RULES = [
    (re.compile(r'\b(time|timestamp)="[^"]*"'), r'\1="T"'),
    (re.compile(r"duration_ms: [0-9.]+"), "duration_ms: T"),
    (re.compile(r" in [0-9]+\.[0-9]+ s\b"), " in T s"),
    (re.compile(r"\(and [0-9]+\.[0-9]+ s loading the suite\)"), "(and T s loading the suite)"),
    (re.compile(r"\b[0-9a-f]{40}\b"), "COMMIT"),
    (re.compile(r'"(duration|elapsed|started|finished|generated)":\s*("[^"]*"|[-0-9.e+]+)'),
     r'"\1":T'),
]


def normalise(path: str) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if path.endswith(".json"):
        try:
            return json.dumps(strip_json(json.loads(text)), indent=1, sort_keys=True).splitlines()
        except ValueError:
            pass
    if path.endswith(".jsonl"):
        out = []
        for line in text.splitlines():
            try:
                out.append(json.dumps(strip_json(json.loads(line)), sort_keys=True))
            except ValueError:
                out.append(line)
        return out
    for rx, rep in TEXT_RULES:
        text = rx.sub(rep, text)
    return text.splitlines()


def compare(a: str, b: str) -> int:
    la, lb = normalise(a), normalise(b)
    if la == lb:
        return 0
    sys.stdout.writelines(
        line + "\n" for line in difflib.unified_diff(la, lb, a, b, lineterm="", n=2))
    return 1


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    a, b = argv[1], argv[2]
    if not os.path.isdir(a):
        return compare(a, b)
    rc = 0
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.isfile(pa) and os.path.isfile(pb)):
            print(f"only in one side: {n}")
            rc = max(rc, 2)
            continue
        r = compare(pa, pb)
        print(f"{'same' if r == 0 else 'DIFFERENT'}: {n}")
        rc = max(rc, r)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
