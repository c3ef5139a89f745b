"""The command line: usage errors, --help, --version, list, the cap on --jobs, python:MODULE
on an old Python, adapters files of one's own, a report written into a pipe."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest
from support import CASES, FAKE, Env, fake_cmd, load_report, stops, why

PASS = os.path.join(CASES, "pass.json")


def old_python() -> tuple[str, dict[str, str]] | None:
    """An interpreter older than 3.10 that runs, with the environment it needs (a pyenv shim
    needs PYENV_VERSION), or None."""
    for name in ("python3.9", "python3.8"):
        path = shutil.which(name)
        if not path:
            continue
        envs: list[dict[str, str]] = [{}]
        if shutil.which("pyenv"):
            p = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True)
            envs += [{"PYENV_VERSION": v} for v in p.stdout.split()
                     if v.startswith(name[6:] + ".")]
        for extra in envs:
            p = subprocess.run([path, "-c", "import sys; print(sys.version_info < (3, 10))"],
                               capture_output=True, text=True, env=dict(os.environ, **extra))
            if p.returncode == 0 and p.stdout.strip() == "True":
                return path, extra
    return None


def test_old_python(env: Env) -> None:
    """python:MODULE on a Python older than the adapter's (3.10) is refused with a clear
    message, not a traceback (pip accepts 3.9 for the runner's own package)."""
    old = old_python()
    if old is None:
        pytest.skip("no Python older than 3.10 here")
    py, extra_env = old
    rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "python:json", "--python", py,
                          "--no-tap", "--report", env.path("old-python.json")], env=extra_env)
    assert (
        rc == 3 and "too old: the Python adapter needs Python 3.10 or newer" in err and
        "Traceback" not in err
    ), why(
        "python:MODULE on Python 3.9: refused, clearly", 3, (rc, err[-400:]))


def test_jobs_capped(env: Env) -> None:
    """--jobs beyond twice the cores is capped, and said; the run is the same."""
    cores = os.cpu_count() or 1
    rc, _, err = env.run(["run", "--cases", PASS, "--adapter-cmd", fake_cmd(), "--no-tap",
                          "--jobs", "1000000", "--report", env.path("jobs-capped.json")])
    assert rc == 0 and f"at most {min(2 * cores, 64)} workers" in err, why(
        "--jobs 1000000: capped at twice the cores, said on stderr", min(2 * cores, 64),
        (rc, err))


def test_help_and_version(env: Env) -> None:
    rc, out, _ = env.run(["--help"])
    assert rc == 0 and "not isolated" in out.lower() and "exit status" in out.lower(), why(
        "--help explains isolation and exit statuses", 0, out)
    rc, out, _ = env.run(["--version"])
    assert rc == 0 and out.startswith("devspec "), why("--version", "devspec X", out)


@pytest.mark.parametrize(("args", "what"), [
    (["run", "--bogus"], "an unknown option"),
    (["run", "--cases", CASES], "run without an adapter"),
    (["run", "--cases", CASES, "--adapter-cmd", "x", "--feature", "no-such"],
     "an unknown feature"),
    (["run", "--cases", CASES, "--adapter-cmd", "x", "--timeout", "soon"], "a bad timeout"),
    (["run", "--cases", CASES, "--adapter-cmd", "x", "--tap-version", "12"],
     "a bad TAP version"),
    (["frobnicate"], "an unknown command"),
    (["run", "--cases", CASES, "--adapter-cmd", "x", "--profile", "no-such"],
     "an unknown profile"),
    (["run", "--report"], "an option without its value")])
def test_usage_error(env: Env, args: list[str], what: str) -> None:
    rc, _, err = env.run(args)
    assert rc == 2 and err.startswith("devspec: "), why(
        f"{what}: exit 2 with a message", 2, (rc, err))


def test_list(env: Env) -> None:
    for what in ("cases", "features", "profiles"):
        rc, out, err = env.run(["list", what, "--cases", CASES])
        assert rc == 0 and out, why(f"list {what}", 0, (rc, err))
    rc, out, err = env.run(["list", "cases", "--cases", CASES, "--json"])
    every = 0
    for name in os.listdir(CASES):
        if name.endswith(".json"):
            with open(os.path.join(CASES, name)) as f:
                every += len(json.load(f)["cases"])
    assert rc == 0 and len(json.loads(out)) == every, why(
        "list cases --json lists every case", every, len(json.loads(out)) if rc == 0 else err)


def test_adapter_names(env: Env) -> None:
    rc, out, err = env.run(["run", "--cases", CASES, "--adapter", "no-such-name"], spec=True)
    assert rc == 3 and "no-such-name" in err, why(
        "an unknown adapter name: exit 3 naming it", 3, (rc, err))
    rc, out, err = env.run(["list", "adapters"], spec=False)
    assert rc == 0 and "refarray" in out, why(
        "list adapters reads adapters/adapters.json", "refarray", out)


def vendor(env: Env) -> str:
    """A folder of one's own, outside the suite, with the fake adapter in bin/ and an
    expectations file."""
    own = env.path("vendor")
    os.makedirs(os.path.join(own, "bin"), exist_ok=True)
    shutil.copy(FAKE, os.path.join(own, "bin", "fake.py"))
    with open(os.path.join(own, "known.txt"), "w") as f:
        f.write("pass.raises-kind fail # a reason of our own\n")
    return own


def test_adapters_file_of_ones_own(env: Env) -> None:
    """An adapters file of one's own, outside the suite: relative paths are relative to it."""
    own = vendor(env)
    with open(os.path.join(own, "adapters.json"), "w") as f:
        json.dump({"description": "a vendor's adapters", "adapters": [
            {"name": "mine", "description": "the fake adapter, registered from outside",
             "command": [sys.executable, "bin/fake.py"], "env": {},
             "expectations": "known.txt"}]}, f)
    file = os.path.join(own, "adapters.json")
    ways: list[tuple[str, list[str], dict[str, str] | None]] = [
        ("--adapters FILE", ["--adapters", file], None),
        ("DEVSPEC_ADAPTERS", [], {"DEVSPEC_ADAPTERS": file})]
    for how, args, extra in ways:
        rep = env.path("mine.json")
        rc, out, err = env.run(["run", "--cases", PASS, "--adapter", "mine", "--report", rep,
                                *args], env=extra, cwd=env.tmp)
        r = load_report(rep) if os.path.exists(rep) else {"header": {}}
        exp = r["header"].get("config", {}).get("expectations", {}).get("path")
        assert rc == 0 and exp == os.path.join(own, "known.txt"), why(
            f"{how}: a vendor's adapter and its expectations, paths relative to its file",
            os.path.join(own, "known.txt"), (rc, exp, err[-400:]))
        rc, out, err = env.run(["list", "adapters", *args], spec=False, env=extra)
        assert rc == 0 and "mine" in out and "refarray" in out, why(
            f"{how}: list adapters shows both files", "mine and refarray", out)


def test_adapters_file_jobs(env: Env) -> None:
    """An entry's "jobs" is the most workers a run of that library starts, whatever --jobs
    asks (said on stderr); a value that is not a whole number from 1 to 64 is refused."""
    own = vendor(env)
    file = os.path.join(own, "adapters.json")
    for jobs, ok in ((1, True), (0, False), (1.5, False), (1e300, False)):
        with open(file, "w") as f:
            json.dump({"description": "a vendor's adapters", "adapters": [
                {"name": "mine", "command": [sys.executable, "bin/fake.py"], "jobs": jobs}]}, f)
        rep = env.path("mine-jobs.json")
        rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "mine", "--jobs", "3",
                              "--report", rep, "--adapters", file, "--no-tap"], cwd=env.tmp)
        if ok:
            said = "mine: 1 worker (its adapters file entry's \"jobs\"), not 3"
            assert rc == 0 and said in err, why("jobs 1 in the entry: one worker, said", 0,
                                                (rc, err[-400:]))
        else:
            assert rc == 2 and "jobs" in err and "whole number of workers" in err, why(
                "jobs %r refused, naming the field" % jobs, 2, (rc, err[-400:]))
    # "timeout": a case of that library may take at least so long; a shorter --timeout is
    # raised to it, and said.
    for timeout, ok in ((30, True), (0, False), ("10", False)):
        with open(file, "w") as f:
            json.dump({"description": "a vendor's adapters", "adapters": [
                {"name": "mine", "command": [sys.executable, "bin/fake.py"],
                 "timeout": timeout}]}, f)
        rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "mine", "--timeout", "5",
                              "--report", env.path("mine-timeout.json"), "--adapters", file,
                              "--no-tap"], cwd=env.tmp)
        if ok:
            assert rc == 0 and "mine: a case may take 30 s" in err and "not 5 s" in err, why(
                "timeout 30 in the entry raises --timeout 5, said", 0, (rc, err[-400:]))
        else:
            assert rc == 2 and "seconds above 0" in err, why(
                "timeout %r refused, naming the field" % timeout, 2, (rc, err[-400:]))


def test_adapters_file_takes_over(env: Env) -> None:
    """An adapters file of one's own that takes over a name of the suite's (refarray) is
    said, and the report records the file; the entry's report header says so."""
    own = vendor(env)
    with open(os.path.join(own, "takeover.json"), "w") as f:
        json.dump({"adapters": [{"name": "refarray",
                                 "command": [sys.executable, "bin/fake.py"]}]}, f)
    rep = env.path("takeover-report.json")
    rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "refarray", "--report", rep,
                          "--no-tap", "--adapters", os.path.join(own, "takeover.json")])
    ad = load_report(rep)["header"]["adapter"] if os.path.exists(rep) else {}
    assert (
        rc in (0, 1) and "replaces the suite's adapter of that name" in err and
        ad.get("adapters_file") == os.path.join(own, "takeover.json") and
        ad.get("replaces_suite_entry") is True
    ), why(
        "an adapters file of one's own taking over 'refarray': said, and in the report",
        "said and recorded", (rc, err[-400:], ad))


def test_adapters_file_key_twice(env: Env) -> None:
    """A key given twice in an adapters file is refused at its place; the message names that
    file, not the suite's adapters.json."""
    own = vendor(env)
    with open(os.path.join(own, "twice.json"), "w") as f:
        f.write('{"adapters": [{"name": "two", "command": ["a"], "command": ["b"]}]}')
    rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "two", "--no-tap", "--adapters",
                          os.path.join(own, "twice.json")])
    assert (
        rc == 2 and "the key \"command\" is given twice" in err and "twice.json:1:" in err and
        "the adapters file " + os.path.join(own, "twice.json") + " cannot be used" in err
    ), why(
        "a key given twice in an adapters file: a usage error, refused at its place, the file "
        "named", 2, (rc, err[-500:]))


def test_adapters_file_command_words(env: Env) -> None:
    """Only command words that are paths of files next to the adapters file are made relative
    to it; sh -c "exec /x ..." is passed as written."""
    own = vendor(env)
    with open(os.path.join(own, "words.json"), "w") as f:
        json.dump({"adapters": [{"name": "words", "command": [
            "sh", "-c", f"exec {sys.executable} \"$0\" \"$@\"", "bin/fake.py"]}]}, f)
    rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "words", "--no-tap", "--report",
                          env.path("words.json"), "--adapters", os.path.join(own, "words.json")])
    assert rc == 0, why(
        "sh -c 'exec /path ...' in an adapters file runs as written (bin/fake.py "
        "made relative to the file)", 0, (rc, err[-500:]))


def test_report_into_pipe(env: Env) -> None:
    """A report path that is no regular file (here a pipe, as /dev/null or /dev/stdout would
    be) is written in place: not unlinked, not replaced, no .jsonl stream created beside it."""
    fifo = env.path("report-pipe")
    os.mkfifo(fifo)
    with subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE, text=True) as reader:
        rc, _, err = env.run(["run", "--cases", CASES, "--adapter-cmd", fake_cmd(), "--no-tap",
                              "--report", fifo, "--expectations", os.devnull])
        got = stops(reader, "cat reading the report from the pipe")[0]
    assert (
        rc in (0, 1) and json.loads(got)["type"] == "devspec-report" and
        stat.S_ISFIFO(os.stat(fifo).st_mode) and not os.path.exists(fifo + ".jsonl")
    ), why(
        "--report to a pipe writes the report into it and leaves the pipe in place",
        "the report through the pipe", (rc, err[-500:], got[:200]))


def test_unreadable_adapters_file_is_a_usage_error(env: Env) -> None:
    """An adapters file that cannot be read (--adapters or DEVSPEC_ADAPTERS) is a usage
    error, exit 2, naming the file, before any adapter starts."""
    missing = env.path("no-such-adapters.json")
    for extra, environ in ((["--adapters", missing], None), ([], {"DEVSPEC_ADAPTERS": missing})):
        rc, _, err = env.run(["run", "--cases", PASS, "--adapter", "mine", "--no-tap", *extra],
                             env=environ)
        assert rc == 2 and "cannot read" in err and missing in err, why(
            "an unreadable adapters file: exit 2, the file named", 2, (rc, err[-400:]))


def test_slow_exit_is_not_called_an_out_of_memory_kill(env: Env) -> None:
    """An adapter that closes its output but takes longer than the grace time to exit is
    killed by devspec, and the reason says so (not 'killed by signal 9', which reads like the
    out-of-memory killer)."""
    slow = 'exec %s -c "import os, time; os.close(1); time.sleep(30)"' % sys.executable
    rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd",
                          slow, "--report", env.path("slow.json")])
    assert rc == 3 and "did not exit within 1 s" in err and "devspec killed it" in err and \
        "killed by signal 9" not in err, why("a slow exit is said as such", "did not exit", err)


def test_copied_program_says_where_it_looked(env: Env) -> None:
    """A devspec copied away from its tree (no devspec-tree or share/devspec beside it) says
    where it looked for the suite and how to point it, not only "cannot read
    ./spec/features.json"."""
    copy = os.path.join(env.tmp, "bin", "devspec")
    os.makedirs(os.path.dirname(copy))
    shutil.copy(env.devspec, copy)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DEVSPEC_")}
    proc = subprocess.run([copy, "list", "features"], capture_output=True, text=True,
                          cwd=env.tmp, env=clean, timeout=60)
    err = proc.stderr
    assert proc.returncode == 2 and "./spec" in err and os.path.dirname(copy) in err and \
        "DEVSPEC_SOURCE" in err and "--spec" in err, why(
        "a copied program names where it looked and how to point it", "exit 2, DEVSPEC_SOURCE",
        (proc.returncode, err))
