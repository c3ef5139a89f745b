#!/usr/bin/env python3
"""devspec's own share of a whole run on a Python library, by a sampling profiler.

    share_profile.py [--devspec PATH] [--jobs N]... [--runs K] [--python PATH]
                     [--py-spy PATH] [--rate HZ] [--no-native] [--no-sample]
                     [--library-package P]... [--cases FILE]... [--top N] [--keep DIR]
                     ADAPTER...

ADAPTER is a name of adapters/adapters.json whose command is `PYTHON SCRIPT.py ...` (jax,
numpy, ...) or python:MODULE (the Python adapter driving MODULE, as `devspec run --adapter
python:MODULE --python PATH` starts it; PATH is --python, by default the project's .venv
interpreter where there is one, else python3). For each ADAPTER, each --jobs N (default 1)
and each of K runs (default 3), `devspec run` runs the whole suite (or the --cases given)
with every adapter process started under py-spy (`py-spy record --format raw`, --rate HZ
samples a second, default 100, Python frames only unless --native, without --idle), and the
run's CPU time (of the runner and its adapter processes, from the operating system; py-spy's
and this script's wrappers' left out) is split three ways:

- the runner: the runner process's own CPU (the run's, less every adapter process's);
- the adapter (devspec_py and devspec_adapter.py): of each adapter process's main thread's
  CPU time, the fraction of its samples whose innermost frame of a known owner is the
  adapter's: the adapter's own Python, and what it calls that is neither the library's nor
  the adapter's (the standard library, the interpreter, another package such as NumPy
  called to encode a value) is the adapter's too;
- the library: the rest of each adapter process: the main thread's samples whose innermost
  owned frame is in one of the library's packages (Python files or native code under
  site-packages/PACKAGE: for JAX jax and jaxlib, XLA included), and every other thread's CPU
  (the library's thread pools, which run no Python of the adapter's).

A sample with frames but none owned (the interpreter importing, the wrapper) counts as the
adapter's ("other"), so the figure errs on devspec's side. Set apart ("apart"), in no share:
the request loop blocked on its pipe (Server.serve on its line that reads a request or
writes a reply, or in the C library's read or write from there: py-spy counts some of these
as active, a thread just resumed after its stop, yet they wait for the runner), and a sample
with no frame at all or native frames only (the interpreter before the script or at its
exit, after the CPU was read). devspec's share is (runner + adapter) / run. Python frames
only count the library's native code called straight from the adapter's Python as the
adapter's: the share errs on devspec's side. --native reads native frames too, at several
times the adapter's CPU in py-spy; py-spy then fails to unwind some samples (said on stderr),
most inside the library's compiled code, which also errs on devspec's side.

It prints a Markdown table, one row per run, and a line per ADAPTER and N with the runs'
range; --top N adds the N adapter functions with most samples (innermost adapter frame).
--keep DIR keeps each run's report, records and py-spy's raw samples. --no-sample runs
without py-spy: the runner's CPU beside the adapters', not split.

Without py-spy (not found on PATH, beside this interpreter, or at --py-spy) it says so on
stderr and exits 3: install it (`pip install py-spy`) in any environment, it needs no access
to the library's. py-spy needs to trace the processes it starts (ptrace): where that is
refused, the runs' rows say so. Standard-library Python; the adapter processes run their
own interpreter, through this file's --outer and --inner modes.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import linecache
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
ADAPTER_SCRIPT = os.path.join(TOP, "adapters", "python", "devspec_adapter.py")
sys.path.insert(0, HERE)

from adapter_profile import run_timed  # noqa: E402

# Packages that make up one library beyond its own top-level module (native code included).
COMPANIONS = {
    "jax": ("jax", "jaxlib"),
    "array-api-strict": ("array_api_strict",),
    "torch": ("torch", "torchgen", "functorch"),
}

FRAME_FILE = re.compile(r" \(([^()]*)\)$")
OWN_MARKS = (os.sep + "devspec_py" + os.sep, os.sep + "devspec_adapter.py")
IO_CALLS = {"read", "write", "__read", "__write", "__libc_read", "__libc_write", "poll",
            "__poll", "ppoll", "select", "__select"}


# -- the two wrappers, run in the adapter's process tree ---------------------------------

def outer(logdir: str, spy: list[str], cmd: list[str]) -> int:
    """The adapter process the runner starts: py-spy around the inner wrapper, in a session
    of their own, so that the runner's kill of the worker's process group (2 s after it
    closed the pipe) cannot stop py-spy writing its samples. This process stands for the
    adapter until the adapter has written its record (its run is over), then ends with its
    status; py-spy and the adapter end on their own (the adapter at the end of its input,
    as always). py-spy prints to its standard output, so the adapter gets the runner's pipe
    through another descriptor (--stdout-fd), and py-spy's standard output is a file beside
    the samples (the pipe is closed once the run is over). Writes outer-PID.json: the child,
    the samples' file, and at the end this process's CPU."""
    fd = os.dup(1)
    os.set_inheritable(fd, True)
    me = os.getpid()
    out = os.path.join(logdir, "spy-%d.txt" % me)
    done = os.path.join(logdir, "inner-of-%d.json" % me)
    inner_cmd = [cmd[0], os.path.abspath(__file__), "--inner", done, "--stdout-fd", str(fd),
                 "--", *cmd[1:]]
    sampled = [*spy, "--output", out, "--"] if spy else []  # none: --no-sample
    with open(out + ".log", "w", encoding="utf-8") as log:  # py-spy's lines
        p = subprocess.Popen([*sampled, *inner_cmd], stdout=log if spy else 2, pass_fds=(fd,),
                             start_new_session=True)
    os.close(fd)
    path = os.path.join(logdir, "outer-%d.json" % me)

    def record(**more: Any) -> None:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"child": p.pid, "samples": out if spy else None, "inner": done, **more}, f)
        os.replace(path + ".tmp", path)

    record()
    rc = None
    while rc is None and not os.path.exists(done):
        with contextlib.suppress(subprocess.TimeoutExpired):
            rc = p.wait(0.25)
    if rc is None:
        with open(done, encoding="utf-8") as f:
            rc = json.load(f)["code"]
    use = resource.getrusage(resource.RUSAGE_SELF)
    record(self_s=use.ru_utime + use.ru_stime)
    return rc if isinstance(rc, int) and 0 <= rc < 256 else 1


def inner(done: str, fd: int, argv: list[str]) -> int:
    """The adapter script run as `python SCRIPT` would run it, with the runner's pipe as its
    standard output; writes the process's CPU, its main thread's and its exit status to
    DONE."""
    import runpy
    import threading

    os.dup2(fd, 1)
    os.close(fd)
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    code: Any = 0
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.stdout.flush()
        use = resource.getrusage(resource.RUSAGE_SELF)
        with open(done + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"pid": os.getpid(), "tid": threading.get_native_id(), "code": code,
                       "cpu_s": use.ru_utime + use.ru_stime,
                       "main_s": time.thread_time()}, f)
        os.replace(done + ".tmp", done)
    return int(code)


# -- attributing the samples ------------------------------------------------------------

def frame_file(frame: str) -> str:
    m = FRAME_FILE.search(frame)
    return m.group(1) if m else ""


def serve_io(frame: str) -> bool:
    """Whether FRAME is the adapter's Server.serve on a line that reads a request or writes
    a reply (its source line, read back)."""
    m = re.match(r"Server\.serve \((.*):(\d+)\)$", frame)
    if not m or not any(mark in m.group(1) for mark in OWN_MARKS):
        return False
    text = linecache.getline(m.group(1), int(m.group(2)))
    return any(call in text for call in (".readline(", ".write(", ".flush("))


def waiting(frames: list[str]) -> bool:
    """Whether the stack is the request loop blocked on its pipe: the adapter's Server.serve
    reading a request or writing a reply, innermost (Python frames only) or calling a read or
    write of the C library (--native). py-spy counts some of these as active (a thread just
    resumed after its stop), yet they wait for the runner."""
    if frames and serve_io(frames[-1]):
        return True
    if len(frames) < 2 or frames[-1].split(" (")[0] not in IO_CALLS:
        return False
    if not re.search(r"[/(]libc[.-][^/]*\)$", frames[-1]):
        return False
    return serve_io(frames[-2])


def owner(frames: list[str], packages: tuple[str, ...]) -> tuple[str, str]:
    """("adapter" | "library" | "apart" (waiting) | "other", the innermost adapter frame or
    "") of one stack, outermost frame first."""
    if waiting(frames):
        return "apart", ""
    marks = tuple("%s%s%s" % (site, p, os.sep) for site in ("site-packages" + os.sep,
                                                            "dist-packages" + os.sep)
                  for p in packages)
    for frame in reversed(frames):
        f = frame_file(frame)
        if any(m in f for m in OWN_MARKS) or f.endswith("devspec_adapter.py"):
            return "adapter", re.sub(r":\d+\)$", ")", frame)
        if any(m in f for m in marks):
            return "library", ""
    return "other", ""


def python_frame(frame: str) -> bool:
    f = frame_file(frame)
    return f.startswith("<frozen ") or bool(re.search(r"\.py(:\d+)?$", f))


def spy_errors(log: str) -> tuple[int, int] | None:
    """(samples, errors) from py-spy's last lines, or None."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            m = re.findall(r"Samples: (\d+) Errors: (\d+)", f.read())
    except OSError:
        return None
    return (int(m[-1][0]), int(m[-1][1])) if m else None


def read_samples(path: str, main_tid: int | None,
                 packages: tuple[str, ...]) -> tuple[collections.Counter[str],
                                                     collections.Counter[str]]:
    """(samples per owner, samples per innermost adapter frame) of the main thread in one
    py-spy raw file (`thread (TID): NAME;frame;...;frame COUNT` per line with --threads)."""
    owners: collections.Counter[str] = collections.Counter()
    frames_of: collections.Counter[str] = collections.Counter()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not count.isdigit():
                continue
            frames = stack.split(";")
            head = frames[0]
            m = re.match(r"thread \((0x[0-9a-fA-F]+|\d+)\)(: (.*))?$", head)
            if m:
                tid = int(m.group(1), 0)
                if main_tid is not None and tid != main_tid and m.group(3) != "MainThread":
                    continue
                frames = frames[1:]
            if not frames:  # the interpreter outside any frame: before the script, or at its
                owners["apart"] += int(count)  # exit, after the CPU was read
                continue
            who, frame = owner(frames, packages)
            if who == "other" and not any(python_frame(f) for f in frames):
                who = "apart"  # native frames only: the interpreter starting or at its exit
            owners[who] += int(count)
            if frame:
                frames_of[frame] += int(count)
    return owners, frames_of


def packages_of(entry: dict[str, Any], extra: list[str]) -> tuple[str, ...]:
    """The library's packages: --library-package, else the adapter's --library or --module
    (its top-level module) with COMPANIONS."""
    if extra:
        return tuple(extra)
    cmd = entry["command"]
    name = ""
    for flag in ("--library", "--module"):
        if flag in cmd[:-1]:
            name = cmd[cmd.index(flag) + 1]
    top = re.split(r"[.:]", name)[0] if name else entry["name"]
    return COMPANIONS.get(top, (top.replace("-", "_"),))


# -- one run -----------------------------------------------------------------------------

def adapter_entry(spec: str, python: str) -> dict[str, Any]:
    if spec.startswith("python:"):
        return {"name": "python-" + spec[len("python:"):], "env": {}, "expectations": None,
                "command": [python, ADAPTER_SCRIPT, "--module", spec[len("python:"):]]}
    with open(os.path.join(TOP, "adapters", "adapters.json"), encoding="utf-8") as f:
        for e in json.load(f)["adapters"]:
            if e["name"] == spec:
                found: dict[str, Any] = e
                return found
    raise SystemExit("share_profile.py: no adapter named '%s' in adapters/adapters.json (or "
                     "give python:MODULE)" % spec)


def spy_argv(spy: str, rate: int, native: bool) -> list[str]:
    return [spy, "record", "--format", "raw", "--rate", str(rate), "--threads",
            "--full-filenames", *(["--native"] if native else [])]


def run_once(devspec: str, entry: dict[str, Any], jobs: int, cases: list[str], spy: list[str],
             packages: tuple[str, ...], tmp: str) -> dict[str, Any]:
    """Runs the suite once with every adapter process sampled; the figures of the run."""
    logdir = tempfile.mkdtemp(prefix="logs-", dir=tmp)
    cmd = [c.replace("${SOURCE}", TOP) for c in entry["command"]]
    if len(cmd) < 2 or not cmd[1].endswith(".py") or "python" not in os.path.basename(cmd[0]):
        raise SystemExit("share_profile.py: %s's command is not `PYTHON SCRIPT.py ...`; only a "
                         "Python adapter can be sampled" % entry["name"])
    wrapped = dict(entry, name=entry["name"] + "-sampled")
    wrapped["command"] = [sys.executable, os.path.abspath(__file__), "--outer", logdir,
                          *spy, "--", *cmd]
    if wrapped.get("expectations"):
        wrapped["expectations"] = os.path.join(TOP, wrapped["expectations"])
    adapters = os.path.join(logdir, "adapters.json")
    with open(adapters, "w", encoding="utf-8") as f:
        json.dump({"adapters": [wrapped]}, f)
    report = os.path.join(logdir, "report.json")
    argv = [devspec, "run", "--adapters", adapters, "--adapter", wrapped["name"],
            "--jobs", str(jobs), "--report", report, "--no-tap", "--no-progress",
            "--timeout", "120"]  # py-spy's native unwinding stops the process at each sample
    for c in cases:
        argv += ["--cases", c]
    p, wall, total = run_timed(argv)
    lines = (p.stdout + p.stderr).strip().splitlines()
    outers = []
    for name in sorted(os.listdir(logdir)):
        if name.startswith("outer-") and name.endswith(".json"):
            with open(os.path.join(logdir, name), encoding="utf-8") as f:
                outers.append(json.load(f))
    # py-spy writes its samples once its adapter has ended, after the run: wait for them.
    until = time.monotonic() + 300
    for o in outers:
        while o["samples"] and os.path.exists("/proc/%d" % o["child"]) and \
                time.monotonic() < until:
            time.sleep(0.1)
    inners = {}
    for o in outers:
        if os.path.exists(o["inner"]):
            with open(o["inner"], encoding="utf-8") as f:
                inners[o["child"]] = json.load(f)
    wrappers = sum(o.get("self_s", 0.0) for o in outers)
    adapters_cpu = sum(i["cpu_s"] for i in inners.values())
    res: dict[str, Any] = {
        "wall": wall, "run_cpu": total - wrappers + adapters_cpu,
        "runner": max(total - wrappers, 0.0), "adapters": adapters_cpu,
        "spy": wrappers, "processes": len(outers), "last": lines[-1] if lines
        else "exit %d" % p.returncode, "logdir": logdir, "report": report,
        "owners": collections.Counter(), "frames": collections.Counter(), "problems": [],
        "errors": [0, 0]}
    own = 0.0
    for o in outers:
        i = inners.get(o["child"])
        if i is None:
            res["problems"].append("an adapter process left no CPU record (killed?)")
            continue
        if not spy:
            continue
        if not os.path.exists(o["samples"]):
            res["problems"].append("py-spy wrote no samples (is tracing allowed? see %s.log)"
                                   % o["samples"])
            own += i["cpu_s"]  # not sampled: all of it counted as devspec's
            continue
        counted = spy_errors(o["samples"] + ".log")
        if counted and counted[1]:
            res["errors"][0] += counted[0]
            res["errors"][1] += counted[1]
        owners, frames = read_samples(o["samples"], i["tid"], packages)
        res["owners"].update(owners)
        res["frames"].update(frames)
        n = owners["library"] + owners["adapter"] + owners["other"]
        own += i["main_s"] * (owners["adapter"] + owners["other"]) / n if n else i["main_s"]
    if not spy:  # --no-sample: the runner's CPU and the adapters', not split
        res["adapter"] = res["library"] = math.nan
        res["share"] = res["runner"] / res["run_cpu"] if res["run_cpu"] > 0 else 0.0
        return res
    res["adapter"] = own
    res["library"] = max(adapters_cpu - own, 0.0)
    res["share"] = (res["runner"] + own) / res["run_cpu"] if res["run_cpu"] > 0 else 0.0
    return res


def find_spy(given: str | None) -> str | None:
    if given:
        return given if os.access(given, os.X_OK) else None
    here = os.path.join(os.path.dirname(sys.executable), "py-spy")
    return shutil.which("py-spy") or (here if os.access(here, os.X_OK) else None)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--outer"] and "--" in argv[2:]:
        cut = argv.index("--", 2)
        return outer(argv[1], argv[2:cut], argv[cut + 1:])
    if argv[:1] == ["--inner"] and len(argv) >= 5 and argv[2] == "--stdout-fd":
        return inner(argv[1], int(argv[3]), argv[5:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devspec", default=os.path.join(TOP, "build", "conformance", "devspec"))
    ap.add_argument("--jobs", type=int, action="append", default=[],
                    help="runner workers (default 1); repeat for one set of runs per value")
    ap.add_argument("--runs", type=int, default=3, help="runs per adapter and --jobs")
    default_python = os.path.join(TOP, ".venv", "bin", "python")
    ap.add_argument("--python", default=default_python if os.access(default_python, os.X_OK)
                    else "python3", help="the interpreter of python:MODULE")
    ap.add_argument("--py-spy", dest="spy", help="py-spy's program (default: on PATH)")
    ap.add_argument("--rate", type=int, default=100, help="samples a second")
    ap.add_argument("--native", action="store_true",
                    help="native frames too (py-spy --native: costly, and its failed unwinds, "
                    "counted, are dropped; by default Python frames only, where a library's "
                    "native code called straight from the adapter's Python counts as the "
                    "adapter's)")
    ap.add_argument("--no-native", dest="native", action="store_false", help="the default")
    ap.add_argument("--no-sample", action="store_true",
                    help="no py-spy: only the runner's CPU and the adapters' (its share is "
                    "the runner's alone)")
    ap.add_argument("--library-package", action="append", default=[], metavar="P",
                    help="a package of the library (default: from the adapter's command)")
    ap.add_argument("--cases", action="append", default=[], help="case files (default all)")
    ap.add_argument("--top", type=int, default=0, metavar="N",
                    help="print the N adapter frames with most samples")
    ap.add_argument("--keep", metavar="DIR", help="keep each run's report and samples here")
    ap.add_argument("adapters", nargs="+", metavar="ADAPTER")
    args = ap.parse_args(argv)
    jobs_list = args.jobs or [1]
    if min(jobs_list) < 1 or args.runs < 1 or args.rate < 1:
        ap.error("--jobs, --runs and --rate take a number >= 1")
    spy = None if args.no_sample else find_spy(args.spy)
    if spy is None and not args.no_sample:
        sys.stderr.write("share_profile.py: py-spy is not installed (%s): devspec's share "
                         "cannot be sampled; install it with `pip install py-spy` in any "
                         "environment\n" % (args.spy or "not on PATH nor beside " +
                                            sys.executable))
        return 3
    if not os.access(args.devspec, os.X_OK):
        sys.stderr.write("share_profile.py: %s is not an executable devspec (build first, or "
                         "--devspec PATH)\n" % args.devspec)
        return 2
    entries = [adapter_entry(a, args.python) for a in args.adapters]
    spy_cmd = spy_argv(spy, args.rate, args.native) if spy else []
    if spy:
        print("py-spy %s at %d Hz%s" % (spy, args.rate, ", --native" if args.native else ""))
    else:
        print("--no-sample: the runner's CPU and the adapters', not split (no py-spy)")
    print("| library | jobs | run | run CPU s | runner s | adapter s | library s | devspec "
          "share | samples library / adapter / other / apart | wrappers s | wall s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="devspec-share-") as tmp:
        for spec, entry in zip(args.adapters, entries, strict=True):
            packages = packages_of(entry, args.library_package)
            for jobs in jobs_list:
                shares = []
                frames: collections.Counter[str] = collections.Counter()
                for k in range(args.runs):
                    r = run_once(args.devspec, entry, jobs, args.cases, spy_cmd, packages, tmp)
                    o = r["owners"]
                    def num(v: float) -> str:
                        return "–" if math.isnan(v) else "%.2f" % v

                    print("| %s | %d | %d | %.2f | %.2f | %s | %s | %.1f %%%s | %s | %.2f | "
                          "%.1f |" % (
                              spec, jobs, k + 1, r["run_cpu"], r["runner"], num(r["adapter"]),
                              num(r["library"]), 100.0 * r["share"],
                              " (runner only)" if not spy else
                              " (incomplete)" if r["problems"] else "",
                              "%d / %d / %d / %d" % (o["library"], o["adapter"], o["other"],
                                                     o["apart"]) if spy else "–",
                              r["spy"], r["wall"]), flush=True)
                    if r["errors"][1]:
                        sys.stderr.write("share_profile.py: %s run %d: py-spy could not read "
                                         "%d of %d samples (dropped)\n"
                                         % (spec, k + 1, r["errors"][1], r["errors"][0]))
                    for problem in r["problems"]:
                        sys.stderr.write("share_profile.py: %s run %d: %s\n" % (spec, k + 1,
                                                                                problem))
                    sys.stderr.write("share_profile.py: %s, --jobs %d: %s\n"
                                     % (spec, jobs, r["last"]))
                    shares.append(100.0 * r["share"])
                    frames.update(r["frames"])
                    if args.keep:
                        dest = os.path.join(args.keep, "%s-jobs%d-run%d" % (
                            spec.replace(":", "-"), jobs, k + 1))
                        shutil.copytree(r["logdir"], dest, dirs_exist_ok=True)
                print("%s --jobs %d: devspec's share %.1f %% to %.1f %% (median %.1f %%) over "
                      "%d runs; the library's packages: %s" % (
                          spec, jobs, min(shares), max(shares), statistics.median(shares),
                          len(shares), ", ".join(packages)))
                total = sum(frames.values())
                for frame, n in frames.most_common(args.top):
                    print("  %5d samples (%.1f %% of the adapter's) %s"
                          % (n, 100.0 * n / total, frame))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
