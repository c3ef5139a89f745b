"""The checks of spec/signatures.json that its schema cannot express (run by check.py).

    check(checker, sig, features, statements, ops, root)

- versions: each function's signatures start at `introduced`, in the order of the table's
  `versions`, each `from` once; `removed` comes after the last;
- families: each function's family is listed, and its feature is in spec/features.json,
  optional, stated from the family's first version;
- parameters: names unique in a signature; positional-only, positional-or-keyword,
  var-positional, keyword-only in that order; no required positional parameter after one
  with a default; `kinds` only on array parameters, `values` only on string parameters;
- inputs: every generated input names a kind and domain the table defines, positional
  inputs fit the newest signature's positional parameters, keyword inputs name its keyword
  parameters, optional inputs (`inputs.optional`) its keyword parameters that take an array
  (the generator would otherwise pass over a misspelt one without a word); the case kind
  (the first of `kind_order` the function accepts) has values for every domain the inputs
  use;
- statements: API-FN-1 ... one per version, introduced in that version;
- the protocol's function lists (spec/ops.json: the `fn` enums of array.create,
  array.binary, array.unary, array.reduce, global.binary, and array.create's arguments per
  function) name functions of the table and their parameters;
- conformance/cases/signatures.json: every function info.device_param asks about is in the
  table, and the kind it expects is the newest signature's kind of `device`.

Every problem goes through checker.add(FILE, POINTER, RULE, message), as check.py's own.
"""

import json
import os
from collections.abc import Callable
from typing import Any, Protocol

# A value read from JSON.
Json = Any


class Checker(Protocol):
    """What check.py's Checker offers this module."""

    def add(self, file: str, ptr: str, rule: str, message: str) -> None: ...


Add = Callable[[str, str, str, str], None]

SIG = "spec/signatures.json"
OPS = "spec/ops.json"
SIGNATURE_CASES = "conformance/cases/signatures.json"
ORDER = ("positional-only", "positional-or-keyword", "var-positional", "keyword-only")
LISTED_OPS = ("array.create", "array.binary", "array.unary", "array.reduce", "global.binary")
# Arguments of array.create that are the protocol's own, not a function's parameter.
CREATE_OWN = ("fn", "dtype", "device")


def ptr(*parts: object) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def statement_id(versions: list[str], v: str) -> str:
    """The statement that scopes a case to the versions from V on (API-FN-1 for the first)."""
    return "API-FN-%d" % (versions.index(v) + 1)


def case_kind(sig: Json, form: Json) -> str:
    """The dtype kind a function's generated cases use: the first of kind_order it accepts."""
    kinds = form.get("kinds") or []
    for k in sig["kind_order"]:
        if k in kinds:
            return str(k)
    return str(sig["kind_order"][0])


def check(checker: Checker, sig: Json, features: Json, statements: Json, ops: Json,
          root: str) -> None:
    add = checker.add
    versions = sig["versions"]
    feats = {f["name"]: f for f in (features or {}).get("features", [])}
    # families and their features
    first_of: dict[str, str] = {}
    for f in sig["functions"]:
        if f["introduced"] in versions:
            v = first_of.get(f["family"])
            if v is None or versions.index(f["introduced"]) < versions.index(v):
                first_of[f["family"]] = f["introduced"]
    for fam, entry in sig["families"].items():
        name = entry["feature"]
        if name is None or features is None:
            continue
        fe = feats.get(name)
        if fe is None:
            add(SIG, ptr("families", fam, "feature"), "signatures-feature-exists",
                "feature %s is not in spec/features.json" % name)
            continue
        if not fe["optional"]:
            add(SIG, ptr("families", fam, "feature"), "signatures-feature-optional",
                "feature %s must be optional" % name)
        first = first_of.get(fam)
        if first is not None and fe["versions"] != versions[versions.index(first):]:
            add(SIG, ptr("families", fam, "feature"), "signatures-feature-versions",
                "feature %s must apply from %s, the family's first version, to %s"
                % (name, first, versions[-1]))
    # statements scoping the cases, one per version
    if statements is not None:
        by_id = {s["id"]: s for s in statements["statements"]}
        for v in versions:
            sid = statement_id(versions, v)
            s = by_id.get(sid)
            if s is None or s["source"]["introduced"] != v:
                add(SIG, ptr("versions", versions.index(v)), "signatures-statement",
                    "%s, introduced in %s, must be in spec/statements.json" % (sid, v))
    names: dict[str, int] = {}
    for i, f in enumerate(sig["functions"]):
        here = ("functions", i)
        if f["name"] in names:
            add(SIG, ptr(*here, "name"), "signatures-name-unique",
                "%s is already at %s" % (f["name"], ptr("functions", names[f["name"]])))
        names[f["name"]] = i
        if f["family"] not in sig["families"]:
            add(SIG, ptr(*here, "family"), "signatures-family-known",
                "family %s is not in families" % f["family"])
        check_versions(add, versions, f, here)
        for j, form in enumerate(f["signatures"]):
            check_params(add, form, (*here, "signatures", j))
        if "inputs" in f:
            check_inputs(add, sig, f, here)
        elif sig["families"].get(f["family"], {}).get("feature") is not None:
            add(SIG, ptr(*here), "signatures-inputs",
                "%s has no inputs, so no case can be generated for it" % f["name"])
    table = {f["name"]: f for f in sig["functions"]}
    if ops is not None:
        check_ops(add, ops, table)
    check_signature_cases(checker, root, table)


def check_versions(add: Add, versions: list[str], f: Json, here: tuple[object, ...]) -> None:
    froms = [s["from"] for s in f["signatures"]]
    if froms[0] != f["introduced"]:
        add(SIG, ptr(*here, "signatures", 0, "from"), "signatures-introduced",
            "the first signature is from %s, the function introduced in %s"
            % (froms[0], f["introduced"]))
    idx = [versions.index(v) for v in froms]
    if idx != sorted(set(idx)):
        add(SIG, ptr(*here, "signatures"), "signatures-order",
            "signatures must be in version order, one per version: %s" % ", ".join(froms))
    if "removed" in f and versions.index(f["removed"]) <= idx[-1]:
        add(SIG, ptr(*here, "removed"), "signatures-removed",
            "removed in %s, but a signature starts in %s" % (f["removed"], froms[-1]))


def check_params(add: Add, form: Json, here: tuple[object, ...]) -> None:
    seen: set[str] = set()
    last = -1
    defaulted = False
    for k, p in enumerate(form["params"]):
        at = (*here, "params", k)
        if p["name"] in seen:
            add(SIG, ptr(*at, "name"), "signatures-param-unique", "parameter %s twice" % p["name"])
        seen.add(p["name"])
        order = ORDER.index(p["kind"])
        if order < last:
            add(SIG, ptr(*at, "kind"), "signatures-param-order",
                "a %s parameter after a %s one" % (p["kind"], ORDER[last]))
        last = max(last, order)
        positional = p["kind"] in ("positional-only", "positional-or-keyword")
        if positional and "default" in p:
            defaulted = True
        elif positional and defaulted:
            add(SIG, ptr(*at), "signatures-param-default",
                "required positional parameter %s after one with a default" % p["name"])
        if p.get("required") and "default" in p:
            add(SIG, ptr(*at), "signatures-param-default", "%s is required and has a default"
                % p["name"])
        if "kinds" in p and not {"array", "arrays"} & set(p["types"]):
            add(SIG, ptr(*at, "kinds"), "signatures-param-kinds",
                "dtype kinds on %s, which takes no array" % p["name"])
        if "values" in p and "str" not in p["types"]:
            add(SIG, ptr(*at, "values"), "signatures-param-values",
                "string values on %s, which takes no string" % p["name"])


def array_specs(value: Json) -> list[Json]:
    if isinstance(value, dict) and set(value) == {"array"}:
        return [value["array"]]
    if isinstance(value, dict) and set(value) == {"arrays"}:
        return list(value["arrays"])
    return []


def check_inputs(add: Add, sig: Json, f: Json, here: tuple[object, ...]) -> None:
    newest = f["signatures"][-1]
    params = newest["params"]
    inputs = f["inputs"]
    args = list(inputs.get("args", []))
    if f["name"].startswith("Array.") and not f.get("property"):
        args = args[1:]  # the first is the array whose method is called
    elif f.get("property"):
        args = args[1:]
    positional = [p for p in params if p["kind"] in ("positional-only", "positional-or-keyword")]
    variadic = any(p["kind"] == "var-positional" for p in params)
    if len(args) > len(positional) and not variadic:
        add(SIG, ptr(*here, "inputs", "args"), "signatures-inputs-args",
            "%d positional inputs, but %s takes %d" % (len(args), f["name"], len(positional)))
    # A device parameter gets the device each case is about, from the generator.
    missing = [p["name"] for p in positional[len(args):] if p.get("required")
               and p["name"] not in inputs.get("kwargs", {}) and "device" not in p["types"]]
    if missing:
        add(SIG, ptr(*here, "inputs", "args"), "signatures-inputs-args",
            "no input for required parameter(s) %s" % ", ".join(missing))
    keywords = {p["name"] for p in params if p["kind"] in ("positional-or-keyword", "keyword-only")}
    for k in inputs.get("kwargs", {}):
        if k not in keywords:
            add(SIG, ptr(*here, "inputs", "kwargs", k), "signatures-inputs-kwargs",
                "%s takes no keyword %s" % (f["name"], k))
    takes_array = {p["name"] for p in params if p["name"] in keywords and "array" in p["types"]}
    for k in inputs.get("optional", {}):
        if k not in takes_array:
            add(SIG, ptr(*here, "inputs", "optional", k), "signatures-inputs-optional",
                "%s has no keyword %s that takes an array" % (f["name"], k))
    kind = case_kind(sig, newest)
    values = [("args", n, v) for n, v in enumerate(inputs.get("args", []))]
    values += [(part, n, v) for part in ("kwargs", "optional")
               for n, v in inputs.get(part, {}).items()]
    for part, n, v in values:
        for spec in array_specs(v):
            k = spec.get("kind", kind)
            domain = spec.get("domain", "any")
            if domain not in sig["domains"]:
                add(SIG, ptr(*here, "inputs", part, n), "signatures-inputs-domain",
                    "domain %s is not in domains" % domain)
            elif domain != "spd" and domain not in sig["kinds"][k]["values"]:
                add(SIG, ptr(*here, "inputs", part, n), "signatures-inputs-domain",
                    "kind %s has no values for domain %s" % (k, domain))


def check_ops(add: Add, ops: Json, table: dict[str, Json]) -> None:
    by_name = {op["name"]: op for op in ops["ops"]}
    for name in LISTED_OPS:
        op = by_name.get(name)
        if op is None:
            continue
        fn = next((a for a in op["args"] if a["name"] == "fn"), None)
        if fn is None:
            continue
        for k, f in enumerate(fn["schema"].get("enum", [])):
            full = f if f in table else ("fft." + f if "fft." + f in table else None)
            if full is None:
                add(OPS, ptr("ops", ops["ops"].index(op), "args", op["args"].index(fn), "schema",
                             "enum", k), "signatures-op-function",
                    "%s's fn %s is not a function of spec/signatures.json" % (name, f))
        for k, entry in enumerate(op.get("functions", [])):
            f = table.get(entry["name"]) or table.get("fft." + entry["name"])
            if f is None:
                continue
            params = {p["name"] for p in f["signatures"][-1]["params"]}
            for j, a in enumerate(entry["args"]):
                if a["name"] not in params and a["name"] not in CREATE_OWN:
                    add(OPS, ptr("ops", ops["ops"].index(op), "functions", k, "args", j),
                        "signatures-op-param", "%s has no parameter %s in spec/signatures.json"
                        % (f["name"], a["name"]))


def check_signature_cases(checker: Checker, root: str, table: dict[str, Json]) -> None:
    path = os.path.join(root, SIGNATURE_CASES)
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    for i, case in enumerate(doc.get("cases", [])):
        for j, step in enumerate(case.get("steps", [])):
            if step.get("op") != "info.device_param":
                continue
            fn = step.get("args", {}).get("fn")
            at = ptr("cases", i, "steps", j, "args", "fn")
            if fn not in table:
                checker.add(SIGNATURE_CASES, at, "signatures-case-function",
                            "%s is not a function of spec/signatures.json" % fn)
                continue
            expect = step.get("expect")
            want = expect.get("kind") if isinstance(expect, dict) else None
            if not isinstance(want, str):
                continue
            dev = [p for p in table[fn]["signatures"][-1]["params"] if p["name"] == "device"]
            have = dev[0]["kind"] if dev else "absent"
            if have != want:
                checker.add(SIGNATURE_CASES, at, "signatures-case-device",
                            "the case expects device %s, spec/signatures.json says %s"
                            % (want, have))
