"""What a verdict rests on (spec/decisions.md, Runner and reports 35): a failed case counts
against a profile only where it rests on a must; one resting on a should or on a devspec
decision is counted apart, in the report, the summary and SUMMARY.md's cells."""

from __future__ import annotations

import os
import sys
from typing import Any

from support import CASES, Env, check_schema, fake_cmd, load_report, why

FEATS = "device-attr,device-eq,creation-device-kw,to-device"
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reports"))


def run(env: Env, name: str, *globs: str) -> tuple[dict[str, Any], str]:
    rep = env.path(name + ".json")
    args = ["run", "--cases", os.path.join(CASES, "basis.json"), "--adapter-cmd",
            fake_cmd("--features", FEATS), "--report", rep]
    for g in globs:
        args += ["--case", g]
    rc, _out, err = env.run(args)
    assert rc == 1, why(f"{name}: every case fails, exit 1 (the gate is unchanged)", 1,
                        (rc, err[-600:]))
    check_schema(env, rep, rep[:-5] + ".jsonl", name)
    return load_report(rep), err


def test_each_case_says_what_it_rests_on(env: Env) -> None:
    r, _ = run(env, "basis-all")
    rests = {c["id"]: (c["rests_on"], c.get("decision")) for c in r["cases"]}
    want = {"basis.must": ("must", None), "basis.should": ("should", None),
            "basis.decision": ("decision", "Runner and reports 35")}
    assert rests == want, why("rests_on: the weakest cited level, or the decision named",
                              want, rests)
    core = r["footer"]["profiles"]["test-core"]
    got = (core["verdict"], core["failed"], core["should_failed"], core["differs_from_reading"])
    assert got == ("does-not-conform", 1, 1, 1), why(
        "only the case resting on a must fails the profile; the others are counted apart",
        ("does-not-conform", 1, 1, 1), core)


def test_should_and_decision_never_decide_the_verdict(env: Env) -> None:
    r, err = run(env, "basis-apart", "basis.should", "basis.decision")
    core = r["footer"]["profiles"]["test-core"]
    got = (core["verdict"], core["failed"], core["should_failed"], core["differs_from_reading"])
    # basis.must is not run: the verdict cannot be "conforms", but nothing fails a must.
    assert got == ("undetermined", 0, 1, 1), why(
        "failures resting on a should or a decision are no failures of the verdict",
        ("undetermined", 0, 1, 1), core)
    assert "short of a should: 1; differs from the reference reading: 1" in err, why(
        "the summary's profile line counts them apart", "short of a should: 1; differs ...",
        err[-1200:])
    import summary  # reports/summary.py, which writes SUMMARY.md's profile cells
    cell = summary.verdict_cell(core)
    assert "differs from the reference reading: 1" in cell and "short of a should: 1" in cell, \
        why("SUMMARY.md's cell shows both apart", "differs from the reference reading: 1", cell)
