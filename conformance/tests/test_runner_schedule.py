"""--jobs N sends the cases that name the same dtypes to one worker, whatever function they
call (conformance/src/schedule.c): a library that compiles a program per function, dtype and
shape (JAX) compiles the programs that make a dtype's inputs once per run, not once per
worker that meets them. A worker left without cases takes the back half of what another's
run has not begun (run.c's take_run). The report is still that of --jobs 1."""

from __future__ import annotations

import collections

from support import Env, fake_cmd, load_report, write_cases


def run_jobs(env: Env, name: str, plan: list[tuple[str, str]]) -> dict[str, dict[str, list[int]]]:
    """Runs one case per entry of PLAN (FN, DTYPE): an array.create of shape [i + 1] (its
    place, so that the log names the case) with --jobs 1 and 2, checks that both report the
    same, and returns per dtype the places of its cases each worker (by pid) served."""
    cases = []
    for i, (fn, dtype) in enumerate(plan):
        args: dict[str, object] = {"fn": fn, "shape": [i + 1], "device": "$D0", "dtype": dtype}
        if fn == "full":
            args["fill_value"] = 3
        cases.append({"id": "schedule.case-%02d" % i, "spec": ["T-CREATE-1"],
                      "features": ["creation-device-kw"],
                      "steps": [{"op": "array.create", "args": args, "as": "x"},
                                {"op": "array.describe", "args": {"array": "$x"}}]})
    path = write_cases(env.path(name + ".json"), name, cases)
    log = env.path(name + ".log")
    reports: dict[str, list[tuple[str, str]]] = {}
    for jobs in ("1", "2"):
        slow = fake_cmd("--create-seconds", "0.05")  # so that the second worker starts in time
        rc, _, err = env.run(["run", "--cases", path, "--adapter-cmd", slow, "--jobs", jobs,
                              "--no-tap", "--report", env.path("%s-%s.json" % (name, jobs))],
                             env={"DEVSPEC_FAKE_LOG": log if jobs == "2" else ""})
        assert rc == 0, err
        reports[jobs] = [(c["id"], c["status"]) for c in
                         load_report(env.path("%s-%s.json" % (name, jobs)))["cases"]]
    assert reports["1"] == reports["2"], "--jobs 2 reports the cases as --jobs 1 does"
    served: dict[str, dict[str, list[int]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    with open(log) as f:
        for line in f:
            pid, op, _, dtype, shape = [*line.split(), "", "", "", ""][:5]
            if op == "array.create":
                served[dtype][pid].append(int(shape.strip("[]")) - 1)
    assert len({pid for by in served.values() for pid in by}) == 2, "both workers served"
    return served


def test_one_dtype_set_one_worker(env: Env) -> None:
    # 48 cases whose dtypes and functions alternate, four dtypes of 12 cases each with two
    # functions: in the suite's order, runs of consecutive cases gave every worker every
    # dtype, and groups by function and dtype sent a dtype's two functions to two workers.
    plan = [("zeros", "float64"), ("ones", "float64"), ("zeros", "int32"), ("full", "int32"),
            ("zeros", "int16"), ("ones", "int16"), ("full", "int8"), ("ones", "int8")]
    served = run_jobs(env, "alternate", [plan[i % len(plan)] for i in range(48)])
    assert len(served) == 4, dict(served)
    for dtype, by in served.items():
        # One worker served them, or one the front and the other the back that it took
        # at the end; never interleaved.
        runs = sorted(by.values(), key=min)
        assert len(runs) == 1 or (len(runs) == 2 and max(runs[0]) < min(runs[1])), (dtype, by)


def test_an_idle_worker_takes_half_of_a_run(env: Env) -> None:
    # Three dtypes of 16 cases each, in their own pieces (48 / 2 = 24 a piece): two workers
    # take one each, and the one that finishes first the third; the other, finding no case
    # left, takes the back half of what the third's run has not begun instead of waiting.
    plan = [("zeros", "float64")] * 16 + [("zeros", "int32")] * 16 + [("zeros", "int16")] * 16
    served = run_jobs(env, "steal", plan)
    split = [by for by in served.values() if len(by) == 2]
    assert len(split) == 1, dict(served)
    front, back = sorted(split[0].values(), key=min)
    assert max(front) < min(back), split[0]
