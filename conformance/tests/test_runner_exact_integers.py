"""Integers beyond 2^53 compare exactly in every matcher, end to end: refarray's adapter
writes int64 elements beyond 2^53 as decimal strings (spec/protocol.md, "Typed arrays"), and
`"data": {"$each": 9007199254740993}` once never matched them. exact/exact-integers.json reads
full(2, 2^53 + 1) through each matcher and must pass; exact-integers-fail.json reads it
against 2^53 (the same double) and must fail at the read step. Out of process and in
process. The judge's own unit tests (test_units.c, exact_integers) hold each matcher to
the same rule with fixed values, beyond 64 bits included."""

from __future__ import annotations

import os

import pytest
from support import HERE, Env, Report, load_report, statuses, why

# Cases of the project's own spec (refarray claims its features), not the tests' registry.
EXACT = os.path.join(HERE, "exact")


def run(env: Env, name: str, in_process: bool) -> tuple[int, Report, str]:
    rep = env.path(name + (".inproc" if in_process else "") + ".json")
    args = ["run", "--adapter", "refarray", "--cases", os.path.join(EXACT, name), "--no-tap",
            "--no-progress", "--report", rep]
    rc, _out, err = env.run(args + (["--in-process"] if in_process else []),
                            env={"POCL_DEVICES": "pthread pthread"}, spec=False)
    return rc, load_report(rep), err


@pytest.mark.parametrize("in_process", [False, True], ids=["pipe", "in-process"])
def test_integers_beyond_2_53_match_in_every_matcher(env: Env, in_process: bool) -> None:
    rc, rep, err = run(env, "exact-integers.json", in_process)
    st = statuses(rep)
    assert rc == 0 and len(st) == 9 and set(st.values()) == {"pass"}, why(
        "exact-integers.json through refarray: every matcher takes 2^53 + 1", "9 x pass",
        (rc, st, err[-1000:]))


@pytest.mark.parametrize("in_process", [False, True], ids=["pipe", "in-process"])
def test_2_53_is_not_2_53_plus_1_in_any_matcher(env: Env, in_process: bool) -> None:
    rc, rep, err = run(env, "exact-integers-fail.json", in_process)
    cases = {c["id"]: c for c in rep["cases"]}
    assert rc == 1 and len(cases) == 7, why(
        "exact-integers-fail.json: 7 cases, exit 1", 7, (rc, sorted(cases), err[-1000:]))
    for cid, c in cases.items():
        assert c.get("status") == "fail" and c.get("step") == 1, why(
            f"{cid}: fails at the read step (2^53 is not 2^53 + 1)", ("fail", 1),
            (c.get("status"), c.get("step"), c.get("reason")))
