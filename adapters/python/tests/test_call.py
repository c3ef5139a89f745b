"""The generic call (devspec_py/call.py, spec/protocol.md "call") through the adapter
program: call values in and out, tuples and pick, properties, what a library lacks, and the
arguments the op refuses."""

import json
import os
from typing import Any

import pytest
from adapter_client import TOP, importable, shared_session

LIBRARY = "array-api-strict"


@pytest.fixture
def strict() -> tuple[Any, Any, Any]:
    ok, why = importable(LIBRARY)
    if not ok:
        pytest.skip(why)
    a, hello = shared_session(LIBRARY)
    x = a.ok("array.asarray", {"obj": {"dtype": "float64", "shape": [4],
                                       "data": [3.0, -1.0, 2.0, 3.0]},
                               "device": hello["devices"][1]})
    return a, hello, x


def read(a: Any, handle: str) -> Any:
    return a.ok("array.read", {"array": handle})


def test_namespace_function_and_values(strict: tuple[Any, Any, Any]) -> None:
    a, _, x = strict
    y = a.ok("call", {"fn": "sum", "args": [x]})
    assert read(a, y)["data"] == [7]
    y = a.ok("call", {"fn": "linalg.vector_norm", "args": [x], "kwargs": {"ord": 1}})
    assert read(a, y)["data"] == [9]


def test_keyword_strings_tuples_and_dtypes(strict: tuple[Any, Any, Any]) -> None:
    a, _, x = strict
    s = a.ok("call", {"fn": "sort", "args": [x], "kwargs": {"descending": True}})
    assert read(a, s)["data"] == [3, 3, 2, -1]
    r = a.ok("call", {"fn": "reshape", "args": [x, {"tuple": [2, 2]}]})
    assert read(a, r)["shape"] == [2, 2]
    assert a.ok("call", {"fn": "result_type", "args": [x, {"dtype": "float32"}]}) == \
        {"dtype": "float64"}
    i = a.ok("call", {"fn": "searchsorted", "args": [s, x], "kwargs": {"side": "left"}})
    assert read(a, i)["dtype"] == "int64"


def test_tuple_results_and_pick(strict: tuple[Any, Any, Any]) -> None:
    a, hello, x = strict
    both = a.ok("call", {"fn": "unique_counts", "args": [x]})
    assert isinstance(both, list) and len(both) == 2
    counts = a.ok("call", {"fn": "unique_counts", "args": [x], "pick": 1})
    assert read(a, counts)["data"] == [1, 1, 2]
    where = a.ok("array.describe", {"array": counts})["device"]
    assert a.ok("device.equal", {"a": where, "b": hello["devices"][1]}) is True
    e = a.err("call", {"fn": "unique_counts", "args": [x], "pick": 2})
    assert (e["kind"], e["origin"]) == ("IndexError", "adapter")
    e = a.err("call", {"fn": "sum", "args": [x], "pick": 0})
    assert (e["kind"], e["origin"]) == ("IndexError", "adapter")


def test_tuples_of_any_length_up_to_the_limit(strict: tuple[Any, Any, Any]) -> None:
    """A tuple result is never cut short (unstack of 40 rows is 40 handles, row k [2k, 2k + 1]);
    one of more than 32768 items (spec/protocol.md, "Limits") is MemoryError, origin adapter."""
    a, hello, _ = strict
    m = a.ok("array.asarray", {"obj": {"dtype": "float64", "shape": [40, 2],
                                       "data": list(range(80))},
                               "device": hello["devices"][1]})
    rows = a.ok("call", {"fn": "unstack", "args": [m]})
    assert len(rows) == 40
    assert [read(a, r)["data"] for r in (rows[0], rows[17], rows[39])] == \
        [[0, 1], [34, 35], [78, 79]]
    long = a.ok("call", {"fn": "zeros", "args": [{"tuple": [32769, 1]}]})
    e = a.err("call", {"fn": "unstack", "args": [long]})
    assert (e["kind"], e["origin"]) == ("MemoryError", "adapter") and "32769" in e["message"]
    assert len(a.ok("call", {"fn": "unstack", "args": [long], "kwargs": {"axis": 1}})) == 1


def test_methods_properties_and_indexing(strict: tuple[Any, Any, Any]) -> None:
    a, hello, x = strict
    y = a.ok("call", {"fn": "Array.__add__", "args": [x, 1.5]})
    assert read(a, y)["data"] == [4.5, 0.5, 3.5, 4.5]
    y = a.ok("call", {"fn": "Array.__getitem__", "args": [x, {"slice": [1, None, 2]}]})
    assert read(a, y)["data"] == [-1, 3]
    y = a.ok("call", {"fn": "Array.__getitem__", "args": [x, {"tuple": [{"ellipsis": True}]}]})
    assert read(a, y)["shape"] == [4]
    assert a.ok("call", {"fn": "Array.__setitem__", "args": [x, 0, -7.0]}) is None
    assert read(a, x)["data"][0] == -7
    dev = a.ok("call", {"fn": "Array.device", "args": [x]})
    assert a.ok("device.equal", {"a": dev, "b": hello["devices"][1]}) is True
    zero_d = a.ok("call", {"fn": "Array.__getitem__", "args": [x, 1]})
    assert a.ok("call", {"fn": "Array.__float__", "args": [zero_d]}) == -1.0
    nan = a.ok("call", {"fn": "divide", "args": [0.0, a.ok("call", {"fn": "zeros_like",
                                                                        "args": [zero_d]})]})
    assert a.ok("call", {"fn": "Array.__float__", "args": [nan]}) == {"scalar": "nan"}


def test_devices_as_arguments(strict: tuple[Any, Any, Any]) -> None:
    a, hello, _ = strict
    z = a.ok("call", {"fn": "zeros", "args": [{"tuple": [2]}],
                      "kwargs": {"device": hello["devices"][1]}})
    d = a.ok("array.describe", {"array": z})["device"]
    assert a.ok("device.equal", {"a": d, "b": hello["devices"][1]}) is True


def test_what_the_library_lacks_is_named(strict: tuple[Any, Any, Any]) -> None:
    a, _, x = strict
    e = a.err("call", {"fn": "no_such_function", "args": [x]})
    assert (e["kind"], e["origin"], e["lacks"]) == ("NotImplementedError", "library",
                                                    "no_such_function")
    e = a.err("call", {"fn": "linalg.no_such", "args": [x]})
    assert e["lacks"] == "linalg.no_such"
    e = a.err("call", {"fn": "Array.no_such", "args": [x]})
    assert e["lacks"] == "Array.no_such"
    e = a.err("call", {"fn": "argsort", "args": [x], "kwargs": {"no_such": True}})
    assert e["lacks"] == "argsort(no_such=)"


def test_the_library_s_own_errors_are_its_own(strict: tuple[Any, Any, Any]) -> None:
    a, _, x = strict
    e = a.err("call", {"fn": "Array.mT", "args": [x]})
    assert (e["kind"], e["origin"]) == ("ValueError", "library") and "lacks" not in e


@pytest.mark.parametrize("args, kind", [
    ({"fn": "sum", "args": "array#0"}, "TypeError"),
    ({"fn": "sum", "args": [[1, 2]]}, "TypeError"),
    ({"fn": "sum", "args": [{"slice": [1]}]}, "TypeError"),
    ({"fn": "sum", "args": [{"dtype": "float8"}]}, "ValueError"),
    ({"fn": "sum", "args": [{"what": 1}]}, "TypeError"),
    ({"fn": "sum", "args": ["array#999999"]}, "ValueError"),
    ({"fn": "sum", "kwargs": [1]}, "TypeError"),
    ({"fn": "sum", "pick": -1}, "TypeError"),
    ({"fn": "Array.__add__"}, "ValueError"),
])
def test_malformed_calls_are_protocol_errors(strict: tuple[Any, Any, Any], args: Any,
                                            kind: str) -> None:
    a, _, _ = strict
    e = a.err("call", args)
    assert (e["kind"], e["origin"]) == (kind, "protocol"), e


def test_the_claimed_features_are_the_table_s_families() -> None:
    from devspec_py.call import FEATURES
    with open(os.path.join(TOP, "spec", "signatures.json"), encoding="utf-8") as f:
        families = json.load(f)["families"]
    assert sorted(FEATURES) == sorted(v["feature"] for v in families.values() if v["feature"])


def test_keywords_read_once_per_function_and_never_keep_an_array() -> None:
    """check_keywords keeps each signature it read (by function, by a method's function, by a
    builtin method's type and name), so a second call reads none; what it keeps never holds
    the array a method was bound to (device memory a case expects freed)."""
    import gc
    import weakref

    from devspec_py import call
    from devspec_py.errors import Lacks

    class Arr:
        def sum(self, axis: int = 0) -> int:
            return axis

    def total(x: object, /, axis: int = 0, *, keepdims: bool = False) -> object:
        return x

    for _ in range(2):  # the second time from what the first kept
        assert call.check_keywords("total", total, {"axis": 1, "keepdims": True})
        with pytest.raises(Lacks, match="total takes no keyword x"):
            call.check_keywords("total", total, {"x": 1})
        with pytest.raises(Lacks, match="total takes no keyword stable"):
            call.check_keywords("total", total, {"stable": True})
    arrays: list[Any] = [Arr(), bytearray(b"ab")]
    gone = [weakref.ref(arrays[0])]
    for a in arrays:
        f = a.sum if isinstance(a, Arr) else a.count  # a Python and a builtin bound method
        assert call.check_keywords("Array.f", f, {}) in (True, False)
        if isinstance(a, Arr):
            with pytest.raises(Lacks):
                call.check_keywords("Array.sum", f, {"where": 1})
    kept = len(call._KEYWORDS)
    call.check_keywords("Array.sum", Arr().sum, {"axis": 1})  # another instance: no new entry
    assert len(call._KEYWORDS) == kept
    del arrays, f, a
    gc.collect()
    assert all(r() is None for r in gone), "a method's array is kept alive"
    held = [p for k in call._KEYWORDS for p in (k if isinstance(k, tuple) else (k,))]
    assert not any(isinstance(p, (Arr, bytearray)) or
                   isinstance(getattr(p, "__self__", None), (Arr, bytearray)) for p in held)
