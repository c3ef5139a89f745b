"""The command line's options tables (conformance/src/options.c): run (with list, coverage
and validate, which share its table), compare, probe and expectations read their arguments
with one parser and print their help from the same tables. Each option a subcommand's
--help lists is one it takes, with a value where the help shows one; an unknown option, a
missing value or a value out of range is a usage error (exit 2) that names the option and
the reason; --opt=value is --opt value.

    .venv/bin/python -m pytest conformance/tests/test_options.py [--devspec PATH]
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
REPORT = os.path.join(SOURCE, "reports", "numpy.json")

# A stand-in value for each placeholder of the help, one the option accepts.
VALUES = {"SECONDS": "5", "N": "2", "13|14": "13", "statement|case|feature": "case",
          "S": "fail"}

# Each subcommand: how to make it stop with a usage error of its own after the options are
# read (so an option that was taken shows as that error, not as an unknown option), and that
# error's words.
COMMANDS = {
    "run": ([], "run needs --adapter"),
    "validate": (["--cases", "/nonexistent/cases.json"], "cannot read"),
    "compare": ([], "needs reports"),
    "probe": ([], "needs case files"),
    "expectations": (["a.json", "b.json"], "needs one report"),
    "repro": (["a.json", "b.json"], "needs one report"),
}


@pytest.fixture(scope="module")
def devspec(request: pytest.FixtureRequest) -> str:
    given = None
    with contextlib.suppress(ValueError):  # run without the runner tests' conftest.py
        given = request.config.getoption("--devspec")
    build = os.environ.get("DEVSPEC_BUILD") or os.path.join(SOURCE, "build")
    path = str(given or os.path.join(build, "conformance", "devspec"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no runner at {path}: build it (cmake --build build) or pass --devspec")
    return path


def run(devspec: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEVSPEC_SOURCE=SOURCE, NO_COLOR="1")
    env.pop("DEVSPEC_ADAPTERS", None)
    return subprocess.run([devspec, *args], capture_output=True, text=True, env=env, cwd=HERE,
                          timeout=60)


def listed(devspec: str, command: str) -> list[tuple[str, str | None]]:
    """The options COMMAND's --help lists in its option column, each with the placeholder of
    its value (None for a flag). "--tap / --no-tap" and "--jobs N, -j N" give both."""
    r = run(devspec, command, "--help")
    assert r.returncode == 0, r.stderr
    found: list[tuple[str, str | None]] = []
    for line in r.stdout.splitlines():
        if not line.startswith("  -") or line.startswith("  --adapter python:"):
            continue
        # The option column: 24 characters wide, or up to two spaces where an option's line
        # is wider (the layout of options.c's help).
        wide = len(line) > 25 and line[25] != " "
        column = (line[2:].split("  ")[0] if wide else line[2:25]).split()
        for part in " ".join(column).replace(",", "").split(" / "):
            for one in re.split(r" (?=-)", part):
                words = one.split()
                found.append((words[0], words[1] if len(words) > 1 else None))
    return found


@pytest.mark.parametrize("command", ["run", "compare", "probe", "expectations", "repro"])
def test_help_is_on_stdout_and_exit_0(devspec: str, command: str) -> None:
    """--help (or -h, anywhere among the arguments) prints the subcommand's help on stdout."""
    for args in (["--help"], ["-h"], ["--no-such-option", "--help"]):
        r = run(devspec, command, *args)
        assert r.returncode == 0, (args, r.stderr)
        assert r.stderr == ""
        assert r.stdout.startswith("usage: devspec")
        assert "--help" in r.stdout or command == "run"


@pytest.mark.parametrize("command", ["run", "compare", "probe", "repro"])
def test_every_listed_option_is_taken(devspec: str, command: str) -> None:
    """Each option of the help is read, with the value the help shows: the command then stops
    at its own complaint (no reports, no adapter), not at the option."""
    opts = listed(devspec, command)
    assert len(opts) >= {"run": 20, "repro": 6}.get(command, 8), opts
    sub = "validate" if command == "run" else command
    tail, complaint = COMMANDS[sub]
    for name, placeholder in opts:
        if name in ("--help", "-h") or (command == "run" and name in ("--adapter",
                                                                     "--adapter-cmd")):
            continue
        args = [name] if placeholder is None else [name, VALUES.get(placeholder, "x")]
        r = run(devspec, sub, *args, *tail)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        # validate checks a --profile, --feature or --spec before the case files
        assert complaint in r.stderr or sub == "validate", (args, r.stderr)
        assert f"{name} needs" not in r.stderr, (args, r.stderr)
        assert "unknown option" not in r.stderr and "needs a value" not in r.stderr, args


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_option_is_named(devspec: str, command: str) -> None:
    r = run(devspec, command, "--no-such-option", *COMMANDS[command][0])
    assert r.returncode == 2
    assert re.search(r"unknown option( or argument)? '--no-such-option'", r.stderr), r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("command", ["run", "compare", "probe", "repro"])
def test_missing_value_is_named(devspec: str, command: str) -> None:
    """An option that takes a value, last with none: 'OPTION needs a value'."""
    taking = [n for n, p in listed(devspec, command) if p is not None]
    assert taking
    for name in taking:
        r = run(devspec, command, name)
        assert r.returncode == 2, name
        assert f"{name} needs a value" in r.stderr, (name, r.stderr)


@pytest.mark.parametrize("args,said", [
    (["run", "--timeout", "nan"], "--timeout needs a finite number of seconds from 0 to 1e6, "
                                  "not 'nan'"),
    (["run", "--jobs=-1"], "--jobs needs a count >= 1, not '-1'"),
    (["run", "--jobs", "0"], "--jobs needs a count >= 1, not '0'"),
    (["run", "-j", "x"], "-j needs a count >= 1, not 'x'"),
    (["probe", "--timeout", "nan", "f.json"], "--timeout needs a finite number of seconds "
                                              "from 0 to 1e6, not 'nan'"),
    (["probe", "--timeout=inf", "f.json"], "--timeout needs a finite number of seconds"),
    (["run", "--in-process", "--adapter-cmd", "x"], "--in-process goes with --adapter NAME, "
                                                   "not --adapter-cmd"),
    (["run", "--in-process", "--adapter", "./prog.py"], "--in-process goes with --adapter "
                                                        "NAME (an adapters.json entry"),
    (["run", "--in-process", "--adapter", "python:numpy"], "not 'python:numpy', which runs out"),
    (["compare", "--by", "row", "r.json"], "--by takes statement, case or feature, not 'row'"),
    (["compare", "--status=passed", "r.json"], "unknown status 'passed'"),
    (["probe", "--jobs", "0", "f.json"], "--jobs needs a count 1..64, not '0'"),
    (["probe", "--jobs=65", "f.json"], "--jobs needs a count 1..64, not '65'"),
    (["list", "cases", "features"], "unknown option or argument 'features'"),
    (["expectations", "a.json", "b.json"], "expectations needs one report"),
])
def test_bad_value_names_option_and_reason(devspec: str, args: list[str], said: str) -> None:
    r = run(devspec, *args)
    assert r.returncode == 2
    assert said in r.stderr, r.stderr
    assert "(devspec --help for usage)" in r.stderr


def test_equals_form_is_the_spaced_form(devspec: str) -> None:
    """--by=case reads as --by case (compare's table; the parser is every command's)."""
    a = run(devspec, "compare", "--by=case", "--status=xfail", "--plain", REPORT)
    b = run(devspec, "compare", "--by", "case", "--status", "xfail", "--plain", REPORT)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert "xfail" in a.stdout


def test_probe_hands_compare_options_on(devspec: str, tmp_path: Path) -> None:
    """probe's comparison options reach compare: --by with a value compare refuses is
    compare's usage error, after the run (of the null adapter)."""
    cases = os.path.join(SOURCE, "conformance", "cases", "device-attr.json")
    null = os.path.join(os.path.dirname(devspec), "devspec-null-adapter")
    r = run(devspec, "probe", cases, "--adapter", null, "--out", str(tmp_path), "--by=row")
    assert r.returncode == 2, r.stderr
    assert "devspec: compare: --by takes statement, case or feature, not 'row'" in r.stderr
    assert os.path.isfile(tmp_path / "devspec-null-adapter.json")
