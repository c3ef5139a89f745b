"""Outputs never replace inputs, and two runs never share an output.

Every file a command reads is guarded, not only the case and expectations files: the
adapter's program, the in-process shared object, the adapters files (--adapters,
DEVSPEC_ADAPTERS), the spec folder, the Python interpreter (--python), for `run` (--report,
--junit, --trace), `probe` (--out, --html), `compare` (--html) and `expectations` (standard
output). --junit and --trace are locked as --report is: a second run given one of them is
refused, naming the first run and the output, while the first writes it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

from support import (
    CASES,
    FAKE,
    TEST_SPEC,
    Env,
    fake_cmd,
    file_has,
    hang_suite,
    stops,
    wait_until,
    why,
)

GOOD = os.path.join(CASES, "pass.json")


def digest(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def program(env: Env, name: str) -> str:
    """An executable copy of the fake adapter in the test's folder."""
    path = env.path(name)
    shutil.copy(FAKE, path)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def refused(env: Env, args: list[str], victim: str, want: str, name: str,
            extra_env: dict[str, str] | None = None, spec: bool = True) -> None:
    """`devspec ARGS` exits 2 saying WANT, and VICTIM is as it was."""
    before = digest(victim) if os.path.isfile(victim) else None
    rc, _, err = env.run(args, env=extra_env, spec=spec)
    after = digest(victim) if os.path.isfile(victim) else None
    assert rc == 2 and want in err and before == after, why(
        f"{name}: refused (exit 2, '{want}'), the input intact", (2, want, before),
        (rc, err[-400:], after))


def test_run_outputs_never_over_what_it_reads(env: Env) -> None:
    """run --report/--junit/--trace onto the adapter program, the in-process .so, an
    adapters file (--adapters and DEVSPEC_ADAPTERS), a file of the spec folder, the --python
    interpreter or a file an adapters file's command names: exit 2, the file intact."""
    prog = program(env, "evil.py")
    base = ["run", "--cases", GOOD, "--no-tap"]
    refused(env, [*base, "--adapter", prog, "--report", prog], prog,
            "--report " + prog + " is the adapter program file", "--adapter P --report P")
    refused(env, [*base, "--adapter", prog, "--junit", prog], prog,
            "is the adapter program file", "--adapter P --junit P")
    refused(env, [*base, "--adapter-cmd", f"exec {sys.executable} {prog}", "--trace", prog],
            prog, "--trace " + prog + " is the adapter program file",
            "--adapter-cmd 'exec python P' --trace P")
    so = env.path("lib.so")
    shutil.copy(env.null_so, so)
    refused(env, [*base, "--adapter", so, "--report", so], so,
            "is the in-process adapter file", "--adapter LIB.so --report LIB.so")
    own = env.path("own.json")
    with open(own, "w") as fh:
        json.dump({"adapters": [{"name": "mine", "command": [sys.executable, prog]}]}, fh)
    refused(env, [*base, "--adapter", "mine", "--adapters", own, "--junit", own], own,
            "--junit " + own + " is the adapters file", "--adapters F --junit F")
    refused(env, [*base, "--adapter", "mine", "--report", own], own,
            "is the adapters file", "DEVSPEC_ADAPTERS=F --report F",
            extra_env={"DEVSPEC_ADAPTERS": own})
    refused(env, [*base, "--adapter", "mine", "--adapters", own, "--trace", prog], prog,
            "is the adapter program file", "a named adapter's command file as --trace")
    spec = env.path("spec")
    shutil.copytree(TEST_SPEC, spec)
    features = os.path.join(spec, "features.json")
    refused(env, [*base, "--adapter", prog, "--spec", spec, "--report", features], features,
            "lies inside the spec folder", "--spec DIR --report DIR/features.json",
            spec=False)
    py = env.path("py")
    with open(py, "w") as fh:
        fh.write(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    os.chmod(py, 0o755)
    refused(env, [*base, "--adapter", "python:fake_module", "--python", py, "--report", py], py,
            "is the Python interpreter file", "--python P --report P")


def test_probe_compare_expectations_outputs(env: Env) -> None:
    """probe --html onto an adapter program it runs, compare --html into the spec folder,
    expectations with standard output appended to the report it reads: exit 2, intact."""
    prog = program(env, "evil.py")
    refused(env, ["probe", GOOD, "--adapter", prog, "--out", env.path("probe"), "--html", prog],
            prog, "is the adapter program file", "probe --adapter P --html P")
    rep = env.path("r.json")
    rc, _, err = env.run(["run", "--cases", GOOD, "--adapter-cmd", fake_cmd(), "--no-tap",
                          "--report", rep])
    assert rc == 0, why("a report to compare", 0, (rc, err[-300:]))
    spec = env.path("spec")
    shutil.copytree(TEST_SPEC, spec)
    page = os.path.join(spec, "statements.json")
    refused(env, ["compare", rep, "--spec", spec, "--cases", GOOD, "--html", page], page,
            "--html " + page + " lies inside the spec folder", "compare --spec DIR --html DIR/F")
    before = digest(rep)
    with open(rep, "a") as out:
        p = subprocess.run(env.command(["expectations", rep]), stdout=out,
                           stderr=subprocess.PIPE, text=True, env=env.environ())
    assert p.returncode == 2 and "standard output is the report" in p.stderr and \
        digest(rep) == before, why(
            "devspec expectations R >> R: refused, R intact", 2, (p.returncode, p.stderr[-300:]))


def test_two_runs_one_junit_or_trace(env: Env) -> None:
    """Two runs given one --junit (or one --trace): the second is refused, exit 3, naming the
    output in use, and the first run's file is its own and whole."""
    hang = hang_suite(env, "hang")
    for opt, name in (("--junit", "shared.xml"), ("--trace", "shared.trace")):
        out = env.path(name)
        first_trace = out if opt == "--trace" else env.path("first-" + name + ".trace")
        args = ["run", "--cases", hang, "--timeout", "3", "--adapter-cmd", fake_cmd(),
                "--report", env.path("first-" + name + ".json"), "--no-tap", opt, out]
        if opt == "--junit":
            args += ["--trace", first_trace]
        first = env.start(args)
        wait_until(file_has(first_trace, '"hang"'))
        rc, _, err = env.run(["run", "--cases", GOOD, "--adapter-cmd", fake_cmd(), "--no-tap",
                              "--report", env.path("second-" + name + ".json"), opt, out],
                             timeout=60)
        said = f"another run (process {first.pid}) is writing {opt} {out}"
        assert rc == 3 and said in err, why(
            f"a second run given the {opt} of a run under way: refused, exit 3, the first run "
            f"and {opt} named", (3, said), (rc, err[-400:]))
        stops(first, "the first run, its hang past --timeout")
        with open(out) as fh:
            text = fh.read()
        mine, theirs = ("h.hang", "pass.describe-default") if opt == "--junit" else \
            ('"hang"', '"zeros"')
        assert mine in text and theirs not in text, why(
            f"the first run's {opt} is its own ({mine}), nothing of the second run's",
            mine, text[-400:])
