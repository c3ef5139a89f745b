"""intermittent-crash entries: a crash the expectations file says may strike at random is run
once more on a fresh worker, the second result being the case's and the first kept in its
record (spec/decisions.md, Runner and reports 46). The fake adapter's "crash-once:NAME" and
"reset-crash-once:NAME" crash the first time only (a marker file per NAME)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

from support import (
    CASES,
    Env,
    check_junit,
    check_schema,
    check_tap,
    fake_cmd,
    load_report,
    report_core,
    statuses,
    why,
    write_cases,
)


def parse_case(cid: str, text: str) -> dict[str, Any]:
    return {"id": cid, "description": "device.parse of %r" % text, "spec": ["T-STR-1"],
            "features": ["device-string"],
            "steps": [{"op": "device.parse", "args": {"text": text}}]}


def write(path: str, text: str) -> str:
    with open(path, "w") as f:
        f.write(text)
    return path


def run(env: Env, name: str, cases: list[dict[str, Any]], entries: str,
        *extra: str) -> tuple[int, str, str, dict[str, Any]]:
    """Runs CASES (written to a folder of NAME's own, as rerun.json) against the fake adapter
    with the expectations ENTRIES; the markers of its crash-once texts in that folder too, so
    each run crashes anew."""
    os.makedirs(env.path(name))
    suite = write_cases(env.path(os.path.join(name, "rerun.json")), "Crashes that strike once.",
                        cases)
    exp = write(env.path(name + ".txt"), entries)
    once = env.path(name + ".once")
    os.makedirs(once)
    rep = env.path(name + ".json")
    rc, out, err = env.run(["run", "--cases", suite, "--adapter-cmd", fake_cmd("--once", once),
                            "--expectations", exp, "--report", rep,
                            "--junit", env.path(name + ".xml"), *extra])
    return rc, out, err, load_report(rep)


FLAKY = [parse_case("r.first", "cpu"), parse_case("r.flaky", "crash-once:a"),
         parse_case("r.after", "cpu")]


def test_rerun_passes(env: Env) -> None:
    """A case that crashes once where an entry says it may is run again and passes; its
    record keeps the first crash, and TAP, JUnit and the summary say so."""
    rc, out, err, r = run(env, "flaky", FLAKY,
                          "r.flaky intermittent-crash # the fake crashes once\n")
    st = statuses(r)
    assert st == {"r.first": "pass", "r.flaky": "pass", "r.after": "pass"}, why(
        "the rerun's result is the case's: pass, never xpass", "every case passes", st)
    assert rc == 0, why("nothing unexpected: exit 0", 0, (rc, err[-500:]))
    case = {c["id"]: c for c in r["cases"]}["r.flaky"]
    first = case.get("first_run")
    assert first is not None, why("the record keeps the first run", "first_run", case)
    assert (first["status"], first["signal"], first["step"], first["op"]) == (
        "crash", 11, 0, "device.parse"), why(
        "first_run: a crash by SIGSEGV at step 0", ("crash", 11, 0, "device.parse"), first)
    assert "crashing this once" in first.get("stderr", ""), why(
        "first_run keeps the crash's stderr", "fake: crashing this once", first)
    assert "SIGSEGV" in first["death"] and "died during device.parse" in first["reason"], why(
        "first_run keeps how the worker died and the crash's message", "SIGSEGV", first)
    assert first["expectation"] == {"status": "intermittent-crash", "line": 1,
                                    "pattern": "r.flaky",
                                    "reason": "the fake crashes once"}, why(
        "first_run names the entry that covered it", "line 1", first["expectation"])
    assert (r["footer"]["reruns"], r["footer"]["rerun"], r["footer"]["restarts"]) == (
        1, ["r.flaky"], 1), why("the footer counts the rerun; the crash cost one restart",
                                (1, ["r.flaky"], 1), r["footer"])
    assert r["footer"]["stale_expectations"] == [], why(
        "an entry that matched a case is not stale", [], r["footer"]["stale_expectations"])
    assert "# r.flaky crashed (killed by signal 11 (SIGSEGV)) and was run again" in out, why(
        "TAP says the case was run again", "# r.flaky crashed ...", out)
    check_tap(env, out, "rerun", True)
    check_schema(env, env.path("flaky.json"), env.path("flaky.jsonl"), "rerun")
    check_junit(env.path("flaky.xml"), r, "rerun")
    tc = next(t for t in ET.parse(env.path("flaky.xml")).iter("testcase")
              if t.get("name") == "r.flaky")
    props = {p.get("name"): p.get("value") or "" for p in tc.iter("property")}
    assert "died during device.parse" in props.get("first_run", "") and \
        props.get("first_run.expectation") == "1", why(
            "JUnit keeps the first run as properties", "first_run, first_run.expectation", props)


def test_summary_says_rerun(env: Env) -> None:
    """The closing lines of the summary name the case run again."""
    rc, out, _, _ = run(env, "summary", FLAKY,
                          "r.flaky intermittent-crash # once\n", "--no-tap")
    assert rc == 0 and "1 case crashed and was run again on a fresh worker " \
        "(intermittent-crash): r.flaky" in out, why(
            "the summary names the case run again", "1 case crashed and was run again", out)


def test_crash_twice_is_a_crash(env: Env) -> None:
    """A case that crashes on its second run too is a crash (unexpected), its first crash
    kept."""
    cases = [parse_case("r.segv", "crash"), parse_case("r.after", "cpu")]
    rc, _, _, r = run(env, "twice", cases, "r.* intermittent-crash # at random\n")
    case = {c["id"]: c for c in r["cases"]}["r.segv"]
    assert (rc, case["status"], "first_run" in case, r["footer"]["restarts"]) == (
        1, "crash", True, 2), why(
        "a crash on both runs is an unexpected crash, and each cost a restart",
        (1, "crash", True, 2), (rc, case["status"], r["footer"]))
    assert r["footer"]["unexpected"] == ["r.segv"], why(
        "the footer lists it as unexpected", ["r.segv"], r["footer"]["unexpected"])


def test_expected_crash_not_rerun(env: Env) -> None:
    """A case whose entry expects a crash is not run again when it crashes: its crash is what
    the file says, and a rerun would spend a restart; one whose entry expects another failure
    is run again (its crash is unexpected)."""
    cases = [parse_case("r.segv", "crash"), parse_case("r.flaky", "crash-once:a"),
             parse_case("r.after", "cpu")]
    rc, _, _, r = run(env, "expected", cases,
                      "r.segv crash # always\nr.flaky fail # wrong, when it does not crash\n"
                      "r.* intermittent-crash # at random\n")
    st = statuses(r)
    segv = {c["id"]: c for c in r["cases"]}["r.segv"]
    assert (st["r.segv"], "first_run" in segv, r["footer"]["restarts"]) == (
        "xfail", False, 2), why(
        "the expected crash is xfail, not run again: one restart for it, one for r.flaky",
        ("xfail", False, 2), (st, r["footer"]))
    assert (rc, st["r.flaky"], r["footer"]["rerun"]) == (0, "xpass", ["r.flaky"]), why(
        "the case expected to fail is run again and judged against its fail entry",
        (0, "xpass", ["r.flaky"]), (rc, st, r["footer"]["rerun"]))


def test_other_cases_not_rerun(env: Env) -> None:
    """A crash in a case no intermittent-crash entry names is not run again; a named case
    that does not crash is unaffected (never an xpass); an entry that names nothing is
    stale."""
    cases = [parse_case("r.flaky", "crash-once:a"), parse_case("r.named", "cpu")]
    rc, _, _, r = run(env, "other", cases,
                      "r.named intermittent-crash # may crash\n"
                      "nothing.* intermittent-crash # stale\n", "--strict")
    st = statuses(r)
    assert (rc, st) == (1, {"r.flaky": "crash", "r.named": "pass"}), why(
        "only the named case is covered; it passes plainly", (1, "crash, pass"), (rc, st))
    assert not any("first_run" in c for c in r["cases"]) and r["footer"]["reruns"] == 0, why(
        "no case was run again", 0, r["footer"]["reruns"])
    stale = r["footer"]["stale_expectations"]
    assert stale == [{"pattern": "nothing.*", "status": "intermittent-crash", "line": 2}], why(
        "an intermittent-crash entry naming no case is stale, with its own status",
        "nothing.*", stale)


def test_cap(env: Env) -> None:
    """--max-reruns bounds the reruns of a run: past it a covered crash stands, and its reason
    says why it was not run again. One worker, so the crashes come in the suite's order (with
    two, which worker meets its crash first decides which case's crash stands)."""
    cases = [parse_case("r.%d" % i, "crash-once:%d" % i) for i in range(3)]
    rc, _, _, r = run(env, "cap", cases, "r.* intermittent-crash # at random\n",
                      "--max-reruns", "2", "--jobs", "1")
    st = statuses(r)
    assert (rc, st) == (1, {"r.0": "pass", "r.1": "pass", "r.2": "crash"}), why(
        "two reruns, then the third crash stands", (1, "pass, pass, crash"), (rc, st))
    third = {c["id"]: c for c in r["cases"]}["r.2"]
    assert "--max-reruns" in third["reason"] and "first_run" not in third, why(
        "the crash past the cap says why it was not run again", "--max-reruns", third)
    assert (r["footer"]["reruns"], r["header"]["config"]["max_reruns"]) == (2, 2), why(
        "the footer counts 2 reruns; the header records the cap", (2, 2), r["footer"])


def test_crash_in_the_reset(env: Env) -> None:
    """A fault of one case that strikes in the reset before the next is that next case's
    crash: run again when the case before it is covered, and its first_run says so."""
    cases = [parse_case("r.async", "reset-crash-once:f"), parse_case("r.next", "cpu")]
    rc, _, _, r = run(env, "reset", cases, "r.async intermittent-crash # asynchronous\n",
                      "--jobs", "1")
    nxt = {c["id"]: c for c in r["cases"]}["r.next"]
    first = nxt.get("first_run", {})
    assert (rc, nxt["status"], first.get("op"), first.get("after"), first.get("signal")) == (
        0, "pass", "reset", "r.async", 8), why(
        "the crash in the reset after r.async is rerun and passes",
        (0, "pass", "reset", "r.async", 8), (rc, nxt))
    rc, _, _, r = run(env, "reset-uncovered", cases, "r.other* intermittent-crash\n",
                      "--jobs", "1")
    assert (rc, statuses(r)["r.next"]) == (1, "crash"), why(
        "with neither case covered, the crash in the reset stands", (1, "crash"),
        (rc, statuses(r)))


def without_first_run_times(r: dict[str, Any]) -> dict[str, Any]:
    r = report_core(r)
    for c in r["cases"]:
        c.get("first_run", {}).pop("duration", None)
    r["footer"].pop("restarts", None)  # one per crash, whichever worker
    return r


def test_jobs_same_report(env: Env) -> None:
    """--jobs 2 gives the report of --jobs 1, reruns included."""
    cases = [parse_case("r.%d" % i, "crash-once:%d" % i if i % 3 == 1 else "cpu")
             for i in range(12)]
    entries = "r.* intermittent-crash # at random\n"
    rc1, _, _, r1 = run(env, "jobs1", cases, entries, "--jobs", "1", "--max-reruns", "10")
    rc2, _, _, r2 = run(env, "jobs2", cases, entries, "--jobs", "2", "--max-reruns", "10")
    assert rc1 == rc2 == 0 and r1["footer"]["reruns"] == 4, why(
        "both pass, with 4 reruns", (0, 0, 4), (rc1, rc2, r1["footer"]["reruns"]))
    a, b = without_first_run_times(r1), without_first_run_times(r2)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), why(
        "--jobs 2 writes the report of --jobs 1", a["cases"], b["cases"])


def test_in_process_no_effect(env: Env) -> None:
    """In process there is no worker to run a case again: a library that aborts ends the run
    (exit 3) whatever an intermittent-crash entry says, and the crash stands."""
    exp = write(env.path("inproc.txt"), "* intermittent-crash # at random\n")
    rep = env.path("inproc.json")
    rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "null.json"), "--adapter",
                          env.null_so, "--expectations", exp, "--report", rep],
                         env={"DEVSPEC_NULL_DIE": "device.equal:abort"})
    r = load_report(rep)
    assert (rc, statuses(r)) == (3, {"null.one": "pass", "null.three": "crash"}), why(
        "in process the crash ends the run, as without the entry", (3, "pass, crash"),
        (rc, statuses(r), err[-300:]))
    assert "first_run" not in r["cases"][1] and r["footer"]["reruns"] == 0, why(
        "no rerun in process", 0, r["footer"])
    check_schema(env, rep, env.path("inproc.jsonl"), "in process")
