"""Every value on the wire (spec/protocol.md, "Values"): elements of typed arrays, Python
scalars, and the JSON text of replies. Standard-library only."""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass, field
from fractions import Fraction
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
# Integers beyond 2^53 are written as decimal strings (readers that hold numbers as doubles
# would round them); floats beyond it are not exact integers.
EXACT_INT = 1 << 53



@dataclass(frozen=True)
class Binary:
    """An IEEE binary format narrower than float64, as struct packs it."""

    name: str
    pack: str        # struct's format for a value
    word: str        # struct's format for its bits, as an unsigned integer
    inf_bits: int    # the bits of +infinity
    max: float       # the largest finite value
    limit: float     # 2^(emax + 1): where the next value would be, standing for infinity
    digits: int      # significant decimal digits that always tell two values apart

    # Halfway between max and limit: a value of this magnitude or more rounds to infinity.
    overflow: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "overflow", (self.max + self.limit) / 2)


FLOAT32 = Binary("float32", "<f", "<I", 0x7F800000, struct.unpack("<f", b"\xff\xff\x7f\x7f")[0],
                 2.0 ** 128, 9)
FLOAT16 = Binary("float16", "<e", "<H", 0x7C00, 65504.0, 65536.0, 5)
BINARY = {"float32": FLOAT32, "float16": FLOAT16, "complex64": FLOAT32}
FLT_MAX = FLOAT32.max

_INT_TEXT = re.compile(r"[-+]?[0-9]+\Z")
# What C's strtod reads besides the infinities and NaN: decimal and hexadecimal floats.
_FLOAT_TEXT = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\Z")
_HEX_TEXT = re.compile(r"[-+]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                       r"([pP][-+]?[0-9]+)?\Z")
_SPECIAL = {"nan": math.nan, "+nan": math.nan, "-nan": -math.nan, "inf": math.inf,
            "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
            "+infinity": math.inf, "-infinity": -math.inf}

Element = bool | int | float | complex
Scalar = bool | int | float | complex


class Number(float):
    """A JSON number with a fraction or an exponent, as read from a request: the double it
    denotes, plus its source text, so that a float32 is rounded once from the decimal (see
    round_from_text), never from the double in between."""

    text: str

    def __new__(cls, text: str) -> Number:
        self = super().__new__(cls, text)
        self.text = text
        return self


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all distinct: a key given twice is a protocol error (the
    protocol's rule, as in case files), never silently the first or the last value."""
    obj = dict(pairs)
    if len(obj) != len(pairs):  # name the first key given twice
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError("key '%s' given twice in one object" % key)
            seen.add(key)
    return obj


# One decoder and one encoder for the process: json.loads and json.dumps with options build
# a new one (and its C scanner or encoder) on every call, a third of a small request's cost.
_DECODER = json.JSONDecoder(parse_float=Number, object_pairs_hook=_object)
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False)


_SCAN: Any = getattr(_DECODER, "scan_once")  # noqa: B009 (typeshed does not list it)


def loads(line: str) -> Any:
    """A request line as Python values: JSON floats as Number, integers of any width exact,
    strings verbatim (NUL characters included), objects with distinct keys."""
    # The decoder's scanner straight away for a line that starts and ends with its value
    # (every request the runner writes): decode() itself calls it after a look for blanks
    # before and after. Any other line, a bad one included, goes through decode(), which
    # raises its own error; an error the scanner raises is the one decode() would raise.
    try:
        value, end = _SCAN(line, 0)
    except StopIteration:
        return _DECODER.decode(line)
    if end != len(line):
        return _DECODER.decode(line)
    return value


# -- float32 and float16 -------------------------------------------------------------------

def round_from_double(d: float, fmt: Binary) -> float:
    """D rounded to the format, as C's (float)d does (to nearest, ties to even), infinity
    included where D rounds past the largest finite value."""
    if not math.isfinite(d):
        return d
    if abs(d) >= fmt.overflow:
        return math.copysign(math.inf, d)
    if abs(d) > fmt.max:
        return math.copysign(fmt.max, d)
    f: float = struct.unpack(fmt.pack, struct.pack(fmt.pack, d))[0]
    return f


def _step(m: float, up: bool, fmt: Binary) -> float:
    """The magnitude next to the magnitude M of the format (fmt.limit past fmt.max)."""
    bits = fmt.inf_bits if m == fmt.limit else struct.unpack(fmt.word, struct.pack(fmt.pack, m))[0]
    n: float = struct.unpack(fmt.pack, struct.pack(fmt.word, bits + 1 if up else bits - 1))[0]
    return fmt.limit if math.isinf(n) else n


def round_from_text(text: str, d: float, fmt: Binary) -> float:
    """The decimal (or hexadecimal) TEXT, whose nearest double is D, rounded once to the
    format (ties to even), infinity where it rounds past the largest finite value.

    Rounding to the double first and then to the format differs from rounding once only when
    the double lands exactly on a midpoint of the format (midpoints are doubles, so a decimal
    on one side of a midpoint never rounds past it): then the decimal itself decides."""
    f = round_from_double(d, fmt)
    if f == d or not math.isfinite(d):
        return f
    a = abs(d)
    fa = fmt.limit if math.isinf(f) else abs(f)
    lo, hi = (fa, _step(fa, True, fmt)) if fa < a else (_step(fa, False, fmt), fa)
    if (lo + hi) / 2 != a:
        return f  # d is no midpoint: rounding once or twice gives the same value
    t = text.strip().lower()
    exact = abs(Fraction(float.fromhex(t)) if "x" in t else Fraction(t))
    if exact == Fraction(a):
        return f  # a true tie: to even, as already rounded
    chosen = hi if exact > Fraction(a) else lo
    return math.copysign(math.inf if chosen == fmt.limit else chosen, d)


def shortest(x: float, fmt: Binary) -> float:
    """The double whose shortest decimal (repr) is the shortest decimal that reads back, once
    rounded to the format, as exactly its finite value X."""
    for digits in range(1, fmt.digits + 1):
        y = float("%.*g" % (digits, x))
        if round_from_text(repr(y), y, fmt) == x:
            return y
    return x  # fmt.digits significant digits always suffice; not reached


# -- elements --------------------------------------------------------------------------------

def parse_float(text: str, where: str) -> tuple[float, str]:
    """A float written as text, in a form C's strtod reads (decimal, hexadecimal, nan, inf,
    infinity; surrounding blanks allowed): (the nearest double, the text without blanks)."""
    t = text.strip()
    special = _SPECIAL.get(t.lower())
    if special is not None:
        return special, t
    if _FLOAT_TEXT.match(t):
        return float(t), t
    if _HEX_TEXT.match(t):
        return float.fromhex(t), t
    raise ProtocolError("%s: '%s' is not a float" % (where, text))


def decode_float(value: object, where: str, fmt: Binary | None = None) -> float:
    """A float element or operand: a JSON number or a string (parse_float), as a float64 or
    rounded once to FMT (float32, float16). A finite value that rounds to infinity is out of
    range (a ProtocolError): for float32, 3.4028235e+38 (FLT_MAX) and anything up to half an
    ulp above it are in range; the infinities and NaN themselves are values like any other."""
    if isinstance(value, bool):
        raise ProtocolError("%s: expected a float, got a boolean" % where, "TypeError")
    if isinstance(value, Number):
        d, text = float(value), value.text
    elif isinstance(value, int):
        text = str(value)
        try:
            d = float(value)
        except OverflowError:
            d = math.copysign(math.inf, value)
    elif isinstance(value, float):
        d, text = value, repr(value)
    elif isinstance(value, str):
        d, text = parse_float(value, where)
    else:
        raise ProtocolError("%s: expected a float, got %s" % (where, json_type(value)),
                            "TypeError")
    x = round_from_text(text, d, fmt) if fmt is not None and not math.isnan(d) else d
    if math.isinf(x) and text.strip().lower().lstrip("+-") not in ("inf", "infinity", "nan"):
        raise ProtocolError("%s: %s is beyond the %s range (it rounds to infinity)"
                            % (where, text, "float64" if fmt is None else fmt.name))
    return x


def decode_int(value: object, where: str) -> int:
    """An integer element: a JSON integer of any width (exact), an integral JSON float within
    2^53, or a decimal string."""
    if isinstance(value, bool):
        raise ProtocolError("%s: expected an integer, got a boolean" % where, "TypeError")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if not _INT_TEXT.match(text):
            raise ProtocolError("%s: '%s' is not an integer" % (where, value))
        return int(text, 10)
    if isinstance(value, float) and value.is_integer() and abs(value) <= EXACT_INT:
        return int(value)
    if isinstance(value, float) and value.is_integer():
        raise ProtocolError("%s: the number %r is beyond 2^53, where a float is not an exact "
                            "integer; write it as an integer or a decimal string"
                            % (where, value))
    raise ProtocolError("%s: expected an integer" % where, "TypeError")


def decode_element(dtype: str, value: object, where: str) -> Element:
    """One element of a typed array of DTYPE, checked against the dtype's range."""
    if dtype == "bool":
        if not isinstance(value, bool):
            raise ProtocolError("%s: expected true or false" % where, "TypeError")
        return value
    if dtype in INT_DTYPES:
        n = decode_int(value, where)
        lo, hi = INT_RANGES[dtype]
        if not lo <= n <= hi:
            raise ProtocolError("%s: %d is out of range for %s" % (where, n, dtype))
        return n
    if dtype in FLOAT_DTYPES:
        return decode_float(value, where, BINARY.get(dtype))
    if not isinstance(value, list) or len(value) != 2:
        raise ProtocolError("%s: a complex element is a [re, im] pair" % where, "TypeError")
    part = BINARY.get(dtype)
    return complex(decode_float(value[0], where + ".re", part),
                   decode_float(value[1], where + ".im", part))


def encode_float(x: float, fmt: Binary | None = None) -> float | int | str:
    """A float element as written: NaN, infinities and -0.0 as strings; integral values below
    1e16 as integers (exact: every such double is an integer a reader holds exactly); others
    as the shortest decimal that reads back to the same float64, or to the same value of FMT
    (float32, float16) when rounded once to it."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0 and math.copysign(1.0, x) < 0:
        return "-0.0"
    if x.is_integer() and abs(x) < 1e16:
        return int(x)
    if fmt is not None:
        return shortest(x, fmt)
    return x


def encode_element(dtype: str, x: Any) -> Any:
    """One element of a typed array of DTYPE as written (integers beyond 2^53 as strings)."""
    if dtype == "bool":
        return bool(x)
    if dtype in INT_DTYPES:
        n = int(x)
        return n if -EXACT_INT <= n <= EXACT_INT else str(n)
    if dtype in FLOAT_DTYPES:
        return encode_float(x, BINARY.get(dtype))
    z = complex(x)
    part = BINARY.get(dtype)
    return [encode_float(z.real, part), encode_float(z.imag, part)]


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
        return float(value)
    if isinstance(value, dict) and set(value) == {"complex"}:
        pair = value["complex"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise ProtocolError("%s: {\"complex\": ...} takes a [re, im] pair" % where,
                                "TypeError")
        return complex(decode_float(pair[0], where + ".re"), decode_float(pair[1], where + ".im"))
    if isinstance(value, dict) and set(value) == {"scalar"} and isinstance(value["scalar"], str):
        text = value["scalar"].strip()
        if _INT_TEXT.match(text):
            return int(text, 10)
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
    """A reply as one line of JSON, in UTF-8: a str holding a lone surrogate, which UTF-8
    cannot carry, raises UnicodeEncodeError (escaped, it would be JSON no reader takes)."""
    return _ENCODER.encode(reply).encode("utf-8") + b"\n"
