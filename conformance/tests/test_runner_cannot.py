"""What a library cannot do is never a wrong answer (spec/decisions.md, Protocol and adapters
26): a step the adapter cannot express (NotImplementedError of origin adapter) is lacking
under the features the library claims and a skip under a feature the step uses that it does
not claim (the tests' spec/step-features.json); a case that makes a dtype on a device whose
info.dtypes leaves it out is skipped, saying so, for the fake adapter speaking the protocol
and for a Python namespace through the Python adapter."""

from __future__ import annotations

import os

from support import CASES, HERE, Env, fake_cmd, load_report, statuses, why

CANNOT = os.path.join(CASES, "cannot.json")
FIXTURES = os.path.join(HERE, "fixtures")


def run_fake(env: Env, name: str, *opts: str) -> dict[str, dict[str, object]]:
    rep = env.path(name)
    env.run(["run", "--cases", CANNOT, "--adapter-cmd", fake_cmd(*opts), "--report", rep])
    return {c["id"]: c for c in load_report(rep)["cases"]}


def test_unexpressible_step_is_lacking_or_a_skip(env: Env) -> None:
    claimed = run_fake(env, "claimed.json", "--features", "device-attr,output-follows-input")
    step = claimed["cannot.step"]
    assert step["status"] == "lacks" and step.get("lacks") == ["array.matmul"], why(
        "an op the adapter cannot express under features the library claims: lacking the op",
        "lacks array.matmul", step)
    unclaimed = run_fake(env, "unclaimed.json", "--features", "device-attr")
    step = unclaimed["cannot.step"]
    assert step["status"] == "skip" and step.get("skip_source") == "unsupported" and str(
        step.get("reason", "")).startswith("unsupported: output-follows-input (step 1, "), why(
        "the same step under a feature the library does not claim: a skip naming it",
        "skip, unsupported: output-follows-input", step)


def test_dtype_left_out_skips(env: Env) -> None:
    by = run_fake(env, "dtypes.json", "--dtypes-left-out", "1:uint8,bool")
    got = {k: (v["status"], v.get("skip_source")) for k, v in by.items() if "dtype" in k}
    want = {"cannot.dtype.other-device": ("skip", "dtype"),
            "cannot.dtype.default-device": ("pass", None),
            "cannot.dtype.refusal": ("fail", None)}
    assert got == want, why(
        "uint8 on D1, which lists no uint8, skips; uint8 on D0 runs; a step allowed to raise "
        "needs no dtype", want, got)
    assert by["cannot.dtype.other-device"]["reason"] == (
        "dtype: needs uint8 on $D1 (gpu:0), which info.dtypes does not list"), why(
        "the reason names the dtype and the device by the library's name", None,
        by["cannot.dtype.other-device"]["reason"])
    # Without info.dtypes (NotImplementedError) nothing skips for a dtype.
    plain = run_fake(env, "plain.json")
    assert plain["cannot.dtype.other-device"]["status"] == "pass", why(
        "a library that does not answer info.dtypes runs every dtype", "pass",
        plain["cannot.dtype.other-device"])


def test_c_adapter_dtypes_both_transports(env: Env) -> None:
    """The null adapter (C) with DEVSPEC_NULL_DTYPES lists float32 only: the uint8 cases skip
    in and out of process alike."""
    extra = {"DEVSPEC_NULL_DTYPES": "float32", "DEVSPEC_NULL_FEATURES": "device-attr"}
    got = {}
    for name, adapter in (("oop", ["--adapter-cmd", env.null_prog]),
                          ("inproc", ["--adapter", env.null_so])):
        rep = env.path("null-%s.json" % name)
        env.run(["run", "--cases", CANNOT, *adapter, "--report", rep], env=extra)
        got[name] = {c["id"]: (c["status"], c.get("skip_source"))
                     for c in load_report(rep)["cases"] if "dtype" in c["id"]}
    want = {"cannot.dtype.other-device": ("skip", "dtype"),
            "cannot.dtype.default-device": ("skip", "dtype")}
    for name in got:
        assert {k: got[name][k] for k in want} == want and got[name][
            "cannot.dtype.refusal"][1] is None, why(
            "a dtype info.dtypes does not list skips the case (%s)" % name, want, got[name])


def test_python_namespace_without_uint8(env: Env) -> None:
    python = os.path.join(env.source, ".venv", "bin", "python")
    if not os.access(python, os.X_OK):
        python = "python3"
    rep = env.path("xp.json")
    extra = {"PYTHONPATH": FIXTURES}
    _, _, err = env.run(["run", "--adapter", "python:xp_without_uint8", "--python", python,
                          "--case", "promotion.api.add.uint8.uint8.array",
                          "--case", "promotion.api.add.int8.int8.array", "--report", rep],
                         env=extra, spec=False)
    st = statuses(load_report(rep))
    want = {"promotion.api.add.uint8.uint8.array": "skip",
            "promotion.api.add.int8.int8.array": "pass"}
    assert {k: st.get(k) for k in want} == want, why(
        "NumPy's namespace with uint8 left out of info.dtypes: the uint8 case skips", want,
        (st, err[-500:]))
