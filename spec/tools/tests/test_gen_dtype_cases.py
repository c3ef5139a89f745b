"""Tests for spec/tools/gen_dtype_cases.py: the generated case files are current, and the
expected dtypes and values follow the rule sets' statements, computed here independently for
the seed's worked examples."""

import json
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import gen_dtype_cases as gen  # noqa: E402


def cases(name: str) -> dict[str, Any]:
    text = gen.build(REPO)[gen.OUT_FILES[name]]
    return {c["id"]: c for c in json.loads(text)["cases"]}


def result(c: Any) -> set[str]:
    """The dtypes a case's last step accepts."""
    last = c["steps"][-1]
    if "expect" in last:
        return {last["expect"]["dtype"]}
    return {alt["expect"]["dtype"] for alt in last["either"]}


def test_generated_files_are_current() -> None:
    assert gen.main(["--root", REPO, "--check"]) == 0


def test_category_follows_the_seed_examples() -> None:
    c = cases("category")
    # OF-PROM-8: the worked results.
    assert result(c["promotion.category.add.int32.scalar-int"]) == {"int32"}
    assert result(c["promotion.category.add.int64.int32.array"]) == {"int64"}
    assert result(c["promotion.category.add.bool.int64.array"]) == {"int64"}
    assert result(c["promotion.category.add.bool.uint8.array"]) == {"uint8"}
    assert result(c["promotion.category.add.float32.float64.array"]) == {"float64"}
    assert result(c["promotion.category.add.bool.int32.array"]) == {"int32"}
    assert result(c["promotion.category.add.int64.float32.array"]) == {"float32"}
    # OF-PROM-9: both readings.
    c9 = c["promotion.category.add.int32.int64.0d"]
    assert result(c9) == {"int32", "int64"} and "OF-PROM-9" in c9["spec"]
    # OF-PROM-3, OF-PROM-6: a float scalar of a higher category decides (float32).
    assert result(c["promotion.category.multiply.int64.scalar-float"]) == {"float32"}
    # OF-PROM-4: a 0-d float64 above an int32 array.
    assert result(c["promotion.category.add.int32.float64.0d"]) == {"float64"}
    # The 0-d operand of the same category does not widen a float (rules) or does (example).
    assert result(c["promotion.category.add.float16.float32.0d"]) == {"float16", "float32"}


def test_category_values_are_exact() -> None:
    c = cases("category")
    read = c["promotion.category.divide.int32.scalar-float"]["steps"][-1]["expect"]
    assert read == {"dtype": "float32", "shape": [2], "data": [4, 6]}
    read = c["promotion.category.subtract.uint8.bool.array"]["steps"][-1]["expect"]
    assert read == {"dtype": "uint8", "shape": [2], "data": [1, 2]}


def test_category_bool_division_is_oneflows() -> None:
    """bool / bool is bool, the dividend, as OneFlow 0.9.0 gives it ([True, False] / [True,
    True] is bool [True, False]); int / int and bool / int8 are true division in float32."""
    c = cases("category")
    for form in ("array", "0d"):
        steps = c["promotion.category.divide.bool.bool." + form]["steps"]
        assert steps[0]["args"]["obj"]["data"] == [True, False]
        assert steps[-1]["expect"] == {"dtype": "bool", "shape": [2], "data": [True, False]}
    read = c["promotion.category.divide.int32.int32.array"]["steps"][-1]["expect"]
    assert read == {"dtype": "float32", "shape": [2], "data": [2, 1.5]}
    assert result(c["promotion.category.divide.bool.int8.array"]) == {"float32"}


def test_array_api_has_no_case_for_unspecified_pairs() -> None:
    c = cases("array-api")
    assert "promotion.api.add.int8.float32.array" not in c
    assert "promotion.api.add.uint64.int64.array" not in c
    assert "promotion.api.add.bool.bool.array" not in c
    assert "promotion.api.divide.int8.int8.array" not in c
    assert "promotion.api.add.int32.scalar-float" not in c
    assert not any("float16" in k for k in c)
    assert result(c["promotion.api.add.uint8.int8.array"]) == {"int16"}
    assert result(c["promotion.api.add.int32.int64.0d"]) == {"int64"}
    assert result(c["promotion.api.add.float32.complex128.array"]) == {"complex128"}
    assert result(c["promotion.api.multiply.float32.scalar-int"]) == {"float32"}
    read = c["promotion.api.divide.complex64.float32.array"]["steps"][-1]["expect"]
    assert read == {"dtype": "complex64", "shape": [2], "data": [[2, 0], [1.5, 0]]}


def refuses_float16(c: Any) -> bool:
    return any(s["op"] == "array.asarray" and gen.FLOAT16_REFUSAL in s.get("either", [])
               for s in c["steps"])


def test_every_float16_refusal_has_a_counterpart_that_requires_it() -> None:
    for name in ("out", "category"):
        c = cases(name)
        originals = [k for k, v in c.items() if refuses_float16(v)]
        assert originals
        for k in originals:
            req = c[k + ".float16-listed"]
            assert req["spec"] == c[k]["spec"]
            assert "info-dtypes" in req["features"]
            gate = req["steps"][0]
            assert gate["op"] == "info.dtypes" and gate["args"] == {"device": "$D0"}
            assert {"expect": {"$contains": "float16"}} in gate["either"]
            assert not refuses_float16(req)
            assert req["steps"][1:] == [
                {kk: vv for kk, vv in s.items() if kk != "either"}
                | {"expect": {"$type": "string"}} if refuses_float16({"steps": [s]}) else s
                for s in c[k]["steps"]]
        assert sum(k.endswith(".float16-listed") for k in c) == len(originals)


def test_every_float16_refusal_has_a_counterpart_on_the_cpu_device() -> None:
    """The refusal is acceptable only on a device without float16: on the cpu device of a
    library claiming float16 the same steps must compute, with no float16 refusal and no
    gate."""
    for name in ("out", "category"):
        c = cases(name)
        originals = [k for k, v in c.items() if refuses_float16(v)]
        for k in originals:
            req = c[k + ".float16-cpu"]
            assert sorted(req["features"]) == sorted(c[k]["features"] + ["float16"])
            assert req["spec"] == c[k]["spec"] + ["OF-DT-1"]
            assert req["steps"][0] == {"op": "device.parse", "args": {"text": "cpu"},
                                       "as": "cpu"}
            assert not refuses_float16(req)
            assert "$D0" not in json.dumps(req["steps"])
            listed = c[k + ".float16-listed"]["steps"][1:]
            assert json.loads(json.dumps(listed).replace('"$D0"', '"$cpu"')) == req["steps"][1:]
        assert sum(k.endswith(".float16-cpu") for k in c) == len(originals)
