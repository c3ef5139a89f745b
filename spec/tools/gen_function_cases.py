#!/usr/bin/env python3
"""Writes conformance/cases/functions-FAMILY.json from spec/signatures.json: the device rules
for every function and array method of the standard, for every signature it has.

    gen_function_cases.py [--root DIR] [--check]

For each function and each of its signatures (the versions from that signature's `from` on;
each case cites API-FN-k of that version to be scoped to it), through the generic call op:

- same-device: every array input on D1 (not the default device); every array output (each
  item of a tuple, through `pick`) is on D1 (DEV-DS-10); a method's array stays on D1;
- values: the function computed on D0 and on D1 from the same inputs; the D1 result moved to
  D0 reads the same as the D0 result (a metamorphic check: nothing is copied from a library),
  exactly or, where the standard leaves the accuracy to the implementation, within a `$close`
  tolerance; of a factorisation, what is unique (`UNIQUE_PART`; spec/decisions.md, "Every
  function" 11);
- mixed: for each array input, that input on D0 and every other on D1: the call raises
  (DEV-DS-11); first the same call with every array on D0, then on D1, must succeed, so that a
  call the library cannot make at all (a keyword it refuses, no kernel for the device) fails
  the case instead of passing it by its refusal; again with that input on D2 and the others on
  D0 (`-d2`), so that every function has at least two independent mixed cases;
- same-device on D2 (`same-device-d2`) for a function of one array input, its second guard;
- scalar: where the signature takes a Python scalar for an array parameter, that scalar
  beside arrays on D1: the result is on D1 (DEV-DS-10);
- optional: for each optional array keyword the table gives in `inputs.optional` (clip's min
  and max, searchsorted's sorter, linalg's rtol), the call with it and every other input on
  D1: every output on D1 (DEV-DS-10); with it on D0 and the others on D1, and on D2 beside
  the others on D0: the call raises (DEV-DS-11). The other cases call without it, so a
  library that lacks the keyword still has the function's plain call checked;
- device: a function with a device parameter, called with device=D1 (its array inputs on D0):
  the result is on D1; with device=None beside array inputs on D1: the result is on D1;
- indexing: __getitem__ with a slice, a boolean mask and (from 2024.12) an integer index
  array on D1; __setitem__ with a scalar and an array value on D1; in the draft, an index
  array or a value array on D0 beside an array on D1 is left to the implementation
  (DEV-MISC-4): it raises, or the result stays on D1.

The inputs are the table's: each function's `inputs`, arrays of the first dtype kind of
`kind_order` it accepts, values from the kind's generator for the domain named. Standard
library only.

A case is written once per function, not once per signature: a case of a later signature
whose steps, features and device statements (its spec but the API-FN cite) are those of a case
already written for an earlier signature of the same function is left out, since the earlier
case, citing the earlier API-FN-k whose range runs to the draft, already applies to every
version the later one would (`logical_xor`'s 2024.12 signature takes Python scalars: it gets
its scalar cases, and its same-device, values and mixed cases stay those of 2021.12). The
per-version counts count the kept case for every version from its own on, as before; each
left-out case's twin is in `Gen.twins` (spec/decisions.md, "Every function" 13).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import case_features
import generated

SIG = "spec/signatures.json"
OUT = "conformance/cases/functions-%s.json"
GENERATOR = "spec/tools/gen_function_cases.py"
Json = Any

# Functions that get no generated case, and why (each is still in the table).
SKIP = {
    "Array.__dlpack__": "its result is a capsule; conformance/cases/dlpack*.json cover it",
    "Array.__dlpack_device__": "conformance/cases/dlpack*.json cover it",
    "Array.__dlpack_c_exchange_api__": "its result is a capsule the protocol cannot carry",
    "Array.__array_namespace__": "its result is a module the protocol cannot carry",
    "finfo": "its result is an object the protocol cannot carry, on no device",
    "iinfo": "its result is an object the protocol cannot carry, on no device",
}
# Functions whose values are not defined (empty's contents): no values case.
NO_VALUES = ("empty", "empty_like")
# Functions with several array inputs that read only their dtypes. broadcast_arrays and meshgrid
# get mixed cases like every other function: DEV-DS-11 refuses every operation whose array
# arguments sit on different devices (spec/decisions.md, "Every function" 8).
NO_MIXED = ("result_type", "can_cast")
# The device pairs of the mixed cases: (the device of the one array apart, the others', the
# ID's suffix). The second pair is two devices other than D1 (on refarray two OpenCL devices, so
# that a check that compares device types only is caught), and a second guard of every input.
MIXED_PAIRS = (("$D0", "$D1", ""), ("$D2", "$D0", "-d2"))
# The statement and feature of each device-argument form, by function.
DEVICE_RULES = {
    "astype": (["DEV-CREATE-6"], "astype-device"),
    "from_dlpack": (["DEV-DLP-14"], "dlpack-device"),
    "fft.fftfreq": (["DEV-CREATE-5"], "fft-freq-device"),
    "fft.rfftfreq": (["DEV-CREATE-5"], "fft-freq-device"),
    "Array.to_device": (["DEV-TODEV-1"], "to-device"),
}
NONE_RULES = {
    "asarray": (["DEV-CREATE-2"], "asarray-inherits-device"),
    "astype": (["DEV-CREATE-6"], "astype-device"),
    "from_dlpack": (["DEV-DLP-14"], "dlpack-device"),
}
LIKE = ("empty_like", "zeros_like", "ones_like", "full_like")

# How a values case compares the two results of a function of floating inputs (spec/decisions.md,
# "Generated function cases"). Exactly, unless the standard leaves the result's accuracy to the
# implementation: its Accuracy page requires correct rounding only of + - * / % (add, subtract,
# multiply, divide, remainder) and, from 2024.12, reciprocal and sqrt, for real operands, and
# "does not precisely define the behavior" of these elementwise functions:
INEXACT_ELEMENTWISE = frozenset((
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cos", "cosh", "exp", "expm1",
    "hypot", "log", "log1p", "log2", "log10", "logaddexp", "pow", "sin", "sinh", "tan", "tanh",
    "Array.__pow__"))
# ... nor sets any accuracy for the statistical functions and linear algebra: sums in an order the
# implementation chooses (and the FFT's, a factorisation's iterations).
INEXACT_FAMILIES = frozenset(("statistical", "linalg", "linear-algebra", "fft"))
# Exact within those families: a selection, a transpose, an outer product (one multiplication per
# element), a rank (an integer), a shift.
EXACT_IN_FAMILY = frozenset((
    "max", "min", "linalg.diagonal", "linalg.matrix_transpose", "matrix_transpose",
    "linalg.outer", "linalg.matrix_rank", "fft.fftshift", "fft.ifftshift"))
# Tolerances, as $close's rel_eps and abs_eps (multiples of the dtype's epsilon): an elementwise
# function may differ by a few ulp between two math libraries; a sum, product or factorisation of
# the inputs' at most nine terms (each at most 6 in magnitude) by the rounding of each term.
TOL_ELEMENTWISE = (8, 8)
TOL_REDUCTION = (64, 64)
# The outputs of a factorisation that are unique only up to signs, phases or a basis of a repeated
# eigenspace, and what is compared instead, by (function, pick): the functions applied to each
# result before it is read (on its own device), or None: only its dtype and shape (the table's
# `spd` input, n+1 on the diagonal and 1 elsewhere, has the eigenvalue n twice, so its
# eigenvectors and singular vectors are any basis of that eigenspace). The standard leaves the
# order of eigh's and eigvalsh's (and eig's, eigvals') eigenvalues unspecified: sorted first; eig's
# are complex, which sort does not take: their moduli (the input's are real and positive). QR's Q
# and R are unique up to the signs of Q's columns and R's rows: their absolute values.
UNIQUE_PART: dict[tuple[str, int | None], list[str] | None] = {
    ("linalg.svd", 0): None,
    ("linalg.svd", 2): None,
    ("linalg.eigh", 0): ["sort"],
    ("linalg.eigh", 1): None,
    ("linalg.eigvalsh", None): ["sort"],
    ("linalg.eig", 0): ["abs", "sort"],
    ("linalg.eig", 1): None,
    ("linalg.eigvals", None): ["abs", "sort"],
    ("linalg.qr", 0): ["abs"],
    ("linalg.qr", 1): ["abs"],
}


def tolerance(f: Json, kind: str) -> tuple[int, int] | None:
    """The $close tolerance of F's values case with inputs of KIND, or None: exactly."""
    if kind not in ("real floating", "complex floating"):
        return None
    name = f["name"]
    if name in INEXACT_ELEMENTWISE:
        return TOL_ELEMENTWISE
    if f["family"] in INEXACT_FAMILIES and name not in EXACT_IN_FAMILY:
        return TOL_REDUCTION
    if name == "Array.__matmul__":
        return TOL_REDUCTION
    if kind == "complex floating" and name in COMPLEX_INEXACT:
        return TOL_ELEMENTWISE
    return None


# Correct rounding is required for real operands only: complex products, quotients, moduli and
# square roots are approximations.
COMPLEX_INEXACT = frozenset((
    "multiply", "divide", "reciprocal", "sqrt", "abs", "sign", "square", "Array.__mul__",
    "Array.__truediv__", "Array.__abs__"))
SCALAR_TYPE = {"bool": "bool", "signed integer": "int", "unsigned integer": "int",
               "real floating": "float", "complex floating": "complex"}


def slug(name: str) -> str:
    """A function's name as a part of a case ID: `Array.__add__` -> `array.add`."""
    return name.replace("__", "").lower()


def vslug(version: str) -> str:
    return "v" + version.replace(".", "-")


def case_kind(sig: Json, form: Json) -> str:
    kinds = form.get("kinds") or []
    for k in sig["kind_order"]:
        if k in kinds:
            return str(k)
    return str(sig["kind_order"][0])


def spd(kind: str, n: int) -> list[Any]:
    """The table's `spd` domain: n+1 on the diagonal, 1 elsewhere (bool: the identity)."""
    out: list[Any] = []
    for i in range(n):
        for j in range(n):
            if kind == "bool":
                out.append(i == j)
            elif kind == "complex floating":
                out.append([float(n + 1 if i == j else 1), 0.0])
            elif kind == "real floating":
                out.append(float(n + 1 if i == j else 1))
            else:
                out.append(n + 1 if i == j else 1)
    return out


def typed(sig: Json, spec: Json, kind: str) -> Json:
    """The typed array an {"array": spec} input stands for."""
    kind = spec.get("kind", kind)
    gen = sig["kinds"][kind]
    shape = spec["shape"]
    n = 1
    for d in shape:
        n *= d
    domain = spec.get("domain", "any")
    if domain == "spd" and len(shape) == 2 and shape[0] == shape[1]:
        data = spd(kind, shape[0])
    else:
        values = gen["values"].get(domain, gen["values"]["any"])
        data = [values[i % len(values)] for i in range(n)]
    return {"dtype": gen["dtype"], "shape": shape, "data": data}


class Builder:
    """The steps of one case: arrays made on their devices, then the call."""

    def __init__(self, sig: Json, kind: str) -> None:
        self.sig = sig
        self.kind = kind
        self.steps: list[Json] = []
        self.count = 0

    def array(self, spec: Json, device: str, tag: str) -> str:
        name = "%s%d" % (tag, self.count)
        self.count += 1
        self.steps.append({"op": "array.asarray",
                           "args": {"obj": typed(self.sig, spec, self.kind), "device": device},
                           "as": name})
        return "$" + name

    def value(self, value: Json, device: str, tag: str, where: list[str]) -> Json:
        """An input as a call value: arrays made on DEVICE (or on where[i] for the i-th
        array), the rest as written."""
        if isinstance(value, dict) and set(value) == {"array"}:
            dev = where.pop(0) if where else device
            return self.array(value["array"], dev, tag)
        if isinstance(value, dict) and set(value) == {"arrays"}:
            items = []
            for spec in value["arrays"]:
                dev = where.pop(0) if where else device
                items.append(self.array(spec, dev, tag))
            return {"tuple": items}
        return value


def count_arrays(inputs: Json) -> int:
    n = 0
    for v in list(inputs.get("args", [])) + list(inputs.get("kwargs", {}).values()):
        if isinstance(v, dict) and set(v) == {"array"}:
            n += 1
        elif isinstance(v, dict) and set(v) == {"arrays"}:
            n += len(v["arrays"])
    return n


def outputs(f: Json, form: Json) -> list[int | None]:
    """The `pick` of each array the function returns: [None] for one array, [0, 1, ...] for a
    tuple; [] when it returns no array."""
    r = form["returns"]
    if r["type"] == "array":
        return [None]
    if r["type"] in ("tuple", "named-tuple"):
        return list(range(r["count"]))
    if r["type"] == "arrays":
        # as many as the inputs give: broadcast_arrays and meshgrid one per input, unstack
        # one per row of its [2, 3] input, nonzero one per dimension of its 1-d input
        n = {"broadcast_arrays": 2, "meshgrid": 2, "unstack": 2, "nonzero": 1}.get(f["name"], 1)
        return list(range(n))
    return []


class Gen:
    def __init__(self, sig: Json) -> None:
        self.sig = sig
        self.versions = sig["versions"]
        self.files: dict[str, list[Json]] = {}
        self.per_version = dict.fromkeys(self.versions, 0)
        # By function: the ID of the case written for each content (twin_key), and the
        # signature that case belongs to.
        self.written: dict[str, dict[str, tuple[str, str]]] = {}
        # The ID of each case left out as the twin of an earlier signature's, to that case's.
        self.twins: dict[str, str] = {}

    def scope(self, form: Json) -> str:
        return "API-FN-%d" % (self.versions.index(form["from"]) + 1)

    def feature(self, f: Json) -> str:
        return str(self.sig["families"][f["family"]]["feature"])

    def add(self, f: Json, form: Json, what: str, description: str, spec: list[str],
            features: list[str], steps: list[Json]) -> None:
        case_id = "fn.%s.%s.%s" % (slug(f["name"]), vslug(form["from"]), what)
        case: Json = {
            "id": case_id,
            "description": description,
            "spec": [*spec, self.scope(form)],
            "features": [*features, self.feature(f)],
            "steps": steps,
        }
        written = self.written.setdefault(f["name"], {})
        key = twin_key(case)
        if key in written and written[key][1] != form["from"]:
            # An earlier signature's case checks the same, and its API-FN runs to the draft.
            self.twins[case_id] = written[key][0]
            return
        written.setdefault(key, (case_id, str(form["from"])))
        self.files.setdefault(f["family"], []).append(case)
        for v in self.versions[self.versions.index(form["from"]):]:
            if "removed" in f and self.versions.index(v) >= self.versions.index(f["removed"]):
                break
            self.per_version[v] += 1

    def call_args(self, b: Builder, f: Json, device: str, tag: str, where: list[str],
                  scalar_at: int | None = None) -> Json:
        inputs = f["inputs"]
        args = []
        for i, v in enumerate(inputs.get("args", [])):
            if i == scalar_at:
                args.append(self.sig["scalars"][b.kind])
            else:
                args.append(b.value(v, device, tag, where))
        out: Json = {"fn": f["name"], "args": args}
        kwargs = {k: b.value(v, device, tag, where) for k, v in inputs.get("kwargs", {}).items()}
        if kwargs:
            out["kwargs"] = kwargs
        return out

    def with_device(self, f: Json, form: Json, call: Json, device: str | None) -> None:
        """Gives a required positional device parameter (to_device's) its device."""
        params = [p for p in form["params"] if p["kind"] in ("positional-only",
                                                            "positional-or-keyword")]
        offset = 1 if f["name"].startswith("Array.") else 0
        for i, p in enumerate(params):
            if "device" in p["types"] and p.get("required") and len(call["args"]) == i + offset:
                call["args"].append(device)

    def check_outputs(self, b: Builder, f: Json, form: Json, call: Json, device: str,
                      tag: str) -> list[str]:
        """Calls, then the device of each output: the names bound to the outputs."""
        picks = outputs(f, form)
        names: list[str] = []
        if f["name"] == "Array.device":
            b.steps.append({"op": "call", "args": call, "expect": device})
            return names
        if form["returns"]["type"] == "none":
            b.steps.append({"op": "call", "args": call})
            self_ = call["args"][0]
            b.steps.append({"op": "array.describe", "args": {"array": self_},
                            "expect": {"device": device}})
            return [self_[1:]]
        if not picks:
            b.steps.append({"op": "call", "args": call, "as": "%sr" % tag})
            return names
        for pick in picks:
            args = dict(call)
            if pick is not None:
                args["pick"] = pick
            name = "%sy%d" % (tag, 0 if pick is None else pick)
            # an array handle: a list or a plain value where the table says array fails here
            b.steps.append({"op": "call", "args": args, "as": name,
                            "expect": {"$type": "string"}})
            b.steps.append({"op": "array.describe", "args": {"array": "$" + name},
                            "expect": {"device": device}})
            names.append(name)
        return names

    # -- the kinds of case -------------------------------------------------------------

    def function(self, f: Json) -> None:
        if f["name"] in SKIP or self.sig["families"][f["family"]]["feature"] is None:
            return
        if f["name"] in ("Array.__getitem__", "Array.__setitem__"):
            for form in f["signatures"]:
                self.indexing(f, form)
            return
        for form in f["signatures"]:
            n = count_arrays(f["inputs"])
            if n == 0 and not any("device" in p["types"] for p in form["params"]):
                self.plain(f, form)
                continue
            if n:
                self.same_device(f, form, n)
                if f["name"] not in NO_VALUES:
                    self.values(f, form)
                if n >= 2 and f["name"] not in NO_MIXED:
                    self.mixed(f, form, n)
                self.scalars(f, form)
                self.optional(f, form)
            self.device_kw(f, form, n)

    def plain(self, f: Json, form: Json) -> None:
        b = Builder(self.sig, case_kind(self.sig, form))
        call = self.call_args(b, f, "$D0", "a", [])
        b.steps.append({"op": "call", "args": call})
        self.add(f, form, "call", "%s answers the generic call (it takes no array)." % f["name"],
                 [], [], b.steps)

    def same_device(self, f: Json, form: Json, n: int) -> None:
        """Every array input on D1; for a function of one array input, which has no mixed
        case, also every input on D2, so that its placement has two guards."""
        for dev, suffix in [("$D1", "")] + ([("$D2", "-d2")] if n == 1 else []):
            b = Builder(self.sig, case_kind(self.sig, form))
            call = self.call_args(b, f, dev, "a", [])
            self.with_device(f, form, call, dev)
            self.check_outputs(b, f, form, call, dev, "")
            self.add(f, form, "same-device" + suffix,
                     "%s with every array input on %s (not the default device) puts every array "
                     "it returns on %s." % (f["name"], dev[1:], dev[1:]), ["DEV-DS-10"],
                     ["output-follows-input"], b.steps)

    def values(self, f: Json, form: Json, label: str = "values") -> None:
        kind = case_kind(self.sig, form)
        tol = tolerance(f, kind)
        b = Builder(self.sig, kind)
        c0 = self.call_args(b, f, "$D0", "p", [])
        self.with_device(f, form, c0, "$D0")
        picks = outputs(f, form)
        steps = b.steps
        if form["returns"]["type"] == "none":
            steps.append({"op": "call", "args": c0})
            steps.append({"op": "array.read", "args": {"array": c0["args"][0]}, "as": "v0"})
            c1 = self.call_args(b, f, "$D1", "q", [])
            steps.append({"op": "call", "args": c1})
            steps.append({"op": "array.to_device", "args": {"array": c1["args"][0],
                                                            "device": "$D0"}, "as": "m0"})
            steps.append({"op": "array.read", "args": {"array": "$m0"}, "expect": "$v0"})
        elif not picks:
            if form["returns"]["type"] in ("device", "object"):
                return
            steps.append({"op": "call", "args": c0, "as": "s0"})
            c1 = self.call_args(b, f, "$D1", "q", [])
            self.with_device(f, form, c1, "$D1")
            steps.append({"op": "call", "args": c1, "expect": "$s0"})
        else:
            for pick in picks:
                args = dict(c0)
                if pick is not None:
                    args["pick"] = pick
                k = 0 if pick is None else pick
                steps.append({"op": "call", "args": args, "as": "y%d" % k,
                              "expect": {"$type": "string"}})
                part = UNIQUE_PART.get((f["name"], pick), [])
                if part is None:
                    steps.append({"op": "array.describe", "args": {"array": "$y%d" % k},
                                  "as": "v%d" % k})
                    continue
                y = self.unique_part(steps, "$y%d" % k, part, "y%d" % k)
                steps.append({"op": "array.read", "args": {"array": y}, "as": "v%d" % k})
            c1 = self.call_args(b, f, "$D1", "q", [])
            self.with_device(f, form, c1, "$D1")
            for pick in picks:
                args = dict(c1)
                if pick is not None:
                    args["pick"] = pick
                k = 0 if pick is None else pick
                steps.append({"op": "call", "args": args, "as": "z%d" % k,
                              "expect": {"$type": "string"}})
                part = UNIQUE_PART.get((f["name"], pick), [])
                z = self.unique_part(steps, "$z%d" % k, part or [], "z%d" % k)
                steps.append({"op": "array.to_device", "args": {"array": z, "device": "$D0"},
                              "as": "m%d" % k})
                want: Json = "$v%d" % k
                if part is None:
                    steps.append({"op": "array.describe", "args": {"array": "$m%d" % k},
                                  "expect": want})
                    continue
                if tol is not None:
                    want = {"$close": {"to": want, "rel_eps": tol[0], "abs_eps": tol[1]}}
                steps.append({"op": "array.read", "args": {"array": "$m%d" % k},
                              "expect": want})
        how = ""
        if tol is not None and picks and form["returns"]["type"] != "none":
            how += (" Its floats within (%d + %d * |value|) times the dtype's epsilon: the "
                    "standard leaves their accuracy to the implementation." % (tol[1], tol[0]))
        parts = [(p, UNIQUE_PART[(f["name"], p)]) for p in picks if (f["name"], p) in UNIQUE_PART]
        for p, fns in parts:
            what = "its result" if p is None else "output %d" % p
            if fns is None:
                how += " Of %s only the dtype and shape: it is not unique for this input." % what
                continue
            text = "..."
            for fn in fns:
                text = "%s(%s)" % (fn, text)
            how += " Of %s, %s: what the standard makes unique." % (what, text)
        self.add(f, form, label,
                 "%s computed on D1 and moved to D0 reads the same as %s computed on D0 from "
                 "the same inputs (metamorphic: no value is taken from the library).%s"
                 % (f["name"], f["name"], how), ["DEV-DS-10"],
                 ["output-follows-input", "to-device"], steps)

    @staticmethod
    def unique_part(steps: list[Json], array: str, fns: list[str], tag: str) -> str:
        """Applies FNS in turn to ARRAY (on its own device): the last result's reference."""
        for i, fn in enumerate(fns):
            name = "%su%d" % (tag, i)
            steps.append({"op": "call", "args": {"fn": fn, "args": [array]}, "as": name,
                          "expect": {"$type": "string"}})
            array = "$" + name
        return array

    def call_with(self, b: Builder, f: Json, form: Json, device: str, tag: str,
                  optional: tuple[str, Json, str] | None = None) -> Json:
        """The call with every array input on DEVICE, and the optional array keyword
        (name, input, its own device) when one is given."""
        call = self.call_args(b, f, device, tag, [])
        if optional is not None:
            name, spec, where = optional
            call.setdefault("kwargs", {})[name] = b.value(spec, where, tag, [])
        self.with_device(f, form, call, device)
        return call

    def can_call(self, b: Builder, f: Json, form: Json,
                 optional: tuple[str, Json] | None = None,
                 devices: tuple[str, str] = ("$D0", "$D1")) -> None:
        """The call with every array input on the first of DEVICES, then on the second: each
        must succeed before a mixed call's refusal counts."""
        for dev, tag in zip(devices, ("p", "q"), strict=True):
            opt = None if optional is None else (optional[0], optional[1], dev)
            b.steps.append({"op": "call", "args": self.call_with(b, f, form, dev, tag, opt)})

    def mixed(self, f: Json, form: Json, n: int) -> None:
        """For each array input, that input on D0 and every other on D1; and, so that no
        single case (nor one expectations entry) is a function's only guard, that input on D2
        and every other on D0 (MIXED_PAIRS)."""
        for alone, rest, suffix in MIXED_PAIRS:
            for i in range(n):
                where = [rest] * n
                where[i] = alone
                b = Builder(self.sig, case_kind(self.sig, form))
                self.can_call(b, f, form, devices=(alone, rest))
                call = self.call_args(b, f, rest, "a", where)
                self.with_device(f, form, call, rest)
                b.steps.append({"op": "call", "args": call, "raises": "any"})
                self.add(f, form, "mixed-%d%s" % (i, suffix),
                         "%s with array input %d on %s and the other%s on %s raises instead of "
                         "moving data across devices (the same call with every array on %s, "
                         "and on %s, succeeds first)."
                         % (f["name"], i, alone[1:], "s" if n > 2 else "", rest[1:], alone[1:],
                            rest[1:]),
                         ["DEV-DS-11"], ["mixed-device-raises"], b.steps)

    def optional(self, f: Json, form: Json) -> None:
        """Each optional array keyword of the table's inputs: on D1 with the rest, then alone
        on D0."""
        taken = {p["name"] for p in form["params"] if "array" in p["types"]}
        for name, spec in f["inputs"].get("optional", {}).items():
            if name not in taken:
                continue
            b = Builder(self.sig, case_kind(self.sig, form))
            call = self.call_with(b, f, form, "$D1", "a", (name, spec, "$D1"))
            self.check_outputs(b, f, form, call, "$D1", "")
            self.add(f, form, "opt-%s" % name, "%s with its optional array %s= and every other "
                     "array input on D1 puts every array it returns on D1." % (f["name"], name),
                     ["DEV-DS-10"], ["output-follows-input"], b.steps)
            for alone, rest, suffix in MIXED_PAIRS:
                b = Builder(self.sig, case_kind(self.sig, form))
                self.can_call(b, f, form, (name, spec), devices=(alone, rest))
                call = self.call_with(b, f, form, rest, "a", (name, spec, alone))
                b.steps.append({"op": "call", "args": call, "raises": "any"})
                self.add(f, form, "opt-%s-mixed%s" % (name, suffix),
                         "%s with its optional array %s= on %s and every other array input on "
                         "%s raises instead of moving data across devices (the same call with "
                         "every array on %s, and on %s, succeeds first)."
                         % (f["name"], name, alone[1:], rest[1:], alone[1:], rest[1:]),
                         ["DEV-DS-11"], ["mixed-device-raises"], b.steps)

    def scalars(self, f: Json, form: Json) -> None:
        kind = case_kind(self.sig, form)
        want = SCALAR_TYPE[kind]
        params = [p for p in form["params"] if p["kind"] in ("positional-only",
                                                            "positional-or-keyword")]
        args = f["inputs"].get("args", [])
        offset = 1 if f["name"].startswith("Array.") else 0
        arrays = [i for i, v in enumerate(args) if isinstance(v, dict) and set(v) == {"array"}]
        for i in arrays:
            pi = i - offset
            if pi < 0 or pi >= len(params):
                continue
            p = params[pi]
            if "array" not in p["types"] or want not in p["types"]:
                continue
            if len(arrays) < 2:
                continue  # at least one array must stay
            if args[i]["array"].get("kind", kind) != kind:
                continue
            b = Builder(self.sig, kind)
            call = self.call_args(b, f, "$D1", "a", [], scalar_at=i)
            self.check_outputs(b, f, form, call, "$D1", "")
            self.add(f, form, "scalar-%s" % p["name"],
                     "%s with a Python %s for %s beside arrays on D1 puts its result on D1."
                     % (f["name"], want, p["name"]), ["DEV-DS-10"], ["output-follows-input"],
                     b.steps)

    def device_kw(self, f: Json, form: Json, n: int) -> None:
        dev = [p for p in form["params"] if p["name"] == "device" and "device" in p["types"]]
        if not dev:
            return
        positional = dev[0]["kind"] != "keyword-only"
        spec, feature = DEVICE_RULES.get(f["name"], (["DEV-DS-9"], "creation-device-kw"))
        kind = case_kind(self.sig, form)
        b = Builder(self.sig, kind)
        call = self.call_args(b, f, "$D0", "a", [])
        if positional:
            call["args"].append("$D1")
        else:
            call.setdefault("kwargs", {})["device"] = "$D1"
        self.check_outputs(b, f, form, call, "$D1", "")
        self.add(f, form, "device-d1",
                 "%s with device=D1%s puts its result on D1."
                 % (f["name"], " (its array inputs on D0)" if n else ""), spec, [feature], b.steps)
        if not n or positional:
            return
        if f["name"] in LIKE:
            spec, feature = ["DEV-CREATE-3"], "like-inherits-device"
        elif f["name"] in NONE_RULES:
            spec, feature = NONE_RULES[f["name"]]
        else:
            spec, feature = ["DEV-DS-10"], "output-follows-input"
        b = Builder(self.sig, kind)
        call = self.call_args(b, f, "$D1", "a", [])
        call.setdefault("kwargs", {})["device"] = None
        self.check_outputs(b, f, form, call, "$D1", "")
        self.add(f, form, "device-none",
                 "%s with device=None beside array inputs on D1 puts its result on D1."
                 % f["name"], spec, [feature], b.steps)

    def indexing(self, f: Json, form: Json) -> None:
        kind = case_kind(self.sig, form)
        key = next(p for p in form["params"] if p["name"] == "key")
        int_arrays = "array" in key.get("tuple_items", [])
        setitem = f["name"] == "Array.__setitem__"
        x = {"array": {"shape": [4]}}
        keys: list[tuple[str, Json]] = [("slice", {"slice": [0, 2, None]}),
                                        ("mask", {"array": {"shape": [4], "kind": "bool"}})]
        # An integer index array in __setitem__ is left to the implementation (2024.12's
        # note on __setitem__): no case.
        if int_arrays and not setitem:
            keys.append(("index", {"array": {"shape": [2], "kind": "signed integer",
                                             "domain": "index"}}))
        for name, k in keys:
            # the value has one element per element the key selects
            n = sum(1 for v in self.sig["kinds"]["bool"]["values"]["any"][:4] if v) \
                if name == "mask" else 2
            values: list[tuple[str, Json]] = [("scalar", self.sig["scalars"][kind]),
                                              ("array", {"array": {"shape": [n]}})]
            for vname, value in (values if setitem else [("", None)]):
                inputs = {"args": [x, k] + ([value] if setitem else [])}
                g = dict(f, inputs=inputs)
                what = "%s%s" % (name, "-" + vname if vname else "")
                b = Builder(self.sig, kind)
                call = self.call_args(b, g, "$D1", "a", [])
                self.check_outputs(b, g, form, call, "$D1", "")
                self.add(g, form, "same-device-" + what,
                         "%s on an array on D1 with a %s key%s on D1 %s on D1."
                         % (f["name"], name, " and a %s value" % vname if setitem else "",
                            "leaves the array" if setitem else "puts the result"),
                         ["DEV-DS-10"], ["output-follows-input"], b.steps)
                self.values(g, form, "values-" + what)
        if form is f["signatures"][-1]:  # DEV-MISC-4 scopes these to the draft
            self.cross_device_indexing(f, form, kind, setitem)

    def cross_device_indexing(self, f: Json, form: Json, kind: str, setitem: bool) -> None:
        """DEV-MISC-4: an index array (or a value array) on D0 beside an array on D1."""
        b = Builder(self.sig, kind)
        xs = b.array({"shape": [4]}, "$D1", "a")
        key = b.array({"shape": [2], "kind": "signed integer", "domain": "index"},
                      "$D1" if setitem else "$D0", "a")
        if setitem:
            value = b.array({"shape": [2]}, "$D0", "a")
            b.steps.append({"op": "call", "args": {"fn": f["name"], "args": [xs, key, value]},
                            "either": [{"raises": "any", "stop": True}, {"expect": None}]})
            b.steps.append({"op": "array.describe", "args": {"array": xs},
                            "expect": {"device": "$D1"}})
            what = "value"
        else:
            b.steps.append({"op": "call", "args": {"fn": f["name"], "args": [xs, key]},
                            "as": "y", "either": [{"raises": "any", "stop": True},
                                                  {"expect": {"$type": "string"}}]})
            b.steps.append({"op": "array.describe", "args": {"array": "$y"},
                            "expect": {"device": "$D1"}})
            what = "index"
        self.add(f, form, "cross-device-" + what,
                 "%s on an array on D1 with %s on D0 is left to the implementation: it raises, "
                 "or the %s stays on D1." % (f["name"], "an index array" if not setitem else
                                             "a value array", "array" if setitem else "result"),
                 ["DEV-MISC-4"], ["cross-device-indexing"], b.steps)


def twin_key(case: Json) -> str:
    """What a case checks, whatever version it is scoped to: its steps, its features and the
    statements it cites but API-FN-k."""
    spec = [s for s in case["spec"] if not s.startswith("API-FN-")]
    return json.dumps([case["steps"], sorted(case["features"]), sorted(spec)], sort_keys=True)


def generate(root: str) -> Gen:
    """Every function's cases, from ROOT's table."""
    with open(os.path.join(root, SIG), encoding="utf-8") as fh:
        sig = json.load(fh)
    gen = Gen(sig)
    for f in sig["functions"]:
        gen.function(f)
    return gen


def build(root: str) -> dict[str, str]:
    gen = generate(root)
    facts = case_features.Facts(root)
    out = {}
    for family, cases in sorted(gen.files.items()):
        for c in cases:  # the features each case's steps use (spec/tools/case_features.py)
            c["features"] = facts.exact(c)
        doc = {
            "description": "Generated by %s from %s: the device rules for every function of "
                           "the %s family, for every signature it has (%d cases)."
                           % (GENERATOR, SIG, family, len(cases)),
            "cases": cases,
        }
        out[OUT % family] = dump(doc)
    return out


def dump(doc: Json) -> str:
    """One case a few lines: its head, then one step per line."""
    lines = ["{", '  "description": %s,' % json.dumps(doc["description"]), '  "cases": [']
    cases = []
    for c in doc["cases"]:
        head = {k: v for k, v in c.items() if k != "steps"}
        fields = ("%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in head.items())
        text = "    {" + ", ".join(fields)
        text += ', "steps": [\n' + ",\n".join("      " + json.dumps(s) for s in c["steps"])
        text += "\n    ]}"
        cases.append(text)
    lines.append(",\n".join(cases))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def counts(root: str) -> dict[str, int]:
    """How many generated cases count for each version."""
    return generate(root).per_version


def main(argv: list[str] | None = None) -> int:
    return generated.main((__doc__ or "").split("\n\n")[0], build, GENERATOR, argv)


if __name__ == "__main__":
    sys.exit(main())
