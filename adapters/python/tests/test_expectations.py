"""The expectations files: every entry names a case of the suite, a status the runner knows,
and a reason; update.py explains failures by its rules and refuses unexplained ones."""

import glob
import json
import os
import sys
from typing import Any

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXPECTATIONS = os.path.join(TOP, "conformance", "expectations")
sys.path.insert(0, EXPECTATIONS)

import update  # noqa: E402

# Every run whose expectations file update.py writes: those it has rules for (the runs and
# their files come from libraries/*.json).
LIBRARIES = tuple(name for name in update.EXPECTATIONS if name in update.R)


def suite_ids() -> set[str]:
    ids: set[str] = set()
    for path in glob.glob(os.path.join(TOP, "conformance", "cases", "*.json")):
        with open(path, encoding="utf-8") as f:
            ids.update(case["id"] for case in json.load(f)["cases"])
    return ids


@pytest.mark.parametrize("library", LIBRARIES)
def test_every_entry_names_a_case_a_status_and_a_reason(library: str) -> None:
    ids = suite_ids()
    with open(os.path.join(TOP, update.EXPECTATIONS[library]), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            entry, _, reason = line.partition("#")
            case_id, status = entry.split()
            # lacks: the library does not have what the case calls (spec/protocol.md)
            assert status in ("fail", "error", "crash", "timeout", "lacks"), (number, line)
            assert len(reason.strip()) > 20, "line %d has no reason" % number
            assert case_id in ids, "line %d: %s is not a case of the suite" % (number, case_id)


def report(*cases: Any) -> dict[str, Any]:
    return {"header": {"library": {"name": "torch", "version": "1"}},
            "cases": [{"id": i, "status": s, "reason": r} for i, s, r in cases]}


def test_update_uses_the_first_matching_rule_and_skips_passes() -> None:
    found, unexplained = update.entries("torch", report(
        ("output.binary.add", "fail", "array.read raised NotImplementedError: Cannot copy out "
                                      "of meta tensor; no data!"),
        ("mixed.matmul", "fail", "array.matmul returned a value where an error was expected"),
        ("to-device.other", "pass", ""),
        ("creation.zeros.device-none", "skip", "unsupported")))
    assert [f[0] for f in found] == ["output.binary.add", "mixed.matmul"]
    assert "meta" in found[0][2] and "matmul" in found[1][2]
    assert unexplained == []


def test_update_refuses_a_failure_no_rule_explains() -> None:
    found, unexplained = update.entries("numpy", report(
        ("creation.zeros.device-none", "fail", "something new")))
    assert found == [] and unexplained[0][0] == "creation.zeros.device-none"
