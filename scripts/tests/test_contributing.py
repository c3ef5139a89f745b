"""CONTRIBUTING.md's walk-through for a new function, followed in a copy of the source tree on
three throwaway functions, each a copy of a row renamed:

- nextafter_throwaway, which refarray computes in math.c: its row with a refarray entry (the
  next value of ra_math2_fn) and its kernel, one `case` beside nextafter's in math.c's
  switches;
- flip_throwaway, which refarray answers through the adapter's generic call: its row with the
  refarray entry {"function": "ra_flip_throwaway"} and the function's body in
  functions/manipulation.c (it flips as ra_flip does); its declaration and the adapter's
  handler are generated;
- nextafter_lacking, which refarray does not: its row alone.

Then the generators, the spec check, a build of refarray's adapter from the copy, and the
runner, which loads the new cases: refarray passes the first two functions' (or skips one that
needs more devices than this machine gives) and answers the third's as lacking. The files
that differ from the repository's, less those the generators name as written, are the
hand-edited ones: exactly the three the page counts, spec/signatures.json, the kernel's file
and the call function's body's file."""

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
DONE, LACKING, CALLED = "nextafter_throwaway", "nextafter_lacking", "flip_throwaway"
SIG = "spec/signatures.json"
KERNEL = "reference/src/functions/math.c"
BODY = "reference/src/functions/manipulation.c"
GENERATORS = ("spec/tools/gen_refarray.py", "spec/tools/gen_function_cases.py")


def test_the_page_names_the_steps_followed_here() -> None:
    with open(os.path.join(TOP, "CONTRIBUTING.md"), encoding="utf-8") as f:
        page = f.read()
    for step in (SIG, KERNEL, *GENERATORS, "spec/tools/check.py", '"refarray": {"binary": 22}',
                 '"refarray": {"function": "ra_foo"}', "adapters/refarray/call_generated.c",
                 "reference/include/refarray_fn_generated.h", "**2 hand-edited files**",
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


def add_call_row(src: Path) -> None:
    """flip's row renamed, refarray's function named: the adapter's handler is generated."""
    table = src / SIG
    text = table.read_text(encoding="utf-8")
    start = text.index('    {"name": "flip"')
    end = text.index("\n    {", start) + 1
    row = text[start:end]
    called = row.replace('"flip"', '"%s"' % CALLED).replace(
        '"refarray": {"function": "ra_flip"}', '"refarray": {"function": "ra_%s"}' % CALLED)
    assert '"ra_%s"' % CALLED in called
    table.write_text(text[:end] + called + text[end:], encoding="utf-8")


def add_body(src: Path) -> None:
    """The call function's body, beside ra_flip: its parameters are the signature's, as the
    generated declaration (refarray_fn_generated.h) has them."""
    path = src / BODY
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\nint ra_%s(ra_ctx *ctx, const ra_array *x, const int64_t *axis, "
                    "size_t n_axis,\n%sra_array **out)\n{\n    return ra_flip(ctx, x, axis, "
                    "n_axis, out);\n}\n" % (CALLED, " " * (len(CALLED) + 8)), encoding="utf-8")


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
    add_call_row(src)
    add_body(src)
    py = sys.executable
    written = set()
    for gen in GENERATORS:
        r = subprocess.run([py, os.path.join(TOP, gen), "--root", str(src)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        written |= set(re.findall(r": wrote (\S+)", r.stdout))
    assert {"reference/include/refarray_math_generated.h", "reference/src/functions/math_tables.h",
            "conformance/cases/functions-elementwise.json", "adapters/refarray/call_generated.c",
            "reference/include/refarray_fn_generated.h",
            "conformance/cases/functions-manipulation.json"} <= written, written
    # The page's count: the files edited by hand are the rows' table, the kernel's file and
    # the call function's body's file.
    assert changed_files(src) - written == {SIG, KERNEL, BODY}
    declared = (src / "reference/include/refarray_fn_generated.h").read_text(encoding="utf-8")
    assert "RA_API int ra_%s(ra_ctx *ctx, const ra_array *x, const int64_t *axis" % CALLED \
        in declared
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

    env = {"POCL_DEVICES": "pthread pthread", **os.environ, "DEVSPEC_SOURCE": str(src)}
    statuses: dict[str, str] = {}
    ids: dict[str, list[str]] = {}
    for family, names in (("elementwise", (DONE, LACKING)), ("manipulation", (CALLED,))):
        cases = src / "conformance" / "cases" / ("functions-%s.json" % family)
        found = json.loads(cases.read_text(encoding="utf-8"))["cases"]
        for name in names:
            ids[name] = [c["id"] for c in found if c["id"].startswith("fn.%s." % name)]
        report = tmp_path / ("report-%s.json" % family)
        run = subprocess.run([DEVSPEC, "run", "--adapter", str(adapter), "--cases", str(cases),
                              *[a for n in names for a in ("--case", "fn.%s.*" % n)],
                              "--expectations", os.devnull, "--report", str(report)],
                             capture_output=True, text=True, timeout=600, env=env)
        got = {c["id"]: c["status"] for c in
               json.loads(report.read_text(encoding="utf-8"))["cases"]}
        assert sorted(got) == sorted(i for n in names for i in ids[n]), run.stdout[-2000:]
        statuses.update(got)
    assert all(len(v) >= 3 for v in ids.values()), ids
    # Passed (or skipped where a case needs more devices than this machine gives).
    for name in (DONE, CALLED):
        done = {statuses[i] for i in ids[name]}
        assert "pass" in done and done <= {"pass", "skip"}, (name, statuses)
    lacking = {statuses[i] for i in ids[LACKING]}
    assert "lacks" in lacking and lacking <= {"lacks", "skip"}, statuses
