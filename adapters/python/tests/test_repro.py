"""Reproducers of Python libraries (devspec_py/repro.py through `devspec repro`): the suite run
on a library the project installs, its failures written as scripts, and each script run in a
plain interpreter, where it must fail as devspec reported: an AssertionError naming the case,
the step and op the report names, and every statement of the case (ID and text), or, for a
step with no plain-Python form, a NotImplementedError that the script's docstring announces.
Known failures of array-api-strict and NumPy (conformance/expectations), the lacking
functions of the zoo's `missing` namespace, and cases with deliberately wrong expectations
(conformance/tests/repro/wrong.json), whose right case passes. The scripts of every passing
case of array-api-strict and NumPy pass: the translation cannot drift from the adapter's.
Needs the runner (as test_suite.py); without it these tests skip, saying so."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from typing import Any

import pytest
from adapter_client import HERE, LIBRARIES, TOP, importable, interpreter
from test_suite import runner

from devspec_py import ops_table, repro, repro_named

WRONG = os.path.join(TOP, "conformance", "tests", "repro", "wrong.json")


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


def check_fails_as_reported(python: str, path: str, record: dict[str, Any],
                            env: dict[str, str] | None = None) -> None:
    """Runs the script PATH in a plain interpreter (-I: no PYTHONPATH, no user site, the
    script's folder first) and checks that it fails as the report's RECORD says."""
    flags = ["-I"] if env is None else []  # the zoo is found through PYTHONPATH
    p = subprocess.run([python, *flags, path], capture_output=True,
                       text=True, timeout=120, cwd=os.path.dirname(path),
                       env=dict(os.environ, **env) if env else None)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert p.returncode != 0, "%s passed; devspec reported %s" % (path, record["reason"])
    last = [line for line in p.stderr.splitlines() if re.match(r"^\w+Error: ", line)]
    assert last, p.stderr[-2000:]
    if "NOT A FULL REPRODUCER" in text:
        assert last[-1].startswith("NotImplementedError: not reproducible outside devspec"), \
            p.stderr[-2000:]
        return
    assert last[-1].startswith("AssertionError: %s: " % record["id"]), p.stderr[-2000:]
    step = re.match(r"AssertionError: [^:]+: step (\d+) \(([a-z_.]+)\)", last[-1])
    if step is not None:  # a step that raised where it should return names no step
        assert (int(step.group(1)), step.group(2)) == (record["step"], record["op"]), (
            "%s: the script fails at step %s (%s), devspec at step %s (%s)"
            % (record["id"], step.group(1), step.group(2), record["step"], record["op"]))
    known = statements()
    for sid in record["spec"]:
        assert "%s: %s" % (sid, known[sid]) in p.stderr, (sid, p.stderr[-2000:])


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
        for cid, record in cases.items():
            assert record["reproducer"]["file"].endswith("/" + repro.file_name(cid))
            path = os.path.join(out, repro.file_name(cid))
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if "NOT A FULL REPRODUCER" in text:
                partial += 1
                # Only the exchange with refarray needs devspec: the peer is devspec's.
                assert "array.exchange" in text.split('"""')[1], text[:1500]
            check_fails_as_reported(interpreter(library), path, record)
        assert partial < len(cases), "every reproducer is partial"


RUN_ALL = r"""
import contextlib, io, json, runpy, sys
bad = {}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        partial = "NOT A FULL REPRODUCER" in f.read()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (0, None):
            bad[path] = "exit %r" % e.code
    except NotImplementedError as e:
        if not partial:
            bad[path] = "NotImplementedError: %s" % e
    except BaseException as e:
        bad[path] = "%s: %s" % (type(e).__name__, str(e)[:500])
    else:
        if partial:
            bad[path] = "passed, but says it is not a full reproducer"
print(json.dumps(bad))
"""


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
        proc = subprocess.run([interpreter(library), "-I", "-c", RUN_ALL, *scripts],
                              capture_output=True, text=True, timeout=600, cwd=out)
        bad = json.loads(proc.stdout.splitlines()[-1]) if proc.stdout else proc.stderr
        assert bad == {}, json.dumps(bad, indent=1)[:4000]


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
        for cid in sorted(lacks)[::10]:  # a sample: each script starts an interpreter
            path = os.path.join(out, repro.file_name(cid))
            with open(path, encoding="utf-8") as f:
                assert "import zoo.missing as xp" in f.read()
            check_fails_as_reported(python, path, lacks[cid], env=zoo)


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
            check_fails_as_reported(python, path, lacks[cid], env=zoo)
            p = subprocess.run([python, path], capture_output=True, text=True, timeout=120,
                               cwd=os.path.dirname(path), env=dict(os.environ, **zoo))
            assert "could not bind" not in p.stderr and "__array_namespace_info__" not in \
                p.stderr, p.stderr[-2000:]


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
            check_fails_as_reported(python, os.path.join(out, repro.file_name(cid)), record)
        passing = os.path.join(tmp, "passing")
        subprocess.run([python, "-m", "devspec_py.repro", "--report",
                        os.path.join(tmp, "run.json"), "--out", passing, "--status", "pass",
                        "--source", TOP], check=True, capture_output=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(HERE)))
        p = subprocess.run([python, "-I", os.path.join(passing, "repro.right-device.py")],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "repro.right-device: passes" in p.stdout, p.stderr[-2000:]


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
        check_fails_as_reported(python, path, cases[cid], env=zoo)


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
        for cid, record in failures.items():
            check_fails_as_reported(interpreter(library), os.path.join(out, repro.file_name(cid)),
                                    record, env=environ if env else None)


# -- the named adapters without a namespace: torch, tinygrad, Ivy (repro_named.py) -------------

NAMED = {"torch": "torch", "tinygrad": "tinygrad", "ivy": "ivy"}

# What the adapter's reset does between cases, done between scripts run in one interpreter
# (a script that sets the default device leaves it set, as a case would without the reset).
RESET = {
    "torch": "",
    "tinygrad": "import tinygrad.helpers as _h; _h.DEV.value = _INITIAL_DEV",
    "ivy": ("import ivy as _ivy\nwhile _ivy.default_device_stack: _ivy.unset_default_device()"
            "\nwhile _ivy.soft_device_mode_stack: _ivy.unset_soft_device_mode()"),
}

RUN_ALL_RESET = r"""
import contextlib, io, json, os, runpy, sys
os.environ.update(json.loads(sys.argv[1]))
if "tinygrad" in sys.argv[2]:
    import tinygrad.helpers
    _INITIAL_DEV = tinygrad.helpers.DEV.value
bad = {}
for path in sys.argv[3:]:
    with open(path, encoding="utf-8") as f:
        partial = "NOT A FULL REPRODUCER" in f.read()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (0, None):
            bad[path] = "exit %r" % e.code
    except NotImplementedError as e:
        if not partial:
            bad[path] = "NotImplementedError: %s" % e
    except BaseException as e:
        bad[path] = "%s: %s" % (type(e).__name__, str(e)[:500])
    else:
        if partial:
            bad[path] = "passed, but says it is not a full reproducer"
    exec(sys.argv[2])
print(json.dumps(bad))
"""


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
        for cid, record in chosen.items():
            script = os.path.join(out, repro.file_name(cid))
            with open(script, encoding="utf-8") as f:
                text = f.read()
            assert "has no array API namespace" in text or "as devspec's named adapter" in text
            check_fails_as_reported(interpreter(library), script, record)


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
        proc = subprocess.run([interpreter(library), "-I", "-c", RUN_ALL_RESET,
                               json.dumps(LIBRARIES[library]), RESET[library], *scripts],
                              capture_output=True, text=True, timeout=600, cwd=out)
        bad = json.loads(proc.stdout.splitlines()[-1]) if proc.stdout else proc.stderr
        assert bad == {}, json.dumps(bad, indent=1)[:4000]
