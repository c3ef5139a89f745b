"""The two case validators, the runner's loader (devspec validate) and spec/tools/check.py,
give the same verdict on every file: the invalid fixtures, the valid ones and the schema
mutations (case_mutations.py); and a case citing an informative statement alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from case_mutations import mutations, schema_ops
from support import CASES, HERE, SOURCE, TEST_SPEC, Env, fake_cmd, load_report, statuses, why

# Judges case files with spec/tools/check.py's case rules, one file at a time, against the
# tests' registry (conformance/tests/spec, which the runner's tests use and which is too
# small to pass spec/'s own schemas): prints, per file, check.py's problems in it.
CHECK_VERDICTS = r'''
import json, os, sys, tempfile
source, registry, files = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, os.path.join(source, "spec", "tools"))
import check
st = json.load(open(os.path.join(registry, "statements.json")))
fe = json.load(open(os.path.join(registry, "features.json")))
# The index check.py builds from spec/statements.json and features.json.
by_id = {s["id"]: (i, dict(s, features=[f["name"] for f in fe["features"]
                                        if s["id"] in f["statements"]]))
         for i, s in enumerate(st["statements"])}
index = {"by_id": by_id, "retired": {r: i for i, r in enumerate(st.get("retired", []))},
         "features": {f["name"]: f for f in fe["features"]}}
root = tempfile.mkdtemp(prefix="devspec-check-")
os.makedirs(os.path.join(root, "conformance", "cases"))
checker = check.Checker(source)
schema = checker.load_schema("spec/schema/case.json")
checker.root = root
out = []
for path in files:
    rel = "conformance/cases/" + os.path.basename(path)
    with open(path, "rb") as f, open(os.path.join(root, rel), "wb") as g:
        g.write(f.read())
    checker.problems = []
    checker.check_cases(schema, index, fe)
    out.append([str(p) for p in checker.problems if p.file == rel])
    os.unlink(os.path.join(root, rel))
os.rmdir(os.path.join(root, "conformance", "cases"))
os.rmdir(os.path.join(root, "conformance"))
os.rmdir(root)
print(json.dumps(out))
'''

INVALID = os.path.join(HERE, "invalid")
# (name, path or None for a mutation, what both must say: True valid, False invalid, None
# either)
FILES: list[tuple[str, str | None, bool | None]] = [
    *[(f"invalid/{f}", os.path.join(INVALID, f), False) for f in sorted(os.listdir(INVALID))
      if f.endswith(".json")],
    *[(f"cases/{f}", os.path.join(CASES, f), True) for f in sorted(os.listdir(CASES))
      if f.endswith(".json")],
    *[(f"mutation {name}", None, None) for name, _ in mutations(schema_ops(SOURCE))]]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory,
             request: pytest.FixtureRequest) -> dict[str, tuple[str, list[str]]]:
    """Each file of FILES: its path, and check.py's problems in it (the mutations written to
    a folder of their own)."""
    d = str(tmp_path_factory.mktemp("mutations"))
    muts = dict(mutations(schema_ops(SOURCE)))
    paths = []
    for i, (name, path, _) in enumerate(FILES):
        if path is None:
            path = os.path.join(d, f"mutation-{i}.json")
            with open(path, "w") as f:
                json.dump(muts[name[len("mutation "):]], f)
        paths.append(path)
    source = str(request.config.getoption("--source"))
    p = subprocess.run([sys.executable, "-c", CHECK_VERDICTS, source, TEST_SPEC, *paths],
                       capture_output=True, text=True)
    assert p.returncode == 0, why("spec/tools/check.py judged the files", 0, p.stderr[-2000:])
    problems = json.loads(p.stdout)
    assert len(problems) == len(FILES), why(
        "check.py judged every file", len(FILES), len(problems))
    return {name: (path, found)
            for (name, _, _), path, found in zip(FILES, paths, problems, strict=True)}


def said(ok: bool | None) -> str:
    return "valid" if ok else "invalid"


@pytest.mark.parametrize(("name", "want"), [(f[0], f[2]) for f in FILES],
                         ids=[f[0] for f in FILES])
def test_validators_agree(env: Env, verdicts: dict[str, tuple[str, list[str]]], name: str,
                          want: bool | None) -> None:
    path, found = verdicts[name]
    rc, _, err = env.run(["validate", "--cases", path])
    loader_ok, check_ok = rc == 0, not found
    assert rc in (0, 2) and loader_ok == check_ok and (want is None or loader_ok == want), why(
        f"{name}: the loader and check.py both say {said(check_ok if want is None else want)}",
        f"both {said(want) if want is not None else 'the same'}",
        f"loader: {said(loader_ok)} (exit {rc}) {err.strip()[:300]}; check.py: {found[:3]}")


def test_informative_alone(env: Env) -> None:
    """A case that cites an informative statement alone is valid (both validators say so
    above, cases/informative.json), runs, and counts for no profile."""
    rep = env.path("informative.json")
    rc, _, _ = env.run(["run", "--cases", os.path.join(CASES, "informative.json"),
                        "--adapter-cmd", fake_cmd(), "--report", rep])
    r = load_report(rep)
    assert (
        rc == 0 and statuses(r) == {"informative.alone": "pass"} and
        all(p["cases"] + p["optional"]["cases"] == 0 for p in r["footer"]["profiles"].values())
    ), why(
        "a case citing an informative statement alone runs and counts for no profile",
        "pass, 0 cases in every profile", (rc, statuses(r), r["footer"]["profiles"]))
