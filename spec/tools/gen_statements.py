#!/usr/bin/env python3
"""Write spec/statements.md, the readable view of spec/statements.json, spec/features.json and
spec/profiles.json.

    gen_statements.py [--root DIR] [--check]

--check writes nothing and exits 1 when the file differs from what would be written
(spec/tools/check.py reports the same as generated-stale): spec/tools/generated.py. Run
spec/tools/check.py first: this reads the JSON as it is and assumes it is valid.
"""

import json
import os
import sys
from typing import Any

import generated

OUT = "spec/statements.md"
GENERATOR = "spec/tools/gen_statements.py"
# A value read from JSON.
Json = Any


def _versions_text(vs: list[str], order: list[str]) -> str:
    """'2021.12 – draft' for a run of versions, else a comma list."""
    if len(vs) > 2 and vs == order[order.index(vs[0]):order.index(vs[0]) + len(vs)]:
        return "%s – %s" % (vs[0], vs[-1])
    return ", ".join(vs)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(st: Json, fe: Json, pr: Json) -> str:
    docs = {d["id"]: d for d in st["documents"]}
    out = ["# devspec statements", "",
           "Generated from `spec/statements.json`, `spec/features.json` and `spec/profiles.json`",
           "by `spec/tools/gen_statements.py`; do not edit by hand. The JSON is the source of",
           "truth.", "",
           "Levels: must, should, may, implementation-defined (checked by cases); unspecified and",
           "informative (recorded, never checked). \"no case\" marks duties no case can observe.",
           "",
           "## Documents", "", "| document | title | versions |", "| --- | --- | --- |"]
    for d in st["documents"]:
        out.append("| `%s` | %s | %s |" % (d["id"], _cell(d["title"]), ", ".join(d["versions"])))
    out.append("")
    counts: dict[str, int] = {}
    for s in st["statements"]:
        counts[s["level"]] = counts.get(s["level"], 0) + 1
    out.append("%d statements: %s." % (len(st["statements"]), ", ".join(
        "%d %s" % (counts[lv], lv) for lv in
        ("must", "should", "may", "implementation-defined", "unspecified", "informative")
        if lv in counts)))
    out.append("")
    for t in st["topics"]:
        rows = [s for s in st["statements"] if s["topic"] == t["id"]]
        if not rows:
            continue
        out += ["## " + t["title"], "", "| ID | level | versions | features | statement |",
                "| --- | --- | --- | --- | --- |"]
        for s in rows:
            doc = docs.get(s["source"]["document"], {"versions": s["versions"]})
            vs = _versions_text(s["versions"], doc["versions"])
            src = s["source"]
            extra = []
            for c in src.get("changed", []):
                extra.append("changed %s: %s" % (c["version"], c["change"]))
            if "removed" in src:
                extra.append("removed in %s" % src["removed"])
            level = s["level"]
            if s.get("levels"):
                by: dict[str, list[str]] = {}
                for v, lv in s["levels"].items():
                    by.setdefault(lv, []).append(v)
                level += " (%s)" % "; ".join("%s in %s" % (lv, ", ".join(vs))
                                             for lv, vs in by.items())
            level += "" if s.get("testable", True) else " (no case)"
            text = s["text"]
            if s.get("note"):
                text += " *Note: " + s["note"] + "*"
            text += " Source: `%s`%s." % (src["section"], "; " + "; ".join(extra) if extra else "")
            feats = ", ".join("`%s`" % f for f in s["features"]) or "–"
            out.append("| %s | %s | %s | %s | %s |" % (s["id"], level, vs, feats, _cell(text)))
        out.append("")
    out += ["## Profiles", "",
            "| profile | document, version | required features | optional features |",
            "| --- | --- | --- | --- |"]
    for p in pr["profiles"]:
        out.append("| `%s`%s | %s %s | %s | %s |" % (
            p["name"], " (core)" if p["core"] else "", p["document"], p["version"],
            ", ".join("`%s`" % f for f in p["required"]),
            ", ".join("`%s`" % f for f in p["optional"]) or "–"))
    out.append("")
    out += ["## Retired IDs", ""]
    if st["retired"]:
        out += ["| ID | reason |", "| --- | --- |"]
        for r in st["retired"]:
            out.append("| %s | %s |" % (r["id"], _cell(r["reason"])))
    else:
        out.append("None yet.")
    out.append("")
    return "\n".join(out)


def build(root: str) -> dict[str, str]:
    docs = []
    for rel in ("spec/statements.json", "spec/features.json", "spec/profiles.json"):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            docs.append(json.load(f))
    return {OUT: render_markdown(*docs)}


def main(argv: list[str] | None = None) -> int:
    return generated.main(__doc__.split("\n\n")[0], build, GENERATOR, argv)


if __name__ == "__main__":
    sys.exit(main())
