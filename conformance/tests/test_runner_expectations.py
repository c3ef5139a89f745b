"""Expectations files: xfail, xpass, skip entries, globs and stale entries; --strict;
`devspec expectations REPORT` regenerating a baseline; bad lines."""

from __future__ import annotations

import hashlib
import os
import xml.etree.ElementTree as ET

from support import (
    CASES,
    Env,
    check_junit,
    check_schema,
    check_tap,
    fake_cmd,
    load_report,
    statuses,
    why,
)


def write(path: str, text: str) -> str:
    with open(path, "w") as f:
        f.write(text)
    return path


def test_entries(env: Env) -> None:
    exp = write(env.path("fake.txt"),
                "# fake adapter's known results\n"
                "fail.wrong-dtype fail   # float32 by default\n"
                "fail.value-where-error crash # was a crash once; now a fail: a new failure\n"
                "pass.describe-default fail  # fixed since: an unexpected pass\n"
                "fail.negative-zero   skip   # quarantined\n"
                "fail.other-*  fail\n"
                "nothing.matches.* fail # stale\n")
    files = ["--cases", os.path.join(CASES, "pass.json"), "--cases",
             os.path.join(CASES, "fail.json")]
    rep = env.path("exp.json")
    rc, out, _ = env.run(["run", *files, "--adapter-cmd", fake_cmd(), "--expectations", exp,
                          "--report", rep, "--junit", env.path("exp.xml")])
    r = load_report(rep)
    st = statuses(r)
    cases = {c["id"]: c for c in r["cases"]}
    assert st["fail.wrong-dtype"] == "xfail", why(
        "an expected fail that fails is xfail", "xfail", st["fail.wrong-dtype"])
    assert st["fail.other-device"] == "xfail", why(
        "a glob entry matches", "xfail", st["fail.other-device"])
    assert (
        st["fail.value-where-error"] == "fail"
        and cases["fail.value-where-error"]["observed_status"] == "fail"
    ), why(
        "an expected crash that fails is still an unexpected fail", "fail",
        st["fail.value-where-error"])
    assert st["pass.describe-default"] == "xpass", why(
        "an expected failure that passes is xpass", "xpass", st["pass.describe-default"])
    assert (
        st["fail.negative-zero"] == "skip"
        and cases["fail.negative-zero"]["skip_source"] == "expectations"
    ), why(
        "a skip entry does not run the case", "skip", cases["fail.negative-zero"])
    stale = [s["pattern"] for s in r["footer"]["stale_expectations"]]
    assert stale == ["nothing.matches.*"], why(
        "an entry matching no case is stale", ["nothing.matches.*"], stale)
    with open(exp, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    assert r["header"]["config"]["expectations"]["sha256"] == sha, why(
        "the report records the expectations file's SHA-256", "sha256", r["header"]["config"])
    assert rc == 1, why("unexpected failures remain: exit 1", 1, rc)
    assert "# TODO expected fail: float32 by default" in out, why(
        "TAP marks xfail with # TODO and the reason", "# TODO", out[:4000])
    check_schema(env, rep, env.path("exp.jsonl"), "expectations")
    check_junit(env.path("exp.xml"), r, "expectations")
    check_tap(env, out, "expectations run", False)


def test_strict(env: Env) -> None:
    """Only an xpass and a stale entry: 0 normally, 1 with --strict."""
    exp2 = write(env.path("fake2.txt"), "pass.describe-default fail # fixed\nnothing.* error\n")
    args = ["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd", fake_cmd(),
            "--expectations", exp2, "--report", env.path("exp2.json")]
    rc, out, _ = env.run(args)
    assert rc == 0, why("xpass and stale entries alone: exit 0", 0, rc)
    check_tap(env, out, "xpass run", True)
    rc, out, _ = env.run([*args, "--strict", "--junit", env.path("strict.xml")])
    assert rc == 1, why("xpass and stale entries with --strict: exit 1", 1, rc)
    tc = next(c for c in ET.parse(env.path("strict.xml")).getroot().iter("testcase")
              if c.get("name") == "pass.describe-default")
    failure = tc.find("failure")
    assert failure is not None and failure.get("type") == "xpass", why(
        "JUnit with --strict: an xpass is a failure of type xpass", "xpass", ET.tostring(tc))


def test_regenerated(env: Env) -> None:
    """devspec expectations REPORT regenerates a baseline; with it the same run exits 0."""
    base = env.path("base.json")
    env.run(["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
             "--report", base])
    rc, out, err = env.run(["expectations", base], spec=False)
    gen = write(env.path("generated.txt"), out)
    entries = [line.split()[:2] for line in out.splitlines() if line and not line.startswith("#")]
    assert (
        rc == 0 and ["fail.wrong-dtype", "fail"] in entries
        and ["error.protocol-origin", "error"] in entries and len(entries) == 10
    ), why(
        "devspec expectations lists every failure with its status", 10, (rc, entries))
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd",
                            fake_cmd(), "--expectations", gen, "--report",
                            env.path("again.json"), "--strict"])
    assert (
        rc == 0 and set(statuses(load_report(env.path("again.json"))).values()) == {"xfail", "skip"}
    ), why(
        "the regenerated expectations make the same run pass, even with --strict", 0, (rc, err))


def test_timeout_as_comment(env: Env) -> None:
    """A timeout is written as a comment, never as an entry: it depends on the machine's load."""
    hang = env.path("hang.json")
    env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--case", "bad.hang",
             "--timeout", "0.5", "--adapter-cmd", fake_cmd(), "--report", hang])
    rc, out, err = env.run(["expectations", hang], spec=False)
    lines = [line for line in out.splitlines() if "bad.hang" in line]
    assert (
        rc == 0 and lines and all(line.startswith("# TIMEOUT") for line in lines) and
        "1 timeout written as comments" in err
    ), why(
        "devspec expectations writes a timeout as a comment and says so on stderr",
        "# TIMEOUT ... bad.hang timeout", (rc, lines, err))


def test_crash_against_fail(env: Env) -> None:
    """An expected fail that becomes a crash is a new failure (not xfail), and vice versa."""
    exp3 = write(env.path("fake3.txt"),
                 "bad.segv fail # used to fail\nbad.abort crash # known abort\n")
    rep = env.path("exp3.json")
    rc, _, _ = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--case",
                        "bad.segv", "--case", "bad.abort", "--adapter-cmd", fake_cmd(),
                        "--expectations", exp3, "--report", rep])
    st = statuses(load_report(rep))
    assert st == {"bad.segv": "crash", "bad.abort": "xfail"} and rc == 1, why(
        "an expected fail that crashes is an unexpected crash; an expected crash is xfail",
        {"bad.segv": "crash", "bad.abort": "xfail"}, (rc, st))


def test_skip_expected_crashes(env: Env) -> None:
    """--skip-expected-crashes leaves out the cases expected to crash: never run (the worker
    says hello once), a skip from the expectations file with the entry's reason; an expected
    fail still runs, and without the option the crash runs as before."""
    exp = write(env.path("crashes.txt"),
                "bad.abort crash # known abort\nbad.segv fail # used to fail\n")
    state = env.path("hellos")
    rep = env.path("left-out.json")
    rc, _, _ = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--case",
                        "bad.abort", "--case", "bad.first-passes", "--adapter-cmd",
                        fake_cmd("--state", state), "--expectations", exp, "--report", rep,
                        "--skip-expected-crashes", "--jobs", "1"])
    cases = {c["id"]: c for c in load_report(rep)["cases"]}
    with open(state) as f:
        hellos = f.read().count("hello")
    assert (cases["bad.abort"]["status"], cases["bad.abort"].get("skip_source")) == \
        ("skip", "expectations") and "known abort" in cases["bad.abort"]["reason"] and \
        "--skip-expected-crashes" in cases["bad.abort"]["reason"] and hellos == 1 and \
        cases["bad.first-passes"]["status"] == "pass" and rc == 0, why(
            "an expected crash is left out, said, and never started",
            "skip, 1 hello", (rc, cases["bad.abort"], hellos))
    rc, _, _ = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--case",
                        "bad.abort", "--adapter-cmd", fake_cmd(), "--expectations", exp,
                        "--report", env.path("run-out.json")])
    assert statuses(load_report(env.path("run-out.json"))) == {"bad.abort": "xfail"}


def test_bad_line(env: Env) -> None:
    bad = write(env.path("bad-exp.txt"), "pass.x sometimes\n")
    rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd",
                          fake_cmd(), "--expectations", bad, "--report", env.path("x.json")])
    assert rc == 2 and f"{bad}:1:" in err, why(
        "a bad expectations line is exit 2 with file:line", 2, err)


def test_expectations_alone_never_pass_a_gate(env: Env) -> None:
    """`* skip` makes no run pass: an expectations file that skips every selected case fails
    the run (exit 1) with or without --strict, saying nothing was judged; with --strict,
    skip entries that keep more than half of the selected cases from running fail it too,
    and half or fewer do not."""
    pass_cases = ["--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd", fake_cmd()]
    every = write(env.path("every.txt"), "* skip # hangs\n")
    for strict in ([], ["--strict"]):
        rep = env.path(f"every{len(strict)}.json")
        rc, out, _ = env.run(["run", *pass_cases, "--no-tap", "--expectations", every,
                              "--report", rep, *strict])
        gate = load_report(rep)["footer"]["gate"]
        assert rc == 1 and "skips every selected case" in gate["rule"] and \
            "nothing was judged" in out, why(
                f"'* skip' {' '.join(strict)}: exit 1, the rule said", 1, (rc, gate, out[-300:]))
    ids = sorted(statuses(load_report(env.path("every0.json"))))
    most = write(env.path("most.txt"), "".join(f"{i} skip\n" for i in ids[:len(ids) // 2 + 1]))
    half = write(env.path("half.txt"), "".join(f"{i} skip\n" for i in ids[:len(ids) // 2]))
    rc, out, _ = env.run(["run", *pass_cases, "--no-tap", "--expectations", most, "--report",
                          env.path("most.json")])
    assert rc == 0, why("skips of more than half without --strict: exit 0", 0, (rc, out[-300:]))
    rc, out, _ = env.run(["run", *pass_cases, "--no-tap", "--expectations", most, "--report",
                          env.path("most.json"), "--strict"])
    assert rc == 1 and "skips more than half of the selected cases" in out, why(
        "--strict, skip entries for more than half of the cases: exit 1", 1, (rc, out[-300:]))
    rc, out, _ = env.run(["run", *pass_cases, "--no-tap", "--expectations", half, "--report",
                          env.path("half.json"), "--strict"])
    assert rc == 0, why("--strict, skip entries for half of the cases: exit 0", 0,
                        (rc, out[-300:]))


def test_shadowed_entry(env: Env) -> None:
    """An entry whose every case an earlier entry takes (a duplicate, a glob after a wider
    one) is shadowed, named with the line that shadows it, not called stale; --strict fails
    on it as on a stale one."""
    exp = write(env.path("dup.txt"),
                "pass.describe-default fail # first\n"
                "pass.* pass\n"
                "pass.describe-default fail # the same again\n"
                "nothing.* fail\n")
    rep = env.path("dup.json")
    args = ["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd", fake_cmd(),
            "--no-tap", "--expectations", exp, "--report", rep]
    rc, out, _ = env.run(args)
    footer = load_report(rep)["footer"]
    stale = [(s["pattern"], s["line"]) for s in footer["stale_expectations"]]
    shadowed = [(s["pattern"], s["line"], s["shadowed_by"])
                for s in footer["shadowed_expectations"]]
    assert (
        rc == 0 and stale == [("nothing.*", 4)] and
        shadowed == [("pass.describe-default", 3, 1)] and
        "line 3: pass.describe-default (shadowed by line 1)" in out
    ), why("a duplicate entry is shadowed by line 1, the unmatched one stale",
           ([("nothing.*", 4)], [("pass.describe-default", 3, 1)]), (rc, stale, shadowed,
                                                                    out[-400:]))
    check_schema(env, rep, env.path("dup.jsonl"), "shadowed expectations")
    only = write(env.path("only-shadowed.txt"), "pass.* pass\npass.describe-default fail\n")
    args = ["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd", fake_cmd(),
            "--no-tap", "--expectations", only, "--report", env.path("only.json")]
    rc, out, _ = env.run(args)
    assert rc == 0, why("a shadowed entry alone: exit 0", 0, (rc, out[-300:]))
    rc, out, _ = env.run([*args, "--strict"])
    assert rc == 1 and "shadowed" in out, why(
        "a shadowed entry alone with --strict: exit 1", 1, (rc, out[-300:]))
