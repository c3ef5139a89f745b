"""The values the standard's functions give, computed from their definitions in plain Python
(math, cmath), for the generated function cases' expected results (gen_function_cases.py).

Nothing here runs a library: each function is its definition in the standard's text, applied
element by element to the small inputs of spec/signatures.json, and rounded to the result's
dtype (float32 through struct, integers wrapped to their width). `evaluate(name, args, kwargs)`
takes `Arr` values for arrays and plain Python values for the rest, and returns an `Arr`, a
tuple or list of them, or a Python value; a function (or a keyword, or an input) it does not
define raises `Unsupported`, and the generator then writes no expected-values case for it.
"""

from __future__ import annotations

import cmath
import math
import struct
from collections.abc import Callable, Sequence
from typing import Any

Num = Any


class Unsupported(Exception):
    """The function, keyword or input is not defined here."""


FLOATS = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
INTS = {"int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
        "uint8": (8, False), "uint16": (16, False), "uint32": (32, False),
        "uint64": (64, False)}
REAL_OF = {"complex64": "float32", "complex128": "float64"}
COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
# The index dtype is the library's (int32 or int64): results of this dtype are compared by
# value, the dtype by the set.
INDEX = "index"


def round_to(dtype: str, v: Num) -> Num:
    """V as an element of DTYPE."""
    if dtype == "bool":
        return bool(v)
    if dtype in INTS or dtype == INDEX:
        bits, signed = INTS.get(dtype, (64, True))
        n = int(v) % (1 << bits)
        if signed and n >= 1 << (bits - 1):
            n -= 1 << bits
        return n
    if dtype == "float32":
        v = float(v)
        if math.isnan(v) or math.isinf(v):
            return v
        try:
            return float(struct.unpack("f", struct.pack("f", v))[0])
        except OverflowError:
            return math.copysign(math.inf, v)
    if dtype == "float64":
        return float(v)
    if dtype in COMPLEX:
        c = complex(v)
        part = REAL_OF[dtype]
        return complex(round_to(part, c.real), round_to(part, c.imag))
    raise Unsupported("dtype %s" % dtype)


class Arr:
    """An array: its dtype, shape and elements in row-major order."""

    def __init__(self, dtype: str, shape: Sequence[int], data: Sequence[Num]) -> None:
        self.dtype = dtype
        self.shape = tuple(shape)
        self.data = [round_to(dtype, v) for v in data]
        if len(self.data) != size(self.shape):
            raise ValueError("%d elements for shape %s" % (len(self.data), self.shape))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def at(self, idx: Sequence[int]) -> Num:
        return self.data[flat(self.shape, idx)]


def size(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def flat(shape: Sequence[int], idx: Sequence[int]) -> int:
    k = 0
    for d, i in zip(shape, idx, strict=True):
        k = k * d + i
    return k


def indices(shape: Sequence[int]) -> list[tuple[int, ...]]:
    """Every index of SHAPE in row-major order."""
    out: list[tuple[int, ...]] = [()]
    for d in shape:
        out = [(*i, j) for i in out for j in range(d)]
    return out


def kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype in INTS or dtype == INDEX:
        return "int"
    if dtype in FLOATS:
        return "float"
    return "complex"


def broadcast(*shapes: Sequence[int]) -> tuple[int, ...]:
    n = max(len(s) for s in shapes)
    out = []
    for i in range(n):
        d = 1
        for s in shapes:
            e = s[i - n + len(s)] if i - n + len(s) >= 0 else 1
            if e != 1:
                if d not in (1, e):
                    raise Unsupported("shapes do not broadcast")
                d = e
        out.append(d)
    return tuple(out)


def broadcast_to(a: Arr, shape: Sequence[int]) -> Arr:
    off = len(shape) - a.ndim
    data = [a.at([i[off + k] if a.shape[k] != 1 else 0 for k in range(a.ndim)])
            for i in indices(shape)]
    return Arr(a.dtype, shape, data)


def axis_of(ax: int, ndim: int) -> int:
    if not -ndim <= ax < max(ndim, 1):
        raise Unsupported("axis %d of %d dimensions" % (ax, ndim))
    return ax % ndim if ndim else 0


def axes_of(axis: Any, ndim: int) -> list[int]:
    if axis is None:
        return list(range(ndim))
    if isinstance(axis, int):
        return [axis_of(axis, ndim)]
    return sorted(axis_of(a, ndim) for a in axis)


# -- elementwise --------------------------------------------------------------------------


def sign(v: Num) -> Num:
    if isinstance(v, complex):
        return 0j if v == 0 else v / abs(v)
    if isinstance(v, float) and math.isnan(v):
        return v
    return (v > 0) - (v < 0) if not isinstance(v, float) else float((v > 0) - (v < 0))


def round_half_even(v: Num) -> Num:
    if isinstance(v, complex):
        return complex(round_half_even(v.real), round_half_even(v.imag))
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return v
        return math.copysign(float(round(v)), v)
    return v


def real_fn(f: Callable[[float], float], g: Callable[[complex], complex] | None = None
            ) -> Callable[[Num], Num]:
    def h(v: Num) -> Num:
        if isinstance(v, complex):
            if g is None:
                raise Unsupported("complex input")
            return g(v)
        return f(float(v))
    return h


def log1p_c(z: complex) -> complex:
    return cmath.log(1 + z)


def expm1_c(z: complex) -> complex:
    return cmath.exp(z) - 1


def float_part(f: Callable[[float], float]) -> Callable[[Num], Num]:
    """FLOOR, CEIL, TRUNC: integers and bools as they are."""
    def h(v: Num) -> Num:
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return v
            return math.copysign(float(f(v)), v)
        return v
    return h


UNARY: dict[str, Callable[[Num], Num]] = {
    "abs": lambda v: abs(v),
    "acos": real_fn(math.acos, cmath.acos),
    "acosh": real_fn(math.acosh, cmath.acosh),
    "asin": real_fn(math.asin, cmath.asin),
    "asinh": real_fn(math.asinh, cmath.asinh),
    "atan": real_fn(math.atan, cmath.atan),
    "atanh": real_fn(math.atanh, cmath.atanh),
    "ceil": float_part(math.ceil),
    "conj": lambda v: v.conjugate() if isinstance(v, complex) else v,
    "cos": real_fn(math.cos, cmath.cos),
    "cosh": real_fn(math.cosh, cmath.cosh),
    "exp": real_fn(math.exp, cmath.exp),
    "expm1": real_fn(math.expm1, expm1_c),
    "floor": float_part(math.floor),
    "imag": lambda v: complex(v).imag,
    "isfinite": lambda v: cmath.isfinite(v) if isinstance(v, complex) else
    not isinstance(v, float) or math.isfinite(v),
    "isinf": lambda v: cmath.isinf(v) if isinstance(v, complex) else
    isinstance(v, float) and math.isinf(v),
    "isnan": lambda v: cmath.isnan(v) if isinstance(v, complex) else
    isinstance(v, float) and math.isnan(v),
    "log": real_fn(math.log, cmath.log),
    "log1p": real_fn(math.log1p, log1p_c),
    "log2": real_fn(math.log2, lambda z: cmath.log(z) / math.log(2)),
    "log10": real_fn(math.log10, cmath.log10),
    "logical_not": lambda v: not v,
    "negative": lambda v: -v,
    "positive": lambda v: v,
    "real": lambda v: complex(v).real,
    "reciprocal": lambda v: 1 / v,
    "round": round_half_even,
    "sign": sign,
    "signbit": lambda v: math.copysign(1.0, v) < 0,
    "sin": real_fn(math.sin, cmath.sin),
    "sinh": real_fn(math.sinh, cmath.sinh),
    "sqrt": real_fn(math.sqrt, cmath.sqrt),
    "square": lambda v: v * v,
    "tan": real_fn(math.tan, cmath.tan),
    "tanh": real_fn(math.tanh, cmath.tanh),
    "trunc": float_part(math.trunc),
    "bitwise_invert": lambda v: (not v) if isinstance(v, bool) else ~v,
}
UNARY_BOOL = ("isfinite", "isinf", "isnan", "logical_not", "signbit")
UNARY_REAL = ("abs", "imag", "real")


def floor_divide(a: Num, b: Num) -> Num:
    if isinstance(a, float) or isinstance(b, float):
        return math.floor(a / b) * 1.0
    return a // b


def remainder(a: Num, b: Num) -> Num:
    if isinstance(a, float) or isinstance(b, float):
        r = math.fmod(a, b)
        if r != 0 and (r < 0) != (b < 0):
            r += b
        return r if r != 0 else math.copysign(0.0, b)
    return a % b


def power(a: Num, b: Num) -> Num:
    if isinstance(a, complex) or isinstance(b, complex):
        return complex(a) ** complex(b)
    if isinstance(a, float) or isinstance(b, float):
        return math.pow(a, b)
    if b < 0:
        raise Unsupported("an integer to a negative power")
    return a ** b


def logaddexp(a: Num, b: Num) -> Num:
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))


BINARY: dict[str, Callable[[Num, Num], Num]] = {
    "add": lambda a, b: a + b,
    "atan2": lambda a, b: math.atan2(a, b),
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
    "bitwise_left_shift": lambda a, b: a << b,
    "bitwise_right_shift": lambda a, b: a >> b,
    "copysign": lambda a, b: math.copysign(a, b),
    "divide": lambda a, b: a / b,
    "equal": lambda a, b: a == b,
    "floor_divide": floor_divide,
    "greater": lambda a, b: a > b,
    "greater_equal": lambda a, b: a >= b,
    "hypot": lambda a, b: math.hypot(a, b),
    "less": lambda a, b: a < b,
    "less_equal": lambda a, b: a <= b,
    "logaddexp": logaddexp,
    "logical_and": lambda a, b: bool(a) and bool(b),
    "logical_or": lambda a, b: bool(a) or bool(b),
    "logical_xor": lambda a, b: bool(a) != bool(b),
    "maximum": lambda a, b: a if (isinstance(a, float) and math.isnan(a)) else max(a, b),
    "minimum": lambda a, b: a if (isinstance(a, float) and math.isnan(a)) else min(a, b),
    "multiply": lambda a, b: a * b,
    "nextafter": lambda a, b: math.nextafter(a, b),
    "not_equal": lambda a, b: a != b,
    "pow": power,
    "remainder": remainder,
    "subtract": lambda a, b: a - b,
}
BINARY_BOOL = ("equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
               "logical_or", "logical_xor", "not_equal")
DUNDER = {
    "__abs__": "abs", "__add__": "add", "__and__": "bitwise_and", "__eq__": "equal",
    "__floordiv__": "floor_divide", "__ge__": "greater_equal", "__gt__": "greater",
    "__invert__": "bitwise_invert", "__le__": "less_equal", "__lshift__": "bitwise_left_shift",
    "__lt__": "less", "__matmul__": "matmul", "__mod__": "remainder", "__mul__": "multiply",
    "__ne__": "not_equal", "__neg__": "negative", "__or__": "bitwise_or", "__pos__": "positive",
    "__pow__": "pow", "__rshift__": "bitwise_right_shift", "__sub__": "subtract",
    "__truediv__": "divide", "__xor__": "bitwise_xor", "T": "matrix_transpose",
    "mT": "matrix_transpose"}


def as_arr(v: Any, like: Arr) -> Arr:
    """A Python scalar beside an array: an array of that array's dtype."""
    if isinstance(v, Arr):
        return v
    return Arr(like.dtype, (), [v])


def unary(name: str, x: Arr) -> Arr:
    f = UNARY[name]
    if name == "nextafter":
        raise Unsupported(name)
    if name == "signbit" and kind(x.dtype) != "float":
        raise Unsupported("signbit of a non-float")
    out = "bool" if name in UNARY_BOOL else x.dtype
    if name in UNARY_REAL and kind(x.dtype) == "complex":
        out = REAL_OF[x.dtype]
    if name in ("real", "imag") and kind(x.dtype) != "complex":
        raise Unsupported("real or imag of a real array")
    return Arr(out, x.shape, [f(v) for v in x.data])


def binary(name: str, a: Any, b: Any) -> Arr:
    if not isinstance(a, Arr):
        a = as_arr(a, b)
    b = as_arr(b, a)
    if a.dtype != b.dtype:
        raise Unsupported("mixed dtypes")
    f = BINARY[name]
    shape = broadcast(a.shape, b.shape)
    x, y = broadcast_to(a, shape), broadcast_to(b, shape)
    if kind(a.dtype) == "float" and name == "divide":
        data = [fdiv(p, q) for p, q in zip(x.data, y.data, strict=True)]
    elif name == "nextafter" and a.dtype == "float32":
        data = [nextafter32(p, q) for p, q in zip(x.data, y.data, strict=True)]
    else:
        data = [f(p, q) for p, q in zip(x.data, y.data, strict=True)]
    return Arr("bool" if name in BINARY_BOOL else a.dtype, shape, data)


def nextafter32(a: float, b: float) -> float:
    """The float32 next to A towards B."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return b
    if a == 0:
        return math.copysign(2.0 ** -149, b)
    bits = struct.unpack("<i", struct.pack("<f", a))[0]
    bits += 1 if (b > a) == (a > 0) else -1
    out: float = struct.unpack("<f", struct.pack("<i", bits))[0]
    return out


def fdiv(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


# -- reductions ---------------------------------------------------------------------------


def reduce(x: Arr, axis: Any, keepdims: bool, f: Callable[[list[Num]], Num], dtype: str,
           empty_ok: bool = True) -> Arr:
    axes = axes_of(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    groups: dict[tuple[int, ...], list[Num]] = {}
    for i in indices([x.shape[d] for d in kept]):
        groups[i] = []
    for idx in indices(x.shape):
        groups[tuple(idx[d] for d in kept)].append(x.at(idx))
    if not empty_ok and any(not g for g in groups.values()):
        raise Unsupported("a reduction over nothing")
    shape = [x.shape[d] if d in kept else 1 for d in range(x.ndim)] if keepdims else \
        [x.shape[d] for d in kept]
    return Arr(dtype, shape, [f(groups[i]) for i in indices([x.shape[d] for d in kept])])


def fsum(vs: list[Num]) -> Num:
    if any(isinstance(v, complex) for v in vs):
        return complex(math.fsum(v.real for v in vs), math.fsum(complex(v).imag for v in vs))
    if any(isinstance(v, float) for v in vs):
        return math.fsum(vs)
    return sum(vs)


def fprod(vs: list[Num]) -> Num:
    p: Num = 1
    for v in vs:
        p *= v
    return p


# Before 2023.12 sum, prod and linalg.trace of a floating array with dtype=None gave the
# default floating dtype (the library's); from 2023.12 they give the input's, as sum_dtype
# does. A case checking that dtype is of 2023.12 (gen_function_cases.py cites API-FN-3).
INPUT_DTYPE_SINCE = {"sum": "2023.12", "prod": "2023.12", "linalg.trace": "2023.12"}


def sum_dtype(x: Arr, dtype: Any) -> str:
    if dtype is not None:
        return str(dtype)
    if kind(x.dtype) in ("int", "bool"):
        raise Unsupported("the default integer dtype is the library's")
    return x.dtype


def mean(vs: list[Num]) -> Num:
    return fsum(vs) / len(vs) if vs else math.nan


def var(vs: list[Num], correction: float) -> Num:
    m = mean(vs)
    d = len(vs) - correction
    if d <= 0:
        return math.nan
    return math.fsum(abs(v - m) ** 2 for v in vs) / d


# -- the table ----------------------------------------------------------------------------


def take_kw(kwargs: dict[str, Any], allowed: Sequence[str]) -> None:
    for k in kwargs:
        if k not in allowed:
            raise Unsupported("keyword %s" % k)


def index_arr(shape: Sequence[int], data: Sequence[int]) -> Arr:
    return Arr(INDEX, shape, data)


def moveaxes(x: Arr, perm: Sequence[int]) -> Arr:
    shape = [x.shape[p] for p in perm]
    data = []
    for idx in indices(shape):
        src = [0] * x.ndim
        for k, p in enumerate(perm):
            src[p] = idx[k]
        data.append(x.at(src))
    return Arr(x.dtype, shape, data)


def lines(x: Arr, axis: int) -> list[tuple[list[tuple[int, ...]], list[Num]]]:
    """The 1-d lines of X along AXIS: each as its indices and values."""
    rest = [d for d in range(x.ndim) if d != axis]
    out = []
    for r in indices([x.shape[d] for d in rest]):
        idxs = []
        for k in range(x.shape[axis]):
            i = list(r)
            i.insert(axis, k)
            idxs.append(tuple(i))
        out.append((idxs, [x.at(i) for i in idxs]))
    return out


def along(x: Arr, axis: int, f: Callable[[list[Num]], list[Num]], dtype: str,
          n: int | None = None) -> Arr:
    """F applied to every line of X along AXIS (giving N elements each, default the same)."""
    shape = list(x.shape)
    if n is not None:
        shape[axis] = n
    data: list[Num] = [None] * size(shape)
    for idxs, vals in lines(x, axis):
        res = f(vals)
        for k, v in enumerate(res):
            i = list(idxs[0]) if idxs else []
            i[axis] = k
            data[flat(shape, i)] = v
    return Arr(dtype, shape, data)


def sort_key(v: Num) -> tuple[int, Num]:
    if isinstance(v, float) and math.isnan(v):
        return (1, 0.0)
    return (0, v)


def matrices(x: Arr) -> list[list[list[Num]]]:
    if x.ndim != 2:
        raise Unsupported("a stack of matrices")
    n, m = x.shape
    return [[[x.at((i, j)) for j in range(m)] for i in range(n)]]


def mat(x: Arr) -> list[list[Num]]:
    return matrices(x)[0]


def from_mat(dtype: str, rows: list[list[Num]]) -> Arr:
    return Arr(dtype, (len(rows), len(rows[0]) if rows else 0), [v for r in rows for v in r])


def matmul2(a: list[list[Num]], b: list[list[Num]]) -> list[list[Num]]:
    return [[fsum([a[i][k] * b[k][j] for k in range(len(b))]) for j in range(len(b[0]))]
            for i in range(len(a))]


def lu_solve(a: list[list[Num]], b: list[list[Num]]) -> tuple[list[list[Num]], Num]:
    """A^-1 B and det(A), by Gaussian elimination with partial pivoting in double."""
    n = len(a)
    m = [list(a[i]) + list(b[i]) for i in range(n)]
    det: Num = 1
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if m[p][c] == 0:
            raise Unsupported("a singular matrix")
        if p != c:
            m[c], m[p] = m[p], m[c]
            det = -det
        det *= m[c][c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    x = [[m[i][n + j] / m[i][i] for j in range(len(b[0]))] for i in range(n)]
    return x, det


def identity(n: int) -> list[list[Num]]:
    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]


def jacobi_eigh(a: list[list[Num]]) -> tuple[list[float], list[list[float]]]:
    """The eigenvalues (ascending) of a real symmetric matrix, by Jacobi rotations."""
    n = len(a)
    m = [[float(v.real if isinstance(v, complex) else v) for v in r] for r in a]
    if any(isinstance(v, complex) and v.imag for r in a for v in r):
        raise Unsupported("a complex Hermitian matrix")
    v = identity(n)
    for _ in range(100):
        off = math.fsum(m[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-40:
            break
        for p in range(n):
            for q in range(p + 1, n):
                if m[p][q] == 0:
                    continue
                theta = (m[q][q] - m[p][p]) / (2 * m[p][q])
                t = math.copysign(1.0, theta) / (abs(theta) + math.sqrt(theta * theta + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(n):
                    mkp, mkq = m[k][p], m[k][q]
                    m[k][p], m[k][q] = c * mkp - s * mkq, s * mkp + c * mkq
                for k in range(n):
                    mpk, mqk = m[p][k], m[q][k]
                    m[p][k], m[q][k] = c * mpk - s * mqk, s * mpk + c * mqk
                for k in range(n):
                    vkp, vkq = v[k][p], v[k][q]
                    v[k][p], v[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
    return sorted(m[i][i] for i in range(n)), v


def symmetric(a: list[list[Num]]) -> bool:
    return all(a[i][j] == a[j][i] for i in range(len(a)) for j in range(len(a)))


def singular_values(a: list[list[Num]]) -> list[float]:
    """Descending: the square roots of the eigenvalues of A^T A."""
    at = [list(r) for r in zip(*a, strict=True)]
    ata = matmul2(at, a) if len(a) >= len(a[0]) else matmul2(a, at)
    ev, _ = jacobi_eigh(ata)
    return sorted((math.sqrt(max(e, 0.0)) for e in ev), reverse=True)


def gram_schmidt(a: list[list[Num]]) -> tuple[list[list[Num]], list[list[Num]]]:
    """Q and R of A (square, full rank), R's diagonal positive."""
    n = len(a)
    cols = [[a[i][j] for i in range(n)] for j in range(n)]
    q: list[list[Num]] = []
    r = [[0.0] * n for _ in range(n)]
    for j, c in enumerate(cols):
        w = list(c)
        for k, e in enumerate(q):
            r[k][j] = fsum([e[i] * c[i] for i in range(n)])
            w = [w[i] - r[k][j] * e[i] for i in range(n)]
        r[j][j] = math.sqrt(fsum([v * v for v in w]))
        q.append([v / r[j][j] for v in w])
    return [[q[j][i] for j in range(n)] for i in range(n)], r


def cholesky(a: list[list[Num]]) -> list[list[Num]]:
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - fsum([low[i][k] * low[j][k] for k in range(j)])
            low[i][j] = math.sqrt(s) if i == j else s / low[j][j]
    return low


QUARTERS = (1 + 0j, -1j, -1 + 0j, 1j)


def dft(xs: list[complex], inverse: bool) -> list[complex]:
    """The discrete Fourier transform by its definition: X_k = sum_n x_n e^(-+2 pi i k n / N)."""
    n = len(xs)
    sgn = 1 if inverse else -1
    out = []
    for k in range(n):
        re = []
        im = []
        for j, x in enumerate(xs):
            r = (k * j) % n
            # the quarter turns exactly, the rest by cmath
            w = QUARTERS[(4 * r // n) % 4] if (4 * r) % n == 0 else \
                cmath.exp(sgn * 2j * math.pi * r / n)
            if (4 * r) % n == 0 and inverse:
                w = w.conjugate()
            p = complex(x) * w
            re.append(p.real)
            im.append(p.imag)
        out.append(complex(math.fsum(re), math.fsum(im)))
    return out


def fft_scale(norm: str, n: int, inverse: bool) -> float:
    if norm == "backward":
        return 1.0 / n if inverse else 1.0
    if norm == "forward":
        return 1.0 if inverse else 1.0 / n
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    raise Unsupported("norm %s" % norm)


def fft_line(vals: list[Num], n: int | None, inverse: bool, norm: str) -> list[complex]:
    n = len(vals) if n is None else n
    xs = [complex(v) for v in vals][:n] + [0j] * max(0, n - len(vals))
    s = fft_scale(norm, n, inverse)
    return [v * s for v in dft(xs, inverse)]


def fft1(x: Arr, n: int | None, axis: int, norm: str, inverse: bool, real_in: bool,
         real_out: bool) -> Arr:
    ax = axis_of(axis, x.ndim)
    cdt = COMPLEX_OF.get(x.dtype, x.dtype)
    if real_in:  # rfft
        if kind(x.dtype) != "float":
            raise Unsupported("rfft of a non-real array")
        m = x.shape[ax] if n is None else n
        return along(x, ax, lambda v: fft_line(v, m, False, norm)[: m // 2 + 1], cdt,
                     m // 2 + 1)
    if real_out:  # irfft: the Hermitian-symmetric input extended
        if kind(x.dtype) != "complex":
            raise Unsupported("irfft of a real array")
        m = 2 * (x.shape[ax] - 1) if n is None else n

        def line(v: list[Num]) -> list[Num]:
            half = [complex(c) for c in v][: m // 2 + 1]
            half += [0j] * (m // 2 + 1 - len(half))
            full = half + [half[m - k].conjugate() for k in range(m // 2 + 1, m)]
            full[0] = complex(full[0].real, 0)
            if m % 2 == 0:
                full[m // 2] = complex(full[m // 2].real, 0)
            return [c.real for c in fft_line(full, m, True, norm)]
        return along(x, ax, line, REAL_OF[x.dtype], m)
    if kind(x.dtype) != "complex":
        raise Unsupported("fft of a real array")
    m = x.shape[ax] if n is None else n
    return along(x, ax, lambda v: fft_line(v, m, inverse, norm), cdt, m)


def hfft(x: Arr, n: int | None, axis: int, norm: str) -> Arr:
    """hfft(x, n) = irfft(conj(x), n) with the forward and backward norms swapped."""
    swap = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    conj = Arr(x.dtype, x.shape, [complex(v).conjugate() for v in x.data])
    return fft1(conj, n, axis, swap, True, False, True)


def ihfft(x: Arr, n: int | None, axis: int, norm: str) -> Arr:
    swap = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    r = fft1(x, n, axis, swap, False, True, False)
    return Arr(r.dtype, r.shape, [complex(v).conjugate() for v in r.data])


def fftn(x: Arr, s: Any, axes: Any, norm: str, inverse: bool, real: str) -> Arr:
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    axes = [axis_of(a, x.ndim) for a in axes]
    ns: list[Any] = [None] * len(axes) if s is None else list(s)
    if len(ns) != len(axes):
        raise Unsupported("s and axes of different lengths")
    if real == "rfftn":
        y = fft1(x, ns[-1], axes[-1], norm, False, True, False)
        for a, n in zip(axes[:-1], ns[:-1], strict=True):
            y = fft1(y, n, a, norm, False, False, False)
        return y
    if real == "irfftn":
        y = x
        for a, n in zip(axes[:-1], ns[:-1], strict=True):
            y = fft1(y, n, a, norm, True, False, False)
        return fft1(y, ns[-1], axes[-1], norm, True, False, True)
    y = x
    for a, n in zip(axes, ns, strict=True):
        y = fft1(y, n, a, norm, inverse, False, False)
    return y


def shift(x: Arr, axes: Any, inverse: bool) -> Arr:
    y = x
    for a in axes_of(axes, x.ndim):
        n = x.shape[a]
        k = -(n // 2) if inverse else n // 2
        y = roll(y, k, a)
    return y


def roll(x: Arr, k: int, axis: Any) -> Arr:
    if axis is None:
        n = size(x.shape)
        if n == 0:
            return x
        data = [x.data[(i - k) % n] for i in range(n)]
        return Arr(x.dtype, x.shape, data)
    axes = [axis] if isinstance(axis, int) else list(axis)
    ks = [k] * len(axes) if isinstance(k, int) else list(k)
    y = x
    for a, s in zip(axes, ks, strict=True):
        a = axis_of(a, x.ndim)
        n = x.shape[a]
        y = along(y, a, rotate(s, n), x.dtype)
    return y


def rotate(s: int, n: int) -> Callable[[list[Num]], list[Num]]:
    """A line of N elements rolled by S."""
    return lambda v: [v[(i - s) % n] for i in range(n)]


def concat(xs: list[Arr], axis: int | None) -> Arr:
    if axis is None:
        return Arr(xs[0].dtype, (sum(size(x.shape) for x in xs),),
                   [v for x in xs for v in x.data])
    a = axis_of(axis, xs[0].ndim)
    shape = list(xs[0].shape)
    shape[a] = sum(x.shape[a] for x in xs)
    data = []
    for idx in indices(shape):
        k = idx[a]
        for x in xs:
            if k < x.shape[a]:
                i = list(idx)
                i[a] = k
                data.append(x.at(i))
                break
            k -= x.shape[a]
    return Arr(xs[0].dtype, shape, data)


def expand(x: Arr, axis: int) -> Arr:
    a = axis_of(axis, x.ndim + 1)
    shape = list(x.shape)
    shape.insert(a, 1)
    return Arr(x.dtype, shape, x.data)


def triangle(x: Arr, k: int, lower: bool) -> Arr:
    data = []
    for idx in indices(x.shape):
        i, j = idx[-2], idx[-1]
        keep = j - i <= k if lower else j - i >= k
        data.append(x.at(idx) if keep else round_to(x.dtype, 0))
    return Arr(x.dtype, x.shape, data)


def unique(x: Arr) -> tuple[list[Num], list[int], list[int], list[int]]:
    """The distinct values (sorted, each NaN apart), the first index of each, the inverse
    indices and the counts."""
    vals: list[Num] = []
    first: list[int] = []
    counts: list[int] = []
    for i, v in enumerate(x.data):
        nan = isinstance(v, float) and math.isnan(v)
        if not nan and v in vals:
            k = vals.index(v)
            counts[k] += 1
            continue
        vals.append(v)
        first.append(i)
        counts.append(1)
    if any(isinstance(v, complex) for v in vals):
        raise Unsupported("the order of complex values")
    order = sorted(range(len(vals)), key=lambda k: sort_key(vals[k]))
    vals = [vals[k] for k in order]
    first = [first[k] for k in order]
    counts = [counts[k] for k in order]
    inverse = [vals.index(v) for v in x.data]
    return vals, first, inverse, counts


def linspace(start: Num, stop: Num, num: int, endpoint: bool, dtype: str) -> Arr:
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div else 0
    data = [start + i * step for i in range(num)]
    if endpoint and num > 1:
        data[-1] = stop
    return Arr(dtype, (num,), data)


def default_float(dtype: Any) -> str:
    if dtype is None:
        raise Unsupported("the default floating dtype is the library's")
    return str(dtype)


def evaluate(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """NAME applied to ARGS and KWARGS by the standard's definition."""
    if name.startswith("Array."):
        attr = name[len("Array."):]
        if attr in DUNDER:
            return evaluate(DUNDER[attr], args, kwargs)
        x = args[0]
        simple: dict[str, Callable[[], Any]] = {
            "__bool__": lambda: bool(x.data[0]), "__float__": lambda: float(x.data[0]),
            "__int__": lambda: int(x.data[0]), "__index__": lambda: int(x.data[0]),
            "__complex__": lambda: complex(x.data[0]), "ndim": lambda: x.ndim,
            "shape": lambda: list(x.shape), "size": lambda: size(x.shape),
            "dtype": lambda: {"dtype": x.dtype}, "to_device": lambda: x}
        if attr in simple and not kwargs:
            if attr in ("__bool__", "__float__", "__int__", "__index__", "__complex__") and \
                    size(x.shape) != 1:
                raise Unsupported("a conversion of more than one element")
            return simple[attr]()
        raise Unsupported(name)
    if name in UNARY:
        take_kw(kwargs, ())
        return unary(name, args[0])
    if name in BINARY:
        take_kw(kwargs, ())
        return binary(name, args[0], args[1])
    f = TABLE.get(name)
    if f is None:
        raise Unsupported(name)
    return f(*args, **kwargs)


def _where(c: Arr, a: Any, b: Any) -> Arr:
    a = as_arr(a, b if isinstance(b, Arr) else c)
    b = as_arr(b, a)
    shape = broadcast(c.shape, a.shape, b.shape)
    cc, aa, bb = (broadcast_to(v, shape) for v in (c, a, b))
    return Arr(a.dtype, shape, [p if k else q for k, p, q in
                                 zip(cc.data, aa.data, bb.data, strict=True)])


def _clip(x: Arr, min: Any = None, max: Any = None) -> Arr:
    y = x
    if min is not None:
        y = binary("maximum", y, as_arr(min, x))
    if max is not None:
        y = binary("minimum", y, as_arr(max, x))
    return y


def _sum(x: Arr, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, fsum, sum_dtype(x, dtype))


def _prod(x: Arr, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, fprod, sum_dtype(x, dtype))


def _max(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, lambda v: max(v, key=sort_key), x.dtype, False)


def _min(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, lambda v: min(v, key=sort_key), x.dtype, False)


def _mean(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    if kind(x.dtype) not in ("float", "complex"):
        raise Unsupported("mean of integers")
    return reduce(x, axis, keepdims, mean, x.dtype)


def _var(x: Arr, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Arr:
    if kind(x.dtype) != "float":
        raise Unsupported("var of a non-real array")
    return reduce(x, axis, keepdims, lambda v: var(v, correction), x.dtype)


def _std(x: Arr, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Arr:
    v = _var(x, axis, correction, keepdims)
    return Arr(v.dtype, v.shape, [math.sqrt(e) for e in v.data])


def _all(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, lambda v: all(bool(e) for e in v), "bool")


def _any(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, lambda v: any(bool(e) for e in v), "bool")


def _count_nonzero(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return reduce(x, axis, keepdims, lambda v: sum(1 for e in v if e), INDEX)


def _arg(x: Arr, axis: Any, keepdims: bool, best: Callable[..., Any]) -> Arr:
    if axis is None:
        flatx = Arr(x.dtype, (size(x.shape),), x.data)
        r = _arg(flatx, 0, False, best)
        return Arr(INDEX, [1] * x.ndim if keepdims else (), r.data)
    return reduce(Arr(x.dtype, x.shape, x.data), axis, keepdims,
                  lambda v: v.index(best(v, key=sort_key)), INDEX, False)


def _argmax(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return _arg(x, axis, keepdims, max)


def _argmin(x: Arr, axis: Any = None, keepdims: bool = False) -> Arr:
    return _arg(x, axis, keepdims, min)


def _cumulative(x: Arr, axis: Any, dtype: Any, include_initial: bool, op: str) -> Arr:
    if axis is None:
        if x.ndim != 1:
            raise Unsupported("cumulative over more than one dimension without axis")
        axis = 0
    a = axis_of(axis, x.ndim)
    dt = sum_dtype(x, dtype)

    def line(v: list[Num]) -> list[Num]:
        out: list[Num] = [0 if op == "sum" else 1] if include_initial else []
        acc: list[Num] = []
        for e in v:
            acc.append(e)
            out.append(fsum(acc) if op == "sum" else fprod(acc))
        return out
    return along(x, a, line, dt, x.shape[a] + (1 if include_initial else 0))


def _cumulative_sum(x: Arr, axis: Any = None, dtype: Any = None,
                    include_initial: bool = False) -> Arr:
    return _cumulative(x, axis, dtype, include_initial, "sum")


def _cumulative_prod(x: Arr, axis: Any = None, dtype: Any = None,
                     include_initial: bool = False) -> Arr:
    return _cumulative(x, axis, dtype, include_initial, "prod")


def _sort(x: Arr, axis: int = -1, descending: bool = False, stable: bool = True) -> Arr:
    a = axis_of(axis, x.ndim)

    def line(v: list[Num]) -> list[Num]:
        order = sorted(range(len(v)), key=lambda k: sort_key(v[k]), reverse=descending)
        return [v[k] for k in order]
    return along(x, a, line, x.dtype)


def _argsort(x: Arr, axis: int = -1, descending: bool = False, stable: bool = True) -> Arr:
    a = axis_of(axis, x.ndim)

    def line(v: list[Num]) -> list[Num]:
        if descending:  # stable: equal values keep their order
            return sorted(range(len(v)), key=lambda k: (-sort_key(v[k])[0], -v[k]))
        return sorted(range(len(v)), key=lambda k: sort_key(v[k]))
    if descending and len(set(x.data)) != len(x.data) and not stable:
        raise Unsupported("an unstable descending order of equal values")
    return along(x, a, line, INDEX)


def _searchsorted(x1: Arr, x2: Arr, side: str = "left", sorter: Any = None) -> Arr:
    xs = x1.data if sorter is None else [x1.data[k] for k in sorter.data]
    out = []
    for v in x2.data:
        if side == "left":
            out.append(sum(1 for e in xs if e < v))
        else:
            out.append(sum(1 for e in xs if e <= v))
    return Arr(INDEX, x2.shape, out)


def _nonzero(x: Arr) -> list[Arr]:
    if x.ndim == 0:
        raise Unsupported("nonzero of a 0-d array")
    hits = [idx for idx in indices(x.shape) if x.at(idx)]
    return [index_arr((len(hits),), [h[d] for h in hits]) for d in range(x.ndim)]


def _unique_values(x: Arr) -> Arr:
    vals, _, _, _ = unique(x)
    return Arr(x.dtype, (len(vals),), vals)


def _unique_counts(x: Arr) -> tuple[Arr, Arr]:
    vals, _, _, counts = unique(x)
    return Arr(x.dtype, (len(vals),), vals), index_arr((len(vals),), counts)


def _unique_inverse(x: Arr) -> tuple[Arr, Arr]:
    vals, _, inverse, _ = unique(x)
    return Arr(x.dtype, (len(vals),), vals), index_arr(x.shape, inverse)


def _unique_all(x: Arr) -> tuple[Arr, Arr, Arr, Arr]:
    vals, first, inverse, counts = unique(x)
    n = (len(vals),)
    return (Arr(x.dtype, n, vals), index_arr(n, first), index_arr(x.shape, inverse),
            index_arr(n, counts))


def _isin(x1: Arr, x2: Arr, invert: bool = False) -> Arr:
    return Arr("bool", x1.shape, [(v in x2.data) != invert for v in x1.data])


def _reshape(x: Arr, shape: Sequence[int], copy: Any = None) -> Arr:
    shape = list(shape)
    if -1 in shape:
        k = shape.index(-1)
        rest = size([d for d in shape if d != -1])
        shape[k] = size(x.shape) // rest
    return Arr(x.dtype, shape, x.data)


def _flip(x: Arr, axis: Any = None) -> Arr:
    axes = axes_of(axis, x.ndim)
    data = [x.at([x.shape[d] - 1 - i[d] if d in axes else i[d] for d in range(x.ndim)])
            for i in indices(x.shape)]
    return Arr(x.dtype, x.shape, data)


def _roll(x: Arr, shift: Any, axis: Any = None) -> Arr:
    return roll(x, shift, axis)


def _concat(arrays: Any, axis: Any = 0) -> Arr:
    return concat(list(arrays), axis)


def _stack(arrays: Any, axis: int = 0) -> Arr:
    xs = list(arrays)
    return concat([expand(x, axis) for x in xs], axis_of(axis, xs[0].ndim + 1))


def _squeeze(x: Arr, axis: Any) -> Arr:
    axes = axes_of(axis, x.ndim)
    if any(x.shape[a] != 1 for a in axes):
        raise Unsupported("squeeze of an axis longer than 1")
    return Arr(x.dtype, [d for k, d in enumerate(x.shape) if k not in axes], x.data)


def _expand_dims(x: Arr, axis: int = 0) -> Arr:
    return expand(x, axis)


def _permute_dims(x: Arr, axes: Sequence[int]) -> Arr:
    return moveaxes(x, list(axes))


def _moveaxis(x: Arr, source: Any, destination: Any) -> Arr:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [axis_of(s, x.ndim) for s in src]
    dst = [axis_of(d, x.ndim) for d in dst]
    order = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return moveaxes(x, order)


def _matrix_transpose(x: Arr) -> Arr:
    if x.ndim < 2:
        raise Unsupported("a transpose of fewer than two dimensions")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return moveaxes(x, perm)


def _tile(x: Arr, reps: Sequence[int]) -> Arr:
    reps = list(reps)
    n = max(len(reps), x.ndim)
    reps = [1] * (n - len(reps)) + reps
    xs = Arr(x.dtype, [1] * (n - x.ndim) + list(x.shape), x.data)
    shape = [d * r for d, r in zip(xs.shape, reps, strict=True)]
    return Arr(x.dtype, shape, [xs.at([i % d for i, d in zip(idx, xs.shape, strict=True)])
                                for idx in indices(shape)])


def _repeat(x: Arr, repeats: Any, axis: Any = None) -> Arr:
    if axis is None:
        x = Arr(x.dtype, (size(x.shape),), x.data)
        axis = 0
    a = axis_of(axis, x.ndim)
    n = x.shape[a]
    reps = [repeats] * n if isinstance(repeats, int) else list(repeats.data)
    total = sum(reps)

    def line(v: list[Num]) -> list[Num]:
        return [e for e, r in zip(v, reps, strict=True) for _ in range(r)]
    return along(x, a, line, x.dtype, total)


def _broadcast_to(x: Arr, shape: Sequence[int]) -> Arr:
    return broadcast_to(x, list(shape))


def _broadcast_arrays(*arrays: Arr) -> list[Arr]:
    shape = broadcast(*(a.shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def _unstack(x: Arr, axis: int = 0) -> list[Arr]:
    a = axis_of(axis, x.ndim)
    out = []
    for k in range(x.shape[a]):
        shape = [d for i, d in enumerate(x.shape) if i != a]
        data = []
        for idx in indices(shape):
            i = list(idx)
            i.insert(a, k)
            data.append(x.at(i))
        out.append(Arr(x.dtype, shape, data))
    return out


def _take(x: Arr, indices_: Arr, axis: Any = None) -> Arr:
    if axis is None:
        if x.ndim != 1:
            raise Unsupported("take without axis of more than one dimension")
        axis = 0
    a = axis_of(axis, x.ndim)
    shape = list(x.shape)
    shape[a] = len(indices_.data)
    data = []
    for idx in indices(shape):
        i = list(idx)
        i[a] = indices_.data[idx[a]]
        data.append(x.at(i))
    return Arr(x.dtype, shape, data)


def _take_along_axis(x: Arr, indices_: Arr, axis: int = -1) -> Arr:
    a = axis_of(axis, x.ndim)
    data = []
    for idx in indices(indices_.shape):
        i = list(idx)
        i[a] = indices_.at(idx)
        data.append(x.at(i))
    return Arr(x.dtype, indices_.shape, data)


def _diff(x: Arr, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Arr:
    a = axis_of(axis, x.ndim)
    if prepend is not None:
        x = concat([prepend, x], a)
    if append is not None:
        x = concat([x, append], a)
    for _ in range(n):
        m = x.shape[a]
        x = along(x, a, lambda v: [v[i + 1] - v[i] for i in range(len(v) - 1)], x.dtype,
                  m - 1)
    return x


def _tril(x: Arr, k: int = 0) -> Arr:
    return triangle(x, k, True)


def _triu(x: Arr, k: int = 0) -> Arr:
    return triangle(x, k, False)


def _creation(fill: Num) -> Callable[..., Arr]:
    def f(shape: Any, dtype: Any = None, device: Any = None) -> Arr:
        shape = [shape] if isinstance(shape, int) else list(shape)
        return Arr(default_float(dtype), shape, [fill] * size(shape))
    return f


def _full(shape: Any, fill_value: Num, dtype: Any = None, device: Any = None) -> Arr:
    shape = [shape] if isinstance(shape, int) else list(shape)
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = "bool"
        elif isinstance(fill_value, float):
            raise Unsupported("the default floating dtype is the library's")
        else:
            raise Unsupported("the default integer dtype is the library's")
    return Arr(str(dtype), shape, [fill_value] * size(shape))


def _like(fill: Num | None) -> Callable[..., Arr]:
    def f(x: Arr, *rest: Any, dtype: Any = None, device: Any = None) -> Arr:
        v = rest[0] if fill is None else fill
        return Arr(x.dtype if dtype is None else str(dtype), x.shape, [v] * size(x.shape))
    return f


def _eye(n_rows: int, n_cols: Any = None, k: int = 0, dtype: Any = None,
         device: Any = None) -> Arr:
    m = n_rows if n_cols is None else n_cols
    return Arr(default_float(dtype), (n_rows, m),
               [1 if j - i == k else 0 for i in range(n_rows) for j in range(m)])


def _arange(start: Num, stop: Any = None, step: Num = 1, dtype: Any = None,
            device: Any = None) -> Arr:
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        if any(isinstance(v, float) for v in (start, stop, step)):
            raise Unsupported("the default floating dtype is the library's")
        dtype = INDEX
    n = max(0, math.ceil((stop - start) / step))
    return Arr(str(dtype), (n,), [start + i * step for i in range(n)])


def _linspace(start: Num, stop: Num, num: int, dtype: Any = None, device: Any = None,
              endpoint: bool = True) -> Arr:
    return linspace(start, stop, num, endpoint, default_float(dtype))


def _asarray(obj: Arr, dtype: Any = None, device: Any = None, copy: Any = None) -> Arr:
    if dtype is not None and str(dtype) != obj.dtype:
        return _astype(obj, dtype)
    return obj


def _astype(x: Arr, dtype: Any, copy: bool = True, device: Any = None) -> Arr:
    dt = str(dtype)
    if kind(x.dtype) == "complex" and kind(dt) != "complex":
        raise Unsupported("complex to real")
    if kind(dt) == "int" and kind(x.dtype) == "float":
        return Arr(dt, x.shape, [math.trunc(v) for v in x.data])
    return Arr(dt, x.shape, x.data)


def _from_dlpack(x: Arr, device: Any = None, copy: Any = None) -> Arr:
    return x


def _meshgrid(*arrays: Arr, indexing: str = "xy") -> list[Arr]:
    xs = list(arrays)
    shape = [len(x.data) for x in xs]
    if indexing == "xy" and len(xs) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for k, x in enumerate(xs):
        d = k
        if indexing == "xy" and len(xs) >= 2 and k < 2:
            d = 1 - k
        out.append(Arr(x.dtype, shape, [x.data[idx[d]] for idx in indices(shape)]))
    return out


def _fftfreq(n: int, d: float = 1.0, dtype: Any = None, device: Any = None) -> Arr:
    vals = [(k if k < (n + 1) // 2 else k - n) / (d * n) for k in range(n)]
    return Arr(default_float(dtype), (n,), vals)


def _rfftfreq(n: int, d: float = 1.0, dtype: Any = None, device: Any = None) -> Arr:
    return Arr(default_float(dtype), (n // 2 + 1,), [k / (d * n) for k in range(n // 2 + 1)])


def _matmul(a: Arr, b: Arr) -> Arr:
    if a.dtype != b.dtype:
        raise Unsupported("mixed dtypes")
    if a.ndim == 1 and b.ndim == 1:
        return Arr(a.dtype, (), [fsum([p * q for p, q in zip(a.data, b.data, strict=True)])])
    aa = a if a.ndim == 2 else Arr(a.dtype, (1, a.shape[0]), a.data)
    bb = b if b.ndim == 2 else Arr(b.dtype, (b.shape[0], 1), b.data)
    r = from_mat(a.dtype, matmul2(mat(aa), mat(bb)))
    shape = list(r.shape)
    if a.ndim == 1:
        shape.pop(0)
    if b.ndim == 1:
        shape.pop()
    return Arr(a.dtype, shape, r.data)


def _tensordot(a: Arr, b: Arr, axes: Any = 2) -> Arr:
    if not isinstance(axes, int):
        raise Unsupported("tensordot's axes as lists")
    m = size(a.shape[a.ndim - axes:])
    left = a.shape[: a.ndim - axes]
    right = b.shape[axes:]
    am = Arr(a.dtype, (size(left), m), a.data)
    bm = Arr(b.dtype, (m, size(right)), b.data)
    r = from_mat(a.dtype, matmul2(mat(am), mat(bm)))
    return Arr(a.dtype, list(left) + list(right), r.data)


def _vecdot(a: Arr, b: Arr, axis: int = -1) -> Arr:
    shape = broadcast(a.shape, b.shape)
    x, y = broadcast_to(a, shape), broadcast_to(b, shape)
    ax = axis_of(axis, len(shape))
    prod = Arr(a.dtype, shape, [p.conjugate() * q if isinstance(p, complex) else p * q
                                for p, q in zip(x.data, y.data, strict=True)])
    return reduce(prod, ax, False, fsum, a.dtype)


def _outer(a: Arr, b: Arr) -> Arr:
    return Arr(a.dtype, (len(a.data), len(b.data)), [p * q for p in a.data for q in b.data])


def _cross(a: Arr, b: Arr, axis: int = -1) -> Arr:
    if a.ndim != 1 or b.ndim != 1 or len(a.data) != 3:
        raise Unsupported("cross of more than two vectors")
    x, y = a.data, b.data
    return Arr(a.dtype, (3,), [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                               x[0] * y[1] - x[1] * y[0]])


def _trace(x: Arr, offset: int = 0, dtype: Any = None) -> Arr:
    m = mat(x)
    vals = [m[i][i + offset] for i in range(len(m)) if 0 <= i + offset < len(m[0])]
    return Arr(sum_dtype(x, dtype), (), [fsum(vals)])


def _diagonal(x: Arr, offset: int = 0) -> Arr:
    m = mat(x)
    vals = [m[i][i + offset] for i in range(len(m)) if 0 <= i + offset < len(m[0])]
    return Arr(x.dtype, (len(vals),), vals)


def real_float(x: Arr) -> None:
    if kind(x.dtype) != "float":
        raise Unsupported("a linear algebra result of a %s matrix" % x.dtype)


def _det(x: Arr) -> Arr:
    real_float(x)
    m = mat(x)
    _, d = lu_solve(m, [[0.0] for _ in m])
    return Arr(x.dtype, (), [d])


def _slogdet(x: Arr) -> tuple[Arr, Arr]:
    d = _det(x).data[0]
    return Arr(x.dtype, (), [sign(d)]), Arr(x.dtype, (), [math.log(abs(d))])


def _inv(x: Arr) -> Arr:
    real_float(x)
    m = mat(x)
    r, _ = lu_solve(m, identity(len(m)))
    return from_mat(x.dtype, r)


def _solve(a: Arr, b: Arr) -> Arr:
    real_float(a)
    if b.ndim != 2:
        raise Unsupported("solve with a vector")
    r, _ = lu_solve(mat(a), mat(b))
    return from_mat(a.dtype, r)


def _cholesky(x: Arr, upper: bool = False) -> Arr:
    real_float(x)
    low = cholesky(mat(x))
    if upper:
        low = [list(r) for r in zip(*low, strict=True)]
    return from_mat(x.dtype, low)


def _matrix_power(x: Arr, n: int) -> Arr:
    m = mat(x)
    if n < 0:
        m, _ = lu_solve(m, identity(len(m)))
        n = -n
    r = [[1 if i == j else 0 for j in range(len(m))] for i in range(len(m))]
    for _ in range(n):
        r = matmul2(r, m)
    return from_mat(x.dtype, r)


def _svdvals(x: Arr) -> Arr:
    real_float(x)
    s = singular_values(mat(x))
    return Arr(x.dtype, (len(s),), s)


def _svd(x: Arr, full_matrices: bool = True) -> tuple[Arr, Arr, Arr]:
    s = _svdvals(x)
    n, m = x.shape
    k = min(n, m)
    u = (n, n if full_matrices else k)
    vh = (m if full_matrices else k, m)
    return Arr(x.dtype, u, [0] * size(u)), s, Arr(x.dtype, vh, [0] * size(vh))


def _eigvalsh(x: Arr) -> Arr:
    real_float(x)
    m = mat(x)
    if not symmetric(m):
        raise Unsupported("a matrix that is not symmetric")
    ev, _ = jacobi_eigh(m)
    return Arr(x.dtype, (len(ev),), ev)


def _eigh(x: Arr) -> tuple[Arr, Arr]:
    w = _eigvalsh(x)
    n = len(w.data)
    return w, Arr(x.dtype, (n, n), [0] * (n * n))


def _eigvals(x: Arr) -> Arr:
    """Of a symmetric matrix: its real eigenvalues as complex numbers, by modulus."""
    w = _eigvalsh(x)
    return Arr(COMPLEX_OF[x.dtype], w.shape, w.data)


def _eig(x: Arr) -> tuple[Arr, Arr]:
    w = _eigvals(x)
    n = len(w.data)
    return w, Arr(w.dtype, (n, n), [0] * (n * n))


def _qr(x: Arr, mode: str = "reduced") -> tuple[Arr, Arr]:
    real_float(x)
    if x.shape[0] != x.shape[1]:
        raise Unsupported("qr of a matrix that is not square")
    q, r = gram_schmidt(mat(x))
    return from_mat(x.dtype, q), from_mat(x.dtype, r)


def _pinv(x: Arr, rtol: Any = None) -> Arr:
    if rtol is not None:
        tol = rtol.data[0] if isinstance(rtol, Arr) else rtol
        s = singular_values(mat(x))
        if min(s) <= tol * max(s):
            raise Unsupported("pinv that drops a singular value")
    return _inv(x)


def _matrix_rank(x: Arr, rtol: Any = None) -> Arr:
    real_float(x)
    s = singular_values(mat(x))
    if rtol is None:
        eps = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}[x.dtype]
        tol = max(s) * max(x.shape) * eps
    else:
        tol = (rtol.data[0] if isinstance(rtol, Arr) else rtol) * max(s)
    return Arr(INDEX, (), [sum(1 for v in s if v > tol)])


def _matrix_norm(x: Arr, keepdims: bool = False, ord: Any = "fro") -> Arr:
    real_float(x)
    m = mat(x)
    if ord == "fro":
        v = math.sqrt(math.fsum(e * e for r in m for e in r))
    elif ord == "nuc":
        v = math.fsum(singular_values(m))
    elif ord == 1:
        v = max(math.fsum(abs(m[i][j]) for i in range(len(m))) for j in range(len(m[0])))
    elif ord == math.inf:
        v = max(math.fsum(abs(e) for e in r) for r in m)
    elif ord == 2:
        v = singular_values(m)[0]
    else:
        raise Unsupported("matrix_norm ord %r" % (ord,))
    return Arr(x.dtype, (1, 1) if keepdims else (), [v])


def _vector_norm(x: Arr, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Arr:
    dt = REAL_OF.get(x.dtype, x.dtype)
    if kind(dt) != "float":
        raise Unsupported("vector_norm of integers")

    def norm(v: list[Num]) -> Num:
        a = [abs(e) for e in v]
        if ord == math.inf:
            return max(a)
        if ord == -math.inf:
            return min(a)
        if ord == 0:
            return float(sum(1 for e in a if e))
        return math.fsum(e ** ord for e in a) ** (1.0 / ord)
    return reduce(x, axis, keepdims, norm, dt)


def isdtype(dtype: str, kinds: Any) -> bool:
    """isdtype by the standard's kind names."""
    if not isinstance(kinds, str):
        return any(isdtype(dtype, k) for k in kinds)
    k = kind(dtype)
    named = {"bool": k == "bool", "signed integer": dtype in INTS and INTS[dtype][1],
             "unsigned integer": dtype in INTS and not INTS[dtype][1], "integral": k == "int",
             "real floating": k == "float", "complex floating": k == "complex",
             "numeric": k != "bool"}
    if kinds in named:
        return named[kinds]
    return dtype == kinds


def _fft_kw(f: Callable[..., Arr]) -> Callable[..., Arr]:
    def g(x: Arr, n: Any = None, axis: int = -1, norm: str = "backward") -> Arr:
        return f(x, n, axis, norm)
    return g


def _fftn_kw(inverse: bool, real: str) -> Callable[..., Arr]:
    def g(x: Arr, s: Any = None, axes: Any = None, norm: str = "backward") -> Arr:
        return fftn(x, s, axes, norm, inverse, real)
    return g


TABLE: dict[str, Callable[..., Any]] = {
    "where": _where, "clip": _clip,
    "sum": _sum, "prod": _prod, "max": _max, "min": _min, "mean": _mean, "var": _var,
    "std": _std, "all": _all, "any": _any, "count_nonzero": _count_nonzero,
    "argmax": _argmax, "argmin": _argmin, "cumulative_sum": _cumulative_sum,
    "cumulative_prod": _cumulative_prod,
    "sort": _sort, "argsort": _argsort, "searchsorted": _searchsorted, "nonzero": _nonzero,
    "unique_values": _unique_values, "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse, "unique_all": _unique_all, "isin": _isin,
    "reshape": _reshape, "flip": _flip, "roll": _roll, "concat": _concat, "stack": _stack,
    "squeeze": _squeeze, "expand_dims": _expand_dims, "permute_dims": _permute_dims,
    "moveaxis": _moveaxis, "matrix_transpose": _matrix_transpose,
    "linalg.matrix_transpose": _matrix_transpose, "tile": _tile, "repeat": _repeat,
    "broadcast_to": _broadcast_to, "broadcast_arrays": _broadcast_arrays,
    "unstack": _unstack, "take": _take, "take_along_axis": _take_along_axis, "diff": _diff,
    "tril": _tril, "triu": _triu,
    "zeros": _creation(0), "ones": _creation(1), "full": _full, "eye": _eye,
    "arange": _arange, "linspace": _linspace, "zeros_like": _like(0), "ones_like": _like(1),
    "full_like": _like(None), "asarray": _asarray, "astype": _astype,
    "from_dlpack": _from_dlpack, "meshgrid": _meshgrid,
    "fft.fftfreq": _fftfreq, "fft.rfftfreq": _rfftfreq,
    "matmul": _matmul, "linalg.matmul": _matmul, "tensordot": _tensordot,
    "linalg.tensordot": _tensordot, "vecdot": _vecdot, "linalg.vecdot": _vecdot,
    "linalg.outer": _outer, "linalg.cross": _cross, "linalg.trace": _trace,
    "linalg.diagonal": _diagonal, "linalg.det": _det, "linalg.slogdet": _slogdet,
    "linalg.inv": _inv, "linalg.solve": _solve, "linalg.cholesky": _cholesky,
    "linalg.matrix_power": _matrix_power, "linalg.svdvals": _svdvals, "linalg.svd": _svd,
    "linalg.eigvalsh": _eigvalsh, "linalg.eigh": _eigh, "linalg.eigvals": _eigvals,
    "linalg.eig": _eig, "linalg.qr": _qr, "linalg.pinv": _pinv,
    "linalg.matrix_rank": _matrix_rank, "linalg.matrix_norm": _matrix_norm,
    "linalg.vector_norm": _vector_norm,
    "fft.fft": _fft_kw(lambda x, n, a, m: fft1(x, n, a, m, False, False, False)),
    "fft.ifft": _fft_kw(lambda x, n, a, m: fft1(x, n, a, m, True, False, False)),
    "fft.rfft": _fft_kw(lambda x, n, a, m: fft1(x, n, a, m, False, True, False)),
    "fft.irfft": _fft_kw(lambda x, n, a, m: fft1(x, n, a, m, True, False, True)),
    "fft.hfft": _fft_kw(hfft), "fft.ihfft": _fft_kw(ihfft),
    "fft.fftn": _fftn_kw(False, ""), "fft.ifftn": _fftn_kw(True, ""),
    "fft.rfftn": _fftn_kw(False, "rfftn"), "fft.irfftn": _fftn_kw(True, "irfftn"),
    "broadcast_shapes": lambda *shapes: list(broadcast(*shapes)),
    "isdtype": lambda dtype, kind_: isdtype(dtype, kind_),
    "fft.fftshift": lambda x, axes=None: shift(x, axes, False),
    "fft.ifftshift": lambda x, axes=None: shift(x, axes, True),
}
