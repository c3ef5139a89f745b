"""One module per library, each importing its library only when its backend is constructed,
so that `--library NAME` loads only NAME's module and library, under any interpreter.

Feature claims: each backend claims the features of the array API version its library
declares (`__array_api_version__`), or, for a library that declares none, the features its
own documentation describes; see spec/decisions.md, "Python libraries", for each choice.
"""

from __future__ import annotations

import importlib

from ..backend import BaseBackend

# name -> (module of this package, backend class in it)
BACKENDS: dict[str, tuple[str, str]] = {
    "numpy": ("numpy", "NumPyBackend"),
    "array-api-strict": ("array_api_strict", "StrictBackend"),
    "jax": ("jax", "JaxBackend"),
    "torch": ("torch", "TorchBackend"),
    "tinygrad": ("tinygrad", "TinygradBackend"),
    "ivy": ("ivy", "IvyBackend"),
    "oneflow": ("oneflow", "OneFlowBackend"),
}


def backend_class(name: str) -> type[BaseBackend]:
    """The backend class registered as `name` (its module is imported now; its library is
    imported only when the class is instantiated)."""
    module, cls = BACKENDS[name]
    found: type[BaseBackend] = getattr(importlib.import_module("." + module, __name__), cls)
    return found
