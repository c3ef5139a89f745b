"""A zoo of small array API namespaces, one per pattern that a library nobody here has tried
shows (test_zoo.py runs the whole suite against each through `python:SPEC` and checks the
verdicts). Each is built over a real namespace, NumPy or array-api-strict, named as the
factory's argument (`python:zoo.missing:namespace(numpy)`) or by the variable ZOO_BASE
(default array_api_strict) for the module itself (`python:zoo.missing`). Deliberately
misbehaving namespaces: test fixtures, not models of any library.

- missing: no arange, linspace, tril, uint16, uint32 (the LACKS verdict).
- dtypes_kind: the inspection namespace's dtypes() requires kind (an isolated probe).
- holder: no namespace itself; one as the attribute `xp` and from the function `namespace`
  (MODULE.attr, MODULE:FACTORY, and the hint for MODULE).
- arrays_only: only asarray and zeros; the namespace is the arrays' __array_namespace__().
- bad_device: lists a device "meta" on which no array can be created (device checks).
- slow_first: asarray and add sleep on their first call, as a JIT compiles (warm-up).
- no_device: NumPy arrays without .device and .to_device; array-api-compat's helpers work
  (--compat); over NumPy only.
- renamed: zeros names its device parameter dev (a misnamed parameter).
- no_info: a namespace of 2022.12 with no inspection namespace and no fft (devices found
  through arrays only, as in NumPy 1.26's numpy.array_api).
- lax_dtypes: creation gives a dtype its device does not list that device's default instead
  of raising, and without dtype uses the default device's defaults (over array-api-strict).
"""

from __future__ import annotations

import importlib
import os
import types
from typing import Any

# Dunder names a copied namespace keeps.
_KEEP = ("__array_api_version__", "__array_namespace_info__")


def base_module(base: Any = None) -> Any:
    """The namespace to build over: BASE (a module or its name), else ZOO_BASE."""
    if base is None:
        base = os.environ.get("ZOO_BASE", "array_api_strict")
    return importlib.import_module(base) if isinstance(base, str) else base


def copy_namespace(base: Any, name: str) -> Any:
    """A module holding every public name of BASE and its __array_api_version__ and
    __array_namespace_info__: the same namespace under another module."""
    ns = types.ModuleType(name)
    for key in dir(base):
        if key.startswith("_") and key not in _KEEP:
            continue
        setattr(ns, key, getattr(base, key))
    for sub in ("fft", "linalg"):  # extensions that dir() does not list (a module __getattr__)
        if not hasattr(ns, sub) and hasattr(base, sub):
            setattr(ns, sub, getattr(base, sub))
    return ns


def module_level(factory: Any) -> Any:
    """A module __getattr__ (PEP 562) that makes a fixture module the namespace FACTORY()
    builds over ZOO_BASE, so that `python:zoo.NAME` is a plain module namespace as well as
    `python:zoo.NAME:namespace(BASE)`."""
    made: list[Any] = []

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name not in _KEEP:
            raise AttributeError(name)
        if not made:
            made.append(factory())
        return getattr(made[0], name)
    return __getattr__


class Info:
    """An inspection namespace that forwards to BASE's, for fixtures to override."""

    def __init__(self, base: Any) -> None:
        self.base = base.__array_namespace_info__()

    def capabilities(self) -> Any:
        return self.base.capabilities()

    def default_device(self) -> Any:
        return self.base.default_device()

    def devices(self) -> Any:
        return self.base.devices()

    def default_dtypes(self, *, device: Any = None) -> Any:
        return self.base.default_dtypes(device=device)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> Any:
        return self.base.dtypes(device=device, kind=kind)
