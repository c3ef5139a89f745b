"""Tests for spec/tools/check.py: a valid tree passes, and each rule fires on a deliberately
bad input with the right file, JSON pointer and rule name."""

import json
import os
import re
import shutil
import subprocess
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
import gen_ops  # noqa: E402
import gen_statements  # noqa: E402

# A case file written for these tests (the real case files belong to the suite and change).
SAMPLE_CASES = {
    "description": "Sample cases for the check's tests.",
    "cases": [
        {
            "id": "sample.zeros.explicit-device",
            "description": "zeros(device=D1) creates the array on D1.",
            "spec": ["DEV-DS-9", "DEV-CREATE-1"],
            "features": ["creation-device-kw"],
            "devices": 2,
            "steps": [
                {"op": "array.create", "args": {"fn": "zeros", "shape": [3], "device": "$D1"},
                 "as": "x"},
                {"op": "array.describe", "args": {"array": "$x"},
                 "expect": {"device": "$D1", "dtype": "float64", "shape": [3]}},
            ],
        },
        {
            "id": "sample.parse.literal-dollar",
            "description": "A string starting with $ is passed with $$ and rejected as a device.",
            "spec": ["DRAFT-STR-9"],
            "features": ["device-string"],
            "steps": [
                {"op": "device.parse", "args": {"text": "$$gpu"}, "raises": "ValueError"},
                {"op": "device.parse", "args": {"text": "gpu:0"},
                 "either": [{"expect": "$D0"}, {"raises": "ValueError"}]},
            ],
        },
    ],
}

# The example case file of the project's design document. Its second case has no
# description, which spec/case-format.md requires; with one added it must validate.
DESIGN_EXAMPLE = {
    "description": "Creation functions place arrays where device= says.",
    "cases": [
        {
            "id": "creation.zeros.explicit-device",
            "description": "zeros(device=D1) creates the array on D1.",
            "spec": ["DEV-DS-9", "DEV-CREATE-1"],
            "features": ["creation-device-kw"],
            "steps": [
                {"op": "array.create", "args": {"fn": "zeros", "shape": [3], "device": "$D1"},
                 "as": "x"},
                {"op": "array.describe", "args": {"array": "$x"},
                 "expect": {"device": "$D1", "dtype": "float64", "shape": [3]}},
            ],
        },
        {
            "id": "device-string.parse.uppercase-rejected",
            "spec": ["DRAFT-STR-1"],
            "features": ["device-string"],
            "steps": [{"op": "device.parse", "args": {"text": "GPU:0"}, "raises": "ValueError"}],
        },
    ],
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the real spec/ with a sample case file instead of the suite's cases."""
    shutil.copytree(os.path.join(REPO, "spec"), tmp_path / "spec",
                    ignore=shutil.ignore_patterns("tools", "*.md"))
    for name in ("protocol.md", "statements.md"):
        shutil.copy(os.path.join(REPO, "spec", name), tmp_path / "spec" / name)
    (tmp_path / "adapters").mkdir()
    shutil.copy(os.path.join(REPO, "adapters", "adapters.json"), tmp_path / "adapters")
    (tmp_path / "conformance" / "cases").mkdir(parents=True)
    write(tmp_path, "conformance/cases/sample.json", SAMPLE_CASES)
    return tmp_path


def read(root: str | Path, rel: str) -> Any:
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return json.load(f)


def write(root: str | Path, rel: str, data: Any) -> None:
    with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)


def edit(root: str | Path, rel: str, fn: Callable[[Any], object]) -> None:
    data = read(root, rel)
    fn(data)
    write(root, rel, data)


def problems(root: str | Path) -> list[tuple[str, str, str]]:
    return [(p.file, p.pointer, p.rule) for p in check.Checker(str(root)).run()]


def find(data: list[Any], key: str, value: object) -> int:
    """Index of the item whose key equals value."""
    return next(i for i, x in enumerate(data) if x[key] == value)


def stmt(root: Path, sid: str) -> int:
    return find(read(root, "spec/statements.json")["statements"], "id", sid)


def feat(root: Path, name: str) -> int:
    return find(read(root, "spec/features.json")["features"], "name", name)


# ---- valid inputs ---------------------------------------------------------------------------

def test_valid_tree_passes(root: Path) -> None:
    assert problems(root) == []


def test_case_format_example_validates(root: Path) -> None:
    with open(os.path.join(REPO, "spec", "case-format.md"), encoding="utf-8") as f:
        m = re.search(r"```json\n(.*?)```", f.read(), re.S)
    assert m is not None, "spec/case-format.md has no JSON example"
    block = m.group(1)
    (root / "conformance/cases/example.json").write_text(
        block.replace("creation.zeros.explicit-device", "format.zeros.explicit-device"))
    assert problems(root) == []


def test_design_example_validates(root: Path) -> None:
    # DESIGN.md's example file (its second case has no description, which is optional).
    write(root, "conformance/cases/design.json", DESIGN_EXAMPLE)
    assert problems(root) == []


def test_case_without_required_field_is_rejected(root: Path) -> None:
    broken = json.loads(json.dumps(DESIGN_EXAMPLE))
    del broken["cases"][1]["spec"]
    write(root, "conformance/cases/design.json", broken)
    assert ("conformance/cases/design.json", "/cases/1", "schema:required") in problems(root)


def test_real_repository_spec_files_pass(tmp_path: Path) -> None:
    # The real spec/ (without the suite's case files, which have their own owner).
    shutil.copytree(os.path.join(REPO, "spec"), tmp_path / "spec")
    (tmp_path / "adapters").mkdir()
    shutil.copy(os.path.join(REPO, "adapters", "adapters.json"), tmp_path / "adapters")
    assert problems(tmp_path) == []


# ---- JSON syntax ------------------------------------------------------------------------------

def test_json_syntax_error_names_line(root: Path) -> None:
    (root / "spec/features.json").write_text('{"features": [\n  {"name": }\n]}\n')
    ps = check.Checker(str(root)).run()
    bad = [p for p in ps if p.file == "spec/features.json"]
    assert [(p.pointer, p.rule) for p in bad] == [("", "json-syntax")]
    assert "line 2" in bad[0].message


def test_duplicate_key_is_rejected(root: Path) -> None:
    (root / "conformance/cases/dup.json").write_text(
        '{"description": "a", "description": "b", "cases": []}')
    assert ("conformance/cases/dup.json", "", "json-duplicate-key") in problems(root)


def test_nan_literal_is_rejected(root: Path) -> None:
    (root / "conformance/cases/nan.json").write_text(
        json.dumps(SAMPLE_CASES).replace('"devices": 2', '"devices": NaN'))
    assert ("conformance/cases/nan.json", "", "json-syntax") in problems(root)


# ---- spec/statements.json -------------------------------------------------------------------

def test_bad_level_is_a_schema_error(root: Path) -> None:
    i = stmt(root, "DEV-DS-4")
    edit(root, "spec/statements.json", lambda d: d["statements"][i].update(level="mandatory"))
    assert ("spec/statements.json", "/statements/%d/level" % i, "schema:enum") in problems(root)


def test_duplicate_statement_id(root: Path) -> None:
    i = stmt(root, "DEV-DS-5")
    edit(root, "spec/statements.json", lambda d: d["statements"][i].update(id="DEV-DS-4"))
    assert ("spec/statements.json", "/statements/%d/id" % i,
            "statement-id-unique") in problems(root)


def test_retired_id_never_reused(root: Path) -> None:
    i = stmt(root, "DEV-DS-4")
    edit(root, "spec/statements.json",
         lambda d: d["retired"].append({"id": "DEV-DS-4", "reason": "test"}))
    assert ("spec/statements.json", "/statements/%d/id" % i, "retired-id-reused") in problems(root)


def test_unknown_topic_and_document(root: Path) -> None:
    i = stmt(root, "DEV-DS-4")

    def change(d: Any) -> None:
        d["statements"][i]["topic"] = "nowhere"
        d["statements"][i]["source"]["document"] = "no-such-document"
    edit(root, "spec/statements.json", change)
    ps = problems(root)
    assert ("spec/statements.json", "/statements/%d/topic" % i, "statement-topic-known") in ps
    assert ("spec/statements.json", "/statements/%d/source/document" % i,
            "statement-document-known") in ps


def test_versions_must_start_at_introduction_and_have_no_gaps(root: Path) -> None:
    i, j = stmt(root, "DEV-DS-4"), stmt(root, "DEV-DS-5")

    def change(d: Any) -> None:
        d["statements"][i]["versions"] = ["2022.12", "2023.12"]
        d["statements"][j]["versions"] = ["2021.12", "2023.12", "2024.12", "2025.12", "draft"]
    edit(root, "spec/statements.json", change)
    ps = problems(root)
    assert ("spec/statements.json", "/statements/%d/versions/0" % i,
            "statement-introduced-first") in ps
    assert ("spec/statements.json", "/statements/%d/versions" % j, "statement-versions-span") in ps


def test_unknown_version(root: Path) -> None:
    i = stmt(root, "DEV-DS-4")
    edit(root, "spec/statements.json",
         lambda d: d["statements"][i].update(versions=["2021.12", "2099.12"]))
    assert ("spec/statements.json", "/statements/%d/versions/1" % i,
            "statement-version-known") in problems(root)


def test_removed_statement_must_stop_before_removal(root: Path) -> None:
    i = stmt(root, "DEV-DS-14a")
    edit(root, "spec/statements.json",
         lambda d: d["statements"][i]["versions"].append("2025.12"))
    assert ("spec/statements.json", "/statements/%d/versions" % i,
            "statement-versions-span") in problems(root)


def test_levels_by_version(root: Path) -> None:
    i = stmt(root, "DEV-INFO-8")
    edit(root, "spec/statements.json",
         lambda d: d["statements"][i].update(levels={"2021.12": "should", "2025.12": "must"}))
    ps = problems(root)
    assert ("spec/statements.json", "/statements/%d/levels/2021.12" % i, "statement-levels") in ps
    assert ("spec/statements.json", "/statements/%d/levels/2025.12" % i, "statement-levels") in ps
    row = next(line for line in (root / "spec/statements.md").read_text().splitlines()
               if line.startswith("| DEV-INFO-8 |"))
    assert "| must (should in 2023.12, 2024.12) |" in row


def test_backreference_must_match_features(root: Path) -> None:
    i = stmt(root, "DEV-DS-6")
    edit(root, "spec/statements.json", lambda d: d["statements"][i].update(features=["device-eq"]))
    ps = problems(root)
    assert ("spec/statements.json", "/statements/%d/features/0" % i,
            "statement-feature-backref") in ps
    assert ("spec/statements.json", "/statements/%d/features" % i,
            "statement-feature-backref") in ps


def test_checked_statement_without_feature(root: Path) -> None:
    i = stmt(root, "DEV-CREATE-8")
    f = feat(root, "output-follows-input")
    edit(root, "spec/features.json",
         lambda d: d["features"][f]["statements"].remove("DEV-CREATE-8"))
    edit(root, "spec/statements.json", lambda d: d["statements"][i].update(features=[]))
    assert ("spec/statements.json", "/statements/%d" % i, "statement-unassigned") in problems(root)


# ---- spec/features.json -----------------------------------------------------------------------

def test_feature_names_missing_statement(root: Path) -> None:
    f = feat(root, "device-eq")
    edit(root, "spec/features.json", lambda d: d["features"][f]["statements"].append("DEV-NOPE-1"))
    assert ("spec/features.json", "/features/%d/statements/1" % f,
            "feature-statement-exists") in problems(root)


def test_feature_names_retired_statement(root: Path) -> None:
    f = feat(root, "device-eq")
    edit(root, "spec/statements.json",
         lambda d: d["retired"].append({"id": "DEV-OLD-1", "reason": "test"}))
    edit(root, "spec/features.json", lambda d: d["features"][f]["statements"].append("DEV-OLD-1"))
    assert ("spec/features.json", "/features/%d/statements/1" % f,
            "feature-statement-retired") in problems(root)


def test_feature_duplicate_statement_is_a_schema_error(root: Path) -> None:
    f = feat(root, "device-eq")
    edit(root, "spec/features.json", lambda d: d["features"][f]["statements"].append("DEV-DS-4"))
    assert ("spec/features.json", "/features/%d/statements" % f,
            "schema:uniqueItems") in problems(root)


def test_feature_missing_field(root: Path) -> None:
    f = feat(root, "device-eq")
    edit(root, "spec/features.json", lambda d: d["features"][f].pop("optional"))
    assert ("spec/features.json", "/features/%d" % f, "schema:required") in problems(root)


def test_feature_version_without_statement(root: Path) -> None:
    f = feat(root, "scalar-follows-array")
    edit(root, "spec/features.json", lambda d: d["features"][f]["versions"].insert(0, "2024.12"))
    assert ("spec/features.json", "/features/%d/versions/0" % f,
            "feature-versions") in problems(root)


def test_duplicate_feature_name(root: Path) -> None:
    f = feat(root, "device-eq")
    edit(root, "spec/features.json", lambda d: d["features"][f].update(name="device-attr"))
    assert ("spec/features.json", "/features/%d/name" % f, "feature-name-unique") in problems(root)


# ---- spec/profiles.json -----------------------------------------------------------------------

def prof(root: Path, name: str) -> int:
    return find(read(root, "spec/profiles.json")["profiles"], "name", name)


def test_profile_unknown_feature(root: Path) -> None:
    p = prof(root, "ivy-device")
    edit(root, "spec/profiles.json", lambda d: d["profiles"][p]["required"].append("teleport"))
    n = len(read(root, "spec/profiles.json")["profiles"][p]["required"]) - 1
    assert ("spec/profiles.json", "/profiles/%d/required/%d" % (p, n),
            "profile-feature-exists") in problems(root)


def test_profile_feature_of_another_version(root: Path) -> None:
    p = prof(root, "array-api-2021.12")
    edit(root, "spec/profiles.json", lambda d: d["profiles"][p]["required"].append("astype-device"))
    n = len(read(root, "spec/profiles.json")["profiles"][p]["required"]) - 1
    assert ("spec/profiles.json", "/profiles/%d/required/%d" % (p, n),
            "profile-feature-version") in problems(root)


def test_profile_feature_without_statement_of_its_document(root: Path) -> None:
    p = prof(root, "draft-device-syntax")
    at: list[int] = []

    def add(d: Any) -> None:
        at.append(len(d["profiles"][p]["optional"]))
        d["profiles"][p]["optional"].append("sharding")
    edit(root, "spec/profiles.json", add)
    assert ("spec/profiles.json", "/profiles/%d/optional/%d" % (p, at[0]),
            "profile-feature-applies") in problems(root)


def test_function_family_may_be_optional_in_any_profile(root: Path) -> None:
    """A draft's cases call the standard's functions to check its rules: a functions-* feature
    is no problem as an optional feature of its profile, but still one as a required one."""
    p = prof(root, "draft-device-syntax")
    at: list[int] = []

    def add(d: Any) -> None:
        at.append(len(d["profiles"][p]["required"]))
        d["profiles"][p]["required"].append("functions-set")
        d["profiles"][p]["optional"].append("functions-sorting")
    edit(root, "spec/profiles.json", add)
    ps = [x for x in problems(root) if x[2] == "profile-feature-applies"]
    assert ps == [("spec/profiles.json", "/profiles/%d/required/%d" % (p, at[0]),
                   "profile-feature-applies")], ps


def test_profile_unknown_document_and_version(root: Path) -> None:
    p, q = prof(root, "ivy-device"), prof(root, "array-api-2023.12")

    def change(d: Any) -> None:
        d["profiles"][p]["document"] = "ivy-handbook"
        d["profiles"][q]["version"] = "2023.06"
    edit(root, "spec/profiles.json", change)
    ps = problems(root)
    assert ("spec/profiles.json", "/profiles/%d/document" % p, "profile-document-known") in ps
    assert ("spec/profiles.json", "/profiles/%d/version" % q, "profile-version-known") in ps


def test_array_api_profile_must_list_every_feature_of_its_version(root: Path) -> None:
    p = prof(root, "array-api-2023.12")
    edit(root, "spec/profiles.json", lambda d: d["profiles"][p]["required"].remove("info-devices"))
    edit(root, "spec/profiles.json", lambda d: d["profiles"][p]["optional"].remove("dlpack-device"))
    ps = problems(root)
    assert ("spec/profiles.json", "/profiles/%d/required" % p, "profile-array-api-features") in ps
    assert ("spec/profiles.json", "/profiles/%d/optional" % p, "profile-array-api-features") in ps


def test_profile_feature_both_required_and_optional(root: Path) -> None:
    p = prof(root, "array-api-2021.12")
    edit(root, "spec/profiles.json", lambda d: d["profiles"][p]["optional"].append("device-attr"))
    n = len(read(root, "spec/profiles.json")["profiles"][p]["optional"]) - 1
    assert ("spec/profiles.json", "/profiles/%d/optional/%d" % (p, n),
            "profile-feature-twice") in problems(root)


# ---- other files in spec/ -----------------------------------------------------------------

def test_unknown_json_file_in_spec(root: Path) -> None:
    write(root, "spec/extra.json", {})
    assert ("spec/extra.json", "", "file-unknown") in problems(root)


def test_invalid_schema_in_schema_folder(root: Path) -> None:
    write(root, "spec/schema/report.json",
          {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": 5})
    assert ("spec/schema/report.json", "/type", "schema-invalid") in problems(root)


def test_schema_must_be_draft_2020_12(root: Path) -> None:
    write(root, "spec/schema/reply.json", {"$schema": "http://json-schema.org/draft-07/schema#"})
    assert ("spec/schema/reply.json", "/$schema", "schema-draft") in problems(root)


def test_schema_with_dangling_reference_is_reported_not_a_crash(root: Path) -> None:
    edit(root, "spec/schema/case.json",
         lambda d: d["$defs"]["case"]["properties"]["steps"]["items"].update(
             {"$ref": "#/$defs/nowhere"}))
    ps = problems(root)
    assert ("spec/schema/case.json", "", "schema-unusable") in ps


def test_case_ops_must_be_generated_from_ops_json(root: Path) -> None:
    def change(d: Any) -> None:
        d["$defs"]["op"]["enum"].remove("array.read")
        d["$defs"]["op"]["enum"].append("array.teleport")
    edit(root, "spec/schema/case.json", change)
    assert problems(root) == [("spec/schema/case.json", "", "generated-stale")]


def test_protocol_table_edited_by_hand_is_stale(root: Path) -> None:
    path = os.path.join(root, "spec", "protocol.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("| `array.read` |", "| `array.fetch` |"))
    assert problems(root) == [("spec/protocol.md", "", "generated-stale")]


def test_new_op_in_ops_json_makes_every_spec_part_stale_until_generated(root: Path) -> None:
    def change(d: Any) -> None:
        d["ops"].append({"name": "array.flip", "group": "array", "result": "array handle",
                         "args": [{"name": "x", "required": True,
                                   "schema": {"$ref": "#/$defs/arrayHandle"}}]})
    edit(root, "spec/ops.json", change)
    assert sorted(problems(root)) == [("spec/protocol.md", "", "generated-stale"),
                                      ("spec/schema/case.json", "", "generated-stale"),
                                      ("spec/schema/request.json", "", "generated-stale")]
    assert sorted(gen_ops.write(str(root), gen_ops.SPEC_TARGETS)) == sorted(gen_ops.SPEC_TARGETS)
    assert problems(root) == []
    assert "array.flip" in read(root, "spec/schema/case.json")["$defs"]["op"]["enum"]
    with open(os.path.join(root, "spec", "protocol.md"), encoding="utf-8") as f:
        assert "| `array.flip` | `x` | array handle |" in f.read()
    flip = [c["then"]["properties"]["args"] for c in read(root, "spec/schema/request.json")["allOf"]
            if c["if"]["properties"]["op"]["const"] == "array.flip"]
    assert flip == [{"type": "object", "additionalProperties": False, "required": ["x"],
                     "properties": {"x": {"$ref": "#/$defs/arrayHandle"}}}]


def test_ops_json_schema_and_consistency(root: Path) -> None:
    edit(root, "spec/ops.json", lambda d: d["ops"][3].update(group="teleport"))
    assert problems(root) == [("spec/ops.json", "/ops/3/group", "schema:enum")]
    edit(root, "spec/ops.json", lambda d: d["ops"][3].update(group="device"))
    edit(root, "spec/ops.json", lambda d: d["ops"].append(dict(d["ops"][3])))
    assert problems(root) == [("spec/ops.json", "", "ops-unusable")]


def test_ops_markers_missing_is_reported(root: Path) -> None:
    path = os.path.join(root, "spec", "protocol.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(re.sub(r"<!-- ops util: end -->", "", text))
    ps = check.Checker(str(root)).run()
    assert [(p.file, p.rule) for p in ps] == [("spec/ops.json", "ops-unusable")]
    assert "util" in ps[0].message


def test_generated_files_of_the_repository_are_current() -> None:
    assert gen_ops.stale(REPO, gen_ops.SPEC_TARGETS + gen_ops.CODE_TARGETS) == []


# ---- case files ---------------------------------------------------------------------------------

def case_problems(root: Path, mutate: Callable[[Any], object],
                  name: str = "sample.json") -> list[tuple[str, str, str]]:
    data = json.loads(json.dumps(SAMPLE_CASES))
    mutate(data)
    write(root, "conformance/cases/" + name, data)
    return problems(root)


F = "conformance/cases/sample.json"


def test_case_schema_rules(root: Path) -> None:
    def change(d: Any) -> None:
        c = d["cases"][0]
        c["steps"][1]["raises"] = "any"           # expect and raises together
        c["steps"][0]["as"] = "D1"                # reserved binding name
        c["steps"][0]["op"] = "hello"             # session op
        c["id"] = "Sample.Bad"                    # id pattern
        d["cases"][1]["steps"][1]["either"] = [{"expect": 1, "raises": "ValueError"}]
        d["cases"][1]["comment"] = "not allowed"  # unknown key
    ps = case_problems(root, change)
    assert (F, "/cases/0/steps/1", "schema:not") in ps
    assert (F, "/cases/0/steps/0/as", "schema:pattern") in ps
    assert (F, "/cases/0/steps/0/op", "schema:enum") in ps
    assert (F, "/cases/0/id", "schema:pattern") in ps
    assert (F, "/cases/1/steps/1/either/0", "schema:oneOf") in ps
    assert (F, "/cases/1", "schema:additionalProperties") in ps


def test_case_empty_lists(root: Path) -> None:
    def change(d: Any) -> None:
        d["cases"][0]["spec"] = []
        d["cases"][0]["steps"] = []
        d["cases"][1]["devices"] = 0
    ps = case_problems(root, change)
    assert (F, "/cases/0/spec", "schema:minItems") in ps
    assert (F, "/cases/0/steps", "schema:minItems") in ps
    assert (F, "/cases/1/devices", "schema:minimum") in ps


def test_case_ids_unique_across_files(root: Path) -> None:
    write(root, "conformance/cases/zz-other.json", SAMPLE_CASES)
    ps = check.Checker(str(root)).run()
    dup = [p for p in ps if p.rule == "case-id-unique"]
    assert [(p.file, p.pointer) for p in dup] == [
        ("conformance/cases/zz-other.json", "/cases/0/id"),
        ("conformance/cases/zz-other.json", "/cases/1/id")]
    assert "conformance/cases/sample.json" in dup[0].message


def test_case_references_must_exist(root: Path) -> None:
    def change(d: Any) -> None:
        d["cases"][0]["spec"].append("DEV-NOPE-9")
        d["cases"][0]["features"].append("teleport")
        d["cases"][1]["spec"].append("DEV-DS-1")   # informative
    ps = case_problems(root, change)
    assert (F, "/cases/0/spec/2", "case-statement-exists") in ps
    assert (F, "/cases/0/features/1", "case-feature-exists") in ps
    assert (F, "/cases/1/spec/1", "case-statement-level") in ps


def test_case_cites_retired_statement(root: Path) -> None:
    edit(root, "spec/statements.json",
         lambda d: d["retired"].append({"id": "DEV-OLD-2", "reason": "test"}))
    ps = case_problems(root, lambda d: d["cases"][0]["spec"].append("DEV-OLD-2"))
    assert (F, "/cases/0/spec/2", "case-statement-retired") in ps


def test_case_bindings(root: Path) -> None:
    def change(d: Any) -> None:
        s = d["cases"][0]["steps"]
        s[1]["args"]["array"] = "$y"                       # never bound
        s[1]["expect"]["device"] = "$D3"                   # needs 4 devices, case says 2
        s[0]["args"]["shape"] = ["$Bad"]                   # not a valid name
    ps = case_problems(root, change)
    assert (F, "/cases/0/steps/1/args/array", "case-unbound-reference") in ps
    assert (F, "/cases/0/steps/0/args/shape/0", "case-bad-reference") in ps
    assert (F, "/cases/0/devices", "case-devices-too-few") in ps


def test_case_binding_used_before_it_is_made(root: Path) -> None:
    def change(d: Any) -> None:
        s = d["cases"][0]["steps"]
        s[0], s[1] = s[1], s[0]
    assert (F, "/cases/0/steps/0/args/array",
            "case-unbound-reference") in case_problems(root, change)


def test_case_matchers_and_stop_validate(root: Path) -> None:
    """Matchers and "stop" (spec/case-format.md) in a valid case: no problem."""
    def change(d: Any) -> None:
        s = d["cases"][1]["steps"]
        s.append({"op": "info.devices", "expect": {"$len_min": 1}})
        s.append({"op": "info.devices", "expect": {"$contains": "$D0"}})
        s.append({"op": "info.devices", "expect": [{"$type": "string"}]})
        s.append({"op": "util.utilisation", "args": {"device": "$D0"},
                  "either": [{"expect": {"$range": [0, 100]}}, {"raises": "NotImplementedError"}]})
        s.append({"op": "util.num_cpu_cores", "expect": {"$range": [1, None]}})
        s.append({"op": "info.default_dtypes", "expect": {"$$literal": {"$type": "int"}}})
        s.append({"op": "device.parse", "args": {"text": "gpu:0"},
                  "either": [{"raises": "ValueError", "stop": True},
                             {"expect": {"$type": "string"}}]})
        d["cases"][1]["features"] += ["info-devices", "device-utils", "info-dtypes"]
    assert case_problems(root, change) == []


def test_case_features_derived_from_steps(root: Path) -> None:
    """A step's op uses features (spec/step-features.json): a case that does not name them is
    a problem (spec/tools/case_features.py)."""
    def change(d: Any) -> None:
        d["cases"][1]["steps"].append({"op": "util.num_gpus"})
    assert case_problems(root, change) == [(F, "/cases/1/features", "case-features-derived")]


def test_case_version_derived_from_steps(root: Path) -> None:
    """A case declaring 2024.12 (it cites API-FN-4) whose step calls isin, of 2025.12, is a
    problem at that step (spec/tools/case_versions.py); citing API-FN-5 passes."""
    isin = {"op": "call", "args": {"fn": "isin", "args": ["$x", "$x"]}}

    def change(d: Any) -> None:
        d["cases"][0]["spec"].append("API-FN-4")
        d["cases"][0]["features"].append("functions-set")
        d["cases"][0]["steps"].append(isin)
    assert case_problems(root, change) == [(F, "/cases/0/steps/2", "case-version-derived")]
    message = next(p.message for p in check.Checker(str(root)).run())
    assert "sample.zeros.explicit-device" in message and "isin()" in message
    assert "of 2025.12" in message and "declares 2024.12" in message

    def fixed(d: Any) -> None:
        change(d)
        d["cases"][0]["spec"].append("API-FN-5")
    assert case_problems(root, fixed) == []


def test_case_matcher_schema_rules(root: Path) -> None:
    def change(d: Any) -> None:
        s = d["cases"][1]["steps"]
        s.append({"op": "info.devices", "expect": {"$len_min": -1}})                 # 2
        s.append({"op": "info.devices", "expect": {"$nope": 1}})                     # 3
        s.append({"op": "info.devices", "expect": {"$type": "list", "n": 1}})        # 4
        s.append({"op": "util.num_gpus", "expect": {"$range": [0]}})                 # 5
        s.append({"op": "util.num_gpus", "expect": {"$type": "float"}})              # 6
        s.append({"op": "array.read", "args": {"array": "$D0"},                      # 7
                  "expect": {"dtype": "int8", "shape": [1], "data": [{"$type": "int"}]}})
        s.append({"op": "util.num_gpus", "either": [{"expect": 1, "stop": "yes"}]})  # 8
        s.append({"op": "util.num_gpus", "expect": 1, "stop": True})                 # 9
    ps = case_problems(root, change)
    assert (F, "/cases/1/steps/2/expect/$len_min", "schema:minimum") in ps
    assert (F, "/cases/1/steps/3/expect", "schema:additionalProperties") in ps   # unknown matcher
    # a matcher beside a key
    assert (F, "/cases/1/steps/4/expect", "schema:maxProperties") in ps
    assert (F, "/cases/1/steps/5/expect/$range", "schema:minItems") in ps
    assert (F, "/cases/1/steps/6/expect/$type", "schema:enum") in ps
    assert (F, "/cases/1/steps/7/expect/data/0", "schema:not") in ps  # inside a typed array
    assert (F, "/cases/1/steps/8/either/0", "schema:oneOf") in ps  # stop not a boolean
    assert (F, "/cases/1/steps/9", "schema:additionalProperties") in ps           # stop on a step
    assert not any(p[1].startswith("/cases/0") or p[1].startswith("/cases/1/steps/1")
                   for p in ps), ps


def test_case_range_must_not_be_empty(root: Path) -> None:
    def change(d: Any) -> None:
        s = d["cases"][1]["steps"]
        s.append({"op": "util.num_gpus", "expect": {"$range": [100, 0]}})
        s.append({"op": "util.num_gpus", "either": [{"raises": "any"},
                                                     {"expect": {"$contains": {"$range": [2,
                                                                                          1.5]}}}]})
        s.append({"op": "util.num_gpus", "expect": {"$range": [1, 1]}})          # one value: fine
        s.append({"op": "util.num_gpus", "expect": {"$range": [None, -5]}})      # open: fine
        d["cases"][1]["features"].append("device-utils")
    ps = case_problems(root, change)
    assert [p for p in ps if p[2] == "case-range-empty"] == [
        (F, "/cases/1/steps/2/expect/$range", "case-range-empty"),
        (F, "/cases/1/steps/3/either/1/expect/$contains/$range", "case-range-empty")]
    assert len(ps) == 2, ps


def test_case_step_args_must_be_the_ops(root: Path) -> None:
    def change(d: Any) -> None:
        s = d["cases"][0]["steps"]
        s[1]["args"]["arrray"] = "$x"                                   # not an argument of the op
        s.append({"op": "array.describe"})                              # its argument is missing
        s.append({"op": "util.num_gpus", "args": {"device": "$D0"}})    # takes none
    ps = case_problems(root, change)
    assert [(f, p) for f, p, _ in ps] == [(F, "/cases/0/steps/1/args"), (F, "/cases/0/steps/2"),
                                          (F, "/cases/0/steps/3/args")], ps


def test_case_binding_by_a_step_that_may_raise(root: Path) -> None:
    def change(d: Any) -> None:
        s = d["cases"][1]["steps"]
        s[1]["as"] = "d"                                            # either: raises, no stop
        s.append({"op": "device.parse", "args": {"text": "x"}, "raises": "any", "as": "e"})
        s.append({"op": "device.parse", "args": {"text": "gpu:1"}, "as": "f",      # stops: fine
                  "either": [{"expect": {"$type": "string"}},
                             {"raises": "ValueError", "stop": True}]})
        s.append({"op": "device.describe", "args": {"device": "$f"}})
    ps = case_problems(root, change)
    assert ps == [(F, "/cases/1/steps/1/as", "case-binding-may-raise"),
                  (F, "/cases/1/steps/2/as", "case-binding-may-raise")], ps


def test_case_statement_outside_claimed_features_is_a_warning(root: Path) -> None:
    data = json.loads(json.dumps(SAMPLE_CASES))
    data["cases"][1]["spec"].append("DEV-DS-11")
    write(root, F, data)
    c = check.Checker(str(root))
    assert c.run() == []
    assert [(w.file, w.pointer, w.rule) for w in c.warnings] == [
        (F, "/cases/1/spec/1", "case-statement-feature")]


# ---- the generated view and the command line ---------------------------------------------------

def test_stale_markdown_and_write(root: Path) -> None:
    i = stmt(root, "DEV-DS-4")
    edit(root, "spec/statements.json",
         lambda d: d["statements"][i].update(
             text="Arrays have a device property (reworded for a test)."))
    assert ("spec/statements.md", "", "generated-stale") in problems(root)
    assert gen_statements.main(["--root", str(root), "--check"]) == 1
    assert gen_statements.main(["--root", str(root)]) == 0
    assert gen_statements.main(["--root", str(root), "--check"]) == 0
    assert problems(root) == []
    assert "reworded for a test" in (root / "spec/statements.md").read_text()
    assert not [n for n in os.listdir(root / "spec") if n.startswith(".statements.md.")]


def test_markdown_lists_level_versions_and_features(root: Path) -> None:
    text = (root / "spec/statements.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| DEV-DS-14a |"))
    assert "| should | 2021.12 – 2024.12 | `priority-context-first` |" in row
    assert "removed in 2025.12" in row


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, os.path.join(TOOLS, "check.py"), *list(args)],
                          capture_output=True, text=True)


def test_cli_exit_status(root: Path, tmp_path: Path) -> None:
    ok = run_cli("--root", str(root))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    edit(root, "spec/features.json", lambda d: d["features"][0]["statements"].append("DEV-NOPE-1"))
    bad = run_cli("--root", str(root))
    assert bad.returncode == 1
    assert "spec/features.json: /features/0/statements/" in bad.stdout
    assert ": feature-statement-exists: " in bad.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("--root", str(empty)).returncode == 2


def test_cli_strict_turns_warnings_into_failures(root: Path) -> None:
    data = json.loads(json.dumps(SAMPLE_CASES))
    data["cases"][1]["spec"].append("DEV-DS-11")
    write(root, F, data)
    assert run_cli("--root", str(root)).returncode == 0
    strict = run_cli("--root", str(root), "--strict")
    assert strict.returncode == 1
    assert "case-statement-feature" in strict.stdout


# ---- promotion rule sets (spec/promotion/) ---------------------------------------------------

def test_promotion_table_must_be_symmetric(root: Path) -> None:
    edit(root, "spec/promotion/array-api.json",
         lambda d: d["table"]["int8"].update({"int16": "int32"}))
    got = problems(root)
    assert ("spec/promotion/array-api.json", "/table/int8/int16", "table-symmetric") in got


def test_promotion_identity_and_known_dtypes(root: Path) -> None:
    def change(d: Any) -> None:
        d["table"]["int8"]["int8"] = "int16"
        d["table"]["int16"]["int32"] = d["table"]["int32"]["int16"] = "int24"
    edit(root, "spec/promotion/array-api.json", change)
    got = problems(root)
    assert ("spec/promotion/array-api.json", "/table/int8/int8", "table-identity") in got
    assert ("spec/promotion/array-api.json", "/table/int16/int32", "dtype-known") in got


def test_category_join_keeps_the_higher_category(root: Path) -> None:
    def change(d: Any) -> None:
        d["table"]["int64"]["float32"] = d["table"]["float32"]["int64"] = "int64"
    edit(root, "spec/promotion/category.json", change)
    assert ("spec/promotion/category.json", "/table/int64/float32",
            "table-category") in problems(root)


def test_promotion_rows_must_be_the_dtypes(root: Path) -> None:
    edit(root, "spec/promotion/category.json", lambda d: d["table"].pop("uint16"))
    assert ("spec/promotion/category.json", "/table", "table-square") in problems(root)


def test_promotion_statements_and_readings_exist(root: Path) -> None:
    def change(d: Any) -> None:
        d["statements"].append("OF-PROM-99")
        d["default_reading"] = "neither"
    edit(root, "spec/promotion/out-casting.json", change)
    got = problems(root)
    assert ("spec/promotion/out-casting.json", "/statements/4", "statement-exists") in got
    assert ("spec/promotion/out-casting.json", "/default_reading", "reading-exists") in got


def test_promotion_file_against_its_schema(root: Path) -> None:
    edit(root, "spec/promotion/dtypes.json", lambda d: d["dtypes"][0].update({"category": "text"}))
    got = problems(root)
    assert any(f == "spec/promotion/dtypes.json" and p == "/dtypes/0/category"
               and r.startswith("schema:")
               for f, p, r in got)


def test_case_decision_names_a_point_of_decisions_md(root: Path) -> None:
    # A case resting on a devspec decision names its point as "SECTION N"
    # (decisions, Runner and reports 35); one decisions.md lacks is reported.
    shutil.copy(os.path.join(REPO, "spec", "decisions.md"), root / "spec" / "decisions.md")
    edit(root, "conformance/cases/sample.json",
         lambda d: d["cases"][0].update({"decision": "Runner and reports 35"}))
    assert problems(root) == []
    edit(root, "conformance/cases/sample.json",
         lambda d: d["cases"][0].update({"decision": "Runner and reports 9999"}))
    assert problems(root) == [("conformance/cases/sample.json", "/cases/0/decision",
                               "case-decision-exists")]
