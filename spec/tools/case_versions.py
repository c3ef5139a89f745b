#!/usr/bin/env python3
"""Derives the least array API version a case's steps need and checks every case file against
the versions the case declares.

    case_versions.py [--root DIR] [--check | --fix] [--counts] [FILE...]

A case declares its versions by the array API statements it cites: it runs on a library
declaring version V only when every array API statement it cites holds in V (the runner's
version skip, spec/decisions.md, Runner and reports 36), and counts for a profile of V
likewise. A case citing no array API statement is of another document (Ivy's, OneFlow's,
the early draft's), whose libraries declare no array API version: it is not checked
(spec/decisions.md, Every function 17). Its steps need
versions too: a step that calls a function of the standard (through `call`, or through an op
that is that function: `array.astype` is `astype`, `array.binary` calls its `fn`,
`info.dtypes` is the inspection namespace's `dtypes`, `array.dlpack` is `__dlpack__` with
`max_version`) needs the first version of spec/signatures.json in which the function exists
and whose signature has every parameter the step passes (`astype(device=)` is of 2023.12,
`astype` alone of 2021.12). So:

- needed(case) = the latest of its steps' versions;
- every version the case declares must be needed(case) or later, else it is an error naming
  the case, the step and the function with its version: the case would run on (and charge) a
  library of an earlier version that has no such function or parameter.

--check (the default, run by spec/tools/check.py) prints each such case and exits 1. --fix
adds to the `spec` of each such case in the hand-written case files the statement of the
version its steps need (API-FN-k: "version V adds the functions spec/signatures.json lists
as appearing in V"), so that it declares that version onwards; a generated file is its
generator's and is only named. It is rerunnable: a second --fix changes nothing. --counts
prints how many cases run on a library of each version. Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from typing import Any

import generated

SIGNATURES = "spec/signatures.json"
STATEMENTS = "spec/statements.json"
CASES = "conformance/cases"
TOOL = "spec/tools/case_versions.py"
DOCUMENT = "array-api"  # the document whose versions libraries declare
Json = Any

# The ops that call a function of the standard: op -> (the function, or "$ARG" for the step
# argument that names it; {the step's argument: the parameter it is passed as}; the
# parameters the op always passes). An argument not listed (the array a method is called on,
# the arrays of a function that takes them positionally) needs no parameter of its own; an
# argument absent or null passes nothing. `call` is read from its args and kwargs.
OP_FUNCTIONS: dict[str, tuple[str, dict[str, str], list[str]]] = {
    "array.create": ("$fn", {a: a for a in ("shape", "fill_value", "start", "stop", "step",
                                             "num", "endpoint", "n_rows", "n_cols", "k",
                                             "x", "n", "d", "dtype", "device")}, []),
    "array.asarray": ("asarray", {"dtype": "dtype", "device": "device", "copy": "copy"}, []),
    "array.astype": ("astype", {"dtype": "dtype", "copy": "copy", "device": "device"}, []),
    "array.to_device": ("Array.to_device", {"device": "device", "stream": "stream"}, []),
    "array.describe": ("Array.device", {}, []),
    "array.binary": ("$fn", {}, []),
    "array.unary": ("$fn", {}, []),
    "array.reduce": ("$fn", {"axis": "axis"}, []),
    "array.matmul": ("matmul", {}, []),
    "array.stack": ("stack", {"axis": "axis"}, []),
    "array.tril": ("tril", {"k": "k"}, []),
    "array.triu": ("triu", {"k": "k"}, []),
    "array.dlpack_device": ("Array.__dlpack_device__", {}, []),
    # The adapter asks max_version=(1, 0), as the standard's consumers do (spec/protocol.md).
    "array.dlpack": ("Array.__dlpack__", {"dl_device": "dl_device", "copy": "copy",
                                          "stream": "stream"}, ["max_version"]),
    "array.from_dlpack": ("from_dlpack", {"device": "device", "copy": "copy"}, []),
    # The producer's __dlpack__ with the step's dl_device and copy; the consumer's
    # from_dlpack. A consumer asks max_version=(1, 0) first and without it after.
    "array.exchange": ("Array.__dlpack__", {"dl_device": "dl_device", "copy": "copy"}, []),
    "dtype.can_cast": ("can_cast", {}, []),
    "dtype.result_type": ("result_type", {}, []),
    "info.devices": ("info.devices", {}, []),
    "info.devices_type": ("info.devices", {}, []),
    "info.default_device": ("info.default_device", {}, []),
    "info.default_dtypes": ("info.default_dtypes", {"device": "device"}, []),
    "info.dtypes": ("info.dtypes", {"device": "device", "kind": "kind"}, []),
    "info.capabilities": ("info.capabilities", {}, []),
    # Reads FN's signature: FN must exist; whether it takes device is what the step asks.
    "info.device_param": ("$fn", {}, []),
}
# Functions array.create names by their short name.
CREATE_NAMES = {"fftfreq": "fft.fftfreq", "rfftfreq": "fft.rfftfreq"}
STATEMENT_OF = re.compile(r"^API-FN-\d+$")


class Need:
    """What one step needs: FUNCTION with PARAMS, first in VERSION (None: no version has
    it)."""

    def __init__(self, function: str, params: list[str], version: str | None) -> None:
        self.function = function
        self.params = params
        self.version = version

    def call(self) -> str:
        return "%s(%s)" % (self.function, ", ".join(p + "=" for p in self.params))


class Facts:
    """spec/signatures.json's functions by version, and the versions of spec/statements.json's
    array API statements."""

    def __init__(self, root: str) -> None:
        def load(rel: str) -> Json:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                return json.load(f)

        sig = load(SIGNATURES)
        self.versions: list[str] = list(sig["versions"])
        self.functions: dict[str, Json] = {f["name"]: f for f in sig["functions"]}
        st = load(STATEMENTS)
        self.statements: dict[str, list[str]] = {}
        for s in st["statements"]:
            if (s.get("source") or {}).get("document") == DOCUMENT:
                self.statements[s["id"]] = list(s.get("versions", []))
        # API-FN-k, the statement of the version whose functions it lists: the version it
        # starts in.
        self.adds: dict[str, str] = {}
        for sid, vs in self.statements.items():
            if STATEMENT_OF.match(sid) and vs:
                self.adds[self.first(vs)] = sid
        for op, (fn, _, _) in OP_FUNCTIONS.items():
            if not fn.startswith("$") and fn not in self.functions:
                raise ValueError("%s: op %s's function %r is not in %s"
                                 % (TOOL, op, fn, SIGNATURES))

    def order(self, version: str) -> int:
        return self.versions.index(version) if version in self.versions else len(self.versions)

    def first(self, versions: list[str]) -> str:
        return min(versions, key=self.order)

    def signature_at(self, fn: Json, version: str) -> Json | None:
        """FN's signature in VERSION: the last that starts no later; None before it exists."""
        if self.order(fn["introduced"]) > self.order(version):
            return None
        at = None
        for s in fn["signatures"]:
            if self.order(s["from"]) <= self.order(version):
                at = s
        return at

    def has(self, fn: Json, version: str, params: list[str], positional: int) -> bool:
        """VERSION's signature of FN takes PARAMS by name and POSITIONAL arguments."""
        s = self.signature_at(fn, version)
        if s is None:
            return False
        names = {p["name"] for p in s["params"]}
        kinds = [p["kind"] for p in s["params"]]
        if "var-positional" not in kinds and positional > sum(
                k in ("positional-only", "positional-or-keyword") for k in kinds):
            return False
        return all(p in names or "var-keyword" in kinds for p in params)

    def needs(self, step: Json) -> Need | None:
        """What STEP needs of the standard: None for an op that calls no function of it."""
        args = step.get("args") or {}
        op = step.get("op")
        positional = 0
        if op == "call":
            name = str(args.get("fn"))
            params = sorted((args.get("kwargs") or {}).keys())
            # a method's or property's first argument is the array it is called on
            positional = len(args.get("args") or []) - name.startswith("Array.")
        elif op in OP_FUNCTIONS:
            name, passed, always = OP_FUNCTIONS[op]
            if name.startswith("$"):
                name = str(args.get(name[1:]))
                name = CREATE_NAMES.get(name, name) if op == "array.create" else name
            params = always + [p for a, p in passed.items() if args.get(a) is not None]
        else:
            return None
        fn = self.functions.get(name)
        if fn is None:
            return None  # not a function of the standard (refarray's, OneFlow's): unversioned
        for v in self.versions:
            if self.has(fn, v, params, positional):
                return Need(name, params, v)
        return Need(name, params, None)

    def declared(self, case: Json) -> list[str] | None:
        """The versions CASE declares: those in which every array API statement it cites
        holds; None when it cites none (a case of another document, run whatever version a
        library declares)."""
        cited = [sid for sid in case.get("spec", []) if sid in self.statements]
        if not cited:
            return None
        out = list(self.versions)
        for sid in cited:
            out = [v for v in out if v in self.statements[sid]]
        return out

    def problems(self, case: Json) -> list[tuple[int, Need, str]]:
        """Each step of CASE that needs a later version than the earliest CASE declares:
        (step index, what it needs, that earliest version). A case citing no array API
        statement has none: it is of another document (spec/decisions.md, Every function
        17)."""
        declared = self.declared(case)
        if not declared:
            return []
        earliest = self.first(declared)
        out = []
        for i, step in enumerate(case.get("steps", [])):
            need = self.needs(step)
            if need is not None and (need.version is None or
                                     self.order(need.version) > self.order(earliest)):
                out.append((i, need, earliest))
        return out

    def needed(self, case: Json) -> str | None:
        """The latest version CASE's steps need (None: no step calls a versioned function)."""
        got = [n.version for n in map(self.needs, case.get("steps", []))
               if n is not None and n.version is not None]
        return max(got, key=self.order) if got else None

    def fixed_spec(self, case: Json) -> list[str]:
        """CASE's spec with the statement of the version its steps need added, when it
        declares an earlier one; unchanged otherwise."""
        spec = list(case.get("spec", []))
        if not self.problems(case):
            return spec
        need = self.needed(case)
        sid = self.adds.get(need or "")
        if sid is None:
            raise ValueError("%s: no API-FN statement of version %s in %s"
                             % (case.get("id"), need, STATEMENTS))
        return [*spec, sid] if sid not in spec else spec


def message(case: Json, i: int, need: Need, earliest: str) -> str:
    step = case["steps"][i]
    return ("%s: step %d (%s) calls %s, which is of %s, but the case declares %s (the "
            "earliest version its cited statements hold in): it would run on a library of %s"
            % (case.get("id"), i, step.get("op"), need.call(), need.version or "no version",
               earliest, earliest))


SPEC_LINE = re.compile(r'("spec": )\[([^\]\n]*)\]')


def fix_text(text: str, doc: Json, facts: Facts) -> str:
    """TEXT (a hand-written case file, DOC parsed) with each case's spec line given the
    statement of the version its steps need. The file's cases each have one `"spec": [...]`
    field on one line, in case order."""
    lines = list(SPEC_LINE.finditer(text))
    cases = doc["cases"]
    if len(lines) != len(cases):
        raise ValueError("%d cases but %d one-line \"spec\" fields" % (len(cases), len(lines)))
    out, at = [], 0
    for m, case in zip(lines, cases, strict=True):
        want = facts.fixed_spec(case)
        out.append(text[at:m.start()])
        if want == case.get("spec"):
            out.append(m.group(0))
        else:
            out.append("%s%s" % (m.group(1), json.dumps(want)))
        at = m.end()
    out.append(text[at:])
    return "".join(out)


def check_doc(rel: str, doc: Json, facts: Facts) -> list[str]:
    """The problems of the case file REL (DOC parsed), one line each."""
    out = []
    for c, case in enumerate(doc.get("cases", [])):
        for i, need, earliest in facts.problems(case):
            out.append("%s: /cases/%d: case-version-derived: %s"
                       % (rel, c, message(case, i, need, earliest)))
    return out


def case_files(root: str, names: list[str]) -> list[str]:
    """The case files to look at, relative to ROOT."""
    if names:
        return [os.path.relpath(os.path.abspath(n), root) for n in names]
    return sorted(os.path.relpath(p, root)
                  for p in glob.glob(os.path.join(root, CASES, "*.json")))


def counts(root: str, files: list[str], facts: Facts) -> dict[str, int]:
    """How many cases a library of each version runs (the cases that declare it)."""
    out = dict.fromkeys(facts.versions, 0)
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc["cases"]:
            declared = facts.declared(case)
            for v in facts.versions if declared is None else declared:
                out[v] += 1
    return out


def run(root: str, files: list[str], fix: bool) -> int:
    facts = Facts(root)
    status = 0
    for rel in files:
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        doc = json.loads(text)
        problems = check_doc(rel, doc, facts)
        if not problems:
            continue
        if fix and not generated.is_generated(doc):
            generated.write_file(path, fix_text(text, doc, facts))
            print("%s: fixed %s (%d steps)" % (TOOL, rel, len(problems)))
            continue
        generated.report(rel, problems, "steps", generated.is_generated(doc),
                         "cite the version its steps need",
                         "%s --fix, or reach the result through a function of the case's "
                         "version" % TOOL)
        status = 1
    return status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=generated.ROOT, help="the repository root")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 when a case declares a version earlier than "
                           "its steps need (the default)")
    mode.add_argument("--fix", action="store_true",
                      help="cite the needed version's statement in each such hand-written case")
    mode.add_argument("--counts", action="store_true",
                      help="print how many cases a library of each version runs")
    ap.add_argument("files", nargs="*", help="case files (default: conformance/cases/*.json)")
    args = ap.parse_args(argv)
    try:
        files = case_files(args.root, args.files)
        if args.counts:
            for v, n in counts(args.root, files, Facts(args.root)).items():
                print("%s %d" % (v, n))
            return 0
        return run(args.root, files, args.fix)
    except (OSError, ValueError) as e:
        print("%s: %s" % (TOOL, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
