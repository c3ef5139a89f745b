"""The $close matcher (spec/case-format.md, "Matchers") through a whole run: a typed array read
back from the adapter matches a neighbour within the tolerance and not beyond it; NaN,
infinities, signed zeros, integers and dtypes stay exact; a failure names the element and the
matcher in the report."""

from __future__ import annotations

from typing import Any

from support import Env, fake_cmd, load_report, read, statuses, why, write_cases

F32 = [1.0, "nan", "-inf", 0.0, -2.0]


def case(cid: str, obj: dict[str, Any], to: Any, rel: float = 4, abs_: float = 4) -> dict[str, Any]:
    return {"id": cid, "description": "A value read back against $close.",
            "spec": ["T-ATTR-1"], "features": ["device-attr"],
            "steps": [{"op": "array.asarray", "args": {"obj": obj}, "as": "x"},
                      {"op": "array.read", "args": {"array": "$x"}, "as": "v"},
                      {"op": "array.read", "args": {"array": "$x"},
                       "expect": {"$close": {"to": to, "rel_eps": rel, "abs_eps": abs_}}}]}


def typed(dtype: str, data: list[Any]) -> dict[str, Any]:
    return {"dtype": dtype, "shape": [len(data)], "data": data}


def test_close_in_a_run(env: Env) -> None:
    x = typed("float32", F32)
    cases = [
        case("close.bound", x, "$v", 0, 0),
        case("close.one-ulp", x, typed("float32", [1.00000011920928955, "nan", "-inf", 0.0,
                                                   -2.0000002384185791])),
        case("close.float64", typed("float64", [0.1]), typed("float64", [0.10000000000000003])),
        case("close.far", x, typed("float32", [1.0, "nan", "-inf", 0.0, -2.001])),
        case("close.nan", x, typed("float32", [1.0, 0.0, "-inf", 0.0, -2.0]), 1e30, 1e30),
        case("close.inf", x, typed("float32", [1.0, "nan", -3.4028234663852886e38, 0.0, -2.0]),
             1e30, 1e30),
        case("close.zero-sign", x, typed("float32", [1.0, "nan", "-inf", -0.0, -2.0])),
        case("close.int", typed("int32", [3]), typed("int32", [4]), 1e9, 1e9),
        case("close.dtype", typed("float32", [1.0]), typed("float64", [1.0])),
    ]
    path = write_cases(env.path("close.json"), "$close through a run.", cases)
    rep = env.path("close-report.json")
    rc, _out, err = env.run(["run", "--cases", path, "--adapter-cmd", fake_cmd(), "--report", rep])
    st = statuses(load_report(rep))
    want = {"close.bound": "pass", "close.one-ulp": "pass", "close.float64": "pass",
            "close.far": "fail", "close.nan": "fail", "close.inf": "fail",
            "close.zero-sign": "fail", "close.int": "fail", "close.dtype": "fail"}
    assert st == want, why("each $close case passes or fails as its tolerance says", want, st)
    assert rc == 1, why("a failed $close fails the run (exit 1)", 1, (rc, err[-400:]))
    text = read(rep)
    assert "elements differ by more than $close allows" in text and ".data[4]" in text, why(
        "the report names the element out of tolerance and the matcher", ".data[4] ... $close",
        text[-1500:])
