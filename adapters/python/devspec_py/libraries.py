"""One backend per library. Each imports its library when it is constructed, never before,
so that this module loads under any interpreter and `--library NAME` pays only for NAME.

Feature claims: each backend claims the features of the array API version its library
declares (`__array_api_version__`), or, for a library that declares none, the features its
own documentation describes; see spec/decisions.md, "Python libraries", for each choice.
"""

import os

from .backend import ArrayAPIBackend, Backend
from .protocol import DTYPES, Unsupported, flatten, nest

# The features that are not optional in array API 2024.12 (spec/features.json; a test checks
# this list against it). 2025.12 adds scalar-follows-array.
ARRAY_API_2024 = (
    "device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
    "asarray-inherits-device", "astype-device", "to-device", "output-follows-input",
    "mixed-device-raises", "default-device-consistent", "info-devices", "info-dtypes",
    "promotion-per-device",
)
ARRAY_API_2025 = ARRAY_API_2024 + ("scalar-follows-array",)


class _ScopeStack:
    """Entered context managers, so that default.pop and reset can leave them in order."""

    def __init__(self):
        self.entered = []

    def push(self, cm):
        cm.__enter__()
        self.entered.append(cm)

    def pop(self):
        if not self.entered:
            raise IndexError("default.pop: no scoped default device is active")
        self.entered.pop().__exit__(None, None, None)

    def clear(self):
        while self.entered:
            self.entered.pop().__exit__(None, None, None)


# ---------------------------------------------------------------------------------------

class NumPyBackend(ArrayAPIBackend):
    """NumPy 2.x: its main namespace is its array API namespace (it declares
    __array_api_version__); one device, "cpu". array-api-compat would answer its own wrapper
    module for NumPy arrays, whose behaviour is array-api-compat's, so NumPy is driven
    directly."""

    library_name = "numpy"
    features = ARRAY_API_2024 + ("fft-freq-device", "dlpack-device")

    def __init__(self):
        import numpy
        self.np = self.xp = numpy
        if int(numpy.__version__.split(".")[0]) < 2:
            raise ImportError("the numpy backend needs NumPy 2.x, found " + numpy.__version__)

    def library_version(self):
        return self.np.__version__

    def devices(self):
        return list(self.info().devices())

    def default_device(self):
        return self.info().default_device()

    def array_dtype(self, x):
        return x.dtype.name if x.dtype.name in DTYPES else str(x.dtype)


class StrictBackend(ArrayAPIBackend):
    """array-api-strict: five devices (CPU_DEVICE, device1, device2, no_float64, no_x64),
    all of them in host memory but kept apart as the standard requires."""

    library_name = "array-api-strict"
    features = ARRAY_API_2025 + ("fft-freq-device", "dlpack-device", "dtype-device-support")

    def __init__(self):
        import array_api_compat
        import array_api_strict
        # array-api-compat answers array_api_strict itself for its arrays.
        self.xp = array_api_compat.array_namespace(array_api_strict.zeros(0))

    def library_version(self):
        import array_api_strict
        return array_api_strict.__version__

    def devices(self):
        return list(self.info().devices())

    def default_device(self):
        return self.info().default_device()

    def parse_device(self, text):
        return self.xp.Device(text)

    def host(self, x):
        # Only CPU_DEVICE arrays convert to NumPy; reading is a copy to it that leaves x
        # where it is.
        import numpy
        cpu = self.info().default_device()
        return numpy.asarray(x if x.device == cpu else x.to_device(cpu))


class JaxBackend(ArrayAPIBackend):
    """JAX on CPU. Several host devices come from
    XLA_FLAGS=--xla_force_host_platform_device_count=N (set by adapters.json)."""

    library_name = "jax"
    features = ARRAY_API_2024 + ("fft-freq-device", "dlpack-device", "priority-context-first",
                                 "default-device-global", "default-device-scoped")

    def __init__(self):
        import array_api_compat
        import jax
        import jax.numpy as jnp
        # array-api-compat is how the ecosystem reaches a library's array API namespace; for
        # JAX it answers jax.numpy itself.
        self.jax, self.xp = jax, array_api_compat.array_namespace(jnp.zeros(0))
        self.scopes = _ScopeStack()

    def library_version(self):
        return self.jax.__version__

    def devices(self):
        return list(self.jax.devices())

    def default_device(self):
        return self.default_get()

    def describe_device(self, dev):
        return {"str": str(dev), "type": dev.platform, "index": int(dev.id)}

    def array_dtype(self, x):
        name = self.jax.numpy.dtype(x.dtype).name
        return name

    def default_set(self, dev):
        self.jax.config.update("jax_default_device", dev)

    def default_unset(self):
        self.jax.config.update("jax_default_device", None)

    def default_push(self, dev):
        self.scopes.push(self.jax.default_device(dev))

    def default_pop(self):
        self.scopes.pop()

    def reset(self):
        self.scopes.clear()
        self.default_unset()


class TorchBackend(Backend):
    """PyTorch through its own public API (Debian's python3-torch). torch 1.13 has no array
    API namespace; the op mapping is the one array-api-compat uses for torch (to_device is
    Tensor.to, astype is Tensor.to(dtype))."""

    library_name = "torch"
    features = ("device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
                "asarray-inherits-device", "to-device", "output-follows-input",
                "mixed-device-raises", "default-device-consistent", "fft-freq-device",
                "dlpack-device", "device-string", "device-string-kw", "device-ordinal")

    def __init__(self):
        import torch
        self.torch = torch

    def library_version(self):
        return self.torch.__version__

    def devices(self):
        # "cpu" holds data; "meta" holds shapes and dtypes only. array-api-compat lists both
        # among torch's devices, and meta follows torch's placement rules (creation,
        # Tensor.to, mixed-device errors), so it is the second device; see decisions.md.
        # DEVSPEC_TORCH_META=0 leaves it out, for a run on cpu alone.
        if os.environ.get("DEVSPEC_TORCH_META", "1") == "0":
            return [self.torch.device("cpu")]
        return [self.torch.device("cpu"), self.torch.device("meta")]

    def default_device(self):
        return self.default_get()

    def dtype(self, name):
        dt = getattr(self.torch, name, None)
        if not isinstance(dt, self.torch.dtype):
            raise Unsupported("torch %s has no dtype %s" % (self.torch.__version__, name))
        return dt

    def _kw(self, kw):
        out = dict(kw)
        if "dtype" in out:
            out["dtype"] = self.dtype(out["dtype"])
        return out

    def array_dtype(self, x):
        return self.dtype_name(x.dtype)

    def dtype_name(self, dt):
        return str(dt).replace("torch.", "")

    def can_cast(self, from_, to):
        return self.torch.can_cast(from_, to)

    def result_type(self, objs):
        return self.torch.result_type(*objs)

    def tril(self, x, k):
        return self.torch.tril(x, diagonal=k)

    def triu(self, x, k):
        return self.torch.triu(x, diagonal=k)

    # device.*
    def parse_device(self, text):
        return self.torch.device(text)

    def describe_device(self, dev):
        if isinstance(dev, str):
            dev = self.torch.device(dev)
        return {"str": str(dev), "type": dev.type, "index": dev.index}

    def device_from_type_index(self, type_, index):
        return self.torch.device(type_, index)

    def device_from_ordinal(self, ordinal):
        return self.torch.device(ordinal)

    # array.*
    def create(self, fn, a, kw):
        t = self.torch
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return getattr(t, fn)(a["shape"], **kw)
        if fn == "full":
            return t.full(a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            pos = [a["start"]] + ([a["stop"]] if "stop" in a else [])
            if "step" in a:
                if "stop" not in a:
                    pos = [0, a["start"]]
                pos.append(a["step"])
            return t.arange(*pos, **kw)
        if fn == "linspace":
            if not a["endpoint"]:
                raise Unsupported("torch.linspace has no endpoint=False")
            return t.linspace(a["start"], a["stop"], a["num"], **kw)
        if fn == "eye":
            if a["k"] != 0:
                raise Unsupported("torch.eye has no diagonal offset k")
            n_cols = a.get("n_cols")
            return t.eye(a["n_rows"], **kw) if n_cols is None else \
                t.eye(a["n_rows"], n_cols, **kw)
        if fn in ("zeros_like", "ones_like", "empty_like"):
            return getattr(t, fn)(a["x"], **kw)
        if fn == "full_like":
            return t.full_like(a["x"], a["fill_value"], **kw)
        if fn == "rfftfreq":
            return t.fft.rfftfreq(a["n"], a.get("d", 1.0), **kw)
        return t.fft.fftfreq(a["n"], a.get("d", 1.0), **kw)

    def asarray_typed(self, typed, kw):
        kw = dict(kw)
        kw["dtype"] = self.dtype(kw.get("dtype") or typed.dtype)
        if 0 in typed.shape:
            return self.torch.asarray(typed.data, **kw).reshape(typed.shape)
        return self.torch.asarray(nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value, kw):
        return self.torch.asarray(value, **self._kw(kw))

    def asarray_array(self, x, kw):
        return self.torch.asarray(x, **self._kw(kw))

    def astype(self, x, dtype, kw):
        return x.to(**self._kw(dict(kw, dtype=dtype)))

    def read(self, x):
        h = x.detach().cpu()
        return self.array_dtype(x), tuple(h.shape), h.reshape(-1).tolist()

    def to_device(self, x, dev, kw):
        if kw.get("stream") is not None:
            raise Unsupported("torch's Tensor.to takes no stream")
        return x.to(dev)

    def binary(self, fn, x1, x2):
        if fn == "maximum":
            return self.torch.maximum(x1, x2)
        if fn == "add":
            return x1 + x2
        if fn == "subtract":
            return x1 - x2
        if fn == "multiply":
            return x1 * x2
        if fn == "divide":
            return x1 / x2
        if fn == "equal":
            return x1 == x2
        return x1 < x2

    def unary(self, fn, x):
        return {"negative": self.torch.negative, "abs": self.torch.abs,
                "sqrt": self.torch.sqrt}[fn](x)

    def reduce(self, fn, x, axis):
        if fn == "sum":
            return self.torch.sum(x) if axis is None else self.torch.sum(x, dim=axis)
        return self.torch.max(x) if axis is None else self.torch.amax(x, dim=axis)

    def matmul(self, x1, x2):
        return self.torch.matmul(x1, x2)

    def stack(self, arrays, axis):
        return self.torch.stack(arrays, dim=axis)

    def dlpack_device(self, x):
        kind, index = x.__dlpack_device__()
        return int(kind), int(index)

    def from_dlpack(self, x, kw):
        return self.torch.from_dlpack(x, **kw)

    def default_get(self):
        return self.torch.empty(()).device


class TinygradBackend(Backend):
    """tinygrad: devices are canonical strings ("CPU", "CPU:1", ...). tinygrad is lazy; the
    adapter realises every result, so an error surfaces at the op that causes it rather
    than at the next read."""

    library_name = "tinygrad"
    features = ("device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
                "to-device", "output-follows-input", "mixed-device-raises",
                "default-device-consistent", "device-string", "device-string-kw",
                "default-device-global", "default-device-scoped")
    DEVICE_COUNT = 4

    def __init__(self):
        import tinygrad
        from tinygrad import Device, Tensor, dtypes
        from tinygrad.helpers import DEV, Context
        self.tinygrad, self.Device, self.Tensor, self.dtypes = tinygrad, Device, Tensor, dtypes
        self.DEV, self.Context = DEV, Context
        if Device.DEFAULT.split(":")[0] == "CPU":
            import shutil
            cc = os.environ.get("CC", "clang")
            if shutil.which(cc) is None:
                raise ImportError("tinygrad's CPU backend compiles its kernels with '%s', which "
                                  "is not installed (Debian package clang)" % cc)
        self.initial_dev = DEV.value
        self.scopes = _ScopeStack()
        self.count = int(os.environ.get("DEVSPEC_TINYGRAD_DEVICES", self.DEVICE_COUNT))
        self.names = {}
        for name in DTYPES:
            dt = getattr(dtypes, name, None)
            if dt is not None:
                self.names[name] = dt

    def library_version(self):
        try:
            from importlib.metadata import version
            return version("tinygrad")
        except Exception:
            return getattr(self.tinygrad, "__version__", "unknown")

    def devices(self):
        # The default device first, then further instances of the same backend: tinygrad
        # opens "CPU:1", "CPU:2", ... as separate devices with their own buffers.
        base = self.Device.DEFAULT.split(":")[0]
        return [self.Device.canonicalize("%s:%d" % (base, i)) for i in range(self.count)]

    def default_device(self):
        return self.Device.canonicalize(None)

    def reset(self):
        self.scopes.clear()
        self.DEV.value = self.initial_dev

    def dtype(self, name):
        if name not in self.names:
            raise Unsupported("tinygrad has no dtype %s" % name)
        return self.names[name]

    def _kw(self, kw):
        out = dict(kw)
        if "dtype" in out:
            out["dtype"] = self.dtype(out["dtype"])
        return out

    def array_dtype(self, x):
        return self.dtype_name(x.dtype)

    def dtype_name(self, dt):
        for name, mine in self.names.items():
            if dt == mine:
                return name
        return str(dt)

    def tril(self, x, k):
        return self._done(x.tril(diagonal=k))

    def triu(self, x, k):
        return self._done(x.triu(diagonal=k))

    def describe_device(self, dev):
        return {"str": dev}

    def parse_device(self, text):
        return self.Device.canonicalize(text)

    def _done(self, x):
        return x.realize()

    def create(self, fn, a, kw):
        T = self.Tensor
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return self._done(getattr(T, fn)(*a["shape"], **kw))
        if fn == "full":
            return self._done(T.full(a["shape"], a["fill_value"], **kw))
        if fn == "arange":
            pos = [a["start"]] + ([a["stop"]] if "stop" in a else [])
            if "step" in a:
                if "stop" not in a:
                    pos = [0, a["start"]]
                pos.append(a["step"])
            return self._done(T.arange(*pos, **kw))
        if fn == "linspace":
            if not a["endpoint"]:
                raise Unsupported("tinygrad's linspace has no endpoint=False")
            return self._done(T.linspace(a["start"], a["stop"], a["num"], **kw))
        if fn == "eye":
            if a["k"] != 0:
                raise Unsupported("tinygrad's eye has no diagonal offset k")
            return self._done(T.eye(a["n_rows"], a.get("n_cols"), **kw))
        if fn in ("zeros_like", "ones_like", "full_like", "empty_like"):
            x = a["x"]
            if fn == "full_like":
                return self._done(x.full_like(a["fill_value"], **kw))
            return self._done(getattr(x, fn)(**kw))
        raise Unsupported("tinygrad has no %s" % fn)

    def asarray_typed(self, typed, kw):
        kw = self._kw(kw)
        kw.setdefault("dtype", self.dtype(typed.dtype))
        kw.pop("copy", None)
        if 0 in typed.shape or not typed.shape:
            x = self.Tensor(list(typed.data), **kw).reshape(typed.shape)
        else:
            x = self.Tensor(nest(typed.data, typed.shape), **kw)
        return self._done(x)

    def asarray_scalar(self, value, kw):
        kw = self._kw(kw)
        kw.pop("copy", None)
        return self._done(self.Tensor(value, **kw))

    def astype(self, x, dtype, kw):
        if "device" in kw:
            raise Unsupported("tinygrad's cast takes no device")
        return self._done(x.cast(self.dtype(dtype)))

    def read(self, x):
        flat = x.flatten().tolist() if x.shape else [x.item()]
        return self.array_dtype(x), tuple(int(n) for n in x.shape), flatten(flat)

    def to_device(self, x, dev, kw):
        if kw.get("stream") is not None:
            raise Unsupported("tinygrad's Tensor.to takes no stream")
        return self._done(x.to(dev))

    def binary(self, fn, x1, x2):
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

    def unary(self, fn, x):
        return self._done({"negative": lambda: -x, "abs": x.abs, "sqrt": x.sqrt}[fn]())

    def reduce(self, fn, x, axis):
        return self._done(getattr(x, fn)(axis=axis))

    def matmul(self, x1, x2):
        return self._done(x1.matmul(x2))

    def stack(self, arrays, axis):
        if not arrays:
            raise Unsupported("tinygrad's stack needs at least one tensor")
        return self._done(arrays[0].stack(*arrays[1:], dim=axis))

    def default_get(self):
        return self.Device.canonicalize(None)

    def default_set(self, dev):
        self.DEV.value = dev

    def default_unset(self):
        self.DEV.value = self.initial_dev

    def default_push(self, dev):
        self.scopes.push(self.Context(DEV=dev))

    def default_pop(self):
        self.scopes.pop()


class IvyBackend(ArrayAPIBackend):
    """Ivy with its NumPy backend. Ivy's devices are ivy.Device strings; its default-device
    stack, DefaultDevice context manager, soft device mode and device utilities are Ivy's
    own functions."""

    library_name = "ivy"
    features = ("device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
                "asarray-inherits-device", "to-device", "output-follows-input",
                "mixed-device-raises", "default-device-consistent", "device-string",
                "device-string-kw", "default-device-global", "default-device-scoped",
                "soft-device-mode", "device-inference-order", "device-utils", "device-names")

    def __init__(self):
        import ivy
        ivy.set_backend("numpy")
        self.ivy = self.xp = ivy
        self.scopes = _ScopeStack()

    def library_version(self):
        return self.ivy.__version__

    def devices(self):
        # The NumPy backend has one device; Ivy lists no others for it.
        return [self.ivy.default_device()]

    def default_device(self):
        return self.ivy.default_device()

    def info(self):
        raise Unsupported("Ivy has no inspection namespace")

    def array_device(self, x):
        return self.ivy.dev(x)

    def array_dtype(self, x):
        return str(self.ivy.dtype(x))

    def host(self, x):
        return self.ivy.to_numpy(x)

    def parse_device(self, text):
        return self.ivy.Device(text)

    def create(self, fn, a, kw):
        if fn in ("fftfreq", "rfftfreq"):
            raise Unsupported("Ivy has no fft.%s" % fn)
        return super().create(fn, a, kw)

    def to_device(self, x, dev, kw):
        return self.ivy.to_device(x, dev, **kw)

    def dlpack_device(self, x):
        raise Unsupported("ivy.Array has no __dlpack_device__")

    def default_get(self):
        return self.ivy.default_device()

    def default_set(self, dev):
        self.ivy.set_default_device(dev)

    def default_unset(self):
        self.ivy.unset_default_device()

    def default_push(self, dev):
        self.scopes.push(self.ivy.DefaultDevice(dev))

    def default_pop(self):
        self.scopes.pop()

    def soft_get(self):
        return self.ivy.soft_device_mode

    def soft_set(self, enabled):
        self.ivy.set_soft_device_mode(enabled)

    def soft_unset(self):
        self.ivy.unset_soft_device_mode()

    def num_gpus(self):
        return self.ivy.num_gpus()

    def num_cpu_cores(self):
        return self.ivy.num_cpu_cores()

    # Ivy reports memory in gigabytes (bytes / 1e9); the protocol counts bytes.
    def total_memory(self, dev):
        return round(self.ivy.total_mem_on_dev(dev) * 1e9)

    def used_memory(self, dev):
        return round(self.ivy.used_mem_on_dev(dev) * 1e9)

    def utilisation(self, dev):
        return self.ivy.dev_util(dev)

    def arrays_on_device(self, dev):
        return list(self.ivy.get_all_ivy_arrays_on_dev(dev).values())

    def reset(self):
        self.scopes.clear()
        while self.ivy.default_device_stack:
            self.ivy.unset_default_device()
        while self.ivy.soft_device_mode_stack:
            self.ivy.unset_soft_device_mode()


BACKENDS = {
    "numpy": NumPyBackend,
    "array-api-strict": StrictBackend,
    "jax": JaxBackend,
    "torch": TorchBackend,
    "tinygrad": TinygradBackend,
    "ivy": IvyBackend,
}
