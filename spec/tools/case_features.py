#!/usr/bin/env python3
"""Derives a case's features from its steps and checks every case file against them.

    case_features.py [--root DIR] [--check | --fix] [FILE...]

A case needs exactly the features its steps use: each step's op, with its arguments, uses the
features spec/step-features.json gives it (array.to_device uses to-device, array.binary
add uses functions-elementwise, the family of add in spec/signatures.json). Beyond those, a
case may name a feature only where that feature names a statement the case cites: what the
case checks (mixed-device-raises for a case citing DEV-DS-11), not what it uses. So:

- derived(case) = the union of its steps' features;
- a case's `features` must hold every derived feature (else it is an error), and every other
  feature it holds should name one of the statements in its `spec` (spec/features.json;
  else a warning, printed with --warnings: such a feature only narrows who runs the case).

--check (the default, run by spec/tools/check.py) prints each case that lacks a derived
feature and exits 1. --fix rewrites the `features` line of each such case in the
hand-written case files (a generated file is its generator's: it is named, never
rewritten), keeping the features it had in their order and adding the missing ones at the
end; with --drop-unused it also drops the features neither used nor cited (a generator
writes its cases so). It is rerunnable: a second --fix changes nothing.

The runner reads spec/step-features.json too (conformance/src/registry.c), to tell a step the
library cannot express under a feature it did not claim (a skip) from one it claims (lacks).
Standard library only.
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

FACTS = "spec/step-features.json"
FEATURES = "spec/features.json"
SIGNATURES = "spec/signatures.json"
OPS = "spec/ops.json"
CASES = "conformance/cases"
TOOL = "spec/tools/case_features.py"
Json = Any


class Facts:
    """spec/step-features.json with what it refers to: the features, the ops and the family of
    every function of spec/signatures.json."""

    def __init__(self, root: str) -> None:
        def load(rel: str) -> Json:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                return json.load(f)

        self.rules: dict[str, list[Json]] = load(FACTS)["ops"]
        fe = load(FEATURES)["features"]
        self.features = {f["name"]: set(f["statements"]) for f in fe}
        sig = load(SIGNATURES)
        fam = {name: d.get("feature") for name, d in sig["families"].items()}
        self.family = {f["name"]: fam.get(f["family"]) for f in sig["functions"]}
        self.ops = {o["name"] for o in load(OPS)["ops"]}
        self.check_rules()

    def check_rules(self) -> None:
        """Every op named is an op, every feature a feature; raises ValueError naming the
        first that is not."""
        for op, rules in self.rules.items():
            if op != "*" and op not in self.ops:
                raise ValueError("%s: op %r is not in %s" % (FACTS, op, OPS))
            for rule in rules:
                for f in rule.get("features", []) + rule.get("any_of", []):
                    if f not in self.features:
                        raise ValueError("%s: %s: feature %r is not in %s" % (FACTS, op, f,
                                                                             FEATURES))
                name = rule.get("function_name")
                if name is not None and self.family.get(name) is None:
                    raise ValueError("%s: %s: function %r has no family feature in %s"
                                     % (FACTS, op, name, SIGNATURES))

    def function_feature(self, name: object) -> str | None:
        """The feature of the family of function NAME (a string of spec/signatures.json)."""
        if not isinstance(name, str):
            return None
        return self.family.get(name)

    def step(self, step: Json, have: list[str] | None = None) -> list[str]:
        """The features STEP uses, in the order the rules give them; of an `any_of`, the first
        that HAVE (a case's features) names, else its first."""
        args = step.get("args") or {}
        out: list[str] = []
        for rule in self.rules.get("*", []) + self.rules.get(step.get("op", ""), []):
            if not applies(rule, args) or (rule.get("raises") and "raises" not in step):
                continue
            feats = list(rule.get("features", []))
            group = rule.get("any_of", [])
            if group:
                named = [f for f in group if f in (have or [])]
                feats.extend(named or group[:1])
            if "function" in rule:
                feats.append(self.function_feature(args.get(rule["function"])) or "")
            if "function_name" in rule:
                feats.append(self.function_feature(rule["function_name"]) or "")
            if "pattern" in rule:
                feats.append(re.sub(r"\{(\w+)\}", lambda m: str(args.get(m.group(1), "")),
                                    rule["pattern"]))
            for f in feats:
                if f in self.features and f not in out:
                    out.append(f)
        return out

    def derived(self, case: Json) -> list[str]:
        """The features CASE's steps use, in step order."""
        out: list[str] = []
        for step in case.get("steps", []):
            for f in self.step(step, case.get("features", [])):
                if f not in out:
                    out.append(f)
        return out

    def cited(self, case: Json, feature: str) -> bool:
        """FEATURE names a statement CASE cites."""
        return bool(self.features.get(feature, set()) & set(case.get("spec", [])))

    def exact(self, case: Json) -> list[str]:
        """CASE's features with those neither used nor cited left out, then the used ones it
        lacks (what a generator writes, and --fix --drop-unused)."""
        used = self.derived(case)
        keep = [f for f in case.get("features", []) if f in used or self.cited(case, f)]
        return keep + [f for f in used if f not in keep]

    def expected(self, case: Json) -> list[str]:
        """CASE's features as they must be: those it has, in their order, then the used ones
        it lacks."""
        have = list(case.get("features", []))
        return have + [f for f in self.derived(case) if f not in have]


def applies(rule: Json, args: Json) -> bool:
    """RULE's conditions hold for a step with ARGS."""
    for arg, values in rule.get("when", {}).items():
        if args.get(arg) not in values:
            return False
    if "with" in rule and args.get(rule["with"]) is None:
        return False
    if "without" in rule and args.get(rule["without"]) is not None:
        return False
    if "handle" in rule:
        v = args.get(rule["handle"])
        if not (isinstance(v, str) and v.startswith("$")):
            return False
    if "literal" in rule:
        v = args.get(rule["literal"])
        if not (isinstance(v, dict) and "str" in v):
            return False
    return True


FEATURES_LINE = re.compile(r'("features": )\[([^\]]*)\]()')


def features_text(m: re.Match[str], want: list[str]) -> str:
    """WANT written where M (a features field) was, on one line or one feature a line as M
    was."""
    items = m.group(2)
    if "\n" not in items:
        return "%s%s%s" % (m.group(1), json.dumps(want), m.group(3))
    lines = items.split("\n")
    inner = lines[1][:len(lines[1]) - len(lines[1].lstrip())] if len(lines) > 1 else ""
    outer = lines[-1] if not lines[-1].strip() else ""
    body = ",\n".join(inner + json.dumps(f) for f in want)
    return "%s[\n%s\n%s]%s" % (m.group(1), body, outer, m.group(3))


def fix_text(text: str, doc: Json, facts: Facts, drop: bool = False) -> str:
    """TEXT (a hand-written case file, DOC parsed) with each case's features line rewritten
    to its expected features. The file's cases each have one `"features": [...]` field, in
    case order."""
    lines = list(FEATURES_LINE.finditer(text))
    cases = doc["cases"]
    if len(lines) != len(cases):
        raise ValueError("%d cases but %d \"features\" fields" % (len(cases), len(lines)))
    out, at = [], 0
    for m, case in zip(lines, cases, strict=True):
        want = facts.exact(case) if drop else facts.expected(case)
        out.append(text[at:m.start()])
        if want == case.get("features"):
            out.append(m.group(0))
        else:
            out.append(features_text(m, want))
        at = m.end()
    out.append(text[at:])
    return "".join(out)


def check_doc(rel: str, doc: Json, facts: Facts) -> tuple[list[str], list[str]]:
    """The problems and the warnings of the case file REL (DOC parsed), one line each."""
    problems, warnings = [], []
    for i, case in enumerate(doc.get("cases", [])):
        have = case.get("features", [])
        used = facts.derived(case)
        missing = [f for f in used if f not in have]
        extra = [f for f in have if f not in used and not facts.cited(case, f)]
        if missing:
            problems.append("%s: /cases/%d (%s): features-derived: its steps use %s, which "
                            "its features do not name" % (rel, i, case.get("id"),
                                                          ", ".join(missing)))
        if extra:
            warnings.append("warning: %s: /cases/%d (%s): features-unused: %s: no step uses "
                            "it and it names no statement the case cites" % (
                                rel, i, case.get("id"), ", ".join(extra)))
    return problems, warnings


def case_files(root: str, names: list[str]) -> list[str]:
    """The case files to look at, relative to ROOT."""
    if names:
        return [os.path.relpath(os.path.abspath(n), root) for n in names]
    return sorted(os.path.relpath(p, root)
                  for p in glob.glob(os.path.join(root, CASES, "*.json")))


def run(root: str, files: list[str], fix: bool, verbose: bool = False,
        drop: bool = False) -> int:
    facts = Facts(root)
    status = 0
    for rel in files:
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        doc = json.loads(text)
        problems, warnings = check_doc(rel, doc, facts)
        for w in warnings if verbose else []:
            print(w, file=sys.stderr)
        if not problems and not (drop and warnings):
            continue
        if fix and not generated.is_generated(doc):
            generated.write_file(path, fix_text(text, doc, facts, drop))
            print("%s: fixed %s" % (TOOL, rel))
            continue
        generated.report(rel, problems, "cases", generated.is_generated(doc),
                         "write the derived features", "%s --fix" % TOOL)
        status = 1
    return status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=generated.ROOT, help="the repository root")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 when a case's features are not derived "
                           "(the default)")
    mode.add_argument("--fix", action="store_true",
                      help="rewrite the features of the hand-written cases that break a rule")
    ap.add_argument("--drop-unused", action="store_true",
                    help="with --fix, also drop the features no step uses and no cited "
                         "statement names")
    ap.add_argument("--warnings", action="store_true",
                    help="also print the features a case names that no step uses and no "
                         "statement it cites names")
    ap.add_argument("files", nargs="*", help="case files (default: conformance/cases/*.json)")
    args = ap.parse_args(argv)
    try:
        return run(args.root, case_files(args.root, args.files), args.fix, args.warnings,
                   args.drop_unused)
    except (OSError, ValueError) as e:
        print("%s: %s" % (TOOL, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
