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
- expect-DTYPE: every input on D0 (a library with one device runs it), each output read and
  compared with the values the standard's definition gives, computed here in plain Python
  (fn_values.py: math, cmath, a DFT of its own; never a library), exactly or within the
  tolerance above in that dtype's epsilon, in float32 and again in float64 (complex64 and
  complex128), so that an FFT of zeros or a float64 result only float32-accurate fails; a
  creation function gets dtype= of each; it cites API-FN-k alone (spec/decisions.md, "Every
  function" 16);
- kw-NAME: each keyword parameter the table's inputs leave out, given once (each listed value
  of a string parameter; `KEYWORD_VALUES` where the other bool or axis 0 does not fit): every
  array input on D1 (a creation function's result made there through device=D1), every
  output on D1 and, where fn_values defines it, its values;
- zero-d, empty: 0-d and empty inputs (every array input of shape [] or [0]) for the
  elementwise functions and operators and those of `ZERO_D` and `EMPTY`, on D1: every output
  on D1 with its values;
- device-from-array, device-d0-crossing: a function with a device parameter given the device
  of an array on D1 (`device=x.device`): the result is on D1; its array inputs on D1 with
  device=D0: the result is on D0;
- more outputs: nonzero of a 2-d array, meshgrid and broadcast_arrays of three arrays, each
  output on D1 with its values (every function returning several arrays has each checked);
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
import math
import os
import sys
from typing import Any

import case_features
import fn_values
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


# The domains whose values may start anywhere in their list: an expect case's second and
# later arrays start one further each, so that x1 - x2 or x1 % x2 is not all zeros.
SPREAD = ("any", "nonzero", "positive", "unit", "ge1")


def typed(sig: Json, spec: Json, kind: str, dtypes: dict[str, str] | None = None,
          offset: int = 0) -> Json:
    """The typed array an {"array": spec} input stands for (its dtype through DTYPES, the
    wider dtype of a values case's second run; its values from OFFSET on in a SPREAD
    domain)."""
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
        start = offset if domain in SPREAD else 0
        data = [values[(start + i) % len(values)] for i in range(n)]
    dtype = (dtypes or {}).get(gen["dtype"], gen["dtype"])
    return {"dtype": dtype, "shape": shape, "data": data}


def give_device(call: Json, positional: bool, device: str) -> None:
    """device= in a call's arguments: positional where the signature has it so, else a keyword."""
    if positional:
        call["args"].append(device)
    else:
        call.setdefault("kwargs", {})["device"] = device


class Builder:
    """The steps of one case: arrays made on their devices, then the call."""

    def __init__(self, sig: Json, kind: str, dtypes: dict[str, str] | None = None,
                 spread: bool = False) -> None:
        self.sig = sig
        self.kind = kind
        self.dtypes = dtypes or {}
        self.spread = spread
        self.steps: list[Json] = []
        self.count = 0
        # Each array made, by its reference: the typed array (for the expected values).
        self.made: dict[str, Json] = {}

    def array(self, spec: Json, device: str, tag: str) -> str:
        name = "%s%d" % (tag, self.count)
        self.count += 1
        obj = typed(self.sig, spec, self.kind, self.dtypes, self.count - 1 if self.spread else 0)
        self.steps.append({"op": "array.asarray", "args": {"obj": obj, "device": device},
                           "as": name})
        self.made["$" + name] = obj
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


def outputs(f: Json, form: Json, result: Any = None) -> list[int | None]:
    """The `pick` of each array the function returns: [None] for one array, [0, 1, ...] for a
    tuple; [] when it returns no array. RESULT, the values computed here, gives how many a
    function returning as many arrays as its inputs give returns."""
    r = form["returns"]
    if r["type"] == "arrays" and isinstance(result, list):
        return list(range(len(result)))
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

    def since(self, form: Json, steps: list[Json]) -> str:
        """The first version a case of FORM with STEPS checks: FORM's, or a later one where a
        step's expected dtype is a later version's rule (fn_values.INPUT_DTYPE_SINCE: sum of
        a float32 array is float32 from 2023.12, the default floating dtype before)."""
        version = str(form["from"])
        checks_dtype = any(s["op"] in ("array.read", "array.describe") and
                           '"dtype"' in json.dumps(s.get("expect")) for s in steps)
        for s in steps:
            args = s.get("args") or {}
            later = fn_values.INPUT_DTYPE_SINCE.get(args.get("fn", "")) \
                if s["op"] == "call" else None
            if (later and checks_dtype and "dtype" not in (args.get("kwargs") or {}) and
                    self.versions.index(later) > self.versions.index(version)):
                version = later
        return version

    def add(self, f: Json, form: Json, what: str, description: str, spec: list[str],
            features: list[str], steps: list[Json]) -> None:
        case_id = "fn.%s.%s.%s" % (slug(f["name"]), vslug(form["from"]), what)
        since = self.since(form, steps)
        scopes = [self.scope(form)]
        if since != form["from"]:
            scopes.append(self.scope({"from": since}))
        case: Json = {
            "id": case_id,
            "description": description,
            "spec": [*spec, *scopes],
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
        for v in self.versions[self.versions.index(since):]:
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
                self.expected(f, form)
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
            self.expected(f, form)
            self.keywords(f, form, n)
            self.shapes(f, form)
            self.more_outputs(f, form)

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
        give_device(call, positional, "$D1")
        self.check_outputs(b, f, form, call, "$D1", "")
        self.add(f, form, "device-d1",
                 "%s with device=D1%s puts its result on D1."
                 % (f["name"], " (its array inputs on D0)" if n else ""), spec, [feature], b.steps)
        b = Builder(self.sig, kind)
        marker = b.array({"shape": [1]}, "$D1", "d")
        b.steps.append({"op": "call", "args": {"fn": "Array.device", "args": [marker]},
                        "as": "dev", "expect": {"$type": "string"}})
        call = self.call_args(b, f, "$D0", "a", [])
        give_device(call, positional, "$dev")
        self.check_outputs(b, f, form, call, "$D1", "")
        self.add(f, form, "device-from-array",
                 "%s with device= taken from an array on D1 (x.device)%s puts its result on D1."
                 % (f["name"], " (its array inputs on D0)" if n else ""), [*spec, "DEV-ATTR-1"],
                 [feature, "device-attr"], b.steps)
        if n:
            b = Builder(self.sig, kind)
            call = self.call_args(b, f, "$D1", "a", [])
            give_device(call, positional, "$D0")
            self.check_outputs(b, f, form, call, "$D0", "")
            self.add(f, form, "device-d0-crossing",
                     "%s with its array inputs on D1 and device=D0 puts its result on D0: the "
                     "device given wins over the inputs'." % f["name"], spec, [feature], b.steps)
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

    # -- values from the definitions, keywords, shapes, devices from arrays ---------------

    def expect_outputs(self, b: Builder, f: Json, form: Json, call: Json, device: str | None,
                       tag: str, tol: tuple[int, int] | None) -> bool:
        """Calls, then reads each output against the values the standard's definition gives
        (fn_values, computed here), and checks each output's device where DEVICE is given.
        False, with nothing written, where the definition is not computed here."""
        try:
            want = evaluate(b, call)
        except fn_values.Unsupported:
            return False
        picks = outputs(f, form, want)
        if f["name"] == "Array.device" or form["returns"]["type"] == "none":
            return False
        if not picks:
            b.steps.append({"op": "call", "args": call, "expect": scalar_json(want)})
            return True
        results = [want] if picks == [None] else list(want)
        if len(results) != len(picks):
            return False
        for pick, value in zip(picks, results, strict=True):
            args = dict(call)
            if pick is not None:
                args["pick"] = pick
            name = "%sy%d" % (tag, 0 if pick is None else pick)
            b.steps.append({"op": "call", "args": args, "as": name,
                            "expect": {"$type": "string"}})
            if device is not None:
                b.steps.append({"op": "array.describe", "args": {"array": "$" + name},
                                "expect": {"device": device}})
            part = UNIQUE_PART.get((f["name"], pick), [])
            if part is None:
                b.steps.append({"op": "array.describe", "args": {"array": "$" + name},
                                "expect": {"dtype": value.dtype, "shape": list(value.shape)}})
                continue
            ref = self.unique_part(b.steps, "$" + name, part, name)
            for fn in part:
                value = fn_values.evaluate(fn, [value], {})
            b.steps.append({"op": "array.read", "args": {"array": ref},
                            "expect": array_json(value, tol)})
        return True

    def expected(self, f: Json, form: Json) -> None:
        """The values case of the standard's definition: every input on D0 (so that a library
        with one device runs it), the call's every output read and compared with the values
        computed here from the definition, exactly or within the dtype's tolerance, in each
        floating dtype of both widths (float32 and float64, complex64 and complex128)."""
        if f["name"] in NO_VALUES or f["name"] == "Array.to_device":
            # to_device's values are its input's: the to-device cases (array.to_device, which a
            # library without the method serves through a helper) read them
            return
        kind = case_kind(self.sig, form)
        dtype = self.sig["kinds"][kind]["dtype"]
        widths = [{}, WIDER] if dtype in WIDER or count_arrays(f["inputs"]) == 0 else [{}]
        if f["name"] in EXPECT_SHAPE:
            f = dict(f, inputs=reshaped(f["inputs"], EXPECT_SHAPE[f["name"]]))
        for dtypes in widths:
            b = Builder(self.sig, kind, dtypes, spread=True)
            call = self.call_args(b, f, "$D0", "a", [])
            self.with_device(f, form, call, "$D0")
            created = ""
            if count_arrays(f["inputs"]) == 0:
                if not takes_dtype(form):
                    if dtypes:
                        continue
                else:
                    created = dtypes.get("float32", "float32")
                    call.setdefault("kwargs", {})["dtype"] = {"dtype": created}
            tol = tolerance(f, kind)
            if not self.expect_outputs(b, f, form, call, None, "", tol):
                return
            used = created or dtypes.get(dtype, dtype)
            if count_arrays(f["inputs"]) == 0 and not created:
                used = "values"  # its result has no dtype of the table's
            self.add(f, form, "expect-%s" % used,
                     "%s on D0%s gives the values the standard's definition gives, computed "
                     "independently when the cases were generated%s." % (
                         f["name"], "" if used == "values" else " in " + used,
                         tolerance_text(tol)), [], [], b.steps)

    def keywords(self, f: Json, form: Json, n: int) -> None:
        """Each keyword parameter the table's inputs leave out, given once (each value of a
        string parameter with listed values): every array input on D1 (the result of a
        function without one made on D1 through device=), every output on D1 and, where the
        definition is computed here, its values."""
        kind = case_kind(self.sig, form)
        for p, label, value in keyword_values(self.sig, f, form, kind):
            b = Builder(self.sig, kind)
            call = self.call_args(b, f, "$D1", "a", [])
            self.with_device(f, form, call, "$D1")
            call.setdefault("kwargs", {})[p] = value
            spec, features = ["DEV-DS-10"], ["output-follows-input"]
            if n == 0:
                if not any(q["name"] == "device" for q in form["params"]):
                    continue
                call["kwargs"]["device"] = "$D1"
                if p != "dtype" and takes_dtype(form):
                    call["kwargs"]["dtype"] = {"dtype": "float32"}  # its values are defined
                spec, feature = DEVICE_RULES.get(f["name"], (["DEV-DS-9"], "creation-device-kw"))
                features = [feature]
            tol = tolerance(f, kind)
            if not self.expect_outputs(b, f, form, call, "$D1", "", tol):
                self.check_outputs(b, f, form, call, "$D1", "")
                how = ""
            else:
                how = ", and the values of its definition%s" % tolerance_text(tol)
            self.add(f, form, "kw-" + label,
                     "%s with %s=%s and %s puts every array it returns on D1%s."
                     % (f["name"], p, json.dumps(value), "every array input on D1" if n else
                        "device=D1", how), spec, features, b.steps)

    def shapes(self, f: Json, form: Json) -> None:
        """0-d and empty inputs where the function takes them: every array input of that
        shape on D1, every output on D1 and its values."""
        kind = case_kind(self.sig, form)
        for label, shape, names in (("zero-d", [], ZERO_D), ("empty", [0], EMPTY)):
            if f["name"] not in names and not (f["family"] == "elementwise" or
                                              DUNDER_ELEMENTWISE.get(f["name"])):
                continue
            g = dict(f, inputs=reshaped(f["inputs"], shape))
            b = Builder(self.sig, kind)
            call = self.call_args(b, g, "$D1", "a", [])
            self.with_device(f, form, call, "$D1")
            tol = tolerance(f, kind)
            if not self.expect_outputs(b, g, form, call, "$D1", "", tol):
                self.check_outputs(b, g, form, call, "$D1", "")
            self.add(f, form, label,
                     "%s of %s inputs on D1 puts every array it returns on D1, with the values "
                     "of its definition." % (f["name"], "0-d" if not shape else "empty"),
                     ["DEV-DS-10"], ["output-follows-input"], b.steps)

    def more_outputs(self, f: Json, form: Json) -> None:
        """Functions returning as many arrays as their inputs give: inputs that give more
        outputs (nonzero of a 2-d array, meshgrid and broadcast_arrays of three arrays), each
        output on D1 with its values."""
        if f["name"] not in MORE_OUTPUTS:
            return
        label, inputs = MORE_OUTPUTS[f["name"]]
        g = dict(f, inputs=inputs)
        b = Builder(self.sig, case_kind(self.sig, form))
        call = self.call_args(b, g, "$D1", "a", [])
        if not self.expect_outputs(b, g, form, call, "$D1", "", None):
            raise ValueError("%s: no values for %s" % (f["name"], label))
        self.add(f, form, label, "%s of %s on D1 puts each array it returns on D1, with the "
                 "values of its definition." % (f["name"], label.replace("-", " ")),
                 ["DEV-DS-10"], ["output-follows-input"], b.steps)

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
            # Where the result lands is left open too: on the array's device or the index's.
            b.steps.append({"op": "array.describe", "args": {"array": "$y"},
                            "either": [{"expect": {"device": "$D1"}},
                                       {"expect": {"device": "$D0"}}]})
            what = "index"
        self.add(f, form, "cross-device-" + what,
                 "%s on an array on D1 with %s on D0 is left to the implementation: it raises, "
                 "or %s." % (f["name"], "an index array" if not setitem else "a value array",
                             "the array stays on D1" if setitem else
                             "the result is on one of the two devices (D1 or D0)"),
                 ["DEV-MISC-4"], ["cross-device-indexing"], b.steps)


# The wider dtype of a values case's second run: a float64 result accurate only to float32's
# epsilon fails it.
WIDER = {"float32": "float64", "complex64": "complex128"}
# The functions, besides the elementwise ones, that take 0-d and empty inputs (and the array
# methods that are elementwise operators), by the standard's text: a reduction over no axis
# of a 0-d array is that array's one element; max, min, mean, std and var of nothing have no
# value (max and min raise, the others give NaN: no empty case).
ZERO_D = frozenset((
    "sum", "prod", "max", "min", "mean", "std", "var", "all", "any", "count_nonzero", "where",
    "zeros_like", "ones_like", "full_like", "asarray", "astype", "Array.to_device"))
EMPTY = frozenset((
    "sum", "prod", "all", "any", "count_nonzero", "cumulative_sum", "cumulative_prod", "sort",
    "argsort", "unique_values", "unique_counts", "unique_inverse", "unique_all", "flip", "isin",
    "where", "zeros_like", "ones_like", "full_like", "asarray", "astype", "Array.to_device"))
DUNDER_ELEMENTWISE = {"Array." + k: v for k, v in fn_values.DUNDER.items()
                      if v in fn_values.UNARY or v in fn_values.BINARY}
# Inputs that give a function returning as many arrays as its inputs give more outputs.
MORE_OUTPUTS: dict[str, tuple[str, Json]] = {
    "nonzero": ("two-d", {"args": [{"array": {"shape": [2, 3], "domain": "sparse"}}]}),
    "meshgrid": ("three-arrays", {"args": [{"array": {"shape": [3]}}, {"array": {"shape": [2]}},
                                           {"array": {"shape": [2]}}]}),
    "broadcast_arrays": ("three-arrays", {"args": [{"array": {"shape": [2, 1]}},
                                                   {"array": {"shape": [3]}},
                                                   {"array": {"shape": [1, 3]}}]}),
}
# The FFTs' values cases transform 6 points (or give 6, from 4): the twiddle factors of 4
# points are exact in every dtype, so a float64 transform computed in float32 would pass them.
EXPECT_SHAPE = {
    "fft.fft": [6], "fft.ifft": [6], "fft.rfft": [6], "fft.ihfft": [6], "fft.hfft": [4],
    "fft.irfft": [4], "fft.fftn": [2, 6], "fft.ifftn": [2, 6], "fft.rfftn": [2, 6],
    "fft.irfftn": [2, 4]}
# Keyword parameters the keyword cases leave alone: a device (the device cases give it), a
# stream (no op carries one), and those that take arrays (inputs.optional gives them).
NO_KEYWORD_CASE = ("device", "stream")
# The value each keyword case gives, where the generic rule (the other bool, a listed string
# other than the default, axis 0) does not fit: by (function or None, parameter).
KEYWORD_VALUES: dict[tuple[str | None, str], Json] = {
    (None, "correction"): 1, (None, "k"): 1, (None, "offset"): 1, (None, "step"): 2,
    (None, "d"): 0.5, ("diff", "n"): 2, ("linalg.vector_norm", "ord"): 1,
    # the standard takes only negative axes here (from 2023.12 "must be a negative integer";
    # cross's 1-d inputs have the one axis)
    ("linalg.cross", "axis"): -1, ("vecdot", "axis"): -2, ("linalg.vecdot", "axis"): -2,
    ("fft.fft", "n"): 8, ("fft.ifft", "n"): 8, ("fft.rfft", "n"): 8, ("fft.ihfft", "n"): 8,
    ("fft.irfft", "n"): 5, ("fft.hfft", "n"): 5,
    ("fft.fftn", "s"): {"tuple": [2, 4]}, ("fft.ifftn", "s"): {"tuple": [2, 4]},
    ("fft.rfftn", "s"): {"tuple": [2, 4]}, ("fft.irfftn", "s"): {"tuple": [2, 4]},
    ("fft.fftn", "axes"): {"tuple": [1]}, ("fft.ifftn", "axes"): {"tuple": [1]},
    ("fft.rfftn", "axes"): {"tuple": [1]}, ("fft.irfftn", "axes"): {"tuple": [1]},
}
WIDER_KW = {"float32": "float64", "complex64": "complex128", "int32": "int64",
            "uint8": "uint16", "bool": "int32"}


def takes_dtype(form: Json) -> bool:
    """Whether FORM has an optional dtype keyword (a creation function's)."""
    return any(p["name"] == "dtype" and not p.get("required") for p in form["params"])


def first_ndim(f: Json) -> int:
    for v in f["inputs"].get("args", []):
        if isinstance(v, dict) and set(v) == {"array"}:
            return len(v["array"]["shape"])
        if isinstance(v, dict) and set(v) == {"arrays"}:
            return len(v["arrays"][0]["shape"])
    return 0


def keyword_values(sig: Json, f: Json, form: Json, kind: str) -> list[tuple[str, str, Json]]:
    """(parameter, case label, value) of each keyword case of F's signature FORM."""
    inputs = f["inputs"]
    given = set(inputs.get("kwargs", {})) | set(inputs.get("optional", {}))
    positional = [p["name"] for p in form["params"]
                  if p["kind"] in ("positional-only", "positional-or-keyword")]
    given |= set(positional[:len(inputs.get("args", []))])
    ndim = first_ndim(f)
    out: list[tuple[str, str, Json]] = []
    for p in form["params"]:
        name, types = p["name"], p["types"]
        if p["kind"] not in ("keyword-only", "positional-or-keyword") or p.get("required") \
                or name in given or name in NO_KEYWORD_CASE or "array" in types:
            continue
        default = p.get("default")
        value: Json
        if (f["name"], name) in KEYWORD_VALUES or (None, name) in KEYWORD_VALUES:
            value = KEYWORD_VALUES.get((f["name"], name), KEYWORD_VALUES.get((None, name)))
        elif p.get("values"):
            for v in p["values"]:
                if "'%s'" % v != default:
                    out.append((name, "%s-%s" % (name, v), v))
            continue
        elif "bool" in types:
            value = default != "True"
        elif name == "dtype":
            dtype = sig["kinds"][kind]["dtype"] if count_arrays(inputs) else "float32"
            value = {"dtype": WIDER_KW.get(dtype, dtype) if count_arrays(inputs) else dtype}
        elif name in ("axis", "axes"):
            if ndim == 0:
                continue
            ax = 0 if default in ("-1", "None") else -1
            value = ax if "int" in types else {"tuple": [ax]}
        else:
            raise ValueError("%s: no keyword case value for %s (KEYWORD_VALUES)"
                             % (f["name"], name))
        out.append((name, name, value))
    return out


def reshaped(inputs: Json, shape: list[int]) -> Json:
    """INPUTS with every array of SHAPE (its kind and domain kept)."""
    def one(v: Json) -> Json:
        if isinstance(v, dict) and set(v) == {"array"}:
            return {"array": dict(v["array"], shape=shape)}
        if isinstance(v, dict) and set(v) == {"arrays"}:
            return {"arrays": [dict(a, shape=shape) for a in v["arrays"]]}
        return v
    out = dict(inputs, args=[one(v) for v in inputs.get("args", [])])
    if "kwargs" in inputs:
        out["kwargs"] = {k: one(v) for k, v in inputs["kwargs"].items()}
    return out


def to_value(b: Builder, v: Json) -> Any:
    """A call value as fn_values takes it."""
    if isinstance(v, str) and v in b.made:
        obj = b.made[v]
        data = [complex(*e) if isinstance(e, list) else e for e in obj["data"]]
        return fn_values.Arr(obj["dtype"], obj["shape"], data)
    if isinstance(v, str) and v.startswith("$"):
        return v  # a device
    if isinstance(v, dict) and set(v) == {"tuple"}:
        return [to_value(b, e) for e in v["tuple"]]
    if isinstance(v, dict) and set(v) == {"dtype"}:
        return v["dtype"]
    if isinstance(v, dict) and set(v) == {"complex"}:
        return complex(*v["complex"])
    if isinstance(v, dict):
        raise fn_values.Unsupported("the call value %s" % json.dumps(v))
    return v


def evaluate(b: Builder, call: Json) -> Any:
    """The result of CALL by the standard's definition (fn_values)."""
    args = [to_value(b, v) for v in call.get("args", [])]
    kwargs = {k: to_value(b, v) for k, v in call.get("kwargs", {}).items()}
    try:
        return fn_values.evaluate(call["fn"], args, kwargs)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as e:
        raise fn_values.Unsupported(str(e)) from e


def element_json(v: Any) -> Json:
    if isinstance(v, complex):
        return [element_json(v.real), element_json(v.imag)]
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and math.copysign(1.0, v) < 0:
            return "-0.0"
    return v


def array_json(a: fn_values.Arr, tol: tuple[int, int] | None) -> Json:
    """The expected value of reading A: exactly, an index array of either index dtype, or
    floats within TOL."""
    data = [element_json(v) for v in a.data]
    if a.dtype == fn_values.INDEX:
        return {"$array": {"dtype": {"$in": ["int32", "int64"]}, "shape": list(a.shape),
                           "data": data}}
    if tol is not None and fn_values.kind(a.dtype) in ("float", "complex"):
        # $close compares two zeros exactly (-0.0 apart from 0.0), but where the standard
        # leaves the accuracy open a zero's sign is the implementation's too (ihfft's
        # conj(0) is -0.0 in one library, 0.0 in another): a zero is written as the dtype's
        # smallest normal number, which a zero of either sign is within the tolerance of.
        tiny = TINY[fn_values.REAL_OF.get(a.dtype, a.dtype)]
        data = [element_json(nonzero(v, tiny)) for v in a.data]
        typed_ = {"dtype": a.dtype, "shape": list(a.shape), "data": data}
        return {"$close": {"to": typed_, "rel_eps": tol[0], "abs_eps": tol[1]}}
    return {"dtype": a.dtype, "shape": list(a.shape), "data": data}


TINY = {"float32": 2.0 ** -126, "float64": 2.0 ** -1022}


def nonzero(v: Any, tiny: float) -> Any:
    """V with each zero (of a complex number, each zero part) replaced by TINY."""
    if isinstance(v, complex):
        return complex(nonzero(v.real, tiny), nonzero(v.imag, tiny))
    return tiny if v == 0 else v


def scalar_json(v: Any) -> Json:
    """A call's non-array result as the protocol gives it."""
    if isinstance(v, complex):
        return {"complex": [element_json(v.real), element_json(v.imag)]}
    if isinstance(v, float) and not math.isfinite(v):
        return {"scalar": element_json(v)}
    return v


def tolerance_text(tol: tuple[int, int] | None) -> str:
    if tol is None:
        return ", exactly"
    return (", its floats within (%d + %d * |value|) times the dtype's epsilon (the standard "
            "leaves their accuracy to the implementation)" % (tol[1], tol[0]))


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
