"""A library that lacks a function (the fake adapter's --lacks ones): the adapter's error
carries "lacks"; it never satisfies raises nor an either alternative; the case's status is
lacks, unexpected unless an expectations entry covers it; a case whose features are not all
claimed is a skip as before; the closing line, TAP, JUnit, the report and the profile
verdict say what is lacking."""

from __future__ import annotations

import os
import re

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

CASES_FILE = os.path.join(CASES, "lacks.json")
FEATS = "device-attr,device-eq,creation-device-kw,to-device"


def test_lacks(env: Env) -> None:
    rep, junit, trace = env.path("lacks.json"), env.path("lacks.xml"), env.path("lacks.trace")
    rc, out, err = env.run(["run", "--cases", CASES_FILE, "--adapter-cmd",
                            fake_cmd("--lacks", "ones", "--features", FEATS),
                            "--report", rep, "--junit", junit, "--trace", trace])
    r = load_report(rep)
    st = statuses(r)
    want = {"lacks.plain": "lacks", "lacks.not-a-raise": "lacks",
            "lacks.not-an-alternative": "lacks", "lacks.not-needed": "pass",
            "lacks.unclaimed": "skip"}
    assert st == want, why(
        "what the library lacks is neither an expected error nor an either alternative: "
        "status lacks; an unclaimed feature is still a skip", want, st)
    assert rc == 1 and r["footer"]["gate"]["exit_status"] == 1, why(
        "lacks is unexpected: exit 1", 1, rc)
    by = {c["id"]: c for c in r["cases"]}
    assert by["lacks.plain"].get("lacks") == ["ones"] and by["lacks.plain"].get("step") == 0, why(
        "the case record names what is lacking, and the step", ["ones"], by["lacks.plain"])
    assert r["footer"]["counts"]["lacks"] == 3, why(
        "the footer counts lacks", 3, r["footer"]["counts"])
    core = r["footer"]["profiles"]["test-core"]
    assert (
        core["verdict"] == "does-not-conform" and core["lacks"] == ["ones"]
    ), why(
        "a profile that needs what the library lacks does not conform, and says what it lacks",
        "does-not-conform, lacks ones", core)
    check_schema(env, rep, rep[:-5] + ".jsonl", "lacks.json")
    check_trace(env, trace, "lacks.json (replies with lacks)")
    check_junit(junit, r, "lacks.json")
    xml = read(junit)
    assert '<failure type="lacks"' in xml, why(
        "JUnit: a lacks is a failure of type lacks", "type=lacks", xml[:300])
    assert 'status: "lacks"' in out and 'lacks: "ones"' in out, why(
        "TAP: the YAML block says lacks and what", 'lacks: "ones"', out[-800:])
    check_tap(env, out, "lacks run", False)
    last = err.rstrip("\n").split("\n")[-1]
    assert (
        re.fullmatch(r"1 passed, 0 failed, 1 skipped, 0 errors, 3 lacking in \d+\.\d\d s "
                     r"\(and \d+\.\d\d s loading the suite\)", last)
        is not None
    ), why(
        "the closing line counts the cases lacking", "1 passed, ..., 3 lacking in T s", last)
    assert (
        "\n  3 x lacks at step 0 (array.create)\n" in err and
        "\n      e.g. lacks.plain: " in err
    ), why(
        "the summary groups the unexpected results by cause, with a count and an example",
        "3 x lacks at step 0 ...", err[:800])
    assert "test-core" in err and "does-not-conform: lacks ones" in err, why(
        "the summary's verdict says what the library lacks", "does-not-conform: lacks ones",
        err[-800:])


def test_lacks_expected(env: Env) -> None:
    """An expectations entry covers it: then an expected failure of that class."""
    exp = env.path("lacks.txt")
    with open(exp, "w") as f:
        f.write("lacks.plain lacks # the library has no ones\n"
                "lacks.not-a-raise fail # not that class\n")
    env.run(["run", "--cases", CASES_FILE, "--adapter-cmd",
                            fake_cmd("--lacks", "ones", "--features", FEATS),
                            "--expectations", exp, "--report", env.path("lacks-x.json")])
    st = statuses(load_report(env.path("lacks-x.json")))
    assert (
        st["lacks.plain"] == "xfail" and st["lacks.not-a-raise"] == "lacks"
    ), why(
        "an expectations entry 'lacks' covers a lacks (xfail); a 'fail' entry does not",
        "xfail lacks", (st["lacks.plain"], st["lacks.not-a-raise"]))


def test_has_it(env: Env) -> None:
    """A library that has ones passes the same cases: the lack is the only difference."""
    rc, _, _ = env.run(["run", "--cases", CASES_FILE, "--adapter-cmd",
                        fake_cmd("--features", FEATS), "--report", env.path("has.json")])
    st = statuses(load_report(env.path("has.json")))
    assert (
        rc == 1 and st["lacks.plain"] == "pass" and st["lacks.not-an-alternative"] == "pass"
    ), why(
        "the same cases pass against the library that has ones (not-a-raise fails: ones([-1]) "
        "works there)", "pass", st)
