"""The whole conformance suite against each library, with its expectations file: the gate
that fails on anything unexpected (a new failure, a crash, an expected failure that turned
into another kind). Needs the runner, built by scripts/setup.sh into build/ (or the build
tree named by DEVSPEC_BUILD); without it these tests skip, saying so."""

import json
import os
import subprocess
import tempfile

import pytest
from adapter_client import TOP, importable

LIBRARIES = ("numpy", "array-api-strict", "jax", "torch", "tinygrad", "ivy")


def runner():
    build = os.environ.get("DEVSPEC_BUILD") or os.path.join(TOP, "build")
    path = os.path.join(build, "conformance", "devspec")
    return (path, build) if os.access(path, os.X_OK) else (None, build)


@pytest.mark.parametrize("library", LIBRARIES)
def test_suite_has_nothing_unexpected(library):
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built (no %s)" % os.path.relpath(
            os.path.join(build, "conformance", "devspec"), TOP))
    env = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build)
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, library + ".json")
        proc = subprocess.run([devspec, "run", "--adapter", library, "--report", report_path,
                               "--no-tap", "--no-progress"], capture_output=True, text=True,
                              env=env, cwd=TOP, timeout=600)
        assert os.path.exists(report_path), proc.stderr[-2000:]
        with open(report_path, encoding="utf-8") as f:
            footer = json.load(f)["footer"]
    unexpected = footer["unexpected"]
    assert proc.returncode == 0 and not unexpected, (
        "devspec exit %d; unexpected: %s; stale expectations: %s\n%s" %
        (proc.returncode, json.dumps(unexpected)[:3000], footer["stale_expectations"],
         proc.stderr[-2000:]))
    assert footer["complete"] and footer["counts"]["pass"] > 0
