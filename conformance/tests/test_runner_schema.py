"""The C loader accepts exactly what spec/schema/case.json accepts (spec/case-format.md): one
test per mutation of a valid case (case_mutations.py), judged by jsonschema and by
`devspec validate`."""

from __future__ import annotations

import json

import jsonschema
import pytest
from case_mutations import Doc, mutations, schema_ops
from support import SOURCE, Env, load_schema, why

MUTATIONS = mutations(schema_ops(SOURCE))


@pytest.mark.parametrize(("name", "doc"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_loader_agrees_with_schema(env: Env, name: str, doc: Doc) -> None:
    schema_ok = jsonschema.Draft202012Validator(load_schema(env, "case.json")).is_valid(doc)
    path = env.path("m.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    rc, _, err = env.run(["validate", "--cases", path])
    assert (rc == 0) == schema_ok and rc in (0, 2), why(
        f"{name}: {'accepted' if schema_ok else 'rejected'} as by the schema",
        "accepted" if schema_ok else "rejected (exit 2)", (rc, err.strip()[:300]))
