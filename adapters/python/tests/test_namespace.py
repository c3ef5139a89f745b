"""The zero-code backend (devspec_adapter.py --module MODULE): what it claims comes from the
module itself, and what the module lacks is an honest skip, never a failure of the library.
The suite-level comparison with the named backends is in test_suite.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from adapter_client import PROGRAM, TOP, importable, interpreter

from devspec_py.call import FEATURES as CALL_FEATURES

needs_strict = pytest.mark.skipif(not importable("array-api-strict")[0],
                                  reason=importable("array-api-strict")[1])


def session(module: str, pythonpath: str | None = None, requests: Any = ()) -> list[Any]:
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


def required(version: str) -> set[str]:
    with open(os.path.join(TOP, "spec", "features.json"), encoding="utf-8") as f:
        registry = json.load(f)["features"]
    return {f["name"] for f in registry if version in f["versions"] and not f["optional"]}


def test_required_features_per_version_follow_the_registry() -> None:
    from devspec_py.array_api import REQUIRED
    for version, features in REQUIRED.items():
        assert set(features) == required(version), version


@needs_strict
@pytest.mark.parametrize("module, named", [("array_api_strict", "array-api-strict"),
                                           ("numpy", "numpy")])
def test_claims_read_from_the_namespace_equal_the_named_backends(module: str, named: Any) -> None:
    from devspec_py.backends import backend_class
    hello = session(module)[0]["result"]
    # dlpack-exchange-PEER depends on the peers the interpreter imports, not on the library
    # (exchange.py adds them to every hello).
    claimed = {f for f in hello["features"] if not f.startswith("dlpack-exchange-")}
    assert claimed == set(backend_class(named).features)
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
def test_what_a_namespace_lacks_is_not_claimed_or_answers_lacks(tmp_path: Path) -> None:
    (tmp_path / "partial_namespace.py").write_text(PARTIAL)
    replies = session("partial_namespace", str(tmp_path), [
        ("info.devices", {}), ("array.create", {"fn": "zeros", "shape": [2, 2]}),
        ("array.tril", {"x": "array#0"}), ("array.create", {"fn": "fftfreq", "n": 4}),
        ("array.triu", {"x": "array#0"}), ("array.read", {"array": "array#1"}),
        ("array.create", {"fn": "eye", "n_rows": 2})])
    hello, info, zeros, tril, fft, triu, read, eye = replies
    features = {f for f in hello["result"]["features"] if not f.startswith("dlpack-exchange-")}
    # Its functions' signatures and __dlpack__ can be read, and the probes that call them
    # answered: those claims stay.
    # (and the generic call's families: what the namespace lacks there answers lacks)
    assert features == required("2023.12") - {"info-devices", "info-dtypes"} | \
        {"dlpack-device", "dlpack-export", "device-keyword-only"} | set(CALL_FEATURES)
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


def test_a_module_that_is_no_namespace_exits_3() -> None:
    proc = subprocess.run([interpreter("numpy"), PROGRAM, "--module", "json"],
                          capture_output=True, text=True, input="")
    assert proc.returncode == 3 and proc.stdout == ""
    assert "json has no __array_api_version__" in proc.stderr
    # Arrays whose __array_namespace__() answers, with a module that declares no version (as
    # mlx.core's do): said as it is, not as if they had none.
    proc = subprocess.run([interpreter("numpy"), PROGRAM, "--module", "zoo.unversioned"],
                          capture_output=True, text=True, input="",
                          env=dict(os.environ, PYTHONPATH=os.path.dirname(__file__)))
    assert proc.returncode == 3 and "its arrays' __array_namespace__() returns " \
        "zoo.unversioned, which declares no __array_api_version__ either" in proc.stderr, \
        proc.stderr
    proc = subprocess.run([sys.executable, PROGRAM, "--module", "numpy", "--library", "numpy"],
                          capture_output=True, text=True, input="")
    assert proc.returncode == 2 and "not allowed with" in proc.stderr


@needs_strict
def test_reading_element_by_element_is_exact() -> None:
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


# -- what a maintainer says without code: [tool.devspec], --claims FILE, flags ----------------

def hello_of(module: str, pythonpath: str, *flags: str) -> Any:
    proc = subprocess.run([interpreter("numpy"), PROGRAM, "--module", module, *flags],
                          input='{"id": 0, "op": "hello", "args": {"protocol": 1}}\n',
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=pythonpath))
    if proc.returncode != 0:
        return proc.returncode, proc.stderr
    return json.loads(proc.stdout.splitlines()[0])["result"]


@needs_strict
def test_claims_are_overridden_by_pyproject_then_file_then_flags(tmp_path: Path) -> None:
    # A library's source tree: its pyproject.toml above the module.
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "mylib"\n\n[tool.devspec]\nunclaim = ["dlpack-export"]\n'
        'claim = ["sharding"]\ndevices = {D1 = "array_api_strict.Device(\'device2\')"}\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mylib.py").write_text("from array_api_strict import *\n"
                                               "from array_api_strict import __array_api_version__"
                                               ", __array_namespace_info__\n")
    path = str(tmp_path / "src")
    got = hello_of("mylib", path)
    features = set(got["features"])
    assert "dlpack-export" not in features and "sharding" in features
    where = "[tool.devspec] in %s" % (tmp_path / "pyproject.toml")
    assert got["claims"]["dlpack-export"] == {"claimed": False, "why": "not claimed: " + where}
    assert got["device_strs"][1] == "array_api_strict.Device('device2')"
    assert any("settings read from [tool.devspec]" in n for n in got["notes"])
    # --claims FILE wins over the pyproject.toml, the flags over both.
    claims = tmp_path / "claims.toml"
    claims.write_text('claim = ["dlpack-export"]\n')
    got = hello_of("mylib", path, "--claims", str(claims), "--unclaim", "sharding")
    assert {"dlpack-export"} <= set(got["features"]) and "sharding" not in got["features"]
    assert got["claims"]["sharding"]["why"] == "not claimed: --unclaim sharding"
    assert got["claims"]["dlpack-export"]["why"] == "claimed by %s" % claims


@needs_strict
def test_bad_settings_are_refused_naming_the_file_and_the_key(tmp_path: Path) -> None:
    claims = tmp_path / "claims.toml"
    claims.write_text('[tool.devspec]\nclaims = ["dlpack-export"]\n')
    rc, err = hello_of("array_api_strict", str(tmp_path), "--claims", str(claims))
    assert rc == 3 and "%s: [tool.devspec] has no key 'claims'" % claims in err, err
    rc, err = hello_of("array_api_strict", str(tmp_path), "--device", "X1=cpu")
    assert rc == 2 and "--device X1=cpu: expected Dn=DEVICE" in err, err
    rc, err = hello_of("array_api_strict", str(tmp_path), "--claims",
                       str(tmp_path / "absent.toml"))
    assert rc == 3 and "absent.toml" in err, err
    proc = subprocess.run([sys.executable, PROGRAM, "--library", "numpy", "--compat"],
                          capture_output=True, text=True, input="")
    assert proc.returncode == 2 and "--compat goes with --module" in proc.stderr


def test_parameters_are_found_by_the_standards_position_and_kind() -> None:
    import inspect

    from devspec_py.discovery import param_by_standard, standard_params
    table = standard_params("2024.12")
    assert table["zeros"] == (("shape",), ("dtype", "device"))
    assert table["fft.fftfreq"] == (("n",), ("d", "dtype", "device"))
    assert standard_params("2023.12")["fft.fftfreq"] == (("n",), ("d", "device"))

    def zeros(shape: Any, *, dtype: str | None = None, dev: Any = None) -> None:
        pass

    def ones(shape: Any, *, dtype: str | None = None, device: Any = None) -> None:
        pass

    def empty(shape: Any, **kw: Any) -> None:
        pass

    def full(shape: Any, fill_value: Any, *, dtype: str | None = None) -> None:
        pass

    assert param_by_standard("zeros", inspect.signature(zeros), "device", table).name == "dev"
    assert param_by_standard("ones", inspect.signature(ones), "device", table).name == "device"
    found = param_by_standard("empty", inspect.signature(empty), "device", table)
    assert found.name is None and found.var_keyword
    assert param_by_standard("full", inspect.signature(full), "device", table).name is None

    class Array:
        def to_device(self, where: Any, /, *, stream: Any = None) -> None:
            pass
    assert param_by_standard("Array.to_device", inspect.signature(Array.to_device),
                             "device", table).name == "where"


@needs_strict
def test_hello_and_lacks_replies_match_the_reply_schema(tmp_path: Path) -> None:
    from test_libraries import reply_validator
    (tmp_path / "partial_namespace.py").write_text(PARTIAL)
    hello, tril, uint16 = session("partial_namespace", str(tmp_path), [
        ("array.tril", {"x": "array#0"}),
        ("array.asarray", {"obj": {"dtype": "uint16", "shape": [1], "data": [1]}})])
    for reply in (hello, tril, uint16):
        reply_validator().validate(reply)
    result = hello["result"]
    reply_validator("helloResult").validate(result)
    assert result["library"] == {"name": "array_api_strict", "version": result["library"][
        "version"], "wrapper": {"name": "partial_namespace", "version": "unknown"},
        "array_api_version": result["library"]["array_api_version"]}
    assert result["library"]["array_api_version"].startswith("20")
    assert uint16["error"]["lacks"] == "dtype uint16"
    # A required key missing from the additions is refused by the schema (the check can fail).
    with pytest.raises(Exception, match="why"):
        reply_validator("helloResult").validate({**result, "claims": {"x": {"claimed": True}}})
