"""conformance/bench/adapter_profile.py, the helpers of the benches that run devspec on a
Python adapter: run_timed (the wall and CPU time of a child run, its descendants' CPU
included), the compile log's request tag (the request the adapter was answering), and
jax_compiles.py's table of programs compiled again with the requests that compiled them.
Nothing here asserts a time beyond the CPU a child is made to burn."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import HANG, Env

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"


def load(env: Env) -> ModuleType:
    path = os.path.join(env.source, "conformance", "bench", "adapter_profile.py")
    spec = importlib.util.spec_from_file_location("adapter_profile", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_run_timed_counts_the_child_and_its_descendants(env: Env) -> None:
    ap = load(env)
    # The child burns nothing itself: its child (the grandchild) burns 0.3 s of CPU, which
    # getrusage of the children counts once the child has waited for it.
    argv = [sys.executable, "-c", "import subprocess, sys; print('out'); "
            "sys.exit(subprocess.run([sys.executable, '-c', %r]).returncode + 3)" % BURN]
    proc, wall, cpu = ap.run_timed(argv)
    assert proc.returncode == 3 and proc.stdout == "out\n", proc
    assert cpu >= 0.3, cpu
    assert wall >= 0.3 and wall == wall, wall
    # A run after it counts only its own child: the CPU is of the run, not of the process.
    proc, wall, cpu = ap.run_timed([sys.executable, "-c", "pass"])
    assert proc.returncode == 0 and 0 <= cpu < 0.3 and wall >= 0, (cpu, wall)


def test_a_compile_is_tagged_with_the_request_in_flight(env: Env, tmp_path: Path) -> None:
    """_tag_request finds Server.call up the stack (a function `call` of a file
    devspec_py/server.py, here a fixture of that name) and tags the message with its op, fn
    and request id; collect reads the tags back per program key and per compile."""
    ap = load(env)
    import logging
    server = tmp_path / "devspec_py" / "server.py"
    server.parent.mkdir()
    server.write_text("def call(rid, name, args, emit):\n    return emit()\n")
    spec = importlib.util.spec_from_file_location("fixture_server", server)
    assert spec is not None and spec.loader is not None
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)

    logdir = tmp_path / "logs"
    logdir.mkdir()
    log = logging.getLogger("test_bench_adapter_profile")
    handler = logging.FileHandler(logdir / "compiles-1.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(ap._tag_request)
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    try:
        def emit(key: str) -> None:
            log.debug("Persistent compilation cache hit for '%s' with key %s", "jit_add", key)

        fixture.call((3 << 20) + 5, "array.binary", {"fn": "add"}, lambda: emit("k1"))
        fixture.call((1 << 20) - 64, "array.asarray", {"obj": {}}, lambda: emit("k2"))
        emit("k2")  # outside a request: the adapter's start
        log.debug("some other message, not kept")
    finally:
        log.removeHandler(handler)
        handler.close()
    got = ap.collect(str(logdir))
    assert got["per_process"] == [3]
    k1, k2 = "'jit_add' with key k1", "'jit_add' with key k2"
    assert got["compiles"] == {k1: 1, k2: 2}, got["compiles"]
    assert got["requests"][k1] == {"array.binary add": 1}
    assert got["requests"][k2] == {"array.asarray": 1, "-": 1}
    # Each compile with its request's id; case_of gives the case (the reset's ids, 64 below
    # the case's first, are the case's).
    assert got["events"] == [(0, (3 << 20) + 5, k1), (0, (1 << 20) - 64, k2), (0, -1, k2)]
    assert [ap.case_of(e[1]) for e in got["events"]] == [2, 0, -1]


def test_jax_compiles_names_the_requests(env: Env) -> None:
    python = os.path.join(env.source, ".venv", "bin", "python")
    if subprocess.run([python, "-c", "import jax"], capture_output=True).returncode != 0:
        pytest.skip("JAX is not installed in the project's .venv")
    script = os.path.join(env.source, "conformance", "bench", "jax_compiles.py")
    cases = os.path.join(env.source, "conformance", "cases", "device-attr.json")
    p = subprocess.run([python, script, "--devspec", env.devspec, "--jobs", "1", "--show",
                        "5", "--cases", cases], capture_output=True, text=True, timeout=HANG,
                       env=env.environ())
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("jax --jobs 1: ") and " programs compiled in 1 adapter " \
        "processes" in lines[0], p.stdout
    assert "requests that compiled the programs compiled more than once" in p.stdout
