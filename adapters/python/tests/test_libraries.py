"""Each backend's op mapping and exception mapping against its real library, through the
adapter program. A library that cannot be imported here is skipped with the reason.

Expected values come from each library's documented behaviour (see spec/decisions.md,
"Python libraries"): device counts from the configuration in adapters/adapters.json, error
kinds from the exception classes the libraries raise.
"""

from typing import Any

import pytest
from adapter_client import LIBRARIES, Adapter, importable, shared_session

EXPECTED = {
    # name: (devices in hello, default dtype of zeros(), device strings of hello)
    "numpy": (1, "float64", ["cpu"]),
    "array-api-strict": (5, "float64", None),
    "jax": (4, "float64", ["cpu:0", "cpu:1", "cpu:2", "cpu:3"]),
    "torch": (2, "float32", ["cpu", "meta"]),
    "tinygrad": (4, "float32", ["CPU", "CPU:1", "CPU:2", "CPU:3"]),
    "ivy": (1, "float32", ["cpu"]),
}

def session(library: str) -> Any:
    """The library's shared adapter session (one process per library for all tests), reset,
    with its hello reply; skips when the library cannot be loaded."""
    ok, why = importable(library)
    if not ok:
        pytest.skip(why)
    return shared_session(library)


ALL = sorted(LIBRARIES)


@pytest.mark.parametrize("library", ALL)
def test_hello_names_library_devices_and_features(library: str) -> None:
    _, h = session(library)
    count, _, strs = EXPECTED[library]
    assert h["protocol"] == 1
    assert h["library"]["name"] == library and h["library"]["version"]
    assert len(h["devices"]) == count and len(set(h["devices"])) == count
    assert len(h["device_strs"]) == count
    if strs is not None:
        assert h["device_strs"] == strs
    assert h["default_device"] == h["devices"][0]
    assert "device-attr" in h["features"] and "to-device" in h["features"]


@pytest.mark.parametrize("library", ALL)
def test_typed_array_round_trip_is_exact(library: str) -> None:
    a, _ = session(library)
    values = {"dtype": "float32", "shape": [2, 2], "data": [1.5, "nan", "-0.0", "inf"]}
    x = a.ok("array.asarray", {"obj": values})
    assert a.ok("array.read", {"array": x}) == values
    ints = {"dtype": "int32", "shape": [3], "data": [-2147483648, 0, 2147483647]}
    assert a.ok("array.read", {"array": a.ok("array.asarray", {"obj": ints})}) == ints
    z = a.ok("array.asarray", {"obj": {"dtype": "int32", "shape": [0, 2], "data": []}})
    assert a.ok("array.describe", {"array": z})["shape"] == [0, 2]


@pytest.mark.parametrize("library", ALL)
def test_create_places_on_each_listed_device(library: str) -> None:
    a, h = session(library)
    _, dtype, _ = EXPECTED[library]
    for dev in h["devices"]:
        x = a.ok("array.create", {"fn": "zeros", "shape": [3], "device": dev})
        d = a.ok("array.describe", {"array": x})
        if library == "array-api-strict" and h["device_strs"][h["devices"].index(dev)] in (
                "array_api_strict.Device('device2')", "array_api_strict.Device('no_float64')",
                "array_api_strict.Device('no_x64')"):
            assert d["dtype"] == "float32"     # these devices default to float32
        else:
            assert d["dtype"] == dtype
        assert d["shape"] == [3]
        assert a.ok("device.equal", {"a": d["device"], "b": dev}) is True


@pytest.mark.parametrize("library", ALL)
def test_arithmetic_values(library: str) -> None:
    a, _ = session(library)
    x = a.ok("array.asarray", {"obj": {"dtype": "float32", "shape": [3], "data": [1, 4, 9]}})
    s = a.ok("array.unary", {"fn": "sqrt", "x": x})
    assert a.ok("array.read", {"array": s})["data"] == [1.0, 2.0, 3.0]
    y = a.ok("array.binary", {"fn": "add", "x1": x, "x2": 0.5})
    assert a.ok("array.read", {"array": y})["data"] == [1.5, 4.5, 9.5]
    t = a.ok("array.reduce", {"fn": "sum", "x": x})
    r = a.ok("array.read", {"array": t})
    assert r["shape"] == [] and r["data"] == [14.0]
    m = a.ok("array.binary", {"fn": "less", "x1": x, "x2": 4})
    assert a.ok("array.read", {"array": m}) == {"dtype": "bool", "shape": [3],
                                                   "data": [True, False, False]}


MIXED_KIND = {"array-api-strict": "ValueError", "jax": "ValueError", "torch": "RuntimeError",
              "tinygrad": "RuntimeError"}


@pytest.mark.parametrize("library", sorted(MIXED_KIND))
def test_mixed_devices_raise_the_library_error(library: str) -> None:
    # Arrays placed explicitly on two devices (for JAX: committed to them) are combined.
    a, h = session(library)
    x = a.ok("array.create", {"fn": "ones", "shape": [2], "device": h["devices"][0]})
    y = a.ok("array.create", {"fn": "ones", "shape": [2], "device": h["devices"][1]})
    e = a.err("array.binary", {"fn": "add", "x1": x, "x2": y})
    assert e["kind"] == MIXED_KIND[library] and e["origin"] == "library"


@pytest.mark.parametrize("library", ALL)
def test_to_device_moves_and_keeps_values(library: str) -> None:
    a, h = session(library)
    target = h["devices"][-1]
    x = a.ok("array.asarray", {"obj": {"dtype": "int32", "shape": [2], "data": [3, 4]}})
    y = a.ok("array.to_device", {"array": x, "device": target})
    d = a.ok("array.describe", {"array": y})
    assert a.ok("device.equal", {"a": d["device"], "b": target}) is True
    assert d["dtype"] == "int32"
    if library != "torch":    # torch's second device is meta, which holds no data
        assert a.ok("array.read", {"array": y})["data"] == [3, 4]


def test_numpy_rejects_other_devices_with_value_error() -> None:
    a, _ = session("numpy")
    x = a.ok("array.create", {"fn": "zeros", "shape": [1]})
    e = a.err("array.to_device", {"array": x, "device": {"str": "gpu"}})
    assert e["kind"] == "ValueError" and e["origin"] == "library"
    assert e["message"].startswith("ValueError: Unsupported device")
    e = a.err("array.create", {"fn": "zeros", "shape": [1], "device": {"str": "cpu:0"}})
    assert e["kind"] == "ValueError" and "Device not understood" in e["message"]


def test_numpy_cannot_express_scoped_defaults() -> None:
    a, h = session("numpy")
    e = a.err("default.push", {"device": h["devices"][0]})
    assert e == {"kind": "NotImplementedError", "origin": "adapter",
                 "message": "numpy has no scoped default device"}


def test_strict_device_without_float64_raises_for_it() -> None:
    a, h = session("array-api-strict")
    dev = h["devices"][h["device_strs"].index("array_api_strict.Device('no_float64')")]
    e = a.err("array.create", {"fn": "zeros", "shape": [1], "dtype": "float64", "device": dev})
    assert e["kind"] == "ValueError" and "does not support dtype" in e["message"]
    e = a.err("device.parse", {"text": "cpu"})
    assert e["kind"] == "ValueError" and e["origin"] == "library"


def test_strict_reads_arrays_on_non_cpu_devices_without_moving_them() -> None:
    a, h = session("array-api-strict")
    x = a.ok("array.asarray", {"obj": {"dtype": "int64", "shape": [1],
                                       "data": ["9007199254740993"]}, "device": h["devices"][1]})
    assert a.ok("array.read", {"array": x})["data"] == ["9007199254740993"]
    d = a.ok("array.describe", {"array": x})["device"]
    assert a.ok("device.equal", {"a": d, "b": h["devices"][1]}) is True


def test_jax_inspection_lists_none_and_scoped_default() -> None:
    a, h = session("jax")
    devs = a.ok("info.devices")
    assert devs[0] is None and len(devs) == 5   # JAX lists None (uncommitted) first
    assert a.ok("device.describe", {"device": h["devices"][2]}) == {
        "str": "cpu:2", "type": "cpu", "index": 2}
    a.ok("default.push", {"device": h["devices"][2]})
    x = a.ok("array.create", {"fn": "zeros", "shape": [1]})
    d = a.ok("array.describe", {"array": x})["device"]
    assert a.ok("device.equal", {"a": d, "b": h["devices"][2]}) is True
    a.ok("default.pop")
    e = a.err("default.pop")   # nothing to leave: the adapter's, never credited to JAX
    assert (e["kind"], e["origin"]) == ("NotImplementedError", "adapter")


def test_torch_meta_and_device_strings() -> None:
    a, h = session("torch")
    cpu, meta = h["devices"]
    x = a.ok("array.create", {"fn": "ones", "shape": [2], "device": meta})
    e = a.err("array.read", {"array": x})
    # torch raises NotImplementedError itself: origin library, not adapter
    assert e["kind"] == "NotImplementedError" and e["origin"] == "library"
    e = a.err("array.dlpack_device", {"array": x})
    assert e["kind"] == "ValueError" and "meta" in e["message"]
    d = a.ok("device.parse", {"text": "cpu:0"})
    assert a.ok("device.describe", {"device": d}) == {"str": "cpu:0", "type": "cpu",
                                                      "index": 0}
    assert a.ok("device.equal", {"a": d, "b": cpu}) is False   # torch: cpu != cpu:0
    e = a.err("device.parse", {"text": "GPU:0"})
    assert e["kind"] == "RuntimeError" and e["origin"] == "library"


def test_tinygrad_canonical_names() -> None:
    a, h = session("tinygrad")
    d = a.ok("device.parse", {"text": "cpu:0"})
    assert a.ok("device.describe", {"device": d}) == {"str": "CPU"}
    assert a.ok("device.equal", {"a": d, "b": h["devices"][0]}) is True
    # tinygrad has no complex dtype: a dtype of the standard it lacks (float16 is none).
    e = a.err("array.create", {"fn": "zeros", "shape": [1], "dtype": "complex64"})
    assert (e["kind"], e["origin"], e["lacks"]) == ("NotImplementedError", "library",
                                                    "dtype complex64")


TINYGRAD_ARRAYS = [
    {"dtype": "bool", "shape": [2, 2], "data": [True, False, False, True]},
    {"dtype": "int8", "shape": [3], "data": [-128, 0, 127]},
    {"dtype": "uint8", "shape": [1, 2, 1], "data": [0, 255]},
    {"dtype": "int16", "shape": [2], "data": [-32768, 32767]},
    {"dtype": "uint16", "shape": [2], "data": [0, 65535]},
    {"dtype": "int32", "shape": [2, 1], "data": [-2147483648, 2147483647]},
    {"dtype": "uint32", "shape": [1], "data": [4294967295]},
    {"dtype": "int64", "shape": [2], "data": ["-9223372036854775808", "9223372036854775807"]},
    {"dtype": "uint64", "shape": [1], "data": ["18446744073709551615"]},
    {"dtype": "float32", "shape": [2, 3], "data": [1.5, "nan", "-0.0", "inf", "-inf", 0.25]},
    {"dtype": "float64", "shape": [3], "data": [1e308, "-0.0", "nan"]},
    {"dtype": "float32", "shape": [], "data": [2.5]},
    {"dtype": "int32", "shape": [0, 3], "data": []},
]


@pytest.mark.parametrize("obj", TINYGRAD_ARRAYS, ids=lambda o: "%s%s" % (o["dtype"], o["shape"]))
def test_tinygrad_typed_arrays_on_every_device(obj: dict[str, Any]) -> None:
    """The adapter hands tinygrad a typed array's elements packed in the dtype's own format
    (Tensor(bytes, dtype=)): each dtype's extremes, a 0-d and an empty array come back exact,
    with their shape, on the device asked for, as an array made from a list does."""
    a, h = session("tinygrad")
    for dev in h["devices"]:
        x = a.ok("array.asarray", {"obj": obj, "device": dev})
        d = a.ok("array.describe", {"array": x})
        assert (d["dtype"], d["shape"]) == (obj["dtype"], obj["shape"])
        assert a.ok("device.equal", {"a": d["device"], "b": dev}) is True
        assert a.ok("array.read", {"array": x}) == obj
        # A result computed from it (realised on the device) reads the same values.
        y = a.ok("array.to_device", {"array": x, "device": h["devices"][0]})
        assert a.ok("array.read", {"array": y}) == obj


def test_tinygrad_typed_array_with_another_dtype() -> None:
    """asarray(int32 elements, dtype=float32) converts as tinygrad converts a list."""
    a, h = session("tinygrad")
    obj = {"dtype": "int32", "shape": [3], "data": [-3, 0, 16777217]}
    x = a.ok("array.asarray", {"obj": obj, "dtype": "float32", "device": h["devices"][1]})
    assert a.ok("array.read", {"array": x}) == {"dtype": "float32", "shape": [3],
                                                "data": [-3.0, 0.0, 16777216.0]}


def test_ivy_device_strings_and_soft_mode() -> None:
    a, h = session("ivy")
    e = a.err("device.parse", {"text": "CPU"})
    assert e["kind"] == "Exception" and e["origin"] == "library"
    assert e["message"].startswith("ivy.utils.exceptions.IvyException")
    assert a.ok("soft.get") is False
    a.ok("soft.set", {"enabled": True})
    assert a.ok("soft.get") is True
    a.ok("reset")
    assert a.ok("soft.get") is False
    assert a.ok("util.num_cpu_cores") >= 1
    assert a.ok("util.num_gpus") == 0
    # Ivy answers gigabytes; the protocol counts bytes (psutil's total, to within 1 kB).
    import os
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert abs(a.ok("util.total_memory", {"device": h["devices"][0]}) - total) < 1000
    used = a.ok("util.used_memory", {"device": h["devices"][0]})
    assert 0 < used < total
    assert 0 <= a.ok("util.utilisation", {"device": h["devices"][0]}) <= 100
    e = a.err("util.total_memory", {"device": {"str": "cpu:0"}})
    assert e["origin"] == "library" and "Invalid device string" in e["message"]


# -- every reply has the shape of spec/schema/reply.json ------------------------------------

_REPLY_SCHEMA: Any = None


def reply_validator(definition: str | None = None) -> Any:
    import json
    import os
    jsonschema = pytest.importorskip("jsonschema")
    global _REPLY_SCHEMA
    if _REPLY_SCHEMA is None:
        top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))))
        with open(os.path.join(top, "spec", "schema", "reply.json"), encoding="utf-8") as f:
            _REPLY_SCHEMA = json.load(f)
    schema = dict(_REPLY_SCHEMA)
    if definition:
        schema = {"$ref": "#/$defs/" + definition, "$defs": _REPLY_SCHEMA["$defs"]}
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("library", ALL)
def test_replies_match_the_reply_schema(library: str) -> None:
    session(library)   # skips when the library cannot be loaded
    a = Adapter(library)   # its own process: this test sends hello, which starts afresh
    try:
        check_replies(a)
    finally:
        assert a.close() == 0


def check_replies(a: Any) -> None:
    envelope = reply_validator()
    replies = [a.request("hello", {"protocol": 1})]
    h = replies[0]["result"]
    reply_validator("helloResult").validate(h)
    x = a.request("array.asarray", {"obj": {"dtype": "float32", "shape": [2],
                                            "data": [0.1, "-0.0"]}})
    replies.append(x)
    d = a.request("array.describe", {"array": x["result"]})
    reply_validator("arrayInfo").validate(d["result"])
    r = a.request("array.read", {"array": x["result"]})
    reply_validator("typedArray").validate(r["result"])
    assert r["result"]["data"] == [0.1, "-0.0"]
    dev = a.request("device.describe", {"device": h["devices"][0]})
    reply_validator("deviceInfo").validate(dev["result"])
    replies += [d, r, dev, a.request("array.read", {"array": "array#999999"}),
                a.request("default.pop"), a.request("no.such.op"),
                a.request("array.create", {"fn": "zeros", "shape": [1], "dtype": "float64",
                                           "device": {"str": "no-such-device"}})]
    for reply in replies:
        envelope.validate(reply)


def test_array_api_claims_follow_the_feature_registry() -> None:
    # A library that declares array API version V claims every feature that is not optional
    # in V (spec/decisions.md, Python libraries, point 1).
    import json
    import os

    from devspec_py import array_api
    from devspec_py.backends import BACKENDS, backend_class
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    with open(os.path.join(top, "spec", "features.json"), encoding="utf-8") as f:
        registry = json.load(f)["features"]

    def required(version: str) -> set[str]:
        return {f["name"] for f in registry if version in f["versions"] and not f["optional"]}

    assert set(array_api.ARRAY_API_2024) == required("2024.12")
    assert set(array_api.ARRAY_API_2025) == required("2025.12")
    names = {f["name"] for f in registry}
    for name in BACKENDS:
        backend = backend_class(name)
        assert backend.library_name == name
        assert set(backend.features) <= names, name
    assert set(backend_class("numpy").features) >= required("2024.12")
    assert set(backend_class("jax").features) >= required("2024.12")
    assert set(backend_class("array-api-strict").features) >= required("2025.12")


def test_torch_without_meta_has_one_device() -> None:
    ok, why = importable("torch")
    if not ok:
        pytest.skip(why)
    a = Adapter("torch", {"DEVSPEC_TORCH_META": "0"})
    try:
        h = a.ok("hello", {"protocol": 1})
        assert h["device_strs"] == ["cpu"]
    finally:
        assert a.close() == 0


@pytest.mark.parametrize("library", ["tinygrad", "jax"])
def test_sharding_layout_pieces_and_errors(library: str) -> None:
    """Tensor.shard / NamedSharding over two devices: the layout the library reports, the
    values each device holds (TG-SHARD-5, -6), the gather (TG-GATHER-1), and what each does
    with a sharded array sharded again (TG-SHARD-4: tinygrad raises, JAX re-shards)."""
    a, h = session(library)
    devs = h["devices"][:2]
    x = a.ok("array.asarray", {"obj": {"dtype": "float32", "shape": [4], "data": [1, 2, 3, 4]}})
    s = a.ok("array.shard", {"x": x, "devices": devs, "axis": 0})
    info = a.ok("array.shard_describe", {"array": s})
    assert info["sharded"] is True and info["axis"] == 0 and info["bounds"] == [[0, 2], [2, 4]]
    assert all(a.ok("device.equal", {"a": got, "b": want})
               for got, want in zip(info["devices"], devs, strict=True))
    p = a.ok("array.shard_piece", {"array": s, "index": 1})
    assert a.ok("array.read", {"array": p})["data"] == [3, 4]
    assert a.ok("device.equal", {"a": a.ok("array.describe", {"array": p})["device"],
                                 "b": devs[1]}) is True
    assert a.ok("array.read", {"array": s})["data"] == [1, 2, 3, 4]
    assert a.ok("array.shard_describe", {"array": x})["sharded"] is False
    e = a.err("array.shard", {"x": x, "devices": []})
    assert e["origin"] == "protocol"
    if library == "tinygrad":
        e = a.err("array.shard", {"x": s, "devices": devs, "axis": 0})
        assert e["kind"] == "RuntimeError" and "multi-device" in e["message"]
        r = a.ok("array.shard_inplace", {"x": x, "devices": devs})
        assert a.ok("array.same", {"a": r, "b": x}) is True
    else:
        a.ok("array.shard", {"x": s, "devices": devs, "axis": None})
        e = a.err("array.shard_inplace", {"x": x, "devices": devs})
        assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter"


def test_numpy_new_ops_report_the_library_itself() -> None:
    """info.devices_type, info.device_param and array.dlpack read the library itself: the
    type devices() returned, inspect.signature, and the exported capsule (its device, the
    IS_COPIED flag, whether it shares memory)."""
    import numpy
    a, _ = session("numpy")
    devices = numpy.__array_namespace_info__().devices()
    assert a.ok("info.devices_type", {}) == type(devices).__name__
    assert a.ok("info.device_param", {"fn": "zeros"}) == {"kind": "keyword-only", "default": "None"}
    assert a.ok("info.device_param", {"fn": "Array.to_device"})["kind"] == "positional-only"
    e = a.err("info.device_param", {"fn": "no_such_function"})
    assert e["kind"] == "AttributeError" and e["origin"] == "library"
    x = a.ok("array.asarray", {"obj": {"dtype": "float64", "shape": [2], "data": [1.5, 2]}})
    assert a.ok("array.dlpack", {"array": x}) == {"device": [1, 0], "copied": False,
                                                   "shares_memory": True}
    assert a.ok("array.dlpack", {"array": x, "copy": True}) == {"device": [1, 0], "copied": True,
                                                                "shares_memory": False}
    e = a.err("array.dlpack", {"array": x, "dl_device": [16, 0]})
    assert e["kind"] == "BufferError" and e["origin"] == "library"
    e = a.err("array.dlpack", {"array": x, "dl_device": [1]})
    assert e["kind"] == "TypeError" and e["origin"] == "protocol"


def test_torch_current_device_ops() -> None:
    # OneFlow's device('cuda') (the current device of a type) is torch.device without an
    # index; Tensor.get_device() is torch's own, -1 for a CPU tensor.
    a, h = session("torch")
    d = a.ok("device.parse_current", {"text": "cpu"})
    assert a.ok("device.describe", {"device": d}) == {"str": "cpu", "type": "cpu", "index": None}
    x = a.ok("array.create", {"fn": "zeros", "shape": [1], "device": h["devices"][0]})
    assert a.ok("array.get_device", {"array": x}) == -1
    e = a.err("device.set_current", {"device": h["devices"][0]})
    assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter"


def test_current_device_ops_need_a_library_that_has_them() -> None:
    a, h = session("numpy")
    for op, args in (("device.parse_current", {"text": "cpu"}),
                     ("device.set_current", {"device": h["devices"][0]}),
                     ("array.get_device", {"array": a.ok("array.create",
                                                         {"fn": "zeros", "shape": [1]})})):
        e = a.err(op, args)
        assert e["kind"] == "NotImplementedError" and e["origin"] == "adapter", op
