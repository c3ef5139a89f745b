#!/usr/bin/env python3
"""Write the generated promotion case files from the rule sets in spec/promotion/.

    gen_dtype_cases.py [--root DIR] [--check]

Reads spec/promotion/dtypes.json, array-api.json and category.json and writes, for every
ordered pair of dtypes of a rule set and every arithmetic op (add, subtract, multiply,
divide), one case with both operands dimensioned and one with the second operand 0-d, and
for every dtype one case per Python scalar kind as the second operand:

    conformance/cases/promotion-array-api.json   (features promotion-table, promotion-scalars)
    conformance/cases/promotion-category.json    (feature promotion-category)

Expected dtypes come from the tables; expected values are computed here exactly (the
operands are small integers, and the scalars 1, 0.5 and true, whose results are exact in
every dtype). A combination gets no case where its rule set states no result:

  - array API: pairs outside the table (mixed groups, uint64 with a signed integer,
    API-PROM-2), scalars of a kind that does not go with the array (API-PROM-3), float16
    (not an array API dtype);
  - category: dtypes outside OneFlow's eight (OF-DT-1), complex scalars (OF-PROM-6 names no
    dtype for them; OneFlow has no complex dtypes, OF-DT-3);
  - both: arithmetic whose promoted dtype is bool (the array API defines arithmetic for
    numeric dtypes only; the seed states promotion, not boolean arithmetic), and divide
    unless the promoted dtype is floating (integer division is implementation-defined in
    the standard, and the seed does not state the dtype of dividing integers).

Under the category rules, the combinations left out above for bool or integral results
(bool + bool, bool / bool, int32 / int32) get a case that accepts an error or OneFlow 0.9.0's
result (bool logic, bool / bool the dividend; true division in float32).
conformance/cases/out-casting.json holds x1 * x2 of every result dtype written into every
out= dtype, and the in-place x1 += x2, -=, *= and /= (out is x1) for every pair of OneFlow's
eight dtypes, the result promoted by category.

Where the two readings of OF-PROM-9 give different dtypes (a 0-d operand of the same
category as the dimensioned one), the case accepts either (spec/decisions.md, point 12).
--check compares the files with what would be written and exits 1 when they differ.
"""

import json
import os
import struct
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import case_features
import generated

# A value read from or written as JSON.
Json = Any
# An exact operand value, and an exact result (complex where an operand is).
Real = int | float | Fraction
Exact = Real | complex

OPS = ("add", "subtract", "multiply", "divide")
SCALARS: dict[str, Json] = {"bool": True, "int": 1, "float": 0.5, "complex": {"complex": [0, 1]}}
OUT_FILES = {
    "array-api": "conformance/cases/promotion-array-api.json",
    "category": "conformance/cases/promotion-category.json",
    "out": "conformance/cases/out-casting.json",
}


def load(root: str, rel: str) -> Json:
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return json.load(f)


class Dtypes:
    def __init__(self, doc: Json) -> None:
        self.info: dict[str, Json] = {d["name"]: d for d in doc["dtypes"]}
        self.order: list[str] = doc["categories"]

    def cat(self, name: str) -> str:
        return str(self.info[name]["category"])

    def rank(self, name: str) -> int:
        return self.order.index(self.cat(name))

    def in_set(self, name: str, s: str) -> bool:
        return s in self.info[name]["sets"]


def operand_values(dt: Dtypes, name: str, zero_dim: bool, second: bool,
                   first: str | None = None) -> list[int]:
    """Operand values as exact numbers (bool as 0/1): x1 = [2, 3], x2 = [1, 2] or 0-d 1; x2 is
    [1, 1] after a bool x1, so that no difference is negative (an unsigned result would wrap,
    which no statement here is about)."""
    if dt.cat(name) == "bool":
        return [1] if zero_dim else [1, 1]
    if zero_dim:
        return [1]
    if second:
        return [1, 1] if first is not None and dt.cat(first) == "bool" else [1, 2]
    return [2, 3]


def element(dt: Dtypes, name: str, v: Exact) -> Json:
    """A typed-array element of dtype name for exact value v."""
    c = dt.cat(name)
    if isinstance(v, complex):
        return [num(v.real), num(v.imag)]
    if c == "bool":
        return bool(v)
    if c == "integral":
        return int(v)
    return [num(v), 0] if c == "complex" else num(v)


def num(v: Real) -> int | float:
    """An exact float element, written as an integer when it is one."""
    f = float(v)
    return int(f) if f == int(f) else f


def compute(op: str, a: Real, b: Exact) -> Exact:
    if isinstance(b, complex):
        # Exact for the values used: small integers and 1j.
        return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b}[op]
    fa, fb = Fraction(a), Fraction(b)
    return {"add": fa + fb, "subtract": fa - fb, "multiply": fa * fb, "divide": fa / fb}[op]


def compute_real(op: str, a: Real, b: Real) -> Real:
    """compute() of two real operands, which is real."""
    r = compute(op, a, b)
    assert not isinstance(r, complex)
    return r


def typed(dt: Dtypes, name: str, values: list[Any], shape: list[int]) -> Json:
    return {"dtype": name, "shape": shape, "data": [element(dt, name, v) for v in values]}


def asarray_step(dt: Dtypes, name: str, values: list[Any], shape: list[int], bind: str) -> Json:
    """An array.asarray step on D0. float16 is not on every device (refarray has it only where
    OpenCL reports cl_khr_fp16): where D0 refuses it with ValueError the case ends there."""
    step: Json = {"op": "array.asarray",
                  "args": {"obj": typed(dt, name, values, shape), "device": "$D0"},
            "as": bind}
    if name == "float16":
        step["either"] = [{"expect": {"$type": "string"}}, {"raises": "ValueError", "stop": True}]
    return step


def binary_steps(dt: Dtypes, op: str, t1: str, t2: str, zero_dim: bool) -> list[Json]:
    """Steps building x1 (dimensioned) and x2 (dimensioned or 0-d) and applying op."""
    v2 = operand_values(dt, t2, zero_dim, True, t1)
    return [
        asarray_step(dt, t1, operand_values(dt, t1, False, False), [2], "x1"),
        asarray_step(dt, t2, v2, [] if zero_dim else [2], "x2"),
        {"op": "array.binary", "args": {"fn": op, "x1": "$x1", "x2": "$x2"}, "as": "y"},
    ]


def expected(dt: Dtypes, op: str, t1: str, v1: list[Any], v2: list[Any], result: str) -> Json:
    vals = [compute(op, a, v2[0] if len(v2) == 1 else v2[i]) for i, a in enumerate(v1)]
    return typed(dt, result, vals, [2])


def a(name: str) -> str:
    """The indefinite article for a dtype name."""
    return "an" if name.startswith("int") else "a"


def case(cid: str, description: str, spec: list[str], features: list[str],
         steps: list[Json]) -> Json:
    return {"id": cid, "description": description, "spec": spec, "features": features,
            "steps": steps}


def allowed(dt: Dtypes, op: str, result: str | None) -> bool:
    if result is None or dt.cat(result) == "bool":
        return False
    return op != "divide" or dt.cat(result) in ("floating", "complex")


def gen_array_api(dt: Dtypes, rs: Json) -> list[Json]:
    names = [n for n in rs["dtypes"] if dt.in_set(n, "array-api")]
    table = rs["table"]
    cases = []
    for op in OPS:
        for t1 in names:
            for t2 in names:
                r = table[t1][t2]
                if not allowed(dt, op, r):
                    continue
                for zero_dim in (False, True):
                    steps = binary_steps(dt, op, t1, t2, zero_dim)
                    v1 = operand_values(dt, t1, False, False)
                    v2 = operand_values(dt, t2, zero_dim, True, t1)
                    steps.append({"op": "array.read", "args": {"array": "$y"},
                                  "expect": expected(dt, op, t1, v1, v2, r)})
                    form = "0d" if zero_dim else "array"
                    spec = ["API-PROM-1"] + (["API-PROM-4"] if zero_dim else [])
                    what = "a 0-d %s array" % t2 if zero_dim else "%s %s array" % (a(t2), t2)
                    cases.append(case("promotion.api.%s.%s.%s.%s" % (op, t1, t2, form),
                                      "%s of %s %s array and %s gives %s (the standard's table)."
                                      % (op, a(t1), t1, what, r), spec, ["promotion-table"], steps))
        for t1 in names:
            for kind, value in SCALARS.items():
                if dt.cat(t1) not in rs["scalars"][kind]:
                    continue
                if not allowed(dt, op, t1):
                    continue
                exact = complex(*value["complex"]) if kind == "complex" else Fraction(value)
                steps = [
                    {"op": "array.asarray",
                     "args": {"obj": typed(dt, t1, operand_values(dt, t1, False, False), [2]),
                              "device": "$D0"}, "as": "x1"},
                    {"op": "array.binary", "args": {"fn": op, "x1": "$x1", "x2": value}, "as": "y"},
                    {"op": "array.read", "args": {"array": "$y"},
                     "expect": expected(dt, op, t1, operand_values(dt, t1, False, False),
                                        [exact], t1)},
                ]
                cases.append(case("promotion.api.%s.%s.scalar-%s" % (op, t1, kind),
                                  "%s of %s %s array and the Python %s %s gives %s: the scalar "
                                  "takes the array's dtype."
                                  % (op, a(t1), t1, kind,
                                     "1j" if kind == "complex" else json.dumps(value), t1),
                                  ["API-PROM-3"], ["promotion-scalars"], steps))
    return cases


def category_result(dt: Dtypes, rs: Json, dims: list[str], zeros: list[str], scalars: list[str],
                    reading: str) -> str | None:
    """The category rules (spec/promotion/category.json) for operand dtypes by tier."""
    table = rs["table"]

    def join(ds: list[str]) -> str | None:
        r = None
        for d in ds:
            r = d if r is None else table[r][d]
            if r is None:
                return None
        return r

    if reading == "examples":
        dims, zeros = dims + zeros, []
    r = join(dims)
    z = join(zeros)
    if z is not None and (r is None or dt.rank(z) > dt.rank(r)):
        r = z
    s = join(scalars)
    if s is not None and (r is None or dt.rank(s) > dt.rank(r)):
        r = s
    return r


def smallest_holding(dt: Dtypes, rs: Json, names: list[str], r: str) -> str:
    """The smallest dtype of the set that the table joins r into: where the join lies outside
    OneFlow's eight dtypes (uint8 with int8 is int16), a library with only those eight
    answers the smallest of them that holds it (OF-PROM-1)."""
    for d in names:
        if rs["table"][r][d] == d and dt.cat(d) == dt.cat(r):
            return d
    return r


def gen_category(dt: Dtypes, rs: Json) -> list[Json]:
    names = [n for n in rs["dtypes"] if dt.in_set(n, "oneflow")]
    cases = []
    for op in OPS:
        for t1 in names:
            for t2 in names:
                for zero_dim in (False, True):
                    zeros = [t2] if zero_dim else []
                    dims = [t1] if zero_dim else [t1, t2]
                    results = {rd: category_result(dt, rs, dims, zeros, [], rd)
                               for rd in rs["readings"]}
                    found = set(results.values())
                    if None in found:
                        continue
                    for r in list(found):
                        if r is not None and r not in names:
                            found.add(smallest_holding(dt, rs, names, r))
                    outcomes = sorted((d for d in found if d is not None),
                                      key=lambda d: rs["dtypes"].index(d))
                    if not all(allowed(dt, op, r) for r in outcomes):
                        if len(outcomes) == 1:
                            extra = oneflow_arith_case(dt, op, t1, t2, zero_dim, outcomes[0])
                            if extra is not None:
                                cases.append(extra)
                        continue
                    steps = binary_steps(dt, op, t1, t2, zero_dim)
                    v1 = operand_values(dt, t1, False, False)
                    v2 = operand_values(dt, t2, zero_dim, True, t1)
                    spec = ["OF-PROM-1", "OF-PROM-2"]
                    if zero_dim:
                        spec += ["OF-PROM-4", "OF-PROM-5"]
                    else:
                        spec += ["OF-PROM-5"]
                    read: Json = {"op": "array.read", "args": {"array": "$y"}}
                    if len(outcomes) == 1:
                        read["expect"] = expected(dt, op, t1, v1, v2, outcomes[0])
                        how = "gives %s" % outcomes[0]
                    else:
                        if results["rules"] != results["examples"]:
                            spec.append("OF-PROM-9")
                        read["either"] = [{"expect": expected(dt, op, t1, v1, v2, r)}
                                          for r in outcomes]
                        how = "gives %s" % " or ".join(outcomes)
                        if results["rules"] != results["examples"]:
                            how += " (the stated rules give %s, the guide's example %s)" % (
                                results["rules"], results["examples"])
                        else:
                            how += (" (the smallest of OneFlow's eight dtypes that holds %s)"
                                    % results["rules"])
                    steps.append(read)
                    form = "0d" if zero_dim else "array"
                    what = "a 0-d %s array" % t2 if zero_dim else "%s %s array" % (a(t2), t2)
                    cases.append(case("promotion.category.%s.%s.%s.%s" % (op, t1, t2, form),
                                      "%s of %s %s array and %s %s (category promotion)."
                                      % (op, a(t1), t1, what, how),
                                      spec, ["promotion-category"], steps))
        for t1 in names:
            for kind, value in SCALARS.items():
                if kind not in rs["scalar_dtypes"]:
                    continue
                r = category_result(dt, rs, [t1], [], [rs["scalar_dtypes"][kind]],
                                    rs["default_reading"])
                if r is None or not allowed(dt, op, r):
                    continue
                v1 = operand_values(dt, t1, False, False)
                steps = [
                    asarray_step(dt, t1, v1, [2], "x1"),
                    {"op": "array.binary", "args": {"fn": op, "x1": "$x1", "x2": value}, "as": "y"},
                    {"op": "array.read", "args": {"array": "$y"},
                     "expect": expected(dt, op, t1, v1, [Fraction(value)], r)},
                ]
                higher = dt.rank(rs["scalar_dtypes"][kind]) > dt.rank(t1)
                cases.append(case("promotion.category.%s.%s.scalar-%s" % (op, t1, kind),
                                  "%s of %s %s array and the Python %s %s gives %s: %s."
                                  % (op, a(t1), t1, kind, json.dumps(value), r,
                                     "the scalar's category is higher, so it decides with its "
                                     "own dtype" if higher
                                     else "a scalar of no higher category does not count"),
                                  ["OF-PROM-1", "OF-PROM-3", "OF-PROM-6", "OF-PROM-7"],
                                  ["promotion-category"], steps))
    return cases


def oneflow_arith_case(dt: Dtypes, op: str, t1: str, t2: str, zero_dim: bool,
                       promoted: str) -> Json | None:
    """Arithmetic the seed states no result for, where the promoted dtype is bool (add,
    subtract, multiply, divide) or integral (divide): OneFlow 0.9.0 computes it (bool +
    bool is bool, logical or; bool - bool exclusive or; bool * bool and; bool / bool is bool,
    the dividend; int32 / int32 true division in the default float32). The case accepts that
    result or an error, since no statement requires the operation to exist; it checks that a
    library that computes it does so as OneFlow. bool / bool divides [true, false] by true,
    so that the quotient is not the same for both elements."""
    if dt.cat(promoted) == "bool" and op in OPS:
        result = "bool"
    elif op == "divide" and dt.cat(promoted) == "integral":
        result = "float32"
    else:
        return None
    steps = binary_steps(dt, op, t1, t2, zero_dim)
    v1 = operand_values(dt, t1, False, False)
    v2 = operand_values(dt, t2, zero_dim, True, t1)
    if result == "bool" and op == "divide":
        v1 = [1, 0]
        steps[0]["args"]["obj"] = typed(dt, t1, v1, [2])
    if result == "bool":
        logic: Callable[[bool, bool], bool] = {
            "add": lambda a, b: a or b, "subtract": lambda a, b: a != b,
            "multiply": lambda a, b: a and b, "divide": lambda a, b: a}[op]
        vals = [bool(logic(bool(a1), bool(v2[0] if len(v2) == 1 else v2[i])))
                for i, a1 in enumerate(v1)]
        value = typed(dt, "bool", vals, [2])
        how = {"add": "logical or", "subtract": "exclusive or", "multiply": "logical and",
               "divide": "the dividend"}[op]
    else:
        value = expected(dt, op, t1, v1, v2, "float32")
        how = "true division in the default float32"
    steps[-1]["either"] = [{"expect": {"$type": "string"}}, {"raises": "any", "stop": True}]
    steps.append({"op": "array.read", "args": {"array": "$y"}, "expect": value})
    form = "0d" if zero_dim else "array"
    what = "a 0-d %s array" % t2 if zero_dim else "%s %s array" % (a(t2), t2)
    return case("promotion.category.%s.%s.%s.%s" % (op, t1, t2, form),
                "%s of %s %s array and %s, whose category promotion is %s: the seed states no "
                "result, so an error is accepted; computed, it is OneFlow's %s (%s)."
                % (op, a(t1), t1, what, promoted, result, how),
                ["OF-PROM-1", "OF-PROM-2"], ["promotion-category"], steps)


def rounded(dt: Dtypes, name: str, v: Real) -> int | float:
    """v (exact) as an element of dtype name holds it: floats rounded to nearest even."""
    if dt.cat(name) == "integral":
        return int(v)
    fmt = {"float16": "<e", "float32": "<f"}.get(name)
    return struct.unpack(fmt, struct.pack(fmt, float(v)))[0] if fmt else float(v)


def out_refused(dt: Dtypes, oc: Json, result: str, out: str) -> bool:
    """OF-OUT-1: whether one of the stated refusals applies."""
    for r in oc["refusals"]:
        outs = r["out"] if isinstance(r["out"], list) else [r["out"]]
        if dt.cat(out) in outs and dt.cat(result) in r["result"]:
            return True
    return False


def gen_out(dt: Dtypes, oc: Json, cat: Json) -> list[Json]:
    """Every ordered pair (result dtype, out dtype) of OneFlow's eight dtypes: x1 * x2 of the
    result dtype written into out. A result cast into out's dtype unless OF-OUT-1 refuses
    (RuntimeError, OF-OUT-2); where only the guide's examples refuse (a result that does not
    promote to out's dtype, OF-OUT-4) either outcome is accepted. A bool result has no case
    (no arithmetic on bool is stated)."""
    names = [n for n in cat["dtypes"] if dt.in_set(n, "oneflow")]
    cases = []
    for r in names:
        if dt.cat(r) == "bool":
            continue
        floating = dt.cat(r) == "floating"
        # 0.5 * 3 = 1.5 and 0.1 * 1: a float result's cast into a narrower float rounds.
        v1, v2 = ([0.5, 0.1], [3, 1]) if floating else ([2, 3], [1, 2])
        for o in names:
            steps = [asarray_step(dt, r, v1, [2], "x1"), asarray_step(dt, r, v2, [2], "x2"),
                     asarray_step(dt, o, [0, 0], [2], "out"),
                     {"op": "array.binary_into",
                      "args": {"fn": "multiply", "x1": "$x1", "x2": "$x2", "out": "$out"}}]
            # The product in the result dtype, then its cast into out's.
            vals = [rounded(dt, o, rounded(dt, r, Fraction(rounded(dt, r, Fraction(str(a1))))
                                           * Fraction(rounded(dt, r, b1))))
                    for a1, b1 in zip(v1, v2, strict=True)]
            read = {"op": "array.read", "args": {"array": "$out"},
                    "expect": typed(dt, o, vals, [2])}
            spec = ["OF-OUT-1"]
            refused = out_refused(dt, oc, r, o)
            narrowing = not refused and cat["table"][r][o] != o
            if refused:
                steps[-1]["raises"] = oc["error"]
                steps.append({"op": "array.read", "args": {"array": "$out"},
                              "expect": typed(dt, o, [0, 0], [2])})
                spec.append("OF-OUT-2")
                how = "is refused (RuntimeError) and out keeps its zeros"
            elif narrowing:
                steps[-1]["either"] = [{"expect": None}, {"raises": oc["error"], "stop": True}]
                steps.append(read)
                spec.append("OF-OUT-4")
                how = "is cast into it (the stated exceptions) or refused (the guide's examples)"
            else:
                steps[-1]["expect"] = None
                steps.append(read)
                how = "is cast into it"
            if floating and not refused and dt.cat(o) == "integral":
                raise AssertionError("a floating result into an integral out must be refused")
            cases.append(case("out.%s.into.%s" % (r, o),
                              "%s %s result (x1 * x2) written into %s %s out= array %s."
                              % (a(r).capitalize(), r, a(o), o, how), spec, ["out-casting"], steps))
    return cases


def gen_inplace(dt: Dtypes, oc: Json, cat: Json) -> list[Json]:
    """The in-place forms x1 op= x2 (out is x1) of add, subtract, multiply and divide for every
    ordered pair of OneFlow's eight dtypes, the form OneFlow itself has (its functions take no
    out=): the result dtype is the category promotion of x1 and x2 (both dimensioned), then
    cast into x1's dtype as the out= cases say. A stated refusal (OF-OUT-1) is required; a
    narrowing (OF-OUT-4) may be cast or refused. No case where the result is bool (bool
    arithmetic is not stated) or where divide's result is not floating."""
    names = [n for n in cat["dtypes"] if dt.in_set(n, "oneflow")]
    symbol = {"add": "+=", "subtract": "-=", "multiply": "*=", "divide": "/="}
    cases = []
    for op in OPS:
        for o in names:
            for t in names:
                r = cat["table"][o][t]
                if r is None or dt.cat(r) == "bool":
                    continue
                if op == "divide" and dt.cat(r) != "floating":
                    continue
                v1 = operand_values(dt, o, False, False)
                v2 = operand_values(dt, t, False, True, o)
                steps = [asarray_step(dt, o, v1, [2], "x1"), asarray_step(dt, t, v2, [2], "x2"),
                         {"op": "array.binary_into",
                          "args": {"fn": op, "x1": "$x1", "x2": "$x2", "out": "$x1"}}]
                vals = [rounded(dt, o, rounded(dt, r, compute_real(op, a1, b1)))
                        for a1, b1 in zip(v1, v2, strict=True)]
                read = {"op": "array.read", "args": {"array": "$x1"},
                        "expect": typed(dt, o, vals, [2])}
                spec = ["OF-OUT-1", "OF-PROM-1"]
                refused = out_refused(dt, oc, r, o)
                if refused:
                    steps[-1]["raises"] = oc["error"]
                    steps.append({"op": "array.read", "args": {"array": "$x1"},
                                  "expect": typed(dt, o, v1, [2])})
                    spec.append("OF-OUT-2")
                    how = "is refused (RuntimeError) and x1 keeps its values"
                elif r != o:
                    steps[-1]["either"] = [{"expect": None}, {"raises": oc["error"], "stop": True}]
                    steps.append(read)
                    spec.append("OF-OUT-4")
                    how = ("narrows: cast into x1 (the stated exceptions) or refused (the guide's "
                           "examples; OneFlow 0.9.0 refuses it for -=, *= and /=, not for +=)")
                else:
                    steps[-1]["expect"] = None
                    steps.append(read)
                    how = "is written into x1"
                cases.append(case("out.inplace.%s.%s.%s" % (op, o, t),
                                  "x1 %s x2 with %s %s x1 and %s %s x2: the %s result %s."
                                  % (symbol[op], a(o), o, a(t), t, r, how), spec,
                                  ["out-casting", "promotion-category"], steps))
    return cases


FLOAT16_REFUSAL: Json = {"raises": "ValueError", "stop": True}
OTHER_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float32", "float64", "complex64", "complex128"]


def with_float16_required(cases: list[Json]) -> list[Json]:
    """Each case that lets D0 refuse a float16 array (a device may lack it) followed by two
    counterparts that take the same steps with no refusal alternative and require the
    computation (spec/decisions.md, "Runner and reports", point 31): `ID.float16-listed` on
    D0 where info.dtypes(device=D0) lists float16, and `ID.float16-cpu` on the device
    device.parse("cpu") gives, for a library that claims float16 there (feature float16)."""
    out: list[Json] = []
    for c in cases:
        out.append(c)
        steps = c["steps"]
        if not any(s["op"] == "array.asarray" and FLOAT16_REFUSAL in s.get("either", [])
                   for s in steps):
            continue
        req: list[Json] = [{"op": "info.dtypes", "args": {"device": "$D0"}, "either": [
            {"expect": {"$each": {"$in": OTHER_DTYPES}}, "stop": True},
            {"expect": {"$contains": "float16"}}]}]
        for s in steps:
            s = dict(s)
            if s["op"] == "array.asarray" and FLOAT16_REFUSAL in s.get("either", []):
                alts = [x for x in s.pop("either") if x != FLOAT16_REFUSAL]
                assert len(alts) == 1 and "stop" not in alts[0]
                s["expect"] = alts[0]["expect"]
            req.append(s)
        desc = c["description"]
        out.append(case(c["id"] + ".float16-listed",
                        "Where dtypes(device=D0) lists float16, D0 must hold the float16 "
                        "operands: " + desc[0].lower() + desc[1:],
                        c["spec"], c["features"] + ["info-dtypes"], req))
        cpu = [{"op": "device.parse", "args": {"text": "cpu"}, "as": "cpu"}]
        cpu += [on_device(s, "$cpu") for s in req[1:]]
        out.append(case(c["id"] + ".float16-cpu",
                        "On the cpu device, which holds float16 where a library claims it, the "
                        "float16 operands must be held: " + desc[0].lower() + desc[1:],
                        c["spec"] + ["OF-DT-1"], c["features"] + ["float16"], cpu))
    return out


def on_device(step: Json, device: str) -> Json:
    """step with every device argument that names D0 naming device instead."""
    if isinstance(step, dict):
        return {k: device if v == "$D0" else on_device(v, device) for k, v in step.items()}
    if isinstance(step, list):
        return [on_device(v, device) for v in step]
    return step


def render(description: str, cases: list[Json], facts: case_features.Facts) -> str:
    """The case file of CASES, each with the features its steps use added
    (spec/tools/case_features.py)."""
    lines = ["{", ' "description": %s,' % json.dumps(description), ' "cases": [']
    for i, c in enumerate(cases):
        c["features"] = facts.expected(c)
        lines.append("  " + json.dumps(c) + ("," if i + 1 < len(cases) else ""))
    lines += [" ]", "}"]
    return "\n".join(lines) + "\n"


def build(root: str) -> dict[str, str]:
    dt = Dtypes(load(root, "spec/promotion/dtypes.json"))
    api = load(root, "spec/promotion/array-api.json")
    cat = load(root, "spec/promotion/category.json")
    oc = load(root, "spec/promotion/out-casting.json")
    facts = case_features.Facts(root)
    return {
        OUT_FILES["out"]: render(
            "Generated by spec/tools/gen_dtype_cases.py from spec/promotion/out-casting.json: "
            "every result dtype and out= dtype of OneFlow's eight, x1 * x2 written into out, "
            "and the in-place x1 += x2, -=, *= and /= for every pair of them (OF-OUT-1, "
            "OF-OUT-2; OF-OUT-4's narrowing accepts either reading); a case that lets D0 "
            "refuse float16 is followed by ID.float16-listed, which requires it where "
            "info.dtypes lists float16, and ID.float16-cpu, which requires it on the cpu "
            "device of a library claiming float16. Do not edit; regenerate.",
            with_float16_required(gen_out(dt, oc, cat) + gen_inplace(dt, oc, cat)), facts),
        OUT_FILES["array-api"]: render(
            "Generated by spec/tools/gen_dtype_cases.py from spec/promotion/array-api.json: "
            "the array API's promotion of every defined dtype pair (both dimensioned, second "
            "operand 0-d) and of Python scalars, for add, subtract, multiply and divide. Do not "
            "edit; regenerate.", gen_array_api(dt, api), facts),
        OUT_FILES["category"]: render(
            "Generated by spec/tools/gen_dtype_cases.py from spec/promotion/category.json: "
            "OneFlow's category promotion of every pair of its eight dtypes (both dimensioned, "
            "second operand 0-d) and of Python bool, int and float scalars, for add, subtract, "
            "multiply and divide; a case that lets D0 refuse float16 is followed by "
            "ID.float16-listed, which requires it where info.dtypes lists float16, and "
            "ID.float16-cpu, which requires it on the cpu device of a library claiming "
            "float16. Do not edit; regenerate.", with_float16_required(gen_category(dt, cat)),
            facts),
    }


def main(argv: list[str] | None = None) -> int:
    return generated.main(__doc__.split("\n\n")[0], build, "spec/tools/gen_dtype_cases.py", argv)


if __name__ == "__main__":
    sys.exit(main())
