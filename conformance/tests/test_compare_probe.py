"""`devspec probe` with real adapters (the fake adapter and the null adapter): the reports,
the table and the page; bad case files and adapters; outputs that would destroy inputs;
adapters of one base name; the share of the cores; a probe killed outright."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

from compare_support import HOSTILE, devspec
from procutil import alive, children
from support import FAKE, TEST_SPEC, Env, wait_until, why


def test_probe(env: Env) -> None:
    out = os.path.join(env.tmp, "probe")
    fake = FAKE
    adapters = ["--adapter", fake, "--adapter", env.null_prog]
    rc, text, errtext = devspec(env, ["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out,
                                      "--plain", "--timeout", "20", *adapters])
    assert rc == 0, why(
        "probe runs the case file against each adapter and exits 0", 0, (rc, errtext[-2000:]))
    names = ["fake_adapter", "devspec-null-adapter"]
    for n in names:
        assert os.path.exists(os.path.join(out, n + ".json")), why(
            f"probe wrote {n}'s report", n, os.listdir(out) if os.path.isdir(out) else None)
    assert os.path.exists(os.path.join(out, "index.html")), why(
        "probe wrote the page", "index.html", os.listdir(out) if os.path.isdir(out) else None)
    header = re.search(r"^case +(.*)$", text, re.M)
    assert header is not None and header.group(1).split() == names, why(
        "the table has one column per adapter, in the order given", names, text[:1500])
    for cid in ("hostile.message", "hostile.two-devices", "hostile.passes", "hostile.skipped"):
        assert re.search(r"^" + re.escape(cid) + r" ", text, re.M) is not None, why(
            f"the table has a row for {cid}", cid, text[:2000])
    assert (
        "observed  raises ValueError: <script>" in text and "\\x1b[31mred" in text
    ), why(
        "what each library returned is shown under its case, escaped for the terminal",
        "observed  raises ValueError", text[-3000:])
    rc, text, errtext = devspec(env, ["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out,
                                      "--json", "--adapter", fake])
    m = json.loads(text) if rc == 0 else {}
    assert (
        rc == 0 and [lib["label"] for lib in m.get("libraries", [])] == ["fake_adapter"] and
        len(m.get("cases", [])) == 4
    ), why(
        "probe --json prints the model", "1 library, 4 cases", (rc, errtext[-1000:]))
    bad = os.path.join(env.tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"description": "x", "cases": [{"id": "x", "description": "x", '
                '"spec": ["T-STR-1"], "features": ["device-string"], '
                '"steps": [{"op": "array.frobnicate"}]}]}')
    out2 = os.path.join(env.tmp, "probe-bad")
    rc, text, errtext = devspec(env, ["probe", bad, "--spec", TEST_SPEC, "--out", out2,
                                      "--adapter", fake])
    assert rc == 2 and "array.frobnicate" in errtext and not os.path.exists(out2), why(
        "an invalid case file: exit 2, the problem named, no adapter started", 2, (rc, errtext))
    rc, text, errtext = devspec(env, ["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out,
                                      "--plain", "--adapter", fake, "--adapter",
                                      "no-such-adapter"])
    assert (
        rc == 3 and "no-such-adapter" in errtext
        and re.search(r"^case +fake_adapter *$", text, re.M)
    ), why(
        "an adapter that cannot start: exit 3, and the table of the others", 3,
        (rc, errtext, text[:500]))


def test_outputs_never_destroy_inputs(env: Env) -> None:
    """A report that would be the case file (probe CASES/fake_adapter.json --out CASES) or lie
    inside a cases folder is refused, and the case file is left as it was."""
    out = os.path.join(env.tmp, "probe")
    fake = FAKE
    inputs = os.path.join(env.tmp, "inputs")
    os.makedirs(inputs)
    mine = os.path.join(inputs, "fake_adapter.json")
    shutil.copy(HOSTILE, mine)
    with open(mine, "rb") as f:
        before = f.read()
    rc, _, errtext = devspec(env, ["probe", mine, "--spec", TEST_SPEC, "--out", inputs,
                                 "--adapter", fake])
    with open(mine, "rb") as f:
        after = f.read()
    assert (
        rc == 2 and "is the case file" in errtext and after == before
    ), why(
        "probe whose report would be the case file: refused (exit 2), the file intact", 2,
        (rc, errtext[-600:], len(after)))
    rc, _, errtext = devspec(env, ["probe", inputs, "--spec", TEST_SPEC, "--out",
                                   os.path.join(inputs, "out"), "--adapter", fake])
    assert (
        rc == 2 and "lies inside the case folder" in errtext and
        not os.path.exists(os.path.join(inputs, "out"))
    ), why(
        "probe whose reports would go inside the cases folder: refused", 2, (rc, errtext[-600:]))
    rc, _, errtext = devspec(env, ["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out,
                                      "--html", os.path.join(out, "fake_adapter.json"),
                                      "--adapter", fake])
    assert rc == 2 and "two outputs are one file" in errtext, why(
        "probe whose page would be a report: refused", 2, (rc, errtext[-600:]))


def test_two_adapters_of_one_name(env: Env) -> None:
    """Two adapters of one base name (a/x, b/x) get a report each; the runs share the cores:
    each gets --jobs cores / runs at a time."""
    for d in ("a", "b"):
        os.makedirs(os.path.join(env.tmp, d))
        with open(os.path.join(env.tmp, d, "x"), "w") as f:
            f.write(f"#!/bin/sh\nexec {sys.executable} {FAKE}\n")
        os.chmod(os.path.join(env.tmp, d, "x"), 0o755)
    out3 = os.path.join(env.tmp, "probe-same-name")
    rc, _, errtext = devspec(env, ["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out3,
                                   "--plain", "--adapter", os.path.join(env.tmp, "a", "x"),
                                   "--adapter", os.path.join(env.tmp, "b", "x")])
    assert (
        rc == 0 and os.path.exists(os.path.join(out3, "x.json")) and
        os.path.exists(os.path.join(out3, "x-2.json"))
    ), why(
        "two adapters of one base name: x.json and x-2.json", ["x.json", "x-2.json"],
        (rc, os.listdir(out3) if os.path.isdir(out3) else None, errtext[-500:]))
    # Item: the runs share the cores: each gets --jobs cores / runs at a time.
    cores = os.cpu_count() or 1
    assert (
        f"2 runs at a time with --jobs {max(1, cores // 2)} each" in errtext
    ), why(
        "probe gives each of its runs a share of the cores, and says so",
        f"--jobs {max(1, cores // 2)}", errtext[:400])


def test_killed_probe(env: Env) -> None:
    """A probe killed outright stops its runs, and they their workers: nothing is left
    behind."""
    hang = os.path.join(env.tmp, "hang-adapter")
    with open(hang, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {FAKE} --hang-hello\n")
    os.chmod(hang, 0o755)
    p = subprocess.Popen([env.devspec, "probe", HOSTILE, "--spec", TEST_SPEC, "--out",
                          os.path.join(env.tmp, "probe-killed"), "--plain",
                          "--adapter", hang], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tree: list[int] = []

    def descendants() -> list[int]:
        found: list[int] = []
        todo = [p.pid]
        while todo:
            kids = children(todo.pop())
            found += kids
            todo += kids
        return found

    def started() -> bool:
        tree[:] = descendants()
        return len(tree) >= 2  # the run and its worker

    ok = wait_until(started)
    p.kill()
    p.communicate()
    gone = wait_until(lambda: not any(alive(k) for k in tree))
    assert (
        ok and gone
    ), why(
        "SIGKILL of probe: its runs and their workers stop", "all gone",
        [(k, alive(k)) for k in tree])
    for k in tree:
        if alive(k):
            os.kill(k, 9)


def test_two_probes_one_out(env: Env) -> None:
    """A second probe into an --out whose run logs a first probe holds is refused before it
    touches them, naming the first; the first one's log is left whole (it was truncated and
    the refusal pointed at it)."""
    import fcntl
    out = os.path.join(env.tmp, "shared-out")
    os.makedirs(out)
    log = os.path.join(out, "devspec-null-adapter.log")
    with open(log, "w") as held:
        held.write("the first probe's run is writing this\n")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX)   # as the first probe holds it
        rc, _, err = devspec(env, ["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out,
                                   "--plain", "--adapter", env.null_prog])
        with open(log) as f:
            kept = f.read()
    assert rc == 3 and f"another probe (process {os.getpid()}) is writing {log}" in err, why(
        "the second probe is refused, naming the first", "exit 3, another probe", (rc, err))
    assert kept == "the first probe's run is writing this\n", why(
        "the first probe's log is untouched", "its line", kept)
    assert not os.path.exists(os.path.join(out, "devspec-null-adapter.json")), why(
        "the second probe ran nothing", "no report", os.listdir(out))
