"""The pytest plugin (devspec_cli/pytest_plugin.py) run by pytest's own pytester, in a pytest
of its own each time, against NumPy, array-api-strict and a library of the adapter's zoo that
lacks functions and fails cases (zoo.missing over array-api-strict): one item per case with
the runner's counts, xfails from the expectations file, strict xpass, lacks, the failure
text, -k, --lf, -x, the ini settings, and JUnit XML that xmllint accepts
against spec/schema/junit.xsd. The runner is the build tree's (build/conformance/devspec, or
DEVSPEC_BUILD's); without one these tests skip, saying so."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pytester"]

TOP = Path(__file__).resolve().parents[2]
BUILD = TOP / os.environ.get("DEVSPEC_BUILD", "build")
DEVSPEC = BUILD / "conformance" / "devspec"
EXPECTATIONS = TOP / "conformance" / "expectations"
JUNIT_XSD = TOP / "spec" / "schema" / "junit.xsd"
ZOO = TOP / "adapters" / "python" / "tests"

pytestmark = pytest.mark.skipif(not os.access(DEVSPEC, os.X_OK),
                                reason=f"no runner at {DEVSPEC} (build it first)")


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Any:
    """run(*args) -> (pytester's result, the runner's report or None)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TOP / "python"), str(ZOO)]))
    monkeypatch.setenv("ZOO_BASE", "array_api_strict")
    monkeypatch.delenv("DEVSPEC_SOURCE", raising=False)
    report = pytester.path / "devspec-report.json"

    def go(*args: str) -> tuple[pytest.RunResult, dict[str, Any] | None]:
        if report.exists():
            report.unlink()
        result = pytester.runpytest_subprocess(
            "-p", "devspec_cli.pytest_plugin", f"--devspec-runner={DEVSPEC}",
            f"--devspec-report={report}", "-p", "no:randomly", *args)
        data = json.loads(report.read_text()) if report.exists() else None
        return result, data

    return go


def pytest_counts(report: dict[str, Any]) -> dict[str, int]:
    """The runner's counts as pytest's summary words them (lacks: their own outcome)."""
    c = report["footer"]["counts"]
    names = {"pass": "passed", "fail": "failed", "skip": "skipped", "xfail": "xfailed",
             "xpass": "xpassed", "lacks": "lacks"}
    return {names[k]: v for k, v in c.items() if v and k in names}


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    got = dict(result.parseoutcomes())
    got.pop("deselected", None)
    got.pop("seconds", None)
    # pytest words one of a kind in the singular ("1 lack", "1 xpass" is "1 xpassed").
    return {("lacks" if k == "lack" else k): v for k, v in got.items()}


def listed_cases() -> list[dict[str, Any]]:
    out = subprocess.run([str(DEVSPEC), "list", "cases", "--json"], capture_output=True,
                         text=True, check=True).stdout
    return list(json.loads(out))


def check_junit(path: Path) -> ET.Element:
    assert shutil.which("xmllint"), "xmllint is missing (Debian's libxml2-utils)"
    p = subprocess.run(["xmllint", "--noout", "--schema", str(JUNIT_XSD), str(path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    return ET.parse(path).getroot()


def test_numpy_one_item_per_case_with_the_runners_counts(run: Any, tmp_path: Path) -> None:
    runner_junit = tmp_path / "runner.xml"
    result, report = run("--devspec=python:numpy",
                         f"--devspec-expectations={EXPECTATIONS / 'numpy.txt'}",
                         f"--devspec-args=--junit {runner_junit}",
                         f"--junitxml={tmp_path / 'pytest.xml'}")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert report is not None and report["footer"]["complete"]
    cases = listed_cases()
    assert len(report["cases"]) == len(cases)
    assert outcomes(result) == pytest_counts(report)
    assert sum(outcomes(result).values()) == len(cases)
    # The JUnit pytest writes and the runner's own both pass the schema; pytest's has one
    # testcase per case, named by the case ID, its class the adapter and the first feature.
    root = check_junit(tmp_path / "pytest.xml")
    check_junit(runner_junit)
    tcs = root.findall(".//testcase")
    assert len(tcs) == len(cases)
    first = {c["id"]: c["features"][0] for c in cases}
    assert all(tc.get("classname") == f"devspec(python:numpy).{first[str(tc.get('name'))]}"
               for tc in tcs)


def test_collected_items_are_named_by_case_and_feature(run: Any) -> None:
    result, report = run("--devspec=python:numpy", "--collect-only", "-q")
    assert report is None, "collecting must not run the suite"
    ids = [line for line in result.outlines if line.startswith("devspec(")]
    cases = listed_cases()
    assert len(ids) == len(cases)
    c = cases[0]
    assert f"devspec(python:numpy)::{c['features'][0]}::{c['id']}" in ids


def test_array_api_strict_xfails_come_from_the_expectations_file(run: Any) -> None:
    result, report = run("--devspec=python:array_api_strict",
                         f"--devspec-expectations={EXPECTATIONS / 'array-api-strict.txt'}")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert report is not None
    got = outcomes(result)
    assert got == pytest_counts(report)
    assert got.get("xfailed", 0) > 0


def test_a_non_conforming_library_fails_with_what_a_maintainer_needs(run: Any,
                                                                    tmp_path: Path) -> None:
    result, report = run("--devspec=python:zoo.missing", "-k", "astype or arange",
                         f"--junitxml={tmp_path / 'zoo.xml'}")
    assert result.ret == 1
    assert report is not None
    got = outcomes(result)
    assert got == pytest_counts(report)
    assert got.get("failed", 0) > 0 and got.get("lacks", 0) > 0
    # Only the selected cases ran (-k passes --case for each).
    assert all(re.search("astype|arange", c["id"]) for c in report["cases"])
    failed = next(c for c in report["cases"] if c["status"] == "fail" and "expected" in c)
    text = result.stdout.str()
    block = text.split(f"devspec case {failed['id']} ", 1)[1].split("\n___", 1)[0]
    sid = failed["spec"][0]
    statements = json.loads((TOP / "spec" / "statements.json").read_text())["statements"]
    stext = next(s["text"] for s in statements if s["id"] == sid)
    assert f"{sid}: {stext}" in block
    assert f"failing step {failed['step']}: {failed['op']} " in block
    assert "expected: " in block and "observed: " in block
    assert "array_api_strict.Device('CPU_DEVICE')" in block
    assert re.search(r"reproducer: devspec repro \S+devspec-report\.json --case "
                     + re.escape(failed["id"]) + " --out ", block)
    # Lacking cases: their own outcome and section, with the function named.
    lacking = next(c for c in report["cases"] if c["status"] == "lacks")
    assert "= LACKS =" in text
    assert f"LACKS (the library lacks {lacking['lacks'][0]})" in text
    root = check_junit(tmp_path / "zoo.xml")
    assert len(root.findall(".//failure")) == got["failed"] + got["lacks"]


def test_lf_reruns_the_failures_and_x_stops_at_the_first(run: Any) -> None:
    result, report = run("--devspec=python:zoo.missing", "-k", "astype")
    assert report is not None
    failed = outcomes(result).get("failed", 0)
    assert failed > 1
    again, report2 = run("--devspec=python:zoo.missing", "--lf")
    assert report2 is not None
    assert outcomes(again) == {"failed": failed}
    assert {c["status"] for c in report2["cases"]} == {"fail"}
    first, _ = run("--devspec=python:zoo.missing", "-k", "astype", "-x", "-p",
                   "no:cacheprovider")
    assert outcomes(first)["failed"] == 1


def test_lacks_can_be_skips(run: Any) -> None:
    result, report = run("--devspec=python:zoo.missing", "-k", "arange",
                         "--devspec-lacks=skip", "-rs")
    assert report is not None
    n = report["footer"]["counts"]["lacks"]
    assert n > 0 and "lacks" not in outcomes(result)
    result.stdout.fnmatch_lines(["SKIPPED*lacks: the library lacks arange*"])


def test_unexpected_pass_is_xpass_or_with_strict_a_failure(run: Any, tmp_path: Path) -> None:
    case = next(c["id"] for c in listed_cases() if c["id"].startswith("creation.zeros."))
    known = tmp_path / "known.txt"
    known.write_text(f"{case} fail # said to fail, passes\n")
    args = ("--devspec=python:numpy", f"--devspec-expectations={known}", "-k", case)
    result, _ = run(*args)
    assert outcomes(result) == {"xpassed": 1} and result.ret == 0
    strict, _ = run(*args, "--devspec-strict")
    assert outcomes(strict) == {"failed": 1} and strict.ret == 1
    strict.stdout.fnmatch_lines(["*[[]XPASS(strict)[]]*said to fail, passes*"])
    # A stale entry fails the strict gate though every item passes, as devspec run --strict.
    known.write_text("no.such.case fail # gone\n")
    result, _ = run(*args)
    assert outcomes(result) == {"passed": 1} and result.ret == 0
    strict, _ = run(*args, "--devspec-strict")
    assert outcomes(strict) == {"passed": 1} and strict.ret == 1
    strict.stdout.fnmatch_lines(["devspec: stale expectation (matches no case): no.such.case*"])


def test_settings_from_pytest_ini_and_ini_options(run: Any, pytester: pytest.Pytester) -> None:
    case = "creation.zeros.device-other"
    pytester.makefile(".ini", pytest=f"[pytest]\ndevspec = python:numpy\n"
                      f"devspec_expectations = {EXPECTATIONS / 'numpy.txt'}\n")
    result, report = run("-k", case)
    assert report is not None and report["header"]["adapter"]["given"] == "python:numpy"
    result.stdout.fnmatch_lines(["devspec: python:numpy with *; expectations *numpy.txt;*"])
    (pytester.path / "pytest.ini").unlink()
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ndevspec = "python:array_api_strict"\n'
                               'devspec_strict = "true"\n')
    result, report = run("-k", case)
    assert report is not None
    assert report["header"]["adapter"]["given"] == "python:array_api_strict"
    result.stdout.fnmatch_lines(["devspec: python:array_api_strict with *; strict xpass;*"])
    result, _ = run("-k", case, "--devspec=python:numpy", "-o", "devspec_lacks=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "devspec: lacks = 'sometimes': choose one of fail, skip" in result.stderr.str()


def test_inert_without_an_adapter(run: Any, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result, report = run()
    assert outcomes(result) == {"passed": 1} and report is None


def test_an_adapter_that_cannot_start_errors_every_item_saying_why(run: Any) -> None:
    result, _ = run("--devspec=python:no_such_module_here", "-k", "creation.zeros")
    assert result.ret == 1
    assert "no_such_module_here" in result.stdout.str()
    assert outcomes(result).get("failed", 0) > 0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_the_library_traceback_is_shown_frame_by_frame() -> None:
    """The Python adapter sends a library error's last frames as a list (spec/protocol.md):
    a failing item's text shows one frame a line under "library traceback:"."""
    import sys
    import types

    sys.path.insert(0, str(TOP / "python"))  # the plugin's package, as the wheel installs it
    from devspec_cli.pytest_plugin import failure_text
    frames = ["lib/core.py:10 in add: return _impl(x, y)", "lib/_impl.py:3 in _impl: raise E"]
    session: Any = types.SimpleNamespace(
        report={"header": {"devices": []}}, statement=lambda sid: "the text",
        case_steps=lambda f, i: [], command=None,
        settings=types.SimpleNamespace(report="devspec-report.json"))
    text = failure_text(session, {
        "id": "c", "status": "fail", "spec": ["S-1"], "reason": "raised",
        "observed": {"error": {"kind": "ValueError", "message": "m", "traceback": frames}}})
    shown = text.split("library traceback:\n", 1)[1].splitlines()
    assert shown[:2] == ["  " + f for f in frames], text
