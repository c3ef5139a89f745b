"""Host data larger than 1 MiB crosses in one request (spec/protocol.md, "Limits": a request
line is at most 64 MiB, as a reply is): a 65,536-element complex64 array made from host data
(a request of about 2.8 MB, the size an FFT library's cases need) and read back exact, on
refarray's adapter in and out of process and on python:numpy; and an adapter whose hello
gives a smaller max_line gets no request longer than that: the step is an error naming both
sizes, and the adapter is not sent it."""

from __future__ import annotations

import json
import math
import os
import struct
import sys

import pytest
from support import Env, fake_cmd, load_report, why

N = 65536


def f32(x: float) -> str:
    """x rounded to float32, written as the double it is (about 18 digits, as a writer of
    float64 text gives a float32 value: the element texts of an FFT library's data)."""
    return repr(struct.unpack("f", struct.pack("f", x))[0])


def host_data_cases() -> dict[str, object]:
    """One case: asarray from N complex64 elements (sin and cos of i, each exact in float32)
    on $D0, read back; the request is about 2.8 MB."""
    data = [[f32(math.sin(i)), f32(math.cos(i))] for i in range(N)]
    typed = {"dtype": "complex64", "shape": [N], "data": data}
    return {"description": "Host data over 1 MiB.", "cases": [{
        "id": "host-data.complex64-65536",
        "description": "asarray of 65,536 complex64 elements from host data reads back "
                       "exact.",
        "spec": ["DEV-DS-9"],
        "features": ["creation-device-kw"],
        "steps": [
            {"op": "array.asarray", "args": {"obj": typed, "device": "$D0"}, "as": "x"},
            {"op": "array.read", "args": {"array": "$x"}, "expect": typed},
        ]}]}


def write_cases(env: Env) -> tuple[str, int]:
    """The case file and the length of its asarray request's args."""
    doc = host_data_cases()
    path = env.path("host-data.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    step = doc["cases"][0]["steps"][0]  # type: ignore[index]
    return path, len(json.dumps(step["args"], separators=(",", ":")))


def run(env: Env, cases: str, *adapter: str) -> dict[str, tuple[str, str, int, str]]:
    report = env.path("report.json")
    rc, _, err = env.run(["run", *adapter, "--cases", cases, "--report", report, "--no-tap",
                          "--no-progress", "--jobs", "1"],
                         spec=False)
    doc = load_report(report)
    return {c["id"]: (c["status"], c.get("reason", ""), rc, err[-1500:]) for c in doc["cases"]}


@pytest.mark.parametrize("transport", ["out-of-process", "in-process"])
def test_refarray_reads_back_host_data_over_one_mib(env: Env, transport: str) -> None:
    so = os.path.join(env.build, "adapters", "refarray", "devspec_adapter_refarray.so")
    if not os.path.exists(so):
        pytest.skip("refarray's adapter is not built")
    cases, size = write_cases(env)
    assert size > 2_700_000, why("the request is over 1 MiB (2.8 MB)", "> 2.7 MB", size)
    extra = ["--in-process"] if transport == "in-process" else []
    got = run(env, cases, "--adapter", "refarray", *extra)
    assert got["host-data.complex64-65536"][0] == "pass", why(
        "65,536 complex64 elements cross and read back", "pass", got)


def test_numpy_reads_back_host_data_over_one_mib(env: Env) -> None:
    pytest.importorskip("numpy")
    cases, _ = write_cases(env)
    got = run(env, cases, "--adapter", "python:numpy", "--python", sys.executable)
    assert got["host-data.complex64-65536"][0] == "pass", why(
        "65,536 complex64 elements cross and read back", "pass", got)


def test_a_request_over_the_adapters_max_line_is_not_sent(env: Env) -> None:
    # The fake adapter's hello gives max_line 1 MiB (fixtures/fake_adapter.py).
    cases, size = write_cases(env)
    got = run(env, cases, "--adapter-cmd", fake_cmd())
    status, reason, _, _ = got["host-data.complex64-65536"]
    assert status == "error", why("a request the adapter cannot read is an error", "error", got)
    for part in ("the request for array.asarray is ", " bytes, more than the 1048576 bytes the "
                 "adapter reads (hello's max_line); not sent"):
        assert part in reason, why("the reason names both sizes", part, reason)
    sent = int(reason.split("the request for array.asarray is ")[1].split(" ")[0])
    assert sent > size, why("the size named is the request's", "> %d" % size, sent)
