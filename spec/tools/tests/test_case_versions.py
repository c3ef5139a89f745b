"""Tests for spec/tools/case_versions.py: the version a case's steps need is derived from the
functions and parameters they call (spec/signatures.json), a case declaring an earlier one is
an error naming the case, the step and the function, --fix cites the needed version's
statement (rerunnably) in a hand-written file but never in a generated one, and the suite
passes."""

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import case_versions  # noqa: E402

MAKE: dict[str, Any] = {"op": "array.asarray", "as": "x", "args": {
    "obj": {"dtype": "float32", "shape": [1], "data": [1]}, "device": "$D1"}}
ISIN: dict[str, Any] = {"op": "call", "args": {"fn": "isin", "args": ["$x", "$x"]}}


@pytest.fixture(scope="module")
def facts() -> case_versions.Facts:
    return case_versions.Facts(REPO)


def case(spec: list[str], steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "t.case", "spec": spec, "features": ["functions-set"], "steps": steps}


def need(facts: case_versions.Facts, step: dict[str, Any]) -> str | None:
    n = facts.needs(step)
    assert n is not None
    return n.version


def test_a_step_needs_its_function_and_parameters(facts: case_versions.Facts) -> None:
    assert need(facts, ISIN) == "2025.12"
    assert need(facts, {"op": "array.binary", "args": {"fn": "maximum"}}) == "2023.12"
    assert need(facts, {"op": "array.binary", "args": {"fn": "add"}}) == "2021.12"
    # A parameter a later signature added: astype(device=) is of 2023.12, astype of 2021.12.
    assert need(facts, {"op": "array.astype", "args": {"x": "$x", "dtype": "int8"}}) == "2021.12"
    assert need(facts, {"op": "array.astype", "args": {"x": "$x", "dtype": "int8",
                                                       "device": "$D1"}}) == "2023.12"
    assert need(facts, {"op": "array.astype", "args": {"x": "$x", "dtype": "int8",
                                                       "device": None}}) == "2021.12"
    assert need(facts, {"op": "call", "args": {"fn": "astype", "args": ["$x", "int8"],
                                               "kwargs": {"device": "$D1"}}}) == "2023.12"
    assert need(facts, {"op": "array.create", "args": {"fn": "fftfreq", "n": 4}}) == "2022.12"
    # The export op always asks max_version, which __dlpack__ takes from 2023.12.
    assert need(facts, {"op": "array.dlpack", "args": {"array": "$x"}}) == "2023.12"
    assert need(facts, {"op": "info.dtypes", "args": {}}) == "2023.12"
    # A method's first argument is its array; a property is read from it.
    assert need(facts, {"op": "call", "args": {"fn": "Array.T", "args": ["$x"]}}) == "2021.12"
    assert need(facts, {"op": "call", "args": {"fn": "Array.__add__",
                                               "args": ["$x", "$x"]}}) == "2021.12"
    # One positional argument too many is a signature no version has.
    assert need(facts, {"op": "call", "args": {"fn": "abs", "args": ["$x", "$x"]}}) is None
    # Ops that are no function of the standard need no version.
    assert facts.needs({"op": "device.parse", "args": {"text": "cpu"}}) is None
    assert facts.needs({"op": "array.binary_into", "args": {"fn": "add"}}) is None


def test_a_later_function_in_an_earlier_case_is_an_error(facts: case_versions.Facts) -> None:
    c = case(["DEV-DS-10", "API-FN-4"], [MAKE, ISIN])
    assert facts.declared(c) == ["2024.12", "2025.12", "draft"]
    problems = case_versions.check_doc("f.json", {"cases": [c]}, facts)
    assert len(problems) == 1
    assert "t.case: step 1 (call) calls isin(), which is of 2025.12" in problems[0]
    assert "declares 2024.12" in problems[0]
    assert facts.fixed_spec(c) == ["DEV-DS-10", "API-FN-4", "API-FN-5"]
    c["spec"] = facts.fixed_spec(c)
    assert case_versions.check_doc("f.json", {"cases": [c]}, facts) == []
    assert facts.fixed_spec(c) == c["spec"]


def test_a_case_of_another_document_is_not_checked(facts: case_versions.Facts) -> None:
    # Ivy's and OneFlow's libraries declare no array API version; nor do their cases.
    c = case(["IVY-SOFT-1"], [MAKE, ISIN])
    assert facts.declared(c) is None
    assert case_versions.check_doc("f.json", {"cases": [c]}, facts) == []


def test_fix_is_rerunnable_and_leaves_generated_files(tmp_path: Path) -> None:
    for rel in ("spec", "conformance/cases"):
        (tmp_path / rel).mkdir(parents=True)
    for rel in (case_versions.SIGNATURES, case_versions.STATEMENTS):
        shutil.copy(os.path.join(REPO, rel), tmp_path / rel)
    steps = json.dumps([MAKE, ISIN])
    hand = tmp_path / "conformance/cases/hand.json"
    hand.write_text('{\n  "description": "t",\n  "cases": [\n    {"id": "a",\n      "spec": '
                    '["DEV-DS-10"],\n      "features": ["functions-set"],\n      "steps": %s}\n'
                    '  ]\n}\n' % steps)
    gen = tmp_path / "conformance/cases/gen.json"
    gen_text = json.dumps({"description": "Generated by a tool",
                           "cases": [case(["DEV-DS-10"], [MAKE, ISIN])]})
    gen.write_text(gen_text)
    root = str(tmp_path)
    assert case_versions.main(["--root", root]) == 1
    assert case_versions.main(["--root", root, "--fix"]) == 1  # the generated file stays
    assert gen.read_text() == gen_text
    fixed = hand.read_text()
    assert '"spec": ["DEV-DS-10", "API-FN-5"],' in fixed
    assert case_versions.main(["--root", root, "--fix", str(hand)]) == 0
    assert hand.read_text() == fixed


def test_the_suite_is_derived() -> None:
    assert case_versions.main(["--root", REPO]) == 0


def test_a_files_problems_are_reported_five_then_counted_then_how_to_mend(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same report as case_features.py's (generated.report): the first five problems, how
    # many more, then what mends them: --fix for a hand-written file, its generator else.
    (tmp_path / "conformance/cases").mkdir(parents=True)
    (tmp_path / "spec").mkdir()
    for rel in (case_versions.SIGNATURES, case_versions.STATEMENTS):
        shutil.copy(os.path.join(REPO, rel), tmp_path / rel)
    cases = [dict(case(["DEV-DS-10"], [MAKE, ISIN]), id="c%d" % i) for i in range(7)]
    for name, description in (("gen", "Generated by a tool"), ("hand", "t")):
        (tmp_path / "conformance/cases" / (name + ".json")).write_text(
            json.dumps({"description": description, "cases": cases}))
    assert case_versions.main(["--root", str(tmp_path)]) == 1
    want = []
    for name, mend in (("gen", "generated: its generator must cite the version its steps "
                               "need"),
                       ("hand", "run spec/tools/case_versions.py --fix, or reach the result "
                                "through a function of the case's version")):
        rel = "conformance/cases/%s.json" % name
        want += ["%s: /cases/%d: case-version-derived: c%d: step 1 (call) calls isin(), which "
                 "is of 2025.12, but the case declares 2021.12 (the earliest version its "
                 "cited statements hold in): it would run on a library of 2021.12"
                 % (rel, i, i) for i in range(5)]
        want += ["%s: and 2 more steps" % rel, "%s: %s" % (rel, mend)]
    assert capsys.readouterr().err.splitlines() == want
