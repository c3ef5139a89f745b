"""JAX on CPU."""

from __future__ import annotations

import os
from typing import Any

from .. import disk_cache
from ..array_api import ARRAY_API_2024, ArrayAPIBackend
from ..backend import Array, Device, GlobalArg, GlobalInfo, Piece, PlacementArg, Sbp, ScopeStack
from ..call import FEATURES as CALL_FEATURES
from ..errors import Unsupported


class JaxBackend(ArrayAPIBackend):
    """JAX on CPU. Several host devices come from
    XLA_FLAGS=--xla_force_host_platform_device_count=N (set by adapters.json)."""

    library_name = "jax"
    features: tuple[str, ...] = (
        *ARRAY_API_2024, "fft-freq-device", "dlpack-device", "priority-context-first",
        "default-device-global", "default-device-scoped", "sharding", "sharding-elementwise",
        "sharding-reduce", "sharding-gather", "dlpack-export", "device-keyword-only",
        "info-devices-list", *CALL_FEATURES)

    def __init__(self) -> None:
        bound = disk_cache.max_bytes_from_env(os.environ)
        folder = os.environ.get("JAX_COMPILATION_CACHE_DIR")
        if bound is not None and folder:
            disk_cache.prune_unless_recent(folder, bound)
        import array_api_compat
        import jax
        import jax.numpy as jnp
        # array-api-compat is how the ecosystem reaches a library's array API namespace; for
        # JAX it answers jax.numpy itself. The lookup compiles two XLA programs in every
        # worker whatever array it is shown (array-api-compat creates jnp.empty(0) itself).
        self.jax: Any = jax
        self.xp = array_api_compat.array_namespace(jnp.zeros(0))
        self.dtype_names: dict[Any, str] = {}
        self.scopes = ScopeStack()
        # reset() restores the global default the library started with (None unless the
        # user's configuration set one), never a value of the adapter's.
        self.initial_default = jax.config.jax_default_device

    def library_version(self) -> str:
        return str(self.jax.__version__)

    def devices(self) -> list[Device]:
        return list(self.jax.devices())

    def default_device(self) -> Device | None:
        return self.default_get()

    def describe_device(self, dev: Device) -> dict[str, Any]:
        return {"str": str(dev), "type": dev.platform, "index": int(dev.id)}

    def array_dtype(self, x: Array) -> str:
        # A dtype's name is computed by NumPy in Python on each access: kept per dtype.
        dt = x.dtype
        name = self.dtype_names.get(dt)
        if name is None:
            name = self.dtype_names[dt] = str(self.jax.numpy.dtype(dt).name)
        return name

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
        self.jax.config.update("jax_default_device", self.initial_default)

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

    # -- global arrays: OneFlow's placement and SBP as a Mesh and a NamedSharding ------------
    # With --ranks N, JAX's first N devices play ranks 0..N-1 in this one process (JAX's
    # devices stand for OneFlow's ranks). placement(type, ranks) is a Mesh of
    # jax.devices(type)[r] shaped as the ranks' nesting, its axes "p0" (and "p1") in the
    # placement's order, of AxisType.Explicit: the type jax.make_mesh gives by default and the
    # only one whose arrays can be unreduced. For mesh axis a, split(d) names a at array dim d
    # of the PartitionSpec, broadcast leaves a out (replicated along a), partial_sum puts a in
    # the spec's `unreduced` set (each device holds an addend of the value, summed when the
    # array is resharded). Everything else is JAX's own: its reshard, its binary operations
    # and sums with their sharding rules, its printed Mesh and PartitionSpec.
    # spec/decisions.md, "OneFlow devices and global arrays", says what does not map.

    MESH_AXES = ("p0", "p1")
    rank_devices: list[Device] | None = None

    def ranks(self) -> int | None:
        return None if self.rank_devices is None else len(self.rank_devices)

    def play_ranks(self, n: int) -> None:
        devices = list(self.jax.devices())
        if not 1 <= n <= len(devices):
            raise ValueError("--ranks %d: JAX has %d devices to play them" % (n, len(devices)))
        self.rank_devices = devices[:n]
        self.features = (*self.features, "placement", "sbp", "sbp-convert")

    def _world(self) -> int:
        if self.rank_devices is None:
            raise Unsupported("the jax adapter plays no ranks without --ranks N")
        return len(self.rank_devices)

    def _device_of_rank(self, type_: str, rank: int) -> Device:
        """Rank r of a placement of type_ is jax.devices(type_)[r]."""
        devices = self.jax.devices(type_)
        if not 0 <= rank < min(self._world(), len(devices)):
            # JAX has no ranks, only device objects: a rank with no device behind it cannot be
            # written in JAX at all, so JAX is never asked (its refusal is not observed).
            raise Unsupported("rank %d: JAX has no device for it (%d ranks play)"
                              % (rank, self._world()))
        return devices[rank]

    def _mesh(self, p: PlacementArg) -> Any:
        import numpy as np
        from jax.sharding import AxisType, Mesh
        self._world()
        nested = bool(p.ranks) and isinstance(p.ranks[0], list)
        if nested and len({len(row) for row in p.ranks}) > 1:
            # A Mesh takes an ndarray of devices: ragged rows have no such array, so the
            # request cannot be written in JAX (its refusal is not observed).
            raise Unsupported("placement ranks %s: a Mesh takes an n-dimensional array of "
                              "devices, which rows of different lengths do not make" % (p.ranks,))
        rows = p.ranks if nested else [p.ranks]
        grid = [[self._device_of_rank(p.type, r) for r in row] for row in rows]
        devices = np.array(grid if nested else grid[0], dtype=object)
        ndim = 2 if nested else 1
        return Mesh(devices, self.MESH_AXES[:ndim], axis_types=(AxisType.Explicit,) * ndim)

    def _mesh_all(self, type_: str) -> Any:
        from jax.sharding import AxisType
        devices = [self._device_of_rank(type_, r) for r in range(self._world())]
        return self.jax.make_mesh((len(devices),), self.MESH_AXES[:1],
                                  axis_types=(AxisType.Explicit,), devices=devices)

    def placement_describe(self, p: PlacementArg | None, type_: str,
                           all_: str | None) -> dict[str, Any]:
        mesh = self._mesh_all(type_) if p is None else self._mesh(p)
        flat = list(mesh.devices.flat)
        return {"str": str(mesh), "type": flat[0].platform if flat else type_,
                "shape": [int(n) for n in mesh.devices.shape]}

    def placement_equal(self, a: PlacementArg, b: PlacementArg) -> bool:
        return bool(self._mesh(a) == self._mesh(b))

    def sbp_describe(self, sbp: Sbp) -> str:
        raise Unsupported("JAX has no SBP value of its own: split and replication are "
                          "entries of an array's PartitionSpec, which names mesh axes per "
                          "array dimension")

    def _spec(self, mesh: Any, sbp: list[Sbp], ndim: int) -> Any:
        from jax.sharding import PartitionSpec
        names = mesh.axis_names
        if len(sbp) != len(names):
            # Each sbp names a mesh axis; one without an axis cannot be written in JAX.
            raise Unsupported("%d sbp values for a placement of %d dimensions: a "
                              "PartitionSpec names mesh axes, one per sbp"
                              % (len(sbp), len(names)))
        # A split beyond the array's dimensions makes the PartitionSpec longer than the
        # array, and JAX itself refuses that when the sharding meets the array.
        longest = max([ndim] + [s.dim + 1 for s in sbp if s.kind == "split"])
        parts: list[list[str]] = [[] for _ in range(longest)]
        unreduced = set()
        for name, s in zip(names, sbp, strict=True):
            if s.kind == "split":
                if s.dim < 0:
                    raise Unsupported("split(%d): a PartitionSpec has no entry for a "
                                      "negative dimension" % s.dim)
                parts[s.dim].append(name)
            elif s.kind == "partial_sum":
                unreduced.add(name)
        entries = [None if not p else p[0] if len(p) == 1 else tuple(p) for p in parts]
        if unreduced:
            return PartitionSpec(*entries, unreduced=unreduced)
        return PartitionSpec(*entries)

    def _make(self, x: GlobalArg) -> Any:
        from jax.sharding import NamedSharding
        mesh = self._mesh(x.placement)
        if x.value is not None:
            whole = self.asarray_typed(x.value, {})
            return self.jax.device_put(whole, NamedSharding(mesh, self._spec(mesh, x.sbp,
                                                                             whole.ndim)))
        assert x.locals is not None
        rows = x.placement.ranks
        ranks = [r for row in rows for r in row] if rows and isinstance(rows[0], list) else rows
        if len(x.locals) < self._world():
            raise Unsupported("%d local pieces for %d ranks: JAX takes one array per device"
                              % (len(x.locals), self._world()))
        pieces = [self.jax.device_put(self.asarray_typed(x.locals[r], {}),
                                      self._device_of_rank(x.placement.type, r))
                  for r in ranks]
        # The global shape as OneFlow infers it: a split dim is each piece's times the
        # extent of the mesh axes that split it.
        shape = list(pieces[0].shape)
        sharding = NamedSharding(mesh, self._spec(mesh, x.sbp, len(shape)))
        for name, s in zip(mesh.axis_names, x.sbp, strict=True):
            if s.kind == "split":
                shape[s.dim] *= mesh.shape[name]
        return self.jax.make_array_from_single_device_arrays(tuple(shape), sharding, pieces)

    def global_make(self, x: GlobalArg, to: list[Sbp] | None) -> Array:
        from jax.sharding import NamedSharding
        y = self._make(x)
        if to is None:
            return y
        mesh = y.sharding.mesh
        return self.jax.reshard(y, NamedSharding(mesh, self._spec(mesh, to, y.ndim)))

    def global_binary(self, fn: str, x1: GlobalArg, x2: GlobalArg) -> Array:
        a, b = self._make(x1), self._make(x2)
        with self.jax.set_mesh(a.sharding.mesh):
            return getattr(self.xp, fn)(a, b)

    def global_sum(self, x: GlobalArg, axis: int | None) -> Array:
        a = self._make(x)
        with self.jax.set_mesh(a.sharding.mesh):
            return self.xp.sum(a, axis=axis)

    def _axis_str(self, spec: Any, name: str) -> str:
        """The part of an array's PartitionSpec that concerns mesh axis `name`, printed by
        JAX: the spec one writes for that axis alone."""
        from jax.sharding import PartitionSpec

        def keep(entry: Any) -> Any:
            names = entry if isinstance(entry, tuple) else (entry,)
            return name if name in names else None
        entries = [keep(e) for e in spec.partitions]
        if name in spec.unreduced:
            return str(PartitionSpec(*entries, unreduced={name}))
        return str(PartitionSpec(*entries))

    def _piece(self, x: Array) -> Piece:
        return self.read(x)

    def global_describe(self, x: Array) -> GlobalInfo:
        from jax.sharding import NamedSharding, PartitionSpec
        sh = x.sharding
        mesh, spec = sh.mesh, sh.spec
        whole = x
        if spec.unreduced:
            # JAX reads no value of an unreduced array on the host; its value is what
            # resharding without `unreduced` (the sum over those axes) gives.
            whole = self.jax.reshard(x, NamedSharding(mesh, PartitionSpec(*spec.partitions)))
        shards = {s.device: s.data for s in x.addressable_shards}
        assert self.rank_devices is not None
        locals_ = [self._piece(shards[d]) if d in shards else None for d in self.rank_devices]
        return GlobalInfo(self.array_dtype(x), tuple(int(n) for n in x.shape), str(mesh),
                          [self._axis_str(spec, n) for n in mesh.axis_names],
                          self._piece(whole), locals_)
