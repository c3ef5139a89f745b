"""The generic call on the libraries without an array API namespace of their own (tinygrad,
whose functions are Tensor's), and on Ivy's: every backend claims the function families, a
name the library does not have is lacking, and a lazy library's error is the call's own."""

from typing import Any

import pytest
from adapter_client import importable, shared_session

FAMILIES = ("functions-elementwise", "functions-linalg", "functions-fft", "array-methods")


def session(library: str) -> Any:
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    return shared_session(library)


def on(a: Any, device: Any, data: Any, dtype: str = "float32") -> Any:
    return a.ok("array.asarray", {"obj": {"dtype": dtype, "shape": [len(data)], "data": data},
                                  "device": device})


@pytest.mark.parametrize("library", ["tinygrad", "ivy"])
def test_the_function_families_are_claimed(library: str) -> None:
    _, hello = session(library)
    assert set(FAMILIES) <= set(hello["features"])


def test_tinygrad_functions_are_tensor_s() -> None:
    a, hello = session("tinygrad")
    d1 = hello["devices"][1]
    x = on(a, d1, [0.0, 1.0])
    y = a.ok("call", {"fn": "sin", "args": [x]})
    assert a.ok("device.equal", {"a": a.ok("array.describe", {"array": y})["device"],
                                 "b": d1}) is True
    assert a.ok("array.read", {"array": y})["data"][0] == 0.0
    # A static one: Tensor.zeros(shape), and a method: x.__add__.
    z = a.ok("call", {"fn": "zeros", "args": [{"tuple": [2]}]})
    assert a.ok("array.read", {"array": z})["data"] == [0.0, 0.0]
    s = a.ok("call", {"fn": "Array.__add__", "args": [x, 1.0]})
    assert a.ok("array.read", {"array": s})["data"] == [1.0, 2.0]


def test_tinygrad_lacks_what_tensor_names_otherwise() -> None:
    a, hello = session("tinygrad")
    x = on(a, hello["devices"][1], [3.0, 1.0])
    e = a.err("call", {"fn": "concat", "args": [{"list": [x, x]}]})  # Tensor.cat
    assert (e["kind"], e["origin"], e["lacks"]) == ("NotImplementedError", "library", "concat")
    assert a.err("call", {"fn": "linalg.inv", "args": [x]})["lacks"] == "linalg.inv"
    e = a.err("call", {"fn": "squeeze", "args": [x], "kwargs": {"axis": 0}})  # its dim=
    assert e["lacks"] == "squeeze(axis=)"
    e = a.err("call", {"fn": "Array.to_device", "args": [x, hello["devices"][0]]})
    assert e["lacks"] == "Array.to_device"
    e = a.err("array.asarray", {"obj": {"dtype": "complex64", "shape": [1],
                                        "data": [[1.0, 0.0]]}})
    assert e["lacks"] == "dtype complex64"


def test_tinygrad_mixed_devices_fail_in_the_call() -> None:
    a, hello = session("tinygrad")
    x0 = on(a, hello["devices"][0], [1.0, 2.0])
    x1 = on(a, hello["devices"][1], [1.0, 2.0])
    e = a.err("call", {"fn": "maximum", "args": [x0, x1]})
    assert e["origin"] == "library" and "lacks" not in e, e


def test_torch_builtin_refusing_a_keyword_lacks_it() -> None:
    """torch's functions are builtins whose signature cannot be read: a keyword they do not
    take is found in their own TypeError (an "invalid combination of arguments" whose listed
    signatures name it nowhere) and answered as lacking, never as the library's failure; an
    error of any other kind stays the library's (spec/decisions.md, Python libraries 18)."""
    a, hello = session("torch")
    x = on(a, hello["devices"][0], [0.0, 1.0, 2.0])
    e = a.err("call", {"fn": "count_nonzero", "args": [x],
                       "kwargs": {"axis": 0, "keepdims": False}})
    assert (e["origin"], e["lacks"]) == ("library", "count_nonzero(axis=)"), e
    # dim is torch's own keyword: the call is made, and answers.
    y = a.ok("call", {"fn": "count_nonzero", "args": [x], "kwargs": {"dim": 0}})
    assert a.ok("array.read", {"array": y})["data"] == [2]
    # A keyword torch knows, with a value it refuses: the library's own error, not lacking.
    e = a.err("call", {"fn": "sum", "args": [x], "kwargs": {"dim": "zero"}})
    assert e["origin"] == "library" and "lacks" not in e, e
