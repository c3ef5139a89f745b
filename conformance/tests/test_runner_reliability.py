"""The runner's robustness: bad files, bad paths, links, FIFOs, NUL bytes, signals, concurrent
runs, killed runners, oversized replies, full disks."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from procutil import alive, children
from support import (
    CASES,
    FAKE,
    TEST_SPEC,
    Env,
    Report,
    fake_cmd,
    file_has,
    hang_in_flight,
    hang_suite,
    load_jsonl,
    load_report,
    read,
    stops,
    wait_until,
    why,
    write_cases,
)

GOOD = os.path.join(CASES, "pass.json")
BASE = ["run", "--cases", GOOD, "--adapter-cmd", fake_cmd(), "--no-tap"]


def test_not_regular_outputs(env: Env) -> None:
    """Nothing the runner writes replaces a file that is not regular."""
    fifo = env.path("report-fifo.json")
    os.mkfifo(fifo)
    got: list[str] = []
    t = threading.Thread(target=lambda: got.append(read(fifo)))
    t.start()
    rc, _, err = env.run([*BASE, "--report", fifo], timeout=60)
    t.join(30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), why(
        "a FIFO given as --report stays a FIFO", "FIFO", oct(os.stat(fifo).st_mode))
    assert rc == 0 and got and json.loads(got[0])["type"] == "devspec-report", why(
        "the report is written into the FIFO in place", "a report", (rc, err, got[:1]))
    assert not os.path.exists(env.path("report-fifo.jsonl")), why(
        "a report path that is not a regular file gets no journal beside it", "absent",
        os.listdir(env.tmp))
    rc, _, err = env.run([*BASE, "--report", "/dev/null", "--junit", "/dev/null"], timeout=60)
    assert rc == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode), why(
        "--report /dev/null --junit /dev/null: written in place, exit 0", 0, (rc, err))
    d = env.path("report-dir.json")
    os.mkdir(d)
    rc, _out, err = env.run([*BASE, "--report", d], timeout=60)
    assert rc == 3 and "is a directory" in err.lower() and os.path.isdir(d), why(
        "a directory given as --report is refused, exit 3", 3, (rc, err))
    leftovers = [n for n in os.listdir(env.tmp) if ".tmp" in n]
    assert not leftovers, why("no temporary file is left behind", [], leftovers)


def test_two_runs_one_report(env: Env) -> None:
    """Two runs with the same --report: the second is refused while the first writes."""
    hang = hang_suite(env, "hang")
    rep = env.path("shared.json")
    first = env.start(["run", "--cases", hang, "--timeout", "3", "--adapter-cmd", fake_cmd(),
                       "--report", rep, "--no-tap"])
    jsonl = env.path("shared.jsonl")
    wait_until(file_has(jsonl, '"h.pass"'))
    rc, _, err = env.run(["run", "--cases", GOOD, "--adapter-cmd", fake_cmd(), "--report", rep,
                          "--no-tap"], timeout=60)
    assert rc == 3 and f"another run (process {first.pid}) is writing" in err, why(
        "a second run on a report path in use is refused, exit 3", 3, (rc, err))
    stops(first, "the first run, its hang past --timeout")
    lines = load_jsonl(jsonl)
    assert (
        [line["type"] for line in lines] == ["header", "case", "case", "footer"] and
        [c["id"] for c in load_report(rep)["cases"]] == ["h.pass", "h.hang"]
    ), why(
        "the first run's journal and report are whole", "header case case footer",
        [line["type"] for line in lines])


def test_link_loops(env: Env) -> None:
    """Symbolic link loops in a case folder are searched once; no case is read twice."""
    d = env.path("loop")
    os.makedirs(d)
    shutil.copy(GOOD, d)
    os.symlink(".", os.path.join(d, "s1"))
    os.symlink(".", os.path.join(d, "s2"))
    # A search that followed the loops would not end: env.run fails it as a hang.
    rc, out, err = env.run(["validate", "--cases", d])
    assert rc == 0 and "1 case file" in out and "duplicate" not in err, why(
        "a folder with two self-links: each file once, valid", "valid", (rc, out, err[-300:]))
    rc, out, err = env.run(["validate", "--cases", d, "--cases",
                            os.path.join(d, "s1", "pass.json")], timeout=60)
    assert rc == 0 and "duplicate" not in err, why(
        "a file named again is not read twice", 0, (rc, err[-300:]))


def test_outputs_through_links(env: Env) -> None:
    """Outputs are written through links, never over them. A link to the runner's own stdout
    (as /dev/stdout is) gets the report on that stream and stays a link; a link to a regular
    file elsewhere stays a link and the file it names gets the report, its journal beside
    that file. /dev/stdout itself too (the runner must not replace it: as root it could)."""
    links = env.path("links")
    os.makedirs(links)
    out_link, err_link = os.path.join(links, "out.json"), os.path.join(links, "err.xml")
    os.symlink("/proc/self/fd/1", out_link)
    os.symlink("/proc/self/fd/2", err_link)
    p = subprocess.run(env.command(["run", "--cases", GOOD, "--adapter-cmd", fake_cmd(), "--tap",
                                    "--report", out_link, "--junit", err_link]),
                       capture_output=True, text=True, cwd=env.tmp, env=env.environ())
    assert (
        p.returncode == 0 and os.path.islink(out_link) and os.path.islink(err_link) and
        re.search(r'"type":\s*"devspec-report"', p.stdout) and "<testsuites" in p.stderr and
        sorted(os.listdir(links)) == ["err.xml", "out.json"]
    ), why(
        "--report and --junit through links to the runner's stdout and stderr: written there, "
        "the links kept, nothing beside them", "links kept", (p.returncode, os.listdir(links),
                                                              p.stderr[-300:]))
    target = env.path("real-report.json")
    link = env.path("report-link.json")
    os.symlink(target, link)
    rc, _out, err = env.run([*BASE, "--report", link])
    assert (
        rc == 0 and os.path.islink(link) and load_report(target)["type"] == "devspec-report" and
        os.path.exists(env.path("real-report.jsonl"))
    ), why(
        "--report through a link to a file: the file written, the link kept, the journal "
        "beside the file", "a link", (rc, os.path.islink(link), err[-300:]))
    with open(env.path("stdout-report.txt"), "w") as fh:
        q = subprocess.run(env.command(["run", "--cases", GOOD, "--adapter-cmd", fake_cmd(),
                                        "--tap", "--report", "/dev/stdout"]), stdout=fh,
                           stderr=subprocess.PIPE, text=True, cwd=env.tmp, env=env.environ())
    written = read(env.path("stdout-report.txt"))
    assert (
        q.returncode == 0 and os.path.islink("/dev/stdout") and
        re.search(r'"type":\s*"devspec-report"', written)
    ), why(
        "--report /dev/stdout > FILE: the report reaches FILE, /dev/stdout stays a link", 0,
        (q.returncode, os.path.islink("/dev/stdout"), q.stderr[-300:]))


def test_outputs_never_over_inputs(env: Env) -> None:
    """Outputs never overwrite inputs: --report onto the case file or the expectations file,
    --junit onto the report or its journal, compare --html onto a report: exit 2, the input
    intact."""
    mine = env.path("mine-cases.json")
    shutil.copy(GOOD, mine)
    exp_file = env.path("mine-expectations.txt")
    with open(exp_file, "w") as fh:
        fh.write("pass.raises-kind fail # kept\n")
    with open(mine, "rb") as fh:
        mine_before = fh.read()
    attempts = [
        (["--report", mine], "is the case file"),
        (["--report", exp_file, "--expectations", exp_file], "is the expectations file"),
        (["--report", env.path("o.json"), "--junit", env.path("o.json")], "is also --report"),
        (["--report", env.path("o.json"), "--junit", env.path("o.jsonl")],
         "is also the report's journal"),
    ]
    for extra, want in attempts:
        rc, _, err = env.run(["run", "--cases", mine, "--adapter-cmd", fake_cmd(), "--no-tap",
                              *extra])
        with open(mine, "rb") as fh:
            intact = fh.read() == mine_before
        with open(exp_file) as fh:
            intact = intact and fh.read() == "pass.raises-kind fail # kept\n"
        assert rc == 2 and want in err and intact, why(
            f"run {' '.join(extra[:2])}...: refused ({want})", 2, (rc, err[-300:], intact))
    env.run([*BASE, "--report", env.path("ra.json")])
    shutil.copy(env.path("ra.json"), env.path("rb.json"))
    with open(env.path("ra.json"), "rb") as fh:
        ra = fh.read()
    rc, _, err = env.run(["compare", env.path("ra.json"), env.path("rb.json"), "--html",
                          env.path("ra.json"), "--spec", TEST_SPEC, "--cases", GOOD])
    with open(env.path("ra.json"), "rb") as fh:
        same = fh.read() == ra
    assert rc == 2 and "is the report" in err and same, why(
        "compare A B --html A: refused, A intact", 2, (rc, err[-300:], same))


def test_controls_escaped(env: Env) -> None:
    """C1 controls, bidirectional overrides and line separators in a library's text are shown
    escaped (\\u009b, \\u202e, \\u2028) in TAP (its YAML too), the summary and compare's
    table, never passed to the terminal."""
    bidi_case = env.path("bidi.json")
    write_cases(bidi_case, "A message with hidden controls.", [
        {"id": "b.bidi", "description": "bidi", "spec": ["T-STR-1"], "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "bidi"}}]}])
    rc, out, err = env.run(["run", "--cases", bidi_case, "--adapter-cmd", fake_cmd(), "--tap",
                            "--report", env.path("bidi-report.json")])
    rc2, table, _ = env.run(["compare", env.path("bidi-report.json"), "--by", "case",
                             "--details", "--plain", "--spec", TEST_SPEC, "--cases", bidi_case])
    hidden = ["\u009b", "\u202e", "\u202c", "\u2066", "\u2028", "\u2029"]
    shown = ["\\u009b", "\\u202e", "\\u202c", "\\u2066", "\\u2028", "\\u2029"]
    assert (
        rc == 1 and rc2 == 0 and not any(h in out + err + table for h in hidden) and
        all(w in out and w in err and w in table for w in shown)
    ), why(
        "C1 and bidirectional controls from a library: escaped in TAP, the summary and compare",
        shown,
        (rc, rc2, [h for h in hidden if h in out + err + table], out[-300:], table[-300:]))


def test_adapter_leaving_a_child(env: Env) -> None:
    """An adapter that exits while a child it forked still holds its stdout is a crash, not a
    timeout, and without a timeout (--timeout 0) the run does not wait for ever: the child
    sleeps past env.run's liveness bound, so a runner that waited for it fails as a hang."""
    fork_case = env.path("fork-exit.json")
    with open(fork_case, "w") as fh:
        json.dump({"description": "An adapter that exits leaving a child.", "cases": [
            {"id": "f.exit", "description": "fork, then exit", "spec": ["T-STR-1"],
             "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "fork-exit"}}]},
            {"id": "f.after", "description": "the next case runs", "spec": ["T-STR-1"],
             "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]}]}, fh)
    for timeout in ("0", "30"):
        rep = env.path(f"fork-{timeout}.json")
        rc, _, err = env.run(["run", "--cases", fork_case, "--adapter-cmd", fake_cmd(),
                              "--no-tap", "--jobs", "1", "--timeout", timeout, "--report", rep])
        r: Report = load_report(rep) if os.path.exists(rep) else {"cases": []}
        st = {c["id"]: (c["status"], c.get("reason", "")) for c in r["cases"]}
        assert (
            rc == 1 and st.get("f.exit", ("",))[0] == "crash" and
            "still held its stdout" in st["f.exit"][1] and "status 4" in st["f.exit"][1] and
            st.get("f.after", ("",))[0] == "pass"
        ), why(
            f"--timeout {timeout}: an adapter that exits leaving a child holding stdout is a "
            "crash, not a timeout; the next case runs", "crash, pass", (rc, st, err[-300:]))


def test_tap_to_a_full_pipe(env: Env) -> None:
    """The wake-ups that end the runner's wait for a reply out of process (a signal to the
    reading thread, every 200 ms) never cut its other writes: TAP written to a pipe nobody
    reads for a while (the runner blocked in write while the signals come) arrives whole,
    every case's line in order. A handler without SA_RESTART fails this."""
    n = 1500
    cases = env.path("tap-many.json")
    write_cases(cases, "Many cases, a long TAP stream.", [
        {"id": f"tap.c{i:05d}." + "x" * 80, "description": "one step", "spec": ["T-ATTR-1"],
         "features": ["device-attr"], "steps": [{"op": "util.num_gpus"}]} for i in range(n)])
    p = env.start(["run", "--cases", cases, "--adapter", env.null_prog, "--jobs", "1",
                   "--no-progress", "--report", env.path("tap-many-report.json")],
                  env={"DEVSPEC_NULL_FEATURES": "device-attr"})
    time.sleep(2.0)  # the TAP stream fills the pipe (64 KiB) long before this
    out, err = stops(p, "a run writing TAP to a slow pipe")
    oks = [int(m.group(1)) for m in re.finditer(r"^    ok (\d+) - tap\.c", out, re.M)]
    assert p.returncode == 0 and oks == list(range(1, n + 1)), why(
        "TAP to a pipe read late: exit 0 and every case's line, in order", (0, n),
        (p.returncode, len(oks), err[-300:]))


def test_link_outside_folder(env: Env) -> None:
    """A link to a folder outside the folder given (here to /) is not followed, and is named; a
    link to a folder inside it is."""
    d = env.path("link-out")
    os.makedirs(os.path.join(d, "sub"))
    shutil.copy(GOOD, os.path.join(d, "sub"))
    os.symlink("/", os.path.join(d, "root"))
    os.symlink("sub", os.path.join(d, "inner"))
    rc, out, err = env.run(["validate", "--cases", d], timeout=60)
    assert (
        rc == 0 and "1 case file" in out and "root: not searched: a symbolic link to /" in err
    ), why(
        "a case folder holding a link to /: not followed, named, the run goes on", 0,
        (rc, out, err[-400:]))


def test_fifo_case_files(env: Env) -> None:
    """Only regular files are case files (a FIFO would block open() forever)."""
    f = env.path("fifo.json")
    os.mkfifo(f)
    rc, _, err = env.run(["validate", "--cases", f])
    assert rc == 2 and "not a regular file" in err, why(
        "a FIFO as --cases: exit 2, not a regular file", 2, (rc, err))
    d = env.path("fifo-dir")
    os.makedirs(d)
    shutil.copy(GOOD, d)
    os.mkfifo(os.path.join(d, "g.json"))
    rc, _out, err = env.run(["validate", "--cases", d])
    assert rc == 2 and "g.json: not a regular file" in err, why(
        "a *.json FIFO in a case folder: exit 2, named", 2, (rc, err))


def load_seconds(env: Env, path: str, runs: int = 3) -> float:
    """The least CPU time (user and system, from the operating system's account of the child)
    of RUNS runs of `devspec validate --cases PATH`. CPU time, not wall time: on a loaded
    machine a run waits for a core about as long as it computes, which made a wall-time ratio
    of two short runs swing past the bound."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        rc, _, err = env.run(["validate", "--cases", path])
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        assert rc == 0, why(f"validate {os.path.basename(path)}", 0, (rc, err[-300:]))
    return best


def many_keys(path: str, n: int) -> None:
    """A case file whose one expected value is an object of N keys."""
    with open(path, "w") as fh:
        keys = ",".join(f'"k{i}": {i}' for i in range(n))
        fh.write('{"description": "many keys", "cases": [{"id": "k.one", "spec": ["T-EQ-1"], '
                 '"features": ["device-eq"], "steps": [{"op": "device.parse", '
                 '"args": {"text": "cpu"}, "expect": {"$$": 1, ' + keys + '}}]}]}')


def many_cases(path: str, n: int) -> None:
    """A case file of N cases."""
    with open(path, "w") as fh:
        json.dump({"description": "many cases", "cases": [
            {"id": f"m.c{i}", "spec": ["T-EQ-1"], "features": ["device-eq"],
             "steps": [{"op": "device.parse", "args": {"text": "cpu"}, "expect": "$D0"}]}
            for i in range(n)]}, fh)


# Ten times the input takes about ten times as long where loading is linear (a little more
# for n log n), a hundred times where it is quadratic: the bound lies between, far from both.
LINEAR_BOUND = 30


def test_loading_is_linear(env: Env) -> None:
    """Loading is linear, not quadratic: an object of 200k keys against one of 20k, a file of
    200k cases against one of 20k, each less the runner's start (a file of one case), timed
    in the same run. A ratio, not a time (the machine's speed cancels out)."""
    many_cases(env.path("one.json"), 1)
    start = load_seconds(env, env.path("one.json"))
    figures = []
    for what, write, n in (("keys in one object", many_keys, 20000),
                           ("cases in one file", many_cases, 20000)):
        small, large = env.path(f"{n}.json"), env.path(f"{10 * n}.json")
        write(small, n)
        write(large, 10 * n)
        t_small, t_large = load_seconds(env, small), load_seconds(env, large)
        ratio = (t_large - start) / max(t_small - start, 1e-6)
        figures.append(f"{10 * n} {what} {t_large:.3f} s, {n} {t_small:.3f} s: x{ratio:.1f}")
        assert ratio < LINEAR_BOUND, why(
            f"{10 * n} {what} load in about ten times the time of {n} (linear), not a hundred "
            "(quadratic); the runner's start subtracted", f"a ratio < {LINEAR_BOUND}",
            f"x{ratio:.1f} ({t_large:.3f} s against {t_small:.3f} s, start {start:.3f} s)")
    print(f"# loading (start {start:.3f} s): " + "; ".join(figures))


def test_nul_bytes(env: Env) -> None:
    """A NUL anywhere is an error naming file, line and column."""
    nul = env.path("nul.json")
    with open(GOOD, "rb") as fh, open(nul, "wb") as out_:
        data = fh.read()
        out_.write(data + b"\0\n{}")
    lines_before = data.count(b"\n") + 1
    rc, _, err = env.run(["validate", "--cases", nul])
    assert rc == 2 and f"nul.json:{lines_before}:" in err and "NUL" in err, why(
        "a NUL after a valid case document is an error with its line",
        f"nul.json:{lines_before}:", err)
    ex = env.path("nul.txt")
    with open(ex, "wb") as fh:
        fh.write(b"x pass\0\nrel.bad.one fail\n")
    rc, _out, err = env.run([*BASE, "--expectations", ex, "--report", env.path("n.json")])
    assert rc == 2 and "nul.txt:1:7:" in err and "NUL" in err, why(
        "a NUL in an expectations file is an error with line and column", "nul.txt:1:7: NUL",
        (rc, err))


def test_expectations_files(env: Env) -> None:
    """Expectations files are UTF-8; a directory is named as one; a case file is not a report."""
    ex = env.path("nul.txt")
    with open(ex, "wb") as fh:
        fh.write(b"pass.* fail # caf\xe9\n")
    rc, _, err = env.run([*BASE, "--expectations", ex, "--report", env.path("n.json")])
    assert rc == 2 and "nul.txt:1:" in err and "UTF-8" in err, why(
        "invalid UTF-8 in an expectations file: exit 2", 2, (rc, err))
    rc, _, err = env.run([*BASE, "--expectations", env.tmp, "--report", env.path("n.json")])
    assert rc == 2 and "Is a directory" in err, why(
        "--expectations DIR says it is a directory", "Is a directory", err)
    rc, _out, err = env.run(["expectations", GOOD])
    assert rc == 2 and "not a devspec JSON report" in err, why(
        "devspec expectations CASEFILE: exit 2", 2, (rc, err))


def test_timeouts_in_range(env: Env) -> None:
    """Timeouts must be finite numbers in range."""
    for opt in ("--timeout", "--start-timeout"):
        for v in ("nan", "inf", "1e400", "-1", "1e7"):
            rc, _out, err = env.run([*BASE, opt, v, "--report", env.path("t.json")])
            assert rc == 2 and opt in err, why(f"{opt} {v} is refused, exit 2", 2, (rc, err))


def test_commands_stop_on_signals(env: Env) -> None:
    """list, coverage and validate stop on SIGTERM and SIGINT: they keep the signal's default
    action (spec/decisions.md, Signals), so each dies of it while it still reads the case
    files (800k cases: seconds of reading), and none goes on to its end."""
    sig_dir = env.path("sig-cases")
    os.makedirs(sig_dir)
    for i in range(40):
        with open(os.path.join(sig_dir, f"c{i:02}.json"), "w") as fh:
            json.dump({"description": "many cases", "cases": [
                {"id": f"s{i}.c{k}", "spec": ["T-EQ-1"], "features": ["device-eq"],
                 "steps": [{"op": "device.parse", "args": {"text": "cpu"}, "expect": "$D0"}]}
                for k in range(20000)]}, fh)
    one = os.path.getsize(os.path.join(sig_dir, "c00.json"))
    total = 40 * one
    # What each prints once it is done: absent where the signal stopped it before.
    done = {"validate": "cases: valid", "list": "s39.c19999\t", "coverage": "statements covered"}
    for cmd in ("validate", "list", "coverage"):
        for sig in (signal.SIGTERM, signal.SIGINT):
            p = env.start([cmd, "--cases", sig_dir])
            # Signalled while it reads the case files: it has read one, not all of them.
            pid = p.pid
            wait_until(lambda: bytes_read(pid) < 0 or bytes_read(pid) > one)  # noqa: B023
            got = bytes_read(pid)
            p.send_signal(sig)
            out, err = stops(p, f"{cmd} sent {sig.name}")
            assert one < got < total and p.returncode == -sig and done[cmd] not in out, why(
                f"{cmd} dies of {sig.name} while it reads the case files, before its end",
                f"signalled with 1 to 40 files read, then killed by {sig.name} ({-sig}), "
                f"'{done[cmd].strip()}' not printed",
                (f"{got} of {total} bytes read", p.returncode, out[-200:], err[-300:]))
    shutil.rmtree(sig_dir)


def test_signal_recorded(env: Env) -> None:
    """The signal is recorded as the one that came; SIGINT during hello is an interruption. One
    worker and two: the case in flight is recorded in both paths of the runner."""
    hang = hang_suite(env, "hang")
    for sig, jobs in ((signal.SIGTERM, "1"), (signal.SIGINT, "2")):
        rep = env.path(f"sig-{sig.name}.json")
        trace = rep[:-5] + ".trace"
        p = env.start(["run", "--cases", hang, "--timeout", "60", "--jobs", jobs, "--adapter-cmd",
                       fake_cmd(), "--report", rep, "--no-tap", "--trace", trace])
        # The first case recorded, the hanging step's request sent: the hang is in flight.
        assert wait_until(file_has(rep[:-5] + ".jsonl", '"h.pass"')) and wait_until(
            hang_in_flight(trace)), why("the hang is in flight", "h.hang's request sent", None)
        p.send_signal(sig)
        _, err = stops(p, f"a run sent {sig.name} while a step hangs")
        r = load_report(rep)
        assert (
            p.returncode == 3
            and r["footer"].get("incomplete_reason") == f"interrupted ({sig.name})"
        ), why(
            f"{sig.name} is recorded as {sig.name}", f"interrupted ({sig.name})",
            r["footer"].get("incomplete_reason"))
        assert "no case ran" not in err, why(f"{sig.name}: no false 'no case ran' warning", "", err)
        last = r["cases"][-1] if r["cases"] else {}
        assert (
            last.get("id") == "h.hang" and last.get("skip_source") == "interrupted" and
            last.get("reason", "").startswith(f"interrupted ({sig.name}) at step 0")
        ), why(
            f"{sig.name}, --jobs {jobs}: the case in flight is kept as interrupted",
            f"h.hang interrupted ({sig.name})", last)
    rep = env.path("sig-hello.json")
    trace = env.path("sig-hello.trace")
    p = env.start(["run", "--cases", hang, "--adapter-cmd", fake_cmd("--hang-hello"), "--report",
                   rep, "--no-tap", "--trace", trace])
    # The hello request sent: the adapter hangs in it.
    assert wait_until(file_has(trace, '"hello"')), why(
        "the runner sent hello", "a hello request in the trace", None)
    p.send_signal(signal.SIGINT)
    _, err = stops(p, "a run sent SIGINT while its adapter hangs in hello")
    r = load_report(rep)
    assert (
        p.returncode == 3 and r["footer"]["interrupted"] is True and "could not start" not in err
    ), why(
        "SIGINT during hello: interrupted, not 'could not start'", "interrupted",
        (r["footer"], err))


def test_killed_runner_takes_its_worker(env: Env) -> None:
    """A runner killed outright takes its worker with it, and the worker's children: an
    --adapter-cmd shell that does not exec runs the adapter as its child, in its group."""
    hang = hang_suite(env, "hang")

    def kill_runner(name: str, command: str, what: str) -> None:
        """Kills a runner whose one worker hangs; checks WHAT (the worker, or the children of
        a worker's shell) dies too. The worker writes its pid to NAME.pid."""
        pidf = env.path(name + ".pid")
        trace = env.path(name + ".trace")
        p = env.start(["run", "--cases", hang, "--timeout", "60", "--jobs", "1", "--adapter-cmd",
                       f"echo $$ > {pidf}; " + command, "--report", env.path(name + ".json"),
                       "--no-tap", "--trace", trace])
        # The first case recorded, the hanging step's request sent: the hang is in flight.
        assert wait_until(file_has(env.path(name + ".jsonl"), '"h.pass"')) and wait_until(
            hang_in_flight(trace)), why("the hang is in flight", "h.hang's request sent", None)
        wpid = int(read(pidf))
        watched = [wpid] if what == "worker" else children(wpid)
        p.kill()
        p.communicate()
        gone = wait_until(lambda: not any(alive(k) for k in watched))
        assert len(watched) == 1 and gone, why(
            f"SIGKILL of the runner: the hung {what} dies too", f"one {what}, gone", watched)
        for k in watched:
            if alive(k):
                os.kill(k, signal.SIGKILL)
    kill_runner("killed", fake_cmd(), "worker")
    kill_runner("killed-shell", fake_cmd()[len("exec "):] + "; true",
                "child of the worker's shell")


def test_adapters_json_checked(env: Env) -> None:
    """adapters/adapters.json is checked like a case file, every problem located."""
    src = env.path("fake-source")
    os.makedirs(os.path.join(src, "adapters"))
    ok_entry: dict[str, Any] = {"name": "x", "description": "d", "command": [sys.executable, FAKE]}
    bad: list[tuple[str | dict[str, Any], str, str]] = [
        ('{"adapters": [', "invalid JSON", ":1:"),
        ({"adapters": [dict(ok_entry, command="python3 fake.py")]},
         "adapters[0].command: must be a non-empty list", ":1:"),
        ({"adapters": [dict(ok_entry, command=[sys.executable, 7])]},
         "adapters[0].command[1]: must be a string", ":1:"),
        ({"adapters": [dict(ok_entry, env=["A=1"])]}, "adapters[0].env: must be an object", ":1:"),
        ({"adapters": [dict(ok_entry, env={"A": 1})]}, "adapters[0].env.A: must be a string",
         ":1:"),
        ({"adapters": [dict(ok_entry, command=[sys.executable + "\u0000x", FAKE])]},
         "adapters[0].command[0]: must be a string without NUL", ":1:"),
        ({"adapters": [ok_entry, ok_entry]}, "adapters[1].name: the name \"x\" is given twice",
         ":1:"),
        ({"adapters": [dict(ok_entry, comand=["x"])]}, "adapters[0].comand: unknown field", ":1:"),
    ]
    for doc, want, loc in bad:
        text = doc if isinstance(doc, str) else json.dumps(doc).replace("\\\\u0000", "\\u0000")
        with open(os.path.join(src, "adapters", "adapters.json"), "w") as fh:
            fh.write(text)
        rc, _, err = env.run(["run", "--cases", GOOD, "--adapter", "x", "--no-tap",
                              "--report", env.path("a.json")], env={"DEVSPEC_SOURCE": src})
        assert (
            rc == 2 and want in err and "adapters.json" + loc in err
            and "unknown adapter" not in err
        ), why(
            f"adapters.json: {want}", want, (rc, err[-400:]))
    with open(os.path.join(src, "adapters", "adapters.json"), "w") as fh:
        json.dump({"adapters": [dict(ok_entry, env={"A": "1"})]}, fh)
    rc, _out, err = env.run(["run", "--cases", GOOD, "--adapter", "x", "--no-tap",
                            "--report", env.path("a.json")], env={"DEVSPEC_SOURCE": src})
    assert rc == 0, why("a valid adapters.json entry runs", 0, (rc, err[-400:]))


def test_oversized_reply(env: Env) -> None:
    """A reply over the protocol's 64 MiB limit is a protocol violation however it arrives
    (here in one write), not accepted because one read happened to end the line."""
    big_case = env.path("oversized.json")
    write_cases(big_case, "An oversized reply.", [
        {"id": "o.big", "description": "65 MiB", "spec": ["T-STR-1"], "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "oversized"}}]}])
    rc, _out, err = env.run(["run", "--cases", big_case, "--adapter-cmd", fake_cmd(), "--no-tap",
                            "--report", env.path("big.json")], timeout=120)
    r = load_report(env.path("big.json"))
    assert (
        rc == 1 and r["cases"][0]["status"] == "error" and "limit" in r["cases"][0]["reason"]
    ), why(
        "a 65 MiB reply is a protocol error naming the limit", "error",
        (rc, r["cases"][0].get("reason"), err[-300:]))


def test_journal_cut_short(env: Env) -> None:
    """A journal that cannot be written (a full disk: here a file size limit, with SIGXFSZ
    ignored so that write() fails with EFBIG) is said and exits 3."""
    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    p = subprocess.run(env.command([*BASE, "--report", env.path("full.json")]),
                       capture_output=True, text=True, env=env.environ(), cwd=env.tmp,
                       preexec_fn=small_files, timeout=120)
    assert p.returncode == 3 and "cannot write" in p.stderr and "full.jsonl" in p.stderr, why(
        "a journal cut short by a full disk: said, exit 3", 3, (p.returncode, p.stderr[-400:]))


def test_write_failures(env: Env) -> None:
    """Every failed write changes the exit status."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    env.run([*BASE, "--report", env.path("w.json")])
    with open("/dev/full", "w") as full:
        p = subprocess.run([env.devspec, "expectations", env.path("w.json")], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=env.environ(), cwd=env.tmp)
    assert p.returncode == 3 and "standard output" in p.stderr, why(
        "devspec expectations > /dev/full: exit 3, said", 3, (p.returncode, p.stderr))
    with open("/dev/full", "w") as full:
        p = subprocess.run(env.command([*BASE[:-1], "--tap", "--report", env.path("w2.json")]),
                           stdout=full, stderr=subprocess.PIPE, text=True, env=env.environ(),
                           cwd=env.tmp)
    assert p.returncode == 3 and "standard output" in p.stderr, why(
        "TAP to /dev/full: exit 3, said", 3, (p.returncode, p.stderr))
    rc, _, err = env.run([*BASE, "--report", "/dev/full"])
    assert rc == 3 and "/dev/full" in err, why("--report /dev/full: exit 3, named", 3, (rc, err))


def bytes_read(pid: int) -> int:
    """How many bytes PID has read so far (rchar of /proc/PID/io); -1 once it is gone."""
    try:
        with open(f"/proc/{pid}/io") as fh:
            for line in fh:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return -1


def test_output_folder_checked_before_first_case(env: Env) -> None:
    """A --report, --junit or --trace whose folder cannot be made (a regular file stands
    where the folder should be) stops the run before its first case: exit 3, the path and
    the reason said, no case run."""
    blocker = env.path("not-a-folder")
    with open(blocker, "w") as fh:
        fh.write("x")
    for opt in ("--report", "--junit", "--trace"):
        out = os.path.join(blocker, "sub", "out.json")
        extra = [] if opt == "--report" else ["--report", env.path(f"r{opt}.json")]
        rc, stdout, err = env.run([*BASE, opt, out, *extra, "--tap"])
        assert (
            rc == 3 and "cannot write " + blocker + "/sub/out" in err and
            "Not a directory" in err and "ok 1" not in stdout
        ), why(f"{opt} under a regular file: refused before the first case, exit 3", 3,
               (rc, err[-400:], stdout[-200:]))


def test_final_write_failure_in_the_footer(env: Env) -> None:
    """A JUnit file or a trace that cannot be written at the end (/dev/full) makes the exit
    status 3, and the report's footer and its journal's say the same gate, never 0; a report
    that cannot be written is not named in the summary as if it were there."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    for opt in ("--junit", "--trace"):
        rep = env.path(f"full{opt}.json")
        rc, _, err = env.run([*BASE, "--report", rep, opt, "/dev/full"])
        gates = [load_report(rep)["footer"]["gate"],
                 load_jsonl(env.path(f"full{opt}.jsonl"))[-1]["gate"]]
        assert (
            rc == 3 and all(g["exit_status"] == 3 and "/dev/full" in g["rule"] for g in gates)
        ), why(f"{opt} /dev/full: exit 3, and the footers say 3", 3, (rc, gates, err[-300:]))
    rc, out, _ = env.run([*BASE, "--report", "/dev/full"])
    assert rc == 3 and "report: /dev/full (not written: see above)" in out, why(
        "--report /dev/full: exit 3, the summary never names it as written", 3,
        (rc, out[-300:]))
