"""NumPy arrays without .device and .to_device (a subclass that hides them), in a namespace
of NumPy's functions whose results are such arrays. array-api-compat's device(x) and
to_device(x, d) still work on them: measured as it is, the library lacks Array.device; with
--compat, the helpers stand in, and the report says so."""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy


class NoDeviceArray(numpy.ndarray):
    def __getattribute__(self, name: str) -> Any:
        if name in ("device", "to_device"):
            raise AttributeError("'NoDeviceArray' object has no attribute %r" % name)
        return super().__getattribute__(name)


def _wrap(value: Any) -> Any:
    if isinstance(value, numpy.ndarray) and not isinstance(value, NoDeviceArray):
        return value.view(NoDeviceArray)
    if isinstance(value, numpy.generic):
        return numpy.asarray(value).view(NoDeviceArray)
    if isinstance(value, tuple):
        return type(value)(_wrap(v) for v in value) if not hasattr(value, "_fields") \
            else type(value)(*(_wrap(v) for v in value))
    return value


def _returning(f: Any) -> Any:
    @functools.wraps(f)
    def wrapper(*args: Any, **kw: Any) -> Any:
        return _wrap(f(*args, **kw))
    return wrapper


def namespace(info: bool = True) -> Any:
    """The namespace; without INFO, with no inspection namespace either (as mlx.core in a
    namespace of two lines): no device can be listed or read from an array."""
    ns: Any = types.ModuleType(__name__)
    for key in dir(numpy):
        if key.startswith("_") and key != "__array_api_version__":
            continue
        value = getattr(numpy, key)
        is_function = callable(value) and not isinstance(value, type)
        setattr(ns, key, _returning(value) if is_function else value)
    if info:
        ns.__array_namespace_info__ = numpy.__array_namespace_info__
    for sub in ("fft", "linalg"):
        mod = types.ModuleType(__name__ + "." + sub)
        for key in dir(getattr(numpy, sub)):
            if not key.startswith("_"):
                setattr(mod, key, _returning(getattr(getattr(numpy, sub), key)))
        setattr(ns, sub, mod)
    return ns
