"""Loading case files: every broken file of invalid/ is refused before anything runs, at the
location invalid/expected.txt gives; every problem of every file is reported."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from support import CASES, HERE, Env, fake_cmd, why


def invalid_files() -> list[tuple[str, str, str, str]]:
    """invalid/expected.txt: (file, location, field, reason) per line."""
    entries = []
    with open(os.path.join(HERE, "invalid", "expected.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                fname, loc, field, reason = line.split(" ", 3)
                entries.append((fname, loc, field, reason))
    return entries


@pytest.mark.parametrize(("fname", "loc", "field", "reason"), invalid_files(),
                         ids=[e[0] for e in invalid_files()])
def test_invalid_file(env: Env, fname: str, loc: str, field: str, reason: str) -> None:
    marker = env.path("adapter-started")
    path = os.path.join(HERE, "invalid", fname)
    rc, _, err = env.run(["run", "--cases", path, "--adapter-cmd",
                          f"touch {marker}; " + fake_cmd(), "--report", env.path("never.json")])
    want = f"{path}:{loc}: {field}"
    assert rc == 2, why(f"invalid {fname}: exit status 2", 2, rc)
    assert want in err and reason in err, why(
        f"invalid {fname}: names {loc} and {field}", f"{want} ... {reason}", err)
    assert not os.path.exists(marker) and not os.path.exists(env.path("never.json")), why(
        f"invalid {fname}: nothing ran, no report written", "no adapter, no report",
        os.listdir(env.tmp))


def test_every_problem_reported(env: Env) -> None:
    """Every problem of every file is reported, not only the first."""
    d = env.path("two-bad")
    os.makedirs(d)
    for f in ("unknown-op.json", "bad-id.json"):
        shutil.copy(os.path.join(HERE, "invalid", f), d)
    shutil.copy(os.path.join(CASES, "pass.json"), d)
    rc, _, err = env.run(["validate", "--cases", d])
    assert rc == 2 and "unknown-op.json:11:16" in err and "bad-id.json:5:13" in err, why(
        "problems in two files of a directory are all reported", "both locations", err)


def test_fixture_cases_valid(env: Env) -> None:
    rc, out, err = env.run(["validate", "--cases", CASES])
    assert rc == 0 and "cases: valid" in out, why("the fixture cases are valid", 0, err)


def test_missing_case_path(env: Env) -> None:
    rc, _, err = env.run(["validate", "--cases", env.path("nowhere")])
    assert rc == 2 and "nowhere" in err, why("a missing case path is exit 2 naming it", 2, err)


def call_case(cid: str, call: dict[str, object]) -> dict[str, object]:
    """A case citing T-ATTR-1 whose one step is the call CALL."""
    return {"id": cid, "spec": ["T-ATTR-1"], "features": ["device-attr"],
            "steps": [{"op": "call", "args": call}]}


def test_call_fn_and_pick_checked(env: Env) -> None:
    """validate refuses a `call` whose fn is not in the spec's signature table, or appears
    only after every version the case's statements cover, and a pick that is not an integer
    from 0 to 32767, naming the case and the field; a fn of the table within the case's
    versions is valid."""
    spec = env.path("spec")
    shutil.copytree(os.path.join(HERE, "spec"), spec)
    with open(os.path.join(spec, "statements.json")) as fh:
        statements = json.load(fh)
    for s in statements["statements"]:
        if s["id"] == "T-ATTR-1":
            s["versions"] = ["2021.12"]
    with open(os.path.join(spec, "statements.json"), "w") as fh:
        json.dump(statements, fh)
    with open(os.path.join(spec, "signatures.json"), "w") as fh:
        json.dump({"versions": ["2021.12", "2023.12"], "functions": [
            {"name": "abs", "introduced": "2021.12"},
            {"name": "clip", "introduced": "2023.12"}]}, fh)
    good = env.path("good.json")
    with open(good, "w") as fh:
        json.dump({"description": "d", "cases": [
            call_case("c.ok", {"fn": "abs", "args": [1], "pick": 0})]}, fh)
    rc, _, err = env.run(["validate", "--spec", spec, "--cases", good], spec=False)
    assert rc == 0, why("a call of a fn in the table, pick 0: valid", 0, (rc, err[-300:]))
    bad: list[tuple[dict[str, object], str, str, str]] = [
        ({"fn": "Array.__init__"}, "c.init", "args.fn",
         "\"Array.__init__\" is not a function"),
        ({"fn": ""}, "c.empty", "args.fn", "must be the name of a function"),
        ({"fn": None}, "c.null", "args.fn", "must be the name of a function"),
        ({"fn": "clip"}, "c.later", "args.fn", "\"clip\" appears in 2023.12"),
        ({"fn": "abs", "pick": 2 ** 63}, "c.huge", "args.pick", "must be an integer from 0"),
        ({"fn": "abs", "pick": None}, "c.pnull", "args.pick", "not null"),
        ({"fn": "abs", "pick": 1.5}, "c.half", "args.pick", "must be an integer from 0"),
        ({"fn": "abs", "pick": -1}, "c.neg", "args.pick", "must be an integer from 0"),
    ]
    path = env.path("bad.json")
    with open(path, "w") as fh:
        json.dump({"description": "d", "cases": [call_case(c, a) for a, c, _, _ in bad]}, fh)
    rc, _, err = env.run(["validate", "--spec", spec, "--cases", path], spec=False)
    for i, (_, cid, field, reason) in enumerate(bad):
        line = next((x for x in err.splitlines() if f"cases[{i}]" in x and field in x), "")
        assert reason in line, why(
            f"call {cid}: refused at cases[{i}] ({cid}) {field}", reason, err[-1500:])
    assert rc == 2, why("calls the table does not have: exit 2", 2, rc)


def test_byte_order_mark_named(env: Env) -> None:
    """A case file saved as UTF-16 (or with UTF-8's mark) is refused naming its byte order
    mark, not as a NUL byte or invalid JSON."""
    with open(os.path.join(CASES, "pass.json")) as fh:
        text = fh.read()
    for name, data, want in [
            ("utf16.json", text.encode("utf-16"), "UTF-16LE byte order mark"),
            ("utf16be.json", b"\xfe\xff" + text.encode("utf-16-be"), "UTF-16BE byte order mark"),
            ("utf8bom.json", text.encode("utf-8-sig"), "UTF-8 byte order mark")]:
        path = env.path(name)
        with open(path, "wb") as fh:
            fh.write(data)
        rc, _, err = env.run(["validate", "--cases", path])
        assert rc == 2 and f"{path}:1:1: (file): a {want}" in err, why(
            f"{name}: its byte order mark named", want, (rc, err[-300:]))
