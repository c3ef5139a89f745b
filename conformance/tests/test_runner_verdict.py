"""devspec verdict: one library's verdict per profile from the reports of runs that together
serve it (spec/decisions.md, Runner and reports 40): the features any report claims, each
case's result from the report that ran it, the worst where several did."""

from __future__ import annotations

import json
import os
from typing import Any

from support import CASES, TEST_SPEC, Env, fake_cmd, why

PASS = os.path.join(CASES, "pass.json")
CORE_A = "device-attr,device-eq"
CORE_B = "creation-device-kw,to-device"


def run_part(env: Env, name: str, features: str) -> str:
    rep = env.path(name + ".json")
    env.run(["run", "--cases", PASS, "--adapter-cmd", fake_cmd("--features", features),
             "--report", rep, "--expectations", "/dev/null"])
    return rep


def verdict(env: Env, *reports: str) -> tuple[int, dict[str, Any], str]:
    rc, out, err = env.run(["verdict", *reports, "--spec", TEST_SPEC, "--cases", PASS,
                            "--profile", "test-core", "--json"], spec=False)
    return rc, (json.loads(out) if rc == 0 else {}), err


def test_two_runs_make_one_verdict(env: Env) -> None:
    a, b = run_part(env, "a", CORE_A), run_part(env, "b", CORE_B)
    for one in (a, b):
        rc, v, err = verdict(env, one)
        assert rc == 0 and v["profiles"]["test-core"]["verdict"] == "does-not-conform" and \
            v["profiles"]["test-core"]["missing_features"], why(
                "one part alone lacks the other's features", "does-not-conform", (rc, v, err))
    rc, v, err = verdict(env, a, b)
    core = v.get("profiles", {}).get("test-core", {})
    assert rc == 0 and core.get("verdict") == "conforms" and v["reports"] == 2 and \
        core["passed"] == core["cases"] > 0, why(
            "together the two runs claim every feature and pass every case", "conforms",
            (rc, v, err))


def test_the_worst_result_of_a_case_counts(env: Env) -> None:
    a, b = run_part(env, "a", CORE_A), run_part(env, "b", CORE_B)
    # A third report of the same library that ran one of A's cases and saw it fail: the
    # failure is not hidden by A's pass.
    with open(a, encoding="utf-8") as f:
        doc = json.load(f)
    for c in doc["cases"]:
        if c["id"] == "pass.describe-default":
            c["status"] = "fail"
    worse = env.path("worse.json")
    with open(worse, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    rc, v, err = verdict(env, a, b, worse)
    core = v["profiles"]["test-core"]
    assert rc == 0 and core["verdict"] == "does-not-conform" and core["failed"] == 1, why(
        "a failure in any report counts", "1 failing", (rc, core, err))


def test_reports_of_two_libraries_refused(env: Env) -> None:
    a = run_part(env, "a", CORE_A)
    with open(a, encoding="utf-8") as f:
        doc = json.load(f)
    doc["header"]["library"]["name"] = "another"
    other = env.path("other.json")
    with open(other, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    rc, _, err = verdict(env, a, other)
    assert rc == 2 and "one library's reports only" in err, why(
        "reports of two libraries are a usage error", 2, (rc, err))
    rc, _, err = verdict(env, env.path("missing.json"))
    assert rc == 2 and "missing.json" in err
