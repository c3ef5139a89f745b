"""The backend shared by every library with an array API namespace: the ops through a
namespace `xp` (the standard's function names and keywords), so that each library's module
states only what differs. Also the features each array API version makes non-optional
(spec/features.json; a test checks these lists against it). Nothing here imports a library
except NumPy, and that only to read arrays.
"""

from __future__ import annotations

import operator
from typing import Any

from . import dlpack
from .backend import Array, BaseBackend, Device, DType, Kw
from .errors import Lacks, Unsupported
from .protocol import DTYPES
from .values import TypedArray, nest

# The features each array API version makes non-optional (spec/features.json; a test checks
# every version against it). A library that declares version V claims REQUIRED[V].
_2021 = (
    "device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
    "asarray-inherits-device", "to-device", "output-follows-input", "mixed-device-raises",
    "default-device-consistent", "promotion-table", "promotion-scalars",
)
_2023 = (*_2021, "astype-device", "info-devices", "info-dtypes")
ARRAY_API_2024 = (*_2023, "promotion-per-device")
ARRAY_API_2025 = (*ARRAY_API_2024, "scalar-follows-array")
REQUIRED: dict[str, tuple[str, ...]] = {
    "2021.12": _2021, "2022.12": _2021, "2023.12": _2023, "2024.12": ARRAY_API_2024,
    "2025.12": ARRAY_API_2025,
}
# Features that need the inspection namespace (__array_namespace_info__) to be tested.
NEEDS_INFO = ("info-devices", "info-dtypes")


# inspect's names for a parameter's kind, as info.device_param reports them.
_PARAM_KINDS = {"POSITIONAL_ONLY": "positional-only",
                "POSITIONAL_OR_KEYWORD": "positional-or-keyword",
                "VAR_POSITIONAL": "var-positional", "KEYWORD_ONLY": "keyword-only",
                "VAR_KEYWORD": "var-keyword"}


def device_param_of(f: Any) -> dict[str, Any]:
    """How F's signature takes `device`: {"kind": "keyword-only", ..., or "absent",
    "default": repr of the default or null}. A callable without a signature (a builtin) is
    NotImplementedError (origin adapter): the adapter cannot tell."""
    import inspect
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError) as e:
        raise Unsupported("the signature of %r cannot be read: %s" % (f, e)) from e
    p = sig.parameters.get("device")
    if p is None:
        var_kw = any(q.kind is inspect.Parameter.VAR_KEYWORD for q in sig.parameters.values())
        return {"kind": "var-keyword" if var_kw else "absent", "default": None}
    default = None if p.default is inspect.Parameter.empty else repr(p.default)
    return {"kind": _PARAM_KINDS[p.kind.name], "default": default}


# The operators of array.binary's functions. Before 2024.12 the standard's functions took
# arrays only, and a Python scalar met an array through an operator (x + 1, 1 + x by the
# reflected one); a library declaring such a version is driven so (spec/protocol.md, hello).
OPERATORS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
             "divide": operator.truediv, "equal": operator.eq, "less": operator.lt}
SCALARS_IN_FUNCTIONS = "2024.12"


def is_scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, complex))


class ArrayAPIBackend(BaseBackend):
    """Ops through an array API namespace `xp`, set by the subclass."""

    xp: Any = None

    def declared_version(self) -> str | None:
        version = getattr(self.xp, "__array_api_version__", None)
        return version if isinstance(version, str) else None

    def scalar_operator(self, fn: str, x1: Any, x2: Any) -> Any:
        """The operator for fn when one operand is a Python scalar and the declared version
        has no scalars in functions (before 2024.12), else None."""
        version = self.declared_version()
        if (version is None or version >= SCALARS_IN_FUNCTIONS or fn not in OPERATORS or
                not (is_scalar(x1) or is_scalar(x2))):
            return None
        return OPERATORS[fn]

    # -- dtypes: names <-> the namespace's dtype objects -----------------------------------
    def dtype(self, name: str) -> DType:
        dt = getattr(self.xp, name, None)
        if dt is None:
            raise Unsupported("%s has no dtype %s" % (self.library_name, name))
        return dt

    def dtype_name(self, dt: DType) -> str:
        for name in DTYPES:
            mine = getattr(self.xp, name, None)
            if mine is not None and dt == mine:
                return name
        return str(dt)

    def can_cast(self, from_: Any, to: DType) -> bool:
        return bool(self.xp.can_cast(from_, to))

    def result_type(self, objs: list[Any]) -> DType:
        return self.xp.result_type(*objs)

    # -- info ------------------------------------------------------------------------------
    def info(self) -> Any:
        make = getattr(self.xp, "__array_namespace_info__", None)
        if make is None:
            raise Unsupported("%s has no inspection namespace" % self.library_name)
        return make()

    def info_devices(self) -> list[Device | None]:
        return list(self.info().devices())

    def info_default_device(self) -> Device | None:
        return self.info().default_device()

    def info_default_dtypes(self, **kw: Any) -> dict[str, str]:
        d = self.info().default_dtypes(**kw)
        return {k: self.dtype_name(v) for k, v in d.items()}

    def info_dtypes(self, **kw: Any) -> list[str]:
        return list(self.info().dtypes(**kw))

    def info_devices_type(self) -> str:
        return type(self.info().devices()).__name__

    def info_capabilities(self) -> dict[str, Any]:
        caps = getattr(self.info(), "capabilities", None)
        if caps is None:
            raise Lacks("info.capabilities", "%s's inspection namespace has no capabilities()"
                        % self.library_name)
        return dict(caps())

    # -- signatures (info.device_param) ----------------------------------------------------
    def function(self, fn: str) -> Any:
        """The callable the standard names FN: a namespace function ("zeros",
        "fft.fftfreq"), an inspection-namespace method ("info.dtypes") or an array method
        ("Array.to_device")."""
        if fn.startswith("info."):
            return getattr(self.info(), fn[5:])
        if fn.startswith("Array."):
            return getattr(type(self.xp.zeros(1)), fn[6:])
        obj = self.xp
        for part in fn.split("."):
            obj = getattr(obj, part)
        return obj

    def device_param(self, fn: str) -> dict[str, Any]:
        return device_param_of(self.function(fn))

    def namespace(self) -> Any:
        return self.xp

    # -- creation -------------------------------------------------------------------------
    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        xp = self.xp
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return getattr(xp, fn)(a["shape"], **kw)
        if fn == "full":
            return xp.full(a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            pos = [a["start"]] + [a[k] for k in ("stop",) if k in a]
            if "step" in a:
                if "stop" not in a:
                    pos.append(None)
                kw["step"] = a["step"]
            return xp.arange(*pos, **kw)
        if fn == "linspace":
            return xp.linspace(a["start"], a["stop"], a["num"], endpoint=a["endpoint"], **kw)
        if fn == "eye":
            return xp.eye(a["n_rows"], a.get("n_cols"), k=a["k"], **kw)
        if fn in ("zeros_like", "ones_like", "empty_like"):
            return getattr(xp, fn)(a["x"], **kw)
        if fn == "full_like":
            return xp.full_like(a["x"], a["fill_value"], **kw)
        fft = getattr(xp, "fft", None)
        if fft is None:
            raise Unsupported("%s has no fft namespace" % self.library_name)
        if "d" in a:
            kw["d"] = a["d"]
        return getattr(fft, fn)(a["n"], **kw)

    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array:
        kw = dict(kw)
        kw["dtype"] = self.dtype(kw.get("dtype") or typed.dtype)
        if 0 in typed.shape:
            return self.xp.reshape(self.xp.asarray(typed.data, **kw), typed.shape)
        return self.xp.asarray(nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array:
        return self.xp.asarray(value, **self._kw(kw))

    def asarray_array(self, x: Array, kw: Kw) -> Array:
        return self.xp.asarray(x, **self._kw(kw))

    def astype(self, x: Array, dtype: str, kw: Kw) -> Array:
        return self.xp.astype(x, self.dtype(dtype), **kw)

    # -- reading ---------------------------------------------------------------------------
    def host(self, x: Array) -> Any:
        """x as a NumPy array (copied to host where the library needs it)."""
        import numpy
        return numpy.asarray(x)

    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        dtype = self.array_dtype(x)
        h = self.host(x)
        return dtype, tuple(int(n) for n in h.shape), h.reshape(-1).tolist()

    # -- moving and computing --------------------------------------------------------------
    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        return x.to_device(dev, **kw)

    def binary(self, fn: str, x1: Any, x2: Any) -> Array:
        op = self.scalar_operator(fn, x1, x2)
        if op is not None:
            return op(x1, x2)
        return getattr(self.xp, fn)(x1, x2)

    def unary(self, fn: str, x: Array) -> Array:
        return getattr(self.xp, fn)(x)

    def reduce(self, fn: str, x: Array, axis: int | None) -> Array:
        return getattr(self.xp, fn)(x, axis=axis)

    def matmul(self, x1: Array, x2: Array) -> Array:
        return self.xp.matmul(x1, x2)

    def stack(self, arrays: list[Array], axis: int) -> Array:
        return self.xp.stack(arrays, axis=axis)

    def dlpack_device(self, x: Array) -> tuple[int, int]:
        kind, index = x.__dlpack_device__()
        return kind, index

    def from_dlpack(self, x: Array, kw: Kw) -> Array:
        return self.xp.from_dlpack(x, **kw)

    def dlpack_export(self, x: Array, kw: Kw) -> dict[str, Any]:
        return dlpack.export(x, kw)

    # k = 0 is left to the function's default, as a case's own call of tril(x) leaves it: a
    # library that caches a compiled program by how it was called (JAX's jit keys on the
    # keywords given) would otherwise compile the same program for both.
    def tril(self, x: Array, k: int) -> Array:
        return self.xp.tril(x, k=k) if k else self.xp.tril(x)

    def triu(self, x: Array, k: int) -> Array:
        return self.xp.triu(x, k=k) if k else self.xp.triu(x)

    def default_get(self) -> Device:
        """The device a creation function uses now with device=None: asked of the library
        by creating an empty 0-d array, which is what the definition says."""
        return self.array_device(self.xp.empty(()))
