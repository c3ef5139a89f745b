"""Judging: a run's verdicts, exit statuses and outputs (report, JSON Lines, JUnit, TAP)
against the fake adapter: passing and failing cases, exact values across the protocol, the
matchers and "stop"."""

from __future__ import annotations

import os
import re
from typing import Any

from support import (
    CASES,
    Env,
    check_junit,
    check_schema,
    check_tap,
    check_trace,
    fake_cmd,
    load_report,
    read,
    statuses,
    why,
)


def test_pass_run(env: Env) -> None:
    rep, junit = env.path("pass.json"), env.path("pass.xml")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit,
                            "--trace", env.path("pass.trace")])
    assert rc == 0, why("pass.json: exit 0 when everything passes", 0, (rc, err))
    check_trace(env, env.path("pass.trace"), "pass.json (fake adapter, well behaved)")
    r = load_report(rep)
    st = statuses(r)
    assert len(st) == 14 and set(st.values()) == {"pass"}, why(
        "pass.json: all 14 cases pass", "14 x pass", st)
    assert r["footer"]["complete"] is True and r["footer"]["gate"]["exit_status"] == 0, why(
        "pass.json: footer complete, gate 0", True, r["footer"])
    check_schema(env, rep, env.path("pass.jsonl"), "pass.json")
    check_junit(junit, r, "pass.json")
    check_tap(env, out, "pass run", True)
    last = err.rstrip("\n").split("\n")[-1]
    assert (
        re.fullmatch(r"14 passed, 0 failed, 0 skipped, 0 errors in \d+\.\d\d s "
                     r"\(and \d+\.\d\d s loading the suite\)", last) is not None
    ), why(
        "the run ends with the closing counts line on stderr", "14 passed, ... in T s", err[-500:])
    assert "report: " + rep in err, why("the summary names the report", rep, err[-500:])
    rc14, out14, _ = env.run(["run", "--cases", os.path.join(CASES, "pass.json"),
                              "--tap-version", "14", "--adapter-cmd", fake_cmd(),
                              "--report", env.path("pass14.json")])
    assert rc14 == 0 and out14 == out.replace("TAP version 13\n", "TAP version 14\n", 1), why(
        "--tap-version 14: the same stream under 'TAP version 14'", "TAP version 14", out14[:40])
    assert (
        r["header"]["features_unknown"] == [] and "device-string" in r["header"]["features_claimed"]
    ), why(
        "the header lists the claimed features", "device-string", r["header"]["features_claimed"])


def test_unknown_feature_claimed(env: Env) -> None:
    rc, _, _ = env.run(["run", "--cases", os.path.join(CASES, "pass.json"),
                        "--case", "pass.raises-kind",
                        "--adapter-cmd", fake_cmd("--features", "device-string,no-such-feature"),
                        "--report", env.path("unk.json")])
    r2 = load_report(env.path("unk.json"))
    assert (
        rc == 0 and r2["header"]["features_unknown"] == ["no-such-feature"]
    ), why(
        "a claimed feature the registry does not know is reported, not fatal", ["no-such-feature"],
        (rc, r2["header"]["features_unknown"]))


def test_exact_values(env: Env) -> None:
    """Exact values: integers beyond 2^53, the hard doubles and a string with NUL go out and
    come back as written."""
    rep, junit = env.path("exact.json"), env.path("exact.xml")
    rc, _out, err = env.run(["run", "--cases", os.path.join(CASES, "exact.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit])
    st = statuses(load_report(rep))
    assert (
        rc == 0 and set(st.values()) == {"pass"} and len(st) == 4
    ), why(
        "exact.json: numbers of any width and a string with NUL cross the protocol exactly",
        "4 x pass", (rc, st, err))


def test_exact_values_fail(env: Env) -> None:
    """A difference of one beyond 2^53 fails and is shown exactly."""
    rep, junit = env.path("exact-fail.json"), env.path("exact-fail.xml")
    rc, out, _err = env.run(["run", "--cases", os.path.join(CASES, "exact-fail.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit])
    r = load_report(rep)
    c = r["cases"][0]
    assert rc == 1 and c["status"] == "fail", why(
        "exact-fail.json: 2^53+1 is not 2^53", "fail", (rc, c["status"]))
    f = r["cases"][1]
    assert (
        f["status"] == "fail" and "1.0000000000000002" in f.get("reason", "")
    ), why(
        "a double that differs in the last bit fails and is shown in full",
        "1.0000000000000002 in the reason", (f["status"], f.get("reason")))
    assert (
        "9007199254740993" in c.get("reason", "") and "9007199254740992" in c.get("reason", "")
    ), why(
        "the failure shows expected 2^53 and observed 2^53+1 exactly", "both integers in full",
        c.get("reason"))
    x = read(junit)
    assert "9007199254740993" in x and "9007199254740992" in x and "9007199254740993" in out, why(
        "JUnit and TAP show both integers in full", "both integers", (x[-400:], out[-400:]))


def check_names(c: dict[str, Any], trace: str, err: str, out: str) -> None:
    """A failure names devices by the library's names, never by handle, and says the failing
    step's call: in the report, the summary, TAP and the
    trace's notes."""
    assert "device#" not in c["reason"] and '"gpu:0"' in c["reason"], why(
        "fail.other-device: the reason names the devices as the library does",
        'expected "gpu:0", observed "cpu"', c["reason"])
    assert c.get("call") == "array.describe(array=float64[1] on cpu)", why(
        "fail.other-device: the call shows the array by dtype, shape and device name",
        "array.describe(array=float64[1] on cpu)", c.get("call"))
    assert c.get("devices") == {"device#1": "gpu:0", "device#0": "cpu"}, why(
        "fail.other-device: the report keeps each handle's name", "{device#1: gpu:0, ...}",
        c.get("devices"))
    assert "# device#1 is the library's gpu:0 (hello)" in trace, why(
        "--trace says what each hello device handle is", "# device#1 is ... gpu:0", trace[:400])
    assert "call: array.describe(array=float64[1] on cpu)" in err, why(
        "the summary's example shows the call", "call: array.describe(...)", err[-2000:])
    assert 'call: "array.describe(array=float64[1] on cpu)"' in out, why(
        "TAP's YAML block shows the call", "call: ...", out[-3000:])
    assert "raised at: fake/library.py:42 in parse: raise ValueError(text)" in err, why(
        "the summary's example shows where the library raised", "raised at: ...", err[-2000:])
    assert "device#" not in err.split("\nunexpected:\n", 1)[-1], why(
        "no handle number in the summary", "names only", err[-2000:])


def test_fail_run(env: Env) -> None:
    rep, junit = env.path("fail.json"), env.path("fail.xml")
    trace = env.path("fail.trace")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "fail.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit,
                            "--trace", trace])
    assert rc == 1, why("fail.json: exit 1 on unexpected failures", 1, rc)
    check_trace(env, trace, "fail.json (fake adapter, notes on device handles)")
    r = load_report(rep)
    st = statuses(r)
    want = {"fail.wrong-dtype": "fail", "fail.value-where-error": "fail",
            "fail.error-where-value": "fail", "fail.wrong-kind": "fail",
            "fail.negative-zero": "fail", "fail.other-device": "fail", "fail.either-none": "fail",
            "fail.unexpressible": "lacks", "fail.weird-message": "fail",
            "error.protocol-origin": "error", "skip.unsupported": "skip",
            "skip.needs-three": "skip"}
    for k, v in want.items():
        assert st.get(k) == v, why(f"fail.json: {k} is {v}", v, st.get(k))
    cases = {c["id"]: c for c in r["cases"]}
    check_names(cases["fail.other-device"], read(trace), err, out)
    c = cases["fail.error-where-value"]
    assert (
        "ValueError" in c["reason"] and "unknown device string" in c["reason"]
    ), why(
        "an error where a value was expected names the kind and message", "ValueError: ...",
        c["reason"])
    assert (
        c["observed"] == {"error": {"kind": "ValueError", "origin": "library",
                                    "message": "unknown device string 'nope'",
                                    "traceback": ["fake/library.py:42 in parse: raise "
                                                  "ValueError(text)"]}}
    ), why(
        "the observed error is recorded", "error object", c["observed"])
    c = cases["fail.negative-zero"]
    assert "data[0]" in c["reason"], why(
        "a typed-array mismatch names the element", "data[0]", c["reason"])
    c = cases["fail.other-device"]
    assert "device.equal" in c["reason"], why(
        "devices are compared through device.equal", "device.equal", c["reason"])
    assert (
        cases["skip.unsupported"]["reason"] == "unsupported: device-utils" and
        cases["skip.unsupported"]["skip_source"] == "unsupported"
    ), why(
        "an unclaimed feature is skip (unsupported: feature)", "unsupported: device-utils",
        cases["skip.unsupported"])
    assert (
        cases["skip.needs-three"]["reason"] == "needs 3 devices, library has 2"
    ), why(
        "too few devices is a skip with the counts", "needs 3 devices, library has 2",
        cases["skip.needs-three"]["reason"])
    assert (
        cases["fail.wrong-dtype"]["step"] == 1 and
        cases["fail.wrong-dtype"]["op"] == "array.describe"
    ), why(
        "the failing step and op are recorded", (1, "array.describe"),
        (cases["fail.wrong-dtype"].get("step"), cases["fail.wrong-dtype"].get("op")))
    check_schema(env, rep, env.path("fail.jsonl"), "fail.json")
    check_junit(junit, r, "fail.json")
    check_tap(env, out, "fail run", False)
    listed = re.search(r"\nunexpected:\n(.*?)\n\n", err, re.S)
    assert (
        listed is not None and "  fail     fail.wrong-dtype: array.describe" in listed.group(1)
    ), why(
        "the summary lists each unexpected case with its status and reason",
        "fail fail.wrong-dtype: array.describe...", err[-2000:])
    assert (
        re.search(r"\n\d+ passed, [1-9]\d* failed, \d+ skipped, \d+ errors?(, \d+ lacking)? in ",
                  err) is not None
    ), why(
        "the closing line counts the failures", "N passed, N failed, ...", err[-300:])
    assert "# SKIP unsupported: device-utils" in out, why(
        "TAP marks skips with # SKIP and the reason", "# SKIP unsupported: device-utils", out)
    m = re.search(r"    not ok \d+ - fail.weird-message\n      ---\n(.*?)      \.\.\.\n", out, re.S)
    assert (
        m is not None and "message:" in m.group(1) and "expected:" in m.group(1) and
        "observed:" in m.group(1)
    ), why(
        "a failure has a YAML block with message, expected, observed", "YAML block", out[:3000])

def test_match(env: Env) -> None:
    """Matchers and "stop" (spec/case-format.md): every case of match.json passes."""
    rep = env.path("match.json")
    rc, _out, _err = env.run(["run", "--cases", os.path.join(CASES, "match.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep])
    r = load_report(rep)
    st = statuses(r)
    assert rc == 0 and len(st) == 11 and set(st.values()) == {"pass"}, why(
        "match.json: every matcher and stop case passes, exit 0", "11 x pass", (rc, st))
    check_schema(env, rep, env.path("match.jsonl"), "match.json")


def test_match_fail(env: Env) -> None:
    """Every case of match-fail.json fails (one is an error) at the step its description
    names."""
    rep = env.path("match-fail.json")
    rc, out, _err = env.run(["run", "--cases", os.path.join(CASES, "match-fail.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep])
    r = load_report(rep)
    cases = {c["id"]: c for c in r["cases"]}
    want: dict[str, tuple[str, int, str]] = {"mfail.len-min": ("fail", 0, "shorter than $len_min"),
            "mfail.contains": ("fail", 0, "no element matches $contains"),
            "mfail.each-in": ("fail", 0, "at [1]: the value is none of $in"),
            "mfail.range": ("fail", 0, "outside $range"),
            "mfail.type": ("fail", 0, "not of the $type"),
            "mfail.dollar-key": ("fail", 0, "at .$note"),
            "mfail.range-or-wrong-kind":
                ("fail", 0, "expected ValueError, raised NotImplementedError"),
            "mfail.stop-continues-then-fails": ("fail", 1, "expected \"cpu\""),
            "mfail.stop-first-alternative-decides": ("fail", 1, "expected 99"),
            "mfail.stop-false": ("fail", 1, "expected 99"),
            "merror.contains-device-equal": ("error", 0, "comparing devices device#999"),
            "mfail.array-values": ("fail", 1, "at .data[1]"),
            "mfail.array-dtype": ("fail", 1, "at .dtype: the value is none of $in")}
    for cid, (status, step, text) in want.items():
        c = cases.get(cid, {})
        assert (
            c.get("status") == status and c.get("step") == step and text in c.get("reason", "")
        ), why(
            f"match-fail.json: {cid} is {status} at step {step}, saying {text!r}",
            (status, step, text), (c.get("status"), c.get("step"), c.get("reason")))
    assert rc == 1, why("match-fail.json: exit 1", 1, rc)
    c = cases["mfail.range"]
    assert (
        c.get("expected") == {"$range": [2, None]} and c.get("observed") == 1
    ), why(
        "a failed matcher is reported with the matcher as expected and the observed value",
        ({"$range": [2, None]}, 1), (c.get("expected"), c.get("observed")))
    m = re.search(r"    not ok \d+ - mfail.range\n      ---\n(.*?)      \.\.\.\n", out, re.S)
    assert (
        m is not None and 'expected: "{\\"$range\\":[2,null]}"' in m.group(1) and
        'observed: "1"' in m.group(1)
    ), why(
        "the TAP YAML block shows the matcher and the observed value",
        "expected $range, observed 1", m.group(1) if m else out[:2000])
    check_schema(env, rep, env.path("match-fail.jsonl"), "match-fail.json")
    check_tap(env, out, "match-fail run", False)
