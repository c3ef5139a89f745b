"""conformance/bench/compile_graph.py: the case -> programs graph, the fewest programs two
balanced workers must both compile, and the runner's routing of a key. On small graphs whose
answers are known; record on one case file of the suite when JAX is installed."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support import HANG, Env


def load(env: Env) -> ModuleType:
    path = os.path.join(env.source, "conformance", "bench", "compile_graph.py")
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("compile_graph", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def two_clusters() -> list[list[int]]:
    """Cases 0-3 share program 0, cases 4-7 program 1, and cases 3 and 4 program 2; case 8
    needs program 3 alone. Balanced within 60/40 by case count, the fewest programs in both
    workers is 1 (program 2, or one of the clusters' split)."""
    return [[0], [0], [0], [0, 2], [1, 2], [1], [1], [1], [3]]


def test_components_and_the_bound(env: Env) -> None:
    cg = load(env)
    g = cg.Graph(two_clusters(), [1.0] * 9)
    assert sorted(map(sorted, g.components())) == [[0, 1, 2, 3, 4, 5, 6, 7], [8]]
    assert g.twice([0, 0, 0, 0, 1, 1, 1, 1, 1]) == 1
    assert g.twice([0, 1, 0, 1, 0, 1, 0, 1, 0]) == 3
    # From every start, balanced ones included that cut both clusters, the search finds 1.
    for seed in range(5):
        cut, side = cg.best_split(g, 4, random.Random(seed))
        assert cut == 1 and g.twice(side) == 1, (seed, side)
        assert 3.6 <= side.count(0) <= 5.4, side
    # Components that balance need no program in both.
    g = cg.Graph([[0], [0], [1], [1]], [1.0] * 4)
    cut, side = cg.best_split(g, 2, random.Random(1))
    assert cut == 0 and side.count(0) == 2, side


def test_the_runner_keeps_a_group_in_one_worker_and_idle_workers_take(env: Env) -> None:
    cg = load(env)
    programs = [[0]] * 8 + [[1]] * 8
    base = [1.0] * 16
    # Two groups of 8 whole: one worker each, no program in both.
    worker, clock = cg.runner_split([0] * 8 + [1] * 8, base, 0.0, programs, 2)
    assert len(set(worker[:8])) == 1 and len(set(worker[8:])) == 1 and clock == [8.0, 8.0]
    # Each case alone: runs of one case alternate, both programs in both workers.
    worker, _ = cg.runner_split(list(range(16)), base, 0.0, programs, 2)
    assert cg.Graph(programs, base).twice(worker) == 2
    # One group of 16 in pieces of 8 (16 / 2 workers): one piece each.
    worker, clock = cg.runner_split([0] * 16, base, 0.0, programs, 2, piece=8)
    assert worker == [0] * 8 + [1] * 8 and clock == [8.0, 8.0]
    # One group whole: the second worker waits, unless it takes the back half of the run.
    worker, clock = cg.runner_split([0] * 16, base, 0.0, programs, 2)
    assert clock == [16.0, 0.0]
    worker, clock = cg.runner_split([0] * 16, base, 0.0, programs, 2, steal=True)
    assert sorted(clock) == [8.0, 8.0] and worker[:8] == [0] * 8, (worker, clock)


def test_keys_read_the_case_text(env: Env) -> None:
    cg = load(env)
    case = {"id": "fn.add.x", "steps": [
        {"op": "array.asarray", "args": {"obj": {"dtype": "int8", "shape": [2]}}, "as": "a"},
        {"op": "array.asarray", "args": {"obj": {"dtype": "float32", "shape": [2]}}, "as": "b"},
        {"op": "call", "args": {"fn": "add", "args": ["$a", "$b"], "dtype": "int8"}}]}
    assert cg.function_of(case) == "add"
    assert cg.subject(case) == "add,int8,float32"
    assert cg.dtype_set(case) == ",float32,int8"


def test_bound_prints_the_figures(env: Env, tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [{"op": "call", "args": {"fn": "f", "dtype": "int8"}}]
    graph = {"adapter": "x", "wall_s": 1.0, "cpu_s": 1.0, "programs": ["p%d" % k for k in
                                                                       range(4)],
             "outside_cases": ["p0"],
             "cases": [{"id": "c%d" % i, "steps": steps, "cpu_s": 0.01, "programs": ps}
                       for i, ps in enumerate(two_clusters())]}
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(graph))
    script = os.path.join(env.source, "conformance", "bench", "compile_graph.py")
    p = subprocess.run([sys.executable, script, "bound", str(path), "--balance", "cases"],
                       capture_output=True, text=True, timeout=HANG)
    assert p.returncode == 0, p.stderr
    assert "components: 2; the largest 8 cases" in p.stdout, p.stdout
    assert "within 60/40 compiles 1 programs in both workers" in p.stdout, p.stdout
    assert "key set of dtypes" in p.stdout, p.stdout


def test_record_on_jax(env: Env, tmp_path: Path) -> None:
    python = os.path.join(env.source, ".venv", "bin", "python")
    if subprocess.run([python, "-c", "import jax"], capture_output=True).returncode != 0:
        pytest.skip("JAX is not installed in the project's .venv")
    script = os.path.join(env.source, "conformance", "bench", "compile_graph.py")
    cases = os.path.join(env.source, "conformance", "cases", "device-attr.json")
    out = tmp_path / "graph.json"
    p = subprocess.run([python, script, "record", str(out), "--devspec", env.devspec,
                        "--cases", cases], capture_output=True, text=True, timeout=HANG,
                       env=env.environ())
    assert p.returncode == 0, p.stderr
    graph = json.loads(out.read_text())
    with open(cases, encoding="utf-8") as f:
        assert [c["id"] for c in graph["cases"]] == [c["id"] for c in json.load(f)["cases"]]
    # Every case that makes an array compiles (or fetches) a program of its own: the
    # caches are cleared per case, so no case leans on one before it.
    made = [c for c in graph["cases"] if any(s["op"] == "array.asarray" for s in c["steps"])]
    assert made and all(c["programs"] for c in made), [c["id"] for c in made
                                                        if not c["programs"]]
