"""OneFlow 0.9.0 through its own public API, on its own Python 3.10 environment
(scripts/setup-oneflow.sh): locally in one process, and as one rank of a global job when
devspec-adapter-mpi-host starts it with WORLD_SIZE, RANK and the rest set (--ranks N, or one
process per MPI rank under mpirun)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from ..backend import (
    Array,
    Backend,
    Device,
    DType,
    GlobalArg,
    GlobalInfo,
    Kw,
    Piece,
    PlacementArg,
    Sbp,
)
from ..call import FEATURES as CALL_FEATURES
from ..errors import Lacks, Unsupported
from ..values import TypedArray, nest
from .torchlike import TorchLikeBackend

# What OneFlow's documentation (the seed) describes and the one-process adapter claims. No
# array API namespace (so no asarray), no fft, no __dlpack__ on tensors (0.9.0): none of
# their features.
LOCAL_FEATURES = (
    "device-attr", "device-eq", "creation-device-kw", "like-inherits-device", "to-device",
    "output-follows-input", "mixed-device-raises", "default-device-consistent",
    "device-string-kw", "device-ordinal", "device-current-of-type", "promotion-category",
    "out-casting", "dtype-names", "float16", *CALL_FEATURES)
# What one rank of a global job claims: the global arrays only. The local features are the
# one-process adapter's to judge; on N ranks they would run N times as long to say the same
# (spec/decisions.md, "OneFlow devices and global arrays", OneFlow itself).
RANK_FEATURES = ("placement", "sbp", "sbp-convert")


def _observed(method: Callable[..., Any]) -> Callable[..., Any]:
    """`method`, then a wait until OneFlow's virtual machine has run every instruction it was
    given (OneFlowBackend.wait), whether the method returned or raised; within another
    operation (the backend calling itself) the outer one waits."""
    @functools.wraps(method)
    def observed(self: OneFlowBackend, *args: Any, **kw: Any) -> Any:
        self.depth += 1
        try:
            return method(self, *args, **kw)
        finally:
            self.depth -= 1
            if not self.depth:
                self.wait()
    return observed


def _each_call_waits(cls: type[OneFlowBackend]) -> type[OneFlowBackend]:
    """Every operation of the Backend protocol on `cls` waits for OneFlow's work before it
    returns (spec/decisions.md, "OneFlow itself" 13)."""
    for name, value in vars(Backend).items():
        if callable(value) and not name.startswith("_"):
            setattr(cls, name, _observed(getattr(cls, name)))
    return cls


@_each_call_waits
class OneFlowBackend(TorchLikeBackend):
    """OneFlow, which copies much of torch's API: TorchLikeBackend's mapping, shared with the
    torch backend, where OneFlow has the same function; OneFlow's own where it differs (no
    out=, no asarray, no fft), and what it lacks answers lacks."""

    library_name = "oneflow"
    features: tuple[str, ...] = LOCAL_FEATURES
    depth = 0  # operations in progress (_observed)

    def __init__(self) -> None:
        # A rank of a global job (started with OneFlow's rank variables) or one process;
        # read before the import, which sets WORLD_SIZE and RANK of a process of one rank.
        world = os.environ.get("WORLD_SIZE")
        self.world = int(world) if world else None
        self.rank = int(os.environ.get("RANK", "0"))
        import oneflow
        self.flow: Any = oneflow
        self.lib = oneflow
        if self.world is not None:
            self.features = RANK_FEATURES

    def library_version(self) -> str:
        return str(self.flow.__version__)

    def wait(self) -> None:
        # OneFlow's eager ops only enqueue their kernels on its virtual machine, whose threads
        # run them after the call has returned: a kernel's fault (sort of an empty tensor's
        # SIGFPE) would strike during whatever request comes next. eager.Sync waits until
        # every instruction given so far has run, as a user who synchronises does (OneFlow's
        # own cuda.synchronize calls it first), and changes nothing of OneFlow's. It is local
        # to the process, so a rank of a global job waits for its own work only. Every
        # operation of this backend ends here (_each_call_waits), the generic call's
        # call_result included, so a fault is its request's.
        self.flow._oneflow_internal.eager.Sync()

    # -- device names: devspec's gpu is OneFlow's cuda ---------------------------------------
    # spec/decisions.md ("OneFlow devices", the accelerator): adapters translate device type
    # names, so a case's "gpu:1" reaches OneFlow as "cuda:1" and OneFlow's "cuda" is reported
    # as type "gpu"; the device's str stays OneFlow's own ("cuda:1"), as the library names it.
    # Only the type name is translated: the index and everything else reach OneFlow as given
    # (so "gpu:-1" is OneFlow's "cuda:-1", which it takes for cuda:0).

    @staticmethod
    def _to_flow(text: str) -> str:
        kind, colon, rest = text.partition(":")
        return ("cuda" if kind == "gpu" else kind) + colon + rest

    def parse_device(self, text: str) -> Device:
        return self.flow.device(self._to_flow(text))

    def parse_current_device(self, text: str) -> Device:
        return self.flow.device(self._to_flow(text))

    def device_from_type_index(self, type_: str, index: int) -> Device:
        return self.flow.device(self._to_flow(type_), index)

    def _kw(self, kw: Kw) -> Kw:
        out = super()._kw(kw)
        if isinstance(out.get("device"), str):  # a device= string of the case's
            out["device"] = self._to_flow(out["device"])
        return out

    def describe_device(self, dev: Device) -> dict[str, Any]:
        described = super().describe_device(dev)
        if described["type"] == "cuda":
            described["type"] = "gpu"
        return described

    def devices(self) -> list[Device]:
        # OneFlow keeps CPU devices apart by index (any index makes tensors; tensors on cpu:0
        # and cpu:1 refuse to mix), so two of them give the mixed-device cases a second
        # device; CUDA devices where a driver is present (without one, a tensor on cuda
        # aborts the process). See decisions.md, "OneFlow devices and global arrays".
        flow = self.flow
        found = [flow.device("cpu", 0), flow.device("cpu", 1)]
        if flow.cuda.is_available():
            found += [flow.device("cuda", i) for i in range(flow.cuda.device_count())]
        return found

    def default_get(self) -> Device:
        return self.flow.zeros(()).device

    def dtype(self, name: str) -> DType:
        dt = getattr(self.flow, name, None)
        if not isinstance(dt, self.flow.dtype):
            raise Lacks("dtype " + name, "oneflow %s has no dtype %s"
                        % (self.flow.__version__, name))
        return dt

    # -- array.* --------------------------------------------------------------------------
    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        flow = self.flow
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return getattr(flow, fn)(a["shape"], **kw)
        if fn == "full":
            return flow.full(a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            return flow.arange(*self._arange_positional(a), **kw)
        if fn == "linspace":
            if not a["endpoint"]:
                raise Lacks("linspace(endpoint=)", "oneflow.linspace has no endpoint")
            return flow.linspace(a["start"], a["stop"], a["num"], **kw)
        if fn == "eye":
            if a["k"] != 0:
                raise Lacks("eye(k=)", "oneflow.eye has no diagonal offset k")
            n_cols = a.get("n_cols")
            return flow.eye(a["n_rows"], **kw) if n_cols is None else \
                flow.eye(a["n_rows"], n_cols, **kw)
        if fn in ("zeros_like", "ones_like", "empty_like"):
            return getattr(flow, fn)(a["x"], **kw)
        if fn == "full_like":
            return flow.full_like(a["x"], a["fill_value"], **kw)
        raise Lacks("fft." + fn, "oneflow %s has no fft namespace" % flow.__version__)

    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array:
        kw = dict(kw)
        kw["dtype"] = self.dtype(kw.get("dtype") or typed.dtype)
        if 0 in typed.shape:
            return self.flow.tensor(typed.data, **kw).reshape(typed.shape)
        return self.flow.tensor(nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array:
        return self.flow.tensor(value, **self._kw(kw))

    def asarray_array(self, x: Array, kw: Kw) -> Array:
        # OneFlow has no asarray; as_tensor is its conversion that keeps a tensor as it is
        # where dtype and device allow, and it takes no copy=.
        if "copy" in kw:
            raise Lacks("asarray(copy=)", "oneflow.as_tensor takes no copy")
        return self.flow.as_tensor(x, **self._kw(kw))

    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        h = x.detach().cpu()
        return self.array_dtype(x), tuple(int(n) for n in h.shape), h.numpy().reshape(-1).tolist()

    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        if kw.get("stream") is not None:
            raise Lacks("Array.to_device(stream=)", "oneflow's Tensor.to takes no stream")
        return x.to(dev)

    def binary_into(self, fn: str, x1: Any, x2: Any, out: Array) -> None:
        # OneFlow's arithmetic takes no out=; the in-place operators are its only way to
        # write a result into an existing tensor, and they are what OF-OUT-3 shows.
        if out is not x1:
            raise Lacks(fn + "(out=)", "oneflow %s's %s takes no out= (only the in-place "
                        "operator writes into an existing tensor)" % (self.flow.__version__, fn))
        if fn == "add":
            x1 += x2
        elif fn == "subtract":
            x1 -= x2
        elif fn == "multiply":
            x1 *= x2
        else:
            x1 /= x2

    # -- global arrays: each process is one rank ---------------------------------------------
    # devspec-adapter-mpi-host starts N processes of this adapter with OneFlow's rank
    # variables; every rank executes every request, so each global op runs its
    # collectives on all ranks at once, and each rank answers its own local piece (the host
    # merges the replies). OneFlow's own placement, sbp, to_global and operators do the work.

    def _placement(self, p: PlacementArg) -> Any:
        return self.flow.placement(p.type, p.ranks)

    def _sbp(self, s: Sbp) -> Any:
        sbp = self.flow.sbp
        if s.kind == "split":
            return sbp.split(s.dim)
        return sbp.broadcast if s.kind == "broadcast" else sbp.partial_sum

    def _sbps(self, sbps: list[Sbp]) -> tuple[Any, ...]:
        # A tuple: to_global documents "sbp or tuple of sbp", and a list fails on a 2-D
        # placement in 0.9.0.
        return tuple(self._sbp(s) for s in sbps)

    def _world(self) -> int:
        if self.world is None:
            raise Unsupported("the oneflow adapter plays no ranks in one process: "
                              "devspec-adapter-mpi-host --ranks N starts its ranks")
        return self.world

    def placement_describe(self, p: PlacementArg | None, type_: str,
                           all_: str | None) -> dict[str, Any]:
        self._world()
        flow = self.flow
        if p is not None:
            pl = self._placement(p)
        elif all_ == "env.all_device_placement":
            pl = flow.env.all_device_placement(type_)
        else:
            pl = flow.placement.all(type_)
        return {"str": str(pl), "type": str(pl.type),
                "shape": [int(n) for n in pl.ranks.shape]}

    def placement_equal(self, a: PlacementArg, b: PlacementArg) -> bool:
        self._world()
        return bool(self._placement(a) == self._placement(b))

    def sbp_describe(self, sbp: Sbp) -> str:
        return str(self._sbp(sbp))

    def _make(self, x: GlobalArg) -> Any:
        world = self._world()
        pl = self._placement(x.placement)
        if x.value is not None:
            if all(s.kind != "partial_sum" for s in x.sbp) and 0 not in x.value.shape:
                # As a OneFlow user makes one: the whole value (the same on every rank) with
                # the placement and the sbp, and OneFlow keeps each rank's part of it. This
                # never converts, so a dtype whose conversion fails (float16 on CPU) still
                # reaches the conversion a case is about.
                return self.flow.tensor(nest(x.value.data, x.value.shape),
                                        dtype=self.dtype(x.value.dtype), placement=pl,
                                        sbp=self._sbps(x.sbp))
            flat = [r for r in x.placement.ranks if not isinstance(r, list)]
            if (len(x.sbp) == 1 and len(flat) == len(x.placement.ranks) and flat and
                    0 not in x.value.shape):
                # A partial sum from a whole value on a flat placement, as a OneFlow user
                # makes one from local data: the value on the placement's first rank and
                # zeros on the others (spec/decisions.md, Global arrays), each rank's
                # tensor taken as its part with to_global, which moves nothing.
                mine = self.asarray_typed(x.value, {})
                if self.rank != flat[0]:
                    mine = self.flow.zeros_like(mine)
                return mine.to_global(placement=pl, sbp=self._sbps(x.sbp))
            # Otherwise (a 2-d placement, an empty value): a broadcast of the value, then
            # OneFlow's own conversion to the asked sbp.
            whole = self.asarray_typed(x.value, {})
            b = whole.to_global(placement=pl,
                                sbp=(self.flow.sbp.broadcast,) * len(x.sbp))
            return b.to_global(sbp=self._sbps(x.sbp))
        assert x.locals is not None
        if len(x.locals) < world:
            raise Unsupported("%d local pieces for %d ranks: each rank needs its own"
                              % (len(x.locals), world))
        mine = self.asarray_typed(x.locals[self.rank], {})
        return mine.to_global(placement=pl, sbp=self._sbps(x.sbp))

    def global_make(self, x: GlobalArg, to: list[Sbp] | None) -> Array:
        y = self._make(x)
        return y if to is None else y.to_global(sbp=self._sbps(to))

    def global_binary(self, fn: str, x1: GlobalArg, x2: GlobalArg) -> Array:
        return self.binary(fn, self._make(x1), self._make(x2))

    def global_sum(self, x: GlobalArg, axis: int | None) -> Array:
        a = self._make(x)
        return self.flow.sum(a) if axis is None else self.flow.sum(a, dim=axis)

    def _piece(self, t: Any) -> Piece:
        return self.read(t)

    def global_describe(self, x: Array) -> GlobalInfo:
        pl = x.placement
        whole = x.to_global(sbp=(self.flow.sbp.broadcast,) * len(x.sbp))
        # A rank outside the placement holds no piece of the data; OneFlow gives it an
        # empty local tensor (shape (0, 0) for a 2-d array), also for the value, and that is
        # what it reports, as OneFlow reports it.
        mine = self._piece(x.to_local())
        return GlobalInfo(self.array_dtype(x), tuple(int(n) for n in x.shape), str(pl),
                          [str(s) for s in x.sbp], self._piece(whole.to_local()), [mine])
