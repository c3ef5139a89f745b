"""What a failure says names devices and arrays by the library's own terms: no failure text
(the summary, TAP, JUnit, and the JSON report's reason, call, expected and observed) shows an
internal handle number (`device#76`, `array#3`) or a key with its digits masked (`device##`,
`#f#b`, `status #`), the form failures are grouped by. array-api-strict without expectations
fails on five devices (its own bugs and readings), and the zoo's `no_device` namespace lacks
Array.device: both give failures whose values hold devices and arrays. Needs the runner (as
test_suite.py); without it, or without the library, it skips saying why (fails in CI)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from typing import Any

import pytest
from adapter_client import HERE, TOP, importable, interpreter
from test_suite import runner

HANDLE = re.compile(r"\b(?:device|array)#\d+")
MASKED = re.compile(r"[A-Za-z0-9_]##|#[a-z]#|\bstatus #|\bsignal #|#\?")


def leaks(text: str) -> list[str]:
    """The handle numbers and masked keys in TEXT, each with a little context."""
    out = []
    for pattern in (HANDLE, MASKED):
        for m in pattern.finditer(text):
            out.append(text[max(0, m.start() - 60):m.end() + 20])
    return out


def need(library: str) -> None:
    ok, why = importable(library)
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail("CI: " + why)
        pytest.skip(why)


def run(adapter: list[str], env: dict[str, str] | None = None) -> tuple[str, str, str, Any]:
    """(TAP, summary, JUnit, report) of a whole run of ADAPTER without expectations."""
    devspec, build = runner()
    if devspec is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI: the runner is not built")
        pytest.skip("the runner is not built")
    environ = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build, **(env or {}))
    with tempfile.TemporaryDirectory() as tmp:
        report, junit = os.path.join(tmp, "run.json"), os.path.join(tmp, "run.xml")
        proc = subprocess.run([devspec, "run", *adapter, "--expectations", "/dev/null",
                               "--report", report, "--junit", junit, "--tap", "--no-progress"],
                              capture_output=True, text=True, env=environ, cwd=TOP, timeout=600)
        assert os.path.exists(report), proc.stderr[-2000:]
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
        with open(junit, encoding="utf-8") as f:
            xml = f.read()
    return proc.stdout, proc.stderr, xml, doc


@pytest.mark.parametrize("adapter, library, env", [
    (["--adapter", "array-api-strict"], "array-api-strict", None),
    (["--adapter", "python:zoo.no_device:namespace()"], "numpy", {"PYTHONPATH": HERE}),
])
def test_no_failure_text_shows_a_handle_or_a_masked_key(adapter: list[str], library: str,
                                                        env: dict[str, str] | None) -> None:
    need(library)
    if adapter[1].startswith("python:"):
        adapter = [*adapter, "--python", interpreter(library)]
    tap, summary, junit, report = run(adapter, env)
    failures = [c for c in report["cases"] if c["observed_status"] not in ("pass", "skip")]
    assert len(failures) > 20, len(failures)
    # array-api-strict's failures hold devices and arrays: the values were named, not left
    # out (the zoo's are lacks, whose text names the function the library lacks).
    named = [c for c in failures if "devices" in c]
    assert named or library != "array-api-strict", "no failure mentions a device"
    assert "\nunexpected:\n" in summary and " e.g. " in summary, summary[-3000:]
    found = {"summary": leaks(summary), "TAP": leaks(tap), "JUnit": leaks(junit)}
    for c in failures:
        for key in ("reason", "call", "expected", "observed", "lacks"):
            if key in c:
                text = c[key] if isinstance(c[key], str) else json.dumps(c[key])
                found.setdefault("report %s.%s" % (c["id"], key), []).extend(leaks(text))
    found = {k: v for k, v in found.items() if v}
    assert not found, json.dumps(found, indent=1)[:4000]
