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
                "default-device-global", "default-device-scoped", "sharding",
                "sharding-elementwise", "sharding-reduce", "sharding-gather", "dlpack-export",
                "device-keyword-only", "info-devices-list")

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

    # -- sharding: NamedSharding over a one-axis Mesh of the given devices -------------------
    # A split along axis a is the PartitionSpec with the mesh axis at position a; no axis is
    # the empty PartitionSpec (replicated). jax.device_put does the placing and moving.

    MESH_AXIS = "devices"

    def _sharding(self, devices: list[Device], axis: int | None, ndim: int) -> Any:
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        spec: list[str | None] = [None] * ndim
        if axis is not None:
            if not -ndim <= axis < ndim:
                raise IndexError("axis %d is out of range for %d dimensions" % (axis, ndim))
            spec[axis % ndim] = self.MESH_AXIS
        mesh = Mesh(np.array(devices, dtype=object), (self.MESH_AXIS,))
        return NamedSharding(mesh, PartitionSpec(*spec))

    def _layout(self, x: Array) -> tuple[list[Device], int | None] | None:
        """The device tuple and split axis of an array on a one-axis mesh; None for an array
        on one device."""
        from jax.sharding import NamedSharding
        sh = x.sharding
        if not isinstance(sh, NamedSharding) or len(x.devices()) < 2:
            return None
        devices = list(sh.mesh.devices.flat)
        axis = None
        for i, part in enumerate(sh.spec):
            if part is not None:
                axis = i
        return devices, axis

    def array_device(self, x: Array) -> Device | None:
        layout = self._layout(x)
        return layout[0][0] if layout else super().array_device(x)

    def shard(self, x: Array, devices: list[Device], axis: int | None) -> Array:
        return self.jax.device_put(x, self._sharding(devices, axis, x.ndim))

    def shard_describe(self, x: Array) -> dict[str, Any]:
        layout = self._layout(x)
        if layout is None:
            return {"sharded": False, "devices": [super().array_device(x)], "axis": None,
                    "bounds": None}
        devices, axis = layout
        bounds = None
        if axis is not None:
            starts = {s.device: s.index[axis] for s in x.addressable_shards}
            bounds = [[int(starts[d].start or 0),
                       int(x.shape[axis] if starts[d].stop is None else starts[d].stop)]
                      for d in devices]
        return {"sharded": True, "devices": devices, "axis": axis, "bounds": bounds}

    def shard_piece(self, x: Array, index: int) -> Array:
        layout = self._layout(x)
        if layout is None:
            raise ValueError("array.shard_piece: the array is on one device")
        devices = layout[0]
        if not 0 <= index < len(devices):
            raise IndexError("array.shard_piece: piece %d of %d" % (index, len(devices)))
        for s in x.addressable_shards:
            if s.device == devices[index]:
                return s.data
        raise ValueError("array.shard_piece: no shard on %s" % devices[index])

    def to_devices(self, x: Array, devices: list[Device]) -> Array:
        layout = self._layout(x)
        axis = layout[1] if layout else None
        return self.jax.device_put(x, self._sharding(devices, axis, x.ndim))
