#!/usr/bin/env python3
"""Writes reports/SUMMARY.md, the compliance matrix, from devspec's JSON reports.

    summary.py --source TOP [--startup FILE] [--zero-code FILE] --out SUMMARY.md REPORT.json...

Everything in the summary is derived from the reports (their footers' per-profile verdicts
and counts); nothing is a second source of truth. --startup names a JSON file of start-up
times measured by measure_startup() (seconds from starting the adapter program to its reply
to 'hello': interpreter start and the library's import), so the table can show the suite's
own time apart from the import.

    summary.py --source TOP --measure-startup NAME... > startup.json
    summary.py --source TOP --relativise REPORT.json...

--zero-code names the data of the libraries run from PyPI with no code (scripts/zero-code.py;
default reports/zero-code.json), rendered as the section "Libraries from PyPI, zero code".

--relativise rewrites reports in place so that they name no path of the machine that ran
them: every string that starts with the source tree becomes relative to it, and the host name
is removed. Standard-library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

# A value read from or written as JSON (a report, adapters.json, a times file).
Json = Any

def by_refusal(report: dict[str, Any]) -> int:
    """The passes that ended at a stop alternative where the library raised."""
    n = 0
    for case in report.get("cases", []):
        steps = case.get("steps") or []
        if (case.get("observed_status") == "pass" and "stopped_at" in case and steps
                and steps[-1].get("outcome") == "raised"):
            n += 1
    return n


STATUSES = ("pass", "fail", "error", "skip", "xfail", "xpass", "crash", "timeout", "lacks")


def counts(report: dict[str, Any]) -> dict[str, int]:
    """The footer's counts, with an expected failure whose library lacked what the case needed
    counted under lacks (as "N (M expected)") instead of xfail: a library that lacks a
    function is not a library that computes it wrong, expected or not."""
    c: dict[str, int] = dict(report["footer"]["counts"])
    expected = sum(1 for case in report.get("cases", [])
                   if case.get("status") == "xfail" and case.get("observed_status") == "lacks")
    c["xfail"] = c.get("xfail", 0) - expected
    c["lacks"] = c.get("lacks", 0) + expected
    c["lacks_expected"] = expected
    return c


def cell(c: dict[str, int], status: str) -> str:
    if status == "lacks" and c.get("lacks_expected"):
        return "%d (%d expected)" % (c["lacks"], c["lacks_expected"])
    return str(c.get(status, 0))


def load(path: str) -> Json:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# -- relativising --------------------------------------------------------------------------

def relativise(value: Json, top: str, moved: str | None = None) -> Json:
    """VALUE with the source tree's path made relative wherever it stands, inside a text too
    (a traceback's "raised at /path/to/devspec/adapters/..." names a file of the tree); and
    MOVED, the folder the run wrote the report in before it was published, as reports/ (a
    reproducer's command names the report's path)."""
    if isinstance(value, str):
        if moved:
            value = value.replace(moved.rstrip(os.sep) + os.sep, "reports" + os.sep)
        if value == top:
            return "."
        if value.startswith(top + os.sep):
            return value[len(top) + 1:]
        return value.replace(top + os.sep, "")
    if isinstance(value, list):
        return [relativise(v, top, moved) for v in value]
    if isinstance(value, dict):
        return {k: relativise(v, top, moved) for k, v in value.items()}
    return value


def relativise_file(path: str, top: str, moved: str | None = None) -> None:
    report = relativise(load(path), top, moved)
    env = report.get("header", {}).get("environment")
    if isinstance(env, dict) and "hostname" in env:
        env["hostname"] = None
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


# -- start-up times ------------------------------------------------------------------------

def adapter_entry(top: str, name: str) -> Json:
    registry = load(os.path.join(top, "adapters", "adapters.json"))
    for entry in registry["adapters"]:
        if entry["name"] == name:
            return entry
    raise SystemExit("summary.py: no adapter named '%s' in adapters/adapters.json" % name)


def expand(s: str, top: str, build: str) -> str:
    return s.replace("${SOURCE}", top).replace("${BUILD}", build)


def measure_startup(top: str, build: str, name: str, runs: int = 3) -> float | None:
    """Median seconds from starting the adapter to its reply to 'hello'; None if it fails."""
    entry = adapter_entry(top, name)
    argv = [expand(a, top, build) for a in entry["command"]]
    env = dict(os.environ)
    env.update({k: expand(v, top, build) for k, v in entry.get("env", {}).items()})
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, env=env)
        except OSError:
            return None
        assert proc.stdin is not None and proc.stdout is not None  # both are PIPE
        try:  # an adapter that cannot start (one unavailable here) may be gone already
            proc.stdin.write(b'{"id":0,"op":"hello","args":{"protocol":1}}\n')
            proc.stdin.flush()
            line = proc.stdout.readline()
            elapsed = time.perf_counter() - start
            proc.stdin.write(b'{"id":1,"op":"bye"}\n')
            proc.stdin.close()
            proc.stdout.read()
        except OSError:
            proc.kill()
            proc.wait()
            return None
        proc.wait()
        try:
            if not json.loads(line).get("ok"):
                return None
        except ValueError:
            return None
        times.append(elapsed)
    return statistics.median(times)


# -- the summary ---------------------------------------------------------------------------

def apart(p: Json) -> str:
    """The failures a verdict never counts: cases resting on a should or on a devspec
    decision (spec/decisions.md, Runner and reports 35)."""
    parts = []
    if p.get("should_failed"):
        parts.append("short of a should: %d" % p["should_failed"])
    if p.get("differs_from_reading"):
        parts.append("differs from the reference reading: %d" % p["differs_from_reading"])
    return "; " + "; ".join(parts) if parts else ""


def verdict_cell(p: Json) -> str:
    if p["verdict"] == "conforms":
        return "**conforms** (%d/%d%s)" % (p["passed"], p["cases"], apart(p))
    parts: list[str] = []
    if p.get("missing_features"):
        parts.append("lacks " + ", ".join("`%s`" % f for f in p["missing_features"]))
    if p.get("failed"):
        parts.append("%d failing" % p["failed"])
    if p.get("skipped"):
        parts.append("%d skipped" % p["skipped"])
    if p.get("not_run"):
        parts.append("%d not run" % p["not_run"])
    return "no: " + "; ".join(parts or ["see report"]) + " (%d/%d pass%s)" % (
        p["passed"], p["cases"], apart(p))


def fmt_seconds(x: float | None) -> str:
    return "–" if x is None else "%.2f" % x


# -- function families -----------------------------------------------------------------------

def family_features(top: str) -> list[tuple[str, str]]:
    """(family, feature) of each family of spec/signatures.json that has a feature, in the
    table's order; none when the table is not there."""
    path = os.path.join(top, "spec", "signatures.json")
    if not os.path.exists(path):
        return []
    families = load(path).get("families", {})
    return [(name, f["feature"]) for name, f in families.items() if f.get("feature")]


FAMILY_COLUMNS = ("pass", "fail", "lacks", "skip")


def family_counts(report: Json, feature: str) -> dict[str, int]:
    """The cases of one family (those with its feature) by what the library did: pass, fail
    (a wrong answer: fail, error, crash, timeout), lacks, skip; and of fail and lacks how many
    the expectations file lists (fail_expected, lacks_expected)."""
    c = dict.fromkeys((*FAMILY_COLUMNS, "fail_expected", "lacks_expected"), 0)
    for case in report.get("cases", []):
        if feature not in (case.get("features") or []):
            continue
        seen = case.get("observed_status", case.get("status"))
        kind = seen if seen in ("pass", "lacks", "skip") else "fail"
        c[kind] += 1
        if case.get("status") == "xfail" and kind in ("fail", "lacks"):
            c[kind + "_expected"] += 1
    return c


def family_cell(c: dict[str, int], column: str) -> str:
    expected = c.get(column + "_expected", 0)
    return "%d (%d expected)" % (c[column], expected) if expected else str(c[column])


def families_section(reports: list[tuple[str, Json]], families: list[tuple[str, str]]) -> str:
    """SUMMARY.md's tables of the generated function cases, one per function family, each with
    a row per library; first the totals over every family."""
    if not families or not reports:
        return ""
    labels = [r["header"]["adapter"].get("label") or r["header"]["library"]["name"]
              for _, r in reports]
    head = ["| library | pass | fail | lacks | skip |", "| --- | ---: | ---: | ---: | ---: |"]
    out = ["## Function families", "",
           "The cases generated from the standard's signature table (`spec/signatures.json`, "
           "`conformance/cases/functions-*.json`): the device rules of every function and "
           "array method, grouped by the table's families. *fail* is a wrong answer (fail, "
           "error, crash, timeout), *lacks* a function, method, dtype or keyword the library "
           "does not have (in parentheses, how many of them its expectations file lists); "
           "*skip* a family the library does not claim, or a case that needs more devices "
           "than it has.", "", "### All families", "", *head]
    per = [[family_counts(r, feature) for _, feature in families] for _, r in reports]
    for label, rows in zip(labels, per, strict=True):
        total = {k: sum(row[k] for row in rows) for k in rows[0]}
        out.append("| %s | %s |" % (label, " | ".join(family_cell(total, k)
                                                       for k in FAMILY_COLUMNS)))
    for i, (family, feature) in enumerate(families):
        out += ["", "### %s (`%s`)" % (family, feature), "", *head]
        for label, rows in zip(labels, per, strict=True):
            c = rows[i]
            out.append("| %s | %s |" % (label, " | ".join(family_cell(c, k)
                                                           for k in FAMILY_COLUMNS)))
    out.append("")
    return "\n".join(out)


# -- arrays across libraries (DLPack) ---------------------------------------------------------

# The exchange cases (conformance/cases/dlpack-exchange.json, exchange.PEER.KIND) by kind: the
# column's title, with L the library of the report and P the peer.
EXCHANGE_KINDS = (
    ("to-peer", "L → P"),
    ("from-peer", "P → L"),
    ("to-peer-host-copy", "L → P, host copy"),
    ("opencl-refused", "P's OpenCL array refused by L"),
    ("opencl-host-copy", "P's OpenCL array, host copy, → L"),
)


def exchange_cell(case: Json) -> str:
    """What one exchange case says: the array crossed and landed where it should (values and
    device), it was refused (with the exception's kind) or it landed wrong; '(expected)' when
    the library's expectations file lists the failure; '–' when it did not run."""
    seen = case.get("observed_status", case.get("status"))
    steps = case.get("steps") or []
    if seen == "pass":  # a crossing, or a refusal the case allows (a device the peer lacks)
        raised = bool(steps) and steps[-1].get("outcome") == "raised"
        return "refused, as allowed" if raised else "crosses"
    if seen == "skip":
        return "–"
    observed = case.get("observed")
    error = observed.get("error") if isinstance(observed, dict) else None
    if isinstance(error, dict):
        text = "refused (%s)" % error.get("kind", "error")
    elif seen == "lacks":
        text = "lacks"
    elif seen in ("crash", "timeout", "error"):
        text = seen
    else:
        text = "lands wrong"
    return text + (" (expected)" if case.get("status") == "xfail" else "")


def exchange_section(reports: list[tuple[str, Json]]) -> str:
    """SUMMARY.md's table of arrays crossing between libraries through DLPack (array.exchange):
    a row per pair (the library of a report, a peer it reached), a column per kind of
    crossing; pairs where no case ran are left out."""
    rows = []
    for _, r in reports:
        label = r["header"]["adapter"].get("label") or r["header"]["library"]["name"]
        pairs: dict[str, dict[str, Json]] = {}
        for case in r.get("cases", []):
            parts = case.get("id", "").split(".")
            if len(parts) == 3 and parts[0] == "exchange":
                pairs.setdefault(parts[1], {})[parts[2]] = case
        for peer, cases in pairs.items():
            cells = [exchange_cell(cases[k]) if k in cases else "–" for k, _ in EXCHANGE_KINDS]
            if any(x != "–" for x in cells):
                rows.append("| %s | %s | %s |" % (label, peer, " | ".join(cells)))
    if not rows:
        return ""
    return "\n".join([
        "## Arrays across libraries (DLPack)", "",
        "Each library's arrays handed through DLPack to a peer library in the same process and "
        "back (`array.exchange`, `conformance/cases/dlpack-exchange.json`): L is the library "
        "of the row, P the peer (NumPy, torch and JAX where the adapter's interpreter imports "
        "them, refarray through its C library). *crosses*: the receiving library holds the "
        "values exactly, on the device DLPack says (from_dlpack with `device=None` keeps the "
        "producer's device; a host copy lands on `(kDLCPU, 0)`); *refused*: the consumer or "
        "the producer raised (the kind in parentheses; refusing refarray's OpenCL array is "
        "right, with BufferError); *lands wrong*: another device or other values; *(expected)*: "
        "listed in the library's expectations file; *–*: not run (a feature the library does "
        "not claim).", "",
        "| library | peer | %s |" % " | ".join(t for _, t in EXCHANGE_KINDS),
        "| --- | --- |%s" % (" --- |" * len(EXCHANGE_KINDS)),
        *rows, ""])


# Libraries whose adapters split the features between runs: the runs that together give the
# library its verdict (devspec verdict; spec/decisions.md, Runner and reports 40), each
# library's verdict_across in libraries/*.json. OneFlow's device features run in one
# process, its global arrays on 4 ranks.
# BEGIN generated by libraries/tools/gen_libraries.py from libraries/*.json; edit those
MERGED: dict[str, tuple[str, ...]] = {
    "OneFlow": ("oneflow", "oneflow-4"),
}
# END generated


def merged_section(reports: list[tuple[str, Json]], profiles: list[str],
                   devspec: str | None) -> str:
    """One row per library of MERGED whose reports are all here: `devspec verdict` of them."""
    by_label = {(r["header"]["adapter"].get("label") or r["header"]["library"]["name"]): path
                for path, r in reports}
    rows = []
    for name, labels in MERGED.items():
        if devspec is None or not all(label in by_label for label in labels):
            continue
        proc = subprocess.run([devspec, "verdict", *(by_label[x] for x in labels), "--json"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit("summary.py: devspec verdict failed: " + proc.stderr.strip())
        got = json.loads(proc.stdout)["profiles"]
        rows.append("| %s (%s) | %s |" % (name, " + ".join(labels), " | ".join(
            "–" if p not in got else verdict_cell(got[p]) for p in profiles)))
    if not rows:
        return ""
    out = ["", "### One verdict across runs", "",
           "A library whose adapters split its features between runs is judged once over "
           "their reports together (`devspec verdict`): the features any of them claims, each "
           "case's result from the run that ran it, the worst where several did.", "",
           "| library | " + " | ".join(profiles) + " |",
           "| --- | " + " | ".join("---" for _ in profiles) + " |", *rows, ""]
    return "\n".join(out)


# Adapter settings that make a run describe something other than the library's defaults, as
# adapters.json's env sets them: the summary labels the run with them.
CONFIGURED = {"JAX_ENABLE_X64": "64-bit"}


def configured(top: str | None, label: str) -> str:
    """' (64-bit)' for an adapter whose env turns on JAX's 64-bit mode; '' otherwise."""
    if top is None:
        return ""
    try:
        env = adapter_entry(top, label).get("env", {})
    except SystemExit:  # a report of an adapter adapters.json no longer names
        return ""
    marks = [mark for key, mark in CONFIGURED.items() if env.get(key) not in (None, "", "0")]
    return " (%s)" % ", ".join(marks) if marks else ""


WRONG_SHOWN = 40  # the wrong verdicts' case IDs listed per library; zero-code.json has all


def zero_code_verdict(p: Json) -> str:
    """A profile's verdict in words, with what the library lacks by the standard's names
    (Array.device, dtype int64), then verdict_cell's counts."""
    if p["verdict"] == "conforms":
        return verdict_cell(p)
    detail = verdict_cell(p)[len("no: "):].replace("lacks `", "not claimed: `", 1)
    lacks = ", ".join(p.get("lacks") or [])
    return "%s%s: %s" % (p["verdict"], ", lacks " + lacks if lacks else "", detail)


def zero_code_section(data: Json | None) -> str:
    """SUMMARY.md's table of the libraries from PyPI run with no code (scripts/zero-code.py,
    reports/zero-code.json): per library the counts, the verdict of the newest array API
    profile it declares, the reproducers of its failures and the cases it answers wrong."""
    if not data or not data.get("libraries"):
        return ""
    out = ["", "## Libraries from PyPI, zero code", "",
           "Each library in a fresh virtual environment with what PyPI has (`pip install` "
           "of the packages named), driven as the README tells a maintainer: `devspec run "
           "--adapter python:SPEC --python \"$(which python)\"`, no code and no expectations "
           "file, then `devspec repro` of every failure, each reproducer run in a plain "
           "interpreter of that environment (`python -I`). Generated by `scripts/zero-code.py` "
           "into `zero-code.json`. *wrong* counts the failures of cases resting on a must of "
           "the standard; *should* those resting on a should; *differs* those resting on a "
           "devspec decision where the standard is silent; *lacks* the cases the library "
           "could not run for want of a function, method, dtype or keyword; *want devices* the "
           "cases skipped because they need more devices than the library gave. *repro* is "
           "reproducers that failed as reported / run (of written: every failure's is run, "
           "three per thing lacked of the lacks; partial: stopped at a step only devspec "
           "provides). `python:jax.numpy` is default JAX (no 64-bit mode, one "
           "device); the `jax` run above turns 64-bit types on, its adapter's documented "
           "choice.", "",
           "| library (python:SPEC) | version | declares | devices | pass | wrong | should | "
           "differs | lacks | want devices | other skips | repro | verdict (declared version) |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
           "| --- |"]
    wrong: list[str] = []
    for e in data["libraries"]:
        env = " ".join("%s=%s" % kv for kv in sorted(e.get("env", {}).items()))
        name = "%s (`%s`%s)" % (e["name"], e["spec"], ", " + env if env else "")
        if "unavailable" in e:
            out.append("| %s | – | – | – | %s |" % (name, " | ".join(["–"] * 8) + " | "
                                                  + e["unavailable"].replace("|", "\\|")))
            continue
        c = e["counts"]
        r = e.get("reproducers", {})
        ran = r.get("run", r.get("written", 0))
        repro = "%d/%d" % (r.get("as_reported", 0), ran)
        if ran < r.get("written", 0):
            repro += " of %d" % r["written"]
        if r.get("partial"):
            repro += " (%d partial)" % r["partial"]
        declared = e.get("array_api_version") or "–"
        profile = e.get("profiles", {}).get("array-api-%s" % declared)
        out.append("| %s | %s | %s | %d | %s | %s |" % (
            name, e.get("version") or "?", declared, len(e.get("devices", [])),
            " | ".join(str(c[k]) for k in ("pass", "wrong", "should", "differs", "lacks",
                                           "want_devices", "skip")),
            repro + " | " + (zero_code_verdict(profile) if profile else "–")))
        if e.get("wrong"):
            shown = e["wrong"][:WRONG_SHOWN]
            more = len(e["wrong"]) - len(shown)
            wrong.append("- %s: %s%s" % (e["name"], ", ".join("`%s`" % i for i in shown),
                                         " and %d more (zero-code.json)" % more if more else ""))
        bad = r.get("not_as_reported") or {}
        if bad:
            wrong.append("  - reproducers that did not fail as reported: " + "; ".join(
                "`%s` (%s)" % kv for kv in sorted(bad.items())))
    if wrong:
        out += ["", "The wrong verdicts, by case ID (each has its reproducer: `devspec repro "
                "REPORT.json --case ID`):", "", *wrong]
    out += ["", ""]
    return "\n".join(out)


def summary(reports: list[tuple[str, Json]], startup: dict[str, float | None],
            wall: dict[str, float], families: list[tuple[str, str]] | None = None,
            devspec: str | None = None, top: str | None = None,
            zero_code: Json | None = None) -> str:
    rows: list[tuple[str, Json]] = []
    profiles: list[str] = []
    for path, report in reports:
        for name in report["footer"].get("profiles", {}):
            if name not in profiles:
                profiles.append(name)
        rows.append((path, report))
    out = ["# devspec compliance summary", ""]
    out.append("Generated by `scripts/publish-reports.sh` from the JSON reports beside this "
               "file; do not edit by hand. Suite commit `%s`." %
               (rows[0][1]["header"]["suite"].get("commit") or "?")[:12] if rows else "?")
    out.append("")
    out.append("Counts are per case: *xfail* is a failure listed, with its reason, in the "
               "library's expectations file (`conformance/expectations/`), where the library "
               "answered and the answer was wrong; *lacks* is a case the library could not run "
               "because it does not have a function, method, dtype or keyword the case needs "
               "(in parentheses, how many of them its expectations file lists): a gap, not a "
               "wrong answer; *skip* is a "
               "case whose features the library does not claim or that needs more devices "
               "than it has. Start-up is the time from starting the adapter to its answer to "
               "`hello` (interpreter start and the library's import), the median of three "
               "separate starts; *cases* is the time spent running the cases (the sum of the "
               "report's per-case durations: the suite without the import); *run* is the "
               "wall time of the whole `devspec run`, start-up and case loading included. "
               "Times are from one run on the machine that generated this file. *of them by "
               "refusal* counts the passes that ended at a `stop` alternative where the "
               "library raised: the case checked only that it refused (the report's `steps` "
               "say which alternative).")
    out.append("")
    out.append("| library | version | devices | pass | of them by refusal | fail | error | skip "
               "| xfail | xpass | crash | timeout | lacks | gate | start-up s | cases s | run s |")
    out.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| ---: | --- | ---: | ---: | ---: |")
    for path, r in rows:
        h, f = r["header"], r["footer"]
        label = h["adapter"].get("label") or h["library"]["name"]
        c = counts(r)
        up = startup.get(label)
        elapsed = wall.get(label, f.get("elapsed"))
        own = sum(case.get("duration") or 0.0 for case in r.get("cases", []))
        gate = "ok" if not f.get("unexpected") else "%d unexpected" % len(f["unexpected"])
        if not f.get("complete", True):
            gate += ", incomplete"
            # An adapter whose environment this machine cannot make says so before hello
            # ("NAME is unavailable: WHY", adapters/python/oneflow-python): name the reason.
            error = h["adapter"].get("error") or ""
            mark = " is unavailable: "
            if mark in error:
                gate = "unavailable: " + error[error.index(mark) + len(mark):].strip()
        devices = ", ".join("`%s`" % d.get("str", d.get("handle", "?"))
                            for d in h.get("devices", []))
        out.append("| [%s](%s)%s | %s | %s | %s | %s | %s |" % (
            label, os.path.basename(path), configured(top, label),
            h["library"].get("version", "?"), devices or "–",
            " | ".join(cell(c, s) + (" | %d" % by_refusal(r) if s == "pass" else "")
                       for s in STATUSES), gate,
            " | ".join(fmt_seconds(x) for x in (up, own, elapsed))))
    out.append("")
    out.append("## Profiles")
    out.append("")
    out.append("A library conforms to a profile when it claims every required feature and "
               "every case of those features that rests on a must of the standard passes (see "
               "`spec/profiles.json`). Cases resting on a should, and cases resting on a devspec "
               "decision where the standard is silent (`spec/decisions.md`), are counted apart: "
               "\"short of a should\" and \"differs from the reference reading\", never as "
               "failures of a must.")
    out.append("")
    out.append("| library | " + " | ".join(profiles) + " |")
    out.append("| --- | " + " | ".join("---" for _ in profiles) + " |")
    for _path, r in rows:
        label = r["header"]["adapter"].get("label") or r["header"]["library"]["name"]
        cells = []
        for p in profiles:
            v = r["footer"].get("profiles", {}).get(p)
            cells.append("–" if v is None else verdict_cell(v))
        out.append("| %s%s | %s |" % (label, configured(top, label), " | ".join(cells)))
    out.append("")
    return ("\n".join(out) + merged_section(rows, profiles, devspec)
            + zero_code_section(zero_code)
            + families_section(rows, families or []) + exchange_section(rows))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, help="the devspec source tree")
    ap.add_argument("--build", default=None, help="the build tree (default SOURCE/build)")
    ap.add_argument("--out", help="where to write the summary (Markdown)")
    ap.add_argument("--startup", help="JSON file of start-up times by adapter name")
    ap.add_argument("--wall", help="JSON file of each run's wall time by adapter name")
    ap.add_argument("--measure-startup", action="store_true",
                    help="print the start-up times of the adapters named as arguments")
    ap.add_argument("--zero-code", metavar="FILE",
                    help="the zero-code runs' data (scripts/zero-code.py; default "
                         "SOURCE/reports/zero-code.json where it exists)")
    ap.add_argument("--moved-from", metavar="DIR",
                    help="with --relativise: the folder the reports were written in before "
                         "they were moved into reports/")
    ap.add_argument("--relativise", action="store_true",
                    help="rewrite the reports named as arguments without machine paths")
    ap.add_argument("items", nargs="*")
    args = ap.parse_args(argv)
    top = os.path.realpath(args.source)
    build = os.path.realpath(args.build or os.path.join(top, "build"))
    if args.measure_startup:
        json.dump({n: measure_startup(top, build, n) for n in args.items}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if args.relativise:
        for path in args.items:
            relativise_file(path, top, args.moved_from)
        return 0
    if not args.out:
        ap.error("--out is required")
    reports: list[tuple[str, Json]] = []
    for path in args.items:
        try:
            reports.append((path, load(path)))
        except (OSError, ValueError) as exc:
            sys.stderr.write("summary.py: %s: cannot read the report: %s\n" % (path, exc))
            return 1
    startup = load(args.startup) if args.startup else {}
    wall = load(args.wall) if args.wall else {}
    devspec = os.path.join(build, "conformance", "devspec")
    zero_code = args.zero_code or os.path.join(top, "reports", "zero-code.json")
    text = summary(reports, startup, wall, family_features(top),
                   devspec if os.access(devspec, os.X_OK) else None, top,
                   load(zero_code) if os.path.exists(zero_code) else None)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
