#!/usr/bin/env python3
"""How many XLA programs JAX compiles over a whole run, how many are distinct, and devspec's
share of the run.

    jax_compiles.py [--devspec PATH] [--jobs N]... [--adapter NAME] [--cases FILE]...
                    [--profile] [--show N]

Runs `devspec run --adapter jax --jobs N` (for each --jobs given, default 1 and 2) with each
worker's adapter process observed by adapter_profile.py: every program JAX compiles or
fetches from its persistent cache is logged with its key (the program's identity: module,
compile options, devices), without changing JAX's configuration. A program compiled twice is
a key that appears more than once in the run, in one worker or in several: each appearance
lowered the program again. --show N prints the N programs compiled most often, each with
the requests that compiled it, and the requests that compiled the programs compiled more than
once.

With --profile the adapter processes also run under cProfile (CPU time), and the run's CPU
(the runner's and its adapters') is split into the library's and devspec's (the runner's,
and the adapter's own code): devspec's share of a JAX run, an upper bound (cProfile slows the
adapter's Python more than JAX's compiled code; share_profile.py samples instead).
Standard-library Python.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from adapter_profile import collect, observed_run, split  # noqa: E402


def requests_of(counts: collections.Counter[str], most: int | None = None) -> str:
    return ", ".join("%s %d" % (r, n) for r, n in counts.most_common(most))


def measure(devspec: str, name: str, jobs: int, cases: list[str], profile: bool,
            show: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p, wall, run_cpu, logdir = observed_run(devspec, TOP, name, tmp, jobs, cases, profile)
        lines = (p.stdout + p.stderr).strip().splitlines()
        got = collect(logdir)
        seen = got["compiles"]
        again = sum(n - 1 for n in seen.values() if n > 1)
        print("%s --jobs %d: %d programs compiled in %d adapter processes (%s), %d distinct, "
              "%d compiled again (%d of them in another worker than before); %.1f s wall, %.1f s "
              "CPU; %s"
              % (name, jobs, sum(seen.values()), len(got["per_process"]),
                 " + ".join(map(str, got["per_process"])), len(seen), again, got["across"],
                 wall, run_cpu,
                 lines[-1] if lines else "exit %d" % p.returncode))
        for key, n in seen.most_common(show):
            if n > 1:
                print("  %d x %s (%s)" % (n, key[:200], requests_of(got["requests"][key])))
        if show:
            again_by: collections.Counter[str] = collections.Counter()
            for key, n in seen.items():
                if n > 1:
                    for request, k in got["requests"][key].items():
                        again_by[request] += k
            print("  requests that compiled the programs compiled more than once (all their "
                  "compiles): " + requests_of(again_by, show))
        if got["profiles"]:
            library, devspec_s, adapters_cpu = split(run_cpu, got["profiles"])
            print("  CPU %.1f s: the library %.1f s, devspec %.1f s (%.1f %%; the runner %.1f "
                  "s, the adapters' own code %.1f s, under cProfile; an adapter process "
                  "killed before its end is counted as the runner's)"
                  % (run_cpu, library, devspec_s, 100.0 * devspec_s / run_cpu if run_cpu else 0,
                     run_cpu - adapters_cpu, devspec_s - (run_cpu - adapters_cpu)))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devspec", default=os.path.join(TOP, "build", "conformance", "devspec"))
    ap.add_argument("--jobs", type=int, action="append")
    ap.add_argument("--adapter", default="jax")
    ap.add_argument("--cases", action="append", default=[])
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print the N programs compiled most often")
    args = ap.parse_args(argv)
    for jobs in args.jobs or [1, 2]:
        measure(args.devspec, args.adapter, jobs, args.cases, args.profile, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
