"""The protocol layer (spec/protocol.md): values, error kinds, argument checks, and the
adapter program's session behaviour, driven through a pipe. Uses the numpy backend where a
library is needed, because NumPy is the lightest of the pinned libraries."""

import io
import json
import math
import os
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from adapter_client import PROGRAM, Adapter, importable, interpreter

import devspec_py.ops  # noqa: F401 (importing it registers the ops Server serves)
from devspec_py import protocol
from devspec_py.backend import BaseBackend
from devspec_py.errors import ProtocolError, error_kind, native_name
from devspec_py.server import Server
from devspec_py.values import (
    TypedArray,
    decode_element,
    decode_scalar,
    encode_element,
    flatten,
    nest,
)

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
def test_error_kind_by_class(exc: Any, kind: str) -> None:
    assert error_kind(exc) == kind


def test_native_name_is_qualified() -> None:
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
def test_decode_element(dtype: str, wire: Any, value: Any) -> None:
    got = decode_element(dtype, wire, "x")
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(got, float) and math.isnan(got)
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
def test_decode_element_rejects(dtype: str, wire: Any, kind: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_element(dtype, wire, "obj.data[0]")
    assert info.value.kind == kind
    assert "obj.data[0]" in str(info.value)


def test_encode_element_writes_strings_where_json_cannot() -> None:
    assert encode_element("float64", float("nan")) == "nan"
    assert encode_element("float64", float("inf")) == "inf"
    assert encode_element("float32", -0.0) == "-0.0"
    assert encode_element("float32", 0.0) == 0.0
    assert encode_element("int64", 2 ** 53) == 2 ** 53
    assert encode_element("int64", 2 ** 53 + 1) == str(2 ** 53 + 1)
    assert encode_element("uint64", 2 ** 64 - 1) == "18446744073709551615"
    assert encode_element("complex64", complex(0.5, float("nan"))) == [0.5, "nan"]


def test_typed_array_shape_and_count_checked() -> None:
    with pytest.raises(ProtocolError, match="needs 6 elements, data has 5"):
        TypedArray.decode({"dtype": "int32", "shape": [2, 3], "data": [1] * 5}, "obj")
    with pytest.raises(ProtocolError, match="unknown dtype 'float128'"):
        TypedArray.decode({"dtype": "float128", "shape": [], "data": [1]}, "obj")
    t = TypedArray.decode({"dtype": "int32", "shape": [], "data": [7]}, "obj")
    assert t.shape == () and t.data == [7]


def test_nest_and_flatten_are_inverse() -> None:
    flat = list(range(24))
    nested = nest(flat, (2, 3, 4))
    assert nested[1][2][3] == 23 and len(nested) == 2 and len(nested[0]) == 3
    assert flatten(nested) == flat
    assert nest([5], ()) == 5


def test_scalars() -> None:
    # An integral JSON number is an int (cJSON writes 1.0 as 1); {"scalar": TEXT} decides
    # by its text (spec/protocol.md, values).
    assert decode_scalar(2, "x") == 2 and type(decode_scalar(2, "x")) is int
    assert type(decode_scalar(2.0, "x")) is int
    assert type(decode_scalar(2.5, "x")) is float
    assert type(decode_scalar({"scalar": "1.0"}, "x")) is float
    assert decode_scalar({"scalar": "-9223372036854775808"}, "x") == -(1 << 63)
    nan = decode_scalar({"scalar": "nan"}, "x")
    assert isinstance(nan, float) and math.isnan(nan)
    z = decode_scalar({"scalar": "-0.0"}, "x")
    assert isinstance(z, float) and z == 0.0 and math.copysign(1, z) == -1
    with pytest.raises(ProtocolError):
        decode_scalar("2", "x")


def test_numbers_that_would_lose_precision_are_refused() -> None:
    # A JSON integer is exact at any width; an integral float beyond 2^53 is not.
    assert decode_element("int64", 2 ** 53 + 1, "x") == 2 ** 53 + 1
    with pytest.raises(ProtocolError, match="beyond 2\\^53"):
        decode_element("int64", float(2 ** 53 + 2), "obj.data[0]")
    assert decode_element("int64", str(2 ** 53 + 1), "x") == 2 ** 53 + 1
    with pytest.raises(ProtocolError, match="float32 range"):
        decode_element("float32", 1e39, "obj.data[0]")
    assert decode_element("float64", 1e39, "x") == 1e39
    assert decode_element("float32", "inf", "x") == float("inf")


def test_float32_written_as_shortest_decimal() -> None:
    import struct
    f32 = struct.unpack("<f", struct.pack("<f", 0.1))[0]   # 0.10000000149011612
    assert encode_element("float32", f32) == 0.1
    assert encode_element("float64", f32) == f32
    assert encode_element("float32", 100.0) == 100 and type(encode_element("float32", 100.0)) is int
    assert encode_element("complex64", complex(f32, 2)) == [0.1, 2]


# -- the program, through a pipe ----------------------------------------------------------

needs_numpy = pytest.mark.skipif(not importable("numpy")[0], reason=importable("numpy")[1])


@pytest.fixture
def numpy_adapter() -> Iterator[Any]:
    a = Adapter("numpy")
    yield a
    a.close()


@needs_numpy
def test_op_before_hello_is_a_protocol_error(numpy_adapter: Any) -> None:
    e = numpy_adapter.err("array.create", {"fn": "zeros", "shape": [1]})
    assert e["origin"] == "protocol" and e["kind"] == "RuntimeError"
    numpy_adapter.err("hello", {"protocol": 7})
    e = numpy_adapter.err("info.devices")      # still no session after a failed hello
    assert e["kind"] == "RuntimeError"


@needs_numpy
def test_null_args_shapes_as_integers(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    assert a.request("info.devices", None)["ok"]
    r = a.send_raw('{"id": 9, "op": "info.devices", "args": null}\n')
    assert r["ok"] and r["id"] == 9
    x = a.ok("array.create", {"fn": "zeros", "shape": 3})
    assert a.ok("array.describe", {"array": x})["shape"] == [3]


@needs_numpy
def test_bad_requests_are_protocol_errors(numpy_adapter: Any) -> None:
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
    e = a.err("array.create", {"fn": "zeros", "shape": [1], "devcie": None})
    assert e["kind"] == "TypeError" and "devcie" in e["message"] and e["origin"] == "protocol"
    e = a.err("array.create", {"fn": "zeros", "shape": [1], "fill_value": 1})
    assert e["kind"] == "TypeError" and "fill_value" in e["message"]
    e = a.err("array.read", {"array": "array#0", "extra": 1})
    assert e["kind"] == "TypeError" and "extra" in e["message"]


@needs_numpy
def test_unknown_op_is_adapter_not_implemented(numpy_adapter: Any) -> None:
    numpy_adapter.ok("hello", {"protocol": 1})
    e = numpy_adapter.err("shard.split", {})
    assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter"


@needs_numpy
def test_capabilities_are_the_librarys_own(numpy_adapter: Any) -> None:
    # info.capabilities answers __array_namespace_info__().capabilities() (DEV-INFO-2).
    import numpy as np
    numpy_adapter.ok("hello", {"protocol": 1})
    assert numpy_adapter.ok("info.capabilities") == dict(
        np.__array_namespace_info__().capabilities())


@needs_numpy
def test_overlong_line_answered_and_skipped(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    r = a.send_raw(b'{"id": 5, "op": "hello", "pad": "' + b"x" * (protocol.MAX_LINE + 10)
                   + b'"}\n')
    assert not r["ok"] and r["error"]["origin"] == "protocol"
    assert a.ok("info.devices")                         # the session goes on


@needs_numpy
def test_full_length_line_with_carriage_return_is_read(numpy_adapter: Any) -> None:
    # MAX_LINE bytes, then "\r\n": the "\r" is not part of the line, so it is within the limit.
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    head = b'{"id": 7, "op": "info.devices", "args": {}}'
    line = head + b" " * (protocol.MAX_LINE - len(head))
    assert len(line) == protocol.MAX_LINE
    r = a.send_raw(line + b"\r\n")
    assert r["ok"] and r["id"] == 7, r
    r = a.send_raw(line + b" \r\n")                    # one byte more is over the limit
    assert not r["ok"] and r["error"]["origin"] == "protocol" and "longer" in r["error"]["message"]
    assert a.ok("info.devices")                         # the session goes on


@needs_numpy
def test_duplicate_key_is_a_protocol_error(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    for raw in (b'{"id": 8, "op": "info.devices", "op": "reset"}\n',
                b'{"id": 9, "op": "info.dtypes", "args": {"kind": "bool", "kind": "integral"}}\n'):
        r = a.send_raw(raw)
        assert not r["ok"] and r["error"]["origin"] == "protocol", r
        assert "given twice" in r["error"]["message"], r
    assert a.ok("info.devices")


@needs_numpy
def test_reset_drops_arrays_keeps_session_devices(numpy_adapter: Any) -> None:
    a = numpy_adapter
    h = a.ok("hello", {"protocol": 1})
    x = a.ok("array.create", {"fn": "zeros", "shape": [2]})
    d = a.ok("array.describe", {"array": x})["device"]
    assert d != h["devices"][0]            # each op yields a new handle
    assert a.ok("device.equal", {"a": d, "b": h["devices"][0]}) is True
    a.ok("reset")
    for stale in (x, d):                     # arrays and later device handles are dropped
        e = a.err("device.describe" if stale == d else "array.describe",
                  {"device": stale} if stale == d else {"array": stale})
        assert e["origin"] == "protocol" and "unknown handle" in e["message"]
    assert a.ok("device.describe", {"device": h["devices"][0]}) == {"str": "cpu"}
    y = a.ok("array.create", {"fn": "zeros", "shape": [2]})
    assert y != x                            # numbers are never given twice


@needs_numpy
def test_second_hello_starts_afresh(numpy_adapter: Any) -> None:
    a = numpy_adapter
    h1 = a.ok("hello", {"protocol": 1})
    x = a.ok("array.create", {"fn": "zeros", "shape": [2]})
    h2 = a.ok("hello", {"protocol": 1})
    assert h2["devices"] != h1["devices"] and len(h2["devices"]) == len(h1["devices"])
    assert a.err("array.read", {"array": x})["origin"] == "protocol"
    assert a.err("device.describe", {"device": h1["devices"][0]})["origin"] == "protocol"


@needs_numpy
def test_bye_and_end_of_input_exit_zero() -> None:
    a = Adapter("numpy")
    a.ok("hello", {"protocol": 1})
    assert a.ok("bye") is None
    assert a.close() == 0
    b = Adapter("numpy")
    assert b.close() == 0
    c = Adapter("numpy")                     # a CR before the newline is ignored
    assert c.send_raw('{"id": 3, "op": "hello", "args": {"protocol": 1}}\r\n')["ok"]
    assert c.close() == 0


def test_bad_command_lines_exit_2() -> None:
    for argv in ([], ["--library", "nosuch"], ["--frobnicate"]):
        proc = subprocess.run([interpreter("numpy"), PROGRAM, *argv], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2, argv
        assert "usage:" in proc.stderr and proc.stdout == ""


@needs_numpy
def test_stdout_carries_only_replies(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    for i in range(3):
        a.ok("array.create", {"fn": "ones", "shape": [i]})
    a.proc.stdin.close()
    assert a.proc.stdout.read() == b""


def test_library_that_cannot_load_exits_3() -> None:
    # The venv has no torch (torch comes from Debian's interpreter), so asking the venv's
    # interpreter for it must fail cleanly, naming the library and the reason.
    has = subprocess.run([interpreter("numpy"), "-c", "import torch"], capture_output=True)
    if has.returncode == 0:
        pytest.skip("this interpreter has torch; nothing to check")
    proc = subprocess.run([interpreter("numpy"), PROGRAM, "--library", "torch"],
                          capture_output=True, text=True, input="")
    assert proc.returncode == 3
    assert "cannot load torch: ModuleNotFoundError" in proc.stderr
    assert proc.stdout == ""


@needs_numpy
def test_read_refuses_more_than_2_to_the_24_elements(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    big = a.ok("array.create", {"fn": "zeros", "shape": [1 << 12, (1 << 12) + 1],
                                "dtype": "bool"})
    e = a.err("array.read", {"array": big})
    assert e["kind"] == "MemoryError" and e["origin"] == "adapter"
    ok = a.ok("array.create", {"fn": "zeros", "shape": [1 << 10], "dtype": "bool"})
    assert len(a.ok("array.read", {"array": ok})["data"]) == 1 << 10


# -- whose error it is ------------------------------------------------------------------------

class BrokenLibrary(BaseBackend):
    """A backend whose library raises, and whose results the adapter cannot encode."""

    library_name = "broken"

    def library_version(self) -> str:
        return "0"

    def devices(self) -> list[Any]:
        return ["here"]

    def create(self, fn: str, a: Any, kw: Any) -> Any:
        raise LibraryValueError("the library refuses")

    def asarray_scalar(self, value: bool | int | float | complex, kw: Any) -> Any:
        return value

    def read(self, x: Any) -> tuple[str, tuple[int, ...], list[Any]]:
        return "float32", (1,), [object()]     # no float: the adapter's encoding fails

    def array_shape(self, x: Any) -> tuple[int, ...]:
        return (1,)

    def utilisation(self, dev: Any) -> float:
        return float("nan")                    # JSON has no NaN: writing the reply fails


def serve_lines(backend: Any, *requests: Any) -> list[Any]:
    out = io.BytesIO()
    lines = [json.dumps({"id": i, "op": op, "args": args}) for i, (op, args) in
             enumerate((("hello", {"protocol": 1}), *requests))]
    Server(backend).serve(io.BytesIO("\n".join(lines).encode() + b"\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_library_errors_and_adapter_failures_have_their_own_origins() -> None:
    replies = serve_lines(BrokenLibrary(), ("array.create", {"fn": "zeros", "shape": [1]}),
                          ("array.asarray", {"obj": 1}), ("array.read", {"array": "array#0"}),
                          ("util.utilisation", {}))
    hello, create, _, read, util = replies
    assert hello["ok"]
    frames = create["error"].pop("traceback")
    assert create["error"] == {"kind": "ValueError", "origin": "library",
                               "message": "test_protocol.LibraryValueError: the library refuses"}
    # The library's own frames, innermost last, without the adapter's: where it raised.
    assert frames and "test_protocol.py:" in frames[-1] and " in create: raise " in frames[-1]
    assert not any("devspec_py" in f for f in frames)
    # The adapter's own encoding failed: never reported as the library's behaviour.
    assert read["error"]["origin"] == "protocol" and read["error"]["kind"] == "TypeError"
    assert "array.read failed in the adapter" in read["error"]["message"]
    assert util["error"]["origin"] == "protocol" and util["error"]["kind"] == "ValueError"
    assert "cannot be written as JSON" in util["error"]["message"]


@pytest.mark.parametrize("result", [
    "array#0", "device#12", "", "a\"b", "a\\b", "tab\there", "\x7f", "caf\u00e9", "\u2028",
    None, True, False, 0, -7, 1 << 62, -(1 << 63), (1 << 63), 10 ** 30, 1.5, [1, "x"],
    {"k": None}])
def test_the_commonest_replies_are_the_bytes_dumps_writes(result: Any) -> None:
    """reply_bytes writes a handle, null, a boolean or an integer itself: the same bytes as
    the JSON encoder, and anything else through the encoder."""
    from devspec_py.values import dumps
    server = Server(BaseBackend())
    for rid in (0, 5, (1 << 53) - 1):
        reply = {"id": rid, "ok": True, "result": result}
        assert server.reply_bytes(reply) == dumps(reply)


def test_last_frames_reads_the_source_of_the_frames_it_keeps_only(tmp_path: Any) -> None:
    """A library's traceback is many frames deep: the error reply keeps the innermost four
    (of the library's), and only their files' source lines are read."""
    import importlib.util
    import linecache
    import traceback

    from devspec_py.errors import TRACEBACK_FRAMES, last_frames
    names = ["deep%d" % i for i in range(8)]
    for i, name in enumerate(names):  # deep0.f calls deep1.f ... deep7.f raises
        body = ("import %s\ndef f(n):\n    return %s.f(n)  # call %d\n" % (
            names[i + 1], names[i + 1], i) if i + 1 < len(names) else
            "def f(n):\n    raise ValueError('deep %d' % n)  # raise\n")
        (tmp_path / (name + ".py")).write_text(body)
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location("deep0", tmp_path / "deep0.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        try:
            mod.f(1)
        except ValueError as e:
            exc = e
        for name in names:
            linecache.cache.pop(str(tmp_path / (name + ".py")), None)
        frames = last_frames(exc)
        read = {os.path.basename(k) for k in linecache.cache if k.startswith(str(tmp_path))}
        # the frames Python's own summary of the whole traceback gives, innermost four
        whole = traceback.extract_tb(exc.__traceback__)[-TRACEBACK_FRAMES:]
        assert frames == ["%s:%s in %s: %s" % (f.filename, f.lineno, f.name, f.line)
                          for f in whole]
        assert frames[-1].endswith("in f: raise ValueError('deep %d' % n)  # raise")
        assert read == {"deep%d.py" % i for i in range(4, 8)}
    finally:
        sys.path.remove(str(tmp_path))
        for name in names[1:]:
            sys.modules.pop(name, None)


@needs_numpy
def test_largest_float32_read_back_exactly(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    x = a.ok("array.asarray", {"obj": {"dtype": "float32", "shape": [3],
                                       "data": ["3.4028235e+38", "-3.4028235e+38", "1e-45"]}})
    assert a.ok("array.read", {"array": x})["data"] == [3.4028235e+38, -3.4028235e+38, 1e-45]
    e = a.err("array.asarray", {"obj": {"dtype": "float32", "shape": [1],
                                        "data": ["3.40282357e+38"]}})
    assert e["origin"] == "protocol" and "float32 range" in e["message"]
    y = a.ok("array.asarray", {"obj": {"dtype": "float64", "shape": [2],
                                       "data": [1.7976931348623157e308, 5e-324]}})
    r = a.send_raw(json.dumps({"id": 99, "op": "array.read", "args": {"array": y}}) + "\n")
    assert r["result"]["data"] == [1.7976931348623157e308, 5e-324]


@needs_numpy
def test_device_strings_reach_the_library_with_their_nul_characters(numpy_adapter: Any) -> None:
    a = numpy_adapter
    a.ok("hello", {"protocol": 1})
    e = a.err("array.create", {"fn": "zeros", "shape": [1], "device": {"str": "cpu\u0000"}})
    # NumPy echoes the string it was given: all of it, the NUL included.
    assert e["origin"] == "library" and e["message"].endswith("received: cpu\x00")


def test_every_handler_is_an_op_of_the_one_source() -> None:
    # A handler for an op spec/ops.json does not define would never be reached by a case.
    from devspec_py import ops_table
    from devspec_py.server import OPS
    assert set(OPS) <= set(ops_table.OPS), set(OPS) - set(ops_table.OPS)


# -- what a reply cannot carry: said as the adapter's limit, naming what the library returned

class HostileResults(BaseBackend):
    """A library whose functions return what no reply can carry."""

    library_name = "hostile"

    def library_version(self) -> str:
        return "0"

    def devices(self) -> list[Any]:
        return ["here"]

    def namespace(self) -> Any:
        loop: list[Any] = [1]
        loop.append(loop)

        class Namespace:
            @staticmethod
            def lone() -> str:
                return "ab\ud800c"

            @staticmethod
            def itself() -> Any:
                return loop

            @staticmethod
            def huge() -> str:
                return "x" * 100_000_000

            @staticmethod
            def refuses() -> None:
                raise ValueError("bad \udc80 byte")

        return Namespace()

    def call_result(self, result: Any) -> Any:
        return result


def test_unwritable_results_name_what_the_library_returned() -> None:
    import devspec_py.call  # noqa: F401  (registers the call op)
    replies = serve_lines(HostileResults(), ("call", {"fn": "lone"}), ("call", {"fn": "itself"}),
                          ("call", {"fn": "huge"}), ("call", {"fn": "refuses"}))
    hello, lone, itself, huge, refuses = replies
    assert hello["ok"]
    assert lone["error"]["origin"] == "adapter" and lone["error"]["kind"] == "ValueError"
    assert "lone surrogate U+D800 at index 2" in lone["error"]["message"], lone
    assert itself["error"]["origin"] == "adapter" and "contains itself" in \
        itself["error"]["message"], itself
    # The documented MemoryError of origin adapter (spec/protocol.md, Limits), not a
    # protocol error: the adapter holds to the 64 MiB reply limit itself.
    assert huge["error"]["origin"] == "adapter" and huge["error"]["kind"] == "MemoryError", huge
    # The library's own message keeps its lone surrogate as text.
    assert refuses["error"]["origin"] == "library" and "bad \\udc80 byte" in \
        refuses["error"]["message"], refuses


def test_reply_over_64_mib_or_with_a_lone_surrogate() -> None:
    """Whatever part of a reply holds them (not only call's results): a lone surrogate is
    named, a reply over 64 MiB is the documented MemoryError, both of origin adapter."""
    server = Server(HostileResults())
    reply = json.loads(server.reply_bytes({"id": 2, "ok": True, "result": {"s": "a\udfff"}}))
    assert reply["error"]["origin"] == "adapter" and "lone surrogate U+DFFF" in \
        reply["error"]["message"], reply["error"]
    data = server.reply_bytes({"id": 3, "ok": True, "result": "y" * (65 << 20)})
    reply = json.loads(data)
    assert reply["id"] == 3 and reply["error"]["kind"] == "MemoryError" and \
        reply["error"]["origin"] == "adapter", reply["error"]


@needs_numpy
def test_exchange_of_a_view_too_large_to_read_is_the_adapters_limit(numpy_adapter: Any) -> None:
    a = numpy_adapter
    hello = a.ok("hello", {"protocol": 1})
    if "dlpack-exchange-numpy" not in hello["features"]:
        pytest.skip("numpy is not an exchange peer here")
    one = a.ok("array.create", {"fn": "zeros", "shape": [1]})
    view = a.ok("call", {"fn": "broadcast_to", "args": [one, {"tuple": [1 << 20, 1 << 20]}]})
    e = a.err("array.exchange", {"array": view, "peer": "numpy", "direction": "from_peer"})
    assert e["origin"] == "adapter" and e["kind"] == "MemoryError", e
    assert "a limit of the adapter" in e["message"], e


def test_required_python_agrees() -> None:
    """pyproject.toml's requires-python is the version devspec_adapter.py itself checks."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(here, "pyproject.toml")) as f:
        declared = re.search(r'requires-python = ">=(\d+)\.(\d+)"', f.read())
    with open(os.path.join(here, "devspec_adapter.py")) as f:
        checked = re.search(r"sys\.version_info < \((\d+), (\d+)\)", f.read())
    assert declared and checked and declared.groups() == checked.groups(), (declared, checked)
