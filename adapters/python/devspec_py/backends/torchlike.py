"""What the torch and OneFlow backends share: OneFlow copies torch's API for devices, dtypes,
casting and the operators, so both map those ops the same way onto their own module
(`self.lib`). Where the two libraries differ (creation, conversion, reading, out=, what a
missing keyword answers), each backend keeps its own method."""

from __future__ import annotations

from typing import Any

from ..backend import Array, BaseBackend, Device, DType, Kw
from ..errors import Unsupported


class TorchLikeBackend(BaseBackend):
    """The ops torch and OneFlow map alike, on `self.lib` (the torch or oneflow module):
    device objects of (type, index), dtypes as module attributes, Tensor.to for astype, the
    operators and the functions of the same name."""

    lib: Any

    def namespace(self) -> Any:
        # The library's own namespace: where a name differs from the standard's (concat is
        # cat), or the library has none (OneFlow's fft), it lacks it.
        return self.lib

    def default_device(self) -> Device | None:
        return self.default_get()

    # -- dtypes ---------------------------------------------------------------------------
    def dtype_name(self, dt: DType) -> str:
        return str(dt).replace(self.lib.__name__ + ".", "")

    def dtype_describe(self, name: str) -> tuple[DType, bool]:
        # float, double, half, int and long are aliases in both (OF-DT-1).
        dt = getattr(self.lib, name, None)
        if not isinstance(dt, self.lib.dtype):
            raise AttributeError("module '%s' has no dtype %r" % (self.lib.__name__, name))
        return dt, bool(dt.is_floating_point)

    # -- device.* -------------------------------------------------------------------------
    def parse_device(self, text: str) -> Device:
        return self.lib.device(text)

    def describe_device(self, dev: Device) -> dict[str, Any]:
        if isinstance(dev, str):
            dev = self.lib.device(dev)
        return {"str": str(dev), "type": dev.type, "index": dev.index}

    def device_from_type_index(self, type_: str, index: int) -> Device:
        return self.lib.device(type_, index)

    def device_from_ordinal(self, ordinal: int) -> Device:
        return self.lib.device(ordinal)

    def parse_current_device(self, text: str) -> Device:
        # device("cuda") without an index is the current device of its type in both: the
        # string constructor is this op too.
        return self.lib.device(text)

    def set_current_device(self, dev: Device) -> None:
        if isinstance(dev, str):
            dev = self.lib.device(dev)
        if dev.type != "cuda":
            raise Unsupported("%s sets a current device only for cuda (%s.cuda.set_device), "
                              "not for %s" % (self.library_name, self.lib.__name__, dev.type))
        self.lib.cuda.set_device(dev)

    def array_get_device(self, x: Array) -> int:
        return int(x.get_device())

    # -- array.* --------------------------------------------------------------------------
    def astype(self, x: Array, dtype: str, kw: Kw) -> Array:
        return x.to(**self._kw(dict(kw, dtype=dtype)))

    def binary(self, fn: str, x1: Any, x2: Any) -> Array:
        if fn == "maximum":
            return self.lib.maximum(x1, x2)
        if fn == "add":
            return x1 + x2
        if fn == "subtract":
            return x1 - x2
        if fn == "multiply":
            return x1 * x2
        if fn == "divide":
            return x1 / x2
        if fn == "equal":
            return x1 == x2
        return x1 < x2

    def unary(self, fn: str, x: Array) -> Array:
        return {"negative": self.lib.negative, "abs": self.lib.abs, "sqrt": self.lib.sqrt}[fn](x)

    def reduce(self, fn: str, x: Array, axis: int | None) -> Array:
        if fn == "sum":
            return self.lib.sum(x) if axis is None else self.lib.sum(x, dim=axis)
        return self.lib.max(x) if axis is None else self.lib.amax(x, dim=axis)

    def matmul(self, x1: Array, x2: Array) -> Array:
        return self.lib.matmul(x1, x2)

    def stack(self, arrays: list[Array], axis: int) -> Array:
        return self.lib.stack(arrays, dim=axis)

    def tril(self, x: Array, k: int) -> Array:
        return self.lib.tril(x, diagonal=k)

    def triu(self, x: Array, k: int) -> Array:
        return self.lib.triu(x, diagonal=k)
