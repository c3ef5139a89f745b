"""Tests for spec/tools/generated.py, the one convention of every generator of checked-in files:
run as it is, it rewrites what is out of date and only that; with --check it writes nothing,
names each stale file with the command that rewrites it and exits 1; bad input exits 2."""

import glob
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import generated  # noqa: E402

FILES = {"a.txt": "alpha\n", "sub/b.txt": "beta\n"}


def build(root: str) -> Mapping[str, str]:
    return FILES


def broken(root: str) -> Mapping[str, str]:
    raise generated.GenerateError("input.json: no \"ops\" list")


def test_write_then_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "sub/b.txt").write_text("old\n")
    argv = ["--root", str(tmp_path)]
    assert generated.main("test", build, "tools/gen.py", [*argv, "--check"]) == 1
    err = capsys.readouterr().err
    assert "sub/b.txt: out of date; run tools/gen.py" in err
    assert "a.txt" not in err
    assert (tmp_path / "sub/b.txt").read_text() == "old\n"  # --check writes nothing
    before = (tmp_path / "a.txt").stat().st_mtime_ns
    assert generated.main("test", build, "tools/gen.py", argv) == 0
    assert capsys.readouterr().out == "tools/gen.py: wrote sub/b.txt\n"
    assert (tmp_path / "sub/b.txt").read_text() == "beta\n"
    assert (tmp_path / "a.txt").stat().st_mtime_ns == before  # a current file is left alone
    assert sorted(os.listdir(tmp_path / "sub")) == ["b.txt"]  # no temporary file left
    assert generated.main("test", build, "tools/gen.py", [*argv, "--check"]) == 0


def test_a_rewritten_file_keeps_its_mode(tmp_path: Path) -> None:
    """A script whose generated part is rewritten stays executable (scripts/setup.sh); a new
    file is 0644, not the temporary file's 0600."""
    script = tmp_path / "a.txt"
    script.write_text("old\n")
    script.chmod(0o755)
    (tmp_path / "sub").mkdir()
    assert generated.write(str(tmp_path), FILES) == ["a.txt", "sub/b.txt"]
    assert script.stat().st_mode & 0o7777 == 0o755
    assert (tmp_path / "sub" / "b.txt").stat().st_mode & 0o7777 == 0o644


def test_missing_file_is_stale(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert generated.stale(str(tmp_path), FILES) == ["a.txt", "sub/b.txt"]


def test_bad_input_exits_2_and_names_it(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert generated.main("test", broken, "tools/gen.py", ["--root", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "tools/gen.py: input.json: no \"ops\" list\n"
    assert os.listdir(tmp_path) == []


GENERATORS = sorted(os.path.relpath(p, REPO) for p in
                    glob.glob(os.path.join(REPO, "*", "tools", "gen_*.py")))


def test_the_generators_are_found() -> None:
    assert "spec/tools/gen_ops.py" in GENERATORS
    assert "reference/tools/gen_promotion_tables.py" in GENERATORS


@pytest.mark.parametrize("script", GENERATORS)
def test_every_generator_takes_the_convention(script: str) -> None:
    """Each generator (every */tools/gen_*.py) goes through generated.py, and its --check
    passes on the repository (its files are current) without a word."""
    with open(os.path.join(REPO, script), encoding="utf-8") as f:
        assert "generated.main(" in f.read(), "%s does not use generated.main" % script
    r = subprocess.run([sys.executable, os.path.join(REPO, script), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""
