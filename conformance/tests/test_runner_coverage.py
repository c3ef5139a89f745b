"""`devspec coverage`: which statements the cases cover, and the gate on uncovered ones."""

from __future__ import annotations

import json

from support import CASES, Env, why


def test_gate(env: Env) -> None:
    rc, out, err = env.run(["coverage", "--cases", CASES, "--core", "--fail-uncovered", "must"])
    assert rc == 0, why(
        "coverage: every must statement of the core profile has a case: exit 0", 0,
        (rc, out, err))
    rc, out, err = env.run(["coverage", "--cases", CASES, "--core", "--fail-uncovered",
                            "must,should"])
    assert rc == 1 and "T-ATTR-2" in out and "UNCOVERED (gating)" in out, why(
        "coverage: an uncovered should statement fails with --fail-uncovered must,should", 1,
        (rc, out))


def test_json(env: Env) -> None:
    _, out, _ = env.run(["coverage", "--cases", CASES, "--profile", "test-core", "--json"])
    cov = json.loads(out)
    st = {s["id"]: s for s in cov[0]["statements"]}
    assert st["T-TODEV-1"]["cases"] == ["pass.to-device"], why(
        "coverage lists the cases that cite a statement", ["pass.to-device"], st["T-TODEV-1"])
    assert st["T-CREATE-2"]["cases"] == [] and not st["T-CREATE-2"]["covered"], why(
        "coverage marks uncovered statements", [], st["T-CREATE-2"])
    assert "pass.output-follows-input" not in st["T-TODEV-1"]["cases"], why(
        "only cases that count for the profile cover its statements", "absent", st["T-TODEV-1"])


def test_unknown_level(env: Env) -> None:
    rc, _, _ = env.run(["coverage", "--cases", CASES, "--fail-uncovered", "sometimes"])
    assert rc == 2, why("coverage: an unknown level is a usage error", 2, rc)
