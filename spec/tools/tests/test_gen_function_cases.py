"""Tests for spec/tools/gen_function_cases.py: the checked-in files are what it writes, every
function of the table with inputs gets cases, and the cases say what the module promises."""

import json
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import gen_function_cases as gen  # noqa: E402


def cases() -> list[Any]:
    out: list[Any] = []
    for text in gen.build(REPO).values():
        out += json.loads(text)["cases"]
    return out


def test_checked_in_files_are_current() -> None:
    for rel, text in gen.build(REPO).items():
        with open(os.path.join(REPO, rel), encoding="utf-8") as f:
            assert f.read() == text, "%s is stale: run %s" % (rel, gen.GENERATOR)


def test_every_function_with_inputs_has_cases() -> None:
    with open(os.path.join(REPO, gen.SIG), encoding="utf-8") as f:
        sig = json.load(f)
    ids = {c["id"] for c in cases()}
    for fn in sig["functions"]:
        if "inputs" not in fn or fn["name"] in gen.SKIP:
            continue
        for form in fn["signatures"]:
            prefix = "fn.%s.%s." % (gen.slug(fn["name"]), gen.vslug(form["from"]))
            assert any(i.startswith(prefix) for i in ids), prefix


def test_cases_are_scoped_and_check_d1() -> None:
    for c in cases():
        assert any(s.startswith("API-FN-") for s in c["spec"]), c["id"]
        if c["id"].endswith(".same-device"):
            steps = [s for s in c["steps"] if s["op"] == "array.describe"]
            assert all(s["expect"] == {"device": "$D1"} for s in steps), c["id"]
        if ".mixed-" in c["id"]:
            assert c["steps"][-1].get("raises") == "any"
            devices = {s["args"]["device"] for s in c["steps"] if s["op"] == "array.asarray"}
            assert devices == {"$D0", "$D1"}, c["id"]


def test_values_compare_d1_moved_to_d0_with_d0() -> None:
    c = next(c for c in cases() if c["id"] == "fn.add.v2021-12.values")
    ops = [s["op"] for s in c["steps"]]
    assert ops.count("array.to_device") == 1 and ops.count("array.read") == 2
    assert c["steps"][-1]["expect"] == "$v0"


def test_scalars_only_where_the_signature_takes_them() -> None:
    ids = {c["id"] for c in cases()}
    assert "fn.add.v2024-12.scalar-x1" in ids and "fn.add.v2024-12.scalar-x2" in ids
    assert not any(i.startswith("fn.add.v2021-12.scalar") for i in ids)
    assert "fn.array.add.v2021-12.scalar-other" in ids


def test_spd_is_symmetric_with_a_dominant_diagonal() -> None:
    m = gen.spd("real floating", 3)
    assert m == [4.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1.0, 4.0]
    assert gen.spd("bool", 2) == [True, False, False, True]
