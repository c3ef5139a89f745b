"""The runner's memory is bounded by the reply, not by its elements or its failures: a reply
at the 64 MiB limit is read whole and fails at its last element with the runner's peak at
most 3 times the reply (not checked under AddressSanitizer), the report keeps a summary;
four such failures peak where one does; a reply of 100k plain values is refused. The peaks
are printed (pytest -s shows them)."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest
from support import TEST_SPEC, Env, fake_cmd, load_report, why, write_cases

LIMIT = 64 << 20


def sanitized(env: Env) -> bool:
    """Whether the runner is built with AddressSanitizer (whose own memory the peaks hold)."""
    with open(env.devspec, "rb") as fh:
        return b"__asan_init" in fh.read()


def peak_run(env: Env, args: list[str], timeout: float = 600) -> tuple[int, str, str, int]:
    """Runs the runner with ARGS as env.run does; returns (exit status, stdout, stderr, its
    peak resident memory in bytes: VmHWM sampled from /proc while it runs). A run going on
    past TIMEOUT seconds fails as a hang."""
    cmd = [env.devspec, *args, "--spec", TEST_SPEC]
    out_path, err_path = env.path("peak.out"), env.path("peak.err")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env.environ(), cwd=env.tmp)
        hwm, end = 0, time.monotonic() + timeout
        while p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/status") as fh:
                    for line in fh:
                        if line.startswith("VmHWM:"):
                            hwm = max(hwm, int(line.split()[1]) * 1024)
            except (OSError, ValueError):
                pass
            if time.monotonic() > end:  # a liveness bound, not a speed
                p.kill()
                p.wait()
                raise AssertionError(why(
                    f"devspec {' '.join(args)}: did not stop within {timeout:g} s (hang)",
                    "it stops", f"killed; peak so far {hwm} bytes"))
            time.sleep(0.002)  # the sampling interval
    with open(out_path) as o, open(err_path) as r:
        return p.returncode, o.read(), r.read(), hwm


def big_cases(path: str, kind: str, size: int, copies: int = 1) -> None:
    """A case file of COPIES cases, each one step answered by a typed array of about SIZE
    bytes whose last element differs (the fake adapter's "big-KIND:SIZE")."""
    dtype, each = {"int": ("int64", 0), "float": ("float64", 0.30000000000000004),
                   "bool": ("bool", True)}[kind]
    write_cases(path, "Large replies.", [
        {"id": f"big.{kind}.{i}", "description": "a large reply", "spec": ["T-STR-1"],
         "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": f"big-{kind}:{size}"},
                    "expect": {"dtype": dtype, "data": {"$each": each}}}]}
        for i in range(copies)])


@pytest.mark.parametrize("kind", ["int", "float", "bool"])
def test_reply_at_the_limit(env: Env, kind: str) -> None:
    size = LIMIT - 4096
    cases = env.path(f"big-{kind}.json")
    big_cases(cases, kind, size)
    report = env.path(f"big-{kind}-report.json")
    rc, _, err, peak = peak_run(env, ["run", "--cases", cases, "--adapter-cmd", fake_cmd(),
                                      "--no-tap", "--jobs", "1", "--timeout", "300",
                                      "--report", report])
    r = load_report(report)
    c = r["cases"][0]
    n = c.get("observed", {}).get("shape", [0])[0]
    summary = c.get("observed", {}).get("data", {}).get("$summary", {})
    assert rc == 1 and c["status"] == "fail" and f".data[{n - 1}]" in c["reason"], why(
        f"a {kind} reply at the limit is read whole and fails at its last element",
        f"fail at .data[{n - 1}]", (rc, c.get("reason"), err[-300:]))
    assert (
        summary.get("count") == n and len(summary.get("first", [])) == 8 and
        len(summary.get("last", [])) == 8 and len(summary.get("sha256", "")) == 64
    ), why(
        f"{kind}: the report keeps a summary of the observed data (count, ends, hash)",
        n, summary)
    assert os.path.getsize(report) < 65536, why(
        f"{kind}: the report stays small ({os.path.getsize(report)} bytes)", "< 64 KiB",
        os.path.getsize(report))
    print(f"# {kind}: reply {size} bytes, runner peak {peak / 2**20:.1f} MiB = "
          f"{peak / size:.2f} x the reply")
    if sanitized(env):
        print(f"# {kind}: peak memory <= 3 x the reply: not checked (AddressSanitizer's own "
              "memory)")
    else:
        assert peak <= 3 * size, why(
            f"{kind}: the runner's peak memory is at most 3 x the reply", f"<= {3 * size}", peak)


def test_four_failures(env: Env) -> None:
    """Failed cases keep summaries only: four failing 16 MB replies cost what one does. TAP
    and JUnit quote values within bounds too."""
    one, four = env.path("big-one.json"), env.path("big-four.json")
    big_cases(one, "int", 16 << 20, 1)
    big_cases(four, "int", 16 << 20, 4)
    rc1, _, _, peak1 = peak_run(env, ["run", "--cases", one, "--adapter-cmd", fake_cmd(),
                                      "--no-tap", "--jobs", "1", "--report",
                                      env.path("one.json")])
    rc4, out4, _, peak4 = peak_run(env, ["run", "--cases", four, "--adapter-cmd", fake_cmd(),
                                         "--tap", "--jobs", "1", "--report",
                                         env.path("four.json"), "--junit",
                                         env.path("four.xml")])
    print(f"# one failing 16 MiB reply: peak {peak1 / 2**20:.1f} MiB; four: "
          f"{peak4 / 2**20:.1f} MiB")
    if sanitized(env):
        print("# four failing cases cost what one does: not checked (AddressSanitizer's own "
              "memory)")
    else:
        assert rc1 == 1 and rc4 == 1 and peak4 <= peak1 + (4 << 20), why(
            "four failing large replies: the peak does not grow with the failures",
            f"<= {peak1 + (4 << 20)}", (rc1, rc4, peak4))
    sizes = (len(out4), os.path.getsize(env.path("four.xml")),
             os.path.getsize(env.path("four.jsonl")))
    assert all(s < 65536 for s in sizes), why(
        "TAP, JUnit and the journal of four large failures stay small", "< 64 KiB each", sizes)


def test_long_plain_list(env: Env) -> None:
    """Outside the data of typed arrays a reply holds at most 65536 values."""
    lst = env.path("big-list.json")
    with open(lst, "w") as fh:
        json.dump({"description": "A long plain list.", "cases": [
            {"id": "big.list", "description": "100k values", "spec": ["T-STR-1"],
             "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "big-list:200000"}}]}]}, fh)
    rc, _, _ = env.run(["run", "--cases", lst, "--adapter-cmd", fake_cmd(), "--no-tap",
                        "--report", env.path("list.json")])
    c = load_report(env.path("list.json"))["cases"][0]
    assert rc == 1 and c["status"] == "error" and "65536 values" in c["reason"], why(
        "a reply of 100k values outside typed arrays is a protocol error naming the limit",
        "error", (rc, c.get("reason")))


def test_string_reply_at_the_limit(env: Env) -> None:
    """A reply of one string at the limit costs the runner about twice the reply (the line
    and the string), as typed data do: it was 3 times (the reader's copy of the line)."""
    size = LIMIT - 4096
    cases = env.path("big-str.json")
    write_cases(cases, "A large string reply.", [
        {"id": "big.str", "description": "a large string", "spec": ["T-STR-1"],
         "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": f"big-str:{size}"}, "expect": "x"}]}])
    report = env.path("big-str-report.json")
    rc, _, err, peak = peak_run(env, ["run", "--cases", cases, "--adapter-cmd", fake_cmd(),
                                      "--no-tap", "--jobs", "1", "--timeout", "300",
                                      "--report", report])
    c = load_report(report)["cases"][0]
    assert rc == 1 and c["status"] == "fail" and "a string of" in c["reason"], why(
        "a string reply at the limit is read and fails", "fail", (rc, c.get("reason"), err))
    assert os.path.getsize(report) < 65536, why(
        "the report keeps a summary of the string", "< 64 KiB", os.path.getsize(report))
    print(f"# str: reply {size} bytes, runner peak {peak / 2**20:.1f} MiB = "
          f"{peak / size:.2f} x the reply")
    if not sanitized(env):
        assert peak <= 2.5 * size, why(
            "the runner's peak memory for a string reply is about twice the reply",
            f"<= {2.5 * size}", peak)


def test_case_file_larger_than_memory(env: Env) -> None:
    """A valid case file the process has not the memory to load is said to be so (out of
    memory, its size), not "invalid JSON" at the byte where memory ran out."""
    if sanitized(env):
        pytest.skip("AddressSanitizer reserves more address space than the limit allows")
    import resource
    big = env.path("huge-cases.json")
    cases = [{"id": f"huge.{i}", "description": "one of many", "spec": ["T-STR-1"],
              "features": ["device-string"],
              "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]} for i in range(150000)]
    write_cases(big, "Many cases.", cases)
    limit = 128 << 20

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    p = subprocess.run([env.devspec, "validate", "--cases", big, "--spec", TEST_SPEC],
                       capture_output=True, text=True, timeout=300, preexec_fn=cap)
    size = os.path.getsize(big)
    assert p.returncode == 2 and f"{big}: (file): out of memory reading it ({size} bytes" in \
        p.stderr and "invalid JSON" not in p.stderr, why(
            f"a {size}-byte case file under a {limit >> 20} MiB limit: out of memory, said",
            "out of memory reading it", (p.returncode, p.stderr[-500:]))
