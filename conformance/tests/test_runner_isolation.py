"""Isolation: each worker a process of its own, restarted after a crash, a timeout or a
protocol violation, the handshake replayed; every worker's hello must be the first's;
--jobs 2 gives the report of --jobs 1; bounded restarts; adapters that cannot start or
answer hello wrongly."""

from __future__ import annotations

import os
import re
from typing import Any

from support import (
    CASES,
    FEATURES,
    Env,
    check_junit,
    check_schema,
    check_tap,
    drop_timing_lines,
    fake_cmd,
    load_report,
    read,
    report_core,
    statuses,
    why,
    write_cases,
)

PASS = os.path.join(CASES, "pass.json")
MISBEHAVE = os.path.join(CASES, "misbehave.json")
FEWER = ",".join(f for f in FEATURES if f != "device-eq")


def test_worker_claiming_fewer(env: Env) -> None:
    """Under --jobs 2 a second worker that claims fewer features is refused (said) and the
    first runs every case, as --jobs 1 would."""
    # Slow cases (each waits 0.5 s in the adapter), so that the second worker's hello comes
    # while there are cases left.
    slow_cases = write_cases(env.path("slow.json"), "Slow cases.", [
        {"id": f"s.{i}", "description": "slow", "spec": ["T-STR-1"],
         "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "hang"}}]} for i in range(6)])
    slow = ("--hang-seconds", "0.5")
    rc1s, _, _ = env.run(["run", "--cases", slow_cases, "--adapter-cmd", fake_cmd(*slow),
                          "--jobs", "1", "--no-tap", "--report", env.path("h1s.json")])
    st1s = statuses(load_report(env.path("h1s.json")))
    state2 = env.path("hellos-2")
    rc, _, err = env.run(["run", "--cases", slow_cases, "--adapter-cmd",
                          fake_cmd("--state", state2, "--later-features", FEWER, *slow),
                          "--jobs", "2", "--no-tap", "--report", env.path("h2.json")])
    st2 = statuses(load_report(env.path("h2.json")))
    assert (
        rc == rc1s and st2 == st1s and "worker 2 could not start" in err and
        'differs from the run\'s first in "features"' in err
    ), why(
        "--jobs 2: a worker claiming fewer features is refused, the cases run as with --jobs 1",
        (rc1s, "refused"), (rc, err[-400:], [k for k in st1s if st1s[k] != st2.get(k)]))


def test_worker_hanging_in_hello(env: Env) -> None:
    """A worker whose start hangs is not waited for once the cases are done. Its
    --start-timeout is far past the liveness bound of env.run, so a runner that waited for it
    fails as a hang."""
    rc1, _, _ = env.run(["run", "--cases", PASS, "--adapter-cmd", fake_cmd(), "--jobs", "1",
                         "--no-tap", "--report", env.path("h1.json")])
    st1 = statuses(load_report(env.path("h1.json")))
    state4 = env.path("hellos-4")
    rc, _, err = env.run(["run", "--cases", PASS, "--adapter-cmd",
                          fake_cmd("--state", state4, "--hang-later-hello"), "--jobs", "2",
                          "--start-timeout", "3000", "--no-tap", "--report", env.path("h4.json")])
    assert (
        rc == rc1 and statuses(load_report(env.path("h4.json"))) == st1 and
        "could not start" not in err
    ), why(
        "--jobs 2 with a second worker hanging in hello: the run ends when its cases are done",
        (rc1, "the statuses of --jobs 1"), (rc, err[-300:]))


def test_restarted_worker_claiming_fewer(env: Env) -> None:
    """After a restart (--jobs 1) a worker that claims fewer stops the run, naming the
    difference."""
    crash_cases = write_cases(env.path("crash-then.json"), "A crash, then more.", [
        {"id": "c.crash", "description": "crash", "spec": ["T-STR-1"],
         "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "crash"}}]},
        {"id": "c.after", "description": "after", "spec": ["T-STR-1"],
         "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]}])
    state3 = env.path("hellos-3")
    rc, _, err = env.run(["run", "--cases", crash_cases, "--adapter-cmd",
                          fake_cmd("--state", state3, "--later-features", FEWER),
                          "--jobs", "1", "--no-tap", "--report", env.path("h3.json")])
    r = load_report(env.path("h3.json"))
    assert (
        rc == 3 and r["footer"]["complete"] is False and
        'differs from the run\'s first in "features"' in r["footer"].get("incomplete_reason", "")
    ), why(
        "--jobs 1: a restarted worker claiming fewer features stops the run, naming the "
        "difference", 3, (rc, r["footer"].get("incomplete_reason"), err[-300:]))


def test_misbehaving_adapter(env: Env) -> None:
    """Crashes, aborts, exits, a hang, garbage, a wrong id, a partial line: each costs its
    case, the worker is restarted and the handshake replayed; --jobs 2 gives the same."""
    state = env.path("hellos")
    rep = env.path("bad.json")
    # The hang costs its case one --timeout: the fake's hang outlasts env.run's liveness bound.
    rc, out, err = env.run(["run", "--cases", MISBEHAVE, "--timeout", "1",
                            "--adapter-cmd", fake_cmd("--state", state), "--report", rep,
                            "--junit", env.path("bad.xml"), "--jobs", "1"])
    assert rc == 1, why(
        "misbehaving adapter: exit 1 (unexpected crash, timeout, error)", 1, (rc, err))
    r = load_report(rep)
    st = statuses(r)
    want = {"bad.first-passes": "pass", "bad.segv": "crash", "bad.after-segv": "pass",
            "bad.abort": "crash", "bad.exit": "crash", "bad.hang": "timeout",
            "bad.garbage": "error", "bad.wrong-id": "error", "bad.no-ok": "error",
            "bad.partial": "crash", "bad.last-passes": "pass"}
    for k, v in want.items():
        assert st.get(k) == v, why(f"misbehave: {k} is {v}", v, st.get(k))
    cases = {c["id"]: c for c in r["cases"]}
    assert "signal 11 (SIGSEGV)" in cases["bad.segv"]["reason"], why(
        "a crash names the signal", "signal 11 (SIGSEGV)", cases["bad.segv"]["reason"])
    assert "about to crash" in cases["bad.segv"].get("stderr", ""), why(
        "a crash keeps the tail of stderr", "fake: about to crash",
        cases["bad.segv"].get("stderr"))
    assert "signal 6 (SIGABRT)" in cases["bad.abort"]["reason"], why(
        "an abort is SIGABRT", "SIGABRT", cases["bad.abort"]["reason"])
    # The line that says why stays, in the reason and in the kept stderr, though 200 frames
    # of stack trace after it fill the 4 KiB tail; no frame is taken for the reason.
    assert "it said: F1206 fake.cpp:137] Check failed: device_ok" in \
        cases["bad.abort"]["reason"], why("a crash's reason carries the library's message",
                                          "it said: ... Check failed", cases["bad.abort"]["reason"])
    kept = cases["bad.abort"].get("stderr", "")
    assert kept.startswith("[earlier lines that say why]\nF1206 fake.cpp:137] Check failed") \
        and "frame199()" in kept, why("stderr keeps the why line before the tail",
                                      "[earlier lines that say why]", kept[:300])
    assert "exited with status 3" in cases["bad.exit"]["reason"], why(
        "an exit names the status", "exited with status 3", cases["bad.exit"]["reason"])
    assert "partial line" in cases["bad.partial"]["reason"], why(
        "a partial line is reported", "partial line", cases["bad.partial"]["reason"])
    assert "has id" in cases["bad.wrong-id"]["reason"], why(
        "a wrong reply id is a protocol violation", "has id", cases["bad.wrong-id"]["reason"])
    assert "not a JSON object" in cases["bad.garbage"]["reason"], why(
        "garbage is a protocol violation", "not a JSON object", cases["bad.garbage"]["reason"])
    last = err.strip().splitlines()[-1]
    assert re.search(r"\b5 failed \(4 crashed, 1 timed out\), ", last) is not None, why(
        "the closing line shows crashes and timeouts apart within the failures",
        "5 failed (4 crashed, 1 timed out), ...", last)
    restarts = r["footer"]["restarts"]
    assert restarts == 8, why("one restart per crash, timeout and protocol violation", 8, restarts)
    hellos = read(state).count("hello")
    assert hellos == restarts + 1, why(
        "the handshake is replayed after every restart", restarts + 1, hellos)
    check_schema(env, rep, env.path("bad.jsonl"), "misbehave")
    check_junit(env.path("bad.xml"), r, "misbehave")
    check_tap(env, out, "misbehave run", False)

    # --jobs 2: the same results in the same order, the same restarts (one per crash,
    # timeout and violation, counted over the workers), one handshake more per worker.
    state3, rep3 = env.path("hellos3"), env.path("bad3.json")
    rc3, out3, err3 = env.run(["run", "--cases", MISBEHAVE, "--timeout", "1",
                               "--adapter-cmd", fake_cmd("--state", state3), "--report", rep3,
                               "--jobs", "2"])
    r3 = load_report(rep3)
    assert rc3 == 1 and report_core(r3) == report_core(r), why(
        "misbehave --jobs 2: the report of --jobs 1 apart from timings", "identical",
        (rc3, err3[-500:]))
    assert r3["footer"]["restarts"] == 8 and read(state3).count("hello") == 8 + 2, why(
        "misbehave --jobs 2: 8 restarts over the workers, 2 first handshakes", (8, 10),
        (r3["footer"]["restarts"], read(state3).count("hello")))
    assert drop_timing_lines(out3) == drop_timing_lines(out), why(
        "misbehave --jobs 2: the TAP of --jobs 1", "identical", out3[:500])


def test_stderr_tail_per_case(env: Env) -> None:
    """A case keeps the stderr its own requests caused, and none of an earlier case's; a
    library that writes far more than a pipe holds to stderr is drained, never blocked: with
    one worker and with two (whose first is started by one thread and run by another)."""
    def parse(text: str, expect: str) -> list[dict[str, Any]]:
        return [{"op": "device.parse", "args": {"text": text}, "expect": expect}]
    steps = [("e.quiet-writes", parse("say:first", "$D0")),
             ("e.much", parse("say:1000000-bytes", "$D0")),
             ("e.fails-writing", parse("say:second", "$D1")),
             ("e.fails-silent", parse("cpu", "$D1"))]
    cases = write_cases(env.path("stderr.json"), "Stderr per case.", [
        {"id": cid, "description": "stderr", "spec": ["T-EQ-1"], "features": ["device-eq"],
         "steps": st} for cid, st in steps])
    for jobs in ("1", "2"):
        rep = env.path(f"stderr-{jobs}.json")
        rc, _, err = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd(),
                              "--timeout", "20", "--jobs", jobs, "--no-tap", "--report", rep])
        r = load_report(rep)
        got = {c["id"]: (c["status"], c.get("stderr", "")) for c in r["cases"]}
        assert [got[c][0] for c, _ in steps] == ["pass", "pass", "fail", "fail"], why(
            f"--jobs {jobs}: the cases that write to stderr run", "pass pass fail fail",
            (rc, got, err[-300:]))
        tail = got["e.fails-writing"][1]
        assert "fake says second" in tail and "first" not in tail and "x" * 64 not in tail, why(
            f"--jobs {jobs}: a failure's stderr is its own case's", "fake says second", tail)
        assert got["e.fails-silent"][1] == "", why(
            f"--jobs {jobs}: a case that wrote nothing has no stderr", "", got["e.fails-silent"])


def test_first_step_written_with_the_reset(env: Env) -> None:
    """A case's first step goes out in the same write as the reset before it (spec/protocol.md,
    "Transports"): the trace shows both requests before the reset's reply. Where the reset
    fails, that case is an error and its first step's reply is read and dropped, so the next
    case reads its own replies; where the adapter dies in that step, the next case runs on a
    restarted worker and is not charged the crash."""
    def parse(cid: str, text: str) -> dict[str, Any]:
        return {"id": cid, "description": "device.parse", "spec": ["T-STR-1"],
                "features": ["device-string"],
                "steps": [{"op": "device.parse", "args": {"text": text}}]}
    for mode in ("reset-error", "reset-error-crash"):
        cases = write_cases(env.path(mode + ".json"), "Resets that fail.", [
            parse("a.sets-up", mode), parse("b.after-failed-reset", "cpu"),
            parse("c.next", "gpu:0")])
        rep, trace = env.path(mode + "-report.json"), env.path(mode + ".trace")
        rc, _, err = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd(),
                              "--timeout", "20", "--jobs", "1", "--no-tap", "--report", rep,
                              "--trace", trace])
        r = load_report(rep)
        got = {c["id"]: c for c in r["cases"]}
        st = {cid: c["status"] for cid, c in got.items()}
        assert st == {"a.sets-up": "pass", "b.after-failed-reset": "error",
                      "c.next": "pass"}, why(
            f"{mode}: only the case whose reset failed is an error", "pass error pass",
            (st, rc, err[-400:]))
        reason = got["b.after-failed-reset"].get("reason", "")
        assert "reset before the case failed" in reason, why(
            f"{mode}: the error names the reset", "reset before the case failed", reason)
        restarts = r["footer"].get("restarts", 0)
        assert restarts == (1 if mode.endswith("crash") else 0), why(
            f"{mode}: a worker that died in the dropped step is restarted, once",
            1 if mode.endswith("crash") else 0, restarts)
        lines = [ln for ln in read(trace).splitlines() if ln[:2] in ("> ", "< ")]
        resets = [i for i, ln in enumerate(lines) if '"op":"reset"' in ln]
        assert resets and all(lines[i + 1].startswith("> ") and '"device.parse"' in lines[i + 1]
                              and lines[i + 2].startswith("< ") for i in resets), why(
            f"{mode}: each reset and the next case's first step go out before a reply",
            "> reset, > device.parse, < ...", [lines[i:i + 3] for i in resets])


def test_bounded_restarts(env: Env) -> None:
    """Bounded restarts: the run stops as incomplete (exit 3)."""
    rep = env.path("bounded.json")
    rc, out, _ = env.run(["run", "--cases", MISBEHAVE, "--timeout", "1", "--max-restarts", "2",
                          "--adapter-cmd", fake_cmd(), "--report", rep, "--jobs", "1"])
    r = load_report(rep)
    assert rc == 3, why("past --max-restarts the run is incomplete: exit 3", 3, rc)
    assert r["footer"]["complete"] is False and "restarts" in r["footer"]["incomplete_reason"], why(
        "the footer says why it is incomplete", "complete false", r["footer"])
    assert (
        [c["id"] for c in r["cases"]] == ["bad.first-passes", "bad.segv", "bad.after-segv",
                                          "bad.abort", "bad.exit"]
    ), why(
        "cases up to the last crash are reported, none after", 5, [c["id"] for c in r["cases"]])
    assert "Bail out!" in out, why("TAP says Bail out! when the run stops", "Bail out!", out[-300:])


def test_exit_after_hello(env: Env) -> None:
    """An adapter that exits right after hello: every case crashes until the bound."""
    rep = env.path("after-hello.json")
    # (--jobs 1: with more workers, the cases in flight on the others when the limit is
    # reached are reported too.)
    rc, _, _ = env.run(["run", "--cases", PASS, "--max-restarts", "3", "--adapter-cmd",
                        fake_cmd("--exit-after-hello"), "--report", rep, "--jobs", "1"])
    r = load_report(rep)
    st = list(statuses(r).values())
    assert rc == 3 and st == ["crash"] * 4, why(
        "exit after hello: 4 crashes (3 restarts), then exit 3", (3, ["crash"] * 4), (rc, st))


def test_adapter_cannot_start(env: Env) -> None:
    rep = env.path("nostart.json")
    rc, out, err = env.run(["run", "--cases", PASS, "--adapter", env.path("no-such-adapter"),
                            "--report", rep, "--junit", env.path("nostart.xml")])
    assert rc == 3, why("an adapter that cannot start: exit 3", 3, rc)
    # Never an empty success: the last line, TAP, JUnit and the report say no case ran, and why.
    last = err.rstrip("\n").split("\n")[-1]
    assert (
        last.startswith("no case ran: the adapter did not start: ") and " passed, " not in err
    ), why(
        "a run that never started ends 'no case ran: the adapter did not start: <reason>'",
        "no case ran: ...", err[-400:])
    assert "Bail out! no case ran: the adapter did not start: " in out, why(
        "TAP bails out saying so", "Bail out! no case ran: ...", out)
    xml = read(env.path("nostart.xml"))
    assert 'errors="1"' in xml and 'message="no case ran: the adapter did not start: ' in xml, why(
        "JUnit has one testcase in error saying so", "an <error>", xml)
    r = load_report(rep)
    assert (
        r["footer"]["complete"] is False and "error" in r["header"]["adapter"] and r["cases"] == []
    ), why(
        "its report says complete false and why", "complete false, adapter.error",
        r["header"]["adapter"])
    assert (
        r["footer"]["incomplete_reason"].startswith("no case ran: the adapter did not start: ")
    ), why(
        "the report's footer says no case ran, and why", "no case ran: ...",
        r["footer"].get("incomplete_reason"))
    assert "Bail out!" in out, why(
        "TAP says Bail out! when the adapter cannot start", "Bail out!", out)
    check_schema(env, rep, env.path("nostart.jsonl"), "no start")


def test_hello_past_start_timeout(env: Env) -> None:
    """A hello past --start-timeout stops the run (exit 3, named). The hello hangs past the
    liveness bound of env.run, so a runner that waited for it fails as a hang."""
    rc, _, err = env.run(["run", "--cases", PASS, "--start-timeout", "1", "--adapter-cmd",
                          fake_cmd("--hang-hello"), "--report", env.path("slow.json")])
    assert rc == 3 and "--start-timeout" in err, why(
        "a hello past --start-timeout: exit 3, naming --start-timeout", 3, (rc, err))


def test_bad_hello(env: Env) -> None:
    for opts, what in ((("--protocol", "2"), "another protocol version"),
                       (("--hello-garbage",), "garbage instead of hello")):
        rc, _, err = env.run(["run", "--cases", PASS, "--adapter-cmd", fake_cmd(*opts),
                              "--report", env.path("x.json")])
        assert rc == 3, why(f"an adapter answering hello with {what}: exit 3", 3, (rc, err))


def test_duplicate_key_in_reply(env: Env) -> None:
    """A reply that gives a key twice is a protocol violation naming the key, at the top
    ("result" twice) or nested (a result object's key twice), though its first copy is what
    the step expects: error, never pass."""
    path = write_cases(env.path("dup.json"), "Replies with a key given twice.", [
        {"id": "dup.top", "spec": ["T-STR-1"], "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "dup-key"}, "expect": "$D0"}]},
        {"id": "dup.nested", "spec": ["T-STR-1"], "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "dup-nested"},
                    "expect": {"x": 1}}]}])
    rep = env.path("dup-report.json")
    rc, _, err = env.run(["run", "--cases", path, "--adapter-cmd", fake_cmd(), "--no-tap",
                          "--report", rep])
    cases = {c["id"]: c for c in load_report(rep)["cases"]}
    for cid, key in (("dup.top", "result"), ("dup.nested", "x")):
        c = cases[cid]
        assert (
            c["status"] == "error" and
            f"protocol violation: the reply gives the key \"{key}\" twice" in c["reason"]
        ), why(f"{cid}: the key \"{key}\" twice is a protocol error naming it", "error",
               (c["status"], c["reason"][:300]))
    assert rc == 1, why("protocol errors are unexpected: exit 1", 1, (rc, err[-300:]))
