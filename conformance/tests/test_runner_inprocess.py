"""The null adapter in process (a shared object) and out of process (a program): the same
results, the transport recorded, the replies valid."""

from __future__ import annotations

import os

from support import (
    CASES,
    Env,
    check_schema,
    check_trace,
    load_report,
    statuses,
    why,
)


def test_inprocess(env: Env) -> None:
    results = {}
    for label, adapter in (("in process", env.null_so), ("out of process", env.null_prog)):
        rep = env.path(f"null-{label[:2]}.json")
        rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "null.json"),
                              "--adapter", adapter, "--report", rep, "--trace",
                              rep[:-5] + ".trace"], env={"DEVSPEC_NULL_FEATURES": "device-attr"})
        r = load_report(rep)
        results[label] = statuses(r)
        assert rc == 0, why(f"null adapter {label}: exit 0", 0, (rc, err))
        assert (
            r["header"]["adapter"]["transport"]
            == ("in-process" if label == "in process" else "out-of-process")
        ), why(
            f"null adapter {label}: the transport is recorded", label, r["header"]["adapter"])
        check_schema(env, rep, rep[:-5] + ".jsonl", f"null {label}")
        # The null adapter answers null for an array too: the case's next request then
        # carries null where a handle goes, so only the replies are checked here.
        check_trace(env, rep[:-5] + ".trace", f"null {label}", requests=False)
    assert (
        results["in process"] == results["out of process"]
        == {"null.one": "pass", "null.three": "pass"}
    ), why(
        "both transports give the same results", "same", results)


def test_missing_shared_object(env: Env) -> None:
    rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "null.json"),
                          "--adapter", env.path("missing.so"), "--report", env.path("m.json")])
    assert rc == 3 and "cannot load" in err, why(
        "a .so that cannot be loaded: exit 3", 3, (rc, err))
