"""A namespace without arange, linspace and tril, and without the dtypes uint16 and uint32:
the cases that need them are reported as lacking them, not as wrong answers."""

from __future__ import annotations

from typing import Any

from . import base_module, copy_namespace, module_level

GONE = ("arange", "linspace", "tril", "uint16", "uint32")


def namespace(base: Any = None) -> Any:
    ns = copy_namespace(base_module(base), __name__)
    for name in GONE:
        delattr(ns, name)
    return ns


__getattr__ = module_level(namespace)
