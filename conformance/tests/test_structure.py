"""structure.py on small folders made for each test: it follows every external name into
sub-folders, a module's own header, and macros; comments are no uses; a long function or a
circle passes only with its written reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "structure.py")
pytestmark = pytest.mark.skipif(shutil.which("ctags") is None, reason="no ctags on PATH")


def run(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, SCRIPT, str(folder), "--limit", "100"],
                          capture_output=True, text=True, timeout=60)


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_a_circle_through_a_sub_folder_and_any_name_fails(tmp_path: Path) -> None:
    p = run(write(tmp_path, {"a.c": "int lo_b(void);\nint lo_a(void) { return lo_b(); }\n",
                             "sub/b.c": "int lo_a(void);\nint lo_b(void) { return lo_a(); }\n"}))
    assert p.returncode == 1 and "a.c <-> sub/b.c" in p.stdout, p.stdout


def test_a_name_in_a_comment_or_a_string_is_no_use(tmp_path: Path) -> None:
    p = run(write(tmp_path, {
        "a.c": "int lo_b(void);\nint lo_a(void) { return lo_b(); }\n",
        "b.c": '/* lo_a */\nconst char *s = "lo_a";\nint lo_b(void) { return 1; }\n'}))
    assert p.returncode == 0 and "modules in a circle: none" in p.stdout, p.stdout


def test_a_use_through_a_macro_counts(tmp_path: Path) -> None:
    p = run(write(tmp_path, {
        "m.h": "int lo_a(void);\n#define CALL_A() lo_a()\n",
        "a.c": "int lo_b(void);\nint lo_a(void) { return lo_b(); }\n",
        "b.c": '#include "m.h"\nint lo_b(void) { return CALL_A(); }\n'}))
    assert p.returncode == 1 and "a.c <-> b.c" in p.stdout, p.stdout


def test_including_a_modules_header_uses_that_module(tmp_path: Path) -> None:
    # a.h is named after a.c but declares b.c's function: b.c includes it, a.c calls b.c.
    p = run(write(tmp_path, {
        "a.h": "int lo_b(void);\n",
        "a.c": '#include "a.h"\nint lo_a(void) { return lo_b(); }\n',
        "b.c": '#include "a.h"\nint lo_b(void) { return 1; }\n'}))
    assert p.returncode == 1 and "a.c <-> b.c" in p.stdout, p.stdout


def test_a_circle_with_its_reason_passes(tmp_path: Path) -> None:
    p = run(write(tmp_path, {
        "a.c": "/* Circle: a.c and b.c are one module: a table and its slots. */\n"
               "int lo_b(void);\nint lo_a(void) { return lo_b(); }\n",
        "b.c": "int lo_a(void);\nint lo_b(void) { return lo_a(); }\n"}))
    assert p.returncode == 0 and "(the reason is written in a.c)" in p.stdout, p.stdout


def test_a_long_function_in_a_sub_folder_needs_its_reason(tmp_path: Path) -> None:
    body = "int lo_long(int x)\n{\n" + "    x++;\n" * 101 + "    return x;\n}\n"
    p = run(write(tmp_path, {"sub/long.c": body}))
    assert p.returncode == 1 and "sub/long.c:lo_long (105)" in p.stdout, p.stdout
    p = run(write(tmp_path, {"sub/long.c": "/* Long: one table. */\n" + body}))
    assert p.returncode == 0, p.stdout


def test_every_product_folder_has_no_circle_and_no_long_function_without_reason() -> None:
    p = subprocess.run([sys.executable, SCRIPT, "--products", "--limit", "100"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout
