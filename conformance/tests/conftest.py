"""The runner's tests under pytest: where the programs under test are, and the fixture `env`.

CTest passes the paths of its build (conformance/tests/CMakeLists.txt); run by hand, they
default to the build folder build/ of this checkout (or $DEVSPEC_BUILD):

    .venv/bin/python -m pytest conformance/tests/test_runner_judge.py
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The checks of support.py (check_schema, check_junit, ...) report as pytest's asserts do.
pytest.register_assert_rewrite("support")

from support import NOT_RUN, SOURCE, Env  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("devspec", "the runner under test")
    g.addoption("--devspec", help="the devspec program (default: BUILD/conformance/devspec)")
    g.addoption("--source", default=SOURCE, help="the source folder (default: this checkout)")
    g.addoption("--build", help="the build folder (default: $DEVSPEC_BUILD or SOURCE/build)")
    g.addoption("--null-program", help="the null adapter's program")
    g.addoption("--null-so", help="the null adapter's shared object")


def _paths(config: pytest.Config) -> tuple[str, str, str, str, str]:
    source = str(config.getoption("--source"))
    build = config.getoption("--build") or os.environ.get("DEVSPEC_BUILD") or os.path.join(
        source, "build")
    conf = os.path.join(build, "conformance")
    devspec = config.getoption("--devspec") or os.path.join(conf, "devspec")
    null_prog = config.getoption("--null-program") or os.path.join(conf, "devspec-null-adapter")
    null_so = config.getoption("--null-so") or os.path.join(conf, "devspec_null_adapter.so")
    return str(devspec), source, str(build), str(null_prog), str(null_so)


@pytest.fixture
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Env:
    """The runner under test, with a temporary folder of the test's own."""
    devspec, source, build, null_prog, null_so = _paths(request.config)
    if not os.access(devspec, os.X_OK):
        pytest.fail(f"no runner at {devspec}: build it (cmake --build build) or pass --devspec")
    return Env(devspec, source, build, null_prog, null_so, str(tmp_path))


@pytest.fixture(autouse=True)
def checks_not_run() -> Iterator[None]:
    """A check a test left out for want of a tool (support.NOT_RUN) makes it a skip naming the
    check, after the rest of the test has run: visible, never a silent pass."""
    NOT_RUN.clear()
    yield
    if NOT_RUN:
        reasons = "; ".join(dict.fromkeys(NOT_RUN))
        NOT_RUN.clear()
        pytest.skip(reasons)
