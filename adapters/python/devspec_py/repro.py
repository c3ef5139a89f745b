"""Reproducers: each failing case of a run as a standalone Python script.

`python -m devspec_py.repro --report REPORT.json --out DIR [--case GLOB]... [--source ROOT]`
(what `devspec repro` runs, with the interpreter the run used) writes DIR/<case id>.py for
each case of the report whose observed status is one a maintainer acts on (REPRO_STATUSES).
A script imports only the library under test (and NumPy where it reads an array's values),
binds $D0, $D1, ... to the devices the run bound (found again by the text the report
recorded for each), performs the case's steps with the same arguments, and checks each
step's outcome as the runner judged it; a failed check is an AssertionError that names the
case, the step, the statements the case rests on (ID and text), the expected and the
observed value. Run in a plain interpreter it fails as devspec reported; once the library is
fixed it passes (a case whose `either` alternative stops it ends with exit status 0 there).

The translation of each op into source is TRANSLATE below, one function per op. It writes
the calls the array API backends make (array_api.ArrayAPIBackend, and NamespaceBackend for
`python:MODULE`, which makes the same calls through its `fn`): MIRRORS names, for each op,
the backend methods its source stands for, and a backend class that overrides one of them
(its library does that op its own way) gets no script for a case with that op, only a note
saying so; a test runs the reproducers of passing cases so that the two cannot drift.
Every op of spec/ops.json is either in TRANSLATE or in NO_PLAIN_FORM with the reason
(a test checks). The named adapters of torch, tinygrad and Ivy, whose libraries have no
namespace, get their scripts through a Dialect each (repro_named.py): the library's own
calls, as those adapters' backends make them. Standard-library only.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .protocol import DTYPES

# The observed statuses that get a reproducer: every verdict against the library that a
# maintainer acts on. A known failure (status xfail) is one too: its observed status is fail.
# pass, skip and xpass get none: there is nothing that fails to reproduce.
REPRO_STATUSES = ("fail", "error", "crash", "timeout", "lacks")

# The libraries whose adapter drives an array API namespace, by the name hello gave, and the
# module the script imports as `xp`; `python:MODULE` runs import MODULE itself.
NAMESPACE_MODULES = {"numpy": "numpy", "array-api-strict": "array_api_strict",
                     "jax": "jax.numpy"}

# The backend class each of those libraries is driven by (adapters/python/devspec_py/backends).
BACKEND_NAMES = {"numpy": "numpy", "array-api-strict": "array-api-strict", "jax": "jax"}

# Ops with no plain-Python form through an array API namespace, and why.
NO_PLAIN_FORM: dict[str, str] = {
    "hello": "session op", "reset": "session op", "bye": "session op",
    "device.parse": "the standard has no device constructor from a string",
    "device.describe": "the standard has no device attributes (type, index)",
    "device.from_type_index": "no device constructor in the standard",
    "device.from_ordinal": "no device constructor in the standard",
    "device.parse_current": "no current device in the standard",
    "device.set_current": "no current device in the standard",
    "array.get_device": "no get_device in the standard",
    "array.binary_into": "the adapter's in-place form is library-specific",
    "array.shard": "sharding is not part of the array API",
    "array.shard_inplace": "sharding is not part of the array API",
    "array.shard_describe": "sharding is not part of the array API",
    "array.shard_piece": "sharding is not part of the array API",
    "array.to_devices": "sharding is not part of the array API",
    "array.dlpack": "the adapter reads the capsule with devspec's own DLPack reader",
    "array.dlpack_c_exchange_api": "the adapter reads the C exchange API with devspec's reader",
    "array.exchange": "the peer (refarray, another library) is provided by devspec",
    "array.dlpack_export_address": "a tensor's address crosses only between devspec's adapters",
    "array.dlpack_import_address": "a tensor's address crosses only between devspec's adapters",
    "stream.default": "streams are library-specific",
    "default.get": "no default-device control in the standard",
    "default.set": "no default-device control in the standard",
    "default.unset": "no default-device control in the standard",
    "default.push": "no default-device control in the standard",
    "default.pop": "no default-device control in the standard",
    "soft.get": "no soft device mode in the standard",
    "soft.set": "no soft device mode in the standard",
    "soft.unset": "no soft device mode in the standard",
    "util.num_gpus": "no device utilities in the standard",
    "util.num_cpu_cores": "no device utilities in the standard",
    "util.total_memory": "no device utilities in the standard",
    "util.used_memory": "no device utilities in the standard",
    "util.utilisation": "no device utilities in the standard",
    "util.arrays_on_device": "no device utilities in the standard",
    "dtype.describe": "the adapter's dtype description is library-specific",
    "global.placement": "global arrays run under MPI through devspec's SPMD transport",
    "global.placement_equal": "global arrays run under MPI through devspec's SPMD transport",
    "global.make": "global arrays run under MPI through devspec's SPMD transport",
    "global.binary": "global arrays run under MPI through devspec's SPMD transport",
    "global.sbp": "global arrays run under MPI through devspec's SPMD transport",
    "global.sum": "global arrays run under MPI through devspec's SPMD transport",
}

# The backend methods whose calls each op's source writes (see the module's comment).
MIRRORS: dict[str, tuple[str, ...]] = {
    "array.asarray": ("asarray_typed", "asarray_scalar", "asarray_array"),
    "array.create": ("create",),
    # array_dtype only names the dtype for the protocol (NumPy's backend by dtype.name): the
    # script's _dtype_name gives the same names.
    "array.describe": ("array_device", "array_shape"),
    "array.read": ("read",),
    "array.astype": ("astype",),
    "array.to_device": ("to_device",),
    "array.same": (),
    "array.binary": ("binary",),
    "array.unary": ("unary",),
    "array.reduce": ("reduce",),
    "array.matmul": ("matmul",),
    "array.stack": ("stack",),
    "array.tril": ("tril",),
    "array.triu": ("triu",),
    "array.from_dlpack": ("from_dlpack",),
    "array.dlpack_device": ("dlpack_device",),
    "info.devices": ("info_devices",),
    "info.default_device": ("info_default_device",),
    "info.capabilities": ("info_capabilities",),
    "info.dtypes": ("info_dtypes",),
    "info.default_dtypes": ("info_default_dtypes",),
    "info.devices_type": ("info_devices_type",),
    "info.device_param": ("device_param",),
    "device.equal": ("device_equal",),
    "dtype.can_cast": ("can_cast",),
    "dtype.result_type": ("result_type",),
    "call": ("namespace", "call_result"),
}


# Overrides that do, for every array a script can make, what the translation writes: (backend,
# method) -> why. Each is read from the backend's source; test_repro.py runs the scripts.
SAME_AS_TRANSLATED: dict[tuple[str, str], str] = {
    ("jax", "array_device"): "JaxBackend.array_device answers x.device for an array on one "
                             "device; only a sharded array (array.shard, which has no plain "
                             "form) differs",
}


class NoPlainForm(Exception):
    """A step that a script cannot perform with the library alone; the message says why."""


@dataclass
class Dialect:
    """A named adapter's library as the script calls it (repro_named.py): the lines that
    import it as `xp` (and what else the translations name), the source binding a device
    from the text the run recorded (`bind % repr(text)`), the source of a dtype
    (`dtype % name`), the wrapper of a generic call's result, the translations that differ
    from TRANSLATE's, the ops it has none for with the reason, the helpers that replace or
    add to RUNTIME's, and what the script says at its top about how it calls the library."""

    head: list[str]
    bind: str
    dtype: str = "xp.%s"
    result_wrap: str = ""
    translate: dict[str, Callable[[Script, dict[str, Any]], Translation]] = field(
        default_factory=dict)
    no_plain: dict[str, str] = field(default_factory=dict)
    runtime: str = ""
    notes: list[str] = field(default_factory=list)

    def prepare(self, s: Script) -> None:
        s.dtype_source = self.dtype
        s.result_wrap = self.result_wrap
        s.translate = {op: t for op, t in {**TRANSLATE, **self.translate}.items()
                       if op not in self.no_plain}
        s.no_plain = dict(self.no_plain)


# -- source of values --------------------------------------------------------------------

def py_number(v: Any) -> str:
    """A JSON number or a protocol scalar string ("nan", "-0.0", "1e400") as Python source."""
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        return float_source(v)
    if isinstance(v, str):
        try:
            return repr(int(v))
        except ValueError:
            return float_source(float(v))
    raise NoPlainForm("a value %r the script cannot write" % (v,))


def float_source(f: float) -> str:
    if math.isnan(f):
        return "float('nan')"
    if math.isinf(f):
        return "float('inf')" if f > 0 else "-float('inf')"
    return repr(f)


def element_source(v: Any, dtype: str) -> str:
    if dtype == "bool":
        return repr(bool(v))
    if dtype.startswith("complex"):
        if isinstance(v, list) and len(v) == 2:
            return "complex(%s, %s)" % (float_source(float(v[0])), float_source(float(v[1])))
        return "complex(%s)" % py_number(v)
    if dtype.startswith("float"):
        return float_source(float(v))
    return py_number(v)


def nested_source(data: list[Any], shape: list[int], dtype: str) -> str:
    if not shape:
        return element_source(data[0], dtype)
    n = shape[0]
    step = len(data) // n if n else 0
    return "[" + ", ".join(nested_source(data[i * step:(i + 1) * step], shape[1:], dtype)
                           for i in range(n)) + "]"


# Names of the script that a case's binding must not take.
SHADOWED = ("xp", "sys", "math", "builtins", "numpy", "main", "print", "list", "type", "bool",
            "float", "int", "complex", "slice", "range", "len", "CASE", "STATEMENTS", "DTYPES",
            "EPS", "MATCHERS")


class Script:
    """The source of one case's script: bindings, lines, notes."""

    def __init__(self, case_id: str) -> None:
        self.case_id = case_id
        self.lines: list[str] = []
        self.names: dict[str, str] = {}  # binding -> variable
        # binding -> the function that turns its variable into the value the protocol
        # carried for it (what a "$name" in an expected value stands for)
        self.observers: dict[str, str] = {}
        self.needs_read = False
        # The source of the dtype NAME (the library's attribute; repro_named's dialects
        # write their library's own) and the wrapper of a generic call's result (a lazy
        # library's adapter computes it there: tinygrad's _done).
        self.dtype_source = "xp.%s"
        self.result_wrap = ""
        # op -> its translation, and op -> why it has none (a dialect's own, then these).
        self.translate: dict[str, Callable[[Script, dict[str, Any]], Translation]] = {}
        self.no_plain: dict[str, str] = {}
        self.scopes = 0  # default.push steps not yet popped (a dialect's scoped default)

    def dt(self, name: str) -> str:
        """The library's dtype NAME as source."""
        return self.dtype_source % name

    def var(self, name: str) -> str:
        """The variable for binding NAME (one that could shadow the script's own names gets
        a trailing underscore)."""
        if name in self.names:
            return self.names[name]
        v = name + "_" if name in SHADOWED or name.startswith("_") else name
        self.names[name] = v
        return v

    def ref(self, value: Any) -> str:
        """An argument as source: "$name" is the bound variable, "$$x" the literal "$x"."""
        if isinstance(value, str):
            if value.startswith("$$"):
                return repr(value[1:])
            if value.startswith("$"):
                name = value[1:]
                if re.fullmatch(r"D[0-9]", name):
                    return name
                return self.var(name)
            return repr(value)
        if value is None:
            return "None"
        if isinstance(value, (bool, int, float)):
            return py_number(value)
        if isinstance(value, dict) and set(value) == {"scalar"}:
            return py_number(value["scalar"])
        if isinstance(value, dict) and set(value) == {"complex"}:
            re_, im = value["complex"]
            return "complex(%s, %s)" % (py_number(re_), py_number(im))
        raise NoPlainForm("an argument %s the script cannot write" % json.dumps(value))

    def device(self, value: Any) -> str:
        """A device argument: null, a binding, or {"str": text} (the text as given)."""
        if isinstance(value, dict) and set(value) == {"str"}:
            return repr(value["str"])
        return self.ref(value)

    def expected(self, value: Any) -> str:
        """An expected value as source: bindings as variables, the rest as JSON data (the
        script's _match reads matchers and typed arrays as the runner does)."""
        if isinstance(value, str) and value.startswith("$") and not value.startswith("$$"):
            name = value[1:]
            if name in self.observers:
                return "%s(%s)" % (self.observers[name], self.var(name))
            return self.ref(value)
        if isinstance(value, str) and value.startswith("$$"):
            return repr(value[1:])
        if isinstance(value, list):
            return "[" + ", ".join(self.expected(v) for v in value) + "]"
        if isinstance(value, dict):
            items = []
            for k, v in value.items():
                key = k[1:] if k.startswith("$$") else k
                items.append("%r: %s" % (key, self.expected(v)))
            return "{" + ", ".join(items) + "}"
        if value is None:
            return "None"
        if isinstance(value, float):
            return float_source(value)
        return repr(value)


# -- one function per op: (source of the call, the observer of its result) ---------------

Translation = tuple[str, str]


def kw_source(pairs: list[tuple[str, str]]) -> str:
    return "".join(", %s=%s" % (k, v) for k, v in pairs)


def device_kw(s: Script, args: dict[str, Any]) -> list[tuple[str, str]]:
    return [("device", s.device(args["device"]))] if "device" in args else []


def t_asarray(s: Script, a: dict[str, Any]) -> Translation:
    kw = device_kw(s, a)
    obj = a["obj"]
    if "copy" in a:
        kw.append(("copy", s.ref(a["copy"])))
    if isinstance(obj, dict) and "data" in obj:
        dtype = a.get("dtype") or obj["dtype"]
        kw.insert(0, ("dtype", s.dt(dtype)))
        if 0 in obj["shape"]:
            return ("xp.reshape(xp.asarray([]%s), %r)" % (kw_source(kw), tuple(obj["shape"])),
                    "_value")
        return "xp.asarray(%s%s)" % (nested_source(obj["data"], obj["shape"], obj["dtype"]),
                                     kw_source(kw)), "_value"
    if a.get("dtype") is not None:
        kw.insert(0, ("dtype", s.dt(a["dtype"])))
    return "xp.asarray(%s%s)" % (s.ref(obj), kw_source(kw)), "_value"


def t_create(s: Script, a: dict[str, Any]) -> Translation:
    fn = a["fn"]
    kw: list[tuple[str, str]] = []
    if a.get("dtype") is not None:
        kw.append(("dtype", s.dt(a["dtype"])))
    kw += device_kw(s, a)
    if fn in ("zeros", "ones", "empty"):
        pos = [repr(tuple(a["shape"]))]
    elif fn == "full":
        pos = [repr(tuple(a["shape"])), s.ref(a["fill_value"])]
    elif fn == "arange":
        pos = [s.ref(a["start"])]
        if a.get("stop") is not None:
            pos.append(s.ref(a["stop"]))
        if a.get("step") is not None:
            if a.get("stop") is None:
                pos.append("None")
            kw.insert(0, ("step", s.ref(a["step"])))
    elif fn == "linspace":
        pos = [s.ref(a["start"]), s.ref(a["stop"]), str(a["num"])]
        kw.insert(0, ("endpoint", repr(a.get("endpoint", True))))
    elif fn == "eye":
        pos = [str(a["n_rows"]), repr(a.get("n_cols"))]
        kw.insert(0, ("k", str(a.get("k", 0))))
    elif fn in ("zeros_like", "ones_like", "empty_like"):
        pos = [s.ref(a["x"])]
    elif fn == "full_like":
        pos = [s.ref(a["x"]), s.ref(a["fill_value"])]
    else:  # fftfreq, rfftfreq
        pos = [str(a["n"])]
        if a.get("d") is not None:
            kw.insert(0, ("d", s.ref(a["d"])))
        fn = "fft." + fn
    return "xp.%s(%s%s)" % (fn, ", ".join(pos), kw_source(kw)), "_value"


def t_astype(s: Script, a: dict[str, Any]) -> Translation:
    kw = [*device_kw(s, a), ("copy", repr(a.get("copy", True)))]
    return "xp.astype(%s, %s%s)" % (s.ref(a["x"]), s.dt(a["dtype"]), kw_source(kw)), "_value"


def t_to_device(s: Script, a: dict[str, Any]) -> Translation:
    if a.get("stream") is not None:
        raise NoPlainForm("a stream argument (streams are library-specific)")
    kw = [("stream", "None")] if "stream" in a else []
    return "%s.to_device(%s%s)" % (s.ref(a["array"]), s.device(a["device"]), kw_source(kw)), \
        "_value"


def t_fn(name: str, *params: str, kw: tuple[str, ...] = ()) -> Callable[[Script, dict[str, Any]],
                                                                         Translation]:
    """xp.FN(params...) (FN the fn argument where name is None), keywords as named."""
    def translate(s: Script, a: dict[str, Any]) -> Translation:
        fn = name or a["fn"]
        pos = [s.ref(a[p]) for p in params]
        kws = [(k, s.ref(a.get(k))) for k in kw]
        return "xp.%s(%s%s)" % (fn, ", ".join(pos), kw_source(kws)), "_value"
    return translate


def t_stack(s: Script, a: dict[str, Any]) -> Translation:
    return "xp.stack([%s], axis=%d)" % (", ".join(s.ref(h) for h in a["arrays"]),
                                        a.get("axis", 0)), "_value"


def t_triangle(fn: str) -> Callable[[Script, dict[str, Any]], Translation]:
    def translate(s: Script, a: dict[str, Any]) -> Translation:
        return "xp.%s(%s, k=%d)" % (fn, s.ref(a["x"]), a.get("k", 0)), "_value"
    return translate


def t_from_dlpack(s: Script, a: dict[str, Any]) -> Translation:
    kw = device_kw(s, a)
    if "copy" in a:
        kw.append(("copy", s.ref(a["copy"])))
    return "xp.from_dlpack(%s%s)" % (s.ref(a["x"]), kw_source(kw)), "_value"


def t_info(method: str, observe: str = "_value") -> Callable[[Script, dict[str, Any]],
                                                             Translation]:
    def translate(s: Script, a: dict[str, Any]) -> Translation:
        kw = device_kw(s, a)
        if a.get("kind") is not None:
            kind = a["kind"]
            kw.append(("kind", repr(tuple(kind) if isinstance(kind, list) else kind)))
        return "xp.__array_namespace_info__().%s(%s)" % (method, kw_source(kw)[2:]), observe
    return translate


def t_device_param(s: Script, a: dict[str, Any]) -> Translation:
    fn = a["fn"]
    if fn.startswith("info."):
        target = "xp.__array_namespace_info__()." + fn[5:]
    elif fn.startswith("Array."):
        target = "type(xp.zeros(1)).%s" % fn[6:]
    else:
        target = "xp." + fn
    return "_device_param(%s)" % target, "_value"


def t_device_equal(s: Script, a: dict[str, Any]) -> Translation:
    return "%s == %s" % (s.device(a["a"]), s.device(a["b"])), "bool"


def dtype_or_array(s: Script, v: Any) -> str:
    if isinstance(v, str) and not v.startswith("$"):
        return s.dt(v)
    return s.ref(v)


def t_can_cast(s: Script, a: dict[str, Any]) -> Translation:
    return "xp.can_cast(%s, %s)" % (dtype_or_array(s, a["from_"]), s.dt(a["to"])), "bool"


def t_result_type(s: Script, a: dict[str, Any]) -> Translation:
    return "xp.result_type(%s)" % ", ".join(dtype_or_array(s, v) for v in a["args"]), \
        "_dtype_name"


def call_value(s: Script, v: Any) -> str:
    """A call value of the protocol (spec/protocol.md, "call") as source, as call.decode
    reads it."""
    if isinstance(v, str):
        if re.fullmatch(r"(array|device|stream)#[0-9]+", v):
            raise NoPlainForm("a handle %s in a case" % v)
        return s.ref(v)
    if isinstance(v, dict) and len(v) == 1:
        key, inner = next(iter(v.items()))
        if key == "dtype":
            return s.dt(str(inner))
        if key == "str":
            return repr(inner)
        if key == "tuple":
            items = [call_value(s, x) for x in inner]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if key == "list":
            return "[" + ", ".join(call_value(s, x) for x in inner) + "]"
        if key == "slice":
            return "slice(%s)" % ", ".join(repr(x) for x in inner)
        if key == "ellipsis":
            return "Ellipsis"
    return s.ref(v)


def t_call(s: Script, a: dict[str, Any]) -> Translation:
    fn = a["fn"]
    pos = [call_value(s, v) for v in a.get("args", [])]
    kws = [(k, call_value(s, v)) for k, v in a.get("kwargs", {}).items()]
    if fn.startswith("Array."):
        name = fn[6:]
        if not pos:
            raise NoPlainForm("call %s without its array" % fn)
        self_, rest = pos[0], pos[1:]
        # A property is read, not called (call.resolve): the script tells them apart as the
        # adapter does, at run time.
        src = "_attr(%s, %r, [%s], {%s})" % (self_, name, ", ".join(rest),
                                            ", ".join("%r: %s" % kv for kv in kws))
    else:
        src = "xp.%s(%s)" % (fn, ", ".join(pos + ["%s=%s" % kv for kv in kws]))
        if s.result_wrap:
            src = "%s(%s)" % (s.result_wrap, src)
    if a.get("pick") is not None:
        src = "_pick(%s, %d)" % (src, a["pick"])
    return src, "_value"


TRANSLATE: dict[str, Callable[[Script, dict[str, Any]], Translation]] = {
    "array.asarray": t_asarray,
    "array.create": t_create,
    "array.describe": lambda s, a: (s.ref(a["array"]), "_describe"),
    "array.read": lambda s, a: (s.ref(a["array"]), "_read"),
    "array.astype": t_astype,
    "array.to_device": t_to_device,
    "array.same": lambda s, a: ("%s is %s" % (s.ref(a["a"]), s.ref(a["b"])), "bool"),
    "array.binary": t_fn("", "x1", "x2"),
    "array.unary": t_fn("", "x"),
    "array.reduce": t_fn("", "x", kw=("axis",)),
    "array.matmul": t_fn("matmul", "x1", "x2"),
    "array.stack": t_stack,
    "array.tril": t_triangle("tril"),
    "array.triu": t_triangle("triu"),
    "array.from_dlpack": t_from_dlpack,
    "array.dlpack_device": lambda s, a: ("%s.__dlpack_device__()" % s.ref(a["array"]),
                                         "_value"),
    "info.devices": t_info("devices"),
    "info.default_device": t_info("default_device"),
    "info.capabilities": t_info("capabilities"),
    "info.dtypes": t_info("dtypes", "_dtype_names"),
    "info.default_dtypes": t_info("default_dtypes", "_default_dtypes"),
    "info.devices_type": lambda s, a: (
        "type(xp.__array_namespace_info__().devices()).__name__", "_value"),
    "info.device_param": t_device_param,
    "device.equal": t_device_equal,
    "dtype.can_cast": t_can_cast,
    "dtype.result_type": t_result_type,
    "call": t_call,
}


# -- the script -----------------------------------------------------------------------------

# The helpers every script carries: reading values, matching as the runner does
# (spec/case-format.md, "Matching expect" and "Matchers"), the step outcomes.
RUNTIME = '''
# -- what the steps call: reading arrays, matching as devspec does ------------------------

DTYPES = %(dtypes)r


def _info():
    return xp.__array_namespace_info__()


def _dtype_name(dt):
    for name in DTYPES:
        mine = getattr(xp, name, None)
        if mine is not None and dt == mine:
            return name
    return str(dt)


def _dtype_names(found):
    return sorted(found)


def _default_dtypes(found):
    return {k: _dtype_name(v) for k, v in found.items()}


def _value(obj):
    """A result as the protocol carries it: arrays and devices as themselves, dtypes as
    {"dtype": name}, tuples as lists."""
    if isinstance(obj, (tuple, list)):
        return [_value(v) for v in obj]
    if isinstance(obj, complex):
        return {"complex": [obj.real, obj.imag]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if hasattr(obj, "shape") and hasattr(obj, "dtype"):
        return obj
    name = _dtype_name(obj)
    if name in DTYPES:
        return {"dtype": name}
    return obj


def _describe(x):
    return {"device": x.device, "dtype": _dtype_name(x.dtype), "shape": list(x.shape)}


def _read(x):
    """x's dtype, shape and elements (flat), read through NumPy from the default device."""
    import numpy
    try:
        h = numpy.asarray(x)
    except Exception:
        h = numpy.asarray(x.to_device(_info().default_device()))
    data = [[v.real, v.imag] if isinstance(v, complex) else v for v in h.reshape(-1).tolist()]
    return {"dtype": _dtype_name(x.dtype), "shape": list(x.shape), "data": data}


def _pick(result, n):
    """Item N of a call's result, as the adapter picks it (a result that is no tuple is an
    IndexError there too)."""
    if not isinstance(result, (tuple, list)):
        raise IndexError("pick %%d: the result is not a tuple but %%s"
                         %% (n, type(result).__name__))
    return result[n]


def _attr(x, name, args, kwargs):
    attr = getattr(x, name)
    prop = not callable(attr) or isinstance(getattr(type(x), name, None), property)
    return attr if prop else attr(*args, **kwargs)


def _device_param(f):
    import inspect
    kinds = {"POSITIONAL_ONLY": "positional-only", "POSITIONAL_OR_KEYWORD":
             "positional-or-keyword", "VAR_POSITIONAL": "var-positional",
             "KEYWORD_ONLY": "keyword-only", "VAR_KEYWORD": "var-keyword"}
    params = inspect.signature(f).parameters
    p = params.get("device")
    if p is None:
        var_kw = any(q.kind is inspect.Parameter.VAR_KEYWORD for q in params.values())
        return {"kind": "var-keyword" if var_kw else "absent", "default": None}
    default = None if p.default is inspect.Parameter.empty else repr(p.default)
    return {"kind": kinds[p.kind.name], "default": default}


def _num(v):
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return float(v)
    return v


def _same_number(o, e):
    o, e = _num(o), _num(e)
    if isinstance(o, bool) or isinstance(e, bool):
        return o is e
    if isinstance(o, float) or isinstance(e, float):
        o, e = float(o), float(e)
        if math.isnan(o) or math.isnan(e):
            return math.isnan(o) and math.isnan(e)
        return o == e and math.copysign(1, o) == math.copysign(1, e)
    return o == e


def _close(o, e, rel, abs_, eps):
    o, e = _num(o), _num(e)
    if isinstance(o, list) and isinstance(e, list):
        return len(o) == len(e) and all(_close(a, b, rel, abs_, eps) for a, b in zip(o, e))
    if isinstance(o, int) and isinstance(e, int):
        return o == e
    o, e = float(o), float(e)
    # As the runner's $close (judge.c): two zeros, NaN and infinities exactly, any other pair
    # within the tolerance (an expected tiny number is close to an observed 0.0).
    if math.isnan(o) or math.isnan(e) or math.isinf(o) or math.isinf(e) or (o == 0 and e == 0):
        return _same_number(o, e)
    return abs(o - e) <= (abs_ + rel * max(abs(o), abs(e))) * eps


EPS = {"float16": 2.0 ** -10, "float32": 2.0 ** -23, "complex64": 2.0 ** -23}


def _is_typed(e):
    return isinstance(e, dict) and set(e) == {"dtype", "shape", "data"}


def _match(o, e, close=None):
    """Whether the observed O matches the expected E (spec/case-format.md)."""
    if isinstance(e, dict) and len(e) == 1 and next(iter(e)) in MATCHERS:
        (name, arg), = e.items()
        return MATCHERS[name](o, arg, close)
    if _is_typed(e) or (isinstance(e, dict) and hasattr(o, "shape") and hasattr(o, "dtype")):
        if hasattr(o, "shape") and hasattr(o, "dtype"):
            o = _read(o)
        if not _is_typed(o):
            return False
        if o["dtype"] != e["dtype"] or list(o["shape"]) != list(e["shape"]):
            return False
        if len(o["data"]) != len(e["data"]):
            return False
        if close is not None:
            eps = EPS.get(o["dtype"], 2.0 ** -52)
            return all(_close(a, b, close[0], close[1], eps)
                       for a, b in zip(o["data"], e["data"]))
        return all(_same_elem(a, b) for a, b in zip(o["data"], e["data"]))
    if isinstance(e, dict):
        return isinstance(o, dict) and all(k in o and _match(o[k], v, close)
                                           for k, v in e.items())
    if isinstance(e, list):
        return isinstance(o, list) and len(o) == len(e) and all(
            _match(a, b, close) for a, b in zip(o, e))
    if isinstance(e, (bool, int, float)) and isinstance(o, (bool, int, float)):
        if close is not None and not (isinstance(o, int) and isinstance(e, int)):
            return _close(o, e, close[0], close[1], 2.0 ** -52)
        return _same_number(o, e)
    if e is None or isinstance(e, str):
        return o == e
    if hasattr(e, "shape") and hasattr(e, "dtype"):
        return o is e
    return bool(o == e)  # devices: the library's own equality


def _same_elem(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_number(x, y) for x, y in zip(a, b))
    return _same_number(a, b)


def _m_type(o, t, close):
    if t == "int":
        return isinstance(o, int) and not isinstance(o, bool)
    if t == "number":
        return isinstance(o, (int, float)) and not isinstance(o, bool)
    if t == "bool":
        return isinstance(o, bool)
    if t == "string":  # the protocol carries arrays and devices as handle strings
        return isinstance(o, str) or not isinstance(o, (bool, int, float, list, dict))
    if t == "null":
        return o is None
    if t == "list":
        return isinstance(o, list)
    return isinstance(o, dict)


def _m_array(o, a, c):
    if hasattr(o, "shape") and hasattr(o, "dtype"):
        o = _read(o)
    if not _is_typed(o) or not _match(o["dtype"], a["dtype"]):
        return False
    return _match(o, {"dtype": o["dtype"], "shape": a["shape"], "data": a["data"]}, c)


MATCHERS = {
    "$len_min": lambda o, n, c: isinstance(o, list) and len(o) >= n,
    "$contains": lambda o, x, c: isinstance(o, list) and any(_match(v, x, c) for v in o),
    "$each": lambda o, x, c: isinstance(o, list) and all(_match(v, x, c) for v in o),
    "$in": lambda o, xs, c: any(_match(o, x, c) for x in xs),
    "$range": lambda o, r, c: isinstance(o, (int, float)) and not isinstance(o, bool) and (
        ("min" not in r or o >= r["min"]) and ("max" not in r or o <= r["max"])),
    "$type": _m_type,
    "$array": lambda o, a, c: _m_array(o, a, c),
    "$close": lambda o, a, c: _match(o, a["to"], (a.get("rel_eps", 0), a.get("abs_eps", 0))),
}


def _fail(step, what):
    raise AssertionError("%%s: step %%s: %%s\\n%%s" %% (CASE, step, what, STATEMENTS))


def _show(v):
    text = repr(v)
    return text if len(text) <= 300 else text[:300] + "..."


def _expect(step, observed, expected):
    if not _match(observed, expected):
        _fail(step, "expected %%s, observed %%s" %% (_show(expected), _show(observed)))


def _kind_holds(exc, kind):
    return kind == "any" or isinstance(exc, getattr(builtins, kind, ()))


def _raises(step, call, kind):
    try:
        result = call()
    except Exception as exc:
        if not _kind_holds(exc, kind):
            _fail(step, "raised %%s (%%s) where %%s was expected" %% (
                type(exc).__name__, exc, kind))
        return
    _fail(step, "returned %%s where %%s was expected" %% (_show(result), kind))


def _either(step, call, observe, alternatives):
    """The first alternative that holds decides; returns (result, whether it stops)."""
    try:
        result, exc = call(), None
    except Exception as e:
        result, exc = None, e
    for alt in alternatives:
        if "raises" in alt and exc is not None and _kind_holds(exc, alt["raises"]):
            return result, alt.get("stop", False)
        if "expect" in alt and exc is None and _match(observe(result), alt["expect"]):
            return result, alt.get("stop", False)
    got = "raised %%s (%%s)" %% (type(exc).__name__, exc) if exc is not None else \\
        "returned %%s" %% _show(observe(result))
    _fail(step, "%%s; none of the alternatives %%s holds" %% (got, _show(alternatives)))


def _device(text):
    """The device the run bound, found among the library's devices by its text (a memory
    address in it, as in '<Device object at 0x7f...>', compared as any address; None: the
    library's default placement, bound where it lists no device)."""
    import re
    if text == "None":
        return None
    def same(d):
        return any(re.sub(r" at 0x[0-9a-fA-F]+", " at 0x", t) ==
                   re.sub(r" at 0x[0-9a-fA-F]+", " at 0x", text) for t in (str(d), repr(d)))
    # A namespace of 2022.12 or earlier may have no inspection namespace: only the fallback
    # below can find its device then (NumPy 1.26's numpy.array_api).
    if hasattr(xp, "__array_namespace_info__"):
        for d in _info().devices():
            if d is not None and (str(d) == text or repr(d) == text):
                return d
        default = _info().default_device()
        if str(default) == text or repr(default) == text:
            return default
        found = [d for d in list(_info().devices()) + [default] if d is not None and same(d)]
        if found:
            return found[0]
    # The default device as devspec found it where the inspection namespace does not list it
    # (or there is none): an array's .device (JAX 0.4's jax.experimental.array_api gives a
    # sharding there).
    d = xp.empty(()).device
    if str(d) == text or repr(d) == text or same(d):
        return d
    raise LookupError("the library lists no device %%r (the run bound it)" %% text)
'''


def statements_text(spec_dir: str) -> dict[str, str]:
    try:
        with open(os.path.join(spec_dir, "statements.json"), encoding="utf-8") as f:
            doc = json.load(f)
    except OSError:
        return {}
    found: dict[str, str] = {}
    for key in ("statements", "retired"):
        for st in doc.get(key, []):
            if isinstance(st, dict) and "id" in st:
                found[st["id"]] = st.get("text", "")
    return found


def load_cases(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Every case of the case files under PATHS, by ID."""
    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p, followlinks=True):
                dirs.sort()
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".json")]
        elif os.path.isfile(p):
            files.append(p)
    cases: dict[str, dict[str, Any]] = {}
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict):
            for c in doc.get("cases", []):
                if isinstance(c, dict) and "id" in c:
                    cases.setdefault(c["id"], c)
    return cases


def library_of(header: dict[str, Any]) -> tuple[list[str] | None, str | None, str]:
    """(the source lines that make `xp`, the backend's name, why no script) for the run's
    adapter: a named adapter of an array API library imports its module; `python:SPEC` makes
    the namespace as devspec's discovery does for SPEC's three forms."""
    given = str(header.get("adapter", {}).get("given") or "")
    name = str(header.get("library", {}).get("name") or "")
    adapter = str(header.get("adapter", {}).get("name") or "")
    if given.startswith("python:"):
        notes = [str(n) for n in header.get("discovery", {}).get("notes", [])]
        if any(n.startswith("devices through array-api-compat") for n in notes):
            return None, None, ("the adapter reads devices and moves arrays through "
                                "array-api-compat's helpers (--compat), not the library's own "
                                "attributes")
        try:
            lines = namespace_source(given[len("python:"):].split()[0])
        except NoPlainForm as exc:
            return None, None, str(exc)
        if any(n.startswith("namespace: x.__array_namespace__()") for n in notes):
            lines = through_arrays(lines)
        return lines, None, ""
    if adapter == "devspec-python" and name in NAMESPACE_MODULES:
        return ["import %s as xp" % NAMESPACE_MODULES[name]], BACKEND_NAMES[name], ""
    if adapter == "devspec-python":
        return None, None, ("the adapter drives %s through a backend of its own, not an array "
                            "API namespace" % (name or "the library"))
    return None, None, ("%s is not a Python library: its reproducer is a replay file of "
                        "requests" % (name or "the library"))


def through_arrays(lines: list[str]) -> list[str]:
    """LINES, whose last makes `xp` the module, changed to make `xp` the namespace its arrays
    name (x.__array_namespace__()), the array made by the first of discovery's makers the
    module has."""
    import importlib

    from .discovery import _MAKERS
    last = lines[-1]
    module = last.split(" as xp")[0][len("import "):] if last.endswith(" as xp") else \
        last.split("= ", 1)[1]
    head = lines[:-1] + (["import %s" % module] if last.endswith(" as xp") else
                         [last.replace("xp = ", "_lib = ", 1)])
    ref = module if last.endswith(" as xp") else "_lib"
    try:
        obj: Any = importlib.import_module(module)
    except ImportError:
        obj = None
    for name, args in _MAKERS:
        if obj is None or hasattr(obj, name):
            return [*head, "xp = %s.%s(%s).__array_namespace__()" % (ref, name, repr(args[0]))]
    raise NoPlainForm("%s makes no array" % module)


def importable_prefix(path: str) -> str:
    """The longest prefix of the dotted PATH that is a module."""
    import importlib.util
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except (ImportError, ValueError):
            continue
    raise NoPlainForm("no module of %s can be imported" % path)


def namespace_source(spec: str) -> list[str]:
    """`xp = ...` for python:SPEC: MODULE, MODULE.attr, MODULE:FACTORY(ARG, ...) (each ARG a
    literal or a module name), as discovery.resolve reads them; a module that is no namespace
    and is driven through its arrays' __array_namespace__() has no plain form here."""
    import ast
    if ":" in spec:
        path, _, call = spec.partition(":")
        factory, inside = call, ""
        if "(" in call:
            factory, _, inside = call[:-1].partition("(")
        module = importable_prefix(path)
        lines = ["import %s" % module]
        args = []
        for a in (x.strip() for x in inside.split(",")):
            if not a:
                continue
            try:
                ast.literal_eval(a)
                args.append(a)
            except (ValueError, SyntaxError):
                lines.append("import %s" % a)
                args.append(a)
        return [*lines, "xp = %s.%s(%s)" % (path, factory, ", ".join(args))]
    module = importable_prefix(spec)
    if module == spec:
        return ["import %s as xp" % spec]
    return ["import %s" % module, "xp = %s" % spec]


def overridden(backend: str | None) -> set[str]:
    """The ops whose backend methods the library's backend class overrides (MIRRORS)."""
    from . import array_api, backends
    from .backends import namespace
    if backend is None:
        cls: type = namespace.NamespaceBackend
        base: type = namespace.NamespaceBackend
    else:
        cls = backends.backend_class(backend)
        base = array_api.ArrayAPIBackend
    if not issubclass(cls, base):
        return set(MIRRORS)
    return {op for op, methods in MIRRORS.items()
            if any(getattr(cls, m, None) is not getattr(base, m, None)
                   and (backend or "", m) not in SAME_AS_TRANSLATED for m in methods)}


def step_source(s: Script, n: int, step: dict[str, Any], changed: set[str]) -> list[str]:
    op = step["op"]
    args = step.get("args", {})
    if op in changed:
        raise NoPlainForm("the adapter does %s its own way for this library" % op)
    table = s.translate or TRANSLATE
    if op not in table:
        raise NoPlainForm("%s: %s" % (op, s.no_plain.get(op) or NO_PLAIN_FORM.get(
            op, "no plain-Python form")))
    call, observe = table[op](s, args)
    label = "%d (%s)" % (n, op)
    target = s.var(step["as"]) if "as" in step else None
    if target is not None:
        s.observers[step["as"]] = observe
    out = ["# step %d: %s %s" % (n, op, json.dumps(args, sort_keys=True)[:200])]
    if "raises" in step:
        out.append("_raises(%r, lambda: %s, %r)" % (label, call, step["raises"]))
    elif "either" in step:
        src = "[" + ", ".join(s.expected(a) for a in step["either"]) + "]"
        lhs = target or "_"
        out.append("%s, _stop = _either(%r, lambda: %s, %s, %s)" % (lhs, label, call, observe,
                                                                   src))
        out.append("if _stop:")
        out.append("    print(%r)" % ("%s: step %d decided the case (an alternative that "
                                     "stops it): passes" % (s.case_id, n)))
        out.append("    sys.exit(0)")
    elif "expect" in step:
        if target is None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", call):
            lhs = call  # describe and read: the array itself
        else:
            lhs = target or "r%d" % n
            out.append("%s = %s" % (lhs, call))
        out.append("_expect(%r, %s(%s), %s)" % (label, observe, lhs, s.expected(step["expect"])))
    elif "expect_ranks" in step:
        raise NoPlainForm("expect_ranks: a result per rank (global arrays under MPI)")
    else:
        out.append("%s = %s" % (target or "_", call))
    if observe == "_read":
        s.needs_read = True
    return out


def unlisted_dtype(record: dict[str, Any]) -> str | None:
    """The dtype a lacks verdict rests on the library's own inspection namespace for (it lists
    the dtype on no device, as JAX without 64-bit mode lists no int64 though jax.numpy.int64
    exists and means int32), or None. The adapter refuses such a dtype before the call, so the
    call in plain Python would go on; the script checks the listing the adapter checked."""
    if record.get("observed_status") != "lacks" or "inspection namespace lists no" not in \
            str(record.get("reason", "")):
        return None
    for what in record.get("lacks") or ():
        if isinstance(what, str) and what.startswith("dtype "):
            return what[len("dtype "):]
    return None


def listed_check(n: int, op: str, dtype: str, header: dict[str, Any]) -> list[str]:
    devices = ", ".join(str(d.get("binding")) for d in header.get("devices", []))
    return ["# devspec's reading (adapters/python/README.md): a dtype the inspection namespace "
            "lists on no device is one the library lacks, so devspec refuses it before the call.",
            "_info = xp.__array_namespace_info__()",
            "_listed = set().union(*(_info.dtypes(device=d) for d in (%s,)))" % devices,
            "if %r not in _listed:" % dtype,
            "    raise AssertionError('%%s: step %d (%s): the library lacks dtype %s: its "
            "inspection namespace lists no %s on any device (it lists %%s)\\n%%s' %% "
            "(CASE, sorted(_listed), STATEMENTS))" % (n, op, dtype, dtype)]


def docstring(lines: list[str]) -> str:
    text = "\n".join(lines).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    # A control character other than newline and tab (a NUL a case sends) as its escape: a
    # source file cannot hold a NUL.
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group()), text)
    return '"""' + text + '\n"""'


def write_script(case: dict[str, Any], record: dict[str, Any], header: dict[str, Any],
                 make_xp: list[str] | None, why_none: str, changed: set[str],
                 statements: dict[str, str], report_path: str,
                 dialect: Dialect | None = None) -> str:
    """The script's text for one case: what it reproduces, then main() with the devices and
    the steps, then the helpers it calls. DIALECT: a named adapter's library (torch,
    tinygrad, Ivy), called as that adapter calls it (repro_named.py)."""
    s = Script(case["id"])
    if dialect is not None:
        dialect.prepare(s)
    body: list[str] = []
    missing = rest = ""
    given = header.get("adapter", {}).get("given", "ADAPTER")
    failed_at = record.get("step")
    if make_xp is None:
        missing = why_none
    else:
        unlisted = unlisted_dtype(record)
        for n, step in enumerate(case.get("steps", [])):
            if unlisted and n == failed_at:
                body += listed_check(n, step.get("op", "?"), unlisted, header)
            try:
                body += step_source(s, n, step, changed)
            except (NoPlainForm, KeyError, TypeError, ValueError) as exc:
                why = "argument %s" % exc if isinstance(exc, KeyError) else str(exc)
                gap = "step %d (%s) has no plain-Python form here: %s" % (n, step.get("op"),
                                                                          why)
                run = "devspec run --adapter %s --case %s" % (given, case["id"])
                if isinstance(failed_at, int) and n > failed_at:
                    # The failure is before the gap: the script reproduces it; a fixed
                    # library gets this far, and devspec checks the rest.
                    rest = gap
                    body.append("print(%r)" % ("%s: steps 0 to %d pass; %s; %s checks the "
                                               "rest" % (case["id"], n - 1, gap, run)))
                    body.append("sys.exit(0)")
                else:
                    missing = gap
                    body.append("raise NotImplementedError(%r)" % (
                        "not reproducible outside devspec: %s; run it there: %s" % (gap, run)))
                break
    lib = header.get("library", {})
    ids = case.get("spec", [])
    doc = ["Reproducer of devspec case %s (written by devspec repro from %s)." % (
        case["id"], os.path.basename(report_path)), ""]
    if missing:
        doc += ["NOT A FULL REPRODUCER: %s. The script stops there with NotImplementedError "
                "instead of pretending." % missing, ""]
    if rest:
        doc += ["The failure (step %d) is reproduced; %s, so a fixed library's script stops "
                "there, passing." % (int(failed_at or 0), rest), ""]
    doc += [case.get("description", "").strip(), "", "Statements:"]
    doc += ["  %s: %s" % (i, statements.get(i, "(not in spec/statements.json)")) for i in ids]
    doc += ["", "Library: %s %s, adapter %s" % (lib.get("name"), lib.get("version"), given)]
    devs = header.get("devices", [])
    if devs:
        doc.append("Devices as the run bound them:")
        doc += ["  $%s = %s" % (d.get("binding"), d.get("str", d.get("handle"))) for d in devs]
    doc += ["", "devspec reported: %s" % record.get("observed_status", record.get("status"))]
    for key in ("reason", "expected", "observed"):
        if record.get(key) not in (None, ""):
            doc.append("  %s: %s" % (key, str(record[key]).replace("\n", "\n    ")))
    if record.get("step") is not None:
        doc.append("  at step %s (%s)" % (record.get("step"), record.get("op")))
    doc += ["", "Run: python %s  (fails with AssertionError naming the statements while the "
            "library does what devspec reported; passes once it is fixed)"
            % file_name(case["id"])]
    if dialect is not None:
        doc += ["", *dialect.notes]
    elif s.needs_read:
        doc.append("NumPy reads the arrays' values (numpy.asarray, on the default device).")
    out = [docstring(doc), "", "import builtins", "import math", "import sys", ""]
    out += make_xp or []
    out += ["", "CASE = %r" % case["id"],
            "STATEMENTS = %r" % "\n".join("%s: %s" % (i, statements.get(i, "")) for i in ids),
            "", "", "def main():"]
    if make_xp is not None:
        out.append("    # The devices the run bound, found by the text it recorded for each.")
        for d in devs:
            text = d.get("str")
            if text is None:
                out.append("    %s = None  # the report recorded no text for this device"
                           % d.get("binding"))
            elif dialect is not None:
                out.append("    %s = %s" % (d.get("binding"), dialect.bind % repr(text)))
            else:
                out.append("    %s = _device(%r)" % (d.get("binding"), text))
    for line in body:
        out.append("    " + line if line else "")
    if make_xp is None:
        out.append("    raise NotImplementedError(%r)" % ("no script: " + why_none))
    else:
        out.append("    print(%r)" % ("%s: passes" % case["id"]))
    out.append("")
    if make_xp is not None:
        out.append(RUNTIME % {"dtypes": DTYPES})
    if make_xp is not None and dialect is not None:
        out.append(dialect.runtime)
    out += ["", "if __name__ == \"__main__\":",
            "    try:",
            "        main()",
            "    except AssertionError:",
            "        raise",
            "    except NotImplementedError as exc:",
            "        if str(exc).startswith(('not reproducible outside devspec', 'no script: ')):",
            "            raise",
            "        raise AssertionError(\"%s: %s: %s where the case wants a result\\n%s\" % (",
            "            CASE, type(exc).__name__, exc, STATEMENTS)) from exc",
            "    except Exception as exc:  # a step the case wants to succeed raised",
            "        raise AssertionError(\"%s: %s: %s where the case wants a result\\n%s\" % (",
            "            CASE, type(exc).__name__, exc, STATEMENTS)) from exc"]
    return "\n".join(out) + "\n"


def env_source(pairs: list[str]) -> list[str]:
    """The lines that set the adapter's environment (devspec's own DEVSPEC_* left out) before
    the library is imported."""
    env = dict(p.split("=", 1) for p in pairs if "=" in p and not p.startswith("DEVSPEC_"))
    if not env:
        return []
    return ["import os", "", "# The adapter's environment (adapters.json), which configures the "
            "library.", "os.environ.update(%r)" % env, ""]


def file_name(case_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", case_id) + ".py"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="devspec repro", description=__doc__.split("\n\n")[0])
    p.add_argument("--report", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--case", action="append", default=[])
    p.add_argument("--status", action="append", default=[],
                   help="the observed statuses to write scripts for (default: %s)"
                   % " ".join(REPRO_STATUSES))
    p.add_argument("--cases", action="append", default=[],
                   help="case files or folders (default: the report's, else the suite's)")
    p.add_argument("--source", default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))))
    p.add_argument("--spec")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="the named adapter's environment (adapters.json), set by the scripts "
                   "before the import")
    o = p.parse_args(argv)
    try:
        with open(o.report, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as exc:
        print("devspec repro: cannot read the report %s: %s" % (o.report, exc), file=sys.stderr)
        return 2
    if not isinstance(report, dict) or report.get("type") != "devspec-report":
        print("devspec repro: %s is not a devspec report (a consolidated .json written by "
              "devspec run --report)" % o.report, file=sys.stderr)
        return 2
    header = report.get("header", {})
    paths = o.cases or [c if os.path.isabs(c) or os.path.exists(c) else
                        os.path.join(o.source, c)
                        for c in header.get("config", {}).get("cases", [])]
    cases = load_cases(paths or [os.path.join(o.source, "conformance", "cases")])
    statements = statements_text(o.spec or os.path.join(o.source, "spec"))
    from .repro_named import dialect_of
    dialect = dialect_of(header)
    make_xp: list[str] | None
    if dialect is not None:
        make_xp, why, changed = dialect.head, "", set()
    else:
        make_xp, backend, why = library_of(header)
        changed = overridden(backend) if make_xp is not None else set()
    chosen = [r for r in report.get("cases", [])
              if r.get("observed_status", r.get("status")) in (o.status or REPRO_STATUSES)
              and (not o.case or any(fnmatch.fnmatchcase(r["id"], g) for g in o.case))]
    os.makedirs(o.out, exist_ok=True)
    written = partial = 0
    for record in chosen:
        case = cases.get(record["id"])
        if case is None:
            print("devspec repro: %s: not in the case files %s" % (record["id"], paths),
                  file=sys.stderr)
            continue
        text = write_script(case, record, header, env_source(o.env) + (make_xp or [])
                            if make_xp is not None else None, why, changed, statements,
                            o.report, dialect)
        path = os.path.join(o.out, file_name(record["id"]))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written += 1
        if "NOT A FULL REPRODUCER" in text:
            partial += 1
        print(path)
    print("devspec repro: %d reproducer%s in %s (%d of them stop at a step with no "
          "plain-Python form)" % (written, "" if written == 1 else "s", o.out, partial),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    # As the package's own module (python -m runs this file as __main__, a second copy), so
    # that repro_named, which imports it, shares its classes (NoPlainForm).
    from devspec_py import repro as package_module
    sys.exit(package_module.main())
