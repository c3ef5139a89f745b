"""The project's documents against its code: README.md's configuration table lists every CMake
option and cache variable and every DEVSPEC_* environment variable the code reads, and nothing
else; the repository paths the Markdown files name exist; README.md's lists (CI's phases,
the CMake presets, the packages the set-up installs) are the scripts' own; and README.md's
commands run where they can run here (a built runner; without one those tests skip, saying
so)."""

from __future__ import annotations

import fnmatch
import functools
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

NAME = r"(DEVSPEC_[A-Z0-9_]+)"
# Where the code reads a name, by kind: a CMake option() or cache set(), a C string literal that
# is the name alone (getenv("DEVSPEC_X"), the runner's root("DEVSPEC_X", ...)), Python's
# os.environ / os.getenv, a shell ${DEVSPEC_X} or $DEVSPEC_X.
READS = [
    ("CMake option", (".txt", ".cmake"), re.compile(r"\boption\(\s*" + NAME)),
    ("CMake cache variable", (".txt", ".cmake"),
     re.compile(r"\bset\(\s*" + NAME + r"\s[^)]*CACHE")),
    ("environment", (".c", ".h"), re.compile(r'"' + NAME + r'"')),
    ("environment", (".py",),
     re.compile(r'(?:environ(?:\.get)?\s*[\[(]|getenv\()\s*"' + NAME + r'"')),
    ("environment", (".sh",), re.compile(r"\$\{?" + NAME)),
]


@functools.cache
def files() -> tuple[str, ...]:
    """The repository's tracked files."""
    return tuple(subprocess.run(["git", "-C", TOP, "ls-files"], capture_output=True, text=True,
                                check=True).stdout.split())


def tracked(*suffixes: str) -> list[str]:
    return [f for f in files() if f.endswith(suffixes)]


def read(rel: str) -> str:
    with open(os.path.join(TOP, rel), encoding="utf-8") as f:
        return f.read()


def code_reads() -> dict[str, set[str]]:
    """{name: the kinds of read found} over every tracked source file."""
    found: dict[str, set[str]] = {}
    for kind, suffixes, pattern in READS:
        for rel in tracked(*suffixes):
            if suffixes[0] == ".txt" and not rel.endswith("CMakeLists.txt"):
                continue
            if rel == "scripts/tests/test_docs.py":
                continue  # its own samples below
            for m in pattern.finditer(read(rel)):
                found.setdefault(m.group(1), set()).add(kind)
    return found


def table() -> dict[str, list[str]]:
    """README.md's configuration table: {name: [kind, read by, default, what it does]}."""
    text = read("README.md").split("\n## Configuration\n", 1)
    assert len(text) == 2, "README.md has no section '## Configuration'"
    rows = {}
    for line in text[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.match("`" + NAME + "`$", cells[0])
        if m:
            assert m.group(1) not in rows, "%s is listed twice" % m.group(1)
            assert len(cells) == 5, line
            rows[m.group(1)] = cells[1:]
    return rows


def test_configuration_table_lists_what_the_code_reads() -> None:
    code, listed = code_reads(), table()
    assert sorted(set(code) - set(listed)) == [], "read by the code, missing from README.md"
    assert sorted(set(listed) - set(code)) == [], "in README.md, read by no code"
    wrong = {n: (listed[n][0], sorted(k)) for n, k in code.items() if listed[n][0] not in k}
    assert wrong == {}, "README.md's kind differs from how the code reads it"


def test_a_name_read_elsewhere_would_be_found() -> None:
    """The patterns see each kind of read (so the check above can fail)."""
    samples = {
        "CMake option": 'option(DEVSPEC_X "x" ON)',
        "CMake cache variable": 'set(DEVSPEC_X 1 CACHE STRING "x")',
    }
    for kind, text in samples.items():
        assert any(k == kind and p.search(text) for k, _, p in READS)
    for text in ('getenv("DEVSPEC_X")', 'os.environ.get("DEVSPEC_X", 1)',
                 'os.environ["DEVSPEC_X"]', "${DEVSPEC_X:-build}", "$DEVSPEC_X"):
        assert any(p.search(text) for _, _, p in READS), text


def test_markdown_paths_exist() -> None:
    """Every `path` a Markdown file names under one of the repository's folders, or a file at
    its root, exists; a word in capitals is a placeholder (`reports/NAME.json`,
    `ops_GROUP.c`) that some file must fill. A path git ignores (where runs write, such as
    reports/runs/) is apart."""
    paths = set(files())
    folders: set[str] = set()
    for f in paths:
        d = os.path.dirname(f)
        while d and d not in folders:
            folders.add(d)
            d = os.path.dirname(d)
    known = sorted(paths | folders)
    tops = {f.split("/")[0] for f in paths if "/" in f}
    roots = {"README.md", "STYLE.md", ".clang-format", "VERSION", "CMakePresets.json",
             "pyproject.toml", "requirements.txt", "CMakeLists.txt"}
    missing = []
    for rel in tracked(".md"):
        # The statements' sources are paths in the standard's own repository; the published
        # summary is rewritten with the reports (scripts/publish-reports.sh), so it names what
        # the tree held at the last publication.
        if rel in ("spec/statements.md", "reports/SUMMARY.md"):
            continue
        for m in re.finditer(r"`([A-Za-z0-9_.\-/]+)`|\]\(([A-Za-z0-9_.\-/]+)\)", read(rel)):
            path = (m.group(1) or m.group(2)).rstrip("/")
            if not ("/" in path and path.split("/")[0] in tops) and path not in roots:
                continue
            if path in paths or path in folders:
                continue
            pattern = re.sub(r"(?<![A-Za-z])[A-Z][A-Z_]+(?![a-z])", "*", path)
            if pattern == path or not fnmatch.filter(known, pattern):
                missing.append((rel, path))
    ignored = subprocess.run(["git", "-C", TOP, "check-ignore", "--no-index", "--stdin"],
                             input="\n".join(p for _, p in missing), capture_output=True,
                             text=True).stdout.split()
    assert ["%s: %s" % (rel, p) for rel, p in missing if p not in ignored] == []


def test_readme_names_every_ci_phase() -> None:
    m = re.search(r"^all=\(([^)]*)\)", read("scripts/test.sh"), re.M)
    assert m is not None
    phases = m.group(1).split()
    text = read("README.md")
    named = re.findall(r"\(`([a-z]+)`\)", text.split("`scripts/test.sh` runs, as phases:", 1)[1]
                       .split("\n\n", 1)[0])
    assert named == phases


def test_readme_names_every_preset() -> None:
    with open(os.path.join(TOP, "CMakePresets.json"), encoding="utf-8") as f:
        presets = [p["name"] for p in json.load(f)["configurePresets"]]
    text = read("README.md")
    m = re.search(r"`CMakePresets.json` has the (\w+) builds", text)
    assert m is not None
    words = {"three": 3, "four": 4, "five": 5, "six": 6}
    assert words.get(m.group(1)) == len(presets)
    para = text[m.start():].split("\n\n", 1)[0]
    for name in presets:
        assert "`%s`" % name in para, name


def readme_commands() -> list[str]:
    """The lines of README.md's sh blocks, comments off."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", read("README.md"), re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                out.append(line)
    return out


needs_runner = pytest.mark.skipif(not os.access(DEVSPEC, os.X_OK),
                                  reason="the runner is not built (%s)" % DEVSPEC)


@needs_runner
def test_readme_devspec_options_exist() -> None:
    """Every option a README.md command gives devspec is one its subcommand takes."""
    helps: dict[str, str] = {}
    seen = 0
    for line in readme_commands():
        for part in line.split(";"):
            m = re.match(r"(?:\S*/)?devspec (\w+)(.*)", part.strip())
            if not m:
                continue
            sub, rest = m.groups()
            if sub not in helps:
                r = subprocess.run([DEVSPEC, sub, "--help"], capture_output=True, text=True)
                helps[sub] = r.stdout + r.stderr
            for opt in re.findall(r"(?<!\S)(--[a-z][a-z0-9-]*)", rest):
                seen += 1
                assert re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), helps[sub]), \
                    "devspec %s does not take %s" % (sub, opt)
    assert seen > 5


@needs_runner
@pytest.mark.parametrize("command", ["list", "coverage", "compare reports/"])
def test_readme_runner_commands_run(command: str) -> None:
    """README.md's `build/conformance/devspec list`, `coverage` and `compare reports/`, as
    written (none of them writes a file)."""
    line = "build/conformance/devspec " + command
    assert line in readme_commands()
    env = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=BUILD)
    r = subprocess.run([DEVSPEC, *command.split()], capture_output=True, text=True, cwd=TOP,
                       env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()


def test_readme_scripts_options_exist() -> None:
    """Every --option README.md gives one of scripts/*.sh is one the script parses."""
    seen = 0
    text = read("README.md")
    for script, rest in re.findall(r"scripts/([\w-]+\.sh)((?: --?[a-z][a-z-]*(?: [A-Z]+)?)+)",
                                   text):
        body = read("scripts/" + script)
        for opt in re.findall(r"--[a-z][a-z-]*", rest):
            seen += 1
            assert re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), body), \
                "scripts/%s does not take %s" % (script, opt)
    assert seen > 0


def test_readme_lists_what_setup_installs() -> None:
    """README.md names the packages scripts/setup.sh installs: its own list, then the
    libraries' (library_packages, generated from libraries/*.json)."""
    setup = read("scripts/setup.sh")
    m = re.search(r"^packages=\(([^)]*)\)", setup, re.M)
    assert m is not None
    packages = m.group(1).split()
    assert packages[-1] == '"${library_packages[@]}"', packages
    m = re.search(r"^library_packages=\(([^)]*)\)", setup, re.M)
    assert m is not None
    packages = packages[:-1] + m.group(1).split()
    text = read("README.md").split("What the set-up installs (Debian packages, only those "
                                   "missing):", 1)[1].split("; then", 1)[0]
    text = re.sub(r"\([^)]*\)", "", text.replace("\n", " "))
    named = [w.strip() for w in re.split(r",| and |:", text) if w.strip()]
    assert [w for w in named if w != "each library's own"] == packages


@needs_runner
def test_readme_expectations_command_runs() -> None:
    """README.md's `devspec expectations run.json > mylib-known.txt`, on a published report:
    one entry per line, `<case id> <status>` and a reason after #, which `--expectations`
    then reads."""
    line = "devspec expectations run.json > mylib-known.txt"
    assert any(line in c for c in readme_commands())
    r = subprocess.run([DEVSPEC, "expectations", os.path.join(TOP, "reports", "numpy.json")],
                       capture_output=True, text=True, cwd=TOP)
    assert r.returncode == 0, r.stderr
    entries = [x for x in r.stdout.splitlines() if x and not x.startswith("#")]
    assert entries
    for x in entries:
        assert re.match(r"\S+ (fail|error|crash|timeout|lacks|xpass)( +#.*)?$", x), x


@needs_runner
def test_conformance_readme_names_every_runner_option() -> None:
    """README.md sends the reader to conformance/README.md for every option of the runner:
    each option a subcommand's --help lists is named there."""
    text = read("conformance/README.md")
    missing = []
    for sub in ("run", "list", "coverage", "validate", "compare", "probe", "expectations"):
        r = subprocess.run([DEVSPEC, sub, "--help"], capture_output=True, text=True)
        for opt in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", r.stdout + r.stderr))):
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text):
                missing.append("devspec %s %s" % (sub, opt))
    assert missing == []


def not_yet_renamed() -> list[re.Pattern[str]]:
    """STYLE.md's list of the CTest names not yet renamed (`old` → `new`), as patterns of the
    old names (X stands for any word); none when STYLE.md has no such list."""
    text = read("STYLE.md").split("Not yet renamed to this convention", 1)
    if len(text) < 2:
        return []
    olds = re.findall(r"`([\w.]+)` →", text[1])
    return [re.compile("^%s$" % re.escape(o).replace("X", r"\w+")) for o in olds]


def test_c_test_programs_are_named_test_what() -> None:
    """Every C program in a tests/ folder (a file with a main: DT_MAIN or its own) is
    test_WHAT.c (STYLE.md, "Names"); helpers without a main may be named freely."""
    wrong = []
    for top in ("adapters", "common", "conformance", "reference", "testing"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(TOP, top)):
            dirnames[:] = [d for d in dirnames if d not in ("build", "corpus")]
            if os.path.basename(dirpath) != "tests":
                continue  # fixtures and projects below tests/ are programs, not tests
            for f in filenames:
                if not f.endswith(".c") or f.startswith("test_"):
                    continue
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    text = fh.read()
                if re.search(r"^DT_MAIN\(|^int main\(", text, re.M):
                    wrong.append(os.path.relpath(os.path.join(dirpath, f), TOP))
    assert wrong == []


@pytest.mark.skipif(not os.path.isfile(os.path.join(BUILD, "CTestTestfile.cmake")),
                    reason="no CMake build with tests (%s)" % BUILD)
def test_ctest_names_follow_the_convention() -> None:
    """Every CTest test is AREA.WHAT[.VARIANT] (STYLE.md, "Names") or one STYLE.md lists as
    not yet renamed."""
    r = subprocess.run(["ctest", "--test-dir", BUILD, "--show-only=json-v1"],
                       capture_output=True, text=True, check=True)
    names = [t["name"] for t in json.loads(r.stdout)["tests"]]
    assert len(names) > 10
    convention = re.compile(r"^(refarray|adapters|runner|common|testing)(\.[a-z0-9_-]+)+$")
    legacy = not_yet_renamed()
    wrong = [n for n in names if not convention.match(n) and not any(p.match(n) for p in legacy)]
    assert wrong == []


def test_configuration_table_gives_each_option_its_default() -> None:
    """An option() with a literal ON or OFF default, or a cache variable with a literal
    default, has that default in README.md's table."""
    rows = {name: cells[2] for name, cells in table().items()}
    found = 0
    for rel in tracked("CMakeLists.txt"):
        text = read(rel)
        pairs = re.findall(r'\boption\(\s*' + NAME + r'\s+"[^"]*"\s+(ON|OFF)\s*\)', text)
        pairs += re.findall(r"\bset\(\s*" + NAME + r"\s+([A-Za-z0-9]+)\s+CACHE", text)
        for name, default in pairs:
            found += 1
            assert rows[name].startswith("`%s`" % default), (name, default, rows[name])
    assert found >= 9


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="clang-format is not installed")
def test_check_format_names_a_file_that_differs(tmp_path: Path) -> None:
    """scripts/check-format.sh: 0 for a file laid out as .clang-format says, 1 naming one
    that is not (and it changes neither)."""
    good = tmp_path / "good.c"
    good.write_text("int f(int x)\n{\n    return x + 1;\n}\n")
    bad = tmp_path / "bad.c"
    bad.write_text("int f(int x) {  return x+1; }\n")
    script = os.path.join(TOP, "scripts", "check-format.sh")
    r = subprocess.run(["bash", script, str(good)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["bash", script, str(good), str(bad)], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stdout == "%s\n" % bad
    assert "1 of 2 C files differ" in r.stderr
    assert bad.read_text() == "int f(int x) {  return x+1; }\n"
    r = subprocess.run(["bash", script, str(tmp_path / "absent.c")], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "no such file" in r.stderr


@needs_runner
def test_readme_maintainer_commands_run(tmp_path: Path) -> None:
    """README.md's commands for a Python library's maintainer, with NumPy as `mylib` and the
    case file where NumPy fails some cases: the run fails and writes
    reports/runs/mylib.json where README.md says; `devspec expectations` of its report lists
    the failures, and a run with that file and --strict passes."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        pytest.skip("NumPy is not installed")
    commands = readme_commands()
    run = 'devspec run --adapter python:mylib --python "$(which python)"'
    assert run in commands
    assert "less reports/runs/mylib.json" in commands
    env = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=BUILD)
    cases = ["--cases", os.path.join(TOP, "conformance", "cases", "signatures.json")]
    python = ["--python", sys.executable]
    r = subprocess.run([DEVSPEC, "run", "--adapter", "python:numpy", *python, *cases,
                        "--no-tap", "--expectations", "/dev/null"], capture_output=True,
                       text=True, cwd=tmp_path, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    report = tmp_path / "reports" / "runs" / "numpy.json"
    assert report.is_file()
    known = subprocess.run([DEVSPEC, "expectations", str(report)], capture_output=True,
                           text=True, cwd=tmp_path, env=env)
    assert known.returncode == 0, known.stderr
    assert [x for x in known.stdout.splitlines() if x and not x.startswith("#")]
    (tmp_path / "mylib-known.txt").write_text(known.stdout)
    r = subprocess.run([DEVSPEC, "run", "--adapter", "python:numpy", *python, *cases,
                        "--expectations", "mylib-known.txt", "--strict", "--no-tap"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def displays() -> dict[str, str]:
    """The name the documents give each library (libraries/NAME.json's display), by the name
    its reports and backends use, in lower case."""
    out = {}
    for name in sorted(os.listdir(os.path.join(TOP, "libraries"))):
        if name.endswith(".json"):
            lib = json.loads(read("libraries/" + name))
            out[lib["library"].lower()] = lib["display"]
    return out


DISPLAY = displays()


def published_reports() -> dict[str, Any]:
    """{path: report} for every report published in reports/."""
    out = {}
    for rel in tracked(".json"):
        if re.fullmatch(r"reports/[^/]+\.json", rel):
            doc = json.loads(read(rel))
            if isinstance(doc, dict) and "header" in doc and "footer" in doc:
                out[rel] = doc
    return out


def test_readme_closing_line_is_refarrays_published_run() -> None:
    """README.md's example of the closing line is the one refarray's published run printed
    (the counts and time of reports/refarray.json, as conformance/src/summary.c prints them),
    so that republishing the reports without the README fails here."""
    m = re.search(r"`(\d+) passed, (\d+) failed, (\d+) skipped, (\d+) errors in ([0-9.]+) s"
                  r" \(and ([0-9.]+) s loading the suite\)`", read("README.md"))
    assert m, "README.md gives no closing line"
    footer = published_reports()["reports/refarray.json"]["footer"]
    c = footer["counts"]
    want = (c["pass"], c["fail"] + c["crash"] + c["timeout"], c["skip"], c["error"])
    assert tuple(int(x) for x in m.groups()[:4]) == want, (m.group(0), want)
    assert m.group(5) == "%.2f" % footer["elapsed"], (m.group(0), footer["elapsed"])
    assert m.group(6) == "%.2f" % footer.get("load_elapsed", -1), (m.group(0), footer)


def test_readme_names_every_published_library() -> None:
    """README.md's list of the libraries whose results are published names each library of
    reports/*.json, and adapters/README.md's row for python/ each backend of the Python
    adapter."""
    m = re.search(r"\*\*Results for every library\*\* —\s(.*?) —", read("README.md"), re.S)
    assert m, "README.md has no list of published libraries"
    listed = m.group(1)
    names = {doc["header"]["library"]["name"].lower() for doc in published_reports().values()}
    assert len(names) >= 9
    assert [n for n in sorted(names) if DISPLAY[n] not in listed] == []
    sys.path.insert(0, os.path.join(TOP, "adapters", "python"))
    try:
        from devspec_py.backends import BACKENDS
    finally:
        sys.path.pop(0)
    row = next(line for line in read("adapters/README.md").splitlines()
               if line.startswith("| `python/` |"))
    assert [n for n in BACKENDS if DISPLAY[n] not in row] == []


def test_only_the_fuzz_harnesses_include_the_runners_header() -> None:
    """conformance/README.md says nothing outside conformance/ depends on the runner's source
    but the fuzz harnesses in fuzz/: the files outside conformance/ that include devspec.h
    are all there."""
    assert "the fuzz harnesses" in read("conformance/README.md")
    includers = [f for f in tracked(".c", ".h") if not f.startswith("conformance/")
                 and re.search(r'#\s*include\s*"(?:[^"]*/)?devspec\.h"', read(f))]
    assert includers, "no file outside conformance/ includes devspec.h: the README says two do"
    assert [f for f in includers if not f.startswith("fuzz/")] == []
