"""The mutation catalogue against the current tree: every snippet found exactly once, every
must statement refarray implements with a mutant or a reason, and the tool's loud failure
when a snippet is missing. Runs the tool as a program (no build needed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOL = HERE.parent / "mutate.py"
TOP = HERE.parents[3]


def run(*args: str, cwd: Path = TOP) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], cwd=cwd, capture_output=True, text=True
    )


def test_catalogue_applies_to_the_tree() -> None:
    r = run("--check")
    assert r.returncode == 0, r.stderr
    assert "every snippet found exactly once" in r.stdout


def test_every_must_statement_has_a_mutant_or_a_reason() -> None:
    r = run("--coverage")
    assert r.returncode == 0, r.stderr


def test_catalogue_has_every_category_and_equivalents() -> None:
    data = json.loads((HERE.parent / "catalogue.json").read_text())
    cats = {m["category"] for m in data["mutants"]}
    assert cats == set(data["categories"])
    sample = [m for m in data["mutants"] if m.get("sample")]
    assert {m["category"] for m in sample} == cats, "the CI sample covers every category"
    assert any(m.get("equivalent") for m in sample)
    assert any("refarray-mpi4" in m.get("runs", []) for m in sample)
    # CI's unmutated run of the configuration with a device without float64 keeps it passing.
    assert any("refarray-no-float64" in m.get("runs", []) for m in sample)


def test_a_missing_snippet_names_the_mutant(tmp_path: Path) -> None:
    # A copy of the tool, its catalogue and the files it reads, with one snippet removed from
    # refarray's sources: --check must fail with status 2 and name the mutant.
    root = tmp_path / "tree"
    tool = root / "conformance/bench/mutation"
    shutil.copytree(HERE.parent, tool, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    for d in ("reference/src", "reference/include", "spec"):
        shutil.copytree(TOP / d, root / d)
    data = json.loads((HERE.parent / "catalogue.json").read_text())
    victim = data["mutants"][0]
    find = victim["edits"][0]["find"]
    for p in (root / "reference").rglob("*.c"):
        text = p.read_text()
        if find in text:
            p.write_text(text.replace(find, "/* moved away */\n"))
    r = subprocess.run(
        [sys.executable, str(tool / "mutate.py"), "--check"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert f"mutant {victim['id']}: snippet 1" in r.stderr
    assert "found 0 times" in r.stderr
