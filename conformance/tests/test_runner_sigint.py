"""SIGINT stops a run: the report says complete false and interrupted, the case in
flight is kept as interrupted at its step; a runner killed outright leaves JSON Lines that
parse and no report that looks complete."""

from __future__ import annotations

import os
import signal

from support import (
    Env,
    check_schema,
    fake_cmd,
    file_has,
    hang_in_flight,
    hang_suite,
    load_jsonl,
    load_report,
    stops,
    wait_until,
    why,
)

NEVER = {"id": "h.never", "description": "never runs", "spec": ["T-EQ-1"],
         "features": ["device-eq"], "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]}


def test_sigint(env: Env) -> None:
    d = hang_suite(env, "hang", then=[NEVER])
    rep, trace = env.path("int.json"), env.path("int.trace")
    p = env.start(["run", "--cases", d, "--timeout", "600", "--adapter-cmd", fake_cmd(),
                   "--report", rep, "--trace", trace])
    jsonl = env.path("int.jsonl")
    # The first case is recorded and the hanging step's request sent: the hang is in flight.
    assert wait_until(file_has(jsonl, '"h.pass"')) and wait_until(hang_in_flight(trace)), why(
        "the hang is in flight", "h.pass recorded, the hanging request sent", None)
    p.send_signal(signal.SIGINT)
    # The hang outlasts the liveness bound: a runner that ignored SIGINT fails as a hang.
    _, err = stops(p, "a run sent SIGINT while a step hangs")
    assert p.returncode == 3, why("SIGINT: exit 3", 3, (p.returncode, err))
    r = load_report(rep)
    assert r["footer"]["complete"] is False and r["footer"]["interrupted"] is True, why(
        "SIGINT: the report says complete false, interrupted", "complete false", r["footer"])
    assert [c["id"] for c in r["cases"]] == ["h.pass", "h.hang"], why(
        "SIGINT: the finished case and the interrupted one are kept, nothing after them",
        ["h.pass", "h.hang"], [c["id"] for c in r["cases"]])
    hung = r["cases"][-1] if r["cases"] else {}
    assert (
        hung.get("status") == "skip" and hung.get("skip_source") == "interrupted" and
        hung.get("reason") == "interrupted (SIGINT) at step 0 (device.parse)"
    ), why(
        "SIGINT: the case in flight is recorded as interrupted, at its step",
        "skip, interrupted (SIGINT) at step 0 (device.parse)", hung)
    lines = load_jsonl(jsonl)
    assert (
        lines[0]["type"] == "header" and lines[-1]["type"] == "footer" and
        lines[-1]["complete"] is False
    ), why(
        "SIGINT: the JSON Lines end with a footer, complete false",
        "header ... footer", [line["type"] for line in lines])
    assert not os.path.exists(rep + ".tmp"), why(
        "no temporary report is left behind", "absent", rep + ".tmp")
    check_schema(env, rep, jsonl, "interrupted")


def test_killed_runner(env: Env) -> None:
    """A runner killed outright leaves readable JSON Lines without a footer, and no report
    that looks complete."""
    d = hang_suite(env, "hang", then=[NEVER])
    rep, jsonl = env.path("int.json"), env.path("int.jsonl")
    with open(rep, "w") as f:
        f.write('{"stale": true}')
    # The orphaned worker's hang is short, so it leaves soon after its stdin closes.
    p = env.start(["run", "--cases", d, "--timeout", "60", "--adapter-cmd",
                   fake_cmd("--hang-seconds", "3"), "--report", rep])
    wait_until(file_has(jsonl, '"h.pass"'))
    p.kill()
    p.communicate()
    lines = load_jsonl(jsonl)
    assert [line["type"] for line in lines] == ["header", "case"], why(
        "a killed runner leaves JSON Lines that parse, without a footer", ["header", "case"],
        [line["type"] for line in lines])
    assert not os.path.exists(rep), why(
        "a killed runner leaves no complete-looking report", "absent", os.path.exists(rep))


def test_sighup(env: Env) -> None:
    """SIGHUP (a closed terminal or ssh session) stops a run as SIGINT does: exit 3, the
    report finished with complete false, the case in flight kept as interrupted by SIGHUP."""
    d = hang_suite(env, "hang", then=[NEVER])
    rep, trace = env.path("hup.json"), env.path("hup.trace")
    p = env.start(["run", "--cases", d, "--timeout", "600", "--adapter-cmd", fake_cmd(),
                   "--report", rep, "--trace", trace])
    assert wait_until(hang_in_flight(trace)), why("the hang is in flight", "sent", None)
    p.send_signal(signal.SIGHUP)
    _, err = stops(p, "a run sent SIGHUP while a step hangs")
    r = load_report(rep) if os.path.exists(rep) else {"footer": {}, "cases": []}
    hung = r["cases"][-1] if r["cases"] else {}
    assert (
        p.returncode == 3 and r["footer"].get("interrupted") is True and
        r["footer"].get("incomplete_reason") == "interrupted (SIGHUP)" and
        hung.get("reason") == "interrupted (SIGHUP) at step 0 (device.parse)"
    ), why("SIGHUP: exit 3, the report finished as interrupted (SIGHUP)", 3,
           (p.returncode, r["footer"].get("incomplete_reason"), hung, err[-300:]))


def test_interrupted_while_starting(env: Env) -> None:
    """A run interrupted while its adapter starts says so on its last line and in the
    report, never "0 passed, 0 failed"."""
    d = hang_suite(env, "hang")
    marker, rep = env.path("started"), env.path("start.json")
    p = env.start(["run", "--cases", d, "--no-tap", "--adapter-cmd",
                   f"touch {marker}; exec sleep 600", "--report", rep])
    assert wait_until(lambda: os.path.exists(marker)), why("the adapter started", "", None)
    p.send_signal(signal.SIGINT)
    out, _ = stops(p, "a run sent SIGINT while its adapter starts")
    last = out.strip().splitlines()[-1] if out.strip() else ""
    reason = load_report(rep)["footer"].get("incomplete_reason") if os.path.exists(rep) else None
    assert (
        p.returncode == 3 and last == "interrupted (SIGINT) while the adapter was starting" and
        "passed" not in out and reason == last
    ), why("interrupted at start-up: the last line and the report say so", last,
           (p.returncode, out[-300:], reason))
