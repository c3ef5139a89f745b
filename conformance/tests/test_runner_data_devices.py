"""Devices that hold no data (spec/protocol.md, hello's devices_without_data): a case that
reads elements back (array.read, array.exchange) binds $D0, $D1, ... to the devices that hold
data and is skipped, saying why, where too few do; a case that reads nothing back binds every
device, so the placement checks such a device can answer still run."""

from __future__ import annotations

from typing import Any

from support import Env, fake_cmd, load_report, statuses, why, write_cases

VALUES = {"op": "array.asarray",
          "args": {"obj": {"dtype": "float64", "shape": [2], "data": [1.5, 2.5]},
                   "device": "$D1"}, "as": "x"}
CASES = [
    {"id": "data.reads-d1", "description": "An array made on D1 is read back.",
     "spec": ["T-STR-1"], "features": ["device-string"],
     "steps": [VALUES, {"op": "array.read", "args": {"array": "$x"},
                        "expect": {"dtype": "float64", "shape": [2], "data": [1.5, 2.5]}}]},
    {"id": "data.placement-d1", "description": "An array made on D1 is on D1.",
     "spec": ["T-STR-1"], "features": ["device-string"],
     "steps": [VALUES, {"op": "array.describe", "args": {"array": "$x"},
                        "expect": {"device": "$D1"}}]},
]


def run(env: Env, name: str,
        *opts: str) -> tuple[int, dict[str, str], dict[str, dict[str, Any]]]:
    cases = write_cases(env.path(name + "-cases.json"), "Data on devices.", CASES)
    rep = env.path(name + ".json")
    rc, _, _ = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd(*opts),
                          "--report", rep, "--expectations", "/dev/null"])
    r = load_report(rep)
    return rc, statuses(r), {c["id"]: c for c in r["cases"]}


def test_reading_case_binds_devices_that_hold_data(env: Env) -> None:
    # Three devices, the second (gpu:0) without data: the reading case binds $D1 to gpu:1
    # and passes; the placement case binds $D1 to gpu:0 and passes there.
    rc, st, _ = run(env, "three", "--devices", "3", "--no-data", "1")
    assert st == {"data.reads-d1": "pass", "data.placement-d1": "pass"} and rc == 0, why(
        "a reading case skips the device without data", "both pass", (rc, st))


def test_reading_case_skips_without_a_second_data_device(env: Env) -> None:
    rc, st, cases = run(env, "two", "--devices", "2", "--no-data", "1")
    reason = cases["data.reads-d1"].get("reason", "")
    assert st == {"data.reads-d1": "skip", "data.placement-d1": "pass"} and rc == 0 and \
        "hold data" in reason and cases["data.reads-d1"]["skip_source"] == "devices", why(
            "too few devices hold data: a skip that says so", "skip, devices", (st, reason))
    # Without devices_without_data the same case runs on the second device: the skip above
    # comes from the adapter's declaration, not from the case.
    rc, st, _ = run(env, "undeclared", "--devices", "2")
    assert st["data.reads-d1"] == "pass"
