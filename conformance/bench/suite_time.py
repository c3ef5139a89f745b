#!/usr/bin/env python3
"""The whole suite's time per library, without the library's import.

    suite_time.py [--devspec PATH] [--jobs N]... [--cold] [--starts K] [--cases FILE]...
                  [--keep DIR] [--split] [ADAPTER...]

For each adapter of adapters/adapters.json named (default: every Python library's and
refarray's), and for each --jobs N given (default 1), in one run of this program:

- start-up: the median of K starts of the adapter program to its answer to `hello`
  (interpreter start and the library's import; reports/summary.py's measure_startup), the
  baseline every other figure of that library is divided by;
- run: the wall time of `devspec run --adapter NAME --jobs N` over the suite (its
  expectations file as published), from which one start-up per worker is subtracted: the
  suite without the import (never printed below the cases' own time, which the report
  measured in the same run: a start-up measured apart can vary by more than a fast run);
- cases: the sum of the report's per-case durations (each case's requests and its reset, as
  the runner timed them), and the cases that ran (not skipped).

With --cold, each folder the adapter's environment in adapters.json names in a variable
ending in _CACHE_DIR (JAX's compilation cache) is emptied of its entries (disk_cache.prune)
before the adapter's first run, after its start-up is measured: that row is "cold", and the
rows of later --jobs runs use what it wrote ("warm"). It prints a Markdown table: jobs,
start-up s, run s, run ex import s, cases s, cases run, ms per case run, and run ex import /
start-up. Nothing is asserted: the figures are for a person to read
(conformance/bench/README.md keeps a measured table). Standard-library Python and the Python
adapter's disk_cache.

With --split, each run of a Python library's adapter is observed by adapter_profile.py
(cProfile in CPU time, in each adapter process) and three columns more split the run's CPU
time (the runner's and its adapters', from the operating system): the library's (calls into
the library, as cProfile counted them) and devspec's (the runner's own CPU, and the adapter's
own code: the protocol, its JSON, its mapping of ops onto the library), and devspec's share.
cProfile slows the adapter's Python more than the libraries' compiled code, so that share is
an upper bound, and the run's other figures include cProfile's cost; share_profile.py measures
it with a sampling profiler (py-spy), which does not. A C adapter (refarray)
is one process with its library: "–".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "reports"))
sys.path.insert(0, os.path.join(TOP, "adapters", "python"))

from summary import adapter_entry, expand, measure_startup  # noqa: E402

from devspec_py.disk_cache import prune  # noqa: E402

sys.path.insert(0, HERE)
from adapter_profile import collect, run_timed, split, wrap  # noqa: E402

DEFAULT = ("refarray", "numpy", "array-api-strict", "jax", "torch", "tinygrad", "ivy", "oneflow")


def run_suite(devspec: str, name: str, jobs: int, cases: list[str], tmp: str,
              observe: bool = False) -> tuple[float, dict[str, Any] | None, str, str | None]:
    """(wall seconds, the report or None, the runner's last line, the split's cells or None)
    of one whole run; with OBSERVE a Python adapter's run is observed (--split)."""
    report = os.path.join(tmp, name + ".json")
    argv = [devspec, "run", "--adapter", name, "--jobs", str(jobs), "--report", report,
            "--no-tap", "--no-progress"]
    logdir = os.path.join(tmp, name + "-observed")
    wrapped = None
    if observe:
        os.makedirs(logdir, exist_ok=True)
        wrapped = wrap(adapter_entry(TOP, name), TOP, logdir, False, True)
    if wrapped is not None:
        adapters = os.path.join(tmp, name + "-adapters.json")
        with open(adapters, "w", encoding="utf-8") as f:
            json.dump({"adapters": [wrapped]}, f)
        argv[2:4] = ["--adapters", adapters, "--adapter", wrapped["name"]]
    for c in cases:
        argv += ["--cases", c]
    p, wall, cpu = run_timed(argv)
    cells = None
    if observe:
        cells = "– | – | –"
        profiles = collect(logdir)["profiles"] if wrapped is not None else []
        if profiles:
            library, own, _ = split(cpu, profiles)
            cells = "%.2f | %.2f | %.1f %%" % (library, own, 100.0 * own / cpu if cpu else 0.0)
    lines = (p.stdout + p.stderr).strip().splitlines()
    try:
        with open(report, encoding="utf-8") as f:
            return wall, json.load(f), lines[-1] if lines else "", cells
    except (OSError, ValueError):
        return wall, None, lines[-1] if lines else "exit %d" % p.returncode, cells


def cache_dirs(top: str, build: str, name: str) -> list[str]:
    """The on-disk caches of compiled programs the adapter's environment names (variables
    ending in _CACHE_DIR), expanded as the runner expands them."""
    env = adapter_entry(top, name).get("env", {})
    return [expand(v, top, build) for k, v in sorted(env.items()) if k.endswith("_CACHE_DIR")]


def row(name: str, up: float | None, wall: float, report: dict[str, Any] | None,
        jobs: int) -> str:
    if report is None or up is None:
        return "| %s | %d | %s | %.2f | – | – | – | – | – |" % (
            name, jobs, "–" if up is None else "%.2f" % up, wall)
    cases = report.get("cases", [])
    ran = [c for c in cases if c.get("status") != "skip"]
    own = sum(c.get("duration") or 0.0 for c in cases)
    ex = wall - up * min(jobs, max(1, len(cases)))
    if ex < own:
        # The start-ups measured apart varied by more than the run took beyond them: the run
        # ex import is no less than the time its cases took, which the report measured.
        shown = "≥ %.2f (start-up noisier than the run)" % own
        ratio = "–"
    else:
        shown, ratio = "%.2f" % ex, "%.1f" % (ex / up)
    return "| %s | %d | %.2f | %.2f | %s | %.2f | %d | %.2f | %s |" % (
        name, jobs, up, wall, shown, own, len(ran), 1000.0 * own / max(1, len(ran)), ratio)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devspec", default=os.path.join(TOP, "build", "conformance", "devspec"))
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--jobs", type=int, action="append", default=[],
                    help="runner workers (default 1); repeat for one row per value")
    ap.add_argument("--cold", action="store_true",
                    help="empty the adapter's compilation caches before its first run")
    ap.add_argument("--starts", type=int, default=3, help="starts for the start-up median")
    ap.add_argument("--cases", action="append", default=[], help="case files (default all)")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep each run's report as DIR/NAME-jobsN.json (default: none kept)")
    ap.add_argument("--split", action="store_true",
                    help="split each Python library's run into the library's CPU time and "
                    "devspec's (under cProfile)")
    ap.add_argument("adapters", nargs="*")
    args = ap.parse_args(argv)
    jobs_list = args.jobs or [1]
    if min(jobs_list) < 1 or args.starts < 1:
        ap.error("--jobs and --starts take a number >= 1")
    if not os.access(args.devspec, os.X_OK):
        sys.stderr.write("suite_time.py: %s is not an executable devspec (build first, or "
                         "--devspec PATH)\n" % args.devspec)
        return 2
    names = args.adapters or list(DEFAULT)
    build = os.path.realpath(args.build)
    extra = " library CPU s | devspec CPU s | devspec share |" if args.split else ""
    print("| library | jobs | start-up s | run s | run ex import s | cases s | cases run "
          "| ms / case | ex import / start-up |" + extra)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" +
          (" ---: | ---: | ---: |" if args.split else ""))
    with tempfile.TemporaryDirectory(prefix="devspec-suite-time-") as tmp:
        for name in names:
            up = measure_startup(TOP, build, name, args.starts)
            caches = cache_dirs(TOP, build, name) if args.cold else []
            for folder in caches:
                prune(folder, 0)
            for k, jobs in enumerate(jobs_list):
                wall, report, last, cells = run_suite(args.devspec, name, jobs, args.cases,
                                                      tmp, args.split)
                if args.keep and report is not None:
                    os.makedirs(args.keep, exist_ok=True)
                    kept = os.path.join(args.keep, "%s-jobs%d.json" % (name, jobs))
                    with open(kept, "w", encoding="utf-8") as f:
                        json.dump(report, f)
                    sys.stderr.write("suite_time.py: kept %s\n" % kept)
                label = name + ((" (cold)" if k == 0 else " (warm)") if caches else "")
                print(row(label, up, wall, report, jobs) +
                      (" %s |" % cells if cells is not None else ""), flush=True)
                sys.stderr.write("suite_time.py: %s, --jobs %d: %s\n" % (name, jobs, last))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
