"""CONTRIBUTING.md's walk-through for a new function, followed on a throwaway function in a
copy of the spec: one row in spec/signatures.json (a copy of nextafter's, renamed), the
generator, the spec check, and the runner, which loads the new cases and runs them against
refarray, which lacks the function (the cases that need more devices than this machine
gives skip). That is the page's claim that a function refarray does
not implement takes the signature row alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(TOP, os.environ.get("DEVSPEC_BUILD", "build"))
DEVSPEC = os.path.join(BUILD, "conformance", "devspec")
REFARRAY = os.path.join(BUILD, "adapters", "refarray", "devspec_adapter_refarray.so")
NAME = "nextafter_throwaway"


def test_the_page_names_the_steps_followed_here() -> None:
    with open(os.path.join(TOP, "CONTRIBUTING.md"), encoding="utf-8") as f:
        page = f.read()
    for step in ("spec/signatures.json", "spec/tools/gen_function_cases.py",
                 "spec/tools/check.py", "takes\nthe signature row alone"):
        assert step in page, step


@pytest.mark.skipif(not (os.access(DEVSPEC, os.X_OK) and os.path.isfile(REFARRAY)),
                    reason="no built runner and refarray adapter in %s" % BUILD)
def test_a_new_signature_row_is_picked_up_by_the_suite(tmp_path: Path) -> None:
    shutil.copytree(os.path.join(TOP, "spec"), tmp_path / "spec")
    for part in ("cases", "expectations"):
        shutil.copytree(os.path.join(TOP, "conformance", part), tmp_path / "conformance" / part)
    (tmp_path / "adapters").mkdir()
    shutil.copy(os.path.join(TOP, "adapters", "adapters.json"), tmp_path / "adapters")
    table = tmp_path / "spec" / "signatures.json"
    text = table.read_text(encoding="utf-8")
    start = text.index('    {"name": "nextafter"')
    end = text.index("\n    {", start) + 1
    table.write_text(text[:end] + text[start:end].replace('"nextafter"', '"%s"' % NAME)
                     + text[end:], encoding="utf-8")
    py = sys.executable
    gen = subprocess.run([py, os.path.join(TOP, "spec", "tools", "gen_function_cases.py"),
                          "--root", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert gen.returncode == 0 and "functions-elementwise.json" in gen.stdout, gen
    cases = tmp_path / "conformance" / "cases" / "functions-elementwise.json"
    ids = [c["id"] for c in json.loads(cases.read_text(encoding="utf-8"))["cases"]
           if NAME in c["id"]]
    assert len(ids) >= 4, ids
    check = subprocess.run([py, os.path.join(TOP, "spec", "tools", "check.py"), "--root",
                            str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    env = dict(os.environ, DEVSPEC_SOURCE=str(tmp_path))
    run = subprocess.run([DEVSPEC, "run", "--adapter", REFARRAY, "--cases", str(cases),
                          "--case", "*%s*" % NAME, "--expectations", os.devnull,
                          "--report", str(tmp_path / "report.json")],
                         capture_output=True, text=True, timeout=300, env=env)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert sorted(statuses) == sorted(ids), run.stdout[-2000:]
    # Lacking wherever it runs; a case needing more devices than this machine gives skips.
    assert "lacks" in statuses.values() and set(statuses.values()) <= {"lacks", "skip"}, statuses
