"""A namespace of 2022.12, before the inspection namespace: no __array_namespace_info__, and
no fft extension (as NumPy 1.26's numpy.array_api). Devices are found only through arrays."""

from __future__ import annotations

from typing import Any

from . import base_module, copy_namespace, module_level


def namespace(base: Any = None) -> Any:
    ns = copy_namespace(base_module(base), __name__)
    del ns.__array_namespace_info__
    if hasattr(ns, "fft"):
        del ns.fft
    ns.__array_api_version__ = "2022.12"
    return ns


__getattr__ = module_level(namespace)
