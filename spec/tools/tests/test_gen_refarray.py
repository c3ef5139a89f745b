"""Tests for spec/tools/gen_refarray.py: refarray's function tables follow the refarray entries
of spec/signatures.json, a "function" row gets its generated handler (and its declaration where
no header has one), and an entry that would break refarray's ABI, name a handler that does not
exist or have parameters no generated handler binds stops it (exit 2, naming the row)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import gen_refarray  # noqa: E402


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the files the generator reads and writes."""
    include = "reference/include"
    headers = [os.path.join(include, n) for n in os.listdir(os.path.join(REPO, include))
               if n.endswith(".h")]
    for rel in [gen_refarray.SIG, *gen_refarray.CALL_FILES, gen_refarray.ENUMS,
                gen_refarray.TABLES, gen_refarray.CALLS, gen_refarray.GEN_C, *headers]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(REPO, rel), tmp_path / rel)
    return tmp_path


def edit_rows(root: Path, name: str, refarray: object) -> None:
    """Sets the refarray entry of function NAME (None: removes it)."""
    path = root / gen_refarray.SIG
    doc = json.loads(path.read_text(encoding="utf-8"))
    row = next(r for r in doc["functions"] if r["name"] == name)
    if refarray is None:
        row.pop("refarray", None)
    else:
        row["refarray"] = refarray
    path.write_text(json.dumps(doc), encoding="utf-8")


def binary_count(root: Path) -> int:
    doc = json.loads((root / gen_refarray.SIG).read_text(encoding="utf-8"))
    return sum(1 for r in doc["functions"] if "binary" in r.get("refarray", {}))


def run(root: Path, *args: str) -> int:
    return gen_refarray.main(["--root", str(root), *args])


def test_the_repository_is_current(root: Path) -> None:
    assert run(root, "--check") == 0


def test_a_new_binary_function_is_appended_everywhere(root: Path) -> None:
    # maximum is answered by the shim's binary slot today; as math.c's it takes the next value.
    edit_rows(root, "maximum", {"binary": binary_count(root) + 1})
    assert run(root, "--check") == 1
    assert run(root) == 0
    enums = (root / gen_refarray.ENUMS).read_text(encoding="utf-8")
    assert "    RA_MATH2_LOGICAL_XOR,\n    RA_MATH2_MAXIMUM,\n} ra_math2_fn;" in enums
    tables = (root / gen_refarray.TABLES).read_text(encoding="utf-8")
    assert '[RA_MATH2_MAXIMUM] = "maximum",' in tables
    assert "[RA_MATH2_MAXIMUM] = KREAL," in tables  # the latest signature's kinds
    assert run(root, "--check") == 0


def test_a_new_call_row_lands_in_its_handlers_file(root: Path) -> None:
    # finfo has no entry (refarray's adapter lacks it); named with a handler of
    # call_elementwise.c, it joins that file's table and no other.
    edit_rows(root, "finfo", {"call": "call_isdtype"})
    assert run(root) == 0
    calls = (root / gen_refarray.CALLS).read_text(encoding="utf-8")
    table = calls[calls.index("#define REFARRAY_CALLS_ELEMENTWISE"):]
    table = table[:table.index("/* end */")]
    assert '{"finfo", call_isdtype},' in table and calls.count('"finfo"') == 1


@pytest.mark.parametrize("entry, said", [
    ({"binary": 99}, "refarray.binary values must be 1 to 22, each once: maximum has 99"),
    ({"binary": 8}, "refarray.binary values must be 1 to 22, each once"),
    ({"unary": 36}, "maximum: refarray.unary needs 1 positional array parameter, the latest "
                    "signature has 2"),
    ({"call": "call_maximum"}, "maximum: refarray.call names call_maximum, which no file"),
    ({"binary": 22, "call": "call_clip"}, "maximum: refarray needs exactly one of unary, "
                                          "binary, call and function"),
    ({"function": "maximum"}, "maximum: refarray.function must name a refarray function ra_"),
    ({"binary": "22"}, "maximum: refarray.binary must be a positive integer"),
])
def test_an_unusable_entry_exits_2_naming_the_row(root: Path, entry: object, said: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    edit_rows(root, "maximum", entry)
    before = (root / gen_refarray.ENUMS).read_text(encoding="utf-8")
    assert run(root) == 2
    err = capsys.readouterr().err
    assert "spec/signatures.json: " in err and said in err, err
    assert (root / gen_refarray.ENUMS).read_text(encoding="utf-8") == before


def test_a_function_row_gets_a_generated_handler_and_declaration(root: Path) -> None:
    # roll has a hand-written handler today; as a "function" row its handler binds x, shift
    # (int or ints, by position or keyword) and axis (int, ints or None, by keyword), and
    # ra_roll_again, which no header declares, is declared from the signature.
    edit_rows(root, "roll", {"function": "ra_roll_again"})
    assert run(root) == 0
    handlers = (root / gen_refarray.GEN_C).read_text(encoding="utf-8")
    assert "/* roll(x, /, shift, *, axis=None) */" in handlers
    assert '{"shift", CALL_EITHER, CALL_INTS, true, 0, 0.0, false},' in handlers
    assert '{"axis", CALL_KEYWORD, CALL_INTS_OR_NONE, false, 0, 0.0, false},' in handlers
    assert ("ra_roll_again(refarray_ctx(lib), b[0].array, b[1].ints, b[1].n, "
            "b[2].none ? NULL : b[2].ints, b[2].n, &y)") in handlers
    assert '{"roll", gen_roll},' in handlers
    header = (root / gen_refarray.GEN_H).read_text(encoding="utf-8")
    assert ("RA_API int ra_roll_again(ra_ctx *ctx, const ra_array *x, const int64_t *shift, "
            "size_t n_shift, const int64_t *axis, size_t n_axis, ra_array **out);") in header
    # flip's function is declared by hand in refarray_fn_shape.h: not again here.
    assert "ra_flip" in handlers and "ra_flip" not in header
    assert '"roll"' not in (root / gen_refarray.CALLS).read_text(encoding="utf-8")
    assert run(root, "--check") == 0


def test_defaults_become_the_bound_arguments_defaults(root: Path) -> None:
    # sort(x, /, *, axis=-1, descending=False, stable=True)
    edit_rows(root, "sort", {"function": "ra_sort"})
    assert run(root) == 0
    handlers = (root / gen_refarray.GEN_C).read_text(encoding="utf-8")
    assert '{"axis", CALL_KEYWORD, CALL_INT, false, -1, 0.0, false},' in handlers
    assert '{"stable", CALL_KEYWORD, CALL_BOOL, false, 0, 0.0, true},' in handlers
    assert "ra_sort(refarray_ctx(lib), b[0].array, b[1].i, b[2].b, b[3].b, &y)" in handlers


@pytest.mark.parametrize("name, said", [
    ("searchsorted", "searchsorted: refarray.function: parameter side has the types ['str'], "
                     "which no generated handler converts"),
    ("unique_counts", "unique_counts: refarray.function: the latest signature returns "
                      '{"type": "named-tuple"'),
    ("meshgrid", "meshgrid: refarray.function: parameter arrays is var-positional"),
])
def test_a_function_row_the_handler_cannot_bind_is_refused(
        root: Path, name: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    edit_rows(root, name, {"function": "ra_" + name})
    assert run(root) == 2
    err = capsys.readouterr().err
    assert said in err and "answer the function through a handler" in err, err


def test_a_removed_value_leaves_a_hole_that_is_refused(root: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # Taking a function out of the middle would renumber the ones after it (an ABI change).
    edit_rows(root, "hypot", None)
    assert run(root) == 2
    assert "copysign has 3 where 2 is next" in capsys.readouterr().err
