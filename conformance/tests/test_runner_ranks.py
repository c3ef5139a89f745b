"""SPMD adapters (spec/protocol.md, "SPMD transport"): "ranks" in hello, cases that need
more ranks are skipped, per-rank expectations judge each rank's own outcome."""

from __future__ import annotations

import os

from support import (
    CASES,
    Env,
    check_schema,
    check_trace,
    fake_cmd,
    load_report,
    statuses,
    why,
)


def test_ranks(env: Env) -> None:
    cases = os.path.join(CASES, "ranks.json")
    rep = env.path("ranks.json")
    rc, _, _ = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd("--ranks", "2"),
                        "--report", rep, "--trace", env.path("ranks.trace")])
    r = load_report(rep)
    st = statuses(r)
    assert (
        st == {"ranks.each": "pass", "ranks.same": "pass", "ranks.wrong": "fail",
               "ranks.too-many": "skip", "ranks.either": "pass", "ranks.either-none": "fail"}
        and rc == 1
    ), why(
        "per-rank expectations pass and fail per rank, also as either alternatives; too many "
        "ranks is a skip", "pass pass fail skip pass fail", (rc, st))
    by = {c["id"]: c for c in r["cases"]}
    assert (
        by["ranks.either"].get("steps") == [{"op": "util.num_gpus", "outcome": "returned",
                                              "alternative": 2}]
    ), why(
        "the per-rank alternative that held is recorded", "alternative 2", by["ranks.either"])
    by_id = {c["id"]: c for c in r["cases"]}
    assert "rank 1" in by_id["ranks.wrong"].get("reason", ""), why(
        "the failure names rank 1", "rank 1", by_id["ranks.wrong"].get("reason"))
    assert (
        by_id["ranks.too-many"].get("reason") == "needs 8 ranks, adapter has 2" and
        by_id["ranks.too-many"].get("skip_source") == "ranks"
    ), why(
        "the skip says how many ranks", "needs 8 ranks, adapter has 2", by_id["ranks.too-many"])
    check_schema(env, rep, env.path("ranks.jsonl"), "ranks.json")
    check_trace(env, env.path("ranks.trace"), "ranks.json (per-rank replies)")


def test_one_rank(env: Env) -> None:
    env.run(["run", "--cases", os.path.join(CASES, "ranks.json"), "--adapter-cmd", fake_cmd(),
             "--report", env.path("one.json")])
    st = statuses(load_report(env.path("one.json")))
    assert set(st.values()) == {"skip"}, why(
        "an adapter without \"ranks\" has one rank: all skipped", "6 x skip", st)
