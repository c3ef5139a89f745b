"""--jobs N sends the cases of one subject to one worker (conformance/src/schedule.c): a
library that compiles a program per function and dtype (JAX) compiles each once per run,
not once per worker that meets it. The report is still that of --jobs 1."""

from __future__ import annotations

import collections

from support import Env, fake_cmd, load_report, write_cases


def test_one_subject_one_worker(env: Env) -> None:
    # 48 cases whose subjects alternate (zeros, ones, full of two dtypes): in the suite's
    # order, runs of consecutive cases gave every worker every subject.
    cases = []
    for i in range(48):
        fn, dtype = [("zeros", "float64"), ("ones", "float64"), ("full", "float64"),
                     ("full", "int32")][i % 4]
        args: dict[str, object] = {"fn": fn, "shape": [2], "device": "$D0", "dtype": dtype}
        if fn == "full":
            args["fill_value"] = 3
        cases.append({"id": "schedule.case-%02d" % i, "spec": ["T-CREATE-1"],
                      "features": ["creation-device-kw"],
                      "steps": [{"op": "array.create", "args": args, "as": "x"},
                                {"op": "array.read", "args": {"array": "$x"}}]})
    path = write_cases(env.path("schedule.json"), "subjects that alternate", cases)
    log = env.path("served.log")
    reports: dict[str, list[tuple[str, str]]] = {}
    for jobs in ("1", "2"):
        slow = fake_cmd("--create-seconds", "0.05")  # so that the second worker starts in time
        rc, _, err = env.run(["run", "--cases", path, "--adapter-cmd", slow, "--jobs", jobs,
                              "--no-tap", "--report", env.path("schedule-%s.json" % jobs)],
                             env={"DEVSPEC_FAKE_LOG": log if jobs == "2" else ""})
        assert rc == 0, err
        reports[jobs] = [(c["id"], c["status"]) for c in
                         load_report(env.path("schedule-%s.json" % jobs))["cases"]]
    assert reports["1"] == reports["2"], "--jobs 2 reports the cases as --jobs 1 does"
    served: dict[str, set[str]] = collections.defaultdict(set)
    pids = set()
    with open(log) as f:
        for line in f:
            pid, op, fn = [*line.split(), ""][:3]
            if op == "array.create":
                served[fn].add(pid)
                pids.add(pid)
    assert len(pids) == 2, "both workers served cases: %s" % sorted(pids)
    # zeros and ones are one subject each; full is two (float64, int32), which may go to
    # both workers, but each of those to one.
    assert len(served["zeros"]) == 1 and len(served["ones"]) == 1, dict(served)
