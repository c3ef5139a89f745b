"""A namespace whose creation functions break two rules of dtypes per device: an explicit dtype
the device does not list is silently replaced by that device's default dtype of the same kind
(DEV-DS-9 and DEV-INFO-9: the call raises instead), and a call without dtype takes the default
device's default dtypes whatever device= names (DEV-INFO-7: that device's own). Over
array-api-strict only: its no_float64 and no_x64 devices list fewer dtypes and default to
float32 (and int32)."""

from __future__ import annotations

from typing import Any

from . import base_module, copy_namespace, module_level

# The creation functions changed, and the kind of their default dtype without dtype=.
CREATE = {"zeros": "real floating", "ones": "real floating", "empty": "real floating",
          "full": "real floating", "arange": "integral", "linspace": "real floating",
          "eye": "real floating"}
KINDS = ("bool", "signed integer", "unsigned integer", "real floating", "complex floating")
DEFAULT_KEY = {"signed integer": "integral", "unsigned integer": "integral",
               "real floating": "real floating", "complex floating": "complex floating"}


def namespace(base: Any = None) -> Any:
    b = base_module(base)
    ns = copy_namespace(b, __name__)
    info = b.__array_namespace_info__()

    def lax(name: str, fn: Any) -> Any:
        def call(*args: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Any:
            if dtype is None:
                dtype = info.default_dtypes()[CREATE[name]]
                if name == "arange" and any(isinstance(a, float) for a in args):
                    dtype = info.default_dtypes()["real floating"]
            elif dtype not in info.dtypes(device=device).values():
                kind = next(k for k in KINDS if b.isdtype(dtype, k))
                dtype = info.default_dtypes(device=device)[DEFAULT_KEY.get(kind, kind)] \
                    if kind != "bool" else dtype
            return fn(*args, dtype=dtype, device=device, **kw)
        return call

    for name in CREATE:
        setattr(ns, name, lax(name, getattr(b, name)))
    return ns


__getattr__ = module_level(namespace)
