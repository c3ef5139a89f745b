"""Reproducers for the named adapters whose libraries have no array API namespace: torch,
tinygrad and Ivy (adapters/python/devspec_py/backends). Each is a `repro.Dialect`: the script
imports only the library (as `xp`), binds the devices as the named adapter does (torch.device,
tinygrad's Device.canonicalize, ivy.Device), and writes each op as that adapter's backend
calls the library (its methods are named beside each translation); what is the same as the
array API translation (repro.TRANSLATE) is kept. An op the backend refuses (the adapter's
NotImplementedError) or does with what only devspec has is in the dialect's `no_plain` with
the reason, and a script that reaches one says so at its top (repro.write_script). The
scripts of the passing cases of each library's published report pass (test_repro.py), so a
translation cannot drift from its backend unseen. Standard-library only.
"""

from __future__ import annotations

from typing import Any

from .repro import TRANSLATE, Dialect, NoPlainForm, Script, Translation, kw_source, nested_source


def devices_source(s: Script, a: dict[str, Any], parse: str) -> str:
    """A devices argument (a list of handles or {"str": text}) as a tuple's source, each text
    made the library's device as ops.devices_arg does (its parse_device)."""
    return "(" + "".join(dev_obj(s, v, parse) + ", " for v in a["devices"]) + ")"


def dev_obj(s: Script, value: Any, parse: str) -> str:
    """A device argument that must name a device (ops.device_object): {"str": text} is the
    library's device for the text, made by PARSE (a format of one %s)."""
    if isinstance(value, dict) and set(value) == {"str"}:
        return parse % repr(value["str"])
    return s.ref(value)


def dtype_kw(s: Script, a: dict[str, Any]) -> list[tuple[str, str]]:
    return [("dtype", s.dt(a["dtype"]))] if a.get("dtype") is not None else []


def device_kw(s: Script, a: dict[str, Any]) -> list[tuple[str, str]]:
    return [("device", s.device(a["device"]))] if "device" in a else []


def positional_arange(s: Script, a: dict[str, Any]) -> list[str]:
    """BaseBackend._arange_positional: start, stop, step positional; a step with no stop
    counts from 0 to start."""
    pos = [s.ref(a["start"])] + ([s.ref(a["stop"])] if a.get("stop") is not None else [])
    if a.get("step") is not None:
        if a.get("stop") is None:
            pos = ["0", s.ref(a["start"])]
        pos.append(s.ref(a["step"]))
    return pos


def typed_obj(a: dict[str, Any]) -> dict[str, Any] | None:
    obj = a["obj"]
    return obj if isinstance(obj, dict) and "data" in obj else None


# -- torch: TorchBackend and TorchLikeBackend ------------------------------------------------

def torch_create(s: Script, a: dict[str, Any]) -> Translation:
    """TorchBackend.create."""
    fn = a["fn"]
    kw = dtype_kw(s, a) + device_kw(s, a)
    if fn in ("zeros", "ones", "empty"):
        return "xp.%s(%r%s)" % (fn, list(a["shape"]), kw_source(kw)), "_value"
    if fn == "full":
        return "xp.full(%r, %s%s)" % (list(a["shape"]), s.ref(a["fill_value"]),
                                      kw_source(kw)), "_value"
    if fn == "arange":
        return "xp.arange(%s%s)" % (", ".join(positional_arange(s, a)), kw_source(kw)), "_value"
    if fn == "linspace":
        if not a.get("endpoint", True):
            raise NoPlainForm("torch.linspace has no endpoint=False (the adapter refuses it)")
        return "xp.linspace(%s, %s, %d%s)" % (s.ref(a["start"]), s.ref(a["stop"]), a["num"],
                                              kw_source(kw)), "_value"
    if fn == "eye":
        if a.get("k", 0) != 0:
            raise NoPlainForm("torch.eye has no diagonal offset k (the adapter refuses it)")
        cols = "" if a.get("n_cols") is None else ", %d" % a["n_cols"]
        return "xp.eye(%d%s%s)" % (a["n_rows"], cols, kw_source(kw)), "_value"
    if fn in ("zeros_like", "ones_like", "empty_like"):
        return "xp.%s(%s%s)" % (fn, s.ref(a["x"]), kw_source(kw)), "_value"
    if fn == "full_like":
        return "xp.full_like(%s, %s%s)" % (s.ref(a["x"]), s.ref(a["fill_value"]),
                                           kw_source(kw)), "_value"
    d = s.ref(a["d"]) if a.get("d") is not None else "1.0"
    return "xp.fft.%s(%d, %s%s)" % (fn, a["n"], d, kw_source(kw)), "_value"


def torch_asarray(s: Script, a: dict[str, Any]) -> Translation:
    """TorchBackend.asarray_typed (the dtype always given), asarray_scalar, asarray_array."""
    obj = typed_obj(a)
    if obj is None:
        return TRANSLATE["array.asarray"](s, a)
    kw = [("dtype", s.dt(a.get("dtype") or obj["dtype"])), *device_kw(s, a)]
    if "copy" in a:
        kw.append(("copy", s.ref(a["copy"])))
    if 0 in obj["shape"]:
        return "xp.asarray(%r%s).reshape(%r)" % (obj["data"], kw_source(kw),
                                                 tuple(obj["shape"])), "_value"
    return "xp.asarray(%s%s)" % (nested_source(obj["data"], obj["shape"], obj["dtype"]),
                                 kw_source(kw)), "_value"


def torch_astype(s: Script, a: dict[str, Any]) -> Translation:
    """TorchLikeBackend.astype: Tensor.to(device=, copy=, dtype=)."""
    kw = [*device_kw(s, a), ("copy", repr(a.get("copy", True))), ("dtype", s.dt(a["dtype"]))]
    return "%s.to(%s)" % (s.ref(a["x"]), kw_source(kw)[2:]), "_value"


def torch_to_device(s: Script, a: dict[str, Any]) -> Translation:
    """TorchBackend.to_device: Tensor.to(device); a stream is refused."""
    if a.get("stream") is not None:
        raise NoPlainForm("a stream argument (torch's Tensor.to takes none; the adapter "
                          "refuses it)")
    return "%s.to(%s)" % (s.ref(a["array"]), s.device(a["device"])), "_value"


OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "equal": "==",
             "less": "<"}


def operator_binary(s: Script, a: dict[str, Any]) -> Translation:
    """TorchLikeBackend.binary: maximum as the library's function, the rest as operators."""
    x1, x2 = s.ref(a["x1"]), s.ref(a["x2"])
    if a["fn"] == "maximum":
        return "%s(xp.maximum(%s, %s))" % (s.result_wrap or "", x1, x2), "_value"
    return "%s(%s %s %s)" % (s.result_wrap or "", x1, OPERATORS[a["fn"]], x2), "_value"


def torch_binary_into(s: Script, a: dict[str, Any]) -> Translation:
    """TorchBackend.binary_into: torch.add(x1, x2, out=out) and the like."""
    if not (isinstance(a["x1"], str) and a["x1"].startswith("$")):
        raise NoPlainForm("torch.%s(scalar, tensor, out=) takes a tensor first (the adapter "
                          "refuses it)" % a["fn"])
    f = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div"}[a["fn"]]
    return "_into(xp.%s, %s, %s, %s)" % (f, s.ref(a["x1"]), s.ref(a["x2"]), s.ref(a["out"])), \
        "_value"


def torch_reduce(s: Script, a: dict[str, Any]) -> Translation:
    """TorchLikeBackend.reduce: sum(x[, dim=]), max(x) or amax(x, dim=)."""
    x, axis = s.ref(a["x"]), a.get("axis")
    if a["fn"] == "sum":
        return ("xp.sum(%s)" % x if axis is None else "xp.sum(%s, dim=%d)" % (x, axis)), "_value"
    return ("xp.max(%s)" % x if axis is None else "xp.amax(%s, dim=%d)" % (x, axis)), "_value"


def torch_stack(s: Script, a: dict[str, Any]) -> Translation:
    return "xp.stack([%s], dim=%d)" % (", ".join(s.ref(h) for h in a["arrays"]),
                                       a.get("axis", 0)), "_value"


def torch_triangle(fn: str) -> Any:
    def translate(s: Script, a: dict[str, Any]) -> Translation:
        return "xp.%s(%s, diagonal=%d)" % (fn, s.ref(a["x"]), a.get("k", 0)), "_value"
    return translate


def torch_like_devices(parse: str) -> dict[str, Any]:
    """The device ops of TorchLikeBackend: the library's device constructor."""
    return {
        "device.parse": lambda s, a: (parse % repr(a["text"]), "_value"),
        "device.parse_current": lambda s, a: (parse % repr(a["text"]), "_value"),
        "device.describe": lambda s, a: ("_describe_device(%s)" % dev_obj(s, a["device"], parse),
                                         "_value"),
        "device.equal": lambda s, a: ("%s == %s" % (dev_obj(s, a["a"], parse),
                                                    dev_obj(s, a["b"], parse)), "bool"),
        "device.from_type_index": lambda s, a: ("xp.device(%r, %d)" % (a["type"], a["index"]),
                                                "_value"),
        "device.from_ordinal": lambda s, a: ("xp.device(%d)" % a["ordinal"], "_value"),
        "array.get_device": lambda s, a: ("%s.get_device()" % s.ref(a["array"]), "_value"),
    }


TORCH_RUNTIME = '''
# -- torch as the named adapter reads it (TorchBackend, TorchLikeBackend) --------------------

def _dtype_name(dt):
    return str(dt).replace("torch.", "")


def _describe(x):
    return {"device": x.device, "dtype": _dtype_name(x.dtype), "shape": list(x.shape)}


def _read(x):
    """x's dtype, shape and elements (flat), read on the host (Tensor.detach().cpu())."""
    h = x.detach().cpu()
    data = [[v.real, v.imag] if isinstance(v, complex) else v for v in h.reshape(-1).tolist()]
    return {"dtype": _dtype_name(x.dtype), "shape": list(h.shape), "data": data}


def _into(f, x1, x2, out):
    """f(x1, x2, out=out), answering None as the adapter's array.binary_into does."""
    f(x1, x2, out=out)


def _describe_device(d):
    return {"str": str(d), "type": d.type, "index": d.index}
'''

NO_INFO = "%s has no inspection namespace (the adapter refuses the op)"
INFO_OPS = ("info.devices", "info.default_device", "info.capabilities", "info.dtypes",
            "info.default_dtypes", "info.devices_type")

TORCH = Dialect(
    head=["import torch as xp"],
    bind="xp.device(%s)",
    translate={
        "array.create": torch_create,
        "array.asarray": torch_asarray,
        "array.astype": torch_astype,
        "array.to_device": torch_to_device,
        "array.binary": operator_binary,
        "array.binary_into": torch_binary_into,
        "array.reduce": torch_reduce,
        "array.stack": torch_stack,
        "array.tril": torch_triangle("tril"),
        "array.triu": torch_triangle("triu"),
        "default.get": lambda s, a: ("xp.empty(()).device", "_value"),
        **torch_like_devices("xp.device(%s)"),
    },
    no_plain={
        **dict.fromkeys(INFO_OPS, NO_INFO % "torch"),
        "info.device_param": "torch's functions are builtins whose signatures cannot be read "
                             "(the adapter refuses the op)",
        "device.set_current": "torch sets a current device only for cuda "
                              "(torch.cuda.set_device), which this translation does not write",
    },
    runtime=TORCH_RUNTIME,
    notes=["torch has no array API namespace: the script calls torch's own API as devspec's "
           "named adapter does (adapters/python/devspec_py/backends/torch.py): devices are "
           "torch.device, to_device is Tensor.to, astype is Tensor.to(dtype=), and values are "
           "read with Tensor.detach().cpu()."],
)


# -- tinygrad: TinygradBackend ---------------------------------------------------------------

def tiny_asarray(s: Script, a: dict[str, Any]) -> Translation:
    """TinygradBackend.asarray_typed and asarray_scalar (copy= dropped); an array is refused."""
    obj = typed_obj(a)
    kw = dtype_kw(s, a) + device_kw(s, a)
    if obj is None:
        if isinstance(a["obj"], str) and a["obj"].startswith("$"):
            raise NoPlainForm("asarray of a tensor: the adapter refuses it for tinygrad")
        return "xp(%s%s)" % (s.ref(a["obj"]), kw_source(kw)), "_value"
    if not kw or kw[0][0] != "dtype":
        kw.insert(0, ("dtype", s.dt(obj["dtype"])))
    if 0 in obj["shape"] or not obj["shape"]:
        flat = "[" + ", ".join(nested_source([v], [], obj["dtype"]) for v in obj["data"]) + "]"
        return "xp(%s%s).reshape(%r)" % (flat, kw_source(kw), tuple(obj["shape"])), "_value"
    return "xp(%s%s)" % (nested_source(obj["data"], obj["shape"], obj["dtype"]),
                         kw_source(kw)), "_value"


def tiny_create(s: Script, a: dict[str, Any]) -> Translation:
    """TinygradBackend.create (not realised, as the adapter leaves it)."""
    fn = a["fn"]
    kw = kw_source(dtype_kw(s, a) + device_kw(s, a))
    if fn in ("zeros", "ones", "empty"):
        return "xp.%s(%s%s)" % (fn, ", ".join(str(n) for n in a["shape"]),
                                kw if a["shape"] else kw[2:]), "_value"
    if fn == "full":
        return "xp.full(%r, %s%s)" % (tuple(a["shape"]), s.ref(a["fill_value"]), kw), "_value"
    if fn == "arange":
        return "xp.arange(%s%s)" % (", ".join(positional_arange(s, a)), kw), "_value"
    if fn == "linspace":
        if not a.get("endpoint", True):
            raise NoPlainForm("tinygrad's linspace has no endpoint=False (the adapter refuses "
                              "it)")
        return "xp.linspace(%s, %s, %d%s)" % (s.ref(a["start"]), s.ref(a["stop"]), a["num"],
                                              kw), "_value"
    if fn == "eye":
        if a.get("k", 0) != 0:
            raise NoPlainForm("tinygrad's eye has no diagonal offset k (the adapter refuses it)")
        return "xp.eye(%d, %r%s)" % (a["n_rows"], a.get("n_cols"), kw), "_value"
    if fn == "full_like":
        return "%s.full_like(%s%s)" % (s.ref(a["x"]), s.ref(a["fill_value"]), kw), "_value"
    if fn in ("zeros_like", "ones_like", "empty_like"):
        return "%s.%s(%s)" % (s.ref(a["x"]), fn, kw[2:]), "_value"
    raise NoPlainForm("tinygrad has no fft.%s (the adapter refuses it)" % fn)


def tiny_astype(s: Script, a: dict[str, Any]) -> Translation:
    if "device" in a:
        raise NoPlainForm("tinygrad's cast takes no device (the adapter refuses it)")
    return "_done(%s.cast(%s))" % (s.ref(a["x"]), s.dt(a["dtype"])), "_value"


def tiny_to_device(s: Script, a: dict[str, Any]) -> Translation:
    if a.get("stream") is not None:
        raise NoPlainForm("a stream argument (tinygrad's Tensor.to takes none; the adapter "
                          "refuses it)")
    return "_done(%s.to(%s))" % (s.ref(a["array"]), s.device(a["device"])), "_value"


def tiny_binary(s: Script, a: dict[str, Any]) -> Translation:
    """TinygradBackend.binary: maximum as the tensor's method (the tensor's, where x1 is a
    scalar), the rest as operators; realised."""
    x1, x2 = s.ref(a["x1"]), s.ref(a["x2"])
    if a["fn"] == "maximum":
        return "_done(%s.maximum(%s) if isinstance(%s, xp) else %s.maximum(%s))" % (
            x1, x2, x1, x2, x1), "_value"
    return "_done(%s %s %s)" % (x1, OPERATORS[a["fn"]], x2), "_value"


def tiny_unary(s: Script, a: dict[str, Any]) -> Translation:
    x = s.ref(a["x"])
    return "_done(%s)" % {"negative": "-%s", "abs": "%s.abs()", "sqrt": "%s.sqrt()"}[
        a["fn"]] % x, "_value"


TINY_RUNTIME = '''
# -- tinygrad as the named adapter drives it (TinygradBackend) -------------------------------

_SCOPES = []  # the Context(DEV=...) scopes default.push entered


def _done(r):
    """A result as the adapter answers it: every tensor realised (Tensor.realize()), so that
    an error (a kernel over two devices) is the op's, not a later read's."""
    if isinstance(r, xp):
        return r.realize()
    if isinstance(r, (tuple, list)):
        return type(r)(_done(v) for v in r)
    return r


def _dtype_name(dt):
    for name in DTYPES:
        mine = getattr(dtypes, name, None)
        if mine is not None and dt == mine:
            return name
    return str(dt)


def _value(obj):
    if isinstance(obj, (tuple, list)):
        return [_value(v) for v in obj]
    if isinstance(obj, complex):
        return {"complex": [obj.real, obj.imag]}
    if obj is None or isinstance(obj, (bool, int, float, str, xp)):
        return obj
    name = _dtype_name(obj)
    return {"dtype": name} if name in DTYPES else obj


def _device_of(x):
    d = x.device
    return d[0] if isinstance(d, tuple) else d


def _describe(x):
    return {"device": _device_of(x), "dtype": _dtype_name(x.dtype),
            "shape": [int(n) for n in x.shape]}


def _read(x):
    """x's dtype, shape and elements (flat): Tensor.tolist (a sharded tensor's through its
    gather onto its first device, Tensor.to)."""
    if isinstance(x.device, tuple):
        x = x.to(x.device[0])
    flat = x.flatten().tolist() if x.shape else [x.item()]
    return {"dtype": _dtype_name(x.dtype), "shape": [int(n) for n in x.shape], "data": flat}


def _attr(x, name, args, kwargs):
    attr = getattr(x, name)
    prop = not callable(attr) or isinstance(getattr(type(x), name, None), property)
    return attr if prop else _done(attr(*args, **kwargs))


def _shard_describe(x):
    d = x.device
    if not isinstance(d, tuple):
        return {"sharded": False, "devices": [d], "axis": None, "bounds": None}
    axis = x.uop.axis
    bounds = None if axis is None else [[int(a), int(b)] for a, b in x.uop.bounds]
    return {"sharded": True, "devices": list(d), "axis": axis, "bounds": bounds}


def _default_set(d):
    from tinygrad.helpers import DEV
    DEV.value = d


def _default_push(d):
    from tinygrad.helpers import Context
    _SCOPES.append(Context(DEV=d))
    _SCOPES[-1].__enter__()


def _default_pop():
    if not _SCOPES:
        raise NotImplementedError("default.pop with no scope active: the adapter refuses it")
    _SCOPES.pop().__exit__(None, None, None)
'''


def scoped(push: str) -> Any:
    """default.push and default.pop through PUSH(device) and _default_pop(): a pop with no
    push before it is one the adapter refuses (the library's scope is a context manager,
    which cannot be left before it is entered), and has no plain form."""
    def translate_push(s: Script, a: dict[str, Any]) -> Translation:
        s.scopes += 1
        return "%s(%s)" % (push, s.device(a["device"])), "_value"

    def translate_pop(s: Script, a: dict[str, Any]) -> Translation:
        if s.scopes == 0:
            raise NoPlainForm("default.pop with no scope entered: the library's scope is a "
                              "context manager, which cannot be left before it is entered, "
                              "and the adapter refuses the op")
        s.scopes -= 1
        return "_default_pop()", "_value"
    return {"default.push": translate_push, "default.pop": translate_pop}


def tiny_done(fmt: str) -> Any:
    """A translation writing FMT with the op's arguments, realised."""
    def translate(s: Script, a: dict[str, Any]) -> Translation:
        return "_done(%s)" % fmt.format(**{k: s.ref(v) if isinstance(v, str) else v
                                           for k, v in a.items()}), "_value"
    return translate


TINY_PARSE = "Device.canonicalize(%s)"

TINYGRAD = Dialect(
    head=["from tinygrad import Device, dtypes", "from tinygrad import Tensor as xp"],
    bind=TINY_PARSE,
    dtype="dtypes.%s",
    result_wrap="_done",
    translate={
        "array.asarray": tiny_asarray,
        "array.create": tiny_create,
        "array.astype": tiny_astype,
        "array.describe": lambda s, a: (s.ref(a["array"]), "_describe"),
        "array.to_device": tiny_to_device,
        "array.binary": tiny_binary,
        "array.unary": tiny_unary,
        "array.reduce": lambda s, a: ("_done(%s.%s(axis=%r))" % (
            s.ref(a["x"]), a["fn"], a.get("axis")), "_value"),
        "array.matmul": tiny_done("{x1}.matmul({x2})"),
        "array.stack": lambda s, a: ("_done(%s.stack(%sdim=%d))" % (
            s.ref(a["arrays"][0]), "".join(s.ref(h) + ", " for h in a["arrays"][1:]),
            a.get("axis", 0)), "_value"),
        "array.tril": lambda s, a: ("_done(%s.tril(diagonal=%d))" % (s.ref(a["x"]),
                                                                      a.get("k", 0)), "_value"),
        "array.triu": lambda s, a: ("_done(%s.triu(diagonal=%d))" % (s.ref(a["x"]),
                                                                      a.get("k", 0)), "_value"),
        "array.shard": lambda s, a: ("_done(%s.shard(%s, axis=%r))" % (
            s.ref(a["x"]), devices_source(s, a, TINY_PARSE), a.get("axis")), "_value"),
        "array.shard_inplace": lambda s, a: ("_done(%s.shard_(%s, axis=%r))" % (
            s.ref(a["x"]), devices_source(s, a, TINY_PARSE), a.get("axis")), "_value"),
        "array.to_devices": lambda s, a: ("_done(%s.to(%s))" % (
            s.ref(a["array"]), devices_source(s, a, TINY_PARSE)), "_value"),
        "array.shard_describe": lambda s, a: ("_shard_describe(%s)" % s.ref(a["array"]),
                                              "_value"),
        "device.parse": lambda s, a: (TINY_PARSE % repr(a["text"]), "_value"),
        "device.describe": lambda s, a: ("{'str': %s}" % dev_obj(s, a["device"], TINY_PARSE),
                                         "_value"),
        "device.equal": lambda s, a: ("%s == %s" % (dev_obj(s, a["a"], TINY_PARSE),
                                                    dev_obj(s, a["b"], TINY_PARSE)), "bool"),
        "default.get": lambda s, a: ("Device.canonicalize(None)", "_value"),
        "default.set": lambda s, a: ("_default_set(%s)" % s.device(a["device"]), "_value"),
        **scoped("_default_push"),
    },
    no_plain={
        **dict.fromkeys(INFO_OPS, NO_INFO % "tinygrad"),
        "info.device_param": "the adapter refuses it for tinygrad (no namespace of the "
                             "standard's functions to introspect)",
        "array.shard_piece": "the adapter reads a piece from the realised multi-device "
                             "buffer's per-device buffers (tinygrad's UOp internals), which "
                             "tinygrad's public API has no call for",
        "array.from_dlpack": "the adapter refuses it for tinygrad",
        "array.dlpack_device": "the adapter refuses it for tinygrad",
        "dtype.can_cast": "tinygrad has no can_cast (the adapter refuses it)",
        "dtype.result_type": "tinygrad has no result_type (the adapter refuses it)",
        "array.binary_into": "tinygrad has no out= (the adapter refuses it)",
    },
    runtime=TINY_RUNTIME,
    notes=["tinygrad has no array API namespace: the script calls tinygrad's own API as "
           "devspec's named adapter does (adapters/python/devspec_py/backends/tinygrad.py): "
           "devices are tinygrad's device strings (Device.canonicalize), the standard's "
           "functions are Tensor's (xp is tinygrad.Tensor), and every result is realised "
           "(_done: Tensor.realize()) as the adapter realises it, so that an error is the "
           "op's and not a later read's. The environment (DEV, PARALLEL) is the adapter's, "
           "from adapters.json."],
)


# -- Ivy: IvyBackend (the array API backend over `ivy`, NumPy backend) ------------------------

IVY_RUNTIME = '''
# -- Ivy as the named adapter reads it (IvyBackend) ----------------------------------------

_SCOPES = []  # the ivy.DefaultDevice scopes default.push entered


def _describe(x):
    return {"device": xp.dev(x), "dtype": str(xp.dtype(x)), "shape": [int(n) for n in x.shape]}


def _read(x):
    """x's dtype, shape and elements (flat), through ivy.to_numpy."""
    h = xp.to_numpy(x)
    data = [[v.real, v.imag] if isinstance(v, complex) else v for v in h.reshape(-1).tolist()]
    return {"dtype": str(xp.dtype(x)), "shape": [int(n) for n in h.shape], "data": data}


def _default_push(d):
    _SCOPES.append(xp.DefaultDevice(d))
    _SCOPES[-1].__enter__()


def _default_pop():
    if not _SCOPES:
        raise NotImplementedError("default.pop with no scope active: the adapter refuses it")
    _SCOPES.pop().__exit__(None, None, None)
'''

IVY_PARSE = "xp.Device(%s)"

IVY = Dialect(
    head=["import ivy as xp", "",
          "# The named adapter's backend (set once: setting it again rewraps every function).",
          "if xp.current_backend_str() != 'numpy':", "    xp.set_backend('numpy')"],
    bind=IVY_PARSE,
    translate={
        "array.to_device": lambda s, a: ("xp.to_device(%s, %s%s)" % (
            s.ref(a["array"]), s.device(a["device"]),
            ", stream=None" if "stream" in a else ""), "_value"),
        "device.parse": lambda s, a: (IVY_PARSE % repr(a["text"]), "_value"),
        "device.describe": lambda s, a: ("{'str': str(%s)}" % dev_obj(s, a["device"], IVY_PARSE),
                                         "_value"),
        "device.equal": lambda s, a: ("%s == %s" % (dev_obj(s, a["a"], IVY_PARSE),
                                                    dev_obj(s, a["b"], IVY_PARSE)), "bool"),
        "default.get": lambda s, a: ("xp.default_device()", "_value"),
        "default.set": lambda s, a: ("xp.set_default_device(%s)" % s.device(a["device"]),
                                     "_value"),
        "default.unset": lambda s, a: ("xp.unset_default_device()", "_value"),
        **scoped("_default_push"),
        "soft.get": lambda s, a: ("bool(xp.soft_device_mode)", "_value"),
        "soft.set": lambda s, a: ("xp.set_soft_device_mode(%r)" % a["enabled"], "_value"),
        "soft.unset": lambda s, a: ("xp.unset_soft_device_mode()", "_value"),
        "util.num_gpus": lambda s, a: ("int(xp.num_gpus())", "_value"),
        "util.num_cpu_cores": lambda s, a: ("int(xp.num_cpu_cores())", "_value"),
        "util.total_memory": lambda s, a: ("round(float(xp.total_mem_on_dev(%s)) * 1e9)"
                                           % s.device(a["device"]), "_value"),
        "util.used_memory": lambda s, a: ("round(float(xp.used_mem_on_dev(%s)) * 1e9)"
                                          % s.device(a["device"]), "_value"),
        "util.utilisation": lambda s, a: ("float(xp.dev_util(%s))" % s.device(a["device"]),
                                          "_value"),
        "util.arrays_on_device": lambda s, a: (
            "list(xp.get_all_ivy_arrays_on_dev(%s).values())" % s.device(a["device"]),
            "_value"),
    },
    no_plain={
        **dict.fromkeys(INFO_OPS, NO_INFO % "Ivy"),
        "array.dlpack_device": "ivy.Array has no __dlpack_device__ (the adapter refuses it)",
    },
    runtime=IVY_RUNTIME,
    notes=["Ivy (NumPy backend) is driven as devspec's named adapter drives it "
           "(adapters/python/devspec_py/backends/ivy.py): the standard's functions through "
           "`ivy`, devices as ivy.Device, an array's device by ivy.dev, its dtype by "
           "ivy.dtype, its values by ivy.to_numpy, and Ivy's own default-device, soft-mode "
           "and device-utility functions."],
)

# The dialect of each named adapter, by the library name its hello gave.
DIALECTS: dict[str, Dialect] = {"torch": TORCH, "tinygrad": TINYGRAD, "ivy": IVY}


def dialect_of(header: dict[str, Any]) -> Dialect | None:
    """The dialect of the report's adapter: a named devspec-python adapter (not python:SPEC)
    of one of DIALECTS' libraries; None for any other."""
    given = str(header.get("adapter", {}).get("given") or "")
    if header.get("adapter", {}).get("name") != "devspec-python" or given.startswith("python:"):
        return None
    return DIALECTS.get(str(header.get("library", {}).get("name") or ""))
