"""array-api-strict, the standard's strict reference implementation."""

from __future__ import annotations

from typing import Any

from ..array_api import ARRAY_API_2025, ArrayAPIBackend
from ..backend import Array, Device
from ..call import FEATURES as CALL_FEATURES


class StrictBackend(ArrayAPIBackend):
    """array-api-strict: five devices (CPU_DEVICE, device1, device2, no_float64, no_x64),
    all of them in host memory but kept apart as the standard requires."""

    library_name = "array-api-strict"
    features = (*ARRAY_API_2025, "fft-freq-device", "dlpack-device", "dtype-device-support",
                "dlpack-export", "device-keyword-only", "info-devices-tuple", *CALL_FEATURES)

    def __init__(self) -> None:
        import array_api_compat
        import array_api_strict
        self.strict: Any = array_api_strict
        # array-api-compat answers array_api_strict itself for its arrays.
        self.xp = array_api_compat.array_namespace(array_api_strict.zeros(0))

    def library_version(self) -> str:
        return str(self.strict.__version__)

    def devices(self) -> list[Device]:
        return list(self.info().devices())

    def default_device(self) -> Device | None:
        return self.info().default_device()

    def parse_device(self, text: str) -> Device:
        return self.xp.Device(text)

    def host(self, x: Array) -> Any:
        # Only CPU_DEVICE arrays convert to NumPy; reading is a copy to it that leaves x
        # where it is.
        import numpy
        cpu = self.info().default_device()
        return numpy.asarray(x if x.device == cpu else x.to_device(cpu))
