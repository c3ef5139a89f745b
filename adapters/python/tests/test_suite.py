"""The whole conformance suite against each library, with its expectations file: the gate
that fails on anything unexpected (a new failure, a crash, an expected failure that turned
into another kind). Needs the runner, built by scripts/setup.sh into build/ (or the build
tree named by DEVSPEC_BUILD); without it these tests skip, saying so."""

import json
import os
import subprocess
import tempfile
from typing import Any

import pytest
from adapter_client import LIBRARIES as ENVS
from adapter_client import TOP, importable, interpreter
from selfcheck_client import assert_unchanged, plain_fingerprint

LIBRARIES = ("numpy", "array-api-strict", "jax", "torch", "tinygrad", "ivy")


def runner() -> tuple[str | None, str]:
    build = os.environ.get("DEVSPEC_BUILD") or os.path.join(TOP, "build")
    path = os.path.join(build, "conformance", "devspec")
    return (path, build) if os.access(path, os.X_OK) else (None, build)


@pytest.mark.parametrize("library", LIBRARIES)
def test_suite_has_nothing_unexpected(library: str) -> None:
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built (no %s)" % os.path.relpath(
            os.path.join(build, "conformance", "devspec"), TOP))
    with tempfile.TemporaryDirectory() as tmp:
        # The same run shows that the adapter left the library as a plain interpreter has
        # it, at start, after hello and after the last case (selfcheck_client.py).
        selfcheck = os.path.join(tmp, "selfcheck.jsonl")
        env = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build,
                   DEVSPEC_PY_SELFCHECK=selfcheck)
        report_path = os.path.join(tmp, library + ".json")
        proc = subprocess.run([devspec, "run", "--adapter", library, "--report", report_path,
                               "--no-tap", "--no-progress"], capture_output=True, text=True,
                              env=env, cwd=TOP, timeout=600)
        assert os.path.exists(report_path), proc.stderr[-2000:]
        with open(report_path, encoding="utf-8") as f:
            footer = json.load(f)["footer"]
        assert_unchanged(selfcheck, plain_fingerprint(
            interpreter(library), library, dict(os.environ, **ENVS[library])))
    unexpected = footer["unexpected"]
    assert proc.returncode == 0 and not unexpected, (
        "devspec exit %d; unexpected: %s; stale expectations: %s\n%s" %
        (proc.returncode, json.dumps(unexpected)[:3000], footer["stale_expectations"],
         proc.stderr[-2000:]))
    assert footer["complete"] and footer["counts"]["pass"] > 0


def run_report(devspec: str, build: str, adapter_args: list[str], report_path: str,
               env: dict[str, str] | None = None) -> Any:
    """The whole report of a run with no expectations and one worker (the adapter numbers
    the handles it makes on across cases, and a failure's reason quotes them, so with
    --jobs N the numbers depend on which worker ran what), in ENV (default: this
    process's), which gets DEVSPEC_SOURCE and DEVSPEC_BUILD."""
    env = dict(os.environ if env is None else env, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build)
    proc = subprocess.run([devspec, "run", *adapter_args, "--jobs", "1", "--expectations",
                           "/dev/null", "--report", report_path, "--no-tap", "--no-progress"],
                          capture_output=True, text=True, env=env, cwd=TOP, timeout=600)
    assert os.path.exists(report_path), proc.stderr[-2000:]
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    assert report["footer"]["complete"], proc.stderr[-2000:]
    return report


def run_suite(devspec: str, build: str, adapter_args: list[str],
              report_path: str, selfcheck: str | None = None) -> Any:
    """The suite's cases by id, (status, reason), for run_report's run. With selfcheck,
    the Python adapter records what the library reports about itself there
    (DEVSPEC_PY_SELFCHECK)."""
    env = dict(os.environ)
    if selfcheck is not None:
        env["DEVSPEC_PY_SELFCHECK"] = selfcheck
    report = run_report(devspec, build, adapter_args, report_path, env)
    return {c["id"]: (c["status"], c.get("reason", "")) for c in report["cases"]}


# The zero-code adapter (--adapter python:MODULE) against the named backend of the same
# library: the same verdict for every case, with the same reason.
@pytest.mark.parametrize("library, module", [("array-api-strict", "array_api_strict"),
                                             ("numpy", "numpy")])
def test_zero_code_adapter_gives_the_named_backends_verdicts(library: str, module: str) -> None:
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    with tempfile.TemporaryDirectory() as tmp:
        named = run_suite(devspec, build, ["--adapter", library], os.path.join(tmp, "n.json"))
        selfcheck = os.path.join(tmp, "selfcheck.jsonl")
        generic = run_suite(devspec, build, ["--adapter", "python:" + module, "--python",
                                             interpreter(library)], os.path.join(tmp, "g.json"),
                            selfcheck)
        assert_unchanged(selfcheck, plain_fingerprint(interpreter(library), module,
                                                      dict(os.environ)))
    assert sum(status == "pass" for status, _ in generic.values()) > 0
    differ = {case: (named[case], generic.get(case)) for case in named
              if named[case] != generic.get(case)}
    assert not differ and set(named) == set(generic), json.dumps(differ)[:3000]


def test_zero_code_adapter_command_line_errors() -> None:
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    env = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build)
    for argv, status, message in (
            (["--adapter", "python:"], 2, "needs a module name"),
            (["--adapter", "numpy", "--python", "python3"], 2, "--python goes with"),
            (["--adapter", "python:json", "--python", interpreter("numpy")], 3,
             "json has no __array_api_version__"),
            (["--adapter", "python:no_such_module_here", "--python", interpreter("numpy")], 3,
             "No module named 'no_such_module_here'")):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([devspec, "run", *argv, "--no-tap", "--report",
                                   os.path.join(tmp, "report.json")], capture_output=True,
                                  text=True, env=env, cwd=TOP, timeout=120)
        assert proc.returncode == status and message in proc.stderr, (argv, proc.stderr)


def test_zero_code_adapter_leaves_jax_as_configured() -> None:
    """python:jax.numpy in JAX's default configuration (no 64-bit mode): the adapter never
    turns the mode on, not even while it probes JAX as a DLPack peer at hello, so the
    promotions whose standard result is 64-bit are judged on what plain JAX gives."""
    ok, why = importable("jax")
    if not ok:
        pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    env["JAX_PLATFORMS"] = "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        selfcheck = os.path.join(tmp, "selfcheck.jsonl")
        report = run_report(devspec, build, [
            "--adapter", "python:jax.numpy", "--python", interpreter("jax"),
            "--case", "promotion.api.add.*", "--case", "dlpack.exchange.*"],
            os.path.join(tmp, "r.json"), dict(env, DEVSPEC_PY_SELFCHECK=selfcheck))
        cases = {c["id"]: c for c in report["cases"]}
        plain = plain_fingerprint(interpreter("jax"), "jax.numpy", env)
        assert plain["jax.config.jax_enable_x64"] is False, plain
        assert_unchanged(selfcheck, plain)
    # int32 + uint32 is int64 in the standard; default JAX gives int32 (or lacks int64):
    # never a pass, as it was while the adapter had 64-bit mode on.
    mixed = [c for i, c in cases.items() if i.startswith("promotion.api.add.int32.uint32")]
    assert mixed and all(c["status"] != "pass" for c in mixed), mixed


def test_library_is_judged_by_the_version_it_declares() -> None:
    """array-api-strict told to be 2023.12: the cases of later versions are skipped with
    skip_source "version" (each cites a statement 2023.12 has not), and a scalar meets an
    array through the operator, as 2023.12 allows, instead of xp.add(x, 1), which 2023.12
    refuses: no failure is the adapter's use of a later version."""
    ok, why = importable("array-api-strict")
    if not ok:
        pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    with tempfile.TemporaryDirectory() as tmp:
        report = run_report(devspec, build, [
            "--adapter", "python:array_api_strict", "--python",
            interpreter("array-api-strict")], os.path.join(tmp, "r.json"),
            dict(os.environ, ARRAY_API_STRICT_API_VERSION="2023.12"))
    with open(os.path.join(TOP, "spec", "statements.json"), encoding="utf-8") as f:
        statements = {s["id"]: s for s in json.load(f)["statements"]}
    assert report["header"]["library"]["array_api_version"] == "2023.12"
    cases = {c["id"]: c for c in report["cases"]}
    by_version = [c for c in cases.values() if c.get("skip_source") == "version"]
    assert len(by_version) > 50, len(by_version)
    with open(os.path.join(TOP, "conformance", "cases", "functions-searching.json"),
              encoding="utf-8") as f:
        spec_of = {c["id"]: c["spec"] for c in json.load(f)["cases"]}
    for c in by_version:
        assert "declares array API 2023.12" in c["reason"], c
        if c["id"] in spec_of:
            assert any(statements[s]["source"]["document"] == "array-api" and
                       "2023.12" not in statements[s]["versions"] for s in spec_of[c["id"]])
    assert cases["fn.searchsorted.v2025-12.scalar-x2"]["skip_source"] == "version"
    assert cases["promotion.api.add.int8.scalar-int"]["status"] == "pass", \
        cases["promotion.api.add.int8.scalar-int"]
    wrong = [c for c in cases.values() if c["status"] == "fail" and
             "object has no attribute" in c.get("reason", "")]
    assert not wrong, wrong[:3]


def test_a_case_is_of_the_version_its_steps_need() -> None:
    """mixed.binary.maximum and output.binary.maximum cite 2021.12's device statements and
    call maximum, of 2023.12: they cite API-FN-3 too (spec/tools/case_versions.py), and the
    runner's version skip, which reads the statements a case cites, keeps them from
    array-api-strict told to be 2022.12 (skip_source "version"; before, only its one device
    kept them from running, and a library of 2022.12 with two would be charged as lacking
    maximum)."""
    ok, why = importable("array-api-strict")
    if not ok:
        pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    ids = ["mixed.binary.maximum", "output.binary.maximum", "mixed.binary.add"]
    with tempfile.TemporaryDirectory() as tmp:
        report = run_report(devspec, build, [
            "--adapter", "python:array_api_strict", "--python",
            interpreter("array-api-strict"), *[a for i in ids for a in ("--case", i)]],
            os.path.join(tmp, "r.json"),
            dict(os.environ, ARRAY_API_STRICT_API_VERSION="2022.12"))
    cases = {c["id"]: c for c in report["cases"]}
    for i in ids[:2]:
        assert cases[i]["skip_source"] == "version", cases[i]
        assert "declares array API 2022.12" in cases[i]["reason"] and "API-FN-3" in \
            cases[i]["reason"], cases[i]
    assert cases["mixed.binary.add"].get("skip_source") != "version", cases["mixed.binary.add"]
