"""README.md's recipe for a library's CI ("A library's CI, whole"), run line by line as
written, in a fresh virtual environment where no compiler can be found: `pip install devspec`
finds the wheel that scripts/build-wheel.sh left in dist/ (pip's --find-links, set through
its environment), `mylib` is array-api-strict under another name (a library with known
failures), the first run fails and writes the expectations file, the gate then passes, and
the pytest form passes with the same counts. Without a wheel in dist/ this test skips,
saying so; scripts/test-wheel.sh (CI phase wheel) builds one and runs it."""

from __future__ import annotations

import glob
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
WHEELS = sorted(glob.glob(str(TOP / "dist" / "devspec-*.whl")))

MYLIB = '"""array-api-strict as mylib."""\nimport sys\n\nimport array_api_strict\n\n' \
    "sys.modules[__name__] = array_api_strict\n"


def recipe() -> list[str]:
    text = (TOP / "README.md").read_text(encoding="utf-8")
    part = text.split("**A library's CI, whole**", 1)
    assert len(part) == 2, "README.md has no \"A library's CI, whole\""
    m = re.search(r"```sh\n(.*?)```", part[1], re.S)
    assert m is not None
    lines = [re.sub(r"\s+#.*$", "", x).strip() for x in m.group(1).splitlines()]
    return [x for x in lines if x]


def test_recipe_has_the_four_steps() -> None:
    lines = recipe()
    assert lines[0] == "pip install devspec"
    assert any(x.startswith("devspec run ") and "devspec expectations" in x for x in lines)
    assert any(x.startswith("devspec run ") and "--strict" in x for x in lines)
    assert any(x.startswith("pytest --devspec=python:mylib") for x in lines)


@pytest.mark.skipif(not WHEELS, reason="no wheel in dist/ (scripts/build-wheel.sh builds one)")
def test_readme_ci_recipe_runs(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # The library and pytest, pinned as requirements.txt pins them (not part of the recipe:
    # a library's CI has them already).
    pins = [x for x in (TOP / "requirements.txt").read_text().splitlines()
            if re.match(r"(?i)(array-api-strict|numpy|pytest)==", x)]
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--only-binary=:all:", *pins],
                   check=True, capture_output=True)
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("sh", "bash", "env", "cat", "ls", "rm", "mkdir", "sed", "grep"):
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    work = tmp_path / "ci"
    work.mkdir()
    (work / "mylib.py").write_text(MYLIB)
    env = {"PATH": f"{venv / 'bin'}:{bare}", "HOME": str(tmp_path), "PYTHONPATH": str(work),
           "PIP_FIND_LINKS": str(TOP / "dist"), "PIP_NO_INDEX": "1",
           "PIP_ONLY_BINARY": ":all:"}
    for cc in ("cc", "gcc", "clang", "cmake"):
        assert shutil.which(cc, path=env["PATH"]) is None, f"{cc} is reachable"
    outs = []
    for line in recipe():
        t0 = time.monotonic()
        r = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True,
                           text=True)
        outs.append((line, r, time.monotonic() - t0))
        print(f"{line}\n  exit {r.returncode} in {outs[-1][2]:.1f} s")
    install, first, gate, under_pytest = outs
    assert install[1].returncode == 0, install[1].stderr[-2000:]
    # The first run fails where array-api-strict does; the expectations file lists them.
    assert first[1].returncode == 0  # the line's last command, devspec expectations
    known = (work / "mylib-known.txt").read_text()
    assert [x for x in known.splitlines() if x and not x.startswith("#")]
    assert gate[1].returncode == 0, gate[1].stdout[-2000:] + gate[1].stderr[-2000:]
    assert under_pytest[1].returncode == 0, under_pytest[1].stdout[-3000:]
    # The pytest form counts what the plain gate counted.
    plain = re.search(r"^(\d+) passed, 0 failed, (\d+) skipped, 0 errors, (\d+) xfailed",
                      gate[1].stdout + gate[1].stderr, re.M)
    assert plain is not None, gate[1].stdout[-1000:]
    want = "%s passed, %s skipped, %s xfailed" % plain.groups()
    assert re.search(r"=+ " + want + " in ", under_pytest[1].stdout), (
        want, under_pytest[1].stdout[-500:])
