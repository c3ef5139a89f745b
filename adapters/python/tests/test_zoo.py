"""The whole suite against each namespace of the zoo (tests/zoo/: one small namespace per
pattern a library nobody here has tried shows), through `python:SPEC` and the built runner,
checking the verdicts case by case against the same suite run on the namespace the fixture
is built over (NumPy or array-api-strict), not just the exit status. Needs the runner (as
test_suite.py); without it these tests skip, saying so."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

import pytest
from adapter_client import HERE, PROGRAM, TOP, importable, interpreter
from test_suite import runner

PYTHON = interpreter("numpy")
BASES = ("numpy", "array_api_strict")
ZOO_ENV = {"PYTHONPATH": HERE}


def skip_without_runner() -> tuple[str, str]:
    for library in ("numpy", "array-api-strict"):
        ok, why = importable(library)
        if not ok:
            pytest.skip(why)
    devspec, build = runner()
    if devspec is None:
        pytest.skip("the runner is not built")
    return devspec, build


def run(spec: str | None = None, cmd: str | None = None, extra: Sequence[str] = (),
        env: dict[str, str] | None = None, cwd: str = TOP) -> tuple[int, Any, str]:
    """(exit status, report, stderr then stdout: the summary) of the whole suite against
    python:SPEC (or the adapter command CMD), without expectations."""
    devspec, build = skip_without_runner()
    environ = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build, **ZOO_ENV,
                   **(env or {}))
    assert spec or cmd, "python:SPEC or an adapter command"
    adapter = ["--adapter", "python:" + spec, "--python", PYTHON] if spec else \
        ["--adapter", "zoo", "--adapter-cmd", str(cmd)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        proc = subprocess.run([devspec, "run", *adapter, "--expectations", "/dev/null",
                               "--report", path, "--no-tap", "--no-progress", *extra],
                              capture_output=True, text=True, env=environ, cwd=cwd,
                              timeout=600)
        report = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
    return proc.returncode, report, proc.stderr + proc.stdout


def verdicts(report: Any) -> dict[str, tuple[str, tuple[str, ...] | None, str]]:
    """case id -> (status, what it lacks or None, reason)."""
    assert report is not None and report["footer"]["complete"]
    return {c["id"]: (c["status"], tuple(c.get("lacks") or ()) or None, c.get("reason", ""))
            for c in report["cases"]}


@functools.cache
def base_verdicts(base: str) -> dict[str, tuple[str, tuple[str, ...] | None]]:
    _, report, err = run(base)
    assert report is not None, err[-2000:]
    return {case: (v[0], v[1]) for case, v in verdicts(report).items()}


def differences(report: Any, base: str) -> dict[str, tuple[str, tuple[str, ...] | None, str]]:
    """The cases whose (status, lacks) differ from the base namespace's run."""
    mine = verdicts(report)
    theirs = base_verdicts(base)
    assert set(mine) == set(theirs)
    return {case: mine[case] for case in mine if mine[case][:2] != theirs[case]}


def numpy_scalar_results() -> set[str]:
    """The cases NumPy fails because a reduction gives a numpy.float64 scalar, not an array
    (conformance/expectations/numpy.txt)."""
    path = os.path.join(TOP, "conformance", "expectations", "numpy.txt")
    with open(path, encoding="utf-8") as f:
        return {line.split()[0] for line in f
                if not line.startswith("#") and "returns a numpy.float64" in line}


def lacks_supported(report: Any) -> bool:
    """Whether the runner reports lacking as its own status (the LACKS contract); a runner
    from before it reports such a case as fail."""
    return "lacks" in report["footer"]["counts"]


def hello(spec: str, *flags: str, env: dict[str, str] | None = None) -> Any:
    """The adapter's hello result for python:SPEC, or (exit status, stderr) when it does not
    start."""
    proc = subprocess.run([PYTHON, PROGRAM, "--module", spec, *flags],
                          input='{"id": 0, "op": "hello", "args": {"protocol": 1}}\n',
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **ZOO_ENV, **(env or {})))
    if proc.returncode != 0 or not proc.stdout:
        return proc.returncode, proc.stderr
    return json.loads(proc.stdout.splitlines()[0])["result"]


# -- a namespace missing functions and dtypes: lacking, not wrong ----------------------------

@pytest.mark.parametrize("base", BASES)
def test_missing_functions_and_dtypes_are_lacking_not_wrong(base: str) -> None:
    rc, report, _ = run("zoo.missing", env={"ZOO_BASE": base})
    if not lacks_supported(report):
        pytest.skip("the runner does not report lacking cases apart yet")
    differ = differences(report, base)
    assert differ, "no case noticed what the namespace lacks"
    names: set[str] = set()
    for case, (status, lacks, reason) in differ.items():
        assert status == "lacks" and lacks, (case, status, reason)
        names.update(lacks)
    assert names == {"arange", "linspace", "tril", "dtype uint16", "dtype uint32"}, names
    assert rc == 1


# -- an introspection call that raises: a note, the run goes on -------------------------------

@pytest.mark.parametrize("base", BASES)
def test_a_probe_that_raises_is_a_note_and_the_run_goes_on(base: str) -> None:
    spec = "zoo.dtypes_kind"
    got = hello(spec, env={"ZOO_BASE": base})
    assert isinstance(got, dict), got
    assert any(n.startswith("could not determine info.dtypes(): TypeError:")
               for n in got["notes"]), got["notes"]
    assert got["claims"]["info-dtypes"]["claimed"] is False
    assert "info-dtypes" not in got["features"] and "info-devices" in got["features"]
    _, report, err = run(spec, env={"ZOO_BASE": base})
    assert report is not None, err[-2000:]
    notes = report["header"]["discovery"]["notes"]
    assert any("could not determine info.dtypes()" in n for n in notes)
    # Only the cases of the unclaimed feature change: they are skipped.
    for case, (status, _, reason) in differences(report, base).items():
        assert status == "skip" and "info-dtypes" in reason, (case, status, reason)
    # The profiles of the version the library declares and before get a verdict from the cases that
    # ran, and the summary names the probe that raised, instead of folding them into "features
    # not claimed by the library".
    declared = report["header"]["library"]["array_api_version"]
    for name in ["array-api-" + v for v in ("2023.12", "2024.12", "2025.12") if v <= declared]:
        profile = report["footer"]["profiles"][name]
        assert profile["verdict"] == "does-not-conform", (name, profile)
        # Cases count whether the profile requires or lists their features as optional.
        ran = profile["passed"] + profile["optional"]["passed"]
        assert "info-dtypes" in profile["missing_features"] and ran > 500, (name, profile)
        assert re.search(r"\n  %s +does-not-conform \(\d+ of \d+ cases passed.*; "
                         r"not claimed: info-dtypes[ a-z-]*\)" % re.escape(name), err), \
            err[-3000:]
    assert "\n  probe that raised: info.dtypes(): TypeError: " in err, err[-3000:]
    assert "\n  info-dtypes not claimed: info.dtypes(), info.dtypes(device=D0) raised" in err


# -- namespaces that are not a plain module -------------------------------------------------

@pytest.mark.parametrize("spec, base", [("zoo.holder.xp", "array_api_strict"),
                                        ("zoo.holder:namespace(numpy)", "numpy"),
                                        ("zoo.holder:namespace('array_api_strict')",
                                         "array_api_strict"),
                                        ("zoo.arrays_only", "array_api_strict")])
def test_attribute_factory_and_arrays_namespaces_give_the_bases_verdicts(spec: str,
                                                                        base: str) -> None:
    _, report, err = run(spec)
    assert report is not None, err[-2000:]
    assert not differences(report, base)
    library = report["header"]["library"]
    assert library["name"] == base
    # A namespace of another package than the arrays' is the wrapper, apart.
    if spec.startswith("zoo.holder"):
        assert library["wrapper"]["name"] == "zoo"
    else:
        assert "wrapper" not in library


def test_arrays_only_namespace_over_numpy() -> None:
    _, report, err = run("zoo.arrays_only", env={"ZOO_BASE": "numpy"})
    assert report is not None, err[-2000:]
    assert not differences(report, "numpy")
    assert any("__array_namespace__()" in n for n in report["header"]["discovery"]["notes"])


def test_a_module_holding_a_namespace_says_what_to_try() -> None:
    rc, err = hello("zoo.holder")
    assert rc == 3
    assert "try python:zoo.holder:namespace" in err and "python:zoo.holder.xp" in err, err
    rc, err = hello("zoo.holder:nowhere")
    assert rc == 3 and "zoo.holder has no attribute nowhere" in err, err


# -- a listed device that cannot allocate is left out ---------------------------------------

@pytest.mark.parametrize("base", BASES)
def test_an_unusable_device_is_left_out_with_the_reason(base: str) -> None:
    _, report, err = run("zoo.bad_device", env={"ZOO_BASE": base})
    assert report is not None, err[-2000:]
    header = report["header"]
    assert header["devices"] and all("meta" not in d.get("str", "")
                                      for d in header["devices"]), header["devices"]
    excluded = header["discovery"]["excluded_devices"]
    assert [e["str"] for e in excluded] == ["meta"]
    assert excluded[0]["why"].startswith("creating asarray([1, 2], device=it): ValueError")
    # Every case but those about the device list itself has the base's verdict.
    for case, (status, _, reason) in differences(report, base).items():
        assert case.startswith("info."), (case, status, reason)


def test_devices_bound_by_the_settings() -> None:
    got = hello("zoo.bad_device:namespace(array_api_strict)", "--device",
                "D1=array_api_strict.Device('device2')")
    assert got["device_strs"][:2] == ["array_api_strict.Device('CPU_DEVICE')",
                                      "array_api_strict.Device('device2')"]
    assert "meta" not in got["device_strs"]
    rc, err = hello("zoo.bad_device:namespace(numpy)", "--device", "D1=gpu")
    assert rc == 3 and "--device D1=gpu: the library lists no such device" in err, err


# -- a first call that compiles: warmed up before hello -------------------------------------

@pytest.mark.parametrize("base", BASES)
def test_a_slow_first_call_is_warmed_up_before_the_first_case(base: str) -> None:
    _, report, err = run("zoo.slow_first", extra=("--timeout", "2", "--jobs", "2"),
                          env={"ZOO_SLEEP": "3", "ZOO_BASE": base})
    assert report is not None, err[-2000:]
    assert report["footer"]["counts"]["timeout"] == 0
    assert not differences(report, base)
    assert any(n.startswith("warm-up:") for n in report["header"]["discovery"]["notes"])


# -- arrays without .device: lacking by default, array-api-compat's helpers with --compat ------

def test_no_device_anywhere_is_a_verdict_naming_array_device() -> None:
    """Arrays without .device and no inspection namespace (mlx.core in a namespace of two
    lines): no device can be listed or read, so D0 is None, the library's default placement,
    and the cases run: every profile is does-not-conform, lacking Array.device, where it was
    undetermined with every case skipped for want of a device."""
    _, report, err = run("zoo.no_device:namespace(False)")
    assert report is not None, err[-2000:]
    assert [d["str"] for d in report["header"]["devices"]] == ["None"], report["header"]
    assert any(n.startswith("no device found") for n in report["header"]["discovery"]["notes"])
    if not lacks_supported(report):
        return
    for name in ("array-api-2021.12", "array-api-2024.12"):
        profile = report["footer"]["profiles"][name]
        assert profile["verdict"] == "does-not-conform", (name, profile)
        ran = profile["passed"] + profile["optional"]["passed"]
        assert "Array.device" in profile["lacks"] and ran > 100, profile
        assert re.search(r"\n  %s +does-not-conform: lacks [^\n]*Array\.device"
                         % re.escape(name), err), err[-3000:]


def test_arrays_without_device_lack_it_unless_compat() -> None:
    spec = "zoo.no_device:namespace()"
    _, report, err = run(spec)
    assert report is not None, err[-2000:]
    if lacks_supported(report):
        lacked = {n for s, lacks, _ in verdicts(report).values() if s == "lacks"
                  for n in lacks or ()}
        assert "Array.device" in lacked and "Array.to_device" in lacked, lacked
        # A finding against the standard, named in each profile's verdict, never
        # "undetermined".
        for name in ("array-api-2021.12", "array-api-2024.12"):
            profile = report["footer"]["profiles"][name]
            assert profile["verdict"] == "does-not-conform", (name, profile)
            assert {"Array.device", "Array.to_device"} <= set(profile["lacks"]), profile
            assert re.search(r"\n  %s +does-not-conform: lacks [^\n]*Array\.device"
                             % re.escape(name), err), err[-3000:]
    # --compat given to the adapter, or compat = true in a devspec.toml where devspec runs.
    cmd = "%s %s --module '%s' --compat" % (PYTHON, PROGRAM, spec)
    _, compat, err = run(cmd=cmd)
    assert compat is not None, err[-2000:]
    # The runner passes python:SPEC's own options on: `devspec run --adapter python:SPEC
    # --compat` is the same run (and --compat with another adapter is a usage error).
    _, passed_on, err = run(spec, extra=["--compat"])
    assert passed_on is not None, err[-2000:]
    assert {c: v[:2] for c, v in verdicts(passed_on).items()} == \
        {c: v[:2] for c, v in verdicts(compat).items()}
    rc, _, err = run(cmd=cmd, extra=["--compat"])
    assert rc == 2 and "--compat goes with --adapter python:MODULE" in err, err
    notes = compat["header"]["discovery"]["notes"]
    assert any("array-api-compat" in n and "--compat" in n for n in notes), notes
    with tempfile.TemporaryDirectory() as here:
        with open(os.path.join(here, "devspec.toml"), "w", encoding="utf-8") as f:
            f.write("[tool.devspec]\ncompat = true\n")
        _, settled, err = run(spec, cwd=here)
    assert settled is not None, err[-2000:]
    notes = settled["header"]["discovery"]["notes"]
    assert any(n.startswith("settings read from ") and n.endswith("devspec.toml")
               for n in notes), notes
    assert {c: v[:2] for c, v in verdicts(settled).items()} == \
        {c: v[:2] for c, v in verdicts(compat).items()}
    assert not any(n in ("Array.device", "Array.to_device") for s, lacks, _ in
                   verdicts(compat).values() if lacks for n in lacks)
    # Through the helpers it is NumPy, device for device; but the fixture wraps a NumPy scalar
    # result (numpy.float64, which NumPy's reductions over every axis give) into an array, so
    # the cases NumPy fails for that pass here.
    assert not {c: v for c, v in differences(compat, "numpy").items()
                if c not in numpy_scalar_results()}


# -- a renamed parameter: reported as misnamed ----------------------------------------------

@pytest.mark.parametrize("base", BASES)
def test_a_misnamed_parameter_is_reported_as_such(base: str) -> None:
    spec = "zoo.renamed"
    got = hello(spec, env={"ZOO_BASE": base})
    assert got["claims"]["device-keyword-only"] == {
        "claimed": True, "why": "the signature of zeros can be read (its parameter 'dev' "
                               "stands where the standard puts device)"}
    _, report, err = run(spec, env={"ZOO_BASE": base})
    assert report is not None, err[-2000:]
    differ = differences(report, base)
    assert "signature.device.zeros" in differ
    supported = lacks_supported(report)
    for case, (status, lacks, reason) in differ.items():
        if supported:
            assert status == "lacks" and lacks == ("zeros(device=)",), (case, status, reason)
        assert "zeros's parameter 'dev' stands where the standard puts device" in reason or \
            status == "lacks", (case, reason)


# -- a namespace ignoring its devices' dtypes: devices past the third are checked -------------

def test_a_device_that_takes_an_unlisted_dtype_or_ignores_its_defaults_fails() -> None:
    """zoo.lax_dtypes over array-api-strict gives an unlisted dtype the device's default
    instead of raising, and creates without dtype in the default device's defaults: the cases
    on D3 and D4 (no_float64, no_x64) catch both, where array-api-strict itself passes them."""
    globs = ("dtypes.unlisted-refused.*", "info.default-dtypes.used-by-creation.*")
    extra = [arg for g in globs for arg in ("--case", g)]
    _, plain, err = run("array_api_strict", extra=extra)
    assert plain is not None, err[-2000:]
    assert {v[0] for v in verdicts(plain).values()} == {"pass"}
    _, report, err = run("zoo.lax_dtypes", extra=extra, env={"ZOO_BASE": "array_api_strict"})
    assert report is not None, err[-2000:]
    failed = {case for case, v in verdicts(report).items() if v[0] == "fail"}
    assert {"dtypes.unlisted-refused.float64.fourth", "dtypes.unlisted-refused.int64.fifth",
            "info.default-dtypes.used-by-creation.real.float32.fourth",
            "info.default-dtypes.used-by-creation.integral.int32.fifth"} <= failed, failed
