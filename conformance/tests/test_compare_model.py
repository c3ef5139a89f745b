"""`devspec compare`'s matrix model (`compare --json`) of hand-made reports whose answers are
known (compare_support.made_rows): disagreement, outcomes, cells, determinism, column order,
folders, errors; the terminal table's filters and escaping; the model embedded in the HTML
page. The expected disagreements come from the reports themselves, read here with a
separate implementation of the outcome rule (conformance/README.md, devspec compare)."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import time
from typing import Any

import pytest
from compare_support import Row, devspec, disagreeing, write_made
from support import TEST_SPEC, Env, why

Made = tuple[str, list[Row], list[str]]


@pytest.fixture
def made(env: Env) -> Made:
    """The hand-made reports of libraries A, B and C: (their folder, rows, paths)."""
    d = os.path.join(env.tmp, "made")
    os.makedirs(d)
    rows, paths = write_made(d)
    return d, rows, paths


def compare_json(env: Env, args: list[str]) -> tuple[int, str, dict[str, Any]]:
    rc, out, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", *args])
    assert rc == 0, why("compare --json exits 0", 0, (rc, errtext))
    m: dict[str, Any] = json.loads(out)
    return rc, out, m


def one_case_report(paths: list[str]) -> dict[str, Any]:
    with open(paths[0]) as f:
        one: dict[str, Any] = json.load(f)
    one["cases"] = one["cases"][:1]
    return one


def test_many_reports_of_one_label(env: Env, made: Made) -> None:
    """3000 reports of one label get labels NAME, NAME (2), ... NAME (3000), in time linear in
    their number (the time is printed, not asserted)."""
    one = one_case_report(made[2])
    many = os.path.join(env.tmp, "many")
    os.makedirs(many)
    for i in range(3000):
        with open(os.path.join(many, f"r{i:04d}.json"), "w") as f:
            json.dump(one, f)
    t0 = time.time()
    rc, out, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", many])
    took = time.time() - t0
    labels = [lib["label"] for lib in json.loads(out)["libraries"]] if rc == 0 else []
    first = one["header"]["adapter"]["label"]
    assert rc == 0 and labels == [first] + [f"{first} ({k})" for k in range(2, 3001)], why(
        "3000 reports of one label: NAME, NAME (2) ... NAME (3000)", 3000,
        (rc, labels[:3], errtext[-300:]))
    print(f"# 3000 reports of one label compared in {took:.2f} s")


def test_other_suite_warned(env: Env, made: Made) -> None:
    """A report of another suite or report version, or listing a case twice, is compared with
    a warning naming it."""
    paths = made[2]
    one = one_case_report(paths)
    other = copy.deepcopy(one)
    other["header"]["suite"]["name"] = "another-suite"
    other["header"]["report_version"] = 99
    other["cases"] = one["cases"] * 2
    op = os.path.join(env.tmp, "other.json")
    with open(op, "w") as f:
        json.dump(other, f)
    rc, _, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", paths[0], op])
    assert (
        rc == 0 and "warning: " + op + " has report_version 99" in errtext and
        "has suite.name \"another-suite\"" in errtext and
        "lists the case " + one["cases"][0]["id"] + " more than once" in errtext
    ), why(
        "reports of another suite or report version, and a case listed twice: warned",
        "three warnings", (rc, errtext[-600:]))


def test_matrix(env: Env, made: Made) -> None:
    d, rows, paths = made
    _, out, m = compare_json(env, paths)
    ids = [c["id"] for c in m["cases"]]
    assert ids == [r[0] for r in rows], why(
        "one row per case, in the first report's order", [r[0] for r in rows], ids)
    assert [lib["label"] for lib in m["libraries"]] == ["A", "B", "C"], why(
        "one column per report, in order", "A B C", [lib["label"] for lib in m["libraries"]])
    for (cid, *_, want), c in zip(rows, m["cases"], strict=True):
        assert c["disagree"] is want, why(f"disagreement of {cid}", want, c["disagree"])
    want_dis = sum(1 for r in rows if r[4])
    assert m["summary"]["disagree"] == want_dis, why(
        "the summary counts the disagreements", want_dis, m["summary"])
    by = {c["id"]: c for c in m["cases"]}
    assert by["all-pass"]["cells"] == ["pass", "pass", "pass"], why(
        "a pass is the string \"pass\"", "pass x3", by["all-pass"]["cells"])
    assert by["only-in-a"]["cells"][1:] == [None, None], why(
        "a case not in a report is null", [None, None], by["only-in-a"]["cells"])
    assert (
        by["skip-left-out"]["cells"][1] == "skip" and by["one-ran"]["cells"][1]["status"] == "skip"
        and "needs 2 devices" in by["one-ran"]["cells"][1]["reason"]
    ), why(
        "an unsupported skip is \"skip\"; another skip keeps its reason", "skip / reason",
        by["one-ran"]["cells"])
    x = by["xfail-like-fail"]["cells"][0]
    assert (
        x["status"] == "xfail" and x["observed_status"] == "fail"
        and x["expectation"]["reason"] == "known"
    ), why(
        "an xfail keeps its observed status and the expectation's reason", "xfail/fail/known", x)
    o = by["other-kind"]["cells"]
    assert (
        o[0]["outcome"] == "fail at step 0 (device.parse): raises ValueError" and
        o[1]["outcome"] == "fail at step 0 (device.parse): raises TypeError"
    ), why(
        "a failing cell's outcome names the step, the op and the error kind", "raises ...", o)
    h = by["handles-differ"]["cells"]
    assert h[0]["observed"]["device"] == "device#8" and h[0]["outcome"] == h[1]["outcome"], why(
        "handles are compared without their numbers but shown as they were", "device#8", h)
    assert by["one-ran"]["outcomes"] == 1 and by["crash-vs-timeout"]["outcomes"] == 2, why(
        "outcomes counts the different outcomes of the libraries that ran", "1, 2",
        (by["one-ran"]["outcomes"], by["crash-vs-timeout"]["outcomes"]))
    # The independent rule agrees with the model on every case.
    reps = []
    for p in paths:
        with open(p) as f:
            reps.append(json.load(f))
    mine = disagreeing(reps)
    theirs = {c["id"] for c in m["cases"] if c["disagree"]}
    assert mine == theirs, why(
        "the model's disagreements are those of the rule written again here", sorted(mine),
        sorted(theirs))

    # Determinism and column order.
    rc2, out2, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", *paths])
    assert rc2 == 0 and out2 == out, why(
        "the same reports give the same matrix, byte for byte", "same", "differs")
    rc3, out3, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", *paths[::-1]])
    m3 = json.loads(out3)
    same = all(c3["disagree"] == by[c3["id"]]["disagree"] and
               c3["cells"] == by[c3["id"]]["cells"][::-1] for c3 in m3["cases"])
    assert rc3 == 0 and same and len(m3["cases"]) == len(m["cases"]), why(
        "reports in the other order give the same matrix with its columns reversed", "same",
        out3[:500])
    rc4, out4, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", d])
    assert rc4 == 0 and out4 == out, why(
        "a folder is its *.json reports in name order", "same as a b c", out4[:300])
    rc5, out5, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", paths[0], paths[0]])
    labels = [lib["label"] for lib in json.loads(out5)["libraries"]] if rc5 == 0 else None
    assert labels == ["A", "A (2)"], why(
        "two reports of one label stay apart", ["A", "A (2)"], labels)
    rc6, out6, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", "--library", "C",
                                 "--library", "A", d])
    m6 = json.loads(out6) if rc6 == 0 else {"libraries": [], "cases": []}
    assert [lib["label"] for lib in m6["libraries"]] == ["C", "A"], why(
        "--library keeps the named, in order", ["C", "A"],
        [lib["label"] for lib in m6["libraries"]])
    assert (
        rc6 == 0 and
        {c["id"] for c in m6["cases"] if c["disagree"]} == disagreeing([reps[2], reps[0]])
    ), why(
        "disagreement is computed over the libraries compared", "", "")


def test_terminal_table(env: Env, made: Made) -> None:
    _, rows, paths = made
    rc, out, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--plain", "--by", "case",
                               "--disagree", *paths])
    shown = set(re.findall(r"^(\S+) +\* ", out, re.M))
    assert rc == 0 and shown == {r[0] for r in rows if r[4]}, why(
        "--by case --disagree lists exactly the cases where the libraries disagree",
        sorted(r[0] for r in rows if r[4]), out)
    rc, out, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--plain", "--by", "case",
                               "--status", "crash", *paths])
    assert (
        rc == 0 and re.findall(r"^(\S+) ", out.split("\n\n")[1], re.M)[1:] == ["crash-vs-timeout"]
    ), why(
        "--status crash keeps the rows where some library crashed", ["crash-vs-timeout"], out)
    rc, out, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--plain", "--by", "case",
                               "--details", *paths])
    assert rc == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b[31mred" in out, why(
        "--details shows control characters of a message as \\xNN", "\\x1b[31mred", out[-3000:])
    assert "skip: B (needs 2 devices, library has 1); C\n" in out, why(
        "--details names the libraries that skipped a case, with the reason",
        "skip: B (...); C", out[-3000:])
    assert "raises ValueError: one wording" in out and "expected  \"device#0\"" in out, why(
        "--details shows what each library returned beside what the case expected",
        "raises ValueError: one wording", out[:3000])
    rc, out, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--plain", *paths])
    assert rc == 0 and re.search(r"^T-STR-1 +\* +\d+/\d+ ", out, re.M) is not None, why(
        "the default rows are statements, with passed/ran per library", "T-STR-1 * n/m", out)
    with open(os.path.join(TEST_SPEC, "statements.json")) as f:
        st = json.load(f)["statements"]
    t_str_1 = next(s for s in st if s["id"] == "T-STR-1")
    rc, out, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--plain", "--details", *paths])
    under = re.escape(t_str_1["level"] + ": " + t_str_1["text"])
    assert rc == 0 and re.search(r"^T-STR-1 .*\n +" + under + r"\n +source: ", out,
                                 re.M) is not None, why(
        "--details under a statement row: its level, text and source", t_str_1["text"],
        out[:1500])
    rc, out, _ = devspec(env, ["compare", "--spec", TEST_SPEC, "--color", "--by", "case", *paths])
    assert rc == 0 and "\x1b[32mpass" in out, why(
        "--color colours the statuses", "ESC[32mpass", out[:800])


def test_html_page(env: Env, made: Made) -> None:
    """The HTML page carries the same model, escaped."""
    paths = made[2]
    _, _, m = compare_json(env, paths)
    page = os.path.join(env.tmp, "page", "made.html")
    rc, out, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, "--quiet", "--html", page,
                                     *paths])
    assert rc == 0 and out == "" and os.path.exists(page), why(
        "--html --quiet writes the page and no table", "page", (rc, out, errtext))
    with open(page, encoding="utf-8") as f:
        text = f.read()
    blob = re.search(r'<script type="application/json" id="devspec-data">(.*?)</script>', text,
                     re.S)
    assert blob is not None and json.loads(blob.group(1)) == m, why(
        "the page embeds the model that --json prints", "same model",
        blob and blob.group(1)[:300])
    outside = text.replace(blob.group(1), "")
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|https?://", outside), why(
        "the page loads nothing: no links, images, frames or URLs outside the data", "none", "")


def test_bad_input(env: Env, made: Made) -> None:
    """Bad input: a clear error naming the input."""
    paths = made[2]
    notrep = os.path.join(env.tmp, "not-a-report.json")
    with open(notrep, "w") as f:
        json.dump({"cases": []}, f)
    for args, what, needle in [
            ([notrep], "a file that is not a report", "not-a-report.json"),
            ([os.path.join(env.tmp, "missing.json")], "a missing file", "missing.json"),
            (["--status", "great", *paths], "an unknown status", "great"),
            (["--library", "Z", *paths], "an unknown library", "'Z'"),
            (["--by", "colour", *paths], "an unknown --by", "colour"),
            ([], "no reports", "needs reports")]:
        rc, _, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, *args])
        assert rc == 2 and needle in errtext, why(
            f"{what}: exit 2 with a message naming it", needle, (rc, errtext))
    mixed = os.path.join(env.tmp, "mixed")
    os.makedirs(mixed)
    shutil.copy(paths[0], mixed)
    shutil.copy(notrep, mixed)
    rc, out, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, "--json", mixed])
    assert rc == 0 and len(json.loads(out)["libraries"]) == 1 and "left out" in errtext, why(
        "in a folder, a JSON file that is not a report is left out with a note", "1 library",
        (rc, errtext))
