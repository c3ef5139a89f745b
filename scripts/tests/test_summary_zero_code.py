"""reports/summary.py's zero-code section (scripts/zero-code.py's data, reports/zero-code.json)
and the 64-bit label of the jax runs: a row per library with its counts, the verdict of the
profile of its declared version in words, the reproducers, the wrong verdicts by case ID, an
unavailable library with its reason; the jax adapter marked 64-bit from adapters.json."""

import os
import sys
from typing import Any

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "reports"))

import summary  # noqa: E402

COUNTS = {"pass": 633, "wrong": 1, "should": 2, "differs": 3, "lacks": 4, "want_devices": 1161,
          "skip": 1931}


def data() -> dict[str, Any]:
    profile = {"verdict": "does-not-conform", "missing_features": [], "lacks": ["Array.to_device"],
               "cases": 840, "passed": 616, "failed": 1, "skipped": 223, "not_run": 0,
               "should_failed": 2, "differs_from_reading": 3}
    return {"libraries": [
        {"name": "cubed", "spec": "cubed", "version": "0.27.0", "array_api_version": "2025.12",
         "devices": ["cpu"], "counts": COUNTS, "wrong": ["info.devices-type.tuple"],
         "profiles": {"array-api-2025.12": profile},
         "reproducers": {"written": 10, "as_reported": 9, "partial": 1,
                         "not_as_reported": {"x.y": "passed; devspec reported fail"}}},
        {"name": "paddle", "spec": "paddle", "unavailable": "cannot load paddle: NotANamespace"},
    ]}


def test_rows_verdicts_and_wrong_ids() -> None:
    text = summary.zero_code_section(data())
    assert "## Libraries from PyPI, zero code" in text
    rows = [line for line in text.split("\n") if line.startswith("| cubed")]
    assert rows == ["| cubed (`cubed`) | 0.27.0 | 2025.12 | 1 | 633 | 1 | 2 | 3 | 4 | 1161 | "
                    "1931 | 9/10 (1 partial) | does-not-conform, lacks Array.to_device: 1 "
                    "failing; 223 skipped (616/840 pass; short of a should: 2; differs from "
                    "the reference reading: 3) |"], rows
    assert "- cubed: `info.devices-type.tuple`" in text
    assert "`x.y` (passed; devspec reported fail)" in text
    paddle = [line for line in text.split("\n") if line.startswith("| paddle")]
    assert len(paddle) == 1 and paddle[0].endswith("cannot load paddle: NotANamespace |")
    assert paddle[0].count("|") == rows[0].count("|"), (paddle, rows)
    assert summary.zero_code_section(None) == ""


def test_jax_runs_are_labelled_64_bit() -> None:
    assert summary.configured(TOP, "jax") == " (64-bit)"
    assert summary.configured(TOP, "jax-mesh4") == " (64-bit)"
    assert summary.configured(TOP, "numpy") == ""
    assert summary.configured(TOP, "no-such-adapter") == ""
