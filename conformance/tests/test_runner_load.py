"""Loading case files: every broken file of invalid/ is refused before anything runs, at the
location invalid/expected.txt gives; every problem of every file is reported."""

from __future__ import annotations

import os
import shutil

import pytest
from support import CASES, HERE, Env, fake_cmd, why


def invalid_files() -> list[tuple[str, str, str, str]]:
    """invalid/expected.txt: (file, location, field, reason) per line."""
    entries = []
    with open(os.path.join(HERE, "invalid", "expected.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                fname, loc, field, reason = line.split(" ", 3)
                entries.append((fname, loc, field, reason))
    return entries


@pytest.mark.parametrize(("fname", "loc", "field", "reason"), invalid_files(),
                         ids=[e[0] for e in invalid_files()])
def test_invalid_file(env: Env, fname: str, loc: str, field: str, reason: str) -> None:
    marker = env.path("adapter-started")
    path = os.path.join(HERE, "invalid", fname)
    rc, _, err = env.run(["run", "--cases", path, "--adapter-cmd",
                          f"touch {marker}; " + fake_cmd(), "--report", env.path("never.json")])
    want = f"{path}:{loc}: {field}"
    assert rc == 2, why(f"invalid {fname}: exit status 2", 2, rc)
    assert want in err and reason in err, why(
        f"invalid {fname}: names {loc} and {field}", f"{want} ... {reason}", err)
    assert not os.path.exists(marker) and not os.path.exists(env.path("never.json")), why(
        f"invalid {fname}: nothing ran, no report written", "no adapter, no report",
        os.listdir(env.tmp))


def test_every_problem_reported(env: Env) -> None:
    """Every problem of every file is reported, not only the first."""
    d = env.path("two-bad")
    os.makedirs(d)
    for f in ("unknown-op.json", "bad-id.json"):
        shutil.copy(os.path.join(HERE, "invalid", f), d)
    shutil.copy(os.path.join(CASES, "pass.json"), d)
    rc, _, err = env.run(["validate", "--cases", d])
    assert rc == 2 and "unknown-op.json:11:16" in err and "bad-id.json:5:13" in err, why(
        "problems in two files of a directory are all reported", "both locations", err)


def test_fixture_cases_valid(env: Env) -> None:
    rc, out, err = env.run(["validate", "--cases", CASES])
    assert rc == 0 and "cases: valid" in out, why("the fixture cases are valid", 0, err)


def test_missing_case_path(env: Env) -> None:
    rc, _, err = env.run(["validate", "--cases", env.path("nowhere")])
    assert rc == 2 and "nowhere" in err, why("a missing case path is exit 2 naming it", 2, err)
