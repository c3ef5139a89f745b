"""The default report path (reports/runs/LABEL.json when --report is not given) is checked
against the run's inputs as an explicit --report is: a case file or the expectations file
there is refused and left as it was, whether the name is the adapter's label (known before
the run: exit 2) or the library's name from hello (--adapter-cmd without --adapter: the run
stops after hello, exit 3), and the report's journal beside it (LABEL.jsonl) likewise."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


def option(config: pytest.Config, name: str) -> str | None:
    """A path option conftest.py may declare (--devspec, --build, --null-program)."""
    value = config.getoption(name, default=None)
    return str(value) if value else None


@pytest.fixture
def programs(request: pytest.FixtureRequest) -> tuple[str, str]:
    """The runner and the null adapter's program of the build under test: the paths CTest
    passes, else those of DEVSPEC_BUILD or build/ of this checkout."""
    build = option(request.config, "--build") or os.environ.get("DEVSPEC_BUILD") or \
        os.path.join(SOURCE, "build")
    conf = os.path.join(build, "conformance")
    devspec = option(request.config, "--devspec") or os.path.join(conf, "devspec")
    null = option(request.config, "--null-program") or os.path.join(conf, "devspec-null-adapter")
    for p in (devspec, null):
        if not os.access(p, os.X_OK):
            pytest.fail(f"no program at {p}: build it (cmake --build build)")
    return devspec, null


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(devspec: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEVSPEC_SOURCE=SOURCE)
    return subprocess.run([devspec, "run", "--no-progress", "--spec", TEST_SPEC, *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


# The runner's own test statements and a small case file the null adapter answers.
TEST_SPEC = os.path.join(HERE, "spec")
CASES = os.path.join(HERE, "cases", "null.json")


def put(path: Path) -> str:
    """A copy of a small case file of the runner's tests at PATH; its digest."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CASES, path)
    return digest(path)


def test_default_report_of_a_named_adapter_onto_the_case_file(programs: tuple[str, str],
                                                              tmp_path: Path) -> None:
    devspec, null = programs
    label = os.path.basename(null)
    cases = tmp_path / "reports" / "runs" / (label + ".json")
    before = put(cases)
    r = run(devspec, ["--adapter", null, "--cases", str(cases.relative_to(tmp_path))], tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert "the default report (no --report) reports/runs/%s.json is the case file" % label \
        in r.stderr, r.stderr[-500:]
    assert digest(cases) == before, "the case file was changed"
    assert not (tmp_path / "reports" / "runs" / (label + ".jsonl")).exists()


def test_default_report_named_by_hello_onto_the_case_file(programs: tuple[str, str],
                                                          tmp_path: Path) -> None:
    """--adapter-cmd without --adapter: the report is named after the library (the null
    adapter's hello says "null"), known only once the adapter has answered."""
    devspec, null = programs
    cases = tmp_path / "reports" / "runs" / "null.json"
    before = put(cases)
    r = run(devspec, ["--adapter-cmd", "exec '%s'" % null, "--cases", "reports/runs/null.json"],
            tmp_path)
    assert r.returncode == 3, (r.returncode, r.stderr[-500:])
    assert "the default report (no --report) reports/runs/null.json is the case file" \
        in r.stderr, r.stderr[-500:]
    assert digest(cases) == before, "the case file was changed"
    assert not (tmp_path / "reports" / "runs" / "null.jsonl").exists()


def test_default_report_onto_the_expectations_file(programs: tuple[str, str],
                                                   tmp_path: Path) -> None:
    devspec, null = programs
    label = os.path.basename(null)
    expectations = tmp_path / "reports" / "runs" / (label + ".json")
    expectations.parent.mkdir(parents=True)
    expectations.write_text("null.no-such-case fail # a reason of more than twenty letters\n")
    before = digest(expectations)
    r = run(devspec, ["--adapter", null, "--cases", CASES, "--expectations",
                      str(expectations)], tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert "is the expectations file" in r.stderr, r.stderr[-500:]
    assert digest(expectations) == before, "the expectations file was changed"


def test_default_journal_onto_the_case_file(programs: tuple[str, str], tmp_path: Path) -> None:
    """The journal streamed beside the default report (LABEL.jsonl) is an output too."""
    devspec, null = programs
    label = os.path.basename(null)
    cases = tmp_path / "reports" / "runs" / (label + ".jsonl")
    before = put(cases)
    r = run(devspec, ["--adapter", null, "--cases", str(cases)], tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert "the report's journal" in r.stderr and "is the case file" in r.stderr, \
        r.stderr[-500:]
    assert digest(cases) == before, "the case file was changed"


def test_default_report_elsewhere_is_written(programs: tuple[str, str], tmp_path: Path) -> None:
    """The check refuses only a clash: the same run with the cases elsewhere writes the
    default report."""
    devspec, null = programs
    label = os.path.basename(null)
    r = run(devspec, ["--adapter", null, "--cases", CASES], tmp_path)
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-500:])
    assert (tmp_path / "reports" / "runs" / (label + ".json")).stat().st_size > 0
