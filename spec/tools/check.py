#!/usr/bin/env python3
"""Check devspec's standard-as-data and the case files.

    check.py [--root DIR] [--strict]

Validates every JSON file under spec/ against its JSON Schema (draft 2020-12), checks that
the schemas in spec/schema/ are themselves valid schemas, validates conformance/cases/*.json
against spec/schema/case.json, and checks the cross-references no schema can express:
unique IDs, features naming existing statements, retired IDs never reused, profiles naming
features that apply to them, cases citing existing statements and features, case IDs
unique across files, every $name bound before use, no empty $range (that a step that may
raise binds nothing is case.json's rule; it is reported as case-binding-may-raise). It
checks that the op parts of spec/protocol.md, spec/schema/request.json and
spec/schema/case.json are what spec/tools/gen_ops.py makes of spec/ops.json. Finally it
renders spec/statements.md in memory and compares it with the file
(spec/tools/gen_statements.py rewrites it).

Every problem is printed as `FILE: POINTER: RULE: message` (POINTER is a JSON pointer, ""
for the whole document); warnings (a case citing a statement of a feature it does not
claim) are printed with a `warning: ` prefix and fail only under --strict.
Exit status: 0 all good, 1 problems found, 2 bad usage.
"""

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

import case_features
import case_versions
import check_signatures
import gen_ops
import gen_statements
import generated

try:
    import jsonschema
except ImportError:  # pragma: no cover - reported to the user, not tested
    sys.stderr.write("check.py: the Python package 'jsonschema' is missing; "
                     "run scripts/setup.sh and use .venv/bin/python\n")
    sys.exit(2)

ARRAY_API = "array-api"
CHECKED_LEVELS = ("must", "should", "may", "implementation-defined")
REF_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
DEVICE_REF = re.compile(r"^D([0-9])$")
# A value read from JSON.
Json = Any
# What check_statements learns and the later checks use: "docs", "by_id", "retired" and
# (after check_features) "features".
Index = dict[str, Any]

# Files in spec/ and the schema each must satisfy. Any other .json file in spec/ (outside
# spec/schema/) is an error: every JSON file there has a schema.
SPEC_FILES = {
    "spec/statements.json": "spec/schema/statements.json",
    "spec/features.json": "spec/schema/features.json",
    "spec/profiles.json": "spec/schema/profiles.json",
    "spec/promotion/dtypes.json": "spec/schema/dtypes.json",
    "spec/promotion/array-api.json": "spec/schema/promotion.json",
    "spec/promotion/category.json": "spec/schema/promotion.json",
    "spec/promotion/out-casting.json": "spec/schema/out-casting.json",
    "spec/ops.json": "spec/schema/ops.json",
    "spec/signatures.json": "spec/schema/signatures.json",
    "spec/step-features.json": "spec/schema/step-features.json",
    "adapters/adapters.json": "spec/schema/adapters.json",
}
PROMOTION_FILES = ("spec/promotion/array-api.json", "spec/promotion/category.json")
OUT_CASTING = "spec/promotion/out-casting.json"
DTYPES = "spec/promotion/dtypes.json"
CASE_SCHEMA = "spec/schema/case.json"
STEP_MAY_RAISE = {"$ref": "#/$defs/step_may_raise"}


class Problem:
    def __init__(self, file: str, pointer: str, rule: str, message: str) -> None:
        self.file, self.pointer, self.rule, self.message = file, pointer, rule, message

    def __str__(self) -> str:
        return "%s: %s: %s: %s" % (self.file, self.pointer or '""', self.rule, self.message)


def pointer(*parts: object) -> str:
    """JSON pointer (RFC 6901) from path parts."""
    out = ""
    for p in parts:
        out += "/" + str(p).replace("~", "~0").replace("/", "~1")
    return out


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Json]]) -> dict[str, Json]:
    seen: dict[str, Any] = {}
    for k, v in pairs:
        if k in seen:
            raise DuplicateKey(k)
        seen[k] = v
    return seen


class Checker:
    def __init__(self, root: str) -> None:
        self.root = root
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def add(self, file: str, ptr: str, rule: str, message: str) -> None:
        self.problems.append(Problem(file, ptr, rule, message))

    def warn(self, file: str, ptr: str, rule: str, message: str) -> None:
        self.warnings.append(Problem(file, ptr, rule, message))

    # ---- loading -------------------------------------------------------------------------

    def load(self, rel: str) -> Json:
        """Parse a JSON file; None (and a problem) when it cannot be read or parsed."""
        path = os.path.join(self.root, rel)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            self.add(rel, "", "file-unreadable", e.strerror or str(e))
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            self.add(rel, "", "json-syntax", "not UTF-8 (byte offset %d)" % e.start)
            return None
        try:
            return json.loads(text, object_pairs_hook=_no_duplicates,
                              parse_constant=self._reject_constant)
        except DuplicateKey as e:
            self.add(rel, "", "json-duplicate-key",
                     "key %s appears twice in one object" % json.dumps(str(e)))
        except ValueError as e:
            if isinstance(e, json.JSONDecodeError):
                self.add(rel, "", "json-syntax",
                         "line %d column %d: %s" % (e.lineno, e.colno, e.msg))
            else:
                self.add(rel, "", "json-syntax", str(e))
        return None

    @staticmethod
    def _reject_constant(name: str) -> NoReturn:
        raise ValueError("%s is not JSON" % name)

    def load_schema(self, rel: str) -> Json:
        schema = self.load(rel)
        if schema is None:
            return None
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            self.add(rel, pointer(*e.absolute_path), "schema-invalid",
                     "not a valid draft 2020-12 schema: %s" % e.message)
            return None
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            self.add(rel, "/$schema", "schema-draft",
                     "must declare https://json-schema.org/draft/2020-12/schema")
        return schema

    def validate(self, rel: str, data: Json, schema: Json, schema_rel: str) -> bool:
        validator = jsonschema.Draft202012Validator(schema)
        try:
            errors = sorted(validator.iter_errors(data),
                            key=lambda err: list(map(str, err.absolute_path)))
        except Exception as ex:  # an unresolvable $ref and the like: the schema is at fault
            self.add(schema_rel, "", "schema-unusable",
                     "validating %s failed: %s: %s" % (rel, type(ex).__name__, ex))
            return False
        for e in errors:
            if e.validator == "not" and e.validator_value == STEP_MAY_RAISE and "as" in e.instance:
                # case.json's rule that a step that may raise binds nothing, said as the
                # runner's loader says it, at the "as" that breaks it.
                self.add(rel, pointer(*e.absolute_path, "as"), "case-binding-may-raise",
                         "a step that may raise binds nothing: after an error $%s would be "
                         "null (give each raising alternative \"stop\": true, or drop \"as\")"
                         % e.instance["as"])
                continue
            msg = e.message
            if e.context:
                inner = sorted({c.message for c in e.context})
                msg += " (" + "; ".join(inner[:4]) + ")"
            self.add(rel, pointer(*e.absolute_path), "schema:" + str(e.validator),
                     "%s [%s]" % (msg, os.path.basename(schema_rel)))
        return not errors

    # ---- spec/ -----------------------------------------------------------------------------

    def check_schema_dir(self) -> dict[str, Json]:
        sdir = os.path.join(self.root, "spec", "schema")
        schemas: dict[str, Any] = {}
        if not os.path.isdir(sdir):
            self.add("spec/schema", "", "file-missing", "the schema folder is missing")
            return schemas
        for name in sorted(os.listdir(sdir)):
            if name.endswith(".json"):
                rel = "spec/schema/" + name
                schemas[rel] = self.load_schema(rel)
        return schemas

    def check_unknown_spec_files(self) -> None:
        sdir = os.path.join(self.root, "spec")
        for dirpath, dirnames, filenames in os.walk(sdir):
            dirnames[:] = sorted(d for d in dirnames if d not in ("schema", "__pycache__"))
            for name in sorted(filenames):
                if not name.endswith(".json"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), self.root).replace(os.sep, "/")
                if rel.startswith("spec/tools/tests/"):
                    continue  # the check's own test data
                if rel not in SPEC_FILES:
                    self.add(rel, "", "file-unknown",
                             "no schema is known for this file; add it to SPEC_FILES in "
                             "spec/tools/check.py with its schema")

    def run(self) -> list[Problem]:
        schemas = self.check_schema_dir()
        self.check_unknown_spec_files()
        data = {}
        for rel, srel in SPEC_FILES.items():
            doc = self.load(rel)
            schema = schemas.get(srel)
            if srel not in schemas:
                self.add(srel, "", "file-missing", "schema for %s is missing" % rel)
            ok = doc is not None and schema is not None and self.validate(rel, doc, schema, srel)
            data[rel] = doc if ok else None
        st, fe, pr = (data["spec/statements.json"], data["spec/features.json"],
                      data["spec/profiles.json"])
        index = None
        if st is not None:
            index = self.check_statements(st)
        if st is not None and fe is not None and index is not None:
            self.check_features(fe, index)
            if pr is not None:
                self.check_profiles(pr, fe, index)
        self.check_promotion(data, index)
        if data["spec/ops.json"] is not None:
            self.check_ops()
        if data["spec/signatures.json"] is not None:
            check_signatures.check(self, data["spec/signatures.json"], fe, st,
                                   data["spec/ops.json"], self.root)
        if CASE_SCHEMA in schemas and schemas[CASE_SCHEMA] is not None:
            self.check_cases(schemas[CASE_SCHEMA], index, fe)
        elif CASE_SCHEMA not in schemas:
            self.add(CASE_SCHEMA, "", "file-missing", "the case schema is missing")
        if st is not None and fe is not None and pr is not None and index is not None:
            self.check_generated(st, fe, pr)
        return self.problems

    def check_statements(self, st: Json) -> Index:
        rel = "spec/statements.json"
        docs = {}
        for i, d in enumerate(st["documents"]):
            if d["id"] in docs:
                self.add(rel, pointer("documents", i, "id"), "document-id-unique",
                         "document %s is defined twice" % d["id"])
            docs[d["id"]] = d
        topics = set()
        for i, t in enumerate(st["topics"]):
            if t["id"] in topics:
                self.add(rel, pointer("topics", i, "id"), "topic-id-unique",
                         "topic %s is defined twice" % t["id"])
            topics.add(t["id"])
        by_id: dict[str, Any] = {}
        for i, s in enumerate(st["statements"]):
            sid = s["id"]
            if sid in by_id:
                self.add(rel, pointer("statements", i, "id"), "statement-id-unique",
                         "statement %s already defined at %s"
                         % (sid, pointer("statements", by_id[sid][0])))
                continue
            by_id[sid] = (i, s)
            if s["topic"] not in topics:
                self.add(rel, pointer("statements", i, "topic"), "statement-topic-known",
                         "topic %s is not in /topics" % s["topic"])
            src = s["source"]
            doc = docs.get(src["document"])
            if doc is None:
                self.add(rel, pointer("statements", i, "source", "document"),
                         "statement-document-known",
                         "document %s is not in /documents" % src["document"])
                continue
            self.check_statement_versions(rel, i, s, doc)
        retired = {}
        for i, r in enumerate(st["retired"]):
            if r["id"] in retired:
                self.add(rel, pointer("retired", i, "id"), "retired-id-unique",
                         "%s is retired twice" % r["id"])
            retired[r["id"]] = i
            if r["id"] in by_id:
                self.add(rel, pointer("statements", by_id[r["id"]][0], "id"), "retired-id-reused",
                         "%s was retired (%s) and must never be used again"
                         % (r["id"], pointer("retired", i)))
            for j, rep in enumerate(r.get("replaced_by", [])):
                if rep not in by_id:
                    self.add(rel, pointer("retired", i, "replaced_by", j),
                             "retired-replacement-exists",
                             "replacement %s is not a statement" % rep)
        return {"docs": docs, "by_id": by_id, "retired": retired}

    def check_statement_versions(self, rel: str, i: int, s: Json, doc: Json) -> None:
        order = doc["versions"]
        src = s["source"]
        vs = s["versions"]
        for j, v in enumerate(vs):
            if v not in order:
                self.add(rel, pointer("statements", i, "versions", j), "statement-version-known",
                         "%s is not a version of %s (%s)" % (v, doc["id"], ", ".join(order)))
                return
        if [v for v in order if v in vs] != vs:
            self.add(rel, pointer("statements", i, "versions"), "statement-versions-order",
                     "versions must be listed oldest first, as in /documents")
        if src["introduced"] not in order:
            self.add(rel, pointer("statements", i, "source", "introduced"),
                     "statement-version-known",
                     "%s is not a version of %s" % (src["introduced"], doc["id"]))
        elif vs[0] != src["introduced"]:
            self.add(rel, pointer("statements", i, "versions", 0), "statement-introduced-first",
                     "the first version (%s) must be the one that introduced it (%s)"
                     % (vs[0], src["introduced"]))
        # The versions are one run: from introduction to removal (or the newest version).
        start = order.index(vs[0])
        end = order.index(src["removed"]) if src.get("removed") in order else len(order)
        if "removed" in src and src["removed"] not in order:
            self.add(rel, pointer("statements", i, "source", "removed"), "statement-version-known",
                     "%s is not a version of %s" % (src["removed"], doc["id"]))
        elif vs != order[start:end]:
            self.add(rel, pointer("statements", i, "versions"), "statement-versions-span",
                     "versions must run from %s to %s without gaps, i.e. %s"
                     % (vs[0],
                        "before " + src["removed"] if "removed" in src else "the newest version",
                        ", ".join(order[start:end])))
        for v, lv in s.get("levels", {}).items():
            ptr = pointer("statements", i, "levels", v)
            if v not in vs:
                self.add(rel, ptr, "statement-levels", "%s is not one of the statement's versions"
                         % v)
            elif lv == s["level"]:
                self.add(rel, ptr, "statement-levels",
                         "the level in %s equals level; list only versions where it differs" % v)
        for j, c in enumerate(src.get("changed", [])):
            if c["version"] not in vs:
                self.add(rel, pointer("statements", i, "source", "changed", j, "version"),
                         "statement-change-version",
                         "changed in %s, which is not one of its versions"
                         % c["version"])

    def check_features(self, fe: Json, index: Index) -> None:
        rel = "spec/features.json"
        by_id = index["by_id"]
        names: dict[str, Any] = {}
        listed: dict[str, Any] = {}
        for i, f in enumerate(fe["features"]):
            if f["name"] in names:
                self.add(rel, pointer("features", i, "name"), "feature-name-unique",
                         "feature %s already defined at %s"
                         % (f["name"], pointer("features", names[f["name"]])))
                continue
            names[f["name"]] = i
            api_versions = set()
            for j, sid in enumerate(f["statements"]):
                if sid in index["retired"]:
                    self.add(rel, pointer("features", i, "statements", j),
                             "feature-statement-retired",
                             "%s is retired" % sid)
                    continue
                if sid not in by_id:
                    self.add(rel, pointer("features", i, "statements", j),
                             "feature-statement-exists",
                             "%s is not in spec/statements.json" % sid)
                    continue
                listed.setdefault(sid, []).append(f["name"])
                s = by_id[sid][1]
                if s["source"]["document"] == ARRAY_API:
                    api_versions.update(s["versions"])
            for j, v in enumerate(f["versions"]):
                if v not in api_versions:
                    self.add(rel, pointer("features", i, "versions", j), "feature-versions",
                             "no array API statement of this feature applies to %s" % v)
            if api_versions and not f["versions"]:
                self.add(rel, pointer("features", i, "versions"), "feature-versions",
                         "the feature has array API statements, so it must name the versions it "
                         "applies to")
        # Back-references: statement.features lists exactly the features naming it.
        srel = "spec/statements.json"
        for sid, (i, s) in by_id.items():
            want = listed.get(sid, [])
            have = s["features"]
            for j, name in enumerate(have):
                if name not in names:
                    self.add(srel, pointer("statements", i, "features", j),
                             "statement-feature-exists",
                             "feature %s is not in spec/features.json" % name)
                elif name not in want:
                    self.add(srel, pointer("statements", i, "features", j),
                             "statement-feature-backref",
                             "feature %s does not list %s in its statements" % (name, sid))
            for name in want:
                if name not in have:
                    self.add(srel, pointer("statements", i, "features"),
                             "statement-feature-backref",
                             "feature %s lists %s, so its features must include %s"
                             % (name, sid, name))
            if (not want and s["level"] in CHECKED_LEVELS and s.get("testable", True)):
                self.add(srel, pointer("statements", i), "statement-unassigned",
                         "%s is a %s statement that no feature covers" % (sid, s["level"]))
        index["features"] = {f["name"]: f for f in fe["features"]}

    def applies(self, s: Json, document: str, version: str) -> bool:
        return s["source"]["document"] == document and version in s["versions"]

    def check_profiles(self, pr: Json, fe: Json, index: Index) -> None:
        rel = "spec/profiles.json"
        feats = index.get("features", {})
        docs = index["docs"]
        seen: dict[str, Any] = {}
        for i, p in enumerate(pr["profiles"]):
            if p["name"] in seen:
                self.add(rel, pointer("profiles", i, "name"), "profile-name-unique",
                         "profile %s already defined at %s"
                         % (p["name"], pointer("profiles", seen[p["name"]])))
                continue
            seen[p["name"]] = i
            doc = docs.get(p["document"])
            if doc is None:
                self.add(rel, pointer("profiles", i, "document"), "profile-document-known",
                         "document %s is not in spec/statements.json /documents" % p["document"])
                continue
            if p["version"] not in doc["versions"]:
                self.add(rel, pointer("profiles", i, "version"), "profile-version-known",
                         "%s is not a version of %s (%s)"
                         % (p["version"], doc["id"], ", ".join(doc["versions"])))
                continue
            if p["document"] == ARRAY_API:
                self.check_array_api_profile(rel, i, p, feats)
            for key in ("required", "optional"):
                for j, name in enumerate(p[key]):
                    ptr = pointer("profiles", i, key, j)
                    f = feats.get(name)
                    if f is None:
                        self.add(rel, ptr, "profile-feature-exists",
                                 "feature %s is not in spec/features.json" % name)
                        continue
                    if key == "optional" and name in p["required"]:
                        self.add(rel, ptr, "profile-feature-twice",
                                 "%s is both required and optional" % name)
                    if p["document"] == ARRAY_API and p["version"] not in f["versions"]:
                        self.add(rel, ptr, "profile-feature-version",
                                 "feature %s does not apply to %s (its versions: %s)"
                                 % (name, p["version"], ", ".join(f["versions"]) or "none"))
                        continue
                    # A function family (functions-*) may be optional in a profile of any
                    # document: its cases exercise that document's rules through the standard's
                    # functions (a draft's "output follows input" is checked by calling add),
                    # and a case names every feature its steps use (spec/step-features.json).
                    family = key == "optional" and name.startswith("functions-")
                    if not family and not any(
                            sid in index["by_id"] and self.applies(index["by_id"][sid][1],
                                                                   p["document"], p["version"])
                            for sid in f["statements"]):
                        self.add(rel, ptr, "profile-feature-applies",
                                 "no statement of feature %s comes from %s %s"
                                 % (name, p["document"], p["version"]))

    def check_array_api_profile(self, rel: str, i: int, p: Json, feats: dict[str, Json]) -> None:
        """An array API profile is derived from the registry: it requires every non-optional
        feature stated in its version and offers every optional one."""
        v = p["version"]
        for key, optional in (("required", False), ("optional", True)):
            want = [n for n, f in feats.items() if v in f["versions"] and f["optional"] == optional]
            for name in want:
                if name not in p[key]:
                    self.add(rel, pointer("profiles", i, key), "profile-array-api-features",
                             "feature %s (%s, stated in %s) must be %s here"
                             % (name, "optional" if optional else "not optional", v, key))

    # ---- promotion rule sets -------------------------------------------------------------

    def check_promotion(self, data: dict[str, Json], index: Index | None) -> None:
        """The rule sets' tables and the out= refusals against the dtype list: every dtype
        known, each table square over its dtypes, symmetric, a dtype joined with itself is
        itself, and (category) a join never falls below the higher category of the two;
        statements cited exist; a default reading is one of the readings."""
        dt = data.get(DTYPES)
        if dt is None:
            return
        cats = dt["categories"]
        info = {}
        for i, d in enumerate(dt["dtypes"]):
            if d["name"] in info:
                self.add(DTYPES, pointer("dtypes", i, "name"), "dtype-unique", "%s listed twice"
                         % d["name"])
            info[d["name"]] = d
        for rel in (*PROMOTION_FILES, OUT_CASTING):
            doc = data.get(rel)
            if doc is None:
                continue
            for j, sid in enumerate(doc["statements"]):
                if index is not None and sid not in index["by_id"]:
                    self.add(rel, pointer("statements", j), "statement-exists",
                             "%s is not in spec/statements.json" % sid)
            readings = doc.get("readings", {})
            for name, r in readings.items():
                if index is not None and r["statement"] not in index["by_id"]:
                    self.add(rel, pointer("readings", name, "statement"), "statement-exists",
                             "%s is not in spec/statements.json" % r["statement"])
            if readings and doc.get("default_reading") not in readings:
                self.add(rel, "/default_reading", "reading-exists",
                         "%s is not one of the readings (%s)"
                         % (doc.get("default_reading"), ", ".join(readings)))
            if rel == OUT_CASTING:
                continue
            names = doc["dtypes"]
            for j, n in enumerate(names):
                if n not in info:
                    self.add(rel, pointer("dtypes", j), "dtype-known", "%s is not in %s"
                             % (n, DTYPES))
            table = doc["table"]
            if list(table) != names:
                self.add(rel, "/table", "table-square",
                         "the rows must be the dtypes, in their order")
                continue
            for a in names:
                row = table[a]
                if list(row) != names:
                    self.add(rel, pointer("table", a), "table-square",
                             "the columns must be the dtypes, in their order")
                    continue
                for b in names:
                    c = row[b]
                    ptr = pointer("table", a, b)
                    if c is not None and c not in names:
                        self.add(rel, ptr, "dtype-known", "%s is not a dtype of this rule set" % c)
                    elif a == b and c != a:
                        self.add(rel, ptr, "table-identity",
                                 "a dtype joined with itself must be itself")
                    elif table.get(b, {}).get(a, c) != c:
                        self.add(rel, ptr, "table-symmetric", "%s but the mirrored cell is %s"
                                 % (c, table[b][a]))
                    elif (c is not None and a in info and b in info and c in info
                          and doc["name"] == "category"):
                        top = max(cats.index(info[a]["category"]), cats.index(info[b]["category"]))
                        if cats.index(info[c]["category"]) != top:
                            self.add(rel, ptr, "table-category",
                                     "%s is not of the higher category of %s and %s (OF-PROM-5)"
                                     % (c, a, b))
            for kind, dtn in doc.get("scalar_dtypes", {}).items():
                if dtn not in names:
                    self.add(rel, pointer("scalar_dtypes", kind), "dtype-known",
                             "%s is not a dtype of this rule set" % dtn)

    # ---- case files ------------------------------------------------------------------------

    def check_ops(self) -> None:
        """The op parts of spec/protocol.md, request.json and case.json are what
        spec/tools/gen_ops.py makes of spec/ops.json."""
        try:
            stale = gen_ops.stale(self.root, gen_ops.SPEC_TARGETS)
        except (gen_ops.OpsError, OSError, ValueError) as e:
            self.add(gen_ops.OPS_FILE, "", "ops-unusable", str(e))
            return
        for rel in stale:
            self.add(rel, "", "generated-stale",
                     "its op parts are out of date with %s; run %s"
                     % (gen_ops.OPS_FILE, gen_ops.GENERATOR))

    def check_cases(self, schema: Json, index: Index | None, fe: Json) -> None:
        cdir = os.path.join(self.root, "conformance", "cases")
        if not os.path.isdir(cdir):
            return
        seen: dict[str, Any] = {}
        points = decision_points(os.path.join(self.root, "spec", "decisions.md"))
        facts = None
        try:
            facts = case_features.Facts(self.root)
        except (OSError, ValueError, KeyError) as e:
            self.add(case_features.FACTS, "", "step-features-unusable", str(e))
        versions = None
        try:
            versions = case_versions.Facts(self.root)
        except (OSError, ValueError, KeyError) as e:
            self.add(case_versions.SIGNATURES, "", "case-versions-unusable", str(e))
        for name in sorted(os.listdir(cdir)):
            if not name.endswith(".json"):
                continue
            rel = "conformance/cases/" + name
            doc = self.load(rel)
            if doc is None or not self.validate(rel, doc, schema, CASE_SCHEMA):
                continue
            for i, case in enumerate(doc["cases"]):
                cptr = pointer("cases", i)
                cid = case["id"]
                if cid in seen:
                    self.add(rel, pointer("cases", i, "id"), "case-id-unique",
                             "case %s is already defined in %s at %s"
                             % (cid, seen[cid][0], seen[cid][1]))
                else:
                    seen[cid] = (rel, cptr)
                self.check_case_refs(rel, i, case, index)
                if "decision" in case and points is not None and case["decision"] not in points:
                    self.add(rel, pointer("cases", i, "decision"), "case-decision-exists",
                             "%r names no point of spec/decisions.md (its section's title and "
                             "the point's number: \"Arrays and operations 12\")"
                             % case["decision"])
                self.check_case_bindings(rel, i, case)
                self.check_case_matchers(rel, i, case)
            if facts is not None:
                self.check_case_features(rel, doc, facts)
            if versions is not None:
                self.check_case_versions(rel, doc, versions)

    def check_case_features(self, rel: str, doc: Json, facts: "case_features.Facts") -> None:
        """Every case names the features its steps use (spec/step-features.json); a feature
        neither used nor naming a cited statement is a warning (spec/tools/case_features.py)."""
        for i, case in enumerate(doc["cases"]):
            used = facts.derived(case)
            missing = [f for f in used if f not in case["features"]]
            if missing:
                self.add(rel, pointer("cases", i, "features"), "case-features-derived",
                         "%s: its steps use %s; run %s --fix (a generated file: its generator)"
                         % (case["id"], ", ".join(missing), case_features.TOOL))
            extra = [f for f in case["features"] if f not in used and not facts.cited(case, f)]
            if extra:
                self.warn(rel, pointer("cases", i, "features"), "case-features-unused",
                          "%s: %s: no step uses it and it names no statement the case cites"
                          % (case["id"], ", ".join(extra)))

    def check_case_versions(self, rel: str, doc: Json, versions: "case_versions.Facts") -> None:
        """No case declares a version earlier than the functions its steps call need
        (spec/tools/case_versions.py; spec/decisions.md, Every function 17)."""
        for i, case in enumerate(doc["cases"]):
            for step, need, earliest in versions.problems(case):
                self.add(rel, pointer("cases", i, "steps", step), "case-version-derived",
                         "%s; run %s --fix (a generated file: its generator)"
                         % (case_versions.message(case, step, need, earliest),
                            case_versions.TOOL))

    def check_case_refs(self, rel: str, i: int, case: Json, index: Index | None) -> None:
        if index is None or "features" not in index:
            return  # spec files broken: already reported
        by_id, feats = index["by_id"], index["features"]
        claimed = set(case["features"])
        for j, name in enumerate(case["features"]):
            if name not in feats:
                self.add(rel, pointer("cases", i, "features", j), "case-feature-exists",
                         "feature %s is not in spec/features.json" % name)
        # Informative statements may be cited by a case that cites nothing else: it checks
        # only what they inform (spec/decisions.md, Runner and reports 26).
        informative_only = bool(case["spec"]) and all(
            sid in by_id and by_id[sid][1]["level"] == "informative" for sid in case["spec"])
        for j, sid in enumerate(case["spec"]):
            ptr = pointer("cases", i, "spec", j)
            if sid in index["retired"]:
                self.add(rel, ptr, "case-statement-retired", "%s is retired" % sid)
                continue
            if sid not in by_id:
                self.add(rel, ptr, "case-statement-exists", "%s is not in spec/statements.json"
                         % sid)
                continue
            s = by_id[sid][1]
            if s["level"] not in CHECKED_LEVELS and not (
                    informative_only and s["level"] == "informative"):
                self.add(rel, ptr, "case-statement-level",
                         "%s is %s; cases check only must, should, may and "
                         "implementation-defined statements, or informative ones cited alone"
                         % (sid, s["level"]))
            if not claimed.intersection(s["features"]):
                # A warning: a case may cite a statement as the reason for an expectation
                # without needing that feature. --strict makes it an error.
                self.warn(rel, ptr, "case-statement-feature",
                         "%s belongs to %s, none of which the case claims"
                         % (sid, ", ".join(s["features"]) or "no feature"))

    def check_case_bindings(self, rel: str, i: int, case: Json) -> None:
        bound = set()
        highest = -1
        for k, step in enumerate(case["steps"]):
            for where, value in (("args", step.get("args")), ("expect", step.get("expect")),
                                 ("either", step.get("either")),
                                 ("expect_ranks", step.get("expect_ranks"))):
                if value is None:
                    continue
                for path, s in _strings(value, [where]):
                    if not s.startswith("$") or s.startswith("$$"):
                        continue
                    name = s[1:]
                    ptr = pointer("cases", i, "steps", k, *path)
                    m = DEVICE_REF.match(name)
                    if m:
                        highest = max(highest, int(m.group(1)))
                    elif not REF_NAME.match(name):
                        self.add(rel, ptr, "case-bad-reference",
                                 "%s is neither $D0..$D9 nor $name (write $$ for a literal $)"
                                 % json.dumps(s))
                    elif name not in bound:
                        self.add(rel, ptr, "case-unbound-reference",
                                 "$%s is not bound by an earlier step's \"as\"" % name)
            if "as" in step:
                bound.add(step["as"])
        for k, step in enumerate(case["steps"]):
            per_rank: list[tuple[tuple[str | int, ...], Json]] = (
                [(("expect_ranks",), step["expect_ranks"])] if "expect_ranks" in step else [])
            for n, alt in enumerate(step.get("either", [])):
                if "expect_ranks" in alt:
                    per_rank.append((("either", n, "expect_ranks"), alt["expect_ranks"]))
            for place, values in per_rank:
                if len(values) != case.get("ranks", 1):
                    self.add(rel, pointer("cases", i, "steps", k, *place), "case-ranks-count",
                             "%d expected values for a case of %d ranks (one per rank)"
                             % (len(values), case.get("ranks", 1)))
        if "devices" in case and case["devices"] < highest + 1:
            self.add(rel, pointer("cases", i, "devices"), "case-devices-too-few",
                     "the case uses $D%d, so it needs at least %d devices" % (highest, highest + 1))

    def check_case_matchers(self, rel: str, i: int, case: Json) -> None:
        """What the schema cannot say about matchers: a $range's low end is not above its
        high end (spec/case-format.md, "Matchers"). The schema has placed every matcher."""
        for k, step in enumerate(case["steps"]):
            values: list[tuple[tuple[str | int, ...], Json]] = (
                [(("expect",), step["expect"])] if "expect" in step else [])
            for n, e in enumerate(step.get("expect_ranks", [])):
                values.append((("expect_ranks", n), e))
            for n, alt in enumerate(step.get("either", [])):
                if "expect" in alt:
                    values.append((("either", n, "expect"), alt["expect"]))
                for r, e in enumerate(alt.get("expect_ranks", [])):
                    values.append((("either", n, "expect_ranks", r), e))
            for where, value in values:
                for path, m in _matchers(value, list(where)):
                    if "$range" not in m:
                        continue
                    lo, hi = m["$range"]
                    if lo is not None and hi is not None and lo > hi:
                        self.add(rel, pointer("cases", i, "steps", k, *path, "$range"),
                                 "case-range-empty",
                                 "$range [%s, %s] is empty: the low end is above the high end"
                                 % (json.dumps(lo), json.dumps(hi)))

    # ---- the generated view ------------------------------------------------------------------

    def check_generated(self, st: Json, fe: Json, pr: Json) -> None:
        """spec/statements.md is what spec/tools/gen_statements.py makes of the JSON."""
        rel = gen_statements.OUT
        current = generated.current(self.root, rel)
        if current is None:
            self.add(rel, "", "generated-stale", "missing; run %s" % gen_statements.GENERATOR)
            return
        text = gen_statements.render_markdown(st, fe, pr)
        if current != text:
            x, y = current.splitlines(), text.splitlines()
            line = next((n for n, (u, v) in enumerate(zip(x, y, strict=False), 1) if u != v),
                        min(len(x), len(y)) + 1)
            self.add(rel, "", "generated-stale",
                     "out of date with the JSON (first difference at line %d); run %s"
                     % (line, gen_statements.GENERATOR))


def _strings(value: Json, path: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
    """Every string inside a JSON value, with its path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _strings(v, [*path, n])
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, [*path, k])


def _matchers(value: Json, path: list[str | int]) -> Iterator[tuple[list[str | int], Json]]:
    """Every matcher object inside an expected value (schema-valid), with its path."""
    if isinstance(value, dict):
        if any(k.startswith("$") and not k.startswith("$$") for k in value):
            yield path, value
            for key in ("$contains", "$each", "$in"):
                if key in value:
                    yield from _matchers(value[key], [*path, key])
            return
        for k, v in value.items():
            yield from _matchers(v, [*path, k])
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _matchers(v, [*path, n])


def decision_points(path: str) -> set[str] | None:
    """Every point of decisions.md as a case's "decision" names it: the title of its section
    (a "## " or "### " heading) and its number, "Arrays and operations 12"; None for a tree
    without decisions.md (a test's spec), whose cases' decisions are not checked."""
    points: set[str] = set()
    section = ""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        for line in f:
            heading = re.match(r"#{2,3} (.+)", line)
            if heading:
                section = heading.group(1).strip()
                continue
            point = re.match(r"(\d+)\. ", line)
            if point and section:
                points.add("%s %s" % (section, point.group(1)))
    return points


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Check spec/ and conformance/cases/.")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)),
                    help="the repository root (default: two folders above this script)")
    ap.add_argument("--strict", action="store_true", help="treat warnings as problems")
    args = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(args.root, "spec")):
        sys.stderr.write("check.py: %s has no spec/ folder\n" % args.root)
        return 2
    checker = Checker(args.root)
    problems = checker.run()
    if args.strict:
        problems = problems + checker.warnings
    else:
        for w in checker.warnings:
            print("warning: %s" % w)
    for p in problems:
        print(p)
    if problems:
        print("check.py: %d problem%s"
              % (len(problems), "" if len(problems) == 1 else "s"), file=sys.stderr)
        return 1
    print("check.py: spec/ and conformance/cases/ are consistent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
