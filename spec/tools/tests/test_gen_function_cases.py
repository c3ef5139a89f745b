"""Tests for spec/tools/gen_function_cases.py: the checked-in files are what it writes, every
function of the table with inputs gets cases, and the cases say what the module promises."""

import functools
import json
import math
import os
import struct
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(TOOLS))
sys.path.insert(0, TOOLS)

import fn_values  # noqa: E402
import gen_function_cases as gen  # noqa: E402


@functools.lru_cache(maxsize=1)
def built() -> tuple[tuple[str, str], ...]:
    return tuple(gen.build(REPO).items())


def cases() -> list[Any]:
    """Every generated case (a fresh copy: a test may change it)."""
    out: list[Any] = json.loads(json.dumps(_cases()))
    return out


@functools.lru_cache(maxsize=1)
def _cases() -> list[Any]:
    out: list[Any] = []
    for _, text in built():
        out += json.loads(text)["cases"]
    return out


def test_checked_in_files_are_current() -> None:
    for rel, text in built():
        with open(os.path.join(REPO, rel), encoding="utf-8") as f:
            assert f.read() == text, "%s is stale: run %s" % (rel, gen.GENERATOR)


def test_every_function_with_inputs_has_cases() -> None:
    with open(os.path.join(REPO, gen.SIG), encoding="utf-8") as f:
        sig = json.load(f)
    ids = {c["id"] for c in cases()} | set(gen.generate(REPO).twins)
    for fn in sig["functions"]:
        if "inputs" not in fn or fn["name"] in gen.SKIP:
            continue
        for form in fn["signatures"]:
            prefix = "fn.%s.%s." % (gen.slug(fn["name"]), gen.vslug(form["from"]))
            assert any(i.startswith(prefix) for i in ids), prefix
        # the first signature's cases are all written
        prefix = "fn.%s.%s." % (gen.slug(fn["name"]), gen.vslug(fn["signatures"][0]["from"]))
        assert any(c["id"].startswith(prefix) for c in cases()), prefix


def test_every_array_parameter_gets_an_input() -> None:
    """Every parameter that takes an array, in every signature, is given one by the table's
    inputs (positional, keyword or optional), so each pair of array inputs meets on two
    devices in some case (clip's min and max, searchsorted's sorter, linalg's rtol)."""
    with open(os.path.join(REPO, gen.SIG), encoding="utf-8") as f:
        sig = json.load(f)
    missing = []
    for fn in sig["functions"]:
        if "inputs" not in fn or fn["name"] in gen.SKIP:
            continue
        inputs = fn["inputs"]
        for form in fn["signatures"]:
            positional = [p["name"] for p in form["params"]
                          if p["kind"] in ("positional-only", "positional-or-keyword",
                                           "var-positional")]
            given = set(positional[:len(inputs.get("args", []))])
            given |= set(inputs.get("kwargs", {})) | set(inputs.get("optional", {}))
            if inputs.get("args"):
                given |= {p["name"] for p in form["params"] if p["kind"] == "var-positional"}
            missing += ["%s (%s): %s" % (fn["name"], form["from"], p["name"])
                        for p in form["params"]
                        if "array" in p["types"] and p["name"] not in given]
    assert not missing, missing


def test_optional_arrays_get_their_own_cases() -> None:
    by_id = {c["id"]: c for c in cases()}
    for cid in ("fn.clip.v2023-12.opt-min", "fn.searchsorted.v2023-12.opt-sorter",
                "fn.linalg.pinv.v2021-12.opt-rtol"):
        on_d1 = by_id[cid]
        mixed = by_id[cid + "-mixed"]
        name = cid.rsplit("opt-", 1)[1]
        call = next(s for s in on_d1["steps"] if s["op"] == "call")["args"]
        assert name in call["kwargs"], call
        made = {s["as"]: s["args"]["device"] for s in mixed["steps"]
                if s["op"] == "array.asarray"}
        last = [s for s in mixed["steps"] if s["op"] == "call"][-1]
        assert last["raises"] == "any"
        devices = {k: made[v[1:]] for k, v in last["args"]["kwargs"].items()}
        assert devices[name] == "$D0", devices
        assert all(made[a[1:]] == "$D1" for a in last["args"]["args"]), made
    # the plain calls stay without the optional array
    plain = [s for s in by_id["fn.clip.v2023-12.same-device"]["steps"] if s["op"] == "call"]
    assert all("min" not in s["args"].get("kwargs", {}) for s in plain)


def call_devices(call: Any, made: dict[str, str]) -> set[str]:
    """The devices of the arrays a call step is given (positional, keyword, tuple items)."""
    values = list(call["args"].get("args", [])) + list(call["args"].get("kwargs", {}).values())
    names = []
    for v in values:
        items = v["tuple"] if isinstance(v, dict) and "tuple" in v else [v]
        names += [t for t in items if isinstance(t, str) and t[1:] in made]
    return {made[n[1:]] for n in names}


def test_mixed_cases_first_make_the_call_on_each_device() -> None:
    """A mixed case's refusal counts only after the same call succeeded with every array on
    the one input's device (D0, or D2 for the -d2 cases) and then on the others' (D1, or D0)."""
    mixed = [c for c in cases() if "-mixed" in c["id"] or ".mixed-" in c["id"]]
    assert len(mixed) > 100
    for c in mixed:
        alone, rest = ("$D2", "$D0") if c["id"].endswith("-d2") else ("$D0", "$D1")
        made = {s["as"]: s["args"]["device"] for s in c["steps"] if s["op"] == "array.asarray"}
        calls = [s for s in c["steps"] if s["op"] == "call"]
        assert [("raises" in s) for s in calls] == [False, False, True], c["id"]
        assert call_devices(calls[0], made) == {alone}, c["id"]
        assert call_devices(calls[1], made) == {rest}, c["id"]
        assert call_devices(calls[2], made) == {alone, rest}, c["id"]


def test_every_function_has_two_independent_guards() -> None:
    """No function's device rule rests on one case (which one expectations entry could
    silence): a function of several array inputs (meshgrid and broadcast_arrays included) has
    at least two mixed cases, with different devices; one of a single array input two
    same-device cases, on D1 and on D2."""
    mixed: dict[str, set[str]] = {}
    same: dict[str, set[str]] = {}
    for c in cases():
        name, what = c["id"].split(".v")[0], c["id"].split(".", 2)[-1]
        if "DEV-DS-11" in c["spec"]:
            mixed.setdefault(name, set()).add(what)
        if ".same-device" in c["id"]:
            same.setdefault(name, set()).add(what)
    for name in ("fn.meshgrid", "fn.broadcast_arrays", "fn.linalg.matrix_rank", "fn.repeat"):
        assert len(mixed.get(name, ())) >= 2, name
    for name, whats in mixed.items():
        assert any(w.endswith("-d2") for w in whats), name
        assert any(not w.endswith("-d2") for w in whats), name
    assert {w.split(".")[-1] for w in same["fn.linalg.cholesky"]} == {"same-device",
                                                                      "same-device-d2"}


def test_no_two_cases_check_the_same() -> None:
    # A case of a later signature that checks what an earlier one's does is left out: no
    # two cases have the same steps, features and statements but API-FN-k.
    seen: dict[str, str] = {}
    for c in cases():
        key = gen.twin_key(c)
        assert key not in seen, "%s checks what %s does" % (c["id"], seen[key])
        seen[key] = c["id"]


def test_each_case_left_out_has_an_earlier_twin() -> None:
    g = gen.generate(REPO)
    written = {c["id"]: c for family in g.files.values() for c in family}
    assert g.twins, "logical_xor's 2024.12 same-device case is its 2021.12 one"
    assert g.twins["fn.logical_xor.v2024-12.same-device"] == "fn.logical_xor.v2021-12.same-device"
    assert "fn.logical_xor.v2024-12.scalar-x1" in written
    versions = g.versions
    for gone, twin in g.twins.items():
        assert gone not in written and twin in written, gone
        # the same function and kind of case, from an earlier version
        head, v_gone, what = gone.rsplit(".", 2)
        head2, v_twin, what2 = twin.rsplit(".", 2)
        assert (head, what) == (head2, what2), (gone, twin)
        order = [gen.vslug(v) for v in versions]
        assert order.index(v_twin) < order.index(v_gone), (gone, twin)


def test_per_version_counts_every_case_that_applies() -> None:
    # a case counts for every version from its API-FN-k's on (none of the generated
    # functions is removed in a later version)
    g = gen.generate(REPO)
    want = dict.fromkeys(g.versions, 0)
    for c in cases():
        k = max(int(s[len("API-FN-"):]) for s in c["spec"] if s.startswith("API-FN-"))
        for v in g.versions[k - 1:]:
            want[v] += 1
    assert g.per_version == want
    assert g.per_version[g.versions[-1]] == len(cases())


def test_an_expected_dtype_of_a_later_rule_is_of_that_version() -> None:
    """sum, prod and linalg.trace of a float32 array give float32 from 2023.12 and the default
    floating dtype before (numpy.array_api, declaring 2022.12, gives float64): a case that
    checks that dtype cites API-FN-3 beside its signature's API-FN-1, so the runner's version
    skip keeps it from an earlier library; with dtype= given it stays of 2021.12."""
    by_id = {c["id"]: c for c in cases()}
    for fn in ("sum", "prod", "linalg.trace"):
        for what in ("expect-float32", "expect-float64"):
            c = by_id["fn.%s.v2021-12.%s" % (fn, what)]
            assert c["spec"] == ["API-FN-1", "API-FN-3"], c["spec"]
    assert by_id["fn.sum.v2021-12.zero-d"]["spec"] == ["DEV-DS-10", "API-FN-1", "API-FN-3"]
    assert "API-FN-3" not in by_id["fn.sum.v2021-12.kw-dtype"]["spec"]
    assert by_id["fn.max.v2021-12.expect-float32"]["spec"] == ["API-FN-1"]


def test_cases_are_scoped_and_check_d1() -> None:
    for c in cases():
        assert any(s.startswith("API-FN-") for s in c["spec"]), c["id"]
        if c["id"].endswith(".same-device"):
            steps = [s for s in c["steps"] if s["op"] == "array.describe"]
            assert all(s["expect"] == {"device": "$D1"} for s in steps), c["id"]
        if ".mixed-" in c["id"]:
            assert c["steps"][-1].get("raises") == "any"
            devices = {s["args"]["device"] for s in c["steps"] if s["op"] == "array.asarray"}
            want = {"$D0", "$D2"} if c["id"].endswith("-d2") else {"$D0", "$D1"}
            assert devices == want, c["id"]


def test_values_compare_d1_moved_to_d0_with_d0() -> None:
    c = next(c for c in cases() if c["id"] == "fn.add.v2021-12.values")
    ops = [s["op"] for s in c["steps"]]
    assert ops.count("array.to_device") == 1 and ops.count("array.read") == 2
    assert c["steps"][-1]["expect"] == "$v0"


def by_id(case_id: str) -> Any:
    return next(c for c in cases() if c["id"] == case_id)


def reads(c: Any) -> list[Any]:
    """The expectations of a values case's comparisons (the steps on the moved result)."""
    return [s["expect"] for s in c["steps"]
            if s["op"] in ("array.read", "array.describe") and "expect" in s]


def test_values_exact_where_the_standard_fixes_the_result() -> None:
    # correctly rounded (divide, sqrt), exact by nature (max, sort), integer inputs (bitwise)
    for case_id in ("fn.divide.v2021-12.values", "fn.sqrt.v2021-12.values",
                    "fn.max.v2021-12.values", "fn.sort.v2021-12.values",
                    "fn.bitwise_and.v2021-12.values", "fn.linalg.outer.v2021-12.values"):
        assert reads(by_id(case_id)) == ["$v0"], case_id


def test_values_within_a_tolerance_where_the_standard_leaves_accuracy_open() -> None:
    close = {"$close": {"to": "$v0", "rel_eps": gen.TOL_ELEMENTWISE[0],
                        "abs_eps": gen.TOL_ELEMENTWISE[1]}}
    for case_id in ("fn.sin.v2021-12.values", "fn.log1p.v2021-12.values",
                    "fn.array.pow.v2021-12.values"):
        assert reads(by_id(case_id)) == [close], case_id
    wide = {"$close": {"to": "$v0", "rel_eps": gen.TOL_REDUCTION[0],
                       "abs_eps": gen.TOL_REDUCTION[1]}}
    for case_id in ("fn.mean.v2021-12.values", "fn.var.v2021-12.values",
                    "fn.linalg.inv.v2021-12.values", "fn.fft.fft.v2022-12.values",
                    "fn.matmul.v2021-12.values"):
        assert reads(by_id(case_id)) == [wide], case_id
    assert "epsilon" in by_id("fn.sin.v2021-12.values")["description"]


def test_factorisations_compare_what_is_unique() -> None:
    svd = by_id("fn.linalg.svd.v2021-12.values")
    want = reads(svd)
    assert want[0] == "$v0" and want[2] == "$v2"  # U, Vh: describe (dtype and shape)
    assert want[1]["$close"]["to"] == "$v1"  # S within the tolerance
    describes = [s for s in svd["steps"] if s["op"] == "array.describe"]
    assert [s["args"]["array"] for s in describes] == ["$y0", "$y2", "$m0", "$m2"]
    eigh = by_id("fn.linalg.eigh.v2021-12.values")
    fns = [s["args"]["fn"] for s in eigh["steps"] if s["op"] == "call"]
    assert fns == ["linalg.eigh", "sort", "linalg.eigh", "linalg.eigh", "sort", "linalg.eigh"]
    qr = by_id("fn.linalg.qr.v2021-12.values")
    assert [s["args"]["fn"] for s in qr["steps"] if s["op"] == "call"].count("abs") == 4
    eig = by_id("fn.linalg.eig.v2025-12.values")
    fns = [s["args"]["fn"] for s in eig["steps"] if s["op"] == "call"]
    assert fns[:3] == ["linalg.eig", "abs", "sort"]


def test_tolerance_tables_name_functions_of_the_table() -> None:
    with open(os.path.join(REPO, gen.SIG), encoding="utf-8") as f:
        names = {fn["name"] for fn in json.load(f)["functions"]}
    for name in (gen.INEXACT_ELEMENTWISE | gen.EXACT_IN_FAMILY | gen.COMPLEX_INEXACT
                 | {n for n, _ in gen.UNIQUE_PART}):
        assert name in names, name
    for fns in gen.UNIQUE_PART.values():
        assert fns is None or set(fns) <= names


def test_scalars_only_where_the_signature_takes_them() -> None:
    ids = {c["id"] for c in cases()}
    assert "fn.add.v2024-12.scalar-x1" in ids and "fn.add.v2024-12.scalar-x2" in ids
    assert not any(i.startswith("fn.add.v2021-12.scalar") for i in ids)
    assert "fn.array.add.v2021-12.scalar-other" in ids


def test_spd_is_symmetric_with_a_dominant_diagonal() -> None:
    m = gen.spd("real floating", 3)
    assert m == [4.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1.0, 4.0]
    assert gen.spd("bool", 2) == [True, False, False, True]


# -- values from the definitions (spec/decisions.md, "Every function" 16) --------------------

EPS = {"float32": 2.0 ** -23, "complex64": 2.0 ** -23, "float64": 2.0 ** -52,
       "complex128": 2.0 ** -52}


def element(v: Any) -> Any:
    if isinstance(v, list):
        return complex(element(v[0]), element(v[1]))
    if isinstance(v, str):
        return float(v)
    return v


def close(expect: Any, observed: list[Any]) -> bool:
    """spec/case-format.md's $close (or exact match) of a typed array's data."""
    if "$close" in expect:
        m = expect["$close"]
        to, rel, abs_ = m["to"], m["rel_eps"], m["abs_eps"]
    else:
        to, rel, abs_ = expect, None, None
    for x, o in zip(to["data"], observed, strict=True):
        x, o = element(x), element(o)
        if rel is None:
            if x != o:
                return False
            continue
        scale = max(abs(x), abs(o))
        eps = EPS[to["dtype"]]
        for a, b in ((complex(x).real, complex(o).real), (complex(x).imag, complex(o).imag)):
            if a == 0 and b == 0:
                if math.copysign(1, a) != math.copysign(1, b):
                    return False
            elif abs(a - b) > (abs_ + rel * scale) * eps:
                return False
    return True


def last_read(case_id: str) -> Any:
    return [s for s in by_id(case_id)["steps"] if s["op"] == "array.read"][-1]["expect"]


def test_an_fft_of_zeros_and_a_float32_accurate_float64_fft_fail() -> None:
    """The issue's two wrong FFTs: zeros on every device, and a double-precision FFT whose
    scaling is float-accurate (relative error 3e-8). The metamorphic values case passes
    both; the expect-complex128 case must not."""
    want = last_read("fn.fft.fft.v2022-12.expect-complex128")
    data = [element(v) for v in want["$close"]["to"]["data"]]
    assert close(want, [[v.real, v.imag] for v in data])
    assert not close(want, [[0.0, 0.0] for _ in data])
    assert not close(want, [[v.real * (1 + 3e-8), v.imag * (1 + 3e-8)] for v in data])
    # the transform computed in complex64 and widened: its twiddle factors are not exact
    def f32(v: float) -> float:
        out: float = struct.unpack("f", struct.pack("f", v))[0]
        return out
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn",
                 "irfftn"):
        for width in ("complex128", "float64"):
            case_id = "fn.fft.%s.v2022-12.expect-%s" % (name, width)
            if case_id not in {c["id"] for c in cases()}:
                continue
            wide = last_read(case_id)
            values = [element(v) for v in wide["$close"]["to"]["data"]]
            assert not close(wide, [[f32(complex(v).real), f32(complex(v).imag)]
                                    if isinstance(v, complex) else f32(v) for v in values]), \
                case_id
    # the same error is within float32's tolerance
    want32 = last_read("fn.fft.fft.v2022-12.expect-complex64")
    assert close(want32, [[v.real * (1 + 3e-8), v.imag * (1 + 3e-8)] for v in data])
    # an ifft's scaling left out (backward norm: 1/n) fails too
    inv = last_read("fn.fft.ifft.v2022-12.expect-complex128")
    n = len(inv["$close"]["to"]["data"])
    assert not close(inv, [[element(v).real * n, element(v).imag * n]
                           for v in inv["$close"]["to"]["data"]])


def test_the_definitions_give_the_known_values() -> None:
    arr = fn_values.Arr
    x = arr("complex128", (4,), [1, 2, 3, 4])
    assert fn_values.evaluate("fft.fft", [x], {}).data == [10, -2 + 2j, -2, -2 - 2j]
    assert fn_values.evaluate("fft.ifft", [x], {"norm": "forward"}).data == \
        [10, -2 - 2j, -2, -2 + 2j]
    spd = arr("float64", (3, 3), [4, 1, 1, 1, 4, 1, 1, 1, 4])  # eigenvalues 3, 3, 6
    w = fn_values.evaluate("linalg.eigvalsh", [spd], {}).data
    assert all(abs(a - b) < 1e-12 for a, b in zip(w, [3, 3, 6], strict=True))
    assert abs(fn_values.evaluate("linalg.det", [spd], {}).data[0] - 54) < 1e-12
    # float32 rounds as float32, integers wrap at their width
    third = fn_values.evaluate("divide", [arr("float32", (1,), [1]), arr("float32", (1,), [3])],
                               {}).data[0]
    assert third == struct.unpack("f", struct.pack("f", 1 / 3))[0] != 1 / 3
    assert fn_values.evaluate("subtract", [arr("uint8", (1,), [1]), arr("uint8", (1,), [2])],
                              {}).data == [255]
    vals, counts = fn_values.evaluate("unique_counts", [arr("int32", (5,), [3, 1, 3, 2, 1])], {})
    assert vals.data == [1, 2, 3] and counts.data == [2, 1, 2]
    assert fn_values.evaluate("sort", [arr("int32", (3,), [2, 3, 1])], {"descending": True}
                              ).data == [3, 2, 1]


# The functions with no expect-DTYPE case, each for a reason decisions.md gives.
NO_EXPECT = {"can_cast", "result_type", "empty", "empty_like", "Array.__getitem__",
             "Array.__setitem__", "Array.device", "Array.to_device"}


def test_every_function_has_values_from_its_definition_in_each_width() -> None:
    with open(os.path.join(REPO, gen.SIG), encoding="utf-8") as f:
        sig = json.load(f)
    ids = {c["id"] for c in cases()}
    for fn in sig["functions"]:
        if fn["name"] in gen.SKIP or sig["families"][fn["family"]]["feature"] is None:
            continue
        mine = [i for i in ids if i.startswith("fn.%s." % gen.slug(fn["name"]))
                and ".expect-" in i]
        if fn["name"] in NO_EXPECT:
            assert not mine, fn["name"]
            continue
        assert mine, fn["name"]
        widths = {i.rsplit("expect-", 1)[1] for i in mine}
        if widths & {"float32", "complex64"}:
            assert widths & {"float64", "complex128"}, fn["name"]


def test_expect_cases_need_one_device_and_cite_the_function_alone() -> None:
    for c in cases():
        if ".expect-" not in c["id"]:
            continue
        text = json.dumps(c["steps"])
        assert "$D1" not in text and "$D2" not in text, c["id"]
        assert all(s.startswith("API-FN-") for s in c["spec"]), c["id"]
        assert any(s["op"] in ("array.read", "array.describe") or "expect" in s
                   for s in c["steps"] if s["op"] != "array.asarray"), c["id"]


def test_every_keyword_is_given_once() -> None:
    """Each keyword parameter of each function is given in some case of it (the table's
    inputs, an optional array's case or a kw- case)."""
    with open(os.path.join(REPO, gen.SIG), encoding="utf-8") as f:
        sig = json.load(f)
    given: dict[str, set[str]] = {}
    for c in cases():
        for s in c["steps"]:
            if s["op"] == "call":
                given.setdefault(s["args"]["fn"], set()).update(s["args"].get("kwargs", {}))
    for fn in sig["functions"]:
        if fn["name"] in gen.SKIP or sig["families"][fn["family"]]["feature"] is None or \
                fn["name"] in ("Array.__getitem__", "Array.__setitem__"):
            continue
        for form in fn["signatures"]:
            for p in form["params"]:
                if p["kind"] != "keyword-only" or p["name"] in gen.NO_KEYWORD_CASE:
                    continue
                assert p["name"] in given.get(fn["name"], set()), (fn["name"], p["name"])


def test_string_keywords_take_each_listed_value() -> None:
    ids = {c["id"] for c in cases()}
    for name in ("fn.fft.fft.v2022-12.kw-norm-ortho", "fn.fft.fft.v2022-12.kw-norm-forward",
                 "fn.linalg.qr.v2021-12.kw-mode-complete", "fn.meshgrid.v2021-12.kw-indexing-ij",
                 "fn.searchsorted.v2023-12.kw-side-right", "fn.sort.v2021-12.kw-descending",
                 "fn.sum.v2021-12.kw-keepdims"):
        assert name in ids, name


def test_zero_d_and_empty_inputs_check_device_and_values() -> None:
    c = by_id("fn.sum.v2021-12.zero-d")
    made = [s for s in c["steps"] if s["op"] == "array.asarray"]
    assert made and all(s["args"]["obj"]["shape"] == [] for s in made)
    assert {"op": "array.describe", "args": {"array": "$y0"}, "expect": {"device": "$D1"}} \
        in c["steps"]
    c = by_id("fn.add.v2021-12.empty")
    assert c["steps"][-1]["expect"] == {"dtype": "float32", "shape": [0], "data": []}
    assert "fn.max.v2021-12.empty" not in {x["id"] for x in cases()}


def test_device_from_an_array_and_the_crossing_form() -> None:
    c = by_id("fn.zeros.v2021-12.device-from-array")
    dev = next(s for s in c["steps"] if s["op"] == "call" and s["args"]["fn"] == "Array.device")
    assert dev["as"] == "dev"
    assert c["steps"][-2]["args"]["kwargs"]["device"] == "$dev"
    assert c["steps"][-1]["expect"] == {"device": "$D1"}
    c = by_id("fn.zeros_like.v2021-12.device-d0-crossing")
    assert c["steps"][0]["args"]["device"] == "$D1"
    assert c["steps"][-1]["expect"] == {"device": "$D0"}


def test_every_output_of_a_list_result_is_checked() -> None:
    c = by_id("fn.nonzero.v2021-12.two-d")
    assert [s["args"].get("pick") for s in c["steps"] if s["op"] == "call"] == [0, 1]
    c = by_id("fn.meshgrid.v2021-12.three-arrays")
    assert [s["args"].get("pick") for s in c["steps"] if s["op"] == "call"] == [0, 1, 2]
    c = by_id("fn.unstack.v2023-12.kw-axis")
    assert [s["args"].get("pick") for s in c["steps"] if s["op"] == "call"] == [0, 1, 2]
