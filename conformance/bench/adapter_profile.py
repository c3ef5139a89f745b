#!/usr/bin/env python3
"""A Python adapter's process, observed from inside without changing what it does.

    adapter_profile.py --serve LOGDIR [--compiles] [--profile] [--cold] -- SCRIPT [ARG...]

runs SCRIPT (devspec_adapter.py and its arguments) in this interpreter, as `python SCRIPT`
would, and writes into LOGDIR, per process:

- with --compiles, compiles-PID.log: every program JAX compiles or fetches from its
  persistent cache, from the DEBUG messages of the logger jax._src.compiler ("Persistent
  compilation cache hit for 'NAME' with key KEY", "PERSISTENT COMPILATION CACHE MISS ...";
  the key is the program's identity), each followed by a tab and the request the adapter
  was answering ("array.asarray", "call matmul"; "-" at its start), and a tab and that
  request's id (-1 at the start; case_of gives the case the id belongs to); and
  requests-PID.log, each request's id and the CPU seconds it took. Only a handler is added
  to that logger: JAX's configuration is not touched (jax_log_compiles stays off; it would
  only raise these messages to WARNING).
- with --cold (and --compiles), JAX's in-memory caches cleared before each case's first
  request, so that each case logs every program it needs (compile_graph.py's graph): a
  measuring run only.
- with --profile, profile-PID.json: the process's CPU time, and under cProfile (in CPU time)
  the time spent inside the library (each call the adapter's own code made into a file of
  site-packages, cumulative) and the rest, the adapter's own (its code, the protocol's JSON,
  the standard library, the interpreter's start). cProfile slows Python code more than a
  library's compiled code, so the adapter's share it gives is an upper bound.

jax_compiles.py, compile_graph.py and suite_time.py --split wrap adapters.json entries with it
(wrap; observed_run for the first two) and read the folder back (collect); they and
share_profile.py time their run of devspec with run_timed.
Standard-library Python.
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
from typing import Any

MESSAGES = ("Persistent compilation cache hit for ", "PERSISTENT COMPILATION CACHE MISS for ")


def _library_time(stats: Any) -> float:
    """Cumulative seconds of the calls the adapter's own code (devspec_py, devspec_adapter.py)
    made into functions of site-packages: the library's time, as the adapter entered it."""
    def own(fname: str) -> bool:
        return "devspec_py" in fname or fname.endswith("devspec_adapter.py")

    def library(fname: str) -> bool:
        return ("site-packages" in fname or "dist-packages" in fname) and not own(fname)

    total = 0.0
    for (fname, _, _), (_, _, _, _, callers) in stats.stats.items():
        if library(fname):
            total += sum(c[3] for (cfile, _, _), c in callers.items() if own(cfile))
    return total


def _request_in_flight() -> tuple[str, int]:
    """The request the adapter is answering ("array.binary add", "call matmul") and its id,
    read from the frame of Server.call up the stack; ("-", -1) outside a request (the
    adapter's start)."""
    frame: Any = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "call" and code.co_filename.endswith(os.path.join("devspec_py",
                                                                             "server.py")):
            name = frame.f_locals.get("name")
            args = frame.f_locals.get("args")
            rid = frame.f_locals.get("rid")
            fn = args.get("fn") if isinstance(args, dict) else None
            return ("%s %s" % (name, fn) if isinstance(fn, str) else str(name),
                    rid if isinstance(rid, int) else -1)
        frame = frame.f_back
    return "-", -1


def case_of(rid: int) -> int:
    """The index of the case (its place among the run's selected cases) whose request RID is:
    the runner numbers a case's requests from (index + 1) << 20 (its reset from 64 below);
    -1 for none (the adapter's start, a request outside every case)."""
    return (rid + 64 >> 20) - 1 if rid >= 0 else -1


def _tag_request(record: Any) -> bool:
    """Keeps JAX's compile messages only, each with the request in flight and its id after
    tabs."""
    if not record.getMessage().startswith(MESSAGES):
        return False
    request, rid = _request_in_flight()
    record.msg = "%s\t%s\t%d" % (record.getMessage(), request, rid)
    record.args = ()
    return True


def _observe_requests(logdir: str, cold: bool) -> None:
    """Wraps the adapter's Server.call to write, per request, its id and the process's CPU
    seconds it took into requests-PID.log. With COLD, JAX's in-memory caches are cleared
    (jax.clear_caches) before the first request of each case, so that every case compiles
    (or fetches from the persistent cache) every program it needs, not only those no case
    before it in the same process needed: the case -> programs graph of compile_graph.py.
    A measuring run only; the adapter and JAX's configuration are left as they are."""
    import time

    from devspec_py import server  # the adapter's own package, on sys.path by then

    out = open(os.path.join(logdir, "requests-%d.log" % os.getpid()), "w",  # noqa: SIM115
               encoding="utf-8")
    plain = server.Server.call
    last = [-2]

    def call(self: Any, rid: int, name: str, args: Any) -> Any:
        if cold and isinstance(rid, int) and case_of(rid) != last[0]:
            last[0] = case_of(rid)
            jax = sys.modules.get("jax")
            if jax is not None:
                jax.clear_caches()
        t = time.process_time()
        try:
            return plain(self, rid, name, args)
        finally:
            out.write("%s\t%.6f\n" % (rid, time.process_time() - t))
            out.flush()

    server.Server.call = call  # type: ignore[method-assign]


def serve(logdir: str, compiles: bool, profile: bool, argv: list[str],
          cold: bool = False) -> None:
    import logging
    import runpy

    if compiles:
        handler = logging.FileHandler(os.path.join(logdir, "compiles-%d.log" % os.getpid()),
                                      encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler.addFilter(_tag_request)
        log = logging.getLogger("jax._src.compiler")
        log.addHandler(handler)
        log.setLevel(logging.DEBUG)
        log.propagate = False  # to the file only, never to the adapter's stderr
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))  # as `python SCRIPT` does
    if compiles:
        _observe_requests(logdir, cold)
    if not profile:
        runpy.run_path(argv[0], run_name="__main__")
        return
    import cProfile
    import pstats
    import time

    prof = cProfile.Profile(time.process_time)  # CPU: a wait for the next request is no one's
    try:
        prof.runcall(runpy.run_path, argv[0], run_name="__main__")
    except SystemExit:
        pass
    finally:
        stats = pstats.Stats(prof)
        profiled = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
        use = resource.getrusage(resource.RUSAGE_SELF)
        with open(os.path.join(logdir, "profile-%d.json" % os.getpid()), "w",
                  encoding="utf-8") as f:
            json.dump({"library_s": _library_time(stats), "profiled_s": profiled,
                       "cpu_s": use.ru_utime + use.ru_stime}, f)


def wrap(entry: dict[str, Any], top: str, logdir: str, compiles: bool,
         profile: bool, cold: bool = False) -> dict[str, Any] | None:
    """ENTRY of adapters.json with its command run under this script (COLD: JAX's in-memory
    caches cleared at each case, see _observe_requests); None where the command is not
    `PYTHON SCRIPT.py ...`."""
    cmd = [c.replace("${SOURCE}", top) for c in entry["command"]]
    if len(cmd) < 2 or not cmd[1].endswith(".py") or "python" not in os.path.basename(cmd[0]):
        return None
    flags = ((["--compiles"] if compiles else []) + (["--profile"] if profile else [])
             + (["--cold"] if cold else []))
    out = dict(entry, name=entry["name"] + "-observed")
    out["command"] = [cmd[0], os.path.abspath(__file__), "--serve", logdir, *flags, "--",
                      *cmd[1:]]
    if "expectations" in entry:
        out["expectations"] = os.path.join(top, entry["expectations"])
    return out


def collect(logdir: str) -> dict[str, Any]:
    """What the wrapped processes wrote: compiles (a Counter of program keys), per_process
    (the count of each process), across (the compiles of a program already compiled in
    another process), profiles (each process's profile-PID.json), requests (per program
    key, a Counter of the requests that compiled it), events (each compile as (process,
    request id, program key), the process numbered from 0 in the order of the logs' names;
    the id -1 outside a request) and request_cpu (per request id, the CPU seconds it took,
    summed over the processes)."""
    seen: collections.Counter[str] = collections.Counter()
    processes: collections.Counter[str] = collections.Counter()
    per_process: list[int] = []
    requests: dict[str, collections.Counter[str]] = {}
    profiles: list[dict[str, float]] = []
    events: list[tuple[int, int, str]] = []
    request_cpu: dict[int, float] = {}
    for fname in sorted(os.listdir(logdir)):
        with open(os.path.join(logdir, fname), encoding="utf-8") as f:
            if fname.startswith("profile-"):
                profiles.append(json.load(f))
                continue
            if fname.startswith("requests-"):
                for line in f.read().splitlines():
                    rid, _, cpu = line.partition("\t")
                    if rid.lstrip("-").isdigit():
                        request_cpu[int(rid)] = request_cpu.get(int(rid), 0.0) + float(cpu)
                continue
            msgs = [m for m in f.read().split("\n") if m.startswith(MESSAGES)]
        keys = []
        for m in msgs:
            key, _, tags = m.split(" for ", 1)[1].partition("\t")
            request, _, rid = tags.partition("\t")
            keys.append(key)
            requests.setdefault(key, collections.Counter())[request or "-"] += 1
            events.append((len(per_process), int(rid) if rid.lstrip("-").isdigit() else -1,
                           key))
        per_process.append(len(msgs))
        seen.update(keys)
        processes.update(set(keys))
    across = sum(n - 1 for n in processes.values())
    return {"compiles": seen, "per_process": per_process, "across": across,
            "profiles": profiles, "requests": requests, "events": events,
            "request_cpu": request_cpu}


def split(run_cpu: float, profiles: list[dict[str, float]]) -> tuple[float, float, float]:
    """(library s, devspec s, the adapters' CPU s) of a run that took RUN_CPU seconds of CPU
    (the runner's and its adapters'): the library's share of each adapter process's CPU is
    its share of the profiled time; devspec's is the rest, with the runner's own CPU."""
    adapters = sum(p["cpu_s"] for p in profiles)
    library = sum(p["cpu_s"] * min(1.0, p["library_s"] / p["profiled_s"])
                  for p in profiles if p["profiled_s"] > 0)
    return library, max(run_cpu - library, 0.0), adapters


def run_timed(argv: list[str], timeout: float = 3600) -> tuple[Any, float, float]:
    """(the finished process, wall seconds, CPU seconds) of running ARGV to its end, its
    output captured as text: the CPU is the user and system time of the children this
    process waited for meanwhile (getrusage of RUSAGE_CHILDREN before and after), so the
    child's own and every descendant's it waited for, such as a runner's adapters."""
    import subprocess
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, wall, cpu


def adapter_entry(top: str, name: str) -> dict[str, Any]:
    """The entry NAME of TOP's adapters/adapters.json."""
    with open(os.path.join(top, "adapters", "adapters.json"), encoding="utf-8") as f:
        found: dict[str, Any] = next(a for a in json.load(f)["adapters"] if a["name"] == name)
    return found


def observed_run(devspec: str, top: str, name: str, tmp: str, jobs: int, cases: list[str],
                 profile: bool = False, cold: bool = False) -> tuple[Any, float, float, str]:
    """`devspec run` of adapter NAME with --jobs JOBS over CASES (none: the suite), its
    processes observed (wrap, every compile logged; PROFILE, COLD as wrap says), in folder
    TMP: (the finished process and its wall and CPU seconds as run_timed gives them, and the
    folder of the processes' logs, for collect). The report is TMP/report.json."""
    logdir = os.path.join(tmp, "logs")
    os.mkdir(logdir)
    wrapped = wrap(adapter_entry(top, name), top, logdir, True, profile, cold=cold)
    if wrapped is None:
        raise SystemExit("%s is not a Python adapter" % name)
    adapters = os.path.join(tmp, "adapters.json")
    with open(adapters, "w", encoding="utf-8") as f:
        json.dump({"adapters": [wrapped]}, f)
    argv = [devspec, "run", "--adapters", adapters, "--adapter", wrapped["name"],
            "--jobs", str(jobs), "--report", os.path.join(tmp, "report.json"), "--no-tap",
            "--no-progress"]
    if profile:
        argv += ["--timeout", "120"]  # cProfile slows a case several times over
    for c in cases:
        argv += ["--cases", c]
    proc, wall, cpu = run_timed(argv)
    return proc, wall, cpu, logdir


def main(argv: list[str]) -> int:
    if argv[:1] != ["--serve"] or len(argv) < 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    rest = argv[2:]
    compiles = "--compiles" in rest[:4]
    profile = "--profile" in rest[:4]
    cold = "--cold" in rest[:4]
    script = rest[rest.index("--") + 1:] if "--" in rest else rest
    serve(argv[1], compiles, profile, script, cold)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
