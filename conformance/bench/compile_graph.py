#!/usr/bin/env python3
"""Which cases compile which programs, and how few programs two workers must both compile.

    compile_graph.py record GRAPH.json [--devspec PATH] [--adapter NAME] [--cases FILE]...
    compile_graph.py bound GRAPH.json [--balance cpu|cases] [--starts N] [--seed S]

record runs the suite once with one worker on a library that compiles per process (JAX),
its adapter observed by adapter_profile.py with --cold: JAX's in-memory caches are cleared
before each case, so every case logs every program it needs, each tagged by the request, and
so the case, that compiled it (request ids are (index + 1) << 20 per case). GRAPH.json holds
the bipartite graph case -> programs, each case's CPU seconds in that run, and each case's
id and steps (from the suite's files, for the routing keys below).

bound reads it back and prints:

- the graph's connected components (cases that share a program, directly or not);
- the fewest programs compiled in both workers that a split of the cases into two workers,
  balanced within 60/40, was found to need: a Fiduccia-Mattheyses refinement of a
  hypergraph in which each case is a node and each program a net, from several starts
  (the best of them; a heuristic, so an upper bound of the true minimum, and a split
  that meets it);
- for each routing key in KEYS (a function of a case's text alone, as the runner's
  schedule.c computes it), the programs compiled twice when two workers take its groups as
  the runner does (guided self-scheduling over the groups in the order of their first
  case, a worker's time being its cases' CPU), and the best balanced split of its groups.

Work is each case's CPU (--balance cpu): its CPU in the recorded run less the programs it
compiled there, each at the mean cost per program (a least-squares fit over the cases),
plus each of its programs' cost shared among the cases that need it; or one per case
(--balance cases). Standard-library Python.
"""

from __future__ import annotations

import argparse
import collections
import heapq
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from adapter_profile import case_of, collect, observed_run  # noqa: E402

Case = dict[str, Any]


# ---- recording ----------------------------------------------------------------------------

def suite_cases(devspec: str, cases: list[str]) -> list[Case]:
    """The suite's cases in its order (that of `devspec list cases`), each its file's
    object."""
    argv = [devspec, "list", "cases", "--json"]
    for c in cases:
        argv += ["--cases", c]
    listed = json.loads(subprocess.run(argv, capture_output=True, text=True,
                                       check=True).stdout)
    files: dict[str, dict[str, Case]] = {}
    out = []
    for entry in listed:
        name = entry["file"]
        if name not in files:
            path = next((os.path.join(d, name) for d in
                         [os.path.join(TOP, "conformance", "cases"), *cases]
                         if os.path.isfile(os.path.join(d, name))), name)
            with open(path, encoding="utf-8") as f:
                files[name] = {c["id"]: c for c in json.load(f)["cases"]}
        out.append(files[name][entry["id"]])
    return out


def record(devspec: str, adapter: str, cases: list[str], out: str) -> None:
    suite = suite_cases(devspec, cases)
    with tempfile.TemporaryDirectory() as tmp:
        proc, wall, cpu, logdir = observed_run(devspec, TOP, adapter, tmp, 1, cases, cold=True)
        with open(os.path.join(tmp, "report.json"), encoding="utf-8") as f:
            ran = [r["id"] for r in json.load(f)["cases"]]
        got = collect(logdir)
    if ran != [c["id"] for c in suite]:
        raise SystemExit("compile_graph: the run's cases are not the suite's listed cases "
                         "(a selection option?)")
    index: dict[str, int] = {}
    programs: list[list[int]] = [[] for _ in suite]
    start: list[str] = []
    for _, rid, key in got["events"]:
        c = case_of(rid)
        if not 0 <= c < len(suite):
            start.append(key)
            continue
        k = index.setdefault(key, len(index))
        if k not in programs[c]:
            programs[c].append(k)
    cpu_of = [0.0] * len(suite)
    for rid, s in got["request_cpu"].items():
        if 0 <= case_of(rid) < len(suite):
            cpu_of[case_of(rid)] += s
    graph = {"adapter": adapter, "wall_s": wall, "cpu_s": cpu, "programs": list(index),
             "outside_cases": start,
             "cases": [{"id": c["id"], "steps": c["steps"], "cpu_s": round(cpu_of[i], 6),
                        "programs": programs[i]} for i, c in enumerate(suite)]}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(graph, f)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    print("%s: %d cases, %d programs, %d compiles over the cases; %.1f s wall, %.1f s CPU; %s"
          % (out, len(suite), len(index), sum(map(len, programs)), wall, cpu,
             lines[-1] if lines else "exit %d" % proc.returncode))



# ---- the graph ------------------------------------------------------------------------------

class Graph:
    """Cases (nodes) with their work, programs (nets) with the cases that need them."""

    def __init__(self, programs_of: list[list[int]], work: list[float]) -> None:
        self.programs_of = programs_of
        self.work = work
        nprog = 1 + max((k for ps in programs_of for k in ps), default=-1)
        self.cases_of: list[list[int]] = [[] for _ in range(nprog)]
        for c, ps in enumerate(programs_of):
            for k in ps:
                self.cases_of[k].append(c)

    def twice(self, side: Sequence[int], ways: int = 2) -> int:
        """Programs compiled again when case c goes to worker SIDE[c]: per program, the
        workers that need it, less one."""
        return sum(len({side[c] for c in cs}) - 1 for cs in self.cases_of if cs)

    def components(self) -> list[list[int]]:
        """The cases in groups that share no program, largest first."""
        parent = list(range(len(self.programs_of)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for cs in self.cases_of:
            for c in cs[1:]:
                a, b = find(cs[0]), find(c)
                if a != b:
                    parent[a] = b
        groups: dict[int, list[int]] = {}
        for c in range(len(parent)):
            groups.setdefault(find(c), []).append(c)
        return sorted(groups.values(), key=len, reverse=True)


def case_work(graph: dict[str, Any], balance: str) -> tuple[list[float], float]:
    """Each case's work (see the module's text) and the mean CPU of compiling one program
    (0 with --balance cases)."""
    cases = graph["cases"]
    if balance == "cases":
        return [1.0] * len(cases), 0.0
    xs = [len(c["programs"]) for c in cases]
    ys = [c["cpu_s"] for c in cases]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    per = max(0.0, sxy / sxx) if sxx else 0.0
    users = [0] * len(graph["programs"])
    for c in cases:
        for k in c["programs"]:
            users[k] += 1
    work = [max(0.0, c["cpu_s"] - per * len(c["programs"]))
            + sum(per / users[k] for k in c["programs"]) for c in cases]
    return work, per


def base_work(graph: dict[str, Any], per: float) -> list[float]:
    """Each case's CPU without compiling its programs (one per case when PER is 0)."""
    if per == 0:
        return [1.0] * len(graph["cases"])
    return [max(0.0, c["cpu_s"] - per * len(c["programs"])) for c in graph["cases"]]


# ---- the bound: a balanced two-way split with the fewest programs in both -------------------

def fm_refine(g: Graph, side: list[int], lo: float, hi: float,
              rng: random.Random) -> list[int]:
    """SIDE (0 or 1 per node of G) improved by Fiduccia-Mattheyses passes until a pass
    finds nothing better: in a pass every node moves once, the one that uncuts most
    programs first, as long as each side's work stays within [LO, HI], and the best split
    met on the way is kept."""
    w = g.work
    nets = g.cases_of
    pins = g.programs_of
    side = list(side)
    while True:
        count = [[0, 0] for _ in nets]
        for k, cs in enumerate(nets):
            for c in cs:
                count[k][side[c]] += 1
        load = [0.0, 0.0]
        for c, s in enumerate(side):
            load[s] += w[c]

        def gain(c: int, count: list[list[int]] = count) -> int:
            """The programs moving C to the other side takes out of both, less those it
            puts in both."""
            f = side[c]
            return sum((count[k][f] == 1) - (count[k][1 - f] == 0) for k in pins[c])

        gains = [gain(c) for c in range(len(side))]
        locked = [False] * len(side)
        order = list(range(len(side)))
        rng.shuffle(order)
        heap = [(-gains[c], i, c) for i, c in enumerate(order)]
        heapq.heapify(heap)
        tick = len(order)
        held: list[tuple[int, int, int]] = []  # the best moves that would unbalance
        moves: list[int] = []
        cut = start = best = g.twice(side)
        best_at = 0
        while heap:
            item = heapq.heappop(heap)
            c = item[2]
            if locked[c] or -item[0] != gains[c]:
                continue
            f = side[c]
            if not (lo <= load[f] - w[c] and load[1 - f] + w[c] <= hi):
                held.append(item)
                if len(held) > 200:
                    break
                continue
            for h in held:
                heapq.heappush(heap, h)
            held = []
            locked[c] = True
            cut -= gains[c]
            side[c] = 1 - f
            load[f] -= w[c]
            load[1 - f] += w[c]
            touched: set[int] = set()
            for k in pins[c]:
                count[k][f] -= 1
                count[k][1 - f] += 1
                if count[k][f] <= 1 or count[k][1 - f] <= 2:
                    touched.update(nets[k])
            for d in touched:
                if not locked[d]:
                    gains[d] = gain(d)
                    tick += 1
                    heapq.heappush(heap, (-gains[d], tick, d))
            moves.append(c)
            if cut < best:
                best, best_at = cut, len(moves)
        for c in moves[best_at:]:
            side[c] = 1 - side[c]
        if best >= start:
            return side


def balanced_start(order: Iterable[int], w: Sequence[float], total: float) -> list[int]:
    """Nodes in ORDER to side 0 until it holds half the work, the rest to side 1."""
    side = [1] * len(w)
    acc = 0.0
    for c in order:
        if acc >= total / 2:
            break
        side[c] = 0
        acc += w[c]
    return side


def contract(g: Graph, groups: Sequence[Any]) -> tuple[list[int], Graph]:
    """G with the cases of each group of GROUPS (a key per case) made one node: (each case's
    node, the contracted graph)."""
    ids: dict[Any, int] = {}
    node = [ids.setdefault(k, len(ids)) for k in groups]
    programs: list[set[int]] = [set() for _ in ids]
    work = [0.0] * len(ids)
    for c, n in enumerate(node):
        programs[n].update(g.programs_of[c])
        work[n] += g.work[c]
    return node, Graph([sorted(p) for p in programs], work)


def best_split(g: Graph, starts: int, rng: random.Random, coarse: Sequence[Sequence[Any]] = (),
               ratio: float = 0.6) -> tuple[int, list[int]]:
    """The fewest programs compiled twice found by fm_refine over splits balanced within
    RATIO: from the suite's order cut in two, from STARTS random splits, and for each
    grouping in COARSE (a key per case) from STARTS random splits of its groups refined as
    groups first. (That count, the split.) When the components alone balance, no program
    need be compiled twice and that split is returned. ValueError when no start balances."""
    total = sum(g.work)
    lo, hi = (1 - ratio) * total, ratio * total
    n = len(g.work)
    side = [0] * n
    load = [0.0, 0.0]
    for comp in sorted(g.components(), key=lambda cs: -sum(g.work[c] for c in cs)):
        s = 0 if load[0] <= load[1] else 1
        for c in comp:
            side[c] = s
        load[s] += sum(g.work[c] for c in comp)
    if lo <= load[0] <= hi:
        return g.twice(side), side
    tries = [balanced_start(range(n), g.work, total)]
    for _ in range(starts):
        order = list(range(n))
        rng.shuffle(order)
        tries.append(balanced_start(order, g.work, total))
    for groups in coarse:
        node, small = contract(g, groups)
        for _ in range(starts):
            order = list(range(len(small.work)))
            rng.shuffle(order)
            first = fm_refine(small, balanced_start(order, small.work, total), lo, hi, rng)
            tries.append([first[node[c]] for c in range(n)])
    best: tuple[int, list[int]] | None = None
    for t in tries:
        if not lo <= sum(g.work[c] for c in range(n) if t[c] == 0) <= hi:
            continue
        refined = fm_refine(g, t, lo, hi, rng)
        cut = g.twice(refined)
        if best is None or cut < best[0]:
            best = (cut, refined)
    if best is None:
        raise ValueError("no split balanced within %.0f/%.0f was found"
                         % (100 * ratio, 100 - 100 * ratio))
    return best


# ---- routing keys -----------------------------------------------------------------------------

def runner_split(groups: Sequence[Any], base: Sequence[float], per_program: float,
                 programs_of: list[list[int]], jobs: int = 2, piece: int = 0,
                 steal: bool = False) -> tuple[list[int], list[float]]:
    """The worker each case goes to when JOBS workers take the cases as run.c's take_run
    gives them: grouped by GROUPS[c] in the order of each group's first case, runs of an
    eighth of what is left per worker (at most 64, at least 1) extended to the end of
    their group (or of its piece: PIECE cases of it in order, when not 0), each taken by
    the worker that is free first; with STEAL, a worker that finds none left takes the back
    half of the cases not yet begun of the run with most of them. A case's time is BASE[c]
    and PER_PROGRAM for each of its programs the worker has not compiled before. Returns
    the worker of each case and each worker's time."""
    order: list[int] = []
    members: dict[Any, list[int]] = {}
    for c, g in enumerate(groups):
        members.setdefault(g, []).append(c)
    end_of: list[int] = []
    for g in members:
        first = len(order)
        order += members[g]
        for k in range(len(members[g])):
            end_of.append(min(first + (k // piece + 1) * piece, len(order)) if piece
                          else len(order))
    worker = [0] * len(groups)
    clock = [0.0] * jobs
    known: list[set[int]] = [set() for _ in range(jobs)]
    at, end = [0] * jobs, [0] * jobs
    done = [False] * jobs
    nxt, total = 0, len(order)
    while not all(done):
        w = min((j for j in range(jobs) if not done[j]), key=lambda j: clock[j])
        if at[w] >= end[w]:
            if nxt < total:
                n = max(1, min(64, (total - nxt) // (8 * (jobs - sum(done)))))
                at[w], end[w] = nxt, end_of[nxt + min(n, total - nxt) - 1]
                nxt = end[w]
            elif steal and max(end[v] - at[v] for v in range(jobs)) >= 2:
                v = max(range(jobs), key=lambda j: end[j] - at[j])
                mid = at[v] + (end[v] - at[v]) // 2
                at[w], end[w], end[v] = mid, end[v], mid
            else:
                done[w] = True
                continue
        c = order[at[w]]
        at[w] += 1
        worker[c] = w
        fresh = [k for k in programs_of[c] if k not in known[w]]
        known[w].update(fresh)
        clock[w] += base[c] + per_program * len(fresh)
    return worker, clock


def dtypes_in(v: Any, out: list[str]) -> list[str]:
    """Each dtype named in V (a "dtype" member anywhere in it), once, in order."""
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "dtype" and isinstance(x, str):
                if x not in out:
                    out.append(x)
            else:
                dtypes_in(x, out)
    elif isinstance(v, list):
        for x in v:
            dtypes_in(x, out)
    return out


def function_of(case: Case) -> str:
    """What the case calls: a call step's fn or an array.* step's, else its first op."""
    for st in case["steps"]:
        fn = st.get("args", {}).get("fn")
        if isinstance(fn, str) and (st["op"] == "call" or st["op"].startswith("array.")):
            return fn
    return str(case["steps"][0]["op"]) if case["steps"] else ""


def subject(case: Case) -> str:
    """schedule.c's subject before this key: the function and the set of dtypes."""
    ds: list[str] = []
    for st in case["steps"]:
        dtypes_in(st.get("args"), ds)
    return function_of(case) + "".join("," + d for d in ds)


def dtype_set(case: Case) -> str:
    """schedule.c's group: the set of dtypes the case's steps name, sorted."""
    ds: list[str] = []
    for st in case["steps"]:
        dtypes_in(st.get("args"), ds)
    return "".join("," + d for d in sorted(ds))


# Each routing key: the key of a case, and whether the runner takes its groups as schedule.c
# and run.c do now (pieces of at most total / jobs cases, and a worker left without cases
# taking the back half of another's run) or as before (groups whole, no taking).
KEYS: dict[str, tuple[Callable[[Case], Any], bool]] = {
    "none (each case alone)": (lambda c: c["id"], False),
    "subject (function + dtypes; the key before)": (subject, False),
    "function": (function_of, False),
    "set of dtypes, whole groups": (dtype_set, False),
    "set of dtypes, in pieces, idle workers taking (schedule.c)": (dtype_set, True),
}


def report(graph: dict[str, Any], balance: str, starts: int, seed: int, jobs: int = 2) -> None:
    cases = graph["cases"]
    work, per = case_work(graph, balance)
    base = base_work(graph, per)
    g = Graph([c["programs"] for c in cases], work)
    total = sum(work)
    shared = [cs for cs in g.cases_of if len(cs) > 1]
    print("%d cases, %d programs (%d needed by more than one case), %d compiled outside the "
          "cases (the adapter's start); work %s%s"
          % (len(cases), len(g.cases_of), len(shared), len(graph["outside_cases"]),
             "%.1f s of CPU" % total if balance == "cpu" else "one per case",
             ", %.1f ms per program compiled" % (1000 * per) if per else ""))
    comps = g.components()
    print("components: %d; the largest %d cases (%.1f %% of the work), then %s"
          % (len(comps), len(comps[0]), 100 * sum(work[c] for c in comps[0]) / total,
             ", ".join(str(len(cs)) for cs in comps[1:8])))
    rng = random.Random(seed)
    coarse = [[c["id"].split(".")[0] for c in cases], [subject(c) for c in cases],
              [function_of(c) for c in cases]]
    for ratio in (0.6, 0.55):
        try:
            cut, side = best_split(g, starts, rng, coarse, ratio)
        except ValueError as exc:
            print("bound: %s" % exc)
            continue
        load = sum(work[c] for c in range(len(cases)) if side[c] == 0) / total
        print("bound: the best split found balanced within %.0f/%.0f compiles %d programs "
              "in both workers (its work %.1f/%.1f %%)"
              % (100 * ratio, 100 - 100 * ratio, cut, 100 * load, 100 - 100 * load))
    piece = -(-len(cases) // jobs)
    for name, (key, now) in KEYS.items():
        groups = [key(c) for c in cases]
        worker, clock = runner_split(groups, base, per, g.programs_of, jobs,
                                     piece if now else 0, now)
        sizes = collections.Counter(groups)
        print("key %s: %d groups, the largest %d cases; %d workers as the runner takes them "
              "compile %d programs in more than one (work %s)"
              % (name, len(sizes), max(sizes.values()), jobs, g.twice(worker),
                 "/".join("%.1f" % t for t in clock)))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the suite with one worker and write the graph")
    rec.add_argument("graph")
    rec.add_argument("--devspec", default=os.path.join(TOP, "build", "conformance", "devspec"))
    rec.add_argument("--adapter", default="jax")
    rec.add_argument("--cases", action="append", default=[])
    bnd = sub.add_parser("bound", help="the components, the bound and the routing keys")
    bnd.add_argument("graph")
    bnd.add_argument("--balance", choices=["cpu", "cases"], default="cpu")
    bnd.add_argument("--starts", type=int, default=8)
    bnd.add_argument("--seed", type=int, default=1)
    bnd.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    if args.command == "record":
        record(args.devspec, args.adapter, args.cases, args.graph)
        return 0
    with open(args.graph, encoding="utf-8") as f:
        graph = json.load(f)
    report(graph, args.balance, args.starts, args.seed, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
