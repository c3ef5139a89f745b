"""The protocol layer (spec/protocol.md): values, error kinds, argument checks, and the
adapter program's session behaviour, driven through a pipe. Uses the numpy backend where a
library is needed, because NumPy is the lightest of the pinned libraries."""

import json
import math
import subprocess

import pytest

from adapter_client import PROGRAM, Adapter, importable, interpreter
from devspec_py import protocol
from devspec_py.protocol import (ProtocolError, TypedArray, decode_element, decode_scalar,
                                 encode_element, error_kind, native_name, nest, flatten)


# -- error kinds ----------------------------------------------------------------------------

class LibraryValueError(ValueError):
    pass


class LibraryError(Exception):
    pass


@pytest.mark.parametrize("exc, kind", [
    (LibraryValueError("x"), "ValueError"),          # a subclass of ValueError is ValueError
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), "ValueError"),
    (NotImplementedError("x"), "NotImplementedError"),  # not RuntimeError, its base
    (RuntimeError("x"), "RuntimeError"),
    (TypeError("x"), "TypeError"),
    (BufferError("x"), "BufferError"),
    (MemoryError(), "MemoryError"),
    (IndexError("x"), "IndexError"),
    (ModuleNotFoundError("x"), "ModuleNotFoundError"),
    (AssertionError("x"), "AssertionError"),
    (LibraryError("x"), "Exception"),               # no built-in base but Exception
])
def test_error_kind_by_class(exc, kind):
    assert error_kind(exc) == kind


def test_native_name_is_qualified():
    assert native_name(LibraryError()) == __name__ + ".LibraryError"
    assert native_name(ValueError()) == "ValueError"


# -- elements -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, wire, value", [
    ("float64", "nan", float("nan")),
    ("float64", "-inf", float("-inf")),
    ("float32", 1.5, 1.5),
    ("float64", "0x1p-3", 0.125),           # C strtod reads hexadecimal floats
    ("int64", "9223372036854775807", 2 ** 63 - 1),
    ("uint64", "18446744073709551615", 2 ** 64 - 1),
    ("int8", -128, -128),
    ("bool", True, True),
    ("complex128", [1, "-0.0"], complex(1, -0.0)),
])
def test_decode_element(dtype, wire, value):
    got = decode_element(dtype, wire, "x")
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(got)
    else:
        assert got == value and type(got) is type(value)
        if isinstance(value, complex):
            assert math.copysign(1, got.imag) == -1


@pytest.mark.parametrize("dtype, wire, kind", [
    ("int8", 128, "ValueError"),            # out of range
    ("uint8", -1, "ValueError"),
    ("int32", True, "TypeError"),           # a boolean is not an integer
    ("int32", 1.5, "TypeError"),
    ("bool", 1, "TypeError"),
    ("float64", "one", "ValueError"),
    ("complex64", 1.0, "TypeError"),
])
def test_decode_element_rejects(dtype, wire, kind):
    with pytest.raises(ProtocolError) as info:
        decode_element(dtype, wire, "obj.data[0]")
    assert info.value.kind == kind
    assert "obj.data[0]" in str(info.value)


def test_encode_element_writes_strings_where_json_cannot():
    assert encode_element("float64", float("nan")) == "nan"
    assert encode_element("float64", float("inf")) == "inf"
    assert encode_element("float32", -0.0) == "-0.0"
    assert encode_element("float32", 0.0) == 0.0
    assert encode_element("int64", 2 ** 53) == 2 ** 53
    assert encode_element("int64", 2 ** 53 + 1) == str(2 ** 53 + 1)
    assert encode_element("uint64", 2 ** 64 - 1) == "18446744073709551615"
    assert encode_element("complex64", complex(0.5, float("nan"))) == [0.5, "nan"]


def test_typed_array_shape_and_count_checked():
    with pytest.raises(ProtocolError, match="needs 6 elements, data has 5"):
        TypedArray.decode({"dtype": "int32", "shape": [2, 3], "data": [1] * 5}, "obj")
    with pytest.raises(ProtocolError, match="unknown dtype 'float16'"):
        TypedArray.decode({"dtype": "float16", "shape": [], "data": [1]}, "obj")
    t = TypedArray.decode({"dtype": "int32", "shape": [], "data": [7]}, "obj")
    assert t.shape == () and t.data == [7]


def test_nest_and_flatten_are_inverse():
    flat = list(range(24))
    nested = nest(flat, (2, 3, 4))
    assert nested[1][2][3] == 23 and len(nested) == 2 and len(nested[0]) == 3
    assert flatten(nested) == flat
    assert nest([5], ()) == 5


def test_scalars():
    assert decode_scalar(2, "x") == 2 and type(decode_scalar(2, "x")) is int
    assert math.isnan(decode_scalar({"scalar": "nan"}, "x"))
    with pytest.raises(ProtocolError):
        decode_scalar("2", "x")


# -- the program, through a pipe ----------------------------------------------------------

needs_numpy = pytest.mark.skipif(not importable("numpy")[0], reason=importable("numpy")[1])


@pytest.fixture
def numpy_adapter():
    a = Adapter("numpy")
    yield a
    a.close()


@needs_numpy
def test_op_before_hello_is_a_protocol_error(numpy_adapter):
    e = numpy_adapter.err("array.create", {"fn": "zeros", "shape": [1]})
    assert e["origin"] == "protocol"


@needs_numpy
def test_bad_requests_are_protocol_errors(numpy_adapter):
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    r = a.send_raw("{not json\n")
    assert r["id"] is None and r["error"]["origin"] == "protocol"
    r = a.send_raw('{"id": -1, "op": "hello"}\n')
    assert r["error"]["origin"] == "protocol"
    e = a.err("array.create", {"fn": "zeros"})
    assert e == {"kind": "ValueError", "message": "missing argument 'shape'", "origin": "protocol"}
    e = a.err("array.create", {"fn": "zeros", "shape": [2, -1]})
    assert e["origin"] == "protocol" and "shape" in e["message"]
    e = a.err("array.describe", {"array": "array#99"})
    assert e["origin"] == "protocol" and "unknown handle 'array#99'" in e["message"]
    e = a.err("array.describe", {"array": "device#0"})
    assert e["origin"] == "protocol" and e["kind"] == "TypeError"
    e = a.err("array.read", {"array": 3})
    assert e["origin"] == "protocol" and e["kind"] == "TypeError"
    e = a.err("hello", {"protocol": 2})
    assert e["origin"] == "protocol"


@needs_numpy
def test_unknown_op_is_adapter_not_implemented(numpy_adapter):
    numpy_adapter.ok("hello")
    e = numpy_adapter.err("shard.split", {})
    assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter"


@needs_numpy
def test_overlong_line_answered_and_skipped(numpy_adapter):
    a = numpy_adapter
    a.ok("hello")
    r = a.send_raw(b'{"id": 5, "op": "hello", "pad": "' + b"x" * (protocol.MAX_LINE + 10)
                   + b'"}\n')
    assert not r["ok"] and r["error"]["origin"] == "protocol"
    assert a.ok("info.default_device") == "device#0"   # the session goes on


@needs_numpy
def test_reset_drops_arrays_keeps_session_devices(numpy_adapter):
    a = numpy_adapter
    h = a.ok("hello")
    x = a.ok("array.create", {"fn": "zeros", "shape": [2]})
    a.ok("reset")
    e = a.err("array.describe", {"array": x})
    assert e["origin"] == "protocol"
    assert a.ok("device.describe", {"device": h["devices"][0]}) == {"str": "cpu"}


@needs_numpy
def test_bye_and_end_of_input_exit_zero():
    a = Adapter("numpy")
    a.ok("hello")
    assert a.ok("bye") is None
    assert a.close() == 0
    b = Adapter("numpy")
    assert b.close() == 0


def test_bad_command_lines_exit_2():
    for argv in ([], ["--library", "nosuch"], ["--frobnicate"]):
        proc = subprocess.run([interpreter("numpy"), PROGRAM] + argv, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2, argv
        assert "usage:" in proc.stderr and proc.stdout == ""


@needs_numpy
def test_stdout_carries_only_replies(numpy_adapter):
    a = numpy_adapter
    a.ok("hello")
    for i in range(3):
        a.ok("array.create", {"fn": "ones", "shape": [i]})
    a.proc.stdin.close()
    assert a.proc.stdout.read() == b""
