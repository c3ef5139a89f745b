"""reports/summary.py's function families: a table per family of spec/signatures.json with
each library's pass, fail, lacks and skip counts of that family's cases, and the totals."""

import os
import sys
from typing import Any

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "reports"))

import summary  # noqa: E402


def case(feature: str, status: str, observed: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"id": "fn.x.%s.%s" % (feature, status), "status": status,
                         "features": ["output-follows-input", feature]}
    if observed:
        c["observed_status"] = observed
    return c


def report(label: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {"header": {"adapter": {"label": label}, "library": {"name": label, "version": "1"},
                       "suite": {"commit": "0"}, "devices": []},
            "footer": {"counts": {}, "profiles": {}}, "cases": cases}


def table(text: str, title: str) -> dict[str, list[str]]:
    """The rows of the table under the heading TITLE: {library: [cells]}."""
    lines = text.split("\n")
    at = lines.index(title) + 4
    rows = {}
    while at < len(lines) and lines[at].startswith("|"):
        cells = [c.strip() for c in lines[at].strip("|").split("|")]
        rows[cells[0]] = cells[1:]
        at += 1
    return rows


def test_the_families_are_the_signature_table_s() -> None:
    fams = summary.family_features(TOP)
    assert ("elementwise", "functions-elementwise") in fams
    assert ("array-object", "array-methods") in fams
    assert all(feature for _, feature in fams)  # the inspection namespace has none


def test_each_family_counts_each_library_s_cases() -> None:
    fams = [("sorting", "functions-sorting"), ("fft", "functions-fft")]
    a = report("liba", [
        case("functions-sorting", "pass"),
        case("functions-sorting", "xpass", "pass"),
        case("functions-sorting", "fail", "fail"),
        case("functions-sorting", "xfail", "error"),
        case("functions-sorting", "lacks", "lacks"),
        case("functions-sorting", "xfail", "lacks"),
        case("functions-fft", "skip", "skip"),
        case("mixed-device-raises", "fail", "fail"),  # no family: in no table
    ])
    b = report("libb", [case("functions-fft", "timeout", "timeout")])
    text = summary.summary([("a.json", a), ("b.json", b)], {}, {}, fams)
    assert table(text, "### sorting (`functions-sorting`)") == {
        "liba": ["2", "2 (1 expected)", "2 (1 expected)", "0"],
        "libb": ["0", "0", "0", "0"]}
    assert table(text, "### fft (`functions-fft`)") == {
        "liba": ["0", "0", "0", "1"], "libb": ["0", "1", "0", "0"]}
    assert table(text, "### All families") == {
        "liba": ["2", "2 (1 expected)", "2 (1 expected)", "1"],
        "libb": ["0", "1", "0", "0"]}


def test_no_families_no_section() -> None:
    text = summary.summary([("a.json", report("liba", []))], {}, {}, [])
    assert "## Function families" not in text
