"""conformance/bench/share_profile.py, devspec's share of a run by a sampling profiler: the
attribution of a sample to the library, the adapter or neither; without py-spy a clear exit 3;
with py-spy (on PATH or beside this interpreter) a run on NumPy, a fast library, whose row
adds up. Nothing here asserts a time or a share's size."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import HANG, Env


def script(env: Env) -> str:
    return os.path.join(env.source, "conformance", "bench", "share_profile.py")


def load(env: Env) -> ModuleType:
    spec = importlib.util.spec_from_file_location("share_profile", script(env))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SITE = "/venv/lib/python3.11/site-packages/"
ADAPTER = "/src/adapters/python/devspec_py/"


def test_a_sample_belongs_to_its_innermost_owned_frame(env: Env, tmp_path: Path) -> None:
    sp = load(env)
    pk = ("jax", "jaxlib")
    main = "<module> (/src/adapters/python/devspec_adapter.py:90)"
    serve = "Server.serve (%sserver.py:270)" % ADAPTER
    jnp = "add (%sjax/_src/numpy/ufuncs.py:10)" % SITE
    xla = "xla::Compile (%sjaxlib/libjax_common.so)" % SITE
    libc = "memcpy (/usr/lib/x86_64-linux-gnu/libc.so.6)"
    dumps = "dumps (/usr/lib/python3.11/json/__init__.py:231)"
    numpy = "asarray (%snumpy/_core/numeric.py:5)" % SITE
    assert sp.owner([main, serve, jnp, xla, libc], pk)[0] == "library"
    # the standard library, another package and the interpreter count for their caller
    assert sp.owner([main, serve, dumps], pk) == ("adapter", "Server.serve (%sserver.py)"
                                                  % ADAPTER)
    assert sp.owner([main, serve, numpy, libc], pk)[0] == "adapter"
    assert sp.owner([main, serve, jnp, numpy], pk)[0] == "library"
    assert sp.owner(["<module> (<frozen runpy>:1)", libc], pk)[0] == "other"
    # a package whose name only starts like the library's is not the library
    assert sp.owner([serve, "f (%sjaxtyping/x.py:1)" % SITE], pk)[0] == "adapter"
    raw = tmp_path / "spy.txt"
    raw.write_text("thread (7): MainThread;%s;%s;%s 5\n" % (main, serve, jnp) +
                   "thread (7): MainThread;%s;%s 2\n" % (main, serve) +
                   "thread (7);%s 1\n" % libc +
                   "thread (7): MainThread 3\n"  # no frame: the interpreter outside the script
                   "thread (7): MainThread;%s;%s 4\n" % (libc, libc) +  # native frames only
                   "thread (9): pool;%s 40\n" % xla)  # another thread: not the main one's
    owners, frames = sp.read_samples(str(raw), 7, pk)
    assert dict(owners) == {"library": 5, "adapter": 2, "apart": 8}, owners
    assert frames == {"Server.serve (%sserver.py)" % ADAPTER: 2}, frames


def test_the_request_loop_blocked_on_its_pipe_is_waiting(env: Env) -> None:
    """Server.serve reading a request or writing a reply (its source line says which) is the
    adapter waiting for the runner, whether innermost or calling the C library's read; its
    other lines, and a read the adapter makes elsewhere, are the adapter's work."""
    sp = load(env)
    server = os.path.join(env.source, "adapters", "python", "devspec_py", "server.py")
    with open(server, encoding="utf-8") as f:
        lines = f.read().split("\n")
    read = next(i for i, t in enumerate(lines, 1) if "infile.readline(" in t)
    other = next(i for i, t in enumerate(lines, 1) if "body.strip()" in t)
    serve = "Server.serve (%s:%%d)" % server
    libc_read = "read (/usr/lib/x86_64-linux-gnu/libc.so.6)"
    pk = ("numpy",)
    assert sp.owner([serve % read], pk)[0] == "apart"
    assert sp.owner([serve % read, libc_read], pk)[0] == "apart"
    assert sp.owner([serve % other], pk)[0] == "adapter"
    assert sp.owner([serve % other, "f (%sx.py:1)" % ADAPTER, libc_read],
                    pk)[0] == "adapter"


def test_the_library_packages_follow_the_adapter_command(env: Env) -> None:
    sp = load(env)
    jax = sp.adapter_entry("jax", "python3")
    assert sp.packages_of(jax, []) == ("jax", "jaxlib")
    assert sp.packages_of(sp.adapter_entry("python:jax.numpy", "python3"), []) == (
        "jax", "jaxlib")
    assert sp.packages_of(sp.adapter_entry("python:array_api_strict", "python3"), []) == (
        "array_api_strict",)
    assert sp.packages_of(jax, ["jax"]) == ("jax",)


def test_without_py_spy_it_says_so_and_exits_3(env: Env, tmp_path: Path) -> None:
    missing = str(tmp_path / "py-spy")
    p = subprocess.run([sys.executable, script(env), "--devspec", env.devspec, "--py-spy",
                        missing, "numpy"], capture_output=True, text=True, timeout=HANG)
    assert p.returncode == 3 and "py-spy is not installed" in p.stderr, p.stderr
    assert missing in p.stderr and p.stdout == "", p.stdout


def test_a_numpy_run_adds_up(env: Env) -> None:
    """One run on NumPy under py-spy: the row's run CPU is the runner's, the adapter's and
    the library's, each a number >= 0, the share a percentage, and samples were taken."""
    here = os.path.join(os.path.dirname(sys.executable), "py-spy")
    spy = shutil.which("py-spy") or (here if os.access(here, os.X_OK) else None)
    if spy is None:
        pytest.skip("py-spy is not installed (pip install py-spy): the sampled run is not "
                    "tested here")
    if not os.access(os.path.join(env.source, ".venv", "bin", "python"), os.X_OK):
        pytest.skip("the numpy adapter runs on the project's .venv, which is missing")
    cases = os.path.join(env.source, "conformance", "cases", "device-attr.json")
    p = subprocess.run([sys.executable, script(env), "--devspec", env.devspec, "--py-spy", spy,
                        "--runs", "1", "--top", "3", "--cases", cases, "numpy"],
                       capture_output=True, text=True, timeout=4 * HANG, env=env.environ())
    if p.returncode == 0 and "py-spy exited" in p.stderr:
        pytest.skip("py-spy cannot trace processes here: " + p.stderr.strip()[-300:])
    assert p.returncode == 0, p.stderr
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("| numpy |")]
    assert len(rows) == 1, p.stdout
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    run_cpu, runner, adapter, library = (float(c) for c in cells[3:7])
    assert min(run_cpu, runner, adapter, library) >= 0 and adapter > 0, rows[0]
    assert abs(run_cpu - (runner + adapter + library)) <= 0.02, rows[0]
    assert cells[7].endswith(" %") and 0 < float(cells[7][:-2]) <= 100, rows[0]
    samples = [int(n) for n in cells[8].split(" / ")]
    assert sum(samples) > 0, rows[0]
    assert "numpy --jobs 1: devspec's share" in p.stdout, p.stdout
    assert "devspec_py" in p.stdout  # --top 3: the adapter's frames with most samples
