"""Case files around one valid case, each changed in one way that spec/schema/case.json
decides (test_runner_schema.py, test_runner_validators.py)."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

Doc = dict[str, Any]


def schema_ops(source: str) -> list[str]:
    """The ops spec/schema/case.json allows."""
    with open(os.path.join(source, "spec", "schema", "case.json")) as f:
        ops: list[str] = json.load(f)["$defs"]["op"]["enum"]
    return ops


def mutations(schema_ops: Sequence[object] = ()) -> list[tuple[str, Doc]]:
    """Case files around one valid case, each changed in one way that spec/schema/case.json
    decides: (name, document). Statement IDs and feature names exist in tests/spec, so the
    loader's extra rules (names must exist, IDs unique, references bound) never fire."""
    base: Doc = {"description": "d", "cases": [{
        "id": "m.case", "description": "one case", "spec": ["T-ATTR-1"],
        "features": ["device-attr"],
        "steps": [{"op": "array.create", "args": {"fn": "zeros", "shape": [1]}, "as": "x"},
                  {"op": "array.describe", "args": {"array": "$x"}, "expect": {"shape": [1]}}]}]}
    out: list[tuple[str, Doc]] = [("the base case", base)]
    v: Any  # each loop's values, of many types

    def mut(name: str, f: Callable[..., object], *args: object) -> None:
        """The mutation NAME: a copy of the base case changed by F(copy, *ARGS)."""
        d = copy.deepcopy(base)
        f(d, *args)
        out.append((name, d))

    def case(d: Doc) -> Doc:
        c: Doc = d["cases"][0]
        return c

    def step(d: Doc) -> Doc:
        s: Doc = d["cases"][0]["steps"][1]
        return s

    def instead(d: Doc, fields: Doc) -> None:
        """The step's FIELDS instead of its expect."""
        step(d).pop("expect")
        step(d).update(fields)

    for k in ("description", "cases"):
        mut(f"file without {k}", lambda d, k: d.pop(k), k)
    mut("file with $schema", lambda d: d.update({"$schema": "x"}))
    mut("file description empty", lambda d: d.update(description=""))
    mut("file description a number", lambda d: d.update(description=1))
    mut("cases empty", lambda d: d.update(cases=[]))
    mut("cases an object", lambda d: d.update(cases={}))
    mut("a case that is a string", lambda d: d.update(cases=["x"]))
    for k in ("id", "description", "spec", "features", "steps"):
        mut(f"case without {k}", lambda d, k: case(d).pop(k), k)
    mut("case with an unknown field", lambda d: case(d).update(notes="x"))
    for v in ("a", "a.b-c_d", "0.9", "a..b", "A.b", "a.", ".a", "a b", "-a", "a.-b", "", 5):
        mut(f"case id {v!r}", lambda d, v: case(d).update(id=v), v)
    mut("case description empty", lambda d: case(d).update(description=""))
    mut("case description a list", lambda d: case(d).update(description=["x"]))
    for v in ([], ["T-ATTR-1", "T-ATTR-1"], ["lower-1"], ["T-1"], ["TT-ATTR-1a"], [1], "T-ATTR-1"):
        mut(f"spec {v!r}", lambda d, v: case(d).update(spec=v), v)
    for v in ([], ["device-attr", "device-attr"], ["Device-attr"], ["device_attr"], [True]):
        mut(f"features {v!r}", lambda d, v: case(d).update(features=v), v)
    for v in (1, 2, 1.0, 0, -1, 2.5, "2", True, None):
        mut(f"devices {v!r}", lambda d, v: case(d).update(devices=v), v)
    for v in (1, 4, 1024, 0, 1025, -1, 2.5, "2", None):
        mut(f"ranks {v!r}", lambda d, v: case(d).update(ranks=v), v)
    mut("expect_ranks of one rank", lambda d: step(d).update(expect_ranks=[{"shape": [1]}]))
    mut("expect_ranks empty", lambda d: step(d).update(expect_ranks=[]))
    mut("expect_ranks not a list", lambda d: step(d).update(expect_ranks={"shape": [1]}))
    mut("expect_ranks beside expect", lambda d: step(d).update(expect={"shape": [1]},
                                                                 expect_ranks=[{"shape": [1]}]))
    mut("steps empty", lambda d: case(d).update(steps=[]))
    mut("a step that is a list", lambda d: case(d)["steps"].append([]))
    mut("step without op", lambda d: step(d).pop("op"))
    mut("step with an unknown field", lambda d: step(d).update(expects=1))
    # Every op the schema allows, and some it does not.
    for v in (*tuple(schema_ops), "hello", "reset", "bye", "array.nope", 3):
        mut(f"op {v!r}", lambda d, v: step(d).update(op=v), v)
    for v in ({}, [], None, "x"):
        mut(f"args {v!r}", lambda d, v: step(d).update(args=v), v)
    # The op's own arguments (spec/ops.json, case.json's $defs/step_args).
    mut("args with a name the op does not define", lambda d: step(d)["args"].update(arr=1))
    mut("no args for an op that needs one", lambda d: step(d).pop("args"))
    mut("args for an op that takes none", lambda d: step(d).update(op="util.num_gpus"))
    mut("no args for an op that takes none", lambda d: (step(d).update(op="util.num_gpus"),
                                                        step(d).pop("args")))
    for v in ("y", "_y", "y_2", "Y", "2y", "y-z", "", 3):
        mut(f"as {v!r}", lambda d, v: step(d).update({"as": v}), v)
    for v in (None, 0, [], "anything"):
        mut(f"expect {v!r}", lambda d, v: step(d).update(expect=v), v)
    for v in ("any", "ValueError", "Value_Error2", "valueError", "Value-Error", "ANY", "", 1):
        mut(f"raises {v!r}", instead, {"raises": v})
    for v in ([], [{}], [{"expect": 1}], [{"raises": "any"}, {"expect": None}],
              [{"expect": 1, "raises": "ValueError"}], [{"expect": 1, "why": "x"}],
              [{"raises": "x"}],
              {"expect": 1}, ["x"]):
        mut(f"either {v!r}", instead, {"either": v})
    # Matchers (spec/case-format.md, "Matchers"), in an expect and inside an alternative.
    for v in ({"$len_min": 0}, {"$len_min": 3}, {"$len_min": 2.0}, {"$len_min": -1},
              {"$len_min": 1.5}, {"$len_min": "1"}, {"$len_min": True}, {"$len_min": None},
              {"$contains": 1}, {"$contains": "$D0"}, {"$contains": {"$range": [0, None]}},
              {"$contains": {"$range": [0]}}, {"$contains": {"$nope": 1}},
              {"$contains": {"a": {"$type": "int"}}}, {"$contains": [{"$type": "nope"}]},
              {"$range": [0, 100]}, {"$range": [None, 1.5]}, {"$range": [-1, None]},
              {"$range": [None, None]}, {"$range": [0]}, {"$range": [0, 1, 2]}, {"$range": []},
              {"$range": ["0", 1]}, {"$range": [0, True]}, {"$range": 5}, {"$range": {"lo": 0}},
              {"$type": "int"}, {"$type": "number"}, {"$type": "bool"}, {"$type": "string"},
              {"$type": "list"}, {"$type": "object"}, {"$type": "null"}, {"$type": "float"},
              {"$type": "Int"}, {"$type": ["int"]}, {"$type": None},
              {"$close": {"to": 1, "rel_eps": 4, "abs_eps": 4}},
              {"$close": {"to": "$D0", "rel_eps": 0, "abs_eps": 0.5}},
              {"$close": {"to": [{"$type": "int"}], "rel_eps": 1, "abs_eps": 1}},
              {"$close": {"to": {"$nope": 1}, "rel_eps": 1, "abs_eps": 1}},
              {"$close": {"to": 1, "rel_eps": -1, "abs_eps": 0}},
              {"$close": {"to": 1, "rel_eps": 4}}, {"$close": {"rel_eps": 4, "abs_eps": 4}},
              {"$close": {"to": 1, "rel_eps": "4", "abs_eps": 4}},
              {"$close": {"to": 1, "rel_eps": True, "abs_eps": 4}},
              {"$close": {"to": 1, "rel_eps": 4, "abs_eps": 4, "x": 1}}, {"$close": [1, 4, 4]},
              {"$nope": 1}, {"$": 1}, {"$len_min": 1, "$type": "list"}, {"$type": "int", "a": 1},
              {"a": 1, "$type": "int"}, {"$$type": "int"}, {"$$": 1}, {"$$len_min": {"$type": "x"}},
              {"$$len_min": {"$type": "int"}}, {"shape": {"$len_min": 1}},
              {"shape": [{"$type": "int"}]},
              [{"$range": [0, 1]}, {"$contains": 2}], [{"$bad": 1}],
              {"dtype": "int8", "shape": [1], "data": [1]},
              {"dtype": "int8", "shape": [1], "data": [{"$type": "int"}]},
              {"dtype": "int8", "shape": [{"$range": [1, 1]}], "data": [1]},
              {"dtype": "int8", "shape": [1], "data": [[{"$type": "int"}, 0]]},
              {"dtype": "int8", "shape": [1], "data": [1], "note": {"$type": "int"}},
              {"dtype": "int8", "shape": [1], "data": [{"$$type": "int"}]},
              {"dtype": {"$type": "string"}, "shape": [1], "data": [1]},
              {"dtype": "int8", "shape": {"$len_min": 1}, "data": [{"$type": "int"}]},
              {"dtype": 8, "shape": [1], "data": [{"$type": "int"}]},
              {"x": {"dtype": "int8", "shape": [], "data": [{"$range": [0, 1]}]}}):
        mut(f"expect {v!r}", lambda d, v: step(d).update(expect=v), v)
        mut(f"either expect {v!r}", instead, {"either": [{"raises": "any"}, {"expect": v}]})
    # "stop" on an alternative.
    for v in (True, False, None, 1, "true", [], {}):
        mut(f"either stop {v!r} on an expect", instead, {"either": [{"expect": 1, "stop": v}]})
        mut(f"either stop {v!r} on a raises", instead,
            {"either": [{"raises": "any", "stop": v}]})
    # "as" on a step that may raise (case.json's $defs/step_may_raise).
    for v in ([{"raises": "any"}], [{"raises": "any", "stop": True}],
              [{"raises": "any", "stop": False}], [{"expect": 1}, {"raises": "ValueError"}],
              [{"expect": 1}, {"raises": "ValueError", "stop": True}],
              [{"expect": 1, "stop": True}]):
        mut(f"as on either {v!r}", instead, {"as": "y", "either": v})
    mut("as on a raises", instead, {"as": "y", "raises": "any"})
    mut("stop on a step", lambda d: step(d).update(stop=True))
    mut("stop alone in an alternative", instead, {"either": [{"stop": True}]})
    mut("expect and raises", lambda d: step(d).update(raises="ValueError"))
    mut("expect and either", lambda d: step(d).update(either=[{"expect": 1}]))
    mut("raises and either", instead, {"raises": "any", "either": [{"expect": 1}]})
    return out

