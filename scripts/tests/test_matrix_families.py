"""The matrix page (`devspec compare --html`, reports/index.html) grouped by function family
(`#group=family`): a row per family of the generated function cases (their case files
functions-FAMILY.json), under it a row per function with each library's count, then its
cases; cases of other files are not in that view. Rendered by headless Chromium; skipped
where Chromium or the built devspec is not there."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Any

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVSPEC = os.path.join(os.environ.get("DEVSPEC_BUILD", os.path.join(TOP, "build")),
                       "conformance", "devspec")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


def case(cid: str, file: str, feature: str, status: str) -> dict[str, Any]:
    return {"id": cid, "file": file, "features": ["output-follows-input", feature],
            "spec": ["DEV-DS-10"], "status": status, "observed_status": status,
            "duration": 0.001}


def report(label: str, cases: list[dict[str, Any]], claimed: list[str]) -> dict[str, Any]:
    counts = dict.fromkeys(("pass", "fail", "error", "skip", "xfail", "xpass", "crash",
                            "timeout", "lacks"), 0)
    for c in cases:
        counts[c["status"]] += 1
    return {
        "type": "devspec-report", "report_version": 1,
        "header": {
            "report_version": 1,
            "suite": {"name": "devspec", "version": "0", "commit": "0" * 40, "modified": False},
            "runner": {"name": "devspec", "version": "0", "protocol": 1},
            "started": "2026-01-01T00:00:00Z",
            "adapter": {"label": label, "given": label, "transport": "out-of-process",
                        "name": label, "version": "1"},
            "library": {"name": label, "version": "1.0"},
            "devices": [{"binding": "D0", "handle": "device#0", "str": "cpu"}],
            "features_claimed": ["output-follows-input", *claimed], "features_unknown": [],
            "config": {}, "environment": {}},
        "cases": cases,
        "footer": {"complete": True, "counts": counts, "profiles": {}},
    }


def rows(dom: str) -> list[tuple[str, str, list[str]]]:
    """(class, name, [cell texts]) of each body row."""
    out = []
    for m in re.finditer(r'<tr class="([^"]*)"[^>]*>(.*?)</tr>', dom, re.S):
        name = re.search(r'<td class="name"[^>]*>([^<]*)', m.group(2))
        cells = re.findall(r'<td class="cell[^"]*"[^>]*>([^<]*)</td>', m.group(2))
        out.append((m.group(1), name.group(1) if name else "", cells))
    return out


@pytest.mark.skipif(BROWSER is None or not os.access(DEVSPEC, os.X_OK),
                    reason="needs chromium and the built devspec")
def test_the_family_view_groups_functions_under_families() -> None:
    s, f = "functions-sorting.json", "functions-fft.json"
    a = report("liba", [
        case("fn.sort.v2021-12.same-device", s, "functions-sorting", "pass"),
        case("fn.sort.v2021-12.values", s, "functions-sorting", "fail"),
        case("fn.argsort.v2021-12.same-device", s, "functions-sorting", "lacks"),
        case("fn.fft.fft.v2022-12.same-device", f, "functions-fft", "skip"),
        case("mixed.add", "mixed-device.json", "mixed-device-raises", "pass"),
    ], ["functions-sorting"])
    b = report("libb", [
        case("fn.sort.v2021-12.same-device", s, "functions-sorting", "pass"),
        case("fn.sort.v2021-12.values", s, "functions-sorting", "pass"),
        case("fn.argsort.v2021-12.same-device", s, "functions-sorting", "pass"),
        case("fn.fft.fft.v2022-12.same-device", f, "functions-fft", "pass"),
    ], ["functions-sorting", "functions-fft"])
    assert BROWSER is not None
    tmp = tempfile.mkdtemp(prefix="devspec-families-")
    try:
        paths = []
        for r in (a, b):
            paths.append(os.path.join(tmp, r["header"]["adapter"]["label"] + ".json"))
            with open(paths[-1], "w", encoding="utf-8") as out:
                json.dump(r, out)
        page = os.path.join(tmp, "index.html")
        subprocess.run([DEVSPEC, "compare", "--quiet", "--html", page, *paths], check=True,
                       capture_output=True, timeout=120)
        p = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                            "--no-first-run", "--user-data-dir=" + os.path.join(tmp, "profile"),
                            "--dump-dom", "file://" + page + "#view=cases&group=family"],
                           capture_output=True, timeout=180)
        got = rows(p.stdout.decode("utf-8", "replace"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert got == [
        ("grp", "sorting", ["1/3", "3/3"]),
        ("grp l1", "sort", ["1/2", "2/2"]),
        ("case l2", "fn.sort.v2021-12.same-device", ["pass", "pass"]),
        ("case l2", "fn.sort.v2021-12.values", ["FAIL", "pass"]),
        ("grp l1", "argsort", ["0/1", "1/1"]),
        ("case l2", "fn.argsort.v2021-12.same-device", ["LACKS", "pass"]),
        # liba does not claim functions-fft: its family and function cells say so.
        ("grp", "fft", ["not claimed", "1/1"]),
        ("grp l1", "fft.fft", ["not claimed", "1/1"]),
        ("case l2", "fn.fft.fft.v2022-12.same-device", ["skip", "pass"]),
    ], got
