"""PyTorch through its own public API (Debian's python3-torch, on Debian's interpreter)."""

from __future__ import annotations

import os
from typing import Any

from ..backend import Array, Device, DType, Kw
from ..call import FEATURES as CALL_FEATURES
from ..errors import Unsupported
from ..values import TypedArray, nest
from .torchlike import TorchLikeBackend


class TorchBackend(TorchLikeBackend):
    """PyTorch through its own public API (Debian's python3-torch). torch 1.13 has no array
    API namespace; the op mapping is the one array-api-compat uses for torch (to_device is
    Tensor.to, astype is Tensor.to(dtype)); what OneFlow maps alike is TorchLikeBackend's."""

    library_name = "torch"
    features = ("device-attr", "device-eq", "creation-device-kw", "like-inherits-device",
                "asarray-inherits-device", "to-device", "output-follows-input",
                "mixed-device-raises", "default-device-consistent", "fft-freq-device",
                "dlpack-device", "device-string", "device-string-kw", "device-ordinal",
                "promotion-category", "out-casting", "dtype-names", "float16", *CALL_FEATURES)

    def __init__(self) -> None:
        import torch
        self.torch: Any = torch
        self.lib = torch

    def library_version(self) -> str:
        return str(self.torch.__version__)

    def devices(self) -> list[Device]:
        # "cpu" holds data; then the CUDA devices torch sees (D1 is cuda:0 where there is
        # one); last "meta", which holds shapes and dtypes only. array-api-compat lists meta
        # among torch's devices, and it follows torch's placement rules (creation, Tensor.to,
        # mixed-device errors), so without CUDA it is the second device; see decisions.md.
        # DEVSPEC_TORCH_META=0 leaves it out.
        t = self.torch
        found = [t.device("cpu")]
        if t.cuda.is_available():
            found += [t.device("cuda", i) for i in range(t.cuda.device_count())]
        if os.environ.get("DEVSPEC_TORCH_META", "1") != "0":
            found.append(t.device("meta"))
        return found

    def holds_data(self, dev: Device) -> bool:
        # meta holds shapes and dtypes only: cases that read elements back do not bind it.
        # torch 1.13 offers no second data-holding device on a CPU-only machine ("cpu:1" is
        # cpu, PrivateUse1 and the other backends have no kernels registered; see
        # spec/decisions.md, Python libraries 19).
        return str(getattr(dev, "type", dev)) != "meta"

    def dtype(self, name: str) -> DType:
        dt = getattr(self.torch, name, None)
        if not isinstance(dt, self.torch.dtype):
            raise Unsupported("torch %s has no dtype %s" % (self.torch.__version__, name))
        return dt

    def can_cast(self, from_: Any, to: DType) -> bool:
        return bool(self.torch.can_cast(from_, to))

    def result_type(self, objs: list[Any]) -> DType:
        return self.torch.result_type(*objs)

    # -- array.* --------------------------------------------------------------------------
    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        t = self.torch
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return getattr(t, fn)(a["shape"], **kw)
        if fn == "full":
            return t.full(a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            pos = self._arange_positional(a)
            return t.arange(*pos, **kw)
        if fn == "linspace":
            if not a["endpoint"]:
                raise Unsupported("torch.linspace has no endpoint=False")
            return t.linspace(a["start"], a["stop"], a["num"], **kw)
        if fn == "eye":
            if a["k"] != 0:
                raise Unsupported("torch.eye has no diagonal offset k")
            n_cols = a.get("n_cols")
            return t.eye(a["n_rows"], **kw) if n_cols is None else \
                t.eye(a["n_rows"], n_cols, **kw)
        if fn in ("zeros_like", "ones_like", "empty_like"):
            return getattr(t, fn)(a["x"], **kw)
        if fn == "full_like":
            return t.full_like(a["x"], a["fill_value"], **kw)
        if fn == "rfftfreq":
            return t.fft.rfftfreq(a["n"], a.get("d", 1.0), **kw)
        return t.fft.fftfreq(a["n"], a.get("d", 1.0), **kw)

    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array:
        kw = dict(kw)
        kw["dtype"] = self.dtype(kw.get("dtype") or typed.dtype)
        if 0 in typed.shape:
            return self.torch.asarray(typed.data, **kw).reshape(typed.shape)
        return self.torch.asarray(nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array:
        return self.torch.asarray(value, **self._kw(kw))

    def asarray_array(self, x: Array, kw: Kw) -> Array:
        return self.torch.asarray(x, **self._kw(kw))

    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        h = x.detach().cpu()
        return self.array_dtype(x), tuple(h.shape), h.reshape(-1).tolist()

    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        if kw.get("stream") is not None:
            raise Unsupported("torch's Tensor.to takes no stream")
        return x.to(dev)

    def binary_into(self, fn: str, x1: Any, x2: Any, out: Array) -> None:
        # torch's out=: torch.add(x1, x2, out=out) and the like (a Python scalar first is a
        # 0-d tensor of its default dtype for torch's functions, so it goes second then).
        f = {"add": self.torch.add, "subtract": self.torch.sub, "multiply": self.torch.mul,
             "divide": self.torch.div}[fn]
        if not isinstance(x1, self.torch.Tensor):
            raise Unsupported("torch.%s(scalar, tensor, out=) takes a tensor first" % fn)
        f(x1, x2, out=out)

    def dlpack_device(self, x: Array) -> tuple[int, int]:
        kind, index = x.__dlpack_device__()
        return int(kind), int(index)

    def from_dlpack(self, x: Array, kw: Kw) -> Array:
        return self.torch.from_dlpack(x, **kw)

    def default_get(self) -> Device:
        return self.torch.empty(()).device
