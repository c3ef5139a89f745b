"""pytest_or_skip.py, the runner tests' launcher under CTest: without pytest it skips saying
why (exit 77), and fails in CI (CI=true), instead of "No module named pytest"."""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCHER = os.path.join(HERE, "pytest_or_skip.py")


def test_without_pytest_it_skips_or_fails_in_ci() -> None:
    # -S: no site-packages, so this interpreter has no pytest, as one without the .venv.
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    p = subprocess.run([sys.executable, "-S", LAUNCHER, "-q", "x"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert p.returncode == 77 and p.stdout.startswith("SKIP: pytest is not installed"), p
    p = subprocess.run([sys.executable, "-S", LAUNCHER, "-q", "x"], capture_output=True,
                       text=True, env=dict(env, CI="true"), timeout=60)
    assert p.returncode == 1 and "pytest is not installed" in p.stderr, p
