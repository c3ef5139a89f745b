"""What a backend is: `Backend`, the interface the ops call (a typing.Protocol), and
`BaseBackend`, where every op answers `Unsupported` (kind NotImplementedError, origin
"adapter"), so that a library's backend overrides what its library can express and leaves
the rest. Nothing here imports a library: the library's objects (devices, arrays, dtypes,
streams) are `Any` to the protocol layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .errors import Unsupported
from .values import TypedArray

Device = Any
Array = Any
DType = Any
Kw = dict[str, Any]


# -- the arguments of the global.* ops (OneFlow's global arrays), decoded by ops.py ----------

@dataclass(frozen=True)
class PlacementArg:
    """placement(type, ranks): ranks a flat list (a 1-D mesh) or a list of rows (2-D), as
    given; the library checks duplicates, ragged rows and ranks beyond the world."""

    type: str
    ranks: list[Any]


@dataclass(frozen=True)
class Sbp:
    """One SBP value: kind "split" (with dim), "broadcast" or "partial_sum"."""

    kind: str
    dim: int = 0


@dataclass(frozen=True)
class GlobalArg:
    """A global array to make: the whole value, or each rank's local piece (item r is rank
    r's), on placement with one sbp per placement dimension."""

    placement: PlacementArg
    sbp: list[Sbp]
    value: TypedArray | None
    locals: list[TypedArray] | None


# What a global array reports: global.make's result without `local`, plus every rank's
# local piece (None for a rank that holds no piece), pieces and value as
# (dtype, shape, flat elements), as read() gives them.
Piece = tuple[str, tuple[int, ...], list[Any]]


@dataclass(frozen=True)
class GlobalInfo:
    dtype: str
    shape: tuple[int, ...]
    placement: str
    sbp: list[str]
    value: Piece
    locals: list[Piece | None]


class Backend(Protocol):
    """The operations of one library, as the ops of spec/protocol.md need them."""

    library_name: str
    features: tuple[str, ...]

    # session
    def library_version(self) -> str: ...
    def declared_version(self) -> str | None: ...
    def holds_data(self, dev: Device) -> bool: ...
    def hello_extra(self) -> dict[str, Any]: ...
    def devices(self) -> list[Device]: ...
    def default_device(self) -> Device | None: ...
    def device_str(self, dev: Device) -> str: ...
    def reset(self) -> None: ...

    # device.*
    def parse_device(self, text: str) -> Device: ...
    def describe_device(self, dev: Device) -> dict[str, Any]: ...
    def device_equal(self, a: Device, b: Device) -> bool: ...
    def device_from_type_index(self, type_: str, index: int) -> Device: ...
    def device_from_ordinal(self, ordinal: int) -> Device: ...
    def parse_current_device(self, text: str) -> Device: ...
    def set_current_device(self, dev: Device) -> None: ...

    # info.*
    def info_devices(self) -> list[Device | None]: ...
    def info_default_device(self) -> Device | None: ...
    def info_default_dtypes(self, **kw: Any) -> dict[str, str]: ...
    def info_dtypes(self, **kw: Any) -> list[str]: ...
    def info_devices_type(self) -> str: ...
    def info_capabilities(self) -> dict[str, Any]: ...
    def device_param(self, fn: str) -> dict[str, Any]: ...
    def namespace(self) -> Any: ...
    def call_result(self, result: Any) -> Any: ...

    # array.*
    def create(self, fn: str, a: Kw, kw: Kw) -> Array: ...
    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array: ...
    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array: ...
    def asarray_array(self, x: Array, kw: Kw) -> Array: ...
    def astype(self, x: Array, dtype: str, kw: Kw) -> Array: ...
    def array_device(self, x: Array) -> Device | None: ...
    def array_dtype(self, x: Array) -> str: ...
    def array_shape(self, x: Array) -> tuple[int, ...]: ...
    def array_get_device(self, x: Array) -> int: ...
    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]: ...
    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array: ...
    def binary(self, fn: str, x1: Any, x2: Any) -> Array: ...
    def binary_into(self, fn: str, x1: Any, x2: Any, out: Array) -> None: ...
    def unary(self, fn: str, x: Array) -> Array: ...
    def reduce(self, fn: str, x: Array, axis: int | None) -> Array: ...
    def matmul(self, x1: Array, x2: Array) -> Array: ...
    def stack(self, arrays: list[Array], axis: int) -> Array: ...
    def dlpack_device(self, x: Array) -> tuple[int, int]: ...
    def from_dlpack(self, x: Array, kw: Kw) -> Array: ...
    def dlpack_export(self, x: Array, kw: Kw) -> dict[str, Any]: ...
    def tril(self, x: Array, k: int) -> Array: ...
    def triu(self, x: Array, k: int) -> Array: ...
    def default_stream(self, dev: Device) -> Any: ...

    # dtype.*
    def dtype(self, name: str) -> DType: ...
    def dtype_name(self, dt: DType) -> str: ...
    def can_cast(self, from_: Any, to: DType) -> bool: ...
    def result_type(self, objs: list[Any]) -> DType: ...
    def dtype_describe(self, name: str) -> tuple[DType, bool]: ...

    # default.*, soft.*
    def default_get(self) -> Device: ...
    def default_set(self, dev: Device) -> None: ...
    def default_unset(self) -> None: ...
    def default_push(self, dev: Device) -> None: ...
    def default_pop(self) -> None: ...
    def soft_get(self) -> bool: ...
    def soft_set(self, enabled: bool) -> None: ...
    def soft_unset(self) -> None: ...

    # util.*
    def num_gpus(self) -> int: ...
    def num_cpu_cores(self) -> int: ...
    def total_memory(self, dev: Device) -> int: ...
    def used_memory(self, dev: Device) -> int: ...
    def utilisation(self, dev: Device) -> float: ...
    def arrays_on_device(self, dev: Device) -> list[Array]: ...

    # sharding over a tuple of devices (tinygrad's shard, shard_ and to)
    def shard(self, x: Array, devices: list[Device], axis: int | None) -> Array: ...
    def shard_inplace(self, x: Array, devices: list[Device], axis: int | None) -> Array: ...
    def shard_describe(self, x: Array) -> dict[str, Any]: ...
    def shard_piece(self, x: Array, index: int) -> Array: ...
    def to_devices(self, x: Array, devices: list[Device]) -> Array: ...

    # global.* (OneFlow's placement, SBP and global arrays), for a backend playing ranks
    def ranks(self) -> int | None: ...
    def play_ranks(self, n: int) -> None: ...
    def placement_describe(self, p: PlacementArg | None, type_: str,
                           all_: str | None) -> dict[str, Any]: ...
    def placement_equal(self, a: PlacementArg, b: PlacementArg) -> bool: ...
    def sbp_describe(self, sbp: Sbp) -> str: ...
    def global_make(self, x: GlobalArg, to: list[Sbp] | None) -> Array: ...
    def global_binary(self, fn: str, x1: GlobalArg, x2: GlobalArg) -> Array: ...
    def global_sum(self, x: GlobalArg, axis: int | None) -> Array: ...
    def global_describe(self, x: Array) -> GlobalInfo: ...


class BaseBackend:
    """A backend that can express nothing: each op answers Unsupported. Subclasses override
    what their library can do."""

    library_name = "?"
    features: tuple[str, ...] = ()

    # -- session --------------------------------------------------------------------------
    def library_version(self) -> str:
        raise NotImplementedError

    def holds_data(self, dev: Device) -> bool:
        """Whether arrays on dev hold elements that can be read back (False: a device for
        shapes and placement only, such as torch's meta; hello's devices_without_data)."""
        return True

    def declared_version(self) -> str | None:
        """The version of the array API standard the library declares (hello's
        library.array_api_version), or None when it declares none."""
        return None

    def hello_extra(self) -> dict[str, Any]:
        """What hello adds for the report's header (spec/protocol.md, "Session"): "notes",
        "claims", "excluded_devices", and "wrapper" (library.wrapper); none by default."""
        return {}

    def devices(self) -> list[Device]:
        """Every device the library can use now, in its own order."""
        raise NotImplementedError

    def default_device(self) -> Device | None:
        return None

    def device_str(self, dev: Device) -> str:
        return str(dev)

    def reset(self) -> None:
        """Restore the global default, pop every scoped default, unset soft mode."""

    # -- device.* -------------------------------------------------------------------------
    def parse_device(self, text: str) -> Device:
        raise Unsupported("%s has no device object built from a string" % self.library_name)

    def describe_device(self, dev: Device) -> dict[str, Any]:
        return {"str": str(dev)}

    def device_equal(self, a: Device, b: Device) -> bool:
        return bool(a == b)

    def device_from_type_index(self, type_: str, index: int) -> Device:
        raise Unsupported("%s builds no device from (type, index)" % self.library_name)

    def device_from_ordinal(self, ordinal: int) -> Device:
        raise Unsupported("%s builds no device from an integer ordinal" % self.library_name)

    def parse_current_device(self, text: str) -> Device:
        raise Unsupported("%s has no device whose index follows the current device of its "
                          "type" % self.library_name)

    def set_current_device(self, dev: Device) -> None:
        raise Unsupported("%s has no current device per type to set" % self.library_name)

    # -- info.* ---------------------------------------------------------------------------
    def info_devices(self) -> list[Device | None]:
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_default_device(self) -> Device | None:
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_default_dtypes(self, **kw: Any) -> dict[str, str]:
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_dtypes(self, **kw: Any) -> list[str]:
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_devices_type(self) -> str:
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_capabilities(self) -> dict[str, Any]:
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def device_param(self, fn: str) -> dict[str, Any]:
        raise Unsupported("%s's functions cannot be introspected" % self.library_name)

    def namespace(self) -> Any:
        """The module whose attributes are the standard's functions (`call`)."""
        raise Unsupported("%s has no namespace of the standard's functions" % self.library_name)

    def call_result(self, result: Any) -> Any:
        """The result of a generic call as it is answered: a lazy library's arrays are
        computed here (tinygrad), so that its error is the call's and not a later read's."""
        return result

    # -- array.* --------------------------------------------------------------------------
    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        raise Unsupported("array.create")

    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array:
        raise Unsupported("array.asarray")

    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array:
        raise Unsupported("array.asarray of a scalar")

    def asarray_array(self, x: Array, kw: Kw) -> Array:
        raise Unsupported("array.asarray of an array")

    def astype(self, x: Array, dtype: str, kw: Kw) -> Array:
        raise Unsupported("array.astype")

    def array_device(self, x: Array) -> Device | None:
        return x.device

    def array_dtype(self, x: Array) -> str:
        return self.dtype_name(x.dtype)

    def array_shape(self, x: Array) -> tuple[int, ...]:
        return tuple(int(n) for n in x.shape)

    def array_get_device(self, x: Array) -> int:
        raise Unsupported("%s arrays have no get_device()" % self.library_name)

    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        """(dtype name, shape, flat elements as Python scalars), without moving x."""
        raise NotImplementedError

    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        raise Unsupported("%s arrays have no to_device" % self.library_name)

    def binary(self, fn: str, x1: Any, x2: Any) -> Array:
        raise Unsupported("array.binary")

    def binary_into(self, fn: str, x1: Any, x2: Any, out: Array) -> None:
        raise Unsupported("%s has no out= for %s" % (self.library_name, fn))

    def unary(self, fn: str, x: Array) -> Array:
        raise Unsupported("array.unary")

    def reduce(self, fn: str, x: Array, axis: int | None) -> Array:
        raise Unsupported("array.reduce")

    def matmul(self, x1: Array, x2: Array) -> Array:
        raise Unsupported("array.matmul")

    def stack(self, arrays: list[Array], axis: int) -> Array:
        raise Unsupported("array.stack")

    def dlpack_device(self, x: Array) -> tuple[int, int]:
        raise Unsupported("%s arrays have no __dlpack_device__" % self.library_name)

    def from_dlpack(self, x: Array, kw: Kw) -> Array:
        raise Unsupported("%s has no from_dlpack" % self.library_name)

    def dlpack_export(self, x: Array, kw: Kw) -> dict[str, Any]:
        raise Unsupported("%s arrays have no __dlpack__" % self.library_name)

    def tril(self, x: Array, k: int) -> Array:
        raise Unsupported("%s has no tril" % self.library_name)

    def triu(self, x: Array, k: int) -> Array:
        raise Unsupported("%s has no triu" % self.library_name)

    def default_stream(self, dev: Device) -> Any:
        raise Unsupported("%s has no stream objects for its devices" % self.library_name)

    # -- dtype.* --------------------------------------------------------------------------
    def dtype(self, name: str) -> DType:
        raise Unsupported("%s has no dtype %s" % (self.library_name, name))

    def dtype_name(self, dt: DType) -> str:
        return str(dt)

    @staticmethod
    def _arange_positional(a: Kw) -> list[Any]:
        """arange's start, stop and step as positional arguments, for a library whose arange
        takes them so: a step with no stop counts from 0 to start."""
        pos = [a["start"]] + ([a["stop"]] if "stop" in a else [])
        if "step" in a:
            if "stop" not in a:
                pos = [0, a["start"]]
            pos.append(a["step"])
        return pos

    def _kw(self, kw: Kw) -> Kw:
        """kw with its dtype name, if any, made the library's dtype."""
        out = dict(kw)
        if "dtype" in out:
            out["dtype"] = self.dtype(out["dtype"])
        return out

    def can_cast(self, from_: Any, to: DType) -> bool:
        raise Unsupported("%s has no can_cast" % self.library_name)

    def result_type(self, objs: list[Any]) -> DType:
        raise Unsupported("%s has no result_type" % self.library_name)

    def dtype_describe(self, name: str) -> tuple[DType, bool]:
        raise Unsupported("%s has no dtype spellings to describe" % self.library_name)

    # -- default.*, soft.* ----------------------------------------------------------------
    def default_get(self) -> Device:
        raise Unsupported("default.get")

    def default_set(self, dev: Device) -> None:
        raise Unsupported("%s has no settable global default device" % self.library_name)

    def default_unset(self) -> None:
        raise Unsupported("%s has no settable global default device" % self.library_name)

    def default_push(self, dev: Device) -> None:
        raise Unsupported("%s has no scoped default device" % self.library_name)

    def default_pop(self) -> None:
        raise Unsupported("%s has no scoped default device" % self.library_name)

    def soft_get(self) -> bool:
        raise Unsupported("%s has no soft device mode" % self.library_name)

    def soft_set(self, enabled: bool) -> None:
        raise Unsupported("%s has no soft device mode" % self.library_name)

    def soft_unset(self) -> None:
        raise Unsupported("%s has no soft device mode" % self.library_name)

    # -- util.* ---------------------------------------------------------------------------
    def num_gpus(self) -> int:
        raise Unsupported("%s has no device utilities" % self.library_name)

    def num_cpu_cores(self) -> int:
        raise Unsupported("%s has no device utilities" % self.library_name)

    def total_memory(self, dev: Device) -> int:
        raise Unsupported("%s has no device utilities" % self.library_name)

    def used_memory(self, dev: Device) -> int:
        raise Unsupported("%s has no device utilities" % self.library_name)

    def utilisation(self, dev: Device) -> float:
        raise Unsupported("%s has no device utilities" % self.library_name)

    def arrays_on_device(self, dev: Device) -> list[Array]:
        raise Unsupported("%s cannot list the arrays alive on a device" % self.library_name)

    def shard(self, x: Array, devices: list[Device], axis: int | None) -> Array:
        raise Unsupported("%s cannot shard an array over devices" % self.library_name)

    def shard_inplace(self, x: Array, devices: list[Device], axis: int | None) -> Array:
        raise Unsupported("%s cannot shard an array in place" % self.library_name)

    def shard_describe(self, x: Array) -> dict[str, Any]:
        raise Unsupported("%s has no sharded arrays" % self.library_name)

    def shard_piece(self, x: Array, index: int) -> Array:
        raise Unsupported("%s has no sharded arrays" % self.library_name)

    def to_devices(self, x: Array, devices: list[Device]) -> Array:
        raise Unsupported("%s cannot move an array to a tuple of devices" % self.library_name)

    # -- global.* -------------------------------------------------------------------------
    # A backend plays ranks only when the command line asks (--ranks N) and its library has
    # global arrays; then hello says "ranks": N and the global ops answer per rank.
    def ranks(self) -> int | None:
        """How many ranks this backend plays, or None when it plays none (one process of
        one rank: hello says nothing of ranks)."""
        return None

    def play_ranks(self, n: int) -> None:
        raise Unsupported("%s has no global arrays over ranks" % self.library_name)

    def placement_describe(self, p: PlacementArg | None, type_: str,
                           all_: str | None) -> dict[str, Any]:
        raise Unsupported("%s has no placement over ranks" % self.library_name)

    def placement_equal(self, a: PlacementArg, b: PlacementArg) -> bool:
        raise Unsupported("%s has no placement over ranks" % self.library_name)

    def sbp_describe(self, sbp: Sbp) -> str:
        raise Unsupported("%s has no SBP values" % self.library_name)

    def global_make(self, x: GlobalArg, to: list[Sbp] | None) -> Array:
        raise Unsupported("%s has no global arrays over ranks" % self.library_name)

    def global_binary(self, fn: str, x1: GlobalArg, x2: GlobalArg) -> Array:
        raise Unsupported("%s has no global arrays over ranks" % self.library_name)

    def global_sum(self, x: GlobalArg, axis: int | None) -> Array:
        raise Unsupported("%s has no global arrays over ranks" % self.library_name)

    def global_describe(self, x: Array) -> GlobalInfo:
        raise Unsupported("%s has no global arrays over ranks" % self.library_name)


class ScopeStack:
    """Entered context managers, so that default.pop and reset can leave them in order."""

    def __init__(self) -> None:
        self.entered: list[Any] = []

    def push(self, cm: Any) -> None:
        cm.__enter__()
        self.entered.append(cm)

    def pop(self) -> None:
        if not self.entered:
            # A context manager cannot be left before it is entered: the library is never
            # asked, so no error of its own can be reported for this request.
            raise Unsupported("default.pop with no scope active: the library's scope is a "
                              "context manager, which cannot be left before it is entered")
        self.entered.pop().__exit__(None, None, None)

    def clear(self) -> None:
        while self.entered:
            self.entered.pop().__exit__(None, None, None)
