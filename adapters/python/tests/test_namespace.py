"""The zero-code backend (devspec_adapter.py --module MODULE): what it claims comes from the
module itself, and what the module lacks is an honest skip, never a failure of the library.
The suite-level comparison with the named backends is in test_suite.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from adapter_client import PROGRAM, TOP, importable, interpreter

needs_strict = pytest.mark.skipif(not importable("array-api-strict")[0],
                                  reason=importable("array-api-strict")[1])


def session(module, pythonpath=None, requests=()):
    """The replies of --module MODULE to hello and then each of REQUESTS (op, args)."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    lines = [{"id": 0, "op": "hello", "args": {"protocol": 1}}]
    lines += [{"id": i + 1, "op": op, "args": args} for i, (op, args) in enumerate(requests)]
    proc = subprocess.run([interpreter("numpy"), PROGRAM, "--module", module],
                          input="".join(json.dumps(x) + "\n" for x in lines),
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def required(version):
    with open(os.path.join(TOP, "spec", "features.json"), encoding="utf-8") as f:
        registry = json.load(f)["features"]
    return {f["name"] for f in registry if version in f["versions"] and not f["optional"]}


def test_required_features_per_version_follow_the_registry():
    from devspec_py.array_api import REQUIRED
    for version, features in REQUIRED.items():
        assert set(features) == required(version), version


@needs_strict
@pytest.mark.parametrize("module, named", [("array_api_strict", "array-api-strict"),
                                           ("numpy", "numpy")])
def test_claims_read_from_the_namespace_equal_the_named_backends(module, named):
    from devspec_py.backends import backend_class
    hello = session(module)[0]["result"]
    assert set(hello["features"]) == set(backend_class(named).features)
    # The library is the package of the arrays' class; nothing wraps it.
    assert hello["library"]["name"] == module and "wrapper" not in hello["library"]


# A library nobody here has tried: an array API 2023.12 namespace without the inspection
# namespace, without tril and without the fft extension (array_api_strict's functions).
PARTIAL = textwrap.dedent("""
    import array_api_strict as _s
    __array_api_version__ = "2023.12"
    for _name in ("asarray", "zeros", "ones", "empty", "full", "add", "reshape", "float64",
                  "float32", "int32", "int64", "bool", "empty_like", "zeros_like",
                  "from_dlpack", "can_cast", "result_type", "astype", "triu"):
        globals()[_name] = getattr(_s, _name)
""")


@needs_strict
def test_what_a_namespace_lacks_is_not_claimed_or_answers_lacks(tmp_path):
    (tmp_path / "partial_namespace.py").write_text(PARTIAL)
    replies = session("partial_namespace", str(tmp_path), [
        ("info.devices", {}), ("array.create", {"fn": "zeros", "shape": [2, 2]}),
        ("array.tril", {"x": "array#0"}), ("array.create", {"fn": "fftfreq", "n": 4}),
        ("array.triu", {"x": "array#0"}), ("array.read", {"array": "array#1"}),
        ("array.create", {"fn": "eye", "n_rows": 2})])
    hello, info, zeros, tril, fft, triu, read, eye = replies
    features = set(hello["result"]["features"])
    # Its functions' signatures and __dlpack__ can be read, and the probes that call them
    # answered: those claims stay.
    assert features == required("2023.12") - {"info-devices", "info-dtypes"} | \
        {"dlpack-device", "dlpack-export", "device-keyword-only"}
    claims = hello["result"]["claims"]
    assert claims["fft-freq-device"] == {"claimed": False,
                                         "why": "the namespace has no fft.fftfreq"}
    assert "exported" in claims["dlpack-export"]["why"]
    # What it lacks answers the LACKS error, origin library, naming it as the standard does.
    for reply, missing in ((info, "__array_namespace_info__"), (tril, "tril"),
                           (fft, "fft.fftfreq"), (eye, "eye")):
        assert reply["error"]["kind"] == "NotImplementedError", reply
        assert reply["error"]["origin"] == "library", reply
        assert reply["error"]["lacks"] == missing, reply
    assert zeros["ok"] and triu["ok"]
    assert read["result"] == {"dtype": "float64", "shape": [2, 2], "data": [0, 0, 0, 0]}


def test_a_module_that_is_no_namespace_exits_3():
    proc = subprocess.run([interpreter("numpy"), PROGRAM, "--module", "json"],
                          capture_output=True, text=True, input="")
    assert proc.returncode == 3 and proc.stdout == ""
    assert "json has no __array_api_version__" in proc.stderr
    proc = subprocess.run([sys.executable, PROGRAM, "--module", "numpy", "--library", "numpy"],
                          capture_output=True, text=True, input="")
    assert proc.returncode == 2 and "not allowed with" in proc.stderr


@needs_strict
def test_reading_element_by_element_is_exact():
    # The path for an interpreter without NumPy: the standard's scalar conversions.
    from devspec_py.backends.namespace import NamespaceBackend
    b = NamespaceBackend("array_api_strict")
    xp = b.xp
    cases = [("int64", [-(1 << 63), (1 << 53) + 1]), ("uint64", [(1 << 64) - 1]),
             ("float64", [5e-324, 0.1]), ("bool", [True, False]),
             ("complex128", [complex(1.5, -0.0)])]
    for dtype, values in cases:
        x = xp.asarray(values, dtype=getattr(xp, dtype), device=b.devices()[1])
        got = b.read_elements(x, dtype)
        assert got == values and [type(v) for v in got] == [type(v) for v in values]
