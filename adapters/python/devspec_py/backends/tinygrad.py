"""tinygrad on its CPU backend, with several instances of it as devices."""

from __future__ import annotations

import os
import struct
from typing import Any

from ..backend import Array, BaseBackend, Device, DType, Kw, ScopeStack
from ..call import FEATURES as CALL_FEATURES
from ..errors import Lacks, Unsupported
from ..protocol import DTYPES
from ..values import TypedArray, flatten, nest


class TinygradBackend(BaseBackend):
    """tinygrad: devices are canonical strings ("CPU", "CPU:1", ...). tinygrad is lazy; the
    adapter realises every result, so an error surfaces at the op that causes it rather
    than at the next read."""

    library_name = "tinygrad"
    features = ("device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
                "to-device", "output-follows-input", "mixed-device-raises",
                "default-device-consistent", "device-string", "device-string-kw",
                "default-device-global", "default-device-scoped", "sharding",
                "sharding-elementwise", "sharding-reduce", "sharding-gather", *CALL_FEATURES)
    DEVICE_COUNT = 4

    def __init__(self) -> None:
        import tinygrad
        from tinygrad import Device as TinyDevice
        from tinygrad import Tensor, dtypes
        from tinygrad.helpers import DEV, Context
        self.tinygrad: Any = tinygrad
        self.Device: Any = TinyDevice
        self.Tensor: Any = Tensor
        self.dtypes: Any = dtypes
        self.DEV: Any = DEV
        self.Context: Any = Context
        if TinyDevice.DEFAULT.split(":")[0] == "CPU":
            import shutil
            cc = os.environ.get("CC", "clang")
            if shutil.which(cc) is None:
                raise ImportError("tinygrad's CPU backend compiles its kernels with '%s', which "
                                  "is not installed (Debian package clang)" % cc)
        self.initial_dev = DEV.value
        self.scopes = ScopeStack()
        self.count = int(os.environ.get("DEVSPEC_TINYGRAD_DEVICES", self.DEVICE_COUNT))
        self.names: dict[str, Any] = {}
        for name in DTYPES:
            dt = getattr(dtypes, name, None)
            if dt is not None:
                self.names[name] = dt

    def library_version(self) -> str:
        try:
            from importlib.metadata import version
            return version("tinygrad")
        except Exception:
            return str(getattr(self.tinygrad, "__version__", "unknown"))

    def devices(self) -> list[Device]:
        # The default device first, then further instances of the same backend: tinygrad
        # opens "CPU:1", "CPU:2", ... as separate devices with their own buffers.
        base = self.Device.DEFAULT.split(":")[0]
        return [self.Device.canonicalize("%s:%d" % (base, i)) for i in range(self.count)]

    def default_device(self) -> Device | None:
        return self.Device.canonicalize(None)

    def reset(self) -> None:
        self.scopes.clear()
        self.DEV.value = self.initial_dev

    def dtype(self, name: str) -> DType:
        if name not in self.names:
            # A dtype of the standard that tinygrad has not (complex64, complex128) is lacking;
            # float16 is no dtype of the standard.
            if name in DTYPES and name != "float16":
                raise Lacks("dtype " + name, "tinygrad has no dtype %s" % name)
            raise Unsupported("tinygrad has no dtype %s" % name)
        return self.names[name]

    def dtype_name(self, dt: DType) -> str:
        for name, mine in self.names.items():
            if dt == mine:
                return name
        return str(dt)

    def namespace(self) -> Any:
        # tinygrad has no module of the standard's functions: they are Tensor's, static
        # (Tensor.arange, Tensor.zeros) or methods called with the array first
        # (Tensor.sin(x), Tensor.maximum(x1, x2)). The generic call looks a name up there; one
        # tinygrad spells otherwise (concat is Tensor.cat, permute_dims Tensor.permute) or has
        # not (linalg, fft) is lacking, as is a keyword under another name (sort's dim=).
        return self.Tensor

    def call_result(self, result: Any) -> Any:
        # Realised here, so that what fails (a mixed-device kernel) fails in the call.
        if isinstance(result, self.Tensor):
            return self._done(result)
        if isinstance(result, (tuple, list)):
            return type(result)(self.call_result(r) for r in result)
        return result

    def tril(self, x: Array, k: int) -> Array:
        return self._done(x.tril(diagonal=k))

    def triu(self, x: Array, k: int) -> Array:
        return self._done(x.triu(diagonal=k))

    def describe_device(self, dev: Device) -> dict[str, Any]:
        return {"str": dev}

    def parse_device(self, text: str) -> Device:
        return self.Device.canonicalize(text)

    def _done(self, x: Array) -> Array:
        return x.realize()

    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        T = self.Tensor
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return getattr(T, fn)(*a["shape"], **kw)
        if fn == "full":
            return T.full(a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            pos = self._arange_positional(a)
            return T.arange(*pos, **kw)
        if fn == "linspace":
            if not a["endpoint"]:
                raise Unsupported("tinygrad's linspace has no endpoint=False")
            return T.linspace(a["start"], a["stop"], a["num"], **kw)
        if fn == "eye":
            if a["k"] != 0:
                raise Unsupported("tinygrad's eye has no diagonal offset k")
            return T.eye(a["n_rows"], a.get("n_cols"), **kw)
        if fn in ("zeros_like", "ones_like", "full_like", "empty_like"):
            x = a["x"]
            if fn == "full_like":
                return x.full_like(a["fill_value"], **kw)
            return getattr(x, fn)(**kw)
        raise Unsupported("tinygrad has no %s" % fn)

    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array:
        kw = self._kw(kw)
        kw.setdefault("dtype", self.dtype(typed.dtype))
        kw.pop("copy", None)
        # The elements are packed into bytes in the requested dtype's own format, as
        # tinygrad packs a list (Tensor(list) is struct.pack of each element in dtype.fmt):
        # the same host buffer and the same copy to the device, without tinygrad's walk of
        # the nested lists (117 us an array against 185 us). A dtype asked for other than
        # the elements', or elements that format cannot hold, take tinygrad's list path.
        fmt = getattr(kw["dtype"], "fmt", None)
        if fmt is not None and kw["dtype"] == self.names.get(typed.dtype):
            try:
                data = struct.pack("%d%s" % (len(typed.data), fmt), *typed.data)
            except (struct.error, OverflowError, TypeError):
                pass
            else:
                return self.Tensor(data, **kw).reshape(typed.shape)
        if 0 in typed.shape or not typed.shape:
            return self.Tensor(list(typed.data), **kw).reshape(typed.shape)
        return self.Tensor(nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array:
        kw = self._kw(kw)
        kw.pop("copy", None)
        return self.Tensor(value, **kw)

    def astype(self, x: Array, dtype: str, kw: Kw) -> Array:
        if "device" in kw:
            raise Unsupported("tinygrad's cast takes no device")
        return self._done(x.cast(self.dtype(dtype)))

    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        if isinstance(x.device, tuple):
            # A sharded tensor is read through its gather onto the first device (Tensor.to):
            # flatten cannot reshape across the pieces of a split along a later axis.
            x = x.to(x.device[0])
        # tolist reads the tensor as it is (flatten() first would add a reshape to realise).
        flat = x.tolist() if x.shape else [x.item()]
        return self.array_dtype(x), tuple(int(n) for n in x.shape), flatten(flat)

    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        if kw.get("stream") is not None:
            raise Unsupported("tinygrad's Tensor.to takes no stream")
        return self._done(x.to(dev))

    def binary(self, fn: str, x1: Any, x2: Any) -> Array:
        if fn == "maximum":
            out = x1.maximum(x2) if isinstance(x1, self.Tensor) else x2.maximum(x1)
        elif fn == "add":
            out = x1 + x2
        elif fn == "subtract":
            out = x1 - x2
        elif fn == "multiply":
            out = x1 * x2
        elif fn == "divide":
            out = x1 / x2
        elif fn == "equal":
            out = x1 == x2
        else:
            out = x1 < x2
        return self._done(out)

    def unary(self, fn: str, x: Array) -> Array:
        return self._done({"negative": lambda: -x, "abs": x.abs, "sqrt": x.sqrt}[fn]())

    def reduce(self, fn: str, x: Array, axis: int | None) -> Array:
        return self._done(getattr(x, fn)(axis=axis))

    def matmul(self, x1: Array, x2: Array) -> Array:
        return self._done(x1.matmul(x2))

    def stack(self, arrays: list[Array], axis: int) -> Array:
        if not arrays:
            raise Unsupported("tinygrad's stack needs at least one tensor")
        return self._done(arrays[0].stack(*arrays[1:], dim=axis))

    def array_device(self, x: Array) -> Device | None:
        # A sharded tensor's device is the tuple of its pieces' devices; array.describe
        # reports the first (array.shard_describe gives the tuple).
        dev = x.device
        return dev[0] if isinstance(dev, tuple) else dev

    # -- sharding: Tensor.shard, Tensor.shard_, Tensor.to with a tuple -----------------------

    def shard(self, x: Array, devices: list[Device], axis: int | None) -> Array:
        return self._done(x.shard(tuple(devices), axis=axis))

    def shard_inplace(self, x: Array, devices: list[Device], axis: int | None) -> Array:
        # shard_ replaces the tensor's data and returns the tensor itself.
        return self._done(x.shard_(tuple(devices), axis=axis))

    def shard_describe(self, x: Array) -> dict[str, Any]:
        dev = x.device
        if not isinstance(dev, tuple):
            return {"sharded": False, "devices": [dev], "axis": None, "bounds": None}
        axis = x.uop.axis
        bounds = None if axis is None else [[int(a), int(b)] for a, b in x.uop.bounds]
        return {"sharded": True, "devices": list(dev), "axis": axis, "bounds": bounds}

    def shard_piece(self, x: Array, index: int) -> Array:
        # The pieces are the buffers of the realised multi-device tensor, one per device; a
        # piece comes back as a tensor on its device holding a copy of that buffer.
        dev = x.device
        if not isinstance(dev, tuple):
            raise ValueError("array.shard_piece: the tensor is on one device (%s)" % dev)
        if not 0 <= index < len(dev):
            raise IndexError("array.shard_piece: piece %d of %d" % (index, len(dev)))
        shape = list(x.shape)
        axis = x.uop.axis
        if axis is not None:
            lo, hi = x.uop.bounds[index]
            shape[axis] = hi - lo
        if 0 in shape:
            # An empty piece has no buffer to read: it is an empty tensor on its device.
            return self._done(self.Tensor.empty(*shape, dtype=x.dtype, device=dev[index]))
        buf = x.realize().uop.buffer.bufs[index]
        # Made 1-D and reshaped, so that a 0-d piece stays a buffer on its device (a 0-d
        # tensor made from a value would be a constant with no device).
        flat = self.Tensor(buf.numpy().reshape(-1), device=buf.device)
        return self._done(flat.reshape(shape))

    def to_devices(self, x: Array, devices: list[Device]) -> Array:
        return self._done(x.to(tuple(devices)))

    def default_get(self) -> Device:
        return self.Device.canonicalize(None)

    def default_set(self, dev: Device) -> None:
        self.DEV.value = dev

    def default_unset(self) -> None:
        self.DEV.value = self.initial_dev

    def default_push(self, dev: Device) -> None:
        self.scopes.push(self.Context(DEV=dev))

    def default_pop(self) -> None:
        self.scopes.pop()
