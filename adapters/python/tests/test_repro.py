"""Reproducers of Python libraries (devspec_py/repro.py through `devspec repro`): the suite run
on a library the project installs, its failures written as scripts, and each script run in a
plain interpreter, where it must fail as devspec reported: an AssertionError naming the case,
the step and op the report names, and every statement of the case (ID and text), or, for a
step with no plain-Python form, a NotImplementedError that the script's docstring announces.
Known failures of array-api-strict and NumPy (conformance/expectations), the lacking
functions of the zoo's `missing` namespace, and cases with deliberately wrong expectations
(conformance/tests/repro/wrong.json), whose right case passes. The scripts of every passing
case of array-api-strict and NumPy pass: the translation cannot drift from the adapter's.
Needs the runner (as test_suite.py); without it these tests skip, saying so.

A test's scripts run one after another in one interpreter (run_scripts.py: each as `python
SCRIPT` runs it, in a fresh namespace, its outcome its own), so that it starts the library
once and not once a script; the first of a test's failing scripts also runs alone in a plain
interpreter, as a maintainer runs it, and must fail the same way there."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from typing import Any, NamedTuple

import pytest
from adapter_client import HERE, LIBRARIES, TOP, importable, interpreter
from test_suite import runner

from devspec_py import ops_table, repro, repro_named

WRONG = os.path.join(TOP, "conformance", "tests", "repro", "wrong.json")
RUN_SCRIPTS = os.path.join(HERE, "run_scripts.py")


def statements() -> dict[str, str]:
    return repro.statements_text(os.path.join(TOP, "spec"))


def run_and_repro(tmp: str, adapter: list[str], extra: list[str] | None = None,
                  env: dict[str, str] | None = None) -> tuple[dict[str, Any], str]:
    """The report of `devspec run ADAPTER EXTRA` and the folder devspec repro wrote."""
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    environ = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build, **(env or {}))
    report = os.path.join(tmp, "run.json")
    proc = subprocess.run([devspec, "run", *adapter, "--report", report, "--no-tap",
                           "--no-progress", *(extra or [])], capture_output=True, text=True,
                          env=environ, cwd=TOP, timeout=600)
    assert os.path.exists(report), proc.stderr[-2000:]
    out = os.path.join(tmp, "repro")
    proc = subprocess.run([devspec, "repro", report, "--out", out], capture_output=True,
                          text=True, env=environ, cwd=TOP, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open(report, encoding="utf-8") as f:
        return json.load(f), out


def failing(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["cases"] if c["observed_status"] in repro.REPRO_STATUSES}


class Ran(NamedTuple):
    """How a script ended: the exit status and the stderr of `python SCRIPT`, and whether it
    ended through sys.exit, which only run_together tells (run_alone says False)."""
    status: int
    stderr: str
    exited: bool = False


def run_alone(python: str, path: str, env: dict[str, str] | None = None) -> Ran:
    """Runs the script PATH as a maintainer does, alone in a plain interpreter (-I: no
    PYTHONPATH, no user site, not even the script's folder on sys.path; without -I under ENV,
    where the zoo is found through PYTHONPATH)."""
    flags = ["-I"] if env is None else []
    p = subprocess.run([python, *flags, path], capture_output=True,
                       text=True, timeout=120, cwd=os.path.dirname(path),
                       env=dict(os.environ, **env) if env else None)
    return Ran(p.returncode, p.stderr)


def run_together(python: str, paths: list[str], library: str | None = None,
                 env: dict[str, str] | None = None) -> dict[str, Ran]:
    """Runs the scripts PATHS one after another in one interpreter (run_scripts.py: each as
    `python SCRIPT` runs it, the library's state undone between them where LIBRARY names one),
    with -I as run_alone, or under ENV; each one's outcome. A script that ends the
    interpreter or hangs fails the test, naming it."""
    flags = ["-I"] if env is None else []
    extra = ["--library", library] if library else []
    extra += ["--env", json.dumps(LIBRARIES[library])] if library in LIBRARIES else []
    try:
        p = subprocess.run([python, *flags, RUN_SCRIPTS, *extra, *paths], capture_output=True,
                           text=True, timeout=600, cwd=os.path.dirname(paths[0]),
                           env=dict(os.environ, **env) if env else None)
        stdout, why = p.stdout, "exit %d: %s" % (p.returncode, p.stderr[-2000:])
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""  # bytes, even with text=True
        stdout = out.decode(errors="replace") if isinstance(out, bytes) else out
        why = "ran past %s s" % e.timeout
    ran = {}
    for line in stdout.splitlines():  # the outcomes, among whatever the library printed
        if line.startswith('{"script": '):
            o = json.loads(line)
            ran[o["script"]] = Ran(o["status"], o["stderr"], o["exited"])
    left = [path for path in paths if os.path.abspath(path) not in ran]
    assert not left, "%s: the interpreter running it stopped (%s)" % (left[0], why)
    return {path: ran[os.path.abspath(path)] for path in paths}


def error_lines(stderr: str) -> list[str]:
    """The lines of STDERR that name an exception (the traceback's last, and any chained)."""
    return [line for line in stderr.splitlines() if re.match(r"^\w+Error: ", line)]


def check_fails_as_reported(path: str, record: dict[str, Any], ran: Ran) -> None:
    """Checks that the script PATH, which ended as RAN says, fails as the report's RECORD
    says."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert ran.status != 0, "%s passed; devspec reported %s" % (path, record["reason"])
    last = error_lines(ran.stderr)
    assert last, ran.stderr[-2000:]
    if "NOT A FULL REPRODUCER" in text:
        assert last[-1].startswith("NotImplementedError: not reproducible outside devspec"), \
            ran.stderr[-2000:]
        return
    assert last[-1].startswith("AssertionError: %s: " % record["id"]), ran.stderr[-2000:]
    step = re.match(r"AssertionError: [^:]+: step (\d+) \(([a-z_.]+)\)", last[-1])
    if step is not None:  # a step that raised where it should return names no step
        assert (int(step.group(1)), step.group(2)) == (record["step"], record["op"]), (
            "%s: the script fails at step %s (%s), devspec at step %s (%s)"
            % (record["id"], step.group(1), step.group(2), record["step"], record["op"]))
    known = statements()
    for sid in record["spec"]:
        assert "%s: %s" % (sid, known[sid]) in ran.stderr, (sid, ran.stderr[-2000:])


def check_passes(path: str, ran: Ran) -> str | None:
    """What is wrong with the script PATH of a passing case, which ended as RAN (of
    run_together) says: it must pass; where it says it is not a full reproducer, it must stop
    with NotImplementedError at the step with no plain form, or exit passing (sys.exit) at a
    step before it that decided the case, but not run to its end."""
    with open(path, encoding="utf-8") as f:
        partial = "NOT A FULL REPRODUCER" in f.read()
    last = (error_lines(ran.stderr) or ["exit %d" % ran.status])[-1]
    if ran.status == 0:
        return "passed, but says it is not a full reproducer" if partial and not ran.exited \
            else None
    return None if partial and last.startswith("NotImplementedError") else last


def check_reproduce(python: str, scripts: dict[str, dict[str, Any]], library: str | None = None,
                    env: dict[str, str] | None = None) -> None:
    """Checks that each of SCRIPTS ({path: its case's record in the report}) fails as its
    record says. They run in one interpreter (run_together); the first also alone, as a
    maintainer runs it (run_alone), where it must fail the same way."""
    ran = run_together(python, list(scripts), library, env)
    for path, record in scripts.items():
        check_fails_as_reported(path, record, ran[path])
    first = next(iter(scripts))
    alone = run_alone(python, first, env)
    check_fails_as_reported(first, scripts[first], alone)
    assert error_lines(alone.stderr)[-1] == error_lines(ran[first].stderr)[-1], (
        first, alone.stderr[-2000:], ran[first].stderr[-2000:])


def check_pass(python: str, scripts: list[str], library: str | None = None) -> None:
    """Checks that each of SCRIPTS, of passing cases, passes (or stops where it says it
    must), all run in one interpreter (run_together)."""
    ran = run_together(python, scripts, library)
    bad = {path: why for path in scripts if (why := check_passes(path, ran[path])) is not None}
    assert bad == {}, json.dumps(bad, indent=1)[:4000]


# The libraries and the cases run (JAX, whose every case compiles, on a part of the suite:
# its adapter's environment, 4 host devices and 64-bit types, is set by the scripts).
SUITES = {"array-api-strict": [], "numpy": [],
          "jax": ["--case", "values.*", "--case", "copy.*", "--case", "signature.*"]}


@pytest.mark.parametrize("library", list(SUITES))
def test_known_failures_reproduce(library: str) -> None:
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    with tempfile.TemporaryDirectory() as tmp:
        report, out = run_and_repro(tmp, ["--adapter", library], SUITES[library])
        cases = failing(report)
        assert cases, "%s: the suite reports no failure to reproduce" % library
        assert report["header"]["adapter"]["python"], report["header"]["adapter"]
        written = sorted(os.listdir(out))
        assert written == sorted(repro.file_name(c) for c in cases), written
        partial = 0
        scripts = {}
        for cid, record in cases.items():
            assert record["reproducer"]["file"].endswith("/" + repro.file_name(cid))
            path = os.path.join(out, repro.file_name(cid))
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if "NOT A FULL REPRODUCER" in text:
                partial += 1
                # Only the exchange with refarray needs devspec: the peer is devspec's.
                assert "array.exchange" in text.split('"""')[1], text[:1500]
            scripts[path] = record
        check_reproduce(interpreter(library), scripts)
        assert partial < len(cases), "every reproducer is partial"


@pytest.mark.parametrize("library", list(SUITES))
def test_reproducers_of_passing_cases_pass(library: str) -> None:
    """Every passing case's script passes (or stops where it says it must): what the script
    does is what the adapter did."""
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    with tempfile.TemporaryDirectory() as tmp:
        report, _ = run_and_repro(tmp, ["--adapter", library], SUITES[library])
        out = os.path.join(tmp, "passing")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
        adapter_env = ["--env=%s=%s" % kv for kv in LIBRARIES[library].items()]
        proc = subprocess.run([interpreter(library), "-m", "devspec_py.repro", "--report",
                               os.path.join(tmp, "run.json"), "--out", out, "--status",
                               "pass", "--source", TOP, *adapter_env], capture_output=True,
                              text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        scripts = sorted(os.path.join(out, n) for n in os.listdir(out))
        passing = [c for c in report["cases"] if c["observed_status"] == "pass"]
        assert len(scripts) == len(passing) > 30, (len(scripts), len(passing))
        check_pass(interpreter(library), scripts)


def test_lacking_functions_reproduce() -> None:
    """The zoo's `missing` namespace (python:SPEC, the library's own module imported by the
    script) lacks arange, linspace, tril, uint16 and uint32: each lacks verdict's script
    fails with the library's AttributeError, as an AssertionError naming the statements."""
    for library in ("numpy", "array-api-strict"):
        ok, why = importable(library)
        if not ok:
            pytest.skip(why)
    python = interpreter("numpy")
    zoo = {"PYTHONPATH": HERE}
    with tempfile.TemporaryDirectory() as tmp:
        report, out = run_and_repro(tmp, ["--adapter", "python:zoo.missing", "--python", python,
                                          "--expectations", "/dev/null"], env=zoo)
        lacks = {cid: r for cid, r in failing(report).items() if r["observed_status"] == "lacks"}
        assert len(lacks) > 20, len(lacks)
        scripts = {os.path.join(out, repro.file_name(cid)): lacks[cid]
                   for cid in sorted(lacks)[::10]}  # a sample
        for path in scripts:
            with open(path, encoding="utf-8") as f:
                assert "import zoo.missing as xp" in f.read()
        check_reproduce(python, scripts, env=zoo)


def test_a_namespace_without_inspection_reproduces() -> None:
    """The zoo's `no_info` namespace (2022.12: no __array_namespace_info__, no fft): the
    scripts bind the run's devices through an array's .device, and each fft lack's script
    fails on fft as reported, not while looking up the devices."""
    for library in ("numpy", "array-api-strict"):
        ok, why = importable(library)
        if not ok:
            pytest.skip(why)
    python = interpreter("numpy")
    zoo = {"PYTHONPATH": HERE}
    with tempfile.TemporaryDirectory() as tmp:
        report, out = run_and_repro(tmp, ["--adapter", "python:zoo.no_info", "--python", python,
                                          "--expectations", "/dev/null", "--case", "fn.fft.*"],
                                    env=zoo)
        lacks = {cid: r for cid, r in failing(report).items() if r["observed_status"] == "lacks"}
        assert len(lacks) >= 2, sorted(failing(report))
        for cid in sorted(lacks)[:2]:
            path = os.path.join(out, repro.file_name(cid))
            ran = run_alone(python, path, env=zoo)
            check_fails_as_reported(path, lacks[cid], ran)
            assert "could not bind" not in ran.stderr and "__array_namespace_info__" not in \
                ran.stderr, ran.stderr[-2000:]


def test_fixed_library_passes() -> None:
    """wrong.json's wrong cases fail as reported; the right one, a case the library passes,
    has a script that passes (what a fixed library's reproducer does)."""
    ok, why = importable("array-api-strict")
    if not ok:
        pytest.skip(why)
    python = interpreter("array-api-strict")
    with tempfile.TemporaryDirectory() as tmp:
        report, out = run_and_repro(tmp, ["--adapter", "array-api-strict", "--cases", WRONG,
                                          "--expectations", "/dev/null"])
        cases = failing(report)
        assert sorted(cases) == ["repro.wrong-dtype", "repro.wrong-raises"], sorted(cases)
        for cid, record in cases.items():
            path = os.path.join(out, repro.file_name(cid))
            check_fails_as_reported(path, record, run_alone(python, path))
        passing = os.path.join(tmp, "passing")
        subprocess.run([python, "-m", "devspec_py.repro", "--report",
                        os.path.join(tmp, "run.json"), "--out", passing, "--status", "pass",
                        "--source", TOP], check=True, capture_output=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(HERE)))
        p = subprocess.run([python, "-I", os.path.join(passing, "repro.right-device.py")],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "repro.right-device: passes" in p.stdout, p.stderr[-2000:]


# Scripts that end each way a reproducer can, for the batch runner: named as a report's case.
TOY = {
    "passes": "print('t.passes: passes')\n",
    "fails": ("import sys\nSEEN = 1\nprint('to stderr first', file=sys.stderr)\n"
              "def main():\n    raise AssertionError('t.fails: step 2 (array.read): got 1\\n"
              "DEV-DS-1: text')\nmain()\n"),
    "chained": ("try:\n    {}['k']\nexcept KeyError as e:\n"
                "    raise ValueError('t.chained: while reading') from e\n"),
    "fresh": "print(SEEN)\n",  # a name an earlier script set is not there
    "exit-code": "import sys\nsys.exit(3)\n",
    "exit-text": "import sys\nsys.exit('stopped: t.exit-text')\n",
    "argv": "import sys\nprint(sys.argv, sys.path[:2], file=sys.stderr)\n",
    # Scripts that say they are not full reproducers: one stops at the step with no plain
    # form, one exits passing at a step before it, one runs to its end (which none may).
    "partial": "'NOT A FULL REPRODUCER'\nraise NotImplementedError('not reproducible "
               "outside devspec: t.partial')\n",
    "partial-decided": "'NOT A FULL REPRODUCER'\nimport sys\nsys.exit(0)\n",
    "partial-ran": "'NOT A FULL REPRODUCER'\nprint('t.partial-ran: passes')\n",
}


def test_scripts_run_together_end_as_each_alone() -> None:
    """run_together gives each script the exit status and stderr, traceback included, that
    `python -I SCRIPT` gives it alone: whatever the script did, in whatever order; and the
    checks reject a script that does not fail as reported, wherever it runs."""
    python = interpreter("numpy")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text in TOY.items():
            paths.append(os.path.join(tmp, "t.%s.py" % name))
            with open(paths[-1], "w", encoding="utf-8") as f:
                f.write(text)
        # Under -I, and without it (the zoo's way: its folder through PYTHONPATH).
        env = {"PYTHONPATH": HERE}
        assert {p: r[:2] for p, r in run_together(python, paths, env=env).items()} == {
            path: run_alone(python, path, env=env)[:2] for path in paths}
        together = run_together(python, paths)
        assert {p: r[:2] for p, r in together.items()} == {
            path: run_alone(python, path)[:2] for path in paths}
        ran = dict(zip(TOY, together.values(), strict=True))
        assert ran["passes"].status == 0 and ran["fresh"].status == 1
        assert ran["exit-code"] == Ran(3, "", True) and ran["exit-text"].status == 1
        assert not ran["passes"].exited and not ran["fails"].exited
        assert check_passes(paths[0], ran["passes"]) is None
        assert check_passes(paths[1], ran["fails"]) == "AssertionError: t.fails: step 2 " \
            "(array.read): got 1"
        partial = {name: check_passes(path, ran[name]) for name, path in zip(
            TOY, paths, strict=True) if name.startswith("partial")}
        assert partial == {"partial": None, "partial-decided": None,
                           "partial-ran": "passed, but says it is not a full reproducer"}
        known = statements()
        record = {"id": "t.fails", "step": 2, "op": "array.read", "spec": ["DEV-DS-1"],
                  "reason": "got 1"}
        fails = paths[1]
        with open(fails, "w", encoding="utf-8") as f:
            f.write(TOY["fails"].replace("DEV-DS-1: text", "DEV-DS-1: " + known["DEV-DS-1"]
                                         .replace("\\", "\\\\").replace("'", "\\'")))
        check_fails_as_reported(fails, record, run_together(python, [fails])[fails])
        wrong: list[tuple[str, dict[str, Any]]] = [
            (paths[0], dict(record, id="t.passes")),  # passes: does not reproduce
            (fails, dict(record, step=3)),  # fails at another step
            (fails, dict(record, spec=["DEV-DS-1", "DEV-DS-2"])),  # leaves a statement out
            (paths[2], dict(record, id="t.chained")),  # fails, but not as an AssertionError
        ]
        for path, rec in wrong:
            with pytest.raises(AssertionError):
                check_fails_as_reported(path, rec, run_together(python, [path])[path])


def test_every_op_has_a_translation_or_a_reason() -> None:
    both = set(repro.TRANSLATE) & set(repro.NO_PLAIN_FORM)
    neither = set(ops_table.OPS) - set(repro.TRANSLATE) - set(repro.NO_PLAIN_FORM)
    assert not both and not neither, (both, neither)
    assert set(repro.MIRRORS) == set(repro.TRANSLATE), set(repro.MIRRORS) ^ set(repro.TRANSLATE)
    assert set(repro.NO_PLAIN_FORM) <= set(ops_table.OPS), set(repro.NO_PLAIN_FORM) - set(
        ops_table.OPS)


def test_a_backend_that_does_an_op_its_own_way_gets_no_script_for_it() -> None:
    """MIRRORS: a backend class that is no array API backend (torch's) does every op its own
    way; NumPy's does none of the translated ops differently. A library whose adapter has a
    backend of its own gets no namespace script (its dialect writes it: repro_named.py, tested
    below), and a C library gets none."""
    assert repro.overridden("torch") == set(repro.MIRRORS)
    assert repro.overridden("numpy") == set()
    header = {"adapter": {"name": "devspec-python", "given": "torch"},
              "library": {"name": "torch"}}
    make_xp, _, why = repro.library_of(header)
    assert make_xp is None and "backend of its own" in why, why
    header = {"adapter": {"name": "refarray", "given": "refarray"},
              "library": {"name": "refarray"}}
    assert repro.library_of(header)[0] is None
    assert repro.namespace_source("numpy") == ["import numpy as xp"]


def test_a_namespace_reached_through_its_arrays() -> None:
    """python:zoo.arrays_only is no namespace itself; the adapter drives its arrays'
    __array_namespace__(), and so does the script."""
    for library in ("numpy", "array-api-strict"):
        ok, why = importable(library)
        if not ok:
            pytest.skip(why)
    python = interpreter("numpy")
    zoo = {"PYTHONPATH": HERE}
    with tempfile.TemporaryDirectory() as tmp:
        report, out = run_and_repro(tmp, ["--adapter", "python:zoo.arrays_only", "--python",
                                          python, "--expectations", "/dev/null"], env=zoo)
        cases = failing(report)
        assert cases, "zoo.arrays_only over array-api-strict has array-api-strict's failures"
        cid = sorted(c for c in cases if c.startswith("values."))[0]
        path = os.path.join(out, repro.file_name(cid))
        with open(path, encoding="utf-8") as f:
            assert "xp = zoo.arrays_only.asarray([0, 1]).__array_namespace__()" in f.read()
        check_fails_as_reported(path, cases[cid], run_alone(python, path, env=zoo))


# The zero-code runs (python:SPEC, no expectations; scripts/zero-code.py runs them from PyPI)
# of the libraries this project's environment installs: SPEC, the library whose interpreter
# runs it, the environment and the cases (JAX, whose every case compiles, on two parts where
# default JAX fails: int8's promotions, whose int64 it lacks, and copies).
ZERO_CODE = [
    ("numpy", "numpy", {}, []),
    ("array_api_strict", "array-api-strict", {}, []),
    ("array_api_strict", "array-api-strict", {"ARRAY_API_STRICT_API_VERSION": "2023.12"}, []),
    ("jax.numpy", "jax", {"JAX_PLATFORMS": "cpu"},
     ["--case", "promotion.api.add.int8.*", "--case", "copy.*"]),
]


def need(library: str, module: str) -> None:
    """Skips, saying why, where LIBRARY's interpreter cannot import MODULE; fails in CI
    (CI=true), where the project's environment has every one of them (requirements.txt)."""
    ok, why = importable(library)
    if ok:
        p = subprocess.run([interpreter(library), "-c", "import " + module.split(":")[0]],
                           capture_output=True, text=True)
        ok, why = p.returncode == 0, "%s does not import: %s" % (
            module, (p.stderr.strip().splitlines() or ["?"])[-1])
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail("CI: " + why)
        pytest.skip(why)


@pytest.mark.parametrize("spec, library, env, cases", ZERO_CODE,
                         ids=["%s%s" % (s, "-" + "-".join(e.values()) if e else "")
                              for s, _, e, _ in ZERO_CODE])
def test_zero_code_failures_reproduce(spec: str, library: str, env: dict[str, str],
                                      cases: list[str]) -> None:
    """Every failure of `devspec run --adapter python:SPEC` in default settings (JAX without
    64-bit mode) has a reproducer that fails, in a plain interpreter with the same
    environment, as the report says."""
    need(library, spec)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    environ = dict(clean, **env)
    with tempfile.TemporaryDirectory() as tmp:
        report, out = run_and_repro(tmp, ["--adapter", "python:" + spec, "--python",
                                          interpreter(library), "--expectations", "/dev/null",
                                          *cases], env=env)
        failures = failing(report)
        assert failures, "python:%s: no failure to reproduce" % spec
        check_reproduce(interpreter(library), {os.path.join(out, repro.file_name(cid)): record
                                               for cid, record in failures.items()},
                        env=environ if env else None)


# -- the named adapters without a namespace: torch, tinygrad, Ivy (repro_named.py) -------------

NAMED = {"torch": "torch", "tinygrad": "tinygrad", "ivy": "ivy"}

def published(library: str) -> tuple[str, dict[str, Any]]:
    """reports/LIBRARY.json, the published run of the named adapter; skips, saying why, where
    it is not a complete run of that library."""
    path = os.path.join(TOP, "reports", library + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as exc:
        pytest.skip("%s: no published report: %s" % (path, exc))
    if repro_named.dialect_of(report.get("header", {})) is None or not report.get(
            "footer", {}).get("complete"):
        pytest.skip("%s is not a complete run of the named %s adapter" % (path, library))
    return path, report


def test_every_dialect_translates_known_ops() -> None:
    """Each dialect's translations and reasons name ops of spec/ops.json, never both for one
    op; the named adapters of torch, tinygrad and Ivy have one, python:SPEC runs none."""
    for name, d in repro_named.DIALECTS.items():
        assert set(d.translate) <= set(ops_table.OPS), (name, set(d.translate) - set(
            ops_table.OPS))
        assert set(d.no_plain) <= set(ops_table.OPS), name
        assert not set(d.translate) & set(d.no_plain), (name, set(d.translate) & set(
            d.no_plain))
    for library in NAMED:
        header = {"adapter": {"name": "devspec-python", "given": library},
                  "library": {"name": library}}
        assert repro_named.dialect_of(header) is repro_named.DIALECTS[library]
        header["adapter"]["given"] = "python:" + library
        assert repro_named.dialect_of(header) is None


def sample_failures(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A fixed sample of the report's failures: the first of each op they fail at (by case
    ID), and the first of each status."""
    chosen: dict[str, dict[str, Any]] = {}
    seen: set[Any] = set()
    for cid, record in sorted(failing(report).items()):
        for key in (("op", record.get("op")), ("status", record["observed_status"])):
            if key not in seen:
                seen.add(key)
                chosen[cid] = record
    return chosen


@pytest.mark.parametrize("library", list(NAMED))
def test_named_failures_reproduce(library: str) -> None:
    """Failures of the published report of the named torch, tinygrad and Ivy adapters (one
    per op they fail at, one per status) each have a script, written by `devspec repro`, that
    imports only the library, calls it as the adapter does and fails, in a plain interpreter
    (python -I), as the report says: at the same step, naming every statement."""
    need(library, NAMED[library])
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    path, report = published(library)
    chosen = sample_failures(report)
    assert len(chosen) >= 3, sorted(chosen)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "repro")
        globs = [arg for cid in chosen for arg in ("--case", cid)]
        proc = subprocess.run([devspec, "repro", path, "--out", out, "--python",
                               interpreter(library), *globs], capture_output=True, text=True,
                              env=dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build),
                              cwd=TOP, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        scripts = {os.path.join(out, repro.file_name(cid)): record
                   for cid, record in chosen.items()}
        for script in scripts:
            with open(script, encoding="utf-8") as f:
                text = f.read()
            assert "has no array API namespace" in text or "as devspec's named adapter" in text
        check_reproduce(interpreter(library), scripts, library)


@pytest.mark.parametrize("library", list(NAMED))
def test_named_reproducers_of_passing_cases_pass(library: str) -> None:
    """The scripts of every third passing case of the published report pass (or stop where
    they say they must): each translation does what the named adapter's backend does."""
    need(library, NAMED[library])
    path, _ = published(library)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "passing")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
        adapter_env = ["--env=%s=%s" % kv for kv in LIBRARIES[library].items()]
        proc = subprocess.run([interpreter(library), "-m", "devspec_py.repro", "--report",
                               path, "--out", out, "--status", "pass", "--source", TOP,
                               *adapter_env], capture_output=True, text=True, env=env,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        scripts = sorted(os.path.join(out, n) for n in os.listdir(out))[::3]
        assert len(scripts) > 100, len(scripts)
        check_pass(interpreter(library), scripts, library)
