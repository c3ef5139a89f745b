#!/usr/bin/env python3
"""The zero-code runs: libraries from PyPI, each in a fresh virtual environment, driven as the
README tells a maintainer (`devspec run --adapter python:SPEC --python "$(which python)"`,
then `devspec repro run.json`), with no code and no expectations file. Writes one compact data
file (default reports/zero-code.json) that reports/summary.py renders as SUMMARY.md's
"Libraries from PyPI, zero code" section.

    scripts/zero-code.py --venvs DIR [--devspec PROGRAM] [--only NAME ...] [--out FILE]
                         [--setup-only] [--reuse] [--rescan] [--recheck] [--jobs N]

--venvs DIR holds one virtual environment per library (DIR/NAME; made with `pythonX.Y -m venv`,
Python 3.11, or 3.10 where a library needs it, found on PATH or under `pyenv root`), its run's
report (DIR/NAME/run.json), the reproducers (DIR/NAME/repro/) and the runner's output
(DIR/NAME/run.log). --reuse keeps an environment that exists (the packages installed before);
without it each is made afresh. --only runs the named libraries and keeps the other
libraries' entries of an existing --out file. --devspec defaults to the build tree's runner
(build/conformance/devspec), or `devspec` on PATH.

Per library the file gives the packages' versions, the library's version and the array API
version it declares, the counts (pass; wrong: a failure of a case resting on a must; should:
short of a should; differs: a failure of a case resting on a devspec decision; lacks;
want_devices: skipped because the case needs more devices than the library gave; the other
skips), the profile verdicts, the wrong verdicts' case IDs, and the reproducers: written, run
in a plain interpreter of that environment (`python -I`), and how many failed as the report
says (an AssertionError naming the case and, where it names one, the report's step and op;
or the NotImplementedError a partial reproducer announces; never an error raised while the
script looked up the devices the run bound, before any step), with the IDs of any that did
not. Every failure's reproducer is run; of the lacks verdicts, three per thing lacked.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time
from typing import Any

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: what pip installs, the SPEC of python:SPEC, the environment of the run, the Python,
# the distributions whose versions the table gives, and why the library is here.
LIBRARIES: list[dict[str, Any]] = [
    {"name": "numpy", "pip": ["numpy"], "spec": "numpy", "dists": ["numpy"]},
    {"name": "array-api-strict", "pip": ["array-api-strict"], "spec": "array_api_strict",
     "dists": ["array-api-strict", "numpy"]},
    {"name": "array-api-strict-2023.12", "venv": "array-api-strict",
     "pip": ["array-api-strict"], "spec": "array_api_strict",
     "env": {"ARRAY_API_STRICT_API_VERSION": "2023.12"},
     "dists": ["array-api-strict", "numpy"]},
    {"name": "dask", "pip": ["dask[array]", "array-api-compat"],
     "spec": "array_api_compat.dask.array", "dists": ["dask", "array-api-compat"]},
    {"name": "marray", "pip": ["marray", "array-api-strict"],
     "spec": "marray:masked_namespace(array_api_strict)",
     "dists": ["marray", "array-api-strict"]},
    {"name": "cubed", "pip": ["cubed"], "spec": "cubed", "dists": ["cubed"]},
    {"name": "sparse", "pip": ["sparse"], "spec": "sparse", "dists": ["sparse", "numba"]},
    {"name": "ndonnx", "pip": ["ndonnx"], "spec": "ndonnx", "dists": ["ndonnx", "onnx"]},
    {"name": "jax.numpy", "pip": ["jax"], "spec": "jax.numpy", "dists": ["jax", "jaxlib"],
     "why": "default JAX: no 64-bit mode, one CPU device"},
    {"name": "mlx", "pip": ["mlx[cpu]"], "spec": "mlx.core", "dists": ["mlx", "mlx-cpu"],
     "why": "Apple's MLX, whose Linux CPU wheel is on PyPI (mlx[cpu])"},
    {"name": "paddle", "pip": ["paddlepaddle"], "spec": "paddle", "dists": ["paddlepaddle"]},
    # Never run by the project before; each exposes an array API namespace.
    {"name": "numpy.array_api", "pip": ["numpy<2"], "spec": "numpy.array_api",
     "dists": ["numpy"],
     "why": "NumPy 1.26's own array API namespace (numpy.array_api, removed in NumPy 2)"},
    {"name": "array_api_compat.numpy", "pip": ["numpy", "array-api-compat"],
     "spec": "array_api_compat.numpy", "dists": ["array-api-compat", "numpy"],
     "why": "array-api-compat's wrapper of NumPy, which libraries use to get NumPy as a namespace"},
    {"name": "jax.experimental.array_api", "pip": ["jax[cpu]==0.4.30"],
     "spec": "jax.experimental.array_api", "dists": ["jax", "jaxlib"],
     "why": "JAX 0.4's array API namespace, before jax.numpy became one (removed in 0.4.32)"},
    {"name": "array_api_compat.numpy-1.26", "pip": ["numpy<2", "array-api-compat"],
     "spec": "array_api_compat.numpy", "dists": ["array-api-compat", "numpy"],
     "why": "array-api-compat over NumPy 1.26, where it supplies what NumPy 1 lacks (device, "
            "to_device, the inspection namespace)"},
    # Its array_api module imports array_api_strict, which the package does not require.
    {"name": "onnx-array-api", "pip": ["onnx-array-api", "array-api-strict"],
     "spec": "onnx_array_api.array_api.onnx_numpy", "dists": ["onnx-array-api", "onnx"],
     "why": "an array API over ONNX graphs evaluated by ONNX's reference runtime (its "
            "array_api module imports array_api_strict, which the package does not require)"},
]

FAILING = ("fail", "error", "crash", "timeout")
LACKS_SAMPLE = 3  # the reproducers run per thing a library lacks


def find_python(version: str) -> str:
    """pythonX.Y on PATH, else under `pyenv root`; a clear error where neither exists."""
    name = "python" + version
    found = shutil.which(name)
    if found:
        return found
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        versions = os.path.join(root, "versions")
        for v in sorted(os.listdir(versions)) if os.path.isdir(versions) else []:
            candidate = os.path.join(versions, v, "bin", name)
            if v.startswith(version + ".") and os.access(candidate, os.X_OK):
                return candidate
    sys.exit("zero-code: no %s on PATH or under pyenv root" % name)


def log(msg: str) -> None:
    print("zero-code: " + msg, file=sys.stderr, flush=True)


def setup(lib: dict[str, Any], venvs: str, reuse: bool) -> tuple[str, str | None]:
    """The environment's interpreter, and None or why it could not be made."""
    venv = os.path.join(venvs, lib.get("venv", lib["name"]))
    python = os.path.join(venv, "bin", "python")
    marker = os.path.join(venv, "installed.json")
    if reuse and os.path.exists(marker):
        return python, None
    if lib.get("venv") and os.path.exists(marker):  # shared with an earlier entry of this run
        return python, None
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([find_python(lib.get("python", "3.11")), "-m", "venv", venv], check=True)
    log("%s: pip install %s" % (lib["name"], " ".join(lib["pip"])))
    p = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *lib["pip"]], capture_output=True, text=True)
    if p.returncode != 0:
        lines = [x for x in p.stderr.splitlines() if x.strip()]
        return python, "pip install %s failed: %s" % (" ".join(lib["pip"]),
                                                      lines[-1] if lines else "?")
    with open(marker, "w", encoding="utf-8") as f:
        json.dump(lib["pip"], f)
    return python, None


def versions(python: str, dists: list[str]) -> dict[str, str]:
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for d in sys.argv[1:]:\n"
            "    try: out[d] = m.version(d)\n"
            "    except m.PackageNotFoundError: pass\n"
            "print(json.dumps(out))")
    p = subprocess.run([python, "-c", code, *dists], capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else {}


def check_reproducer(python: str, path: str, case: dict[str, Any],
                     env: dict[str, str]) -> str | None:
    """None when the script fails as the report says, else what it did instead."""
    with open(path, encoding="utf-8") as f:
        partial = "NOT A FULL REPRODUCER" in f.read()
    try:
        p = subprocess.run([python, "-I", path], capture_output=True, text=True, timeout=300,
                           cwd=os.path.dirname(path), env=env)
    except subprocess.TimeoutExpired:
        return "ran over 300 s"
    if p.returncode == 0:
        return "passed; devspec reported %s" % case["observed_status"]
    errors = [x for x in p.stderr.splitlines() if re.match(r"^[\w.]+: ", x)]
    last = errors[-1] if errors else (p.stderr.strip().splitlines() or ["?"])[-1]
    if partial:
        ok = last.startswith("NotImplementedError: not reproducible outside devspec")
        return None if ok else "partial, but ended with " + last[:300]
    observed = case.get("observed")
    error = observed.get("error") if isinstance(observed, dict) else None
    kind = error.get("kind") if isinstance(error, dict) else None
    # The script lets a NotImplementedError through unwrapped (a partial one announces itself
    # so): where the library raised it in a step, as devspec reported, that is the failure.
    if (last.split(":")[0] == "NotImplementedError" and kind == "NotImplementedError" and
            ", in main\n" in p.stderr and not re.search(r", in _device\n", p.stderr)):
        return None
    if not last.startswith("AssertionError: %s: " % case["id"]):
        return "ended with " + last[:300]
    step = re.match(r"AssertionError: [^:]+: step (\d+) \(([a-z_.]+)\)", last)
    if step:
        if (int(step.group(1)), step.group(2)) != (case.get("step"), case.get("op")):
            return "failed at step %s (%s), devspec at step %s (%s)" % (
                step.group(1), step.group(2), case.get("step"), case.get("op"))
        return None
    # A step raised where the case wants a result: the library must have raised the same
    # kind in the run (any kind for a lack: the adapter names what is lacking its own way),
    # and a device the script could not find (or an error while it looked the devices up, before
    # any step ran) is the script's failure, not the library's.
    raised = re.match(r"AssertionError: [^:]+: (\w+): (.*)", last)
    if raised is None or raised.group(2).startswith("the library lists no device"):
        return "ended with " + last[:300]
    if re.search(r'", line \d+, in _device\n', p.stderr):  # before any step ran
        return "could not bind the run's devices: " + raised.group(1) + ": " + \
            raised.group(2)[:300]
    if case["observed_status"] != "lacks" and raised.group(1) != kind:
        return "raised %s, devspec reported %s" % (raised.group(1), kind or "no exception")
    return None


def run(lib: dict[str, Any], venvs: str, devspec: str, reuse: bool,
        recheck: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": lib["name"], "spec": lib["spec"], "pip": lib["pip"]}
    for key in ("env", "why"):
        if key in lib:
            entry[key] = lib[key]
    python, why = setup(lib, venvs, reuse)
    entry["python"] = subprocess.run(
        [python, "-c", "import platform; print(platform.python_version())"],
        capture_output=True, text=True).stdout.strip()
    if why:
        entry["unavailable"] = why
        return entry
    entry["packages"] = versions(python, lib["dists"])
    here = os.path.join(venvs, lib["name"])
    os.makedirs(here, exist_ok=True)
    report = os.path.join(here, "run.json")
    env = dict(os.environ, **lib.get("env", {}))
    env.pop("PYTHONPATH", None)
    # The README's command: devspec run --adapter python:mylib --python "$(which python)"
    cmd = [devspec, "run", "--adapter", "python:" + lib["spec"], "--python", python,
           "--report", report]
    if recheck and os.path.exists(report):
        log("%s: the report there, the reproducers again" % lib["name"])
    else:
        log("%s: %s" % (lib["name"], " ".join(cmd[1:])))
        start = time.monotonic()
        with open(os.path.join(here, "run.log"), "w", encoding="utf-8") as out:
            p = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=TOP)
        entry["wall_s"] = round(time.monotonic() - start, 1)
        entry["exit_status"] = p.returncode
    if not os.path.exists(report):
        with open(os.path.join(here, "run.log"), encoding="utf-8") as f:
            tail = [x for x in f.read().splitlines() if x.strip()]
        entry["unavailable"] = "no report (exit %d): %s" % (p.returncode, " / ".join(tail[-3:]))
        return entry
    with open(report, encoding="utf-8") as f:
        rep = json.load(f)
    error = rep["header"].get("adapter", {}).get("error")
    if error and not rep["cases"]:  # the adapter did not start: no case ran
        said = [x for x in error.splitlines() if "cannot load" in x]
        said = said[-1:] or [error.strip()[:400]]
        entry["unavailable"] = "the adapter did not start: " + re.sub(
            r"^.*?(devspec_adapter: )", "", said[0])
        return entry
    entry.update(summarise(rep))
    entry["reproducers"] = reproduce(rep, report, python, devspec, env)
    return entry


def summarise(rep: dict[str, Any]) -> dict[str, Any]:
    lib = rep["header"].get("library", {})
    counts = dict.fromkeys(("pass", "wrong", "should", "differs", "lacks", "want_devices",
                            "skip"), 0)
    wrong: list[str] = []
    for c in rep["cases"]:
        status = c["observed_status"]
        if status == "pass":
            counts["pass"] += 1
        elif status == "lacks":
            counts["lacks"] += 1
        elif status == "skip":
            counts["want_devices" if c.get("skip_source") == "devices" else "skip"] += 1
        elif status in FAILING:
            rests = c.get("rests_on", "must")
            key = {"should": "should", "decision": "differs"}.get(rests, "wrong")
            counts[key] += 1
            if key == "wrong":
                wrong.append(c["id"])
    # The array API profiles' verdicts, as the footer gives them (the others need features no
    # namespace has: device strings, sharding, OneFlow's).
    profiles = {name: {k: v for k, v in p.items() if k != "optional"}
                for name, p in rep["footer"].get("profiles", {}).items()
                if name.startswith("array-api-")}
    return {"library": lib.get("name"), "version": lib.get("version"),
            "array_api_version": lib.get("array_api_version"),
            "devices": [d.get("str") for d in rep["header"].get("devices", [])],
            # What start-up found wrong: probes that raised, devices left out or none found.
            "notes": [n for n in rep["header"].get("discovery", {}).get("notes", [])
                      if n.startswith(("could not determine", "device ", "no device",
                                       "no usable device"))],
            "counts": counts, "total": rep["footer"].get("total"), "profiles": profiles,
            "wrong": sorted(wrong)}


def reproduce(rep: dict[str, Any], report: str, python: str, devspec: str,
              env: dict[str, str]) -> dict[str, Any]:
    """devspec repro for every failure, each script run in a plain interpreter."""
    out = os.path.join(os.path.dirname(report), "repro")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([devspec, "repro", report, "--out", out], capture_output=True,
                       text=True, cwd=TOP)
    result: dict[str, Any] = {"written": 0, "run": 0, "as_reported": 0, "partial": 0,
                              "not_as_reported": {}}
    sampled: dict[str, int] = {}
    if p.returncode != 0:
        result["error"] = (p.stderr.strip().splitlines() or ["?"])[-1]
        return result
    for case in rep["cases"]:
        if case["observed_status"] not in (*FAILING, "lacks"):
            continue
        path = os.path.join(out, re.sub(r"[^A-Za-z0-9_.-]", "_", case["id"]) + ".py")
        if not os.path.exists(path):
            result["not_as_reported"][case["id"]] = "no reproducer written"
            continue
        result["written"] += 1
        # Every failure's script is run; of the lacks, LACKS_SAMPLE per thing lacked (JAX
        # without 64-bit mode lacks int64 in some 260 cases, each script a JAX start-up).
        if case["observed_status"] == "lacks":
            what = ", ".join(case.get("lacks") or ["?"])
            sampled[what] = sampled.get(what, 0) + 1
            if sampled[what] > LACKS_SAMPLE:
                continue
        result["run"] += 1
        with open(path, encoding="utf-8") as f:
            result["partial"] += "NOT A FULL REPRODUCER" in f.read()
        why = check_reproducer(python, path, case, env)
        if why is None:
            result["as_reported"] += 1
        else:
            result["not_as_reported"][case["id"]] = why
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venvs", required=True, help="folder of the virtual environments")
    ap.add_argument("--devspec", help="the runner (default: the build tree's, else PATH's)")
    ap.add_argument("--only", nargs="*", default=[], help="these libraries only")
    ap.add_argument("--out", default=os.path.join(TOP, "reports", "zero-code.json"))
    ap.add_argument("--setup-only", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="keep environments that exist")
    ap.add_argument("--recheck", action="store_true",
                    help="keep the environments and each library's report where there is one: "
                         "write and run the reproducers again (after a change to devspec repro)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="libraries run at once (each run and its reproducers in a worker)")
    ap.add_argument("--rescan", action="store_true",
                    help="run nothing: recount the --out file's entries from the reports "
                         "in --venvs (after a change to what is counted)")
    args = ap.parse_args()
    if args.rescan:
        with open(args.out, encoding="utf-8") as f:
            data = json.load(f)
        for e in data["libraries"]:
            path = os.path.join(args.venvs, e["name"], "run.json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    e.update(summarise(json.load(f)))
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        return 0
    known = {lib["name"] for lib in LIBRARIES}
    for name in args.only:
        if name not in known:
            ap.error("--only %s: no such library (known: %s)" % (name, ", ".join(sorted(known))))
    devspec = args.devspec or os.path.join(TOP, "build", "conformance", "devspec")
    if not os.access(devspec, os.X_OK):
        devspec = shutil.which("devspec") or ""
    if not devspec and not args.setup_only:
        ap.error("no runner: build it (cmake --build build) or name it with --devspec")
    os.makedirs(args.venvs, exist_ok=True)
    chosen = [lib for lib in LIBRARIES if not args.only or lib["name"] in args.only]
    if args.setup_only:
        for lib in chosen:
            _, why = setup(lib, args.venvs, args.reuse)
            log("%s: %s" % (lib["name"], why or "ready"))
        return 0
    old: dict[str, Any] = {}
    if args.only and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            old = {e["name"]: e for e in json.load(f)["libraries"]}
    # Libraries that share an environment run in one worker, one after the other.
    groups: dict[str, list[dict[str, Any]]] = {}
    for lib in chosen:
        groups.setdefault(lib.get("venv", lib["name"]), []).append(lib)
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        done = pool.map(lambda libs: [run(lib, args.venvs, devspec, args.reuse or args.recheck,
                                          args.recheck) for lib in libs], groups.values())
        entries = {e["name"]: e for group in done for e in group}
    # A recheck runs no library: its run's time and exit status are the earlier run's.
    for name, e in entries.items():
        for key in ("wall_s", "exit_status"):
            if key not in e and key in old.get(name, {}):
                e[key] = old[name][key]
    version = subprocess.run([devspec, "--version"], capture_output=True, text=True).stdout
    data = {"generated_by": "scripts/zero-code.py",
            "runner": version.splitlines()[0] if version else None,
            "libraries": [entries.get(lib["name"]) or old[lib["name"]] for lib in LIBRARIES
                          if lib["name"] in entries or lib["name"] in old]}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    log("wrote " + args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
