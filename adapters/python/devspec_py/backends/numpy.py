"""NumPy 2.x: its main namespace is its array API namespace."""

from __future__ import annotations

from typing import Any

from ..array_api import ARRAY_API_2024, ArrayAPIBackend
from ..backend import Array, Device
from ..call import FEATURES as CALL_FEATURES
from ..protocol import DTYPES


class NumPyBackend(ArrayAPIBackend):
    """NumPy 2.x: its main namespace is its array API namespace (it declares
    __array_api_version__); one device, "cpu". array-api-compat would answer its own wrapper
    module for NumPy arrays, whose behaviour is array-api-compat's, so NumPy is driven
    directly."""

    library_name = "numpy"
    features = (*ARRAY_API_2024, "fft-freq-device", "dlpack-device", "dlpack-export",
                "device-keyword-only", "info-devices-list", *CALL_FEATURES)

    def __init__(self) -> None:
        import numpy
        self.np: Any = numpy
        self.xp = numpy
        if int(numpy.__version__.split(".")[0]) < 2:
            raise ImportError("the numpy backend needs NumPy 2.x, found " + numpy.__version__)

    def library_version(self) -> str:
        return str(self.np.__version__)

    def devices(self) -> list[Device]:
        return list(self.info().devices())

    def default_device(self) -> Device | None:
        return self.info().default_device()

    def array_dtype(self, x: Array) -> str:
        name = str(x.dtype.name)
        return name if name in DTYPES else str(x.dtype)
