"""conformance/bench/jax_same_program_twice.py: the calls spec/decisions.md (Runner and
reports 20) names as compiling one program twice in one process, in plain JAX. Were JAX to
compile each once, that text would be out of date, and this test says so."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from support import HANG, Env


def test_jax_compiles_some_programs_twice(env: Env) -> None:
    python = os.path.join(env.source, ".venv", "bin", "python")
    if subprocess.run([python, "-c", "import jax"], capture_output=True).returncode != 0:
        pytest.skip("JAX is not installed in the project's .venv")
    script = os.path.join(env.source, "conformance", "bench", "jax_same_program_twice.py")
    p = subprocess.run([python, script], capture_output=True, text=True, timeout=HANG)
    assert p.returncode == 0, p.stderr
    m = re.search(r"(\d+) programs compiled, (\d+) distinct", p.stdout)
    assert m, p.stdout
    compiled, distinct = int(m.group(1)), int(m.group(2))
    # The in-memory cache hits on a repeated call: the third moveaxis compiles nothing.
    again = [line for line in p.stdout.splitlines() if "again (the in-memory cache hits)" in line]
    assert again and " 0 program(s)" in again[0], p.stdout
    assert compiled > distinct, "JAX now compiles each of these programs once:\n" + p.stdout
