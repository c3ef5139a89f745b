"""Arrays whose __array_namespace__() returns a namespace that declares no array API version
(as mlx.core's do): NumPy's functions, wrapped so that their arrays answer with this module,
which has no __array_api_version__."""

from __future__ import annotations

import sys
from typing import Any

import numpy


class UnversionedArray(numpy.ndarray):
    def __array_namespace__(self, api_version: str | None = None) -> Any:
        return sys.modules[__name__]


def asarray(obj: Any, **kw: Any) -> Any:
    return numpy.asarray(obj, **kw).view(UnversionedArray)


def zeros(shape: Any, **kw: Any) -> Any:
    return numpy.zeros(shape, **kw).view(UnversionedArray)
