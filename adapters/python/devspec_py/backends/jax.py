"""JAX on CPU."""

from __future__ import annotations

from typing import Any

from ..array_api import ARRAY_API_2024, ArrayAPIBackend
from ..backend import Array, Device, ScopeStack


class JaxBackend(ArrayAPIBackend):
    """JAX on CPU. Several host devices come from
    XLA_FLAGS=--xla_force_host_platform_device_count=N (set by adapters.json)."""

    library_name = "jax"
    features = (*ARRAY_API_2024, "fft-freq-device", "dlpack-device", "priority-context-first",
                "default-device-global", "default-device-scoped")

    def __init__(self) -> None:
        import array_api_compat
        import jax
        import jax.numpy as jnp
        # array-api-compat is how the ecosystem reaches a library's array API namespace; for
        # JAX it answers jax.numpy itself.
        self.jax: Any = jax
        self.xp = array_api_compat.array_namespace(jnp.zeros(0))
        self.scopes = ScopeStack()

    def library_version(self) -> str:
        return str(self.jax.__version__)

    def devices(self) -> list[Device]:
        return list(self.jax.devices())

    def default_device(self) -> Device | None:
        return self.default_get()

    def describe_device(self, dev: Device) -> dict[str, Any]:
        return {"str": str(dev), "type": dev.platform, "index": int(dev.id)}

    def array_dtype(self, x: Array) -> str:
        return str(self.jax.numpy.dtype(x.dtype).name)

    def default_set(self, dev: Device) -> None:
        self.jax.config.update("jax_default_device", dev)

    def default_unset(self) -> None:
        self.jax.config.update("jax_default_device", None)

    def default_push(self, dev: Device) -> None:
        self.scopes.push(self.jax.default_device(dev))

    def default_pop(self) -> None:
        self.scopes.pop()

    def reset(self) -> None:
        self.scopes.clear()
        self.default_unset()
