"""What the runner's tests share: the paths of the programs under test (Env, made by the
fixture `env` of conftest.py), the fake adapter's command line, reading reports, and the
checks of a run's outputs against the schemas (jsonschema), TAP::Parser, prove and xmllint.

A check that fails raises AssertionError through pytest's `assert`; `why` writes its
message: what was checked, what was expected and what was observed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))  # this checkout
TEST_SPEC = os.path.join(HERE, "spec")
CASES = os.path.join(HERE, "cases")
FAKE = os.path.join(HERE, "fixtures", "fake_adapter.py")
TAP_CHECK = os.path.join(HERE, "tap_check.pl")
# The fake adapter's default claims.
FEATURES = ["device-attr", "device-eq", "creation-device-kw", "to-device", "device-string",
            "mixed-device-raises", "output-follows-input"]

Report = dict[str, Any]
# The liveness bound of a wait on a process (seconds): far above any honest time on a loaded
# machine, so that passing it means a hang, never slowness. Tests do not assert on speed
# (STYLE.md, Tests); conformance/bench measures it.
HANG = 120.0


def why(name: str, expected: object = None, observed: object = None) -> str:
    """The message of a failed check: NAME, then what was expected and what was observed
    (each cut to 2000 characters)."""
    return (f"{name}\n  expected: {json.dumps(str(expected)[:2000])}\n"
            f"  observed: {json.dumps(str(observed)[:2000])}")


class Env:
    """The runner under test (`devspec`), the source and build folders, the null adapter (a
    program and a shared object) and the test's own temporary folder `tmp`."""

    def __init__(self, devspec: str, source: str, build: str, null_prog: str, null_so: str,
                 tmp: str) -> None:
        self.devspec = os.path.abspath(devspec)
        self.source = os.path.abspath(source)
        self.build = os.path.abspath(build)
        self.null_prog = os.path.abspath(null_prog)
        self.null_so = os.path.abspath(null_so)
        self.tmp = tmp

    def environ(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The runner's environment: ours, with DEVSPEC_SOURCE and DEVSPEC_BUILD, and EXTRA."""
        e = dict(os.environ, DEVSPEC_SOURCE=self.source, DEVSPEC_BUILD=self.build)
        e.pop("NO_COLOR", None)
        e.update(extra or {})
        return e

    def command(self, args: Sequence[str], spec: bool = True) -> list[str]:
        """`devspec ARGS`, with the tests' own spec (--spec) for the commands that read one."""
        cmd = [self.devspec, *args]
        if spec and args and args[0] in ("run", "list", "coverage", "validate"):
            cmd += ["--spec", TEST_SPEC]
        return cmd

    def run(self, args: Sequence[str], timeout: float = HANG,
            env: Mapping[str, str] | None = None, spec: bool = True,
            cwd: str | None = None) -> tuple[int, str, str]:
        """Runs `devspec ARGS` in the temporary folder; returns (exit status, stdout, stderr).
        TIMEOUT is a liveness bound, not a speed: a run still going then fails as a hang."""
        cmd = self.command(args, spec)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               env=self.environ(env), cwd=cwd or self.tmp)
        except subprocess.TimeoutExpired as e:
            raise AssertionError(why(
                f"devspec {' '.join(args)}: did not stop within {timeout:g} s (hang)",
                "it stops", tail(e.stderr))) from None
        return p.returncode, p.stdout, p.stderr

    def start(self, args: Sequence[str], env: Mapping[str, str] | None = None,
              **popen: Any) -> subprocess.Popen[str]:
        """Starts `devspec ARGS` (with --spec) in the temporary folder, stdout and stderr piped
        unless POPEN says otherwise."""
        popen.setdefault("stdout", subprocess.PIPE)
        popen.setdefault("stderr", subprocess.PIPE)
        return subprocess.Popen([self.devspec, *args, "--spec", TEST_SPEC], text=True,
                                env=self.environ(env), cwd=self.tmp, **popen)

    def path(self, name: str) -> str:
        return os.path.join(self.tmp, name)


def tail(data: str | bytes | None, n: int = 2000) -> str:
    """The last N characters of a captured stream (None, bytes or str)."""
    if isinstance(data, bytes):
        data = data.decode(errors="replace")
    return (data or "")[-n:]


def stops(p: subprocess.Popen[str], what: str, limit: float = HANG) -> tuple[str, str]:
    """Waits for P to exit and returns its (stdout, stderr). LIMIT is a liveness bound, far
    above any honest time, not a speed: a process still running then is killed and the test
    fails as a hang, WHAT saying what it should have stopped on."""
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError(why(f"{what}: did not stop within {limit:g} s (hang)", "it stops",
                                 tail(err))) from None
    return out or "", err or ""


def fake_cmd(*opts: str) -> str:
    """The fake adapter's --adapter-cmd with OPTS. exec: no shell between runner and adapter,
    so signals are reported as signals."""
    return "exec " + " ".join([sys.executable, FAKE, *opts])


def load_report(path: str) -> Report:
    with open(path) as f:
        r: Report = json.load(f)
    return r


def load_jsonl(path: str) -> list[dict[str, Any]]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def read(path: str) -> str:
    with open(path) as f:
        return f.read()


def statuses(report: Report) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["cases"]}


def wait_until(holds: Callable[[], object], limit: float = HANG) -> bool:
    """Polls holds() until it is true or LIMIT seconds have passed (a liveness bound, not a
    speed); returns its last value."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if holds():
            return True
        time.sleep(0.05)
    return bool(holds())


def file_has(path: str, text: str) -> Callable[[], bool]:
    """A condition for wait_until: the file PATH exists and holds TEXT."""
    return lambda: os.path.exists(path) and text in read(path)


def load_schema(env: Env, name: str) -> dict[str, Any]:
    with open(os.path.join(env.source, "spec", "schema", name)) as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def check_schema(env: Env, report: str, jsonl: str, name: str) -> None:
    """The report and its JSON Lines validate against spec/schema/report.json."""
    schema = load_schema(env, "report.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = jsonschema.Draft202012Validator(schema)
    rec = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/record"})
    with open(report) as f:
        errors = [f"{e.json_path}: {e.message[:200]}" for e in doc.iter_errors(json.load(f))]
    with open(jsonl) as f:
        for i, line in enumerate(f):
            errors += [f"jsonl line {i + 1} {e.json_path}: {e.message[:200]}"
                       for e in rec.iter_errors(json.loads(line))]
    assert not errors, why(
        f"{name}: report and JSON Lines validate against spec/schema/report.json",
        "no schema errors", "\n".join(errors))


# What a result holds depends on the op: the shapes reply.json gives for the ops that have one.
RESULT_SHAPES = {"hello": "helloResult", "array.read": "typedArray",
                 "util.arrays_on_device": "arraysOnDevice"}


def check_trace(env: Env, trace: str, name: str, requests: bool = True) -> None:
    """Every reply of the run is one spec/schema/reply.json allows (with the result shape of
    its op where the schema gives one), every request one request.json allows (REQUESTS
    False: replies only, for an adapter whose null results become the next requests' handles)."""
    validator = jsonschema.Draft202012Validator
    reply = load_schema(env, "reply.json")
    replies = validator(reply)
    req = validator(load_schema(env, "request.json"))
    results = {op: validator({"$defs": reply["$defs"], "$ref": "#/$defs/" + d})
               for op, d in RESULT_SHAPES.items()}
    ops: dict[object, object] = {}
    errors: list[str] = []
    n = 0
    with open(trace, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f):
            d, text = line[:2], line[2:]
            if d == "# ":  # the runner's note on a handle, not a message
                continue
            try:
                msg = json.loads(text)
            except ValueError as e:
                errors.append(f"line {i + 1}: not JSON: {e}")
                continue
            if d == "> ":
                ops[msg.get("id")] = msg.get("op")
                if requests:
                    errors += [f"line {i + 1} (request) {e.json_path}: {e.message[:200]}"
                               for e in req.iter_errors(msg)]
                continue
            n += 1
            errors += [f"line {i + 1} (reply) {e.json_path}: {e.message[:200]}"
                       for e in replies.iter_errors(msg)]
            op = ops.get(msg.get("id"))
            if msg.get("ok") is True and isinstance(op, str) and op in results:
                errors += [f"line {i + 1} ({op} result) {e.json_path}: {e.message[:200]}"
                           for e in results[op].iter_errors(msg["result"])]
    what = f"{name}: every reply validates against spec/schema/reply.json"
    what += ", every request against request.json" if requests else ""
    assert n and not errors, why(f"{what} ({n} replies)", "no schema errors",
                                 "\n".join(errors[:20]))


# The checks left out for want of a tool; conftest.py makes the test a skip naming them.
NOT_RUN: list[str] = []


def has_tool(tool: str, package: str, check: str) -> bool:
    """Whether TOOL is on PATH. In CI (CI=true) a missing tool fails the test; elsewhere the
    CHECK is left out and the test, once done, is skipped naming it and Debian's PACKAGE
    (which scripts/setup.sh installs)."""
    if shutil.which(tool):
        return True
    reason = f"{check}: not run, {tool} is missing (Debian's {package}, scripts/setup.sh)"
    assert os.environ.get("CI") != "true", why(reason, tool, "missing, and CI=true")
    NOT_RUN.append(reason)
    return False


def check_junit(path: str, report: Report, name: str) -> None:
    """The JUnit XML parses, has one testcase per case of the report, unique (classname,
    name) pairs, the element its status calls for; xmllint accepts it."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise AssertionError(why(f"{name}: JUnit XML parses", "well-formed XML", e)) from e
    cases = root.findall(".//testcase")
    pairs = [(c.get("classname"), c.get("name")) for c in cases]
    assert len(pairs) == len(set(pairs)), why(
        f"{name}: JUnit (classname, name) pairs are unique", "unique", pairs)
    assert len(cases) == len(report["cases"]), why(
        f"{name}: JUnit has one testcase per case", len(report["cases"]), len(cases))
    want = {"fail": "failure", "lacks": "failure", "error": "error", "crash": "error",
            "timeout": "error", "skip": "skipped", "xfail": "skipped"}
    by_name = {c.get("name"): c for c in cases}
    bad = []
    for c in report["cases"]:
        tc = by_name.get(c["id"])
        tag = want.get(c["status"])
        if (tc is None or (tag and tc.find(tag) is None)
                or (not tag and len(tc.findall("failure") + tc.findall("error")))):
            bad.append(c["id"])
    assert not bad, why(f"{name}: JUnit elements follow the statuses", [], bad)
    if not has_tool("xmllint", "libxml2-utils", f"{name}: xmllint accepts the JUnit XML"):
        return
    p = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
    assert p.returncode == 0, why(f"{name}: xmllint accepts the JUnit XML", 0, p.stderr)


def check_tap(env: Env, tap_text: str, name: str, expect_ok: bool) -> None:
    """Parses the TAP with TAP::Parser: the whole stream and each subtest's body; prove
    judges it PASS (EXPECT_OK) or FAIL. Needs perl (scripts/setup.sh installs it)."""
    assert tap_text.startswith("TAP version 13\n"), why(
        f"{name}: TAP starts with 'TAP version 13'", "TAP version 13", tap_text[:40])
    assert shutil.which("perl"), why(f"{name}: TAP parses with TAP::Parser", "perl", None)
    f = env.path(name.replace(" ", "_") + ".tap")
    with open(f, "w") as out:
        out.write(tap_text)
    p = subprocess.run(["perl", TAP_CHECK, f], capture_output=True, text=True)
    assert p.returncode == 0, why(
        f"{name}: TAP and every subtest parse without errors (TAP::Parser)", "no parse errors",
        p.stdout + p.stderr)
    # prove judges the stream as a CI harness would, as it is (Debian 12's TAP::Harness 3.44
    # knows version 13, whose parsers ignore the indented subtests by design).
    # prove comes with perl.
    assert shutil.which("prove"), why(f"{name}: prove judges the TAP", "prove", None)
    p = subprocess.run(["prove", "-e", "cat", f], capture_output=True, text=True)
    assert (p.returncode == 0) == expect_ok, why(
        f"{name}: prove says {'PASS' if expect_ok else 'FAIL'}", expect_ok, p.stdout + p.stderr)
    assert "Parse errors" not in p.stdout, why(
        f"{name}: prove reports no parse errors", "none", p.stdout)


def report_core(r: Report) -> Report:
    """A report without what differs between two runs of the same cases: times, dates, the
    command line, the streamed file's name, the reproducers' paths (named after the report)."""
    r = json.loads(json.dumps(r))
    for c in r["cases"]:
        c.pop("duration", None)
        c.pop("reproducer", None)  # its command and folder name the report's own path
    for k in ("started", "config"):
        r["header"].pop(k, None)
    r["header"]["adapter"].pop("given", None)  # the fake's --state file differs
    for k in ("elapsed", "load_elapsed", "finished"):
        r["footer"].pop(k, None)
    return r


def drop_timing_lines(tap: str) -> str:
    return "\n".join(line for line in tap.split("\n") if "duration_ms:" not in line)


def write_cases(path: str, description: str, cases: list[dict[str, Any]]) -> str:
    """Writes a case file of CASES; returns PATH."""
    with open(path, "w") as fh:
        json.dump({"description": description, "cases": cases}, fh)
    return path


def hang_suite(env: Env, name: str, then: Sequence[dict[str, Any]] = ()) -> str:
    """A folder with one passing case and then one that hangs (the fake adapter's "hang"),
    followed by the cases THEN."""
    d = env.path(name)
    os.makedirs(d)
    write_cases(os.path.join(d, "hang.json"), "One pass, then a hang.", [
        {"id": "h.pass", "description": "passes", "spec": ["T-EQ-1"], "features": ["device-eq"],
         "steps": [{"op": "device.parse", "args": {"text": "cpu"}, "expect": "$D0"}]},
        {"id": "h.hang", "description": "hangs", "spec": ["T-STR-1"],
         "features": ["device-string"],
         "steps": [{"op": "device.parse", "args": {"text": "hang"}}]},
        *then])
    return d


def hang_in_flight(trace: str) -> Callable[[], bool]:
    """A condition for wait_until: the run traced to TRACE has sent the request of the hang
    suite's hanging step (the fake adapter is in it once it reads the line)."""
    return lambda: (os.path.exists(trace)
                    and re.search(r'^> .*"text":\s*"hang"', read(trace), re.M) is not None)
