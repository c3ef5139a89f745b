"""The null adapter in process (a shared object) and out of process (a program): the same
results, the transport recorded, the replies valid."""

from __future__ import annotations

import json
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


def test_library_that_ends_the_process(env: Env) -> None:
    """An in-process library that aborts or faults ends the run, and the run still ends with
    a report: the case it was running is a crash that names the signal, the footer says the
    run is incomplete (exit 3), the report and its journal validate, and stderr names the
    case and says the library ended the process."""
    with open(env.devspec, "rb") as fh:
        sanitized = b"__asan_init" in fh.read()
    for how, sig in (("abort", "SIGABRT"), ("fault", "SIGSEGV")):
        if sanitized and how == "fault":
            sig = "SIGABRT"  # AddressSanitizer reports the fault, then aborts (abort_on_error)
        rep = env.path(f"die-{how}.json")
        rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "null.json"),
                              "--adapter", env.null_so, "--report", rep],
                             env={"DEVSPEC_NULL_DIE": f"device.equal:{how}"})
        assert rc == 3, why(f"{how}: exit 3 (incomplete), not death by {sig}", 3, (rc, err))
        assert f"the library ended the process ({sig}) during case null.three" in err, why(
            f"{how}: stderr names the case and the signal", sig, err)
        with open(rep[:-5] + ".jsonl") as f:
            types = [json.loads(line)["type"] for line in f]
        assert types == ["header", "case", "case", "footer"], why(
            f"{how}: the journal has every case and a footer", "header, 2 cases, footer", types)
        r = load_report(rep)
        assert statuses(r) == {"null.one": "pass", "null.three": "crash"}, why(
            f"{how}: the running case is a crash", "null.three crash", statuses(r))
        crash = r["cases"][1]
        assert f"({sig})" in crash["reason"], why(
            f"{how}: the crash names the signal", sig, crash["reason"])
        foot = r["footer"]
        assert not foot["complete"] and foot["gate"]["exit_status"] == 3 and (
            foot["counts"]["crash"] == 1 and sig in foot["incomplete_reason"]), why(
            f"{how}: the footer says incomplete, why, and exit 3", "incomplete, 3", foot)
        check_schema(env, rep, rep[:-5] + ".jsonl", f"null {how}")
