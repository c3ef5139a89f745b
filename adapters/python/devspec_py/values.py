"""Every value on the wire (spec/protocol.md, "Values"): elements of typed arrays, Python
scalars, and the JSON text of replies. Standard-library only."""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any

from .args import arg, dtype_arg, json_type, shape_arg
from .errors import ProtocolError
from .protocol import FLOAT_DTYPES, INT_DTYPES

INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1),
    "uint8": (0, (1 << 8) - 1), "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1), "uint64": (0, (1 << 64) - 1),
}
EXACT_INT = 1 << 53  # beyond this, integers travel as decimal strings

Element = bool | int | float | complex
Scalar = bool | int | float


def decode_float(value: object, where: str) -> float:
    if isinstance(value, bool):
        raise ProtocolError("%s: expected a float, got a boolean" % where, "TypeError")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        try:  # C strtod also reads hexadecimal floats
            return float.fromhex(text)
        except ValueError:
            raise ProtocolError("%s: '%s' is not a float" % (where, value)) from None
    raise ProtocolError("%s: expected a float, got %s" % (where, json_type(value)), "TypeError")


def decode_element(dtype: str, value: object, where: str) -> Element:
    if dtype == "bool":
        if not isinstance(value, bool):
            raise ProtocolError("%s: expected true or false" % where, "TypeError")
        return value
    if dtype in INT_DTYPES:
        if isinstance(value, bool):
            raise ProtocolError("%s: expected an integer, got a boolean" % where, "TypeError")
        if isinstance(value, int):
            if not -EXACT_INT <= value <= EXACT_INT:
                raise ProtocolError("%s: the integer %d is beyond 2^53; write it as a decimal "
                                    "string" % (where, value))
            n = value
        elif isinstance(value, str):
            try:
                n = int(value.strip(), 10)
            except ValueError:
                raise ProtocolError("%s: '%s' is not an integer" % (where, value)) from None
        elif isinstance(value, float) and value.is_integer() and abs(value) <= EXACT_INT:
            n = int(value)
        else:
            raise ProtocolError("%s: expected an integer" % where, "TypeError")
        lo, hi = INT_RANGES[dtype]
        if not lo <= n <= hi:
            raise ProtocolError("%s: %d is out of range for %s" % (where, n, dtype))
        return n
    if dtype in FLOAT_DTYPES:
        x = decode_float(value, where)
        if dtype == "float32" and math.isfinite(x):
            try:
                struct.pack("<f", x)
            except OverflowError:
                raise ProtocolError("%s: %r is beyond the float32 range" % (where, x)) from None
        return x
    if not isinstance(value, list) or len(value) != 2:
        raise ProtocolError("%s: a complex element is a [re, im] pair" % where, "TypeError")
    return complex(decode_float(value[0], where + ".re"), decode_float(value[1], where + ".im"))


def encode_float(x: float, single: bool = False) -> float | int | str:
    """A float element as written: NaN, infinities and -0.0 as strings; integral values below
    1e16 as integers; others as the shortest decimal that reads back to the same float32
    (single) or float64."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0 and math.copysign(1.0, x) < 0:
        return "-0.0"
    if x.is_integer() and abs(x) < 1e16:
        return int(x)
    if single:
        for digits in range(1, 10):
            y = float("%.*g" % (digits, x))
            if struct.unpack("<f", struct.pack("<f", y))[0] == x:
                return y
    return x


def encode_element(dtype: str, x: Any) -> Any:
    if dtype == "bool":
        return bool(x)
    if dtype in INT_DTYPES:
        n = int(x)
        return n if -EXACT_INT <= n <= EXACT_INT else str(n)
    if dtype in FLOAT_DTYPES:
        return encode_float(x, dtype == "float32")
    z = complex(x)
    single = dtype == "complex64"
    return [encode_float(z.real, single), encode_float(z.imag, single)]


def decode_scalar(value: object, where: str) -> Scalar:
    """A Python scalar operand: a JSON number or boolean, or {"scalar": TEXT}. A number with
    an integral value within int64 is an int, any other a float (JSON readers do not keep
    1.0 apart from 1); TEXT is an int when it is a decimal integer, else a float."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer() and -(1 << 63) <= value < (1 << 63):
            return int(value)
        return value
    if isinstance(value, dict) and set(value) == {"scalar"} and isinstance(value["scalar"], str):
        text = value["scalar"].strip()
        try:
            return int(text, 10)
        except ValueError:
            return decode_float(text, where)
    raise ProtocolError("%s: expected a scalar" % where, "TypeError")


@dataclass(frozen=True)
class TypedArray:
    """A typed array: dtype name, shape, flat elements in C order."""

    dtype: str
    shape: tuple[int, ...]
    data: list[Any]

    @classmethod
    def decode(cls, obj: dict[str, Any], where: str) -> TypedArray:
        for key in ("dtype", "shape", "data"):
            if key not in obj:
                raise ProtocolError("%s: typed array without '%s'" % (where, key))
        dtype = dtype_arg(obj, "dtype", required=True)
        assert dtype is not None
        shape = shape_arg(obj, "shape")
        data = arg(obj, "data", list)
        count = 1
        for n in shape:
            count *= n
        if len(data) != count:
            raise ProtocolError("%s: shape %s needs %d elements, data has %d" %
                                (where, list(shape), count, len(data)))
        return cls(dtype, shape, [decode_element(dtype, v, "%s.data[%d]" % (where, i))
                                  for i, v in enumerate(data)])

    def encode(self) -> dict[str, Any]:
        return {"dtype": self.dtype, "shape": list(self.shape),
                "data": [encode_element(self.dtype, v) for v in self.data]}


def nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    """Flat C-order elements as nested lists of the given shape (a scalar for shape ())."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def flatten(nested: Any) -> list[Any]:
    """Nested lists as a flat list in C order (a scalar as a list of one)."""
    if not isinstance(nested, list):
        return [nested]
    out: list[Any] = []
    stack = [iter(nested)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, list):
                stack.append(iter(item))
                break
            out.append(item)
        else:
            stack.pop()
    return out


def dumps(reply: dict[str, Any]) -> bytes:
    """A reply as one line of JSON."""
    return json.dumps(reply, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n"
