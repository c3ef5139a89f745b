"""Any module that exposes the array API namespace: no code per library.

`devspec_adapter.py --module NAME` imports NAME (array_api_strict, numpy with NumPy 2,
array_api_compat.torch, jax.numpy, a library nobody here has tried) and drives it through
the standard's functions only. What it claims comes from the module itself: the features the
version it declares (`__array_api_version__`) makes non-optional, and the optional ones whose
functions it has (the fft extension, DLPack, dtypes that differ between the devices its
inspection namespace lists). Whatever the namespace lacks is not claimed, and an op that needs
it answers NotImplementedError (origin adapter) naming what is missing, so the runner skips
those cases with that reason.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any

from ..array_api import NEEDS_INFO, REQUIRED, ArrayAPIBackend
from ..backend import Array, Device, Kw
from ..errors import Unsupported


class NotANamespace(ImportError):
    """The module imports but is no array API namespace."""


def claimed_version(declared: str) -> str | None:
    """The version whose required features a module declaring DECLARED claims: the declared
    one, or for a later version than devspec knows, the latest devspec knows."""
    if declared in REQUIRED:
        return declared
    known = sorted(REQUIRED)
    if declared > known[-1] and declared[:4].isdigit():
        return known[-1]
    return None


class NamespaceBackend(ArrayAPIBackend):
    """The ops of an array API namespace, with its claims read from the namespace."""

    def __init__(self, module: str) -> None:
        xp = importlib.import_module(module)
        declared = getattr(xp, "__array_api_version__", None)
        if not isinstance(declared, str):
            raise NotANamespace(
                "%s has no __array_api_version__, so it is not an array API namespace (for a "
                "library that has none of its own, try its array-api-compat wrapper, e.g. "
                "array_api_compat.torch)" % module)
        self.xp = xp
        self.module = module
        self.declared = declared
        self.library_name = module
        self.has_info = callable(getattr(xp, "__array_namespace_info__", None))
        self.features = self.discover_features()

    # -- what the namespace has ----------------------------------------------------------
    def discover_features(self) -> tuple[str, ...]:
        version = claimed_version(self.declared)
        if version is None:
            sys.stderr.write("devspec_adapter: %s declares array API version %r, which devspec "
                             "does not know: no feature is claimed\n"
                             % (self.module, self.declared))
            return ()
        features = list(REQUIRED[version])
        if not self.has_info:
            features = [f for f in features if f not in NEEDS_INFO]
        fft = getattr(self.xp, "fft", None)
        if version != "2021.12" and all(hasattr(fft, f) for f in ("fftfreq", "rfftfreq")):
            features.append("fft-freq-device")
        if hasattr(self.xp, "from_dlpack") and \
                hasattr(self.xp.empty((0,)), "__dlpack_device__"):
            features.append("dlpack-device")
        if self.has_info and self.dtypes_differ_between_devices():
            features.append("dtype-device-support")
        if version >= "2023.12" and {"dl_device", "copy"} <= self.parameters(
                getattr(type(self.xp.empty((0,))), "__dlpack__", None)):
            features.append("dlpack-export")
        if "device" in self.parameters(getattr(self.xp, "zeros", None)):
            features.append("device-keyword-only")
        if self.has_info and version >= "2023.12":
            features.append("info-devices-list" if version < "2025.12" else "info-devices-tuple")
        return tuple(features)

    @staticmethod
    def parameters(f: Any) -> set[str]:
        """The parameter names of F's signature; empty when F has none that can be read (a
        function whose signature cannot be read cannot answer info.device_param)."""
        try:
            return set(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            return set()

    def dtypes_differ_between_devices(self) -> bool:
        """Whether the inspection namespace lists different dtypes for different devices."""
        info = self.info()
        seen = {frozenset(info.dtypes(device=d)) for d in self.devices()}
        return len(seen) > 1

    def need(self, name: str) -> Any:
        """The namespace's NAME, or Unsupported naming what is missing."""
        found = getattr(self.xp, name, None)
        if found is None:
            raise Unsupported("%s has no %s" % (self.module, name))
        return found

    # -- session ---------------------------------------------------------------------------
    def library_version(self) -> str:
        version = getattr(self.xp, "__version__", None)
        if version is None:
            top = sys.modules.get(self.module.split(".")[0])
            version = getattr(top, "__version__", None)
        return str(version or "unknown")

    def devices(self) -> list[Device]:
        if not self.has_info:
            return [self.default_get()]
        # JAX lists None (an uncommitted placement) among its devices: no device of its own.
        return [d for d in self.info().devices() if d is not None]

    def default_device(self) -> Device | None:
        if not self.has_info:
            return self.default_get()
        return self.info().default_device()

    def info(self) -> Any:
        if not self.has_info:
            raise Unsupported("%s has no inspection namespace (__array_namespace_info__)"
                              % self.module)
        return self.xp.__array_namespace_info__()

    # -- ops whose function the namespace may lack ----------------------------------------------
    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        if fn in ("fftfreq", "rfftfreq"):
            fft = self.need("fft")
            if getattr(fft, fn, None) is None:
                raise Unsupported("%s.fft has no %s" % (self.module, fn))
        else:
            self.need(fn)
        return super().create(fn, a, kw)

    def binary(self, fn: str, x1: Any, x2: Any) -> Array:
        return self.need(fn)(x1, x2)

    def unary(self, fn: str, x: Array) -> Array:
        return self.need(fn)(x)

    def reduce(self, fn: str, x: Array, axis: int | None) -> Array:
        return self.need(fn)(x, axis=axis)

    def from_dlpack(self, x: Array, kw: Kw) -> Array:
        return self.need("from_dlpack")(x, **kw)

    def tril(self, x: Array, k: int) -> Array:
        return self.need("tril")(x, k=k)

    def triu(self, x: Array, k: int) -> Array:
        return self.need("triu")(x, k=k)

    def can_cast(self, from_: Any, to: Any) -> bool:
        return bool(self.need("can_cast")(from_, to))

    def result_type(self, objs: list[Any]) -> Any:
        return self.need("result_type")(*objs)

    # -- reading -------------------------------------------------------------------------------
    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        """The values of x without moving it: through NumPy (by DLPack, else by NumPy's own
        conversion) where x's device allows it, else from a copy on the default device, else
        element by element through the standard's __bool__, __int__, __float__ and
        __complex__ (also where NumPy is not installed)."""
        dtype = self.array_dtype(x)
        shape = self.array_shape(x)
        h = self.to_numpy(x)
        if h is None:
            default = self.default_device()
            if default is not None and not self.device_equal(x.device, default):
                h = self.to_numpy(x.to_device(default))
        if h is None:
            return dtype, shape, self.read_elements(x, dtype)
        return dtype, tuple(int(n) for n in h.shape), h.reshape(-1).tolist()

    @staticmethod
    def to_numpy(x: Array) -> Any:
        """x as a NumPy array, or None where NumPy cannot take it."""
        try:
            import numpy
        except ImportError:
            return None
        try:
            return numpy.from_dlpack(x)
        except Exception:
            pass
        try:
            h = numpy.asarray(x)
        except Exception:
            return None
        return None if h.dtype == object else h

    def read_elements(self, x: Array, dtype: str) -> list[Any]:
        flat = self.xp.reshape(x, (-1,))
        convert: Any = bool if dtype == "bool" else int if dtype.startswith(("int", "uint")) \
            else complex if dtype.startswith("complex") else float
        return [convert(flat[i]) for i in range(int(flat.shape[0]))]
