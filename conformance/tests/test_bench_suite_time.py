"""conformance/bench/suite_time.py, the whole-suite benchmark per library: one row per library
and --jobs value, each with numbers that parse; --cold finds and empties the compilation
caches an adapter's environment names. Nothing here asserts a time."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import HANG, Env


def script(env: Env) -> str:
    return os.path.join(env.source, "conformance", "bench", "suite_time.py")


def load(env: Env) -> ModuleType:
    spec = importlib.util.spec_from_file_location("suite_time", script(env))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_row_per_library_and_jobs(env: Env) -> None:
    cases = os.path.join(env.source, "conformance", "cases", "device-attr.json")
    p = subprocess.run([sys.executable, script(env), "--devspec", env.devspec, "--build",
                        env.build, "--starts", "1", "--jobs", "1", "--jobs", "2", "--cases",
                        cases, "refarray"], capture_output=True, text=True, timeout=HANG,
                       env=env.environ())
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("| refarray")]
    assert len(lines) == 2, p.stdout
    for line, jobs in zip(lines, (1, 2), strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == "refarray" and int(cells[1]) == jobs, line
        # Every cell a number, never negative; the run ex import may be shown as at least
        # the cases' own time where the start-up measured apart was noisier than the run
        # (its ratio is then a dash).
        ex = cells[4]
        if ex.startswith("≥ "):
            assert float(ex[2:].split()[0]) >= 0 and cells[8] == "–", line
            numbers = [float(c) for i, c in enumerate(cells[2:], 2) if i not in (4, 8)]
        else:
            numbers = [float(c) for c in cells[2:]]
        assert all(n == n and n >= 0 for n in numbers), line
        assert not re.search(r"-\d", " ".join(cells[2:])), line  # no negative anywhere
        assert int(cells[6]) > 0, line  # cases run
    assert "--jobs 2" in p.stderr


def test_bad_jobs_is_refused(env: Env) -> None:
    p = subprocess.run([sys.executable, script(env), "--devspec", env.devspec, "--jobs", "0",
                        "refarray"], capture_output=True, text=True, timeout=HANG)
    assert p.returncode == 2 and "--jobs" in p.stderr, p.stderr


def test_cold_finds_the_jax_cache_and_empties_its_entries_only(env: Env,
                                                              tmp_path: Path) -> None:
    st = load(env)
    build = os.path.realpath(env.build)
    assert st.cache_dirs(env.source, build, "jax") == [
        os.path.join(build, "jax-compilation-cache")]
    assert st.cache_dirs(env.source, build, "torch") == []
    (tmp_path / "a-cache").write_bytes(b"x")
    (tmp_path / "b-atime").write_bytes(b"y")
    (tmp_path / "notes.txt").write_bytes(b"n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kept-cache").write_bytes(b"z")
    st.prune(str(tmp_path), 0)  # what --cold does to each folder
    assert sorted(os.listdir(tmp_path)) == ["notes.txt", "sub"]
    assert os.listdir(tmp_path / "sub") == ["kept-cache"]
    st.prune(str(tmp_path / "absent"), 0)  # a cache never written is already empty


def test_split_into_library_and_devspec(env: Env) -> None:
    """--split: a Python library's row ends with its run's CPU split into the library's and
    devspec's (numbers, the share a percentage); a C adapter's with dashes."""
    if not os.access(os.path.join(env.source, ".venv", "bin", "python"), os.X_OK):
        pytest.skip("the numpy adapter runs on the project's .venv, which is missing")
    cases = os.path.join(env.source, "conformance", "cases", "device-attr.json")
    p = subprocess.run([sys.executable, script(env), "--devspec", env.devspec, "--build",
                        env.build, "--starts", "1", "--split", "--cases", cases, "numpy",
                        "refarray"], capture_output=True, text=True, timeout=HANG,
                       env=env.environ())
    assert p.returncode == 0, p.stderr
    rows = {ln.strip("|").split("|")[0].strip(): [c.strip() for c in ln.strip("|").split("|")]
            for ln in p.stdout.splitlines() if ln.startswith("| numpy") or
            ln.startswith("| refarray")}
    assert "devspec share" in p.stdout.splitlines()[0], p.stdout
    library, own, share = rows["numpy"][-3:]
    assert float(library) >= 0 and float(own) > 0, rows["numpy"]
    assert share.endswith(" %") and 0 < float(share[:-2]) <= 100, rows["numpy"]
    assert rows["refarray"][-3:] == ["–", "–", "–"], rows["refarray"]
