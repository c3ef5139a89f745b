"""Tests for spec/tools/check_signatures.py (through check.py): the real table passes, and
each rule fires on a deliberately broken copy with the right file, pointer and rule."""

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import check  # noqa: E402

SIG = "spec/signatures.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the real spec/, adapters.json and the signature cases."""
    shutil.copytree(os.path.join(REPO, "spec"), tmp_path / "spec",
                    ignore=shutil.ignore_patterns("tools", "*.md"))
    for name in ("protocol.md", "statements.md"):
        shutil.copy(os.path.join(REPO, "spec", name), tmp_path / "spec" / name)
    (tmp_path / "adapters").mkdir()
    shutil.copy(os.path.join(REPO, "adapters", "adapters.json"), tmp_path / "adapters")
    (tmp_path / "conformance" / "cases").mkdir(parents=True)
    shutil.copy(os.path.join(REPO, "conformance", "cases", "signatures.json"),
                tmp_path / "conformance" / "cases")
    return tmp_path


def edit(root: Path, rel: str, fn: Callable[[Any], object]) -> None:
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    fn(data)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)


def problems(root: Path) -> list[tuple[str, str, str]]:
    return [(p.file, p.pointer, p.rule) for p in check.Checker(str(root)).run()]


def fn_index(root: Path, name: str) -> int:
    with open(os.path.join(root, SIG), encoding="utf-8") as f:
        functions = json.load(f)["functions"]
    return next(i for i, x in enumerate(functions) if x["name"] == name)


def test_real_table_passes(root: Path) -> None:
    assert problems(root) == []


def test_every_version_family_and_kind_is_covered() -> None:
    with open(os.path.join(REPO, SIG), encoding="utf-8") as f:
        sig = json.load(f)
    names = {x["name"] for x in sig["functions"]}
    # a few of each version and extension, read from the stubs of that version
    for name in ("zeros", "take", "clip", "cumulative_prod", "linalg.eig", "fft.rfftn",
                 "Array.__dlpack_c_exchange_api__", "Array.__getitem__", "broadcast_shapes"):
        assert name in names
    assert len(names) == len(sig["functions"]) > 200


def test_duplicate_name(root: Path) -> None:
    i = fn_index(root, "abs")
    edit(root, SIG, lambda d: d["functions"].append(d["functions"][i]))
    assert any(r == "signatures-name-unique" for _, _, r in problems(root))


def test_signatures_out_of_order(root: Path) -> None:
    i = fn_index(root, "add")
    edit(root, SIG, lambda d: d["functions"][i]["signatures"].reverse())
    got = problems(root)
    assert (SIG, "/functions/%d/signatures" % i, "signatures-order") in got
    assert (SIG, "/functions/%d/signatures/0/from" % i, "signatures-introduced") in got


def test_param_order_and_defaults(root: Path) -> None:
    i = fn_index(root, "sum")

    def breakit(d: Any) -> None:
        params = d["functions"][i]["signatures"][0]["params"]
        params[2]["kind"] = "positional-only"  # after the keyword-only axis
    edit(root, SIG, breakit)
    assert (SIG, "/functions/%d/signatures/0/params/2/kind" % i,
            "signatures-param-order") in problems(root)


def test_kinds_on_a_non_array_parameter(root: Path) -> None:
    i = fn_index(root, "sum")
    edit(root, SIG, lambda d: d["functions"][i]["signatures"][0]["params"][1].update(
        kinds=["bool"]))
    assert (SIG, "/functions/%d/signatures/0/params/1/kinds" % i,
            "signatures-param-kinds") in problems(root)


def test_inputs_name_an_unknown_keyword_and_domain(root: Path) -> None:
    i = fn_index(root, "log")

    def breakit(d: Any) -> None:
        d["functions"][i]["inputs"] = {"args": [{"array": {"shape": [3], "domain": "nowhere"}}],
                                       "kwargs": {"base": 2}}
    edit(root, SIG, breakit)
    got = problems(root)
    assert (SIG, "/functions/%d/inputs/kwargs/base" % i, "signatures-inputs-kwargs") in got
    assert (SIG, "/functions/%d/inputs/args/0" % i, "signatures-inputs-domain") in got


def test_optional_inputs_name_an_array_keyword_and_a_known_domain(root: Path) -> None:
    i = fn_index(root, "clip")

    def breakit(d: Any) -> None:
        d["functions"][i]["inputs"]["optional"] = {
            "mini": {"array": {"shape": [4]}},
            "max": {"array": {"shape": [4], "domain": "nowhere"}}}
    edit(root, SIG, breakit)
    got = problems(root)
    assert (SIG, "/functions/%d/inputs/optional/mini" % i, "signatures-inputs-optional") in got
    assert (SIG, "/functions/%d/inputs/optional/max" % i, "signatures-inputs-domain") in got
    j = fn_index(root, "log")
    edit(root, SIG, lambda d: d["functions"][j]["inputs"].update(
        optional={"x": {"array": {"shape": [3]}}}))
    assert (SIG, "/functions/%d/inputs/optional/x" % j,
            "signatures-inputs-optional") in problems(root)


def test_inputs_miss_a_required_parameter(root: Path) -> None:
    i = fn_index(root, "matmul")
    edit(root, SIG, lambda d: d["functions"][i]["inputs"]["args"].pop())
    assert (SIG, "/functions/%d/inputs/args" % i, "signatures-inputs-args") in problems(root)


def test_family_feature_must_exist(root: Path) -> None:
    edit(root, SIG, lambda d: d["families"]["fft"].update(feature="functions-fourier"))
    assert (SIG, "/families/fft/feature", "signatures-feature-exists") in problems(root)


def test_protocol_function_lists_are_checked(root: Path) -> None:
    i = fn_index(root, "eye")
    edit(root, SIG, lambda d: d["functions"][i]["signatures"][-1]["params"].pop(0))
    got = problems(root)
    assert any(f == "spec/ops.json" and r == "signatures-op-param" for f, _, r in got)
    j = fn_index(root, "maximum")
    edit(root, SIG, lambda d: d["functions"].pop(j))
    assert any(f == "spec/ops.json" and r == "signatures-op-function" for f, _, r in problems(root))


def test_signature_cases_are_checked(root: Path) -> None:
    i = fn_index(root, "zeros")

    def breakit(d: Any) -> None:
        for p in d["functions"][i]["signatures"][-1]["params"]:
            if p["name"] == "device":
                p["kind"] = "positional-or-keyword"
    edit(root, SIG, breakit)
    got = problems(root)
    assert any(f == "conformance/cases/signatures.json" and r == "signatures-case-device"
               for f, _, r in got)


def test_scoping_statement_must_exist(root: Path) -> None:
    edit(root, "spec/statements.json", lambda d: d["statements"].__setitem__(
        slice(None), [s for s in d["statements"] if s["id"] != "API-FN-4"]))
    assert (SIG, "/versions/3", "signatures-statement") in problems(root)
