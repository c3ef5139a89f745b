"""The op mapping, library by library: each protocol op reaches the library function that
computes what the standard says, checked on values worked out by hand. Where a library has
no way to express an op, the adapter must say so (NotImplementedError, origin adapter) rather
than compute something else."""

import os
from typing import Any

import pytest
from adapter_client import PROGRAM, importable, interpreter
from test_libraries import ALL, session

F32 = "float32"


def arr(a: Any, dtype: str, shape: Any, data: Any, device: Any = None) -> Any:
    args = {"obj": {"dtype": dtype, "shape": shape, "data": data}}
    if device is not None:
        args["device"] = device
    return a.ok("array.asarray", args)


def values(a: Any, handle: str) -> Any:
    return a.ok("array.read", {"array": handle})["data"]


# (name, args of array.create, expected flat values, libraries whose API cannot express it)
CREATE = [
    ("arange-step", {"fn": "arange", "start": 1, "stop": 7, "step": 2, "dtype": "int32"},
     [1, 3, 5], ()),
    ("arange-stop-only", {"fn": "arange", "start": 3, "dtype": "int32"}, [0, 1, 2], ()),
    ("linspace", {"fn": "linspace", "start": 0, "stop": 1, "num": 5, "dtype": F32},
     [0, 0.25, 0.5, 0.75, 1], ()),
    ("linspace-no-endpoint", {"fn": "linspace", "start": 0, "stop": 1, "num": 4,
                              "endpoint": False, "dtype": F32},
     [0, 0.25, 0.5, 0.75], ("torch", "tinygrad")),
    ("eye-rect", {"fn": "eye", "n_rows": 2, "n_cols": 3, "dtype": F32}, [1, 0, 0, 0, 1, 0], ()),
    ("eye-k", {"fn": "eye", "n_rows": 3, "k": 1, "dtype": F32}, [0, 1, 0, 0, 0, 1, 0, 0, 0],
     ("torch", "tinygrad")),
    ("full", {"fn": "full", "shape": [2], "fill_value": 1.5, "dtype": F32}, [1.5, 1.5], ()),
    ("ones", {"fn": "ones", "shape": [1, 2], "dtype": "int32"}, [1, 1], ()),
    ("fftfreq", {"fn": "fftfreq", "n": 4, "d": 0.5, "dtype": "float64"},
     [0, 0.5, -1, -0.5], ("tinygrad", "ivy", "numpy")),
    ("rfftfreq", {"fn": "rfftfreq", "n": 4}, [0, 0.25, 0.5], ("tinygrad", "ivy")),
]


@pytest.mark.parametrize("library", ALL)
@pytest.mark.parametrize("name, args, expected, cannot", CREATE, ids=[c[0] for c in CREATE])
def test_create(library: str, name: str, args: Any, expected: Any, cannot: Any) -> None:
    a, _ = session(library)
    if library in cannot:
        reply = a.request("array.create", args)
        if library == "numpy" and name == "fftfreq":
            # numpy.fft.fftfreq has no dtype= keyword: the library's own TypeError.
            assert reply["error"]["kind"] == "TypeError"
            assert reply["error"]["origin"] == "library"
        else:
            assert reply["error"]["kind"] == "NotImplementedError", reply
            assert reply["error"]["origin"] == "adapter"
        return
    assert values(a, a.ok("array.create", args)) == expected


@pytest.mark.parametrize("library", ALL)
def test_like_functions_keep_shape_and_dtype(library: str) -> None:
    a, _ = session(library)
    x = arr(a, "int32", [2], [5, 6])
    assert a.ok("array.read", {"array": a.ok("array.create", {"fn": "full_like", "x": x,
                                                              "fill_value": 7})}) == \
        {"dtype": "int32", "shape": [2], "data": [7, 7]}
    z = a.ok("array.create", {"fn": "zeros_like", "x": x, "dtype": F32})
    assert a.ok("array.read", {"array": z}) == {"dtype": F32, "shape": [2], "data": [0, 0]}


@pytest.mark.parametrize("library", ALL)
def test_stack_reduce_matmul(library: str) -> None:
    a, _ = session(library)
    p = arr(a, F32, [2], [1, 2])
    q = arr(a, F32, [2], [3, 4])
    s = a.ok("array.stack", {"arrays": [p, q], "axis": 1})
    assert a.ok("array.read", {"array": s}) == {"dtype": F32, "shape": [2, 2],
                                               "data": [1, 3, 2, 4]}
    m = arr(a, F32, [2, 2], [1, 4, 3, 2])
    assert values(a, a.ok("array.reduce", {"fn": "max", "x": m, "axis": 0})) == [3, 4]
    assert values(a, a.ok("array.reduce", {"fn": "sum", "x": m, "axis": 1})) == [5, 5]
    assert values(a, a.ok("array.reduce", {"fn": "max", "x": m})) == [4]
    x = arr(a, F32, [2, 2], [1, 2, 3, 4])
    y = arr(a, F32, [2, 2], [5, 6, 7, 8])
    assert values(a, a.ok("array.matmul", {"x1": x, "x2": y})) == [19, 22, 43, 50]


@pytest.mark.parametrize("library", ALL)
def test_elementwise(library: str) -> None:
    a, _ = session(library)
    x = arr(a, F32, [3], [-1, 4, 2.5])
    y = arr(a, F32, [3], [2, 2, 2])
    expect = {"add": [1, 6, 4.5], "subtract": [-3, 2, 0.5], "multiply": [-2, 8, 5],
              "divide": [-0.5, 2, 1.25], "maximum": [2, 4, 2.5]}
    for fn, want in expect.items():
        assert values(a, a.ok("array.binary", {"fn": fn, "x1": x, "x2": y})) == want, fn
    assert values(a, a.ok("array.binary", {"fn": "equal", "x1": x, "x2": y})) == \
        [False, False, False]
    assert values(a, a.ok("array.unary", {"fn": "negative", "x": x})) == [1, -4, -2.5]
    assert values(a, a.ok("array.unary", {"fn": "abs", "x": x})) == [1, 4, 2.5]
    # A scalar on the left goes through the library's reflected operator or function.
    assert values(a, a.ok("array.binary", {"fn": "subtract", "x1": 10, "x2": y})) == [8, 8, 8]


@pytest.mark.parametrize("library", ALL)
def test_astype_changes_dtype_and_keeps_values(library: str) -> None:
    a, _ = session(library)
    x = arr(a, "int32", [3], [-2, 0, 7])
    y = a.ok("array.astype", {"x": x, "dtype": F32})
    assert a.ok("array.read", {"array": y}) == {"dtype": F32, "shape": [3], "data": [-2, 0, 7]}
    assert a.ok("array.same", {"a": x, "b": y}) is False


@pytest.mark.parametrize("library", ALL)
def test_tril_triu(library: str) -> None:
    a, _ = session(library)
    x = arr(a, "int32", [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert values(a, a.ok("array.tril", {"x": x})) == [1, 0, 0, 4, 5, 0, 7, 8, 9]
    assert values(a, a.ok("array.triu", {"x": x, "k": 1})) == [0, 2, 3, 0, 0, 6, 0, 0, 0]
    assert values(a, a.ok("array.tril", {"x": x, "k": -1})) == [0, 0, 0, 4, 0, 0, 7, 8, 0]


# can_cast and result_type by the standard's promotion table (libraries without them, or
# whose functions take other arguments, are listed with what they answer).
@pytest.mark.parametrize("library", ALL)
def test_can_cast_and_result_type(library: str) -> None:
    a, _ = session(library)
    if library == "tinygrad":
        e = a.err("dtype.can_cast", {"from_": "int8", "to": "int16"})
        assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter"
        return
    assert a.ok("dtype.can_cast", {"from_": "int8", "to": "int16"}) is True
    # torch.can_cast answers torch's casting rule, which allows any cast within a kind
    # (int16 -> int8 too); the others answer the standard's promotion graph.
    assert a.ok("dtype.can_cast", {"from_": "int16", "to": "int8"}) is (library == "torch")
    assert a.ok("dtype.can_cast", {"from_": "float64", "to": "int8"}) is False
    assert a.ok("dtype.can_cast", {"from_": "float32", "to": "float64"}) is True
    i8 = arr(a, "int8", [1], [1])
    u8 = arr(a, "uint8", [1], [1])
    assert a.ok("dtype.result_type", {"args": [i8, u8]}) == "int16"
    if library == "torch":
        # torch.result_type takes exactly two tensors or scalars, never dtypes.
        e = a.err("dtype.result_type", {"args": ["int8", "uint8"]})
        assert e["kind"] == "TypeError" and e["origin"] == "library"
    else:
        assert a.ok("dtype.result_type", {"args": ["int8", "uint8", "int32"]}) == "int32"


def test_dtype_ops_check_their_arguments() -> None:
    a, _ = session("numpy")
    assert a.err("dtype.result_type", {"args": []})["origin"] == "protocol"
    e = a.err("dtype.can_cast", {"from_": "array#999999", "to": "int8"})
    assert e["origin"] == "protocol" and "unknown handle" in e["message"]
    e = a.err("dtype.can_cast", {"from_": "int8", "to": "float128"})
    assert e["origin"] == "protocol" and "float128" in e["message"]


@pytest.mark.parametrize("library", ALL)
def test_arrays_on_device(library: str) -> None:
    a, h = session(library)
    if library != "ivy":
        e = a.err("util.arrays_on_device", {"device": h["devices"][0]})
        assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter"
        return
    arr(a, "int32", [1], [1])
    r = a.ok("util.arrays_on_device", {"device": h["devices"][0]})
    # Ivy's get_all_ivy_arrays_on_dev answers what it finds (see expectations/ivy.txt);
    # the adapter reports exactly that list, each array by a valid handle.
    assert r["count"] == len(r["arrays"])
    for handle in r["arrays"]:
        assert a.ok("array.describe", {"array": handle})


JAX_TRIL = """
import sys
sys.path.insert(0, sys.argv[1])
import jax, jax.numpy as jnp
from devspec_py.backends import backend_class
lowered = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, secs, **kw: lowered.append(event) if event.endswith("mlir_module_duration")
    else None)
backend = backend_class("jax")()
x = jnp.ones((3, 3))
for name in ("tril", "triu"):
    getattr(backend, name)(x, 0)   # array.tril with k = 0 (given or not)
    before = len(lowered)
    getattr(jnp, name)(x)          # a case's own call, tril(x)
    print(name, len(lowered) - before)
"""


def test_tril_k_0_is_called_as_a_case_calls_it() -> None:
    """array.tril and array.triu with k = 0 call tril(x) as a case's `call tril` does, not
    tril(x, k=0): JAX's jit keys its in-memory cache on the keywords given, so the same
    program was lowered and compiled twice in one process."""
    ok, why = importable("jax")
    if not ok:
        pytest.skip(why)
    import subprocess
    proc = subprocess.run([interpreter("jax"), "-c", JAX_TRIL, os.path.dirname(PROGRAM)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["tril", "0", "triu", "0"], proc.stdout
