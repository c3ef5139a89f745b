"""Ivy with its NumPy backend."""

from __future__ import annotations

from typing import Any

from ..array_api import ArrayAPIBackend
from ..backend import Array, Device, Kw, ScopeStack
from ..call import FEATURES as CALL_FEATURES
from ..errors import Unsupported


class IvyBackend(ArrayAPIBackend):
    """Ivy with its NumPy backend. Ivy's devices are ivy.Device strings; its default-device
    stack, DefaultDevice context manager, soft device mode and device utilities are Ivy's
    own functions."""

    library_name = "ivy"
    features = ("device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
                "asarray-inherits-device", "to-device", "output-follows-input",
                "mixed-device-raises", "default-device-consistent", "device-string",
                "device-string-kw", "default-device-global", "default-device-scoped",
                "soft-device-mode", "device-inference-order", "device-utils", "device-names",
                "promotion-table", "promotion-scalars", "device-keyword-only", *CALL_FEATURES)

    def __init__(self) -> None:
        import ivy
        ivy.set_backend("numpy")
        self.ivy: Any = ivy
        self.xp = ivy
        self.scopes = ScopeStack()

    def library_version(self) -> str:
        return str(self.ivy.__version__)

    def devices(self) -> list[Device]:
        # The NumPy backend has one device; Ivy lists no others for it.
        return [self.ivy.default_device()]

    def default_device(self) -> Device | None:
        return self.ivy.default_device()

    def info(self) -> Any:
        raise Unsupported("Ivy has no inspection namespace")

    def array_device(self, x: Array) -> Device | None:
        return self.ivy.dev(x)

    def array_dtype(self, x: Array) -> str:
        return str(self.ivy.dtype(x))

    def host(self, x: Array) -> Any:
        return self.ivy.to_numpy(x)

    def parse_device(self, text: str) -> Device:
        return self.ivy.Device(text)

    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        if fn in ("fftfreq", "rfftfreq"):
            raise Unsupported("Ivy has no fft.%s" % fn)
        return super().create(fn, a, kw)

    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        return self.ivy.to_device(x, dev, **kw)

    def dlpack_device(self, x: Array) -> tuple[int, int]:
        raise Unsupported("ivy.Array has no __dlpack_device__")

    def default_get(self) -> Device:
        return self.ivy.default_device()

    def default_set(self, dev: Device) -> None:
        self.ivy.set_default_device(dev)

    def default_unset(self) -> None:
        self.ivy.unset_default_device()

    def default_push(self, dev: Device) -> None:
        self.scopes.push(self.ivy.DefaultDevice(dev))

    def default_pop(self) -> None:
        self.scopes.pop()

    def soft_get(self) -> bool:
        return bool(self.ivy.soft_device_mode)

    def soft_set(self, enabled: bool) -> None:
        self.ivy.set_soft_device_mode(enabled)

    def soft_unset(self) -> None:
        self.ivy.unset_soft_device_mode()

    def num_gpus(self) -> int:
        return int(self.ivy.num_gpus())

    def num_cpu_cores(self) -> int:
        return int(self.ivy.num_cpu_cores())

    # Ivy reports memory in gigabytes (bytes / 1e9); the protocol counts bytes.
    def total_memory(self, dev: Device) -> int:
        return round(float(self.ivy.total_mem_on_dev(dev)) * 1e9)

    def used_memory(self, dev: Device) -> int:
        return round(float(self.ivy.used_mem_on_dev(dev)) * 1e9)

    def utilisation(self, dev: Device) -> float:
        return float(self.ivy.dev_util(dev))

    def arrays_on_device(self, dev: Device) -> list[Array]:
        return list(self.ivy.get_all_ivy_arrays_on_dev(dev).values())

    def reset(self) -> None:
        self.scopes.clear()
        while self.ivy.default_device_stack:
            self.ivy.unset_default_device()
        while self.ivy.soft_device_mode_stack:
            self.ivy.unset_soft_device_mode()
