#!/usr/bin/env python3
"""Write conformance/cases/oneflow-global.json: OneFlow's placements, sbp and conversions
between sbps (OF-ATTR-1, OF-PL-*, OF-SBP-*) on 4 ranks, for SPMD adapters.

    gen_global_cases.py [--root DIR] [--check]

Every expected value is computed here from the statements: a split(d) piece of rank r is
rank r's part of dimension d cut evenly (the shapes are chosen so that every cut is even, as
OF-SBP-2 says "evenly"); broadcast gives every rank the whole value (OF-SBP-3); a
partial_sum value is the elementwise sum of the pieces (OF-SBP-4), so sources in
partial_sum are built from pieces whose sum is the value, and a partial_sum result's pieces
are left to the library (only their sum, the global value, is checked). Every conversion
keeps the global value (OF-SBP-6): each case checks the value and each rank's piece.

Cases: every ordered pair of split(0), split(1), broadcast and partial_sum on a 1-D
placement of 4 ranks (int32 4 x 8); split(0) -> broadcast and partial_sum -> broadcast for
every dtype; on the 2 x 2 placement [[0, 1], [2, 3]] every pair to (broadcast, broadcast)
and from it; placements flat, nested, placement.all, env.all_device_placement, equality,
and the errors; a whole value made partial_sum (on the first rank, zeros elsewhere).
Operations (global.binary, global.sum): every sbp pair of add,
subtract, multiply and divide on the 1-D placement and some on the 2 x 2 one, with the
result's sbp and each rank's piece checked where OneFlow's signature takes the pair as it is
(the value always); sum over every axis and each axis for each sbp. --check compares the
file with what would be written and exits 1 when it differs.
"""

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import generated

# A value read from or written as JSON.
Json = Any
# An exact element: bool, int, float, or (re, im) for complex; arithmetic on it is the
# dtype's, so it is used as Any.
Value = Any

OUT = "conformance/cases/oneflow-global.json"
RANKS = 4
FLAT = {"type": "cpu", "ranks": [0, 1, 2, 3]}
MESH = {"type": "cpu", "ranks": [[0, 1], [2, 3]]}
MESH_SHAPE = (2, 2)
SBPS: dict[str, Json] = {"S0": {"split": 0}, "S1": {"split": 1}, "B": "broadcast",
                         "P": "partial_sum"}
PRINTED = {"S0": "oneflow.sbp.split(dim=0)", "S1": "oneflow.sbp.split(dim=1)",
           "B": "oneflow.sbp.broadcast", "P": "oneflow.sbp.partial_sum"}
NAMES = {"S0": "split(0)", "S1": "split(1)", "B": "broadcast", "P": "partial_sum"}
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def size(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def base_value(i: int, dtype: str) -> Value:
    """Element i of the test value, as an exact Python number (complex as (re, im))."""
    v = (i * 5 + 3) % 17
    if dtype == "bool":
        return i % 3 == 0
    if dtype in ("int8", "int16", "int32", "int64"):
        return (v - 8) * {"int8": 1, "int16": 300, "int32": 70000, "int64": 4000000000}[dtype]
    if dtype.startswith("uint"):
        return v * {"uint8": 1, "uint16": 1000, "uint32": 100000, "uint64": 1000000000000}[dtype]
    if dtype.startswith("float"):
        return (v - 8) * 0.5
    return ((v - 8) * 0.5, float(i))


def encode(x: Value, dtype: str) -> Json:
    """A typed-array element: integers beyond 2^53 as strings, complex as [re, im]."""
    if dtype == "bool":
        return bool(x)
    if dtype.startswith("complex"):
        return [x[0], x[1]]
    if isinstance(x, int) and abs(x) > 2 ** 53:
        return str(x)
    return x


def typed(dtype: str, shape: Sequence[int], values: Sequence[Value]) -> Json:
    return {"dtype": dtype, "shape": list(shape), "data": [encode(v, dtype) for v in values]}


def zero(dtype: str) -> Value:
    if dtype == "bool":
        return False
    if dtype.startswith("complex"):
        return (0.0, 0.0)
    if dtype.startswith("float"):
        return 0.0
    return 0


def index(shape: Sequence[int], flat: int) -> list[int]:
    out: list[int] = []
    for s in reversed(shape):
        out.append(flat % s)
        flat //= s
    return list(reversed(out))


def window(shape: Sequence[int], sbp: Sequence[Json], mesh: Sequence[int],
           coord: Sequence[int]) -> list[list[int]]:
    """[(off, len)] per dim of the piece at mesh coordinates coord (even cuts only)."""
    win = [[0, s] for s in shape]
    for m, s in enumerate(sbp):
        if isinstance(s, dict):
            d = s["split"]
            k = mesh[m]
            assert win[d][1] % k == 0, "the generator uses even cuts only"
            part = win[d][1] // k
            win[d] = [win[d][0] + coord[m] * part, part]
    return win


def cut(values: Sequence[Value], shape: Sequence[int],
        win: list[list[int]]) -> tuple[list[Value], list[int]]:
    out: list[Value] = []
    for i in range(size(shape)):
        idx = index(shape, i)
        if all(o <= x < o + n for x, (o, n) in zip(idx, win, strict=True)):
            out.append(values[i])
    return out, [n for _, n in win]


def coords(mesh: Sequence[int]) -> list[list[int]]:
    return [index(list(mesh), r) for r in range(size(mesh))]


def partial_pieces(values: list[Value], dtype: str, n: int) -> list[list[Value]]:
    """n pieces whose elementwise sum is values: rank 0 holds the value minus the others;
    the others hold small numbers (for bool, or: rank 0 the value, the others false)."""
    if dtype == "bool":
        return [values] + [[False] * len(values) for _ in range(n - 1)]
    pieces: list[list[Value]] = []
    for r in range(1, n):
        if dtype.startswith("complex"):
            pieces.append([(float(r), -float(r)) for _ in values])
        elif dtype.startswith("float"):
            pieces.append([float(r) for _ in values])
        else:
            pieces.append([r for _ in values])
    first: list[Value] = []
    for i, v in enumerate(values):
        if dtype.startswith("complex"):
            first.append((v[0] - sum(p[i][0] for p in pieces),
                          v[1] - sum(p[i][1] for p in pieces)))
        elif dtype.startswith("uint"):
            # Unsigned addition wraps: the first addend is the difference modulo 2^bits.
            first.append((v - sum(p[i] for p in pieces)) % 2 ** int(dtype[4:]))
        else:
            first.append(v - sum(p[i] for p in pieces))
    return [first, *pieces]


def source_args(values: Sequence[Value], dtype: str, shape: Sequence[int], placement: Json,
                sbp: Sequence[Json], mesh: Sequence[int]) -> Json:
    """global.make's arguments building the value under sbp: from the whole value, or, where
    some placement dim is partial_sum, from pieces that add up to it."""
    if not any(s == "partial_sum" for s in sbp):
        return {"value": typed(dtype, shape, values)}
    cs = coords(mesh)
    locals_: list[Json] = []
    for r in range(RANKS):
        # The piece a rank holds: its window of the dims that split, and along each
        # partial_sum dim of the mesh its addend (split again among the ranks of that dim).
        win = window(shape, sbp, mesh, cs[r])
        part, pshape = cut(values, shape, win)
        n = 1
        pos = 0
        for m, s in enumerate(sbp):
            if s == "partial_sum":
                pos = pos * mesh[m] + cs[r][m]
                n *= mesh[m]
        locals_.append(typed(dtype, pshape, partial_pieces(part, dtype, n)[pos]))
    return {"locals": locals_}


def conversion(cid: str, dtype: str, shape: Sequence[int], values: Sequence[Value],
               placement: Json, mesh: Sequence[int], src: list[str], dst: list[str] | None,
               spec: list[str]) -> Json:
    args: Json = {"placement": placement, "sbp": [SBPS[s] for s in src]}
    args.update(source_args(values, dtype, shape, placement, [SBPS[s] for s in src], mesh))
    if dst is not None:
        args["to"] = [SBPS[s] for s in dst]
    final = dst if dst is not None else src
    whole = typed(dtype, shape, values)
    per_rank: list[Json] = []
    cs = coords(mesh)
    for r in range(RANKS):
        e: Json = {"value": whole, "dtype": dtype, "shape": list(shape)}
        if dst is None:
            # OF-ATTR-1, OF-SBP-1: a global array has a placement and an sbp per dimension.
            e["placement"] = {"$type": "string"}
            e["sbp"] = [{"$type": "string"} for _ in src]
        if "P" not in final:
            part, pshape = cut(values, shape, window(shape, [SBPS[s] for s in final], mesh, cs[r]))
            e["local"] = typed(dtype, pshape, part)
        per_rank.append(e)
    where = "the 1-D placement of 4 ranks" if len(mesh) == 1 else "the 2 x 2 placement"
    if dst is None:
        desc = "A %s %s array %s on %s: each rank holds its piece; the value is the one given." % (
            dtype, "x".join(map(str, shape)), names(src), where)
    else:
        desc = ("A %s %s array converted from %s to %s on %s keeps its value; each rank holds "
                "its piece of the result%s." % (dtype, "x".join(map(str, shape)), names(src),
                                                names(dst), where,
                                                "" if "P" not in final else
                                                " (partial_sum pieces are the library's; their sum "
                                                "is checked)"))
    features = ["placement", "sbp"] + (["sbp-convert"] if dst is not None else [])
    return {"id": cid, "description": desc, "spec": spec, "features": features, "ranks": RANKS,
            "steps": [{"op": "global.make", "args": args, "expect_ranks": per_rank}]}


def placement_cases() -> list[Json]:
    flat_str = 'oneflow.placement(type="cpu", ranks=[0, 1, 2, 3])'
    cases: list[Json] = []

    def case(cid: str, desc: str, spec: list[str], step: Json) -> None:
        cases.append({"id": "oneflow.placement." + cid, "description": desc, "spec": spec,
                      "features": ["placement"], "ranks": RANKS, "steps": [step]})

    case("flat", "placement(type, ranks) with a flat list of ranks: its type and a 1-D mesh of 4.",
         ["OF-PL-1", "OF-PL-2"],
         {"op": "global.placement", "args": FLAT,
          "expect": {"type": "cpu", "shape": [4], "str": flat_str}})
    case("nested", "placement(type, ranks) with a nested list: a 2 x 2 mesh.", ["OF-PL-2"],
         {"op": "global.placement", "args": MESH,
          "expect": {"type": "cpu", "shape": [2, 2],
                     "str": 'oneflow.placement(type="cpu", ranks=[[0, 1], [2, 3]])'}})
    case("all", "placement.all(type) on 4 ranks is the placement of ranks 0 to 3.", ["OF-PL-3"],
         {"op": "global.placement", "args": {"type": "cpu", "all": "placement.all"},
          "expect": {"type": "cpu", "shape": [4], "str": flat_str}})
    case("env-all", "env.all_device_placement(type) is the same placement as placement.all(type).",
         ["OF-PL-4"],
         {"op": "global.placement", "args": {"type": "cpu", "all": "env.all_device_placement"},
          "expect": {"type": "cpu", "shape": [4], "str": flat_str}})
    case("equal", "Two placements of the same type and ranks are equal.", ["OF-PL-1"],
         {"op": "global.placement_equal", "args": {"a": FLAT, "b": FLAT}, "expect": True})
    case("order", "A placement is the group of its ranks (OF-PL-1): the same ranks in another "
         "order are the same placement, as OneFlow 0.9.0 answers (it sorts them: [3, 2, 1, 0] "
         "equals and prints as [0, 1, 2, 3]).", ["OF-PL-1"],
         {"op": "global.placement_equal",
          "args": {"a": FLAT, "b": {"type": "cpu", "ranks": [3, 2, 1, 0]}}, "expect": True})
    case("order-printed", "A placement's ranks print sorted: placement('cpu', [3, 2, 1, 0]) "
         "prints as the placement of ranks 0 to 3 (OneFlow 0.9.0).", ["OF-PL-1", "OF-PL-2"],
         {"op": "global.placement", "args": {"type": "cpu", "ranks": [3, 2, 1, 0]},
          "expect": {"type": "cpu", "shape": [4], "str": flat_str}})
    case("nested-differs", "A 2 x 2 mesh differs from the flat list of the same ranks.",
         ["OF-PL-2"],
         {"op": "global.placement_equal", "args": {"a": FLAT, "b": MESH}, "expect": False})
    for cid, ranks, what in (("duplicate", [0, 1, 1, 2], "a rank listed twice"),
                             ("ragged", [[0, 1], [2]], "rows of different lengths"),
                             ("empty", [], "no rank")):
        case("bad-" + cid, "A placement with %s is refused." % what, ["OF-PL-2"],
             {"op": "global.placement", "args": {"type": "cpu", "ranks": ranks}, "raises": "any"})
    # A rank beyond those that run: OF-PL-2 says placements name running ranks but not when a
    # wrong one is refused, so either moment passes, at the placement or at the first array
    # placed there (OneFlow 0.9.0 refuses at the array).
    outside = {"type": "cpu", "ranks": [0, 1, 2, 4]}
    cases.append({
        "id": "oneflow.placement.bad-outside",
        "description": "A placement with a rank beyond the 4 that run is refused, when it is "
                       "made or when an array is placed there (the statement is silent on when).",
        "spec": ["OF-PL-2"], "features": ["placement", "sbp"], "ranks": RANKS,
        "steps": [
            {"op": "global.placement", "args": outside,
             "either": [{"raises": "any", "stop": True}, {"expect": {"$type": "object"}}]},
            {"op": "global.make", "args": {"placement": outside, "sbp": ["broadcast"],
                                           "value": typed("float32", (2,), [1.0, 2.0])},
             "raises": "any"}]})
    return cases


# ---- operations on global arrays: OneFlow's SBP signatures ----

OPS: dict[str, Callable[[Value, Value], Value]] = {
       "add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
       "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}
# Divisors for the operation cases: powers of two, so that every quotient is exact.
DIVISORS = [0.5, 1.0, 2.0, 4.0, -0.5, -1.0, -2.0, -4.0]


def signature(fn: str, a: str, b: str) -> str | None:
    """The sbp OneFlow's signature gives x1 fn x2 along one placement dimension without
    converting either operand, or None where the operands must first be converted (then the
    result's sbp is the library's choice). (S(i), S(i)) -> S(i) and (B, B) -> B for every
    elementwise op; (P, P) -> P for add and subtract (the sum of sums); (P, B) -> P for
    multiply and divide and (B, P) -> P for multiply (linear in the partial operand)."""
    if a == b and (a != "P" or fn in ("add", "subtract")):
        return a
    if (fn in ("multiply", "divide") and a == "P" and b == "B") or \
       (fn == "multiply" and a == "B" and b == "P"):
        return "P"
    return None


def piece(values: Sequence[Value], dtype: str, shape: Sequence[int], sbp: list[str],
          mesh: Sequence[int], r: int) -> tuple[list[Value], list[int]]:
    """Rank r's local piece of the array global.make builds (source_args): for partial_sum
    its addend, otherwise its cut."""
    args = source_args(values, dtype, shape, None, [SBPS[s] for s in sbp], mesh)
    if "locals" in args:
        loc = args["locals"][r]
        return [decode(x, dtype) for x in loc["data"]], loc["shape"]
    return cut(values, shape, window(shape, [SBPS[s] for s in sbp], mesh, coords(mesh)[r]))


def decode(x: Json, dtype: str) -> Value:
    if dtype.startswith("complex"):
        return (x[0], x[1])
    return int(x) if isinstance(x, str) else x


def reduce_sum(values: Sequence[Value], shape: list[int],
               axis: int | None) -> tuple[list[Value], list[int]]:
    """sum over axis (None: every axis); returns (values, shape)."""
    if axis is None:
        return [sum(values)], []
    oshape = [s for i, s in enumerate(shape) if i != axis]
    out = [0.0] * size(oshape)
    for i in range(size(shape)):
        idx = index(shape, i)
        del idx[axis]
        j = 0
        for x, s in zip(idx, oshape, strict=True):
            j = j * s + x
        out[j] += values[i]
    return out, oshape


def gspec(values: Sequence[Value], dtype: str, shape: Sequence[int], placement: Json,
          sbp: list[str], mesh: Sequence[int]) -> Json:
    g: Json = {"placement": placement, "sbp": [SBPS[s] for s in sbp]}
    g.update(source_args(values, dtype, shape, placement, [SBPS[s] for s in sbp], mesh))
    return g


def names(sbp: Sequence[str]) -> str:
    return "(" + ", ".join(NAMES[s] for s in sbp) + ")"


def binary_case(fn: str, placement: Json, mesh: Sequence[int], a: list[str], b: list[str]) -> Json:
    dtype, shape = "float64", (4, 8)
    # No zero in x1: a zero times a negative number is -0.0, which a partial_sum result
    # (a sum of products) holds as +0.0; both are the same number, the cases compare bits.
    xs = [base_value(i, dtype) or 0.25 for i in range(size(shape))]
    ys = [DIVISORS[(i * 3) % 8] for i in range(size(shape))]
    f = OPS[fn]
    whole = [f(x, y) for x, y in zip(xs, ys, strict=True)]
    found = [signature(fn, s, u) for s, u in zip(a, b, strict=True)]
    sig = [s for s in found if s is not None]
    direct = len(sig) == len(found)
    per_rank: list[Json] = []
    for r in range(RANKS):
        e: Json = {"value": typed(dtype, shape, whole), "dtype": dtype, "shape": list(shape)}
        if direct:
            # No operand is converted: the result's sbp is the signature's, and each rank's
            # piece is its two pieces combined.
            e["sbp"] = [PRINTED[s] for s in sig]
            p1, s1 = piece(xs, dtype, shape, a, mesh, r)
            p2, _ = piece(ys, dtype, shape, b, mesh, r)
            e["local"] = typed(dtype, s1, [f(x, y) for x, y in zip(p1, p2, strict=True)])
        else:
            e["sbp"] = [{"$type": "string"} for _ in a]
        per_rank.append(e)
    tag = "-".join(s.lower() for s in a) + "." + "-".join(s.lower() for s in b)
    where = "the 1-D placement of 4 ranks" if len(mesh) == 1 else "the 2 x 2 placement"
    if direct:
        desc = ("%s of %s and %s on %s: OneFlow's signature gives %s without converting either "
                "operand; each rank's piece is its operands' pieces combined, the value is x1 %s "
                "x2." % (fn, names(a), names(b), where, names(sig), fn))
    else:
        desc = ("%s of %s and %s on %s: no signature takes this pair as it is, so the operands "
                "are converted (to an sbp of the library's choosing); the value is x1 %s x2 on "
                "every rank." % (fn, names(a), names(b), where, fn))
    spec = ["OF-SBP-1", "OF-SBP-6"] + (["OF-SBP-4"] if "P" in a + b else [])
    if len(mesh) == 2:
        spec = ["OF-PL-2", *spec]
    return {"id": "oneflow.sbp.op.%s%s.%s" % (fn, ".mesh" if len(mesh) == 2 else "", tag),
            "description": desc, "spec": spec, "features": ["placement", "sbp", "sbp-convert"],
            "ranks": RANKS,
            "steps": [{"op": "global.binary",
                       "args": {"fn": fn, "x1": gspec(xs, dtype, shape, placement, a, mesh),
                                "x2": gspec(ys, dtype, shape, placement, b, mesh)},
                       "expect_ranks": per_rank}]}


def sum_sbp(s: str, axis: int | None, ndim: int) -> str:
    """sum's signature along one placement dimension: a split of a reduced dim gives
    partial_sum, a split of a kept dim stays a split of that dim of the result, broadcast
    and partial_sum stay."""
    if s in ("B", "P"):
        return s
    d = SBPS[s]["split"]
    if axis is None or axis == d:
        return "P"
    return "S%d" % (d - 1 if axis < d else d)


def sum_case(placement: Json, mesh: Sequence[int], sbp: list[str], axis: int | None) -> Json:
    dtype, shape = "float64", (4, 8)
    xs = [base_value(i, dtype) for i in range(size(shape))]
    whole, wshape = reduce_sum(xs, list(shape), axis)
    res = [sum_sbp(s, axis, len(shape)) for s in sbp]
    per_rank: list[Json] = []
    for r in range(RANKS):
        p, pshape = piece(xs, dtype, shape, sbp, mesh, r)
        loc, lshape = reduce_sum(p, list(pshape), axis)
        per_rank.append({"value": typed(dtype, wshape, whole), "dtype": dtype,
                         "shape": list(wshape), "sbp": [PRINTED[s] for s in res],
                         "local": typed(dtype, lshape, loc)})
    where = "the 1-D placement of 4 ranks" if len(mesh) == 1 else "the 2 x 2 placement"
    over = "every axis" if axis is None else "axis %d" % axis
    desc = ("sum over %s of a %s array on %s: OneFlow's signature gives %s (a split of a reduced "
            "dim becomes partial_sum); each rank's piece is the sum of its own piece." %
            (over, names(sbp), where, names(res)))
    spec = ["OF-SBP-1", "OF-SBP-4"] + (["OF-PL-2"] if len(mesh) == 2 else [])
    return {"id": "oneflow.sbp.sum%s.%s.%s" % (".mesh" if len(mesh) == 2 else "",
                                               "-".join(s.lower() for s in sbp),
                                               "all" if axis is None else "axis%d" % axis),
            "description": desc, "spec": spec, "features": ["placement", "sbp"],
            "ranks": RANKS,
            "steps": [{"op": "global.sum",
                       "args": {"x": gspec(xs, dtype, shape, placement, sbp, mesh)} |
                               ({} if axis is None else {"axis": axis}),
                       "expect_ranks": per_rank}]}


def op_cases() -> list[Json]:
    cases: list[Json] = []
    for fn in OPS:
        for sa in SBPS:
            for sb in SBPS:
                cases.append(binary_case(fn, FLAT, (RANKS,), [sa], [sb]))
    for fn, a, b in (("add", ["S0", "S1"], ["S0", "S1"]), ("add", ["P", "B"], ["P", "B"]),
                     ("subtract", ["P", "P"], ["P", "P"]), ("multiply", ["P", "S1"], ["B", "S1"]),
                     ("divide", ["S1", "P"], ["S1", "B"]), ("add", ["S0", "B"], ["B", "S1"]),
                     ("multiply", ["P", "P"], ["S0", "B"])):
        cases.append(binary_case(fn, MESH, MESH_SHAPE, a, b))
    xs = typed("float64", (4, 8), [base_value(i, "float64") for i in range(32)])
    cases.append({"id": "oneflow.sbp.op.mixed-placements",
                  "description": "add of two global arrays on different placements (all 4 "
                                 "ranks, and ranks 0 and 1 only) is refused.",
                  "spec": ["OF-PL-1"], "features": ["placement", "sbp"], "ranks": RANKS,
                  "steps": [{"op": "global.binary",
                             "args": {"fn": "add",
                                      "x1": {"value": xs, "placement": FLAT, "sbp": ["broadcast"]},
                                      "x2": {"value": xs, "placement": {"type": "cpu",
                                                                        "ranks": [0, 1]},
                                             "sbp": ["broadcast"]}},
                             "raises": "any"}]})
    for s in SBPS:
        for axis in (None, 0, 1):
            cases.append(sum_case(FLAT, (RANKS,), [s], axis))
    for sbp in (["S0", "S1"], ["P", "S0"], ["B", "S1"]):
        for axis in (None, 0, 1):
            cases.append(sum_case(MESH, MESH_SHAPE, sbp, axis))
    return cases


def empty_cases() -> list[Json]:
    """Global arrays of no elements (shape (0,)): made split(0) or broadcast, and converted,
    every piece and the value empty (OneFlow 0.9.0 makes them so on 4 ranks)."""
    cases = [conversion("oneflow.sbp.empty.make-%s" % s.lower(), "float32", (0,), [], FLAT,
                        (RANKS,), [s], None, ["OF-ATTR-1", "OF-SBP-1", stmt])
             for s, stmt in (("S0", "OF-SBP-2"), ("B", "OF-SBP-3"))]
    for a, b in (("S0", "B"), ("B", "S0"), ("S0", "P"), ("B", "P")):
        cases.append(conversion("oneflow.sbp.empty.%s-to-%s" % (a.lower(), b.lower()), "float32",
                                (0,), [], FLAT, (RANKS,), [a], [b], ["OF-SBP-6"]))
    for c in cases:
        c["description"] += " An array of no elements is an array like any other."
    return cases


def broadcast_local_cases() -> list[Json]:
    """Local pieces that differ, made global with broadcast: every rank holds one full copy
    (OF-SBP-3), rank 0's, as OneFlow's Tensor.to_global documents ("the data on rank 0 will
    be broadcast to other ranks") and does (ranks holding [r, r] all read [0, 0])."""
    cases: list[Json] = []
    for tag, placement, sbp in (("flat", FLAT, ["B"]), ("mesh", MESH, ["B", "B"])):
        locals_ = [typed("int64", [2], [r, r]) for r in range(RANKS)]
        zero = typed("int64", [2], [0, 0])
        expect = [{"value": zero, "local": zero, "shape": [2]} for _ in range(RANKS)]
        where = "the 1-D placement of 4 ranks" if tag == "flat" else "the 2 x 2 placement"
        cases.append({
            "id": "oneflow.sbp.broadcast-from-differing-locals.%s" % tag,
            "description": "Local pieces [r, r] on rank r made global with %s on %s: a broadcast "
                           "array is one full copy on every rank (OF-SBP-3), and it is rank 0's: "
                           "every rank holds and reads [0, 0], as OneFlow's to_global documents "
                           "and does." % (names(sbp), where),
            "spec": ["OF-SBP-3", "OF-SBP-1"], "features": ["placement", "sbp"], "ranks": RANKS,
            "steps": [{"op": "global.make",
                       "args": {"locals": locals_, "placement": placement,
                                "sbp": [SBPS[s] for s in sbp]},
                       "expect_ranks": expect}]})
    return cases


def partial_from_value_cases() -> list[Json]:
    """A global array made from a whole value (the same on every rank) with partial_sum along
    some placement dim: the value stays whole on the first rank along each such dim and is
    zero on the others (spec/decisions.md, "partial_sum": global creation does what B to P
    does), so the global value, the sum of the pieces (OF-SBP-4), is the value given, not
    that many times it."""
    cases: list[Json] = []
    shape = (4, 8)
    forms: list[tuple[str, Json, tuple[int, ...], list[str], list[str]]] = [
        ("flat", FLAT, (RANKS,), ["P"], ["int32", "uint8", "float64", "bool"]),
        ("mesh.p-b", MESH, MESH_SHAPE, ["P", "B"], ["int32"]),
        ("mesh.b-p", MESH, MESH_SHAPE, ["B", "P"], ["int32"]),
        ("mesh.p-p", MESH, MESH_SHAPE, ["P", "P"], ["int32"]),
        ("mesh.s0-p", MESH, MESH_SHAPE, ["S0", "P"], ["int32"])]
    for tag, placement, mesh, sbp, dtypes in forms:
        cs = coords(mesh)
        for dt in dtypes:
            values = [base_value(i, dt) for i in range(size(shape))]
            per_rank: list[Json] = []
            first: list[int] = []
            for r in range(RANKS):
                part, pshape = cut(values, shape,
                                   window(shape, [SBPS[s] for s in sbp], mesh, cs[r]))
                whole = all(cs[r][m] == 0 for m, s in enumerate(sbp) if s == "P")
                if whole:
                    first.append(r)
                piece = part if whole else [zero(dt)] * len(part)
                per_rank.append({"value": typed(dt, shape, values), "dtype": dt,
                                 "shape": list(shape), "local": typed(dt, pshape, piece)})
            where = "the 1-D placement of 4 ranks" if len(mesh) == 1 else "the 2 x 2 placement"
            cases.append({
                "id": "oneflow.sbp.partial-from-value.%s.%s" % (tag, dt),
                "description": "A %s 4x8 value given whole on every rank, made global %s on %s: "
                               "rank%s %s hold%s %s and the others zeros (spec/decisions.md, "
                               "partial_sum), so the global value, the sum of the pieces, is "
                               "the value given." % (
                                   dt, names(sbp), where, "s" if len(first) > 1 else "",
                                   " and ".join(map(str, first)),
                                   "" if len(first) > 1 else "s",
                                   "its piece" if "S0" in sbp else "the whole value"),
                "spec": ["OF-SBP-4", "OF-SBP-1"] + (["OF-PL-2"] if len(mesh) > 1 else []),
                "features": ["placement", "sbp"], "ranks": RANKS,
                "steps": [{"op": "global.make",
                           "args": {"value": typed(dt, shape, values), "placement": placement,
                                    "sbp": [SBPS[s] for s in sbp]},
                           "expect_ranks": per_rank}]})
    return cases


def build() -> str:
    cases = placement_cases()
    shape = (4, 8)
    ints = [base_value(i, "int32") for i in range(size(shape))]
    # OF-SBP-1..4: each sbp as made.
    for s, stmt in (("S0", "OF-SBP-2"), ("S1", "OF-SBP-2"), ("B", "OF-SBP-3"), ("P", "OF-SBP-4")):
        cases.append(conversion("oneflow.sbp.make-%s" % s.lower(), "int32", shape, ints, FLAT,
                                (RANKS,), [s], None, ["OF-ATTR-1", "OF-SBP-1", stmt]))
    # OF-SBP-6: every ordered pair on the 1-D placement.
    for a in SBPS:
        for b in SBPS:
            cases.append(conversion("oneflow.sbp.convert.%s-to-%s" % (a.lower(), b.lower()),
                                    "int32", shape, ints, FLAT, (RANKS,), [a], [b],
                                    ["OF-SBP-6"]))
    # Every dtype through the two collectives that move or add values.
    for dt in DTYPES:
        vals = [base_value(i, dt) for i in range(size(shape))]
        for a in ("S0", "P"):
            cases.append(conversion("oneflow.sbp.dtype.%s.%s-to-b" % (dt, a.lower()), dt, shape,
                                    vals, FLAT, (RANKS,), [a], ["B"], ["OF-SBP-6"]))
    # The 2 x 2 placement: every pair to and from (broadcast, broadcast).
    for a in SBPS:
        for b in SBPS:
            if a == b == "B":
                continue
            pair = [a, b]
            tag = "%s-%s" % (a.lower(), b.lower())
            cases.append(conversion("oneflow.sbp.mesh.%s-to-b-b" % tag, "int32", shape, ints,
                                    MESH, MESH_SHAPE, pair, ["B", "B"], ["OF-PL-2", "OF-SBP-6"]))
            cases.append(conversion("oneflow.sbp.mesh.b-b-to-%s" % tag, "int32", shape, ints,
                                    MESH, MESH_SHAPE, ["B", "B"], pair, ["OF-PL-2", "OF-SBP-6"]))
    cases += empty_cases()
    cases += broadcast_local_cases()
    cases += partial_from_value_cases()
    cases += op_cases()
    doc = {"description": "Generated by spec/tools/gen_global_cases.py: OneFlow's placements, "
                          "sbp, every conversion between sbps, elementwise operations and sum "
                          "on 4 ranks, each rank's piece "
                          "and the global value computed from the statements. Do not edit; "
                          "regenerate.",
           "cases": cases}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    return generated.main(__doc__.split("\n\n")[0], lambda root: {OUT: build()},
                          "spec/tools/gen_global_cases.py", argv)


if __name__ == "__main__":
    sys.exit(main())
