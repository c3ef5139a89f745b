"""Values on the wire, exactly (spec/protocol.md, "Values"): every number the adapter reads
or writes round-trips bit for bit, over the hard values (subnormals, the largest finite
values, 2^53 +- 1, -0.0, halfway cases); float32 is rounded once from the decimal, and a
decimal is in float32 range when it rounds to a finite float32. The expected float32 values
come from an exact rounding written here with integers (round_to_float32), independent of
the adapter's."""

from __future__ import annotations

import json
import math
import struct
from fractions import Fraction
from typing import Any

import pytest

from devspec_py.errors import ProtocolError
from devspec_py.values import (
    FLOAT32,
    FLT_MAX,
    decode_element,
    decode_scalar,
    dumps,
    encode_element,
    encode_float,
    loads,
)

TWO_53 = 1 << 53
DBL_MAX = 1.7976931348623157e308
DBL_TRUE_MIN = 5e-324
DBL_MIN = 2.2250738585072014e-308


def round_to_binary(q: Fraction, precision: int, emin: int, emax: int) -> float:
    """Q rounded to an IEEE binary format (PRECISION significand bits, normal exponents
    EMIN..EMAX, subnormals below 2^EMIN), to nearest with ties to even, with integers only
    (inf past the range)."""
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, emin)                                  # subnormals share the smallest exponent
    scaled = q / Fraction(2) ** (e - precision + 1)   # the significand before rounding
    m, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and m % 2 == 1):
        m += 1
    value = Fraction(m) * Fraction(2) ** (e - precision + 1)
    if value >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(value)


def round_to_float32(q: Fraction) -> float:
    return round_to_binary(q, 24, -126, 127)


def round_to_float16(q: Fraction) -> float:
    return round_to_binary(q, 11, -14, 15)


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def wire(value: object) -> object:
    """VALUE written into a reply line and read back as a request would be."""
    return loads(dumps({"v": value}).decode())["v"]


FLOAT64_HARD = [DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MIN, 2.225073858507201e-308, DBL_MAX,
                -DBL_MAX, float(TWO_53 - 1), float(TWO_53), float(TWO_53 + 2), 1e16,
                1e16 + 2, 0.1, 0.30000000000000004, 1.0000000000000002, 0.9999999999999999,
                123456789012345680.0, 1e23, 5e-310, 0.0, -0.0, 2.5, math.pi]

FLT_TRUE_MIN = 2.0 ** -149
FLOAT32_HARD = [FLT_MAX, -FLT_MAX, FLT_TRUE_MIN, -FLT_TRUE_MIN, 2.0 ** -126,
                2.0 ** -126 - 2.0 ** -149, f32(0.1), f32(1 / 3), 16777216.0, 16777218.0,
                f32(3.14159265), 1.0 + 2.0 ** -23, f32(1e-40), f32(7e37), -0.0, 0.5]


@pytest.mark.parametrize("x", FLOAT64_HARD, ids=repr)
def test_float64_round_trips_bit_for_bit(x: float) -> None:
    got = decode_element("float64", wire(encode_element("float64", x)), "x")
    assert isinstance(got, float) and bits(got) == bits(x)


@pytest.mark.parametrize("x", [v for v in FLOAT64_HARD if not v.is_integer()], ids=repr)
def test_float64_written_as_the_shortest_decimal(x: float) -> None:
    # Python's repr is the shortest decimal that reads back to the same double.
    text = dumps({"v": encode_element("float64", x)}).decode()
    assert text == '{"v":%s}\n' % repr(x)


@pytest.mark.parametrize("x", FLOAT32_HARD, ids=repr)
def test_float32_round_trips_bit_for_bit_through_one_rounding(x: float) -> None:
    written = encode_element("float32", x)          # FLT_MAX included: no OverflowError
    if x != 0:
        # the decimal written, rounded once to float32 by the reference, is x again
        assert round_to_float32(Fraction(json.dumps(written))) == x
    got = decode_element("float32", wire(written), "x")
    assert isinstance(got, float) and bits(got) == bits(x)


def significant_digits(text: str) -> int:
    return len(text.lower().split("e")[0].lstrip("-").replace(".", "").strip("0"))


@pytest.mark.parametrize("x", [v for v in FLOAT32_HARD if not v.is_integer()], ids=repr)
def test_float32_written_as_the_shortest_decimal(x: float) -> None:
    text = json.dumps(encode_element("float32", x))
    # no decimal with fewer significant digits rounds to the same float32
    for shorter in range(1, significant_digits(text)):
        for candidate in ("%.*e" % (shorter - 1, x), "%.*e" % (shorter - 1, x * (1 + 1e-9)),
                          "%.*e" % (shorter - 1, x * (1 - 1e-9))):
            assert round_to_float32(Fraction(candidate)) != x, (text, candidate)


def test_largest_float32_is_written_as_its_shortest_form() -> None:
    assert repr(encode_float(FLT_MAX, FLOAT32)) == "3.4028235e+38"
    assert repr(encode_float(FLT_TRUE_MIN, FLOAT32)) == "1e-45"
    assert repr(encode_float(f32(0.1), FLOAT32)) == "0.1"


MIDPOINT_OVERFLOW = (1 << 128) - (1 << 103)   # halfway between FLT_MAX and 2^128


@pytest.mark.parametrize("wire_value, expected", [
    ("3.4028235e+38", FLT_MAX),                 # the shortest form of FLT_MAX
    (3.4028235e+38, FLT_MAX),                   # the same as a JSON number
    ("-3.4028235e+38", -FLT_MAX),
    ("3.4028235677973365e+38", FLT_MAX),        # below the midpoint, though its double is on it
    (str(MIDPOINT_OVERFLOW - 1), FLT_MAX),      # one below the midpoint, as a decimal
    (MIDPOINT_OVERFLOW - 1, FLT_MAX),           # the same as a JSON integer
    ("inf", math.inf), ("-inf", -math.inf),
    ("1e-46", 0.0),                             # below half the smallest subnormal: zero
    ("0x1p-149", FLT_TRUE_MIN),
])
def test_float32_range_is_what_rounds_to_a_finite_float32(wire_value: Any, expected: Any) -> None:
    # as a request carries it: a JSON string, integer or number
    assert decode_element("float32", loads(json.dumps(wire_value)), "x") == expected


@pytest.mark.parametrize("wire_value", [
    "3.40282357e+38", str(MIDPOINT_OVERFLOW), MIDPOINT_OVERFLOW, "1e39", 1e39, "-1e39",
])
def test_float32_out_of_range_rounds_to_infinity(wire_value: Any) -> None:
    with pytest.raises(ProtocolError, match="beyond the float32 range"):
        decode_element("float32", loads(json.dumps(wire_value)), "obj.data[0]")


def exact_decimal(q: Fraction) -> str:
    """The finite decimal expansion of a dyadic rational Q in (0, 1)."""
    digits = 0
    while (q * 10 ** digits).denominator != 1:
        digits += 1
    return "0." + str((q * 10 ** digits).numerator).rjust(digits, "0")


@pytest.mark.parametrize("q, nudge, expected", [
    # halfway between 1 and the next float32: ties go to even (1.0); a hair above or below
    # the decimal halfway point decides, although its nearest double is the halfway point
    (Fraction(1) + Fraction(1, 2 ** 24), 0, 1.0),
    (Fraction(1) + Fraction(1, 2 ** 24), 1, 1.0 + 2.0 ** -23),
    (Fraction(1) + Fraction(1, 2 ** 24), -1, 1.0),
    # halfway between 0 and the smallest subnormal
    (Fraction(1, 2 ** 150), 0, 0.0),
    (Fraction(1, 2 ** 150), 1, FLT_TRUE_MIN),
    # halfway between the two smallest subnormals: ties go to even (2^-148)
    (Fraction(3, 2 ** 150), 0, 2.0 ** -148),
    (Fraction(3, 2 ** 150), -1, FLT_TRUE_MIN),
])
def test_float32_halfway_cases_round_once(q: Fraction, nudge: int, expected: float) -> None:
    text = exact_decimal_of(q)
    if nudge:
        # move the decimal by far less than a double's ulp: its nearest double stays q
        text = exact_decimal_of(q + nudge * Fraction(1, 10 ** (len(text) + 30)))
        assert float(text) == float(q)
    assert round_to_float32(Fraction(text)) == expected     # the reference agrees
    assert decode_element("float32", text, "x") == expected
    assert decode_element("float32", loads(text), "x") == expected   # as a JSON number


def exact_decimal_of(q: Fraction) -> str:
    """A decimal for Q > 0 with a terminating expansion."""
    whole, frac = divmod(q, 1)
    if not frac:
        return str(whole)
    d = exact_decimal(frac)
    return (str(whole) + d[1:]) if whole else d


@pytest.mark.parametrize("dtype, n", [
    ("int64", -(1 << 63)), ("int64", (1 << 63) - 1), ("uint64", (1 << 64) - 1),
    ("int64", TWO_53 - 1), ("int64", TWO_53), ("int64", TWO_53 + 1), ("int64", -TWO_53 - 1),
    ("uint64", 0), ("int8", -128),
])
def test_integers_round_trip_over_the_whole_range(dtype: str, n: int) -> None:
    written = encode_element(dtype, n)
    # beyond 2^53 integers travel as decimal strings, which a double-based reader keeps
    assert written == (n if abs(n) <= TWO_53 else str(n))
    assert decode_element(dtype, wire(written), "x") == n
    # a JSON integer of any width reads exactly too
    assert decode_element(dtype, loads(str(n)), "x") == n


@pytest.mark.parametrize("dtype, value", [
    ("int64", "1_000"), ("int64", "١٢"), ("int64", "0x10"), ("int64", 9007199254740994.0),
    ("int64", "9223372036854775808"), ("uint64", "-1"), ("float64", "1_0"),
    ("float64", "1e400"), ("float64", "one"),
])
def test_values_a_c_reader_would_not_take_are_refused(dtype: str, value: Any) -> None:
    with pytest.raises(ProtocolError):
        decode_element(dtype, value, "x")


def test_scalars_keep_their_exact_values() -> None:
    assert decode_scalar({"scalar": "9223372036854775807"}, "x") == (1 << 63) - 1
    assert decode_scalar({"scalar": "18446744073709551615"}, "x") == (1 << 64) - 1
    assert decode_scalar(loads("9007199254740993"), "x") == TWO_53 + 1
    x = decode_scalar(loads("0.30000000000000004"), "x")
    assert type(x) is float and x == 0.30000000000000004
    assert type(decode_scalar(loads("2.5"), "x")) is float   # a plain float for the library


def test_complex_elements_round_trip() -> None:
    z = complex(DBL_TRUE_MIN, -DBL_MAX)
    assert decode_element("complex128", wire(encode_element("complex128", z)), "x") == z
    w = complex(FLT_MAX, -FLT_TRUE_MIN)
    assert decode_element("complex64", wire(encode_element("complex64", w)), "x") == w


def test_strings_keep_nul_characters() -> None:
    assert loads('{"str": "gpu\\u00000"}') == {"str": "gpu\x000"}
    assert dumps({"s": "a\x00b"}) == b'{"s":"a\\u0000b"}\n'


def f16(x: float) -> float:
    return float(struct.unpack("<e", struct.pack("<e", x))[0])


F16_TRUE_MIN = 2.0 ** -24
FLOAT16_HARD = [65504.0, -65504.0, F16_TRUE_MIN, 2.0 ** -14, 2.0 ** -14 - 2.0 ** -24,
                f16(0.1), f16(1 / 3), 1.0 + 2.0 ** -10, 2049.0 - 1, f16(3.14159), -0.0, 0.5]


@pytest.mark.parametrize("x", FLOAT16_HARD, ids=repr)
def test_float16_round_trips_and_is_written_shortest(x: float) -> None:
    written = encode_element("float16", x)
    got = decode_element("float16", wire(written), "x")
    assert isinstance(got, float) and bits(got) == bits(x)
    if x != 0:
        text = json.dumps(written)
        assert round_to_float16(Fraction(text)) == x
    if not x.is_integer():  # integral values are written as integers, exactly
        for shorter in range(1, significant_digits(text)):
            assert round_to_float16(Fraction("%.*e" % (shorter - 1, x))) != x, text


@pytest.mark.parametrize("text, expected", [
    ("65504", 65504.0), ("65519.99", 65504.0), ("6e-08", F16_TRUE_MIN),
    (exact_decimal_of(Fraction(1) + Fraction(1, 2 ** 11)), 1.0),      # a tie: to even
    (exact_decimal_of(Fraction(1) + Fraction(1, 2 ** 11) + Fraction(1, 10 ** 40)),
     1.0 + 2.0 ** -10),                                                 # just above it
    ("2.98023223876953125e-08", 0.0),                                   # half the smallest
])
def test_float16_is_rounded_once_from_the_decimal(text: str, expected: Any) -> None:
    assert round_to_float16(Fraction(text)) == expected
    assert decode_element("float16", text, "x") == expected
    assert decode_element("float16", loads(text), "x") == expected


@pytest.mark.parametrize("text", ["65520", "65536", "1e5", "-70000"])
def test_float16_out_of_range_rounds_to_infinity(text: str) -> None:
    with pytest.raises(ProtocolError, match="beyond the float16 range"):
        decode_element("float16", loads(text), "x")
