#!/usr/bin/env python3
"""The runner's peak memory for one large reply, as a multiple of the reply's size.

For each kind of typed array (int64 zeros, float64 fractions, bool), and for one string
(str), the fake adapter of the
runner's tests answers one step with a reply of about BYTES bytes (default: just under the
protocol's 64 MiB reply limit) whose last element differs, so the runner reads the whole
reply, walks every element ("$each") and fails the case at the last one. The runner's peak
resident memory (VmHWM, sampled from /proc while it runs) is printed with its ratio to the
reply's size. With --baseline DEVSPEC the same is measured on that runner in the same run
(at --baseline-bytes, default 8 MB: a runner that spends a cJSON node on each element needs
gigabytes at the limit), and the ratio of the two ratios is printed.

  conformance/bench/reply_memory.py --devspec build/conformance/devspec [--baseline OLD]
  [--bytes N] [--kinds int,float,bool] [--cases K]

--cases K puts K failing copies of the step in K cases: the peak must not grow with K.
Standard library only; Linux (/proc). Not a test: it prints figures.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests")
FAKE = os.path.join(TESTS, "fixtures", "fake_adapter.py")
SPEC = os.path.join(TESTS, "spec")
LIMIT = 64 << 20
EACH: dict[str, tuple[str, Any]] = {"int": ("int64", 0), "float": ("float64", 0.30000000000000004),
                                    "bool": ("bool", True), "str": ("str", None)}


def case_file(path: str, kind: str, size: int, copies: int) -> None:
    dtype, each = EACH[kind]
    # A string reply (kind str) is expected to be another string: one JSON string, no array.
    expect = "x" if kind == "str" else {"dtype": dtype, "data": {"$each": each}}
    cases = [{"id": f"big.{kind}.{i}", "description": f"a {size}-byte {dtype} reply",
              "spec": ["T-STR-1"], "features": ["device-string"],
              "steps": [{"op": "device.parse", "args": {"text": f"big-{kind}:{size}"},
                         "expect": expect}]}
             for i in range(copies)]
    with open(path, "w") as fh:
        json.dump({"description": "Large replies.", "cases": cases}, fh)


def peak_kib(cmd: list[str], cwd: str) -> tuple[int, int, float, str]:
    """Runs CMD; returns (exit status, peak VmHWM in KiB, seconds, stderr tail)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    hwm = 0
    status = f"/proc/{p.pid}/status"
    while p.poll() is None:
        try:
            with open(status) as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        hwm = max(hwm, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.002)
    assert p.stderr is not None  # PIPE
    err = p.stderr.read().decode(errors="replace")
    return p.returncode, hwm, time.monotonic() - t0, err[-300:]


def measure(devspec: str, kind: str, size: int, copies: int,
            tmp: str) -> tuple[int, float, int]:
    cases = os.path.join(tmp, f"{kind}.json")
    case_file(cases, kind, size, copies)
    report = os.path.join(tmp, f"{kind}-report.json")
    cmd = [devspec, "run", "--spec", SPEC, "--cases", cases, "--adapter-cmd",
           f"{sys.executable} {FAKE}", "--no-tap", "--jobs", "1", "--timeout", "300",
           "--report", report]
    rc, hwm, secs, err = peak_kib(cmd, tmp)
    with open(report) as fh:
        r = json.load(fh)
    statuses = [c["status"] for c in r["cases"]]
    if rc != 1 or statuses != ["fail"] * copies:
        sys.exit(f"reply_memory: {devspec}: expected {copies} failing case(s), got exit {rc}, "
                 f"{statuses}: {err}")
    return hwm * 1024, secs, os.path.getsize(report)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devspec", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--bytes", type=int, default=LIMIT - 4096)
    ap.add_argument("--baseline-bytes", type=int, default=8_000_000)
    ap.add_argument("--kinds", default="int,float,bool")
    ap.add_argument("--cases", type=int, default=1)
    a = ap.parse_args()
    a.devspec = os.path.abspath(a.devspec)
    a.baseline = a.baseline and os.path.abspath(a.baseline)
    with tempfile.TemporaryDirectory() as tmp:
        for kind in a.kinds.split(","):
            peak, secs, rsize = measure(a.devspec, kind, a.bytes, a.cases, tmp)
            ratio = peak / a.bytes
            line = (f"{kind:5} reply {a.bytes / 1e6:6.1f} MB x{a.cases}: runner peak "
                    f"{peak / 2**20:7.1f} MiB = {ratio:5.2f} x the reply "
                    f"(goal <= 3 near the limit), {secs:5.1f} s, report {rsize} bytes")
            if a.baseline:
                bpeak, _, brsize = measure(a.baseline, kind, a.baseline_bytes, a.cases, tmp)
                bratio = bpeak / a.baseline_bytes
                line += (f"; baseline at {a.baseline_bytes / 1e6:.1f} MB: {bpeak / 2**20:.1f} MiB"
                         f" = {bratio:.1f} x, report {brsize} bytes; ratio {bratio / ratio:.0f}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
