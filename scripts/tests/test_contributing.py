"""CONTRIBUTING.md's walk-through for a new function, followed in a copy of the source tree on
two throwaway functions, each a copy of nextafter's row renamed:

- nextafter_throwaway, which refarray implements: its row with a refarray entry (the next
  value of ra_math2_fn) and its kernel, one `case` beside nextafter's in math.c's switches;
- nextafter_lacking, which refarray does not: its row alone.

Then the generators, the spec check, a build of refarray's adapter from the copy, and the
runner, which loads the new cases: refarray passes the first function's (or skips one that
needs more devices than this machine gives) and answers the second's as lacking. The files
that differ from the repository's, less those the generators name as written, are the
hand-edited ones: exactly the two the page counts, spec/signatures.json and the kernel's
file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(TOP, os.environ.get("DEVSPEC_BUILD", "build"))
DEVSPEC = os.path.join(BUILD, "conformance", "devspec")
DONE, LACKING = "nextafter_throwaway", "nextafter_lacking"
SIG = "spec/signatures.json"
KERNEL = "reference/src/functions/math.c"
GENERATORS = ("spec/tools/gen_refarray.py", "spec/tools/gen_function_cases.py")


def test_the_page_names_the_steps_followed_here() -> None:
    with open(os.path.join(TOP, "CONTRIBUTING.md"), encoding="utf-8") as f:
        page = f.read()
    for step in (SIG, KERNEL, *GENERATORS, "spec/tools/check.py", '"refarray": {"binary": 22}',
                 "**2 hand-edited files**",
                 "takes the signature row alone"):
        assert step in page, step


def copy_tree(dst: Path) -> None:
    """The repository's tracked files (the published reports left out) into DST."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=TOP, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in files:
        if rel and not rel.startswith("reports/") and os.path.isfile(os.path.join(TOP, rel)):
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(os.path.join(TOP, rel), dst / rel)


def add_rows(src: Path) -> None:
    """The two rows, each a copy of nextafter's: the first with the next ra_math2_fn value."""
    table = src / SIG
    text = table.read_text(encoding="utf-8")
    start = text.index('    {"name": "nextafter"')
    end = text.index("\n    {", start) + 1
    row = text[start:end]
    values = [int(v) for v in re.findall(r'"refarray": \{"binary": (\d+)', text)]
    done = row.replace('"nextafter"', '"%s"' % DONE).replace(
        '"refarray": {"binary": 8}', '"refarray": {"binary": %d}' % (max(values) + 1))
    lacking = re.sub(r'"refarray": \{[^}]*\}, ', "", row.replace('"nextafter"', '"%s"' % LACKING))
    assert done != row and '"refarray"' in done and '"refarray"' not in lacking
    table.write_text(text[:end] + done + lacking + text[end:], encoding="utf-8")


def add_kernel(src: Path) -> None:
    """The kernel: nextafter_throwaway computes as nextafter does, in each of math.c's
    switches that has nextafter (double and float)."""
    path = src / KERNEL
    text = path.read_text(encoding="utf-8")
    new = text.replace("    case RA_MATH2_NEXTAFTER:\n",
                       "    case RA_MATH2_NEXTAFTER:\n    case RA_MATH2_%s:\n" % DONE.upper())
    assert new.count("RA_MATH2_%s" % DONE.upper()) == 2
    path.write_text(new, encoding="utf-8")


def changed_files(src: Path) -> set[str]:
    """The tracked files whose text in SRC differs from the repository's."""
    out = set()
    for rel in subprocess.run(["git", "ls-files"], cwd=TOP, capture_output=True, text=True,
                              check=True).stdout.split():
        if rel.startswith("reports/") or not os.path.isfile(os.path.join(TOP, rel)):
            continue
        with open(os.path.join(TOP, rel), "rb") as a, open(src / rel, "rb") as b:
            if a.read() != b.read():
                out.add(rel)
    return out


@pytest.mark.skipif(not os.access(DEVSPEC, os.X_OK), reason="no built runner in %s" % BUILD)
@pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake")
def test_a_new_function_takes_its_row_and_its_kernel(tmp_path: Path) -> None:
    src = tmp_path / "src"
    copy_tree(src)
    add_rows(src)
    add_kernel(src)
    py = sys.executable
    written = set()
    for gen in GENERATORS:
        r = subprocess.run([py, os.path.join(TOP, gen), "--root", str(src)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        written |= set(re.findall(r": wrote (\S+)", r.stdout))
    assert {"reference/include/refarray_math_generated.h", "reference/src/functions/math_tables.h",
            "conformance/cases/functions-elementwise.json"} <= written, written
    # The page's count: the files edited by hand are the row's table and the kernel's file.
    assert changed_files(src) - written == {SIG, KERNEL}
    for gen in GENERATORS:
        r = subprocess.run([py, os.path.join(TOP, gen), "--root", str(src), "--check"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    check = subprocess.run([py, os.path.join(TOP, "spec", "tools", "check.py"), "--root",
                            str(src)], capture_output=True, text=True, timeout=600)
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]

    # refarray's adapter built from the copy (no MPI, tests or benches); the generated cases
    # need two or three devices: the host and, through OpenCL, PoCL's two.
    build = tmp_path / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
         "-DDEVSPEC_WERROR=ON", "-DDEVSPEC_MPI=OFF",
         "-DDEVSPEC_BUILD_TESTS=OFF", "-DDEVSPEC_BUILD_BENCH=OFF"],
        capture_output=True, text=True, timeout=600)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    make = subprocess.run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2),
                           "--target", "devspec_adapter_refarray"],
                          capture_output=True, text=True, timeout=1200)
    assert make.returncode == 0, make.stdout[-3000:] + make.stderr[-3000:]
    adapter = build / "adapters" / "refarray" / "devspec_adapter_refarray.so"

    cases = src / "conformance" / "cases" / "functions-elementwise.json"
    ids = {name: [c["id"] for c in json.loads(cases.read_text(encoding="utf-8"))["cases"]
                  if c["id"].startswith("fn.%s." % name)] for name in (DONE, LACKING)}
    assert all(len(v) >= 4 for v in ids.values()), ids
    run = subprocess.run([DEVSPEC, "run", "--adapter", str(adapter), "--cases", str(cases),
                          "--case", "fn.nextafter_*", "--expectations", os.devnull,
                          "--report", str(tmp_path / "report.json")],
                         capture_output=True, text=True, timeout=600,
                         env={"POCL_DEVICES": "pthread pthread", **os.environ,
                              "DEVSPEC_SOURCE": str(src)})
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert sorted(statuses) == sorted(ids[DONE] + ids[LACKING]), run.stdout[-2000:]
    done = {statuses[i] for i in ids[DONE]}
    lacking = {statuses[i] for i in ids[LACKING]}
    # Passed (or skipped where a case needs more devices than this machine gives).
    assert "pass" in done and done <= {"pass", "skip"}, statuses
    assert "lacks" in lacking and lacking <= {"lacks", "skip"}, statuses
