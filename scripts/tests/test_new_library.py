"""CONTRIBUTING.md's walk-through for a new library, followed on a throwaway library in a copy
of the tree: one file, libraries/mylib.json (two runs of the Python adapter's NumPy backend,
one of them not published, a pip pin and a Debian package), then
libraries/tools/gen_libraries.py, after which every generated file names it and the runner
runs `devspec run --adapter mylib`. Also the generator's refusals of a bad library file, each
naming the file and the field."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(TOP, os.environ.get("DEVSPEC_BUILD", "build"))
DEVSPEC = os.path.join(BUILD, "conformance", "devspec")
GENERATOR = os.path.join(TOP, "libraries", "tools", "gen_libraries.py")
# What the generator reads and writes, copied; what the runner only reads, linked.
COPIED = ("libraries", "adapters/adapters.json", "adapters/README.md", "README.md",
          "requirements.txt", "scripts/setup.sh", "scripts/setup-oneflow.sh",
          "scripts/publish-reports.sh", "scripts/test.sh", "reports/summary.py",
          "conformance/expectations")
LINKED = ("spec", "conformance/cases", "adapters/python", ".venv")


def entry(name: str) -> dict[str, Any]:
    return {"name": name, "description": "a throwaway library (NumPy's backend)",
            "command": ["${SOURCE}/.venv/bin/python",
                        "${SOURCE}/adapters/python/devspec_adapter.py", "--library", "numpy"],
            "env": {}, "expectations": None}


MYLIB: dict[str, Any] = {
    "library": "mylib", "display": "MyLib", "order": 85,
    "setup": {"pip": ["mylib-throwaway==1.2.0", "numpy==2.4.6"], "debian": ["mylib-dev"]},
    "verdict_across": ["mylib", "mylib-unpublished"],
    "runs": [{"entry": entry("mylib")},
             {"entry": entry("mylib-unpublished"), "publish": False}],
}


def copy_tree(tmp: Path) -> None:
    for rel in COPIED:
        src, dst = os.path.join(TOP, rel), tmp / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dst)
    for rel in LINKED:
        if os.path.exists(os.path.join(TOP, rel)):
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.path.join(TOP, rel), tmp / rel)


def generate(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, GENERATOR, "--root", str(tmp), *args],
                          capture_output=True, text=True, timeout=120)


def write_library(tmp: Path, lib: dict[str, Any]) -> None:
    (tmp / "libraries" / (lib["library"].lower() + ".json")).write_text(
        json.dumps(lib, indent=2) + "\n", encoding="utf-8")


def test_the_page_names_the_steps_followed_here() -> None:
    with open(os.path.join(TOP, "CONTRIBUTING.md"), encoding="utf-8") as f:
        page = f.read()
    section = page.split("## A new library", 1)[1].split("\n## ", 1)[0]
    for step in ("libraries/NAME.json", "libraries/tools/gen_libraries.py",
                 "devspec run --adapter mylib", "conformance/expectations/update.py",
                 "scripts/publish-reports.sh --no-setup mylib", "takes **2**"):
        assert step in section, step


def test_a_new_library_file_reaches_every_generated_file(tmp_path: Path) -> None:
    copy_tree(tmp_path)
    assert generate(tmp_path, "--check").returncode == 0, "the copy starts current"
    write_library(tmp_path, MYLIB)
    stale = generate(tmp_path, "--check")
    assert stale.returncode == 1 and "adapters/adapters.json: out of date" in stale.stderr
    gen = generate(tmp_path)
    assert gen.returncode == 0, gen.stderr
    written = set(re.findall(r"wrote (\S+)", gen.stdout))
    assert written == {"adapters/adapters.json", "requirements.txt", "scripts/setup.sh",
                       "scripts/publish-reports.sh", "reports/summary.py",
                       "conformance/expectations/update.py", "README.md", "adapters/README.md",
                       "libraries/README.md"}, gen.stdout
    assert generate(tmp_path, "--check").returncode == 0

    def text(rel: str) -> str:
        return (tmp_path / rel).read_text(encoding="utf-8")

    # adapters.json: both runs, placed by the library's order (after Ivy's 80, before
    # refarray-mpi4's 85 by name, before OneFlow's 90), with the entry as written.
    names = [a["name"] for a in json.loads(text("adapters/adapters.json"))["adapters"]]
    assert names.index("ivy") < names.index("mylib") < names.index("oneflow"), names
    assert names.index("mylib") + 1 == names.index("mylib-unpublished")
    got = next(a for a in json.loads(text("adapters/adapters.json"))["adapters"]
               if a["name"] == "mylib")
    assert got == entry("mylib")
    # Set-up: the new pin once (numpy is NumPy's already), the Debian package.
    reqs = text("requirements.txt").splitlines()
    assert "mylib-throwaway==1.2.0" in reqs and reqs.count("numpy==2.4.6") == 1
    assert re.search(r"^library_packages=\(.*\bmylib-dev\b.*\)$", text("scripts/setup.sh"), re.M)
    # Published: the first run, not the second.
    published = re.search(r"^published_runs=\(([^)]*)\)", text("scripts/publish-reports.sh"),
                          re.M | re.S)
    assert published is not None
    runs = published.group(1).split()
    assert "mylib" in runs and "mylib-unpublished" not in runs
    # One verdict across its runs; its expectations map; the documents' lists.
    assert '"MyLib": ("mylib", "mylib-unpublished"),' in text("reports/summary.py")
    update = text("conformance/expectations/update.py")
    assert '"mylib-unpublished": "mylib",' in update
    assert "MyLib" in text("README.md").split("**Results for every library**", 1)[1][:200]
    assert "Ivy, MyLib, OneFlow" in text("README.md")
    assert "Ivy, MyLib and OneFlow" in text("adapters/README.md")
    assert "| MyLib | [mylib.json](mylib.json) |" in text("libraries/README.md")
    # The library file taken away again, everything is as it was.
    (tmp_path / "libraries" / "mylib.json").unlink()
    assert generate(tmp_path).returncode == 0
    for rel in ("adapters/adapters.json", "requirements.txt", "README.md", "scripts/setup.sh"):
        assert text(rel) == Path(TOP, rel).read_text(encoding="utf-8"), rel


@pytest.mark.skipif(not (os.access(DEVSPEC, os.X_OK)
                         and os.access(os.path.join(TOP, ".venv", "bin", "python"), os.X_OK)),
                    reason="no built runner in %s or no .venv" % BUILD)
def test_the_runner_runs_the_new_library_by_name(tmp_path: Path) -> None:
    """Steps 2 to 4: the library file, the generator, a run by name without expectations, its
    expectations file written, the entry pointed at it, and a run with it that has nothing
    unexpected. The throwaway library is NumPy's backend under another name, so update.py
    refuses its report (a report of numpy, not mylib) and the file is written from the
    report instead, as for a C library (`devspec expectations`)."""
    copy_tree(tmp_path)
    write_library(tmp_path, MYLIB)
    assert generate(tmp_path).returncode == 0
    env = dict(os.environ, DEVSPEC_SOURCE=str(tmp_path), DEVSPEC_BUILD=BUILD)
    listed = subprocess.run([DEVSPEC, "list", "adapters"], capture_output=True, text=True,
                            env=env, timeout=60)
    assert listed.returncode == 0 and re.search(r"^mylib\b", listed.stdout, re.M), listed

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([DEVSPEC, "run", "--adapter", "mylib", "--case", "fn.fft.*",
                               "--no-tap", *args], capture_output=True, text=True, env=env,
                              timeout=300)

    first = run("--report", str(tmp_path / "mylib-run.json"))
    assert first.returncode == 1, first.stderr[-2000:]  # NumPy's fftfreq lacks dtype=
    report = json.loads((tmp_path / "mylib-run.json").read_text(encoding="utf-8"))
    assert report["header"]["adapter"]["label"] == "mylib"
    lacking = sorted(c["id"] for c in report["cases"] if c["status"] == "lacks")
    assert lacking and any(c["status"] == "pass" for c in report["cases"])
    update = subprocess.run([sys.executable, str(tmp_path / "conformance" / "expectations"
                                                 / "update.py"), "mylib",
                             str(tmp_path / "mylib-run.json")],
                            capture_output=True, text=True, timeout=60)
    assert update.returncode == 2 and "is a report of numpy, not mylib" in update.stderr
    known = subprocess.run([DEVSPEC, "expectations", str(tmp_path / "mylib-run.json")],
                           capture_output=True, text=True, env=env, timeout=60)
    assert known.returncode == 0, known.stderr
    (tmp_path / "conformance" / "expectations" / "mylib.txt").write_text(known.stdout,
                                                                         encoding="utf-8")
    lib = json.loads(json.dumps(MYLIB))
    lib["runs"][0]["entry"]["expectations"] = "conformance/expectations/mylib.txt"
    write_library(tmp_path, lib)
    assert generate(tmp_path).returncode == 0
    second = run("--report", str(tmp_path / "mylib.json"))
    assert second.returncode == 0, second.stderr[-2000:]
    again = json.loads((tmp_path / "mylib.json").read_text(encoding="utf-8"))
    assert sorted(c["id"] for c in again["cases"] if c["status"] == "xfail") == lacking


@pytest.mark.parametrize("change, said", [
    (lambda lib: lib.update(colour="blue"), "libraries/mylib.json: unknown field 'colour'"),
    (lambda lib: lib["runs"].append({"entry": entry("numpy")}),
     "libraries/numpy.json: run 'numpy' is also libraries/mylib.json's"),
    (lambda lib: lib.update(verdict_across=["mylib", "jax"]),
     "libraries/mylib.json: verdict_across: 'jax' is not one of its runs"),
    (lambda lib: lib.update(phase="nosuch"),
     "libraries/mylib.json: phase: scripts/test.sh has no phase 'nosuch'"),
    (lambda lib: lib["setup"].update(pip=["numpy==1.0"]),
     "libraries/mylib.json: setup.pip: numpy==1.0, where libraries/numpy.json pins "
     "numpy==2.4.6"),
    (lambda lib: lib["setup"].update(pip=["mylib"]),
     "libraries/mylib.json: setup.pip[0]: 'mylib' is not NAME==VERSION"),
    (lambda lib: lib["runs"][0]["entry"].update(expectations="conformance/expectations/no.txt"),
     "libraries/mylib.json: runs: mylib: expectations: conformance/expectations/no.txt does "
     "not exist"),
    (lambda lib: lib.update(library="MyLibrary"),
     "libraries/mylib.json: library: 'MyLibrary' is filed as mylibrary.json"),
])
def test_a_bad_library_file_is_refused_by_file_and_field(tmp_path: Path, change: Any,
                                                         said: str) -> None:
    copy_tree(tmp_path)
    lib = json.loads(json.dumps(MYLIB))
    change(lib)
    (tmp_path / "libraries" / "mylib.json").write_text(json.dumps(lib), encoding="utf-8")
    before = (tmp_path / "adapters" / "adapters.json").read_text(encoding="utf-8")
    gen = generate(tmp_path)
    assert gen.returncode == 2 and said in gen.stderr, gen.stderr
    assert (tmp_path / "adapters" / "adapters.json").read_text(encoding="utf-8") == before
