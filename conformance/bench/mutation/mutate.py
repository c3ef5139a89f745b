#!/usr/bin/env python3
"""Mutation runs of refarray: how many device-rule mutants the conformance suite catches.

Each mutant of catalogue.json breaks one rule of spec/statements.json in refarray (or, for a
designed equivalent, changes an outcome the standard leaves open). The tool applies one mutant
at a time to a copy of the source tree (never the working tree), rebuilds refarray and its
adapter there, runs the suite against the mutant under the configurations the mutant names,
and reports the kill rate per category, the survivors and any equivalent that was killed.

    mutate.py [--sample | --mutant ID...] [--publish] [--result FILE] [--page FILE]
              [--work DIR] [--jobs N]
    mutate.py --check       every snippet of the catalogue found exactly once
    mutate.py --coverage    must statements refarray implements with no mutant
    mutate.py --list        the catalogue, one mutant a line

Exit status: 0 every mutant run was killed and no equivalent was; 1 a mutant survived, an
equivalent was killed, or (--coverage) a statement lacks a mutant; 2 a bad catalogue (a
snippet not found exactly once, an unknown statement or category) or usage; 3 the copy could
not be built or the unmutated copy does not pass the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[2]
CATALOGUE = HERE / "catalogue.json"
# Where a snippet is searched: every C source and header of refarray (its sources and public
# headers; its tests and benchmarks are not refarray and may quote its code).
SEARCH_ROOT = "reference"
SEARCH_DIRS = ("reference/src", "reference/include")
SEARCH_SUFFIXES = (".c", ".h", ".cl")
# The targets a mutant needs rebuilt: the adapter (which links refarray and, with MPI, its
# global layer) and the two hosts that load it out of process.
TARGETS = ["devspec_adapter_refarray", "devspec-adapter-host"]
MPI_TARGET = "devspec-adapter-mpi-host"
# Folders of the tree a build never reads (copying them would only cost time).
NOT_COPIED = ("reports/",)
RUN_TIMEOUT_S = 600


class CatalogueError(Exception):
    """A catalogue that cannot be applied to the current tree."""


@dataclass
class Edit:
    find: str
    replace: str


@dataclass
class Mutant:
    id: str
    category: str
    statements: list[str]
    description: str
    edits: list[Edit]
    runs: list[str]
    equivalent: bool
    sample: bool
    note: str = ""


@dataclass
class Outcome:
    id: str
    status: str  # killed, survived, build-error
    seconds: float
    killed_by: str = ""  # the configuration whose run failed
    killers: list[str] = field(default_factory=list)  # cases whose status changed
    killer_count: int = -1  # how many (-1: len(killers)); a result file keeps only 20 names
    # An equivalent's cases that failed, every one of them resting on a point of
    # spec/decisions.md (their "decision"): it survives the standard's text.
    by_decision: list[str] = field(default_factory=list)


def load_catalogue(path: Path = CATALOGUE) -> tuple[dict[str, Any], list[Mutant]]:
    data = json.loads(path.read_text())
    mutants = []
    for m in data["mutants"]:
        mutants.append(
            Mutant(
                id=m["id"],
                category=m["category"],
                statements=list(m["statements"]),
                description=m["description"],
                edits=[Edit(e["find"], e["replace"]) for e in m["edits"]],
                runs=list(m.get("runs", ["refarray"])),
                equivalent=bool(m.get("equivalent", False)),
                sample=bool(m.get("sample", False)),
                note=m.get("note", ""),
            )
        )
    return data, mutants


def source_files(root: Path) -> dict[str, str]:
    """Every file refarray's snippets are searched in, by path relative to root."""
    out = {}
    for d in SEARCH_DIRS:
        for p in sorted((root / d).rglob("*")):
            if p.suffix in SEARCH_SUFFIXES and p.is_file():
                out[str(p.relative_to(root))] = p.read_text()
    return out


def locate(m: Mutant, files: dict[str, str]) -> list[str]:
    """The file of each edit of m; CatalogueError naming m where a snippet is not found
    exactly once across reference/ (files are searched by content, never by name, so that
    moving a function between files moves its mutants with it)."""
    where = []
    for i, e in enumerate(m.edits, 1):
        hits = [(path, text.count(e.find)) for path, text in files.items() if e.find in text]
        n = sum(c for _, c in hits)
        if n != 1:
            first = e.find.strip().splitlines()[0] if e.find.strip() else "(empty)"
            places = ", ".join(f"{p} ({c})" for p, c in hits) or "nowhere"
            dirs = " and ".join(d + "/" for d in SEARCH_DIRS)
            raise CatalogueError(
                f"mutant {m.id}: snippet {i} of {len(m.edits)} ({first!r}) is found {n} times "
                f"in {dirs} ({places}); it must be found exactly once: update the snippet in "
                "conformance/bench/mutation/catalogue.json"
            )
        where.append(hits[0][0])
    return where


def check(data: dict[str, Any], mutants: list[Mutant], root: Path = TOP) -> list[str]:
    """Every problem of the catalogue against the tree at root (empty: it applies whole)."""
    problems = []
    statements = {
        s["id"] for s in json.loads((root / "spec/statements.json").read_text())["statements"]
    }
    categories = set(data["categories"])
    configs = set(data["configurations"])
    seen: set[str] = set()
    files = source_files(root)
    for m in mutants:
        if m.id in seen:
            problems.append(f"mutant {m.id}: the id is used twice")
        seen.add(m.id)
        if m.category not in categories:
            problems.append(f"mutant {m.id}: unknown category {m.category!r}")
        for s in m.statements:
            if s not in statements:
                problems.append(f"mutant {m.id}: unknown statement {s!r}")
        if not m.statements:
            problems.append(f"mutant {m.id}: names no statement")
        for r in m.runs:
            if r not in configs:
                problems.append(f"mutant {m.id}: unknown configuration {r!r}")
        if not m.edits:
            problems.append(f"mutant {m.id}: has no edit")
        try:
            locate(m, files)
        except CatalogueError as e:
            problems.append(str(e))
    for s in data.get("uncoverable", {}):
        if s not in statements:
            problems.append(f"uncoverable: unknown statement {s!r}")
    return problems


def implemented_statements(root: Path = TOP) -> dict[str, dict[str, Any]]:
    """The must statements refarray implements: those with a feature that one of refarray's
    configurations claims in its published report (reports/refarray*.json)."""
    claimed: set[str] = set()
    for rep in sorted((root / "reports").glob("refarray*.json")):
        claimed.update(json.loads(rep.read_text())["header"].get("features_claimed", []))
    out = {}
    for s in json.loads((root / "spec/statements.json").read_text())["statements"]:
        if s["level"] == "must" and claimed.intersection(s.get("features", [])):
            out[s["id"]] = s
    return out


def coverage(data: dict[str, Any], mutants: list[Mutant], root: Path = TOP) -> list[str]:
    """The must statements refarray implements that no mutant breaks and that the catalogue
    does not give a reason for (under "uncoverable")."""
    covered = {s for m in mutants if not m.equivalent for s in m.statements}
    excused = set(data.get("uncoverable", {}))
    return [s for s in implemented_statements(root) if s not in covered and s not in excused]


# --- the copy of the tree and its build -------------------------------------------------------


def tree_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [f for f in out.split("\0") if f and not f.startswith(NOT_COPIED)]


def sync_copy(root: Path, src: Path) -> None:
    """Makes src a copy of root's tree, rewriting only files that differ (so that the copy's
    build stays incremental)."""
    want = set()
    for rel in tree_files(root):
        a = root / rel
        if not a.is_file():
            continue
        want.add(rel)
        b = src / rel
        data = a.read_bytes()
        if b.is_file() and b.read_bytes() == data:
            continue
        b.parent.mkdir(parents=True, exist_ok=True)
        b.write_bytes(data)
        shutil.copymode(a, b)
    for p in list(src.rglob("*")):
        rel = str(p.relative_to(src))
        if p.is_file() and rel not in want and not rel.startswith(".git"):
            p.unlink()


def configure(src: Path, build: Path, mpi: bool) -> None:
    args = [
        "cmake",
        "-S",
        str(src),
        "-B",
        str(build),
        "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
        "-DDEVSPEC_BUILD_TESTS=OFF",
        "-DDEVSPEC_BUILD_BENCH=OFF",
        # A mutant may leave a variable unused: a warning, not a reason to lose the mutant.
        "-DDEVSPEC_WERROR=OFF",
    ]
    # Said either way: the copy's cache keeps what an earlier run (without a 4-rank mutant)
    # configured.
    args.append("-DDEVSPEC_MPI=" + ("ON" if mpi else "OFF"))
    if shutil.which("ccache"):
        args.append("-DCMAKE_C_COMPILER_LAUNCHER=ccache")
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def build_targets(build: Path, targets: list[str], jobs: int) -> tuple[bool, str]:
    r = subprocess.run(
        ["cmake", "--build", str(build), "-j", str(jobs), "--target", *targets],
        capture_output=True,
        text=True,
    )
    return r.returncode == 0, (r.stdout + r.stderr)[-4000:]


# --- runs of the suite ------------------------------------------------------------------------


def adapters_entry(name: str) -> dict[str, Any]:
    for a in json.loads((TOP / "adapters/adapters.json").read_text())["adapters"]:
        if a["name"] == name:
            return dict(a)
    raise CatalogueError(f"adapters/adapters.json has no adapter {name!r}")


def run_config(
    config: str, spec: dict[str, Any], devspec: Path, build: Path, report: Path
) -> tuple[int, dict[str, str]]:
    """Runs the suite against the copy's refarray under one configuration of the catalogue:
    the exit status and each case's status."""
    entry = adapters_entry(spec["adapter"])
    env = dict(os.environ)
    env.update(entry.get("env", {}))
    env["DEVSPEC_SOURCE"] = str(TOP)
    env["DEVSPEC_BUILD"] = str(build)
    env.setdefault("POCL_DEVICES", "pthread pthread")
    if spec.get("in_process"):
        # The configuration's own settings (its environment, its expectations), with the
        # refarray adapter's shared object loaded in process: the fastest transport.
        so = str(build / "adapters/refarray/devspec_adapter_refarray.so")
        adapter = ["--adapter", so, "--expectations", str(TOP / entry["expectations"])]
    else:
        adapter = ["--adapter", spec["adapter"]]
    cmd = [str(devspec), "run", *adapter, *spec.get("args", []), "--no-progress", "--no-tap"]
    cmd += ["--report", str(report)]
    try:
        r = subprocess.run(
            cmd, env=env, cwd=TOP, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
        )
        rc = r.returncode
    except subprocess.TimeoutExpired:
        rc = 124
    return rc, read_statuses(report)


def read_statuses(report: Path) -> dict[str, str]:
    """Case statuses from a report, or from its streamed .jsonl where the run stopped early
    (an in-process crash)."""
    if report.is_file():
        try:
            return {c["id"]: c["status"] for c in json.loads(report.read_text())["cases"]}
        except (ValueError, KeyError):
            pass
    out = {}
    stream = report.with_suffix(".jsonl")
    if stream.is_file():
        for line in stream.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and "id" in rec and "status" in rec:
                out[rec["id"]] = rec["status"]
    return out


def decision_cases(report: Path) -> set[str]:
    """The cases of a report that rest on a point of spec/decisions.md rather than on a
    statement of the standard (a case's "decision"; the report's rests_on)."""
    try:
        cases = json.loads(report.read_text())["cases"]
    except (OSError, ValueError, KeyError):
        return set()
    return {c["id"] for c in cases if c.get("rests_on") == "decision"}


def changed(base: dict[str, str], now: dict[str, str]) -> list[str]:
    good = ("pass", "xfail", "skip")
    return sorted(k for k, v in now.items() if v not in good and base.get(k) in good)


# --- the run ----------------------------------------------------------------------------------


def apply_edits(src: Path, m: Mutant, where: list[str]) -> dict[Path, str]:
    """Applies m to the copy; returns the original text of each file it changed."""
    saved: dict[Path, str] = {}
    for e, rel in zip(m.edits, where, strict=True):
        p = src / rel
        text = p.read_text()
        saved.setdefault(p, text)
        p.write_text(text.replace(e.find, e.replace, 1))
    return saved


def restore(saved: dict[Path, str]) -> None:
    for p, text in saved.items():
        p.write_text(text)


def run_mutants(
    data: dict[str, Any], mutants: list[Mutant], work: Path, jobs: int, log: Any
) -> tuple[list[Outcome], dict[str, float]]:
    src, build = work / "src", work / "build"
    devspec_build = Path(os.environ.get("DEVSPEC_BUILD", TOP / "build"))
    if not devspec_build.is_absolute():
        devspec_build = TOP / devspec_build
    devspec = devspec_build / "conformance/devspec"
    if not devspec.is_file():
        raise RuntimeError(f"{devspec} is not built (cmake --preset default, then build)")
    configs = data["configurations"]
    used = sorted({r for m in mutants for r in m.runs}, key=list(configs).index)
    mpi = "refarray-mpi4" in used and shutil.which("mpirun") is not None
    t0 = time.monotonic()
    src.mkdir(parents=True, exist_ok=True)
    sync_copy(TOP, src)
    files = source_files(src)
    places = {m.id: locate(m, files) for m in mutants}  # loud failure before any build
    configure(src, build, mpi)
    targets = TARGETS + ([MPI_TARGET] if mpi else [])
    ok, out = build_targets(build, targets, jobs)
    if not ok:
        raise RuntimeError(f"the unmutated copy does not build:\n{out}")
    timings = {"prepare_s": time.monotonic() - t0}
    reports = work / "reports"
    reports.mkdir(exist_ok=True)
    base: dict[str, dict[str, str]] = {}
    t0 = time.monotonic()
    for c in used:
        if c == "refarray-mpi4" and not mpi:
            continue
        rc, st = run_config(c, configs[c], devspec, build, reports / f"base-{c}.json")
        if rc != 0:
            raise RuntimeError(f"the unmutated copy fails the suite under {c} (exit {rc})")
        base[c] = st
    timings["baseline_s"] = time.monotonic() - t0
    outcomes = []
    for i, m in enumerate(mutants, 1):
        t = time.monotonic()
        saved = apply_edits(src, m, places[m.id])
        try:
            ok, out = build_targets(build, targets, jobs)
            if not ok:
                o = Outcome(m.id, "build-error", time.monotonic() - t, killers=[out[-600:]])
            else:
                o = Outcome(m.id, "survived", 0.0)
                for c in m.runs:
                    if c not in base:
                        continue
                    rep = reports / f"{m.id}.{c}.json"
                    rc, st = run_config(c, configs[c], devspec, build, rep)
                    if rc != 0:
                        killers = changed(base[c], st)
                        if m.equivalent and killers and set(killers) <= decision_cases(rep):
                            # Judged by devspec's decisions only, which the cases say.
                            o.by_decision += killers
                            continue
                        o.status, o.killed_by = "killed", c
                        o.killers = killers or [f"(exit {rc}, no case report)"]
                        break
                o.seconds = time.monotonic() - t
        finally:
            restore(saved)
        outcomes.append(o)
        flag = ""
        if m.equivalent and o.status == "killed":
            flag = "  EQUIVALENT KILLED"
        elif not m.equivalent and o.status == "survived":
            flag = "  SURVIVED"
        first = f" by {o.killers[0]}" if o.status == "killed" and o.killers else ""
        print(
            f"[{i}/{len(mutants)}] {m.id}: {o.status}{first} ({o.seconds:.1f} s){flag}",
            file=log,
            flush=True,
        )
    # Leave the copy's build as the tree is, for the next run's incremental build.
    build_targets(build, targets, jobs)
    timings["mutants_s"] = sum(o.seconds for o in outcomes)
    return outcomes, timings


# --- results ----------------------------------------------------------------------------------


def summarise(
    data: dict[str, Any], mutants: list[Mutant], outcomes: list[Outcome]
) -> dict[str, Any]:
    by_id = {o.id: o for o in outcomes}
    cats: dict[str, dict[str, int]] = {}
    for m in mutants:
        o = by_id.get(m.id)
        if not o:
            continue
        c = cats.setdefault(
            m.category,
            {
                "mutants": 0,
                "equivalents": 0,
                "killed": 0,
                "survived": 0,
                "equivalents_killed": 0,
                "errors": 0,
            },
        )
        if m.equivalent:
            c["equivalents"] += 1
            c["equivalents_killed"] += o.status == "killed"
        else:
            c["mutants"] += 1
            c["killed"] += o.status == "killed"
            c["survived"] += o.status == "survived"
        c["errors"] += o.status == "build-error"
    return {"categories": cats}


def failed(mutants: list[Mutant], outcomes: list[Outcome]) -> list[str]:
    eq = {m.id: m.equivalent for m in mutants}
    bad = []
    for o in outcomes:
        if o.status == "build-error":
            bad.append(f"{o.id}: does not build")
        elif eq[o.id] and o.status == "killed":
            bad.append(f"{o.id}: a designed equivalent was killed by {', '.join(o.killers[:3])}")
        elif not eq[o.id] and o.status == "survived":
            bad.append(f"{o.id}: survived the suite")
    return bad


def write_result(
    path: Path,
    data: dict[str, Any],
    mutants: list[Mutant],
    outcomes: list[Outcome],
    timings: dict[str, float],
    scope: str,
) -> dict[str, Any]:
    by_id = {m.id: m for m in mutants}
    result = {
        "tool": "conformance/bench/mutation/mutate.py",
        "scope": scope,
        "commit": git_commit(),
        "timings_s": {k: round(v, 1) for k, v in timings.items()},
        **summarise(data, mutants, outcomes),
        "mutants": [
            {
                "id": o.id,
                "category": by_id[o.id].category,
                "statements": by_id[o.id].statements,
                "equivalent": by_id[o.id].equivalent,
                "status": o.status,
                "killed_by": o.killed_by,
                "killers": o.killers[:20],
                "killer_count": o.killer_count if o.killer_count >= 0 else len(o.killers),
                "seconds": round(o.seconds, 1),
                **({"by_decision": o.by_decision[:20]} if o.by_decision else {}),
            }
            for o in outcomes
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    return result


def merge(
    path: Path, mutants: list[Mutant], outcomes: list[Outcome], timings: dict[str, float]
) -> tuple[list[Outcome], dict[str, float], str]:
    """The published outcomes of path with those of this run in place of theirs, in
    catalogue order; the timings summed; the scope saying how many were re-run."""
    old = json.loads(path.read_text())
    known = {m.id for m in mutants}
    by_id = {
        r["id"]: Outcome(
            r["id"],
            r["status"],
            r["seconds"],
            r.get("killed_by", ""),
            list(r.get("killers", [])),
            r.get("killer_count", -1),
            list(r.get("by_decision", [])),
        )
        for r in old["mutants"]
        if r["id"] in known
    }
    for o in outcomes:
        by_id[o.id] = o
    merged = [by_id[m.id] for m in mutants if m.id in by_id]
    t = {k: float(v) for k, v in old.get("timings_s", {}).items()}
    t["mutants_s"] = sum(o.seconds for o in merged)
    whole = "the whole catalogue" if len(merged) == len(mutants) else "part of the catalogue"
    scope = f"{whole} ({len(outcomes)} of them re-run after the first run)"
    return merged, t, scope


def git_commit() -> str:
    r = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=TOP, capture_output=True, text=True
    )
    return r.stdout.strip()


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def write_page(
    path: Path,
    data: dict[str, Any],
    mutants: list[Mutant],
    result: dict[str, Any],
    uncovered: list[str],
) -> None:
    by_id = {m.id: m for m in mutants}
    rows = {r["id"]: r for r in result["mutants"]}
    lines = [
        "# Mutation runs of refarray",
        "",
        "Generated by `conformance/bench/mutation/mutate.py --publish` (do not edit; see "
        "`conformance/bench/mutation/README.md`). Each mutant breaks one device rule of "
        "`spec/statements.json` in refarray, the reference library; a mutant is *killed* when "
        "the suite, run against it, exits with unexpected results. A designed *equivalent* "
        "changes an outcome the standard leaves open and must survive: one that is killed "
        "shows a case stricter than the standard.",
        "",
        f"Commit {result['commit']}, {result['scope']}: {len(rows)} mutants, "
        f"{sum(1 for r in rows.values() if r['equivalent'])} of them equivalents; "
        f"{result['timings_s'].get('mutants_s', 0):.0f} s of mutant runs.",
        "",
        "| category | what it breaks | mutants | killed | kill rate | equivalents | "
        "equivalents killed |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    tot = {"mutants": 0, "killed": 0, "equivalents": 0, "equivalents_killed": 0}
    for cat, what in data["categories"].items():
        c = result["categories"].get(cat)
        if not c:
            continue
        for k in tot:
            tot[k] += c[k]
        lines.append(
            f"| {cat} | {what} | {c['mutants']} | {c['killed']} | "
            f"{pct(c['killed'], c['mutants'])} | {c['equivalents']} | "
            f"{c['equivalents_killed']} |"
        )
    lines.append(
        f"| **all** | | {tot['mutants']} | {tot['killed']} | "
        f"{pct(tot['killed'], tot['mutants'])} | {tot['equivalents']} | "
        f"{tot['equivalents_killed']} |"
    )
    surv = [r for r in rows.values() if not r["equivalent"] and r["status"] != "killed"]
    lines += ["", "## Survivors", ""]
    if not surv:
        lines.append("None: the suite kills every mutant of the catalogue that breaks a rule.")
    for r in surv:
        m = by_id[r["id"]]
        why = f" {m.note}" if m.note else ""
        lines.append(
            f"- `{m.id}` ({', '.join(m.statements)}, {r['status']}): {m.description}.{why}"
        )
    ekill = [r for r in rows.values() if r["equivalent"] and r["status"] == "killed"]
    lines += ["", "## Equivalents killed (cases stricter than the standard)", ""]
    if not ekill:
        lines.append("None: every designed equivalent survives.")
    for r in ekill:
        m = by_id[r["id"]]
        lines.append(
            f"- `{m.id}` ({', '.join(m.statements)}): {m.description}; killed by "
            f"{', '.join('`' + k + '`' for k in r['killers'][:5])}."
        )
    decided = [r for r in rows.values() if r["equivalent"] and r.get("by_decision")]
    if decided:
        lines += [
            "",
            "Equivalents that survive the standard's text but fail cases resting on a point of "
            "`spec/decisions.md` (each case names it in its `decision`): the outcome the "
            "standard leaves open is one devspec settles, openly.",
            "",
        ]
        for r in decided:
            m = by_id[r["id"]]
            lines.append(
                f"- `{m.id}` ({', '.join(m.statements)}): {m.description}; fails "
                f"{', '.join('`' + k + '`' for k in r['by_decision'][:5])}."
            )
    lines += ["", "## Must statements without a mutant", ""]
    unc = data.get("uncoverable", {})
    if unc:
        lines.append("No mutant can break these in refarray; why, per statement:")
        lines.append("")
        for s, why in unc.items():
            lines.append(f"- {s}: {why}")
    if uncovered:
        lines.append("")
        lines.append("Not yet covered: " + ", ".join(uncovered) + ".")
    lines += [
        "",
        "## Every mutant",
        "",
        "| mutant | category | statements | result | cases that catch it |",
        "| --- | --- | --- | --- | ---: |",
    ]
    for r in rows.values():
        m = by_id[r["id"]]
        eq = " (equivalent)" if m.equivalent else ""
        first = f"{r['killer_count']}: `{r['killers'][0]}`" if r["killers"] else "0"
        if r["status"] != "killed":
            first = "0"
        lines.append(
            f"| `{m.id}`{eq} | {m.category} | {', '.join(m.statements)} | {r['status']} | {first} |"
        )
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="check the catalogue applies")
    ap.add_argument("--coverage", action="store_true", help="must statements with no mutant")
    ap.add_argument("--list", action="store_true", help="print the catalogue")
    ap.add_argument("--sample", action="store_true", help="only the CI sample")
    ap.add_argument("--mutant", action="append", default=[], help="only this mutant (repeat)")
    ap.add_argument("--category", action="append", default=[], help="only this category")
    ap.add_argument(
        "--publish", action="store_true", help="write reports/mutation.json and reports/MUTATION.md"
    )
    ap.add_argument("--result", type=Path, help="the result file (JSON)")
    ap.add_argument("--page", type=Path, help="the Markdown page")
    ap.add_argument(
        "--work",
        type=Path,
        help="the copy of the tree and its build (default: BUILD/mutation, BUILD "
        "being DEVSPEC_BUILD or build/)",
    )
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    try:
        data, mutants = load_catalogue()
    except (ValueError, KeyError) as e:
        print(f"mutate: {CATALOGUE}: {e}", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            flags = ("E" if m.equivalent else "-") + ("S" if m.sample else "-")
            print(f"{flags} {m.category:18} {m.id:40} {','.join(m.statements)}")
        return 0
    if args.check:
        problems = check(data, mutants)
        for p in problems:
            print(f"mutate: {p}", file=sys.stderr)
        if problems:
            return 2
        print(f"catalogue: {len(mutants)} mutants, every snippet found exactly once")
        return 0
    if args.coverage:
        missing = coverage(data, mutants)
        for s in missing:
            print(
                f"mutate: must statement {s} (implemented by refarray) has no mutant and no "
                "reason under 'uncoverable'",
                file=sys.stderr,
            )
        if missing:
            return 1
        n = len(implemented_statements())
        print(
            f"coverage: each of the {n} must statements refarray implements has a mutant "
            f"or a reason ({len(data.get('uncoverable', {}))} with a reason)"
        )
        return 0
    chosen = mutants
    if args.sample:
        chosen = [m for m in chosen if m.sample]
    if args.mutant:
        unknown = set(args.mutant) - {m.id for m in mutants}
        if unknown:
            print(f"mutate: unknown mutant {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        chosen = [m for m in chosen if m.id in args.mutant]
    if args.category:
        chosen = [m for m in chosen if m.category in args.category]
    build = Path(os.environ.get("DEVSPEC_BUILD", "build"))
    work = args.work or ((build if build.is_absolute() else TOP / build) / "mutation")
    try:
        outcomes, timings = run_mutants(data, chosen, work.resolve(), args.jobs, sys.stderr)
    except CatalogueError as e:
        print(f"mutate: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, subprocess.CalledProcessError) as e:
        print(f"mutate: {e}", file=sys.stderr)
        return 3
    scope = (
        "the CI sample"
        if args.sample
        else ("the whole catalogue" if chosen == mutants else "part of the catalogue")
    )
    result_path = args.result or (
        TOP / "reports/mutation.json" if args.publish else work / "mutation.json"
    )
    run_s = sum(timings.values())
    shown, all_outcomes = chosen, outcomes
    if args.publish and chosen != mutants and result_path.is_file():
        # Part of the catalogue re-run: its outcomes replace those of the published result,
        # and the page shows the whole (the mutants since removed from the catalogue are
        # dropped).
        all_outcomes, timings, scope = merge(result_path, mutants, outcomes, timings)
        ran = {o.id for o in all_outcomes}
        shown = [m for m in mutants if m.id in ran]
    result = write_result(result_path, data, shown, all_outcomes, timings, scope)
    page = args.page or (TOP / "reports/MUTATION.md" if args.publish else None)
    if page:
        write_page(page, data, shown, result, coverage(data, mutants))
    c = result["categories"]
    for cat, v in c.items():
        print(
            f"{cat}: {v['killed']}/{v['mutants']} killed, "
            f"{v['equivalents_killed']}/{v['equivalents']} equivalents killed"
        )
    bad = failed(chosen, outcomes)
    for b in bad:
        print(f"mutate: {b}", file=sys.stderr)
    print(
        f"mutation: {len(chosen)} mutants in {run_s:.0f} s "
        f"({timings.get('prepare_s', 0):.0f} s to prepare the copy); result in {result_path}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
