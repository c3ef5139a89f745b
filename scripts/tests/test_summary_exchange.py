"""reports/summary.py's arrays across libraries: a row per pair (the report's library, a peer
it reached through array.exchange) and a column per kind of crossing, saying whether the array
crossed and landed where it should, was refused (with the kind) or landed wrong."""

import os
import sys
from typing import Any

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "reports"))

import summary  # noqa: E402

TITLE = "## Arrays across libraries (DLPack)"


def case(cid: str, status: str, seen: str, **extra: Any) -> dict[str, Any]:
    return {"id": cid, "status": status, "observed_status": seen, **extra}


def report(label: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {"header": {"adapter": {"label": label}, "library": {"name": label, "version": "1"},
                       "suite": {"commit": "0"}, "devices": []},
            "footer": {"counts": {}, "profiles": {}}, "cases": cases}


def rows(text: str) -> dict[tuple[str, str], list[str]]:
    lines = text.split("\n")
    at = lines.index(TITLE) + 6
    out = {}
    while at < len(lines) and lines[at].startswith("|"):
        cells = [c.strip() for c in lines[at].strip("|").split("|")]
        out[(cells[0], cells[1])] = cells[2:]
        at += 1
    return out


def test_each_pair_and_kind_of_crossing() -> None:
    refused = {"observed": {"error": {"kind": "RuntimeError", "origin": "library"}},
               "steps": [{"op": "array.asarray", "outcome": "returned"}]}
    a = report("liba", [
        case("exchange.numpy.to-peer", "pass", "pass",
             steps=[{"op": "array.exchange", "outcome": "returned"}]),
        case("exchange.numpy.from-peer", "fail", "fail", observed={"device": [2, 0]},
             steps=[{"op": "array.asarray", "outcome": "returned"}]),
        case("exchange.numpy.to-peer-host-copy", "skip", "skip"),
        case("exchange.refarray.to-peer", "pass", "pass",
             steps=[{"op": "array.exchange", "outcome": "raised"}]),
        case("exchange.refarray.opencl-refused", "xfail", "fail", **refused),
        case("exchange.refarray.opencl-host-copy", "crash", "crash"),
        case("exchange.torch.to-peer", "skip", "skip"),  # no case ran: no row
        case("dlpack.export.default", "pass", "pass"),  # not an exchange
    ])
    text = summary.summary([("a.json", a)], {}, {}, [])
    got = rows(text)
    assert set(got) == {("liba", "numpy"), ("liba", "refarray")}
    assert got[("liba", "numpy")] == ["crosses", "lands wrong", "–", "–", "–"]
    assert got[("liba", "refarray")] == ["refused, as allowed", "–", "–",
                                         "refused (RuntimeError) (expected)", "crash"]


def test_no_exchange_case_no_section() -> None:
    a = report("liba", [case("dlpack.export.default", "pass", "pass")])
    assert TITLE not in summary.summary([("a.json", a)], {}, {}, [])
