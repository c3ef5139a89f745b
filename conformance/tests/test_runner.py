#!/usr/bin/env python3
"""The devspec runner's own tests: drive the real `devspec` binary against the fixture
adapters (fixtures/fake_adapter.py, the null adapter) and the real suite, and check exit
statuses, verdicts, reports (against spec/schema/report.json), TAP (with Perl's
TAP::Parser, as prove uses it) and JUnit XML. Prints TAP.

    test_runner.py --devspec PATH --source DIR --build DIR GROUP

GROUP is one of: load judge isolation expectations sigint inprocess filters coverage cli
progress schema validators suite reliability memory. Standard library only; schema checks use the project's .venv when it has
jsonschema and say SKIP otherwise.
"""
import argparse
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from procutil import alive, children, wait_for
from taputil import check, plan, skip

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_SPEC = os.path.join(HERE, "spec")
CASES = os.path.join(HERE, "cases")
FAKE = os.path.join(HERE, "fixtures", "fake_adapter.py")
FEATURES = ["device-attr", "device-eq", "creation-device-kw", "to-device", "device-string",
            "mixed-device-raises", "output-follows-input"]  # the fake adapter's default claims



class Env:
    def __init__(self, a):
        self.devspec = os.path.abspath(a.devspec)
        self.source = os.path.abspath(a.source)
        self.build = os.path.abspath(a.build)
        self.null_prog = os.path.abspath(a.null_program) if a.null_program else None
        self.null_so = os.path.abspath(a.null_so) if a.null_so else None
        self.tmp = tempfile.mkdtemp(prefix="devspec-test-")

    def run(self, args, timeout=120, env=None, spec=True, cwd=None):
        e = dict(os.environ)
        e["DEVSPEC_SOURCE"] = self.source
        e["DEVSPEC_BUILD"] = self.build
        e.pop("NO_COLOR", None)
        if env:
            e.update(env)
        cmd = [self.devspec] + args
        if spec and args and args[0] in ("run", "list", "coverage", "validate"):
            cmd += ["--spec", TEST_SPEC]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e,
                           cwd=cwd or self.tmp)
        return p.returncode, p.stdout, p.stderr

    def path(self, name):
        return os.path.join(self.tmp, name)


def fake_cmd(*opts):
    # exec: no shell between runner and adapter, so signals are reported as signals.
    return "exec " + " ".join([sys.executable, FAKE] + list(opts))


def load_report(path):
    with open(path) as f:
        return json.load(f)


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def statuses(report):
    return {c["id"]: c["status"] for c in report["cases"]}


_validator = None


def schema_validators(env):
    """Draft 2020-12 validators for the report and its JSON Lines records, or None."""
    global _validator
    if _validator is not None:
        return _validator
    try:
        import jsonschema  # noqa: F401
        py = sys.executable
    except ImportError:
        py = os.path.join(env.source, ".venv", "bin", "python")
        if not os.path.exists(py):
            _validator = False
            return False
        ok = subprocess.run([py, "-c", "import jsonschema"], capture_output=True).returncode == 0
        if not ok:
            _validator = False
            return False
    _validator = py
    return py


VALIDATE = r'''
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
doc = jsonschema.Draft202012Validator(schema)
rec = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/record"})
errors = [f"{e.json_path}: {e.message[:200]}" for e in doc.iter_errors(json.load(open(sys.argv[2])))]
for i, line in enumerate(open(sys.argv[3])):
    errors += [f"jsonl line {i + 1} {e.json_path}: {e.message[:200]}" for e in rec.iter_errors(json.loads(line))]
print("\n".join(errors))
sys.exit(1 if errors else 0)
'''


def check_schema(env, report, jsonl, name):
    py = schema_validators(env)
    if not py:
        skip(f"{name}: report and JSON Lines validate against spec/schema/report.json",
             "jsonschema is not installed (scripts/setup.sh makes .venv)")
        return
    p = subprocess.run([py, "-c", VALIDATE, os.path.join(env.source, "spec", "schema", "report.json"),
                        report, jsonl], capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: report and JSON Lines validate against spec/schema/report.json",
          "no schema errors", p.stdout + p.stderr)


VALIDATE_TRACE = r'''
import json, sys, jsonschema
reply = json.load(open(sys.argv[1]))
request = json.load(open(sys.argv[2]))
V = jsonschema.Draft202012Validator
env = V(reply)
req = V(request)
# What a result holds depends on the op: the shapes reply.json gives for the ops that have one.
shapes = {"hello": "helloResult", "array.read": "typedArray", "util.arrays_on_device": "arraysOnDevice"}
results = {op: V({"$defs": reply["$defs"], "$ref": "#/$defs/" + d}) for op, d in shapes.items()}
ops, errors, n = {}, [], 0
for i, line in enumerate(open(sys.argv[3], encoding="utf-8", errors="replace")):
    d, text = line[:2], line[2:]
    try:
        msg = json.loads(text)
    except ValueError as e:
        errors.append(f"line {i + 1}: not JSON: {e}")
        continue
    if d == "> ":
        ops[msg.get("id")] = msg.get("op")
        if "--replies" not in sys.argv:
            errors += [f"line {i + 1} (request) {e.json_path}: {e.message[:200]}" for e in req.iter_errors(msg)]
        continue
    n += 1
    errors += [f"line {i + 1} (reply) {e.json_path}: {e.message[:200]}" for e in env.iter_errors(msg)]
    op = ops.get(msg.get("id"))
    if msg.get("ok") is True and op in results:
        errors += [f"line {i + 1} ({op} result) {e.json_path}: {e.message[:200]}"
                   for e in results[op].iter_errors(msg["result"])]
print(f"{n} replies")
print("\n".join(errors[:20]))
sys.exit(1 if errors or not n else 0)
'''


def check_trace(env, trace, name, requests=True):
    """Every reply of the run is one spec/schema/reply.json allows (with the result shape of
    its op where the schema gives one), every request one request.json allows (REQUESTS
    False: replies only, for an adapter whose null results become the next requests' handles)."""
    py = schema_validators(env)
    what = f"{name}: every reply validates against spec/schema/reply.json"
    what += ", every request against request.json" if requests else ""
    if not py:
        skip(what, "jsonschema is not installed (scripts/setup.sh makes .venv)")
        return
    schema = os.path.join(env.source, "spec", "schema")
    p = subprocess.run([py, "-c", VALIDATE_TRACE, os.path.join(schema, "reply.json"),
                        os.path.join(schema, "request.json"), trace] + ([] if requests else ["--replies"]),
                       capture_output=True, text=True)
    check(p.returncode == 0, what + f" ({p.stdout.splitlines()[0] if p.stdout else '?'})",
          "no schema errors", p.stdout + p.stderr[-2000:])


def check_junit(path, report, name):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        check(False, f"{name}: JUnit XML parses", "well-formed XML", e)
        return
    cases = root.findall(".//testcase")
    pairs = [(c.get("classname"), c.get("name")) for c in cases]
    check(len(pairs) == len(set(pairs)), f"{name}: JUnit (classname, name) pairs are unique",
          "unique", pairs)
    check(len(cases) == len(report["cases"]), f"{name}: JUnit has one testcase per case",
          len(report["cases"]), len(cases))
    want = {"fail": "failure", "lacks": "failure", "error": "error", "crash": "error", "timeout": "error",
            "skip": "skipped", "xfail": "skipped"}
    by_name = {c.get("name"): c for c in cases}
    bad = []
    for c in report["cases"]:
        tc = by_name.get(c["id"])
        tag = want.get(c["status"])
        if tc is None or (tag and tc.find(tag) is None) or (not tag and len(tc.findall("failure") + tc.findall("error"))):
            bad.append(c["id"])
    check(not bad, f"{name}: JUnit elements follow the statuses", [], bad)
    if shutil.which("xmllint"):
        p = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
        check(p.returncode == 0, f"{name}: xmllint accepts the JUnit XML", 0, p.stderr)


TAP_CHECK = os.path.join(HERE, "tap_check.pl")


def check_tap(env, tap_text, name, expect_ok):
    """Parses the TAP with TAP::Parser: the whole stream and each subtest's body."""
    if not shutil.which("perl"):
        skip(f"{name}: TAP parses with TAP::Parser", "perl is not installed")
        return
    check(tap_text.startswith("TAP version 13\n"), f"{name}: TAP starts with 'TAP version 13'",
          "TAP version 13", tap_text[:40])
    f = env.path(name.replace(" ", "_") + ".tap")
    with open(f, "w") as out:
        out.write(tap_text)
    p = subprocess.run(["perl", TAP_CHECK, f], capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: TAP and every subtest parse without errors (TAP::Parser)",
          "no parse errors", p.stdout + p.stderr)
    # prove judges the stream as a CI harness would, as it is (Debian 12's TAP::Harness 3.44
    # knows version 13, whose parsers ignore the indented subtests by design).
    if shutil.which("prove"):
        p = subprocess.run(["prove", "-e", "cat", f], capture_output=True, text=True)
        check((p.returncode == 0) == expect_ok, f"{name}: prove says {'PASS' if expect_ok else 'FAIL'}",
              expect_ok, p.stdout + p.stderr)
        check("Parse errors" not in p.stdout, f"{name}: prove reports no parse errors", "none", p.stdout)


def report_core(r):
    """A report without what differs between two runs of the same cases: times, dates, the
    command line, the streamed file's name."""
    r = json.loads(json.dumps(r))
    for c in r["cases"]:
        c.pop("duration", None)
    for k in ("started", "config"):
        r["header"].pop(k, None)
    r["header"]["adapter"].pop("given", None)  # the fake's --state file differs
    for k in ("elapsed", "finished"):
        r["footer"].pop(k, None)
    return r


def drop_timing_lines(tap):
    return "\n".join(l for l in tap.split("\n") if "duration_ms:" not in l)


# ---- groups ---------------------------------------------------------------------------

def group_load(env):
    manifest = os.path.join(HERE, "invalid", "expected.txt")
    marker = env.path("adapter-started")
    for line in open(manifest):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fname, loc, field, reason = line.split(" ", 3)
        path = os.path.join(HERE, "invalid", fname)
        rc, out, err = env.run(["run", "--cases", path, "--adapter-cmd", f"touch {marker}; " + fake_cmd(),
                                "--report", env.path("never.json")])
        want = f"{path}:{loc}: {field}"
        check(rc == 2, f"invalid {fname}: exit status 2", 2, rc)
        check(want in err and reason in err, f"invalid {fname}: names {loc} and {field}",
              f"{want} ... {reason}", err)
        check(not os.path.exists(marker) and not os.path.exists(env.path("never.json")),
              f"invalid {fname}: nothing ran, no report written", "no adapter, no report",
              os.listdir(env.tmp))
    # Every problem of every file is reported, not only the first.
    d = env.path("two-bad")
    os.makedirs(d)
    for f in ("unknown-op.json", "bad-id.json"):
        shutil.copy(os.path.join(HERE, "invalid", f), d)
    shutil.copy(os.path.join(CASES, "pass.json"), d)
    rc, out, err = env.run(["validate", "--cases", d])
    check(rc == 2 and "unknown-op.json:11:16" in err and "bad-id.json:5:13" in err,
          "problems in two files of a directory are all reported", "both locations", err)
    rc, out, err = env.run(["validate", "--cases", CASES])
    check(rc == 0 and "cases: valid" in out, "the fixture cases are valid", 0, err)
    rc, out, err = env.run(["validate", "--cases", env.path("nowhere")])
    check(rc == 2 and "nowhere" in err, "a missing case path is exit 2 naming it", 2, err)


def group_judge(env):
    rep, junit = env.path("pass.json"), env.path("pass.xml")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit,
                            "--trace", env.path("pass.trace")])
    check(rc == 0, "pass.json: exit 0 when everything passes", 0, (rc, err))
    check_trace(env, env.path("pass.trace"), "pass.json (fake adapter, well behaved)")
    r = load_report(rep)
    st = statuses(r)
    check(len(st) == 14 and set(st.values()) == {"pass"}, "pass.json: all 14 cases pass",
          "14 x pass", st)
    check(r["footer"]["complete"] is True and r["footer"]["gate"]["exit_status"] == 0,
          "pass.json: footer complete, gate 0", True, r["footer"])
    check_schema(env, rep, env.path("pass.jsonl"), "pass.json")
    check_junit(junit, r, "pass.json")
    check_tap(env, out, "pass run", True)
    last = err.rstrip("\n").split("\n")[-1]
    check(re.fullmatch(r"14 passed, 0 failed, 0 skipped, 0 errors in \d+\.\d\d s", last) is not None,
          "the run ends with the closing counts line on stderr", "14 passed, ... in T s", err[-500:])
    check("report: " + rep in err, "the summary names the report", rep, err[-500:])
    rc14, out14, _ = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--tap-version", "14",
                              "--adapter-cmd", fake_cmd(), "--report", env.path("pass14.json")])
    check(rc14 == 0 and out14 == out.replace("TAP version 13\n", "TAP version 14\n", 1),
          "--tap-version 14: the same stream under 'TAP version 14'", "TAP version 14", out14[:40])
    check(r["header"]["features_unknown"] == [] and "device-string" in r["header"]["features_claimed"],
          "the header lists the claimed features", "device-string", r["header"]["features_claimed"])
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--case", "pass.raises-kind",
                            "--adapter-cmd", fake_cmd("--features", "device-string,no-such-feature"),
                            "--report", env.path("unk.json")])
    r2 = load_report(env.path("unk.json"))
    check(rc == 0 and r2["header"]["features_unknown"] == ["no-such-feature"],
          "a claimed feature the registry does not know is reported, not fatal", ["no-such-feature"],
          (rc, r2["header"]["features_unknown"]))

    # Exact values: integers beyond 2^53, the hard doubles and a string with NUL go out and
    # come back as written; a difference of one beyond 2^53 fails and is shown exactly.
    rep, junit = env.path("exact.json"), env.path("exact.xml")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "exact.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit])
    st = statuses(load_report(rep))
    check(rc == 0 and set(st.values()) == {"pass"} and len(st) == 4,
          "exact.json: numbers of any width and a string with NUL cross the protocol exactly",
          "4 x pass", (rc, st, err))
    rep, junit = env.path("exact-fail.json"), env.path("exact-fail.xml")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "exact-fail.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit])
    r = load_report(rep)
    c = r["cases"][0]
    check(rc == 1 and c["status"] == "fail", "exact-fail.json: 2^53+1 is not 2^53", "fail",
          (rc, c["status"]))
    f = r["cases"][1]
    check(f["status"] == "fail" and "1.0000000000000002" in f.get("reason", ""),
          "a double that differs in the last bit fails and is shown in full",
          "1.0000000000000002 in the reason", (f["status"], f.get("reason")))
    check("9007199254740993" in c.get("reason", "") and "9007199254740992" in c.get("reason", ""),
          "the failure shows expected 2^53 and observed 2^53+1 exactly",
          "both integers in full", c.get("reason"))
    with open(junit) as f:
        x = f.read()
    check("9007199254740993" in x and "9007199254740992" in x and "9007199254740993" in out,
          "JUnit and TAP show both integers in full", "both integers", (x[-400:], out[-400:]))

    rep, junit = env.path("fail.json"), env.path("fail.xml")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "fail.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep, "--junit", junit])
    check(rc == 1, "fail.json: exit 1 on unexpected failures", 1, rc)
    r = load_report(rep)
    st = statuses(r)
    want = {"fail.wrong-dtype": "fail", "fail.value-where-error": "fail",
            "fail.error-where-value": "fail", "fail.wrong-kind": "fail",
            "fail.negative-zero": "fail", "fail.other-device": "fail", "fail.either-none": "fail",
            "fail.unexpressible": "fail", "fail.weird-message": "fail",
            "error.protocol-origin": "error", "skip.unsupported": "skip", "skip.needs-three": "skip"}
    for k, v in want.items():
        check(st.get(k) == v, f"fail.json: {k} is {v}", v, st.get(k))
    cases = {c["id"]: c for c in r["cases"]}
    c = cases["fail.error-where-value"]
    check("ValueError" in c["reason"] and "unknown device string" in c["reason"],
          "an error where a value was expected names the kind and message", "ValueError: ...", c["reason"])
    check(c["observed"] == {"error": {"kind": "ValueError", "message": "unknown device string 'nope'",
                                      "origin": "library"}},
          "the observed error is recorded", "error object", c["observed"])
    c = cases["fail.negative-zero"]
    check("data[0]" in c["reason"], "a typed-array mismatch names the element", "data[0]", c["reason"])
    c = cases["fail.other-device"]
    check("device.equal" in c["reason"], "devices are compared through device.equal",
          "device.equal", c["reason"])
    check(cases["skip.unsupported"]["reason"] == "unsupported: device-utils" and
          cases["skip.unsupported"]["skip_source"] == "unsupported",
          "an unclaimed feature is skip (unsupported: feature)", "unsupported: device-utils",
          cases["skip.unsupported"])
    check(cases["skip.needs-three"]["reason"] == "needs 3 devices, library has 2",
          "too few devices is a skip with the counts", "needs 3 devices, library has 2",
          cases["skip.needs-three"]["reason"])
    check(cases["fail.wrong-dtype"]["step"] == 1 and cases["fail.wrong-dtype"]["op"] == "array.describe",
          "the failing step and op are recorded", (1, "array.describe"),
          (cases["fail.wrong-dtype"].get("step"), cases["fail.wrong-dtype"].get("op")))
    check_schema(env, rep, env.path("fail.jsonl"), "fail.json")
    check_junit(junit, r, "fail.json")
    check_tap(env, out, "fail run", False)
    listed = re.search(r"\nunexpected:\n(.*?)\n\n", err, re.S)
    check(listed is not None and "  fail     fail.wrong-dtype: array.describe" in listed.group(1),
          "the summary lists each unexpected case with its status and reason",
          "fail fail.wrong-dtype: array.describe...", err[-2000:])
    check(re.search(r"\n\d+ passed, [1-9]\d* failed, \d+ skipped, \d+ errors? in ", err) is not None,
          "the closing line counts the failures", "N passed, N failed, ...", err[-300:])
    check("# SKIP unsupported: device-utils" in out, "TAP marks skips with # SKIP and the reason",
          "# SKIP unsupported: device-utils", out)
    m = re.search(r"    not ok \d+ - fail.weird-message\n      ---\n(.*?)      \.\.\.\n", out, re.S)
    check(m is not None and "message:" in m.group(1) and "expected:" in m.group(1) and
          "observed:" in m.group(1), "a failure has a YAML block with message, expected, observed",
          "YAML block", out[:3000])


    # Matchers and "stop" (spec/case-format.md): every case of match.json passes, every case
    # of match-fail.json fails (one is an error) at the step its description names.
    rep = env.path("match.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "match.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep])
    r = load_report(rep)
    st = statuses(r)
    check(rc == 0 and len(st) == 11 and set(st.values()) == {"pass"},
          "match.json: every matcher and stop case passes, exit 0", "11 x pass", (rc, st))
    check_schema(env, rep, env.path("match.jsonl"), "match.json")
    rep = env.path("match-fail.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "match-fail.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep])
    r = load_report(rep)
    cases = {c["id"]: c for c in r["cases"]}
    want = {"mfail.len-min": ("fail", 0, "shorter than $len_min"),
            "mfail.contains": ("fail", 0, "no element matches $contains"),
            "mfail.each-in": ("fail", 0, "at [1]: the value is none of $in"),
            "mfail.range": ("fail", 0, "outside $range"),
            "mfail.type": ("fail", 0, "not of the $type"),
            "mfail.dollar-key": ("fail", 0, "at .$note"),
            "mfail.range-or-wrong-kind": ("fail", 0, "expected ValueError, raised NotImplementedError"),
            "mfail.stop-continues-then-fails": ("fail", 1, "expected \"cpu\""),
            "mfail.stop-first-alternative-decides": ("fail", 1, "expected 99"),
            "mfail.stop-false": ("fail", 1, "expected 99"),
            "merror.contains-device-equal": ("error", 0, "comparing devices device#999"),
            "mfail.array-values": ("fail", 1, "at .data[1]"),
            "mfail.array-dtype": ("fail", 1, "at .dtype: the value is none of $in")}
    for cid, (status, step, text) in want.items():
        c = cases.get(cid, {})
        check(c.get("status") == status and c.get("step") == step and text in c.get("reason", ""),
              f"match-fail.json: {cid} is {status} at step {step}, saying {text!r}",
              (status, step, text), (c.get("status"), c.get("step"), c.get("reason")))
    check(rc == 1, "match-fail.json: exit 1", 1, rc)
    c = cases["mfail.range"]
    check(c.get("expected") == {"$range": [2, None]} and c.get("observed") == 1,
          "a failed matcher is reported with the matcher as expected and the observed value",
          ({"$range": [2, None]}, 1), (c.get("expected"), c.get("observed")))
    m = re.search(r"    not ok \d+ - mfail.range\n      ---\n(.*?)      \.\.\.\n", out, re.S)
    check(m is not None and 'expected: "{\\"$range\\":[2,null]}"' in m.group(1) and
          'observed: "1"' in m.group(1), "the TAP YAML block shows the matcher and the observed value",
          "expected $range, observed 1", m.group(1) if m else out[:2000])
    check_schema(env, rep, env.path("match-fail.jsonl"), "match-fail.json")
    check_tap(env, out, "match-fail run", False)


def group_ranks(env):
    """SPMD adapters (spec/protocol.md, "SPMD transport"): "ranks" in hello, cases that need
    more ranks are skipped, per-rank expectations judge each rank's own outcome."""
    cases = os.path.join(CASES, "ranks.json")
    rep = env.path("ranks.json")
    rc, out, err = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd("--ranks", "2"),
                            "--report", rep, "--trace", env.path("ranks.trace")])
    r = load_report(rep)
    st = statuses(r)
    check(st == {"ranks.each": "pass", "ranks.same": "pass", "ranks.wrong": "fail",
                 "ranks.too-many": "skip", "ranks.either": "pass", "ranks.either-none": "fail"}
          and rc == 1,
          "per-rank expectations pass and fail per rank, also as either alternatives; too many "
          "ranks is a skip", "pass pass fail skip pass fail", (rc, st))
    by = {c["id"]: c for c in r["cases"]}
    check(by["ranks.either"].get("steps") == [{"op": "util.num_gpus", "outcome": "returned",
                                                "alternative": 2}],
          "the per-rank alternative that held is recorded", "alternative 2", by["ranks.either"])
    by_id = {c["id"]: c for c in r["cases"]}
    check("rank 1" in by_id["ranks.wrong"].get("reason", ""), "the failure names rank 1",
          "rank 1", by_id["ranks.wrong"].get("reason"))
    check(by_id["ranks.too-many"].get("reason") == "needs 8 ranks, adapter has 2" and
          by_id["ranks.too-many"].get("skip_source") == "ranks",
          "the skip says how many ranks", "needs 8 ranks, adapter has 2",
          by_id["ranks.too-many"])
    check_schema(env, rep, env.path("ranks.jsonl"), "ranks.json")
    check_trace(env, env.path("ranks.trace"), "ranks.json (per-rank replies)")
    rc, out, err = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd(),
                            "--report", env.path("one.json")])
    st = statuses(load_report(env.path("one.json")))
    check(set(st.values()) == {"skip"}, "an adapter without \"ranks\" has one rank: all skipped",
          "6 x skip", st)


def group_spmd(env):
    """The SPMD transport (spec/protocol.md): a rank that hangs or crashes costs its case, the
    job (mpirun and every rank) is restarted, and no rank outlives it."""
    host = os.path.join(env.build, "adapters", "host", "devspec-adapter-mpi-host")
    so = os.path.join(env.build, "conformance", "devspec_spmd_fixture.so")
    if not (os.path.exists(host) and os.path.exists(so) and shutil.which("mpirun")):
        skip("the SPMD transport's isolation", "built without MPI")
        return
    mpi_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_mca_base_component_disable_dlclose="1")
    # Under AddressSanitizer, leak reports of OpenMPI's own state name its libraries only when
    # the slow unwinder follows its frames (.ci/lsan.supp suppresses them by library).
    if "ASAN_OPTIONS" in mpi_env:
        mpi_env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
    # The same job three ways: under mpirun loading the module, under mpirun with each rank
    # running the one-process host as a child, and with the host starting its ranks itself
    # (each the one-process host serving the fixture, told its rank through RANK).
    one = os.path.join(env.build, "adapters", "host", "devspec-adapter-host")
    jobs = {"mpirun": "exec mpirun -np 3 --oversubscribe %s %s" % (host, so),
            "mpirun --": "exec mpirun -np 3 --oversubscribe %s -- %s %s" % (host, one, so),
            "--ranks": "exec %s --ranks 3 -- sh -c 'OMPI_COMM_WORLD_RANK=$RANK exec \"$0\" "
                       "\"$@\"' %s %s" % (host, one, so)}
    for how, cmd in jobs.items():
        rep = env.path("spmd.json")
        rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "spmd.json"),
                                "--adapter-cmd", cmd, "--timeout", "5", "--report", rep,
                                "--trace", env.path("spmd.trace")],
                               env=mpi_env, timeout=300)
        st = statuses(load_report(rep))
        check(st == {"spmd.before": "pass", "spmd.hang": "timeout", "spmd.after-hang": "pass",
                     "spmd.crash": "crash", "spmd.after-crash": "pass"},
              "%s: a hung rank times out its case, a crashed rank crashes its case, the job "
              "restarts" % how, "pass timeout pass crash pass", (rc, st, err[-500:]))
        check_trace(env, env.path("spmd.trace"), f"{how}: the SPMD host's replies")
        # Item: three legal 20 MB replies that differ merge into one over the 64 MiB limit:
        # the host answers MemoryError (origin adapter), not a reply the runner must refuse;
        # the same job answers the next case.
        rep = env.path("spmd-big.json")
        rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "spmd-big.json"),
                                "--adapter-cmd", cmd, "--timeout", "120", "--report", rep],
                               env=mpi_env, timeout=600)
        report = load_report(rep)
        big = [c for c in report["cases"] if c["id"] == "spmd.big"]
        check(big and big[0]["status"] == "fail" and "MemoryError" in big[0]["reason"] and
              "over the protocol's limit" in big[0]["reason"] and
              statuses(report).get("spmd.after-big") == "pass",
              "%s: a merged reply over the limit is the host's MemoryError" % how,
              "fail: MemoryError", big and (big[0]["status"], big[0].get("reason")))
        time.sleep(2)
        # This build's fixture only: other builds on the machine may run the same test.
        left = subprocess.run(["pgrep", "-f", so], capture_output=True, text=True)
        check(left.stdout.strip() == "", "%s: no rank outlives its job" % how, "none",
              left.stdout)
    # Item: a process a rank starts (here a sleeper each rank forks before it becomes the
    # adapter) dies with the job, after a normal end and after a SIGKILL of the runner. Each
    # sleeper carries a token of this test in its environment, so only they are looked for.
    kid_jobs = {
        "mpirun --": "exec mpirun -np 3 --oversubscribe %s -- sh -c '%s exec \"$0\" \"$@\"' "
                     "%s %s",
        "--ranks": "exec %s --ranks 3 -- sh -c '%s OMPI_COMM_WORLD_RANK=$RANK exec \"$0\" "
                   "\"$@\"' %s %s"}
    for how, form in kid_jobs.items():
        token = "DEVSPEC_TEST_KID=%s-%d-%d" % (os.path.basename(env.tmp), os.getpid(), len(how))
        sleeper = "%s sleep 600 </dev/null >/dev/null 2>&1 &" % token
        cmd = form % (host, sleeper, one, so)
        args = ["run", "--cases", os.path.join(CASES, "spmd.json"), "--adapter-cmd", cmd,
                "--timeout", "5", "--report", env.path("spmd-kid.json")]
        rc, out, err = env.run(args, env=mpi_env, timeout=300)
        st = statuses(load_report(env.path("spmd-kid.json")))
        check(st.get("spmd.after-crash") == "pass", "%s: the job with sleepers runs" % how,
              "pass", (rc, st, err[-500:]))
        check(wait_until(lambda: not pids_with_env(token), 30),
              "%s: a rank's child does not outlive the job's normal end" % how, "none",
              pids_with_env(token))
        if how != "--ranks":
            continue
        # The host on its own, without the runner's cleanup of its worker's process group:
        # a session that ends at once, and a host killed with SIGKILL.
        for ending in ("normal end", "SIGKILL"):
            token = "%s-%s" % (token, ending[0])
            cmd = form % (host, "%s sleep 600 </dev/null >/dev/null 2>&1 &" % token, one, so)
            h = subprocess.Popen(["sh", "-c", cmd], env=dict(os.environ, **mpi_env), cwd=env.tmp,
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
            started = wait_until(lambda: len(pids_with_env(token)) >= 3, 60)
            if ending == "SIGKILL":
                h.kill()
            else:
                h.stdin.close()
            h.wait(timeout=60)
            check(started and wait_until(lambda: not pids_with_env(token), 30),
                  "the host alone: a rank's child does not outlive the host's %s" % ending,
                  "3 sleepers seen, then none", (started, pids_with_env(token)))
        token += "-k"
        args[args.index("--adapter-cmd") + 1] = form % (
            host, "%s sleep 600 </dev/null >/dev/null 2>&1 &" % token, one, so)
        e = dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build, **mpi_env)
        runner = subprocess.Popen([env.devspec] + args + ["--spec", TEST_SPEC], env=e,
                                  cwd=env.tmp, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        started = wait_until(lambda: len(pids_with_env(token)) >= 3, 60)
        runner.kill()
        runner.wait()
        check(started and wait_until(lambda: not pids_with_env(token), 30),
              "%s: a rank's child does not outlive a SIGKILL of the runner" % how,
              "3 sleepers seen, then none", (started, pids_with_env(token)))


def pids_with_env(entry):
    """The processes whose environment holds the entry NAME=VALUE (zombies hold none)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as fh:
                if entry.encode() in fh.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            pass
    return found


def wait_until(holds, limit):
    """Polls holds() until it is true or limit seconds have passed; returns its last value."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if holds():
            return True
        time.sleep(0.05)
    return bool(holds())


def group_isolation(env):
    # Item: every worker's hello must be the first's. Under --jobs 2 a second worker that
    # claims fewer features is refused (said) and the first runs every case, as --jobs 1
    # would; after a restart (--jobs 1) a worker that claims fewer stops the run, naming the
    # difference.
    fewer = ",".join(f for f in FEATURES if f != "device-eq")
    good_cases = os.path.join(CASES, "pass.json")
    rc1, out1, err1 = env.run(["run", "--cases", good_cases, "--adapter-cmd", fake_cmd(),
                               "--jobs", "1", "--no-tap", "--report", env.path("h1.json")])
    st1 = statuses(load_report(env.path("h1.json")))
    # Slow cases (each waits 0.5 s in the adapter), so that the second worker's hello comes
    # while there are cases left.
    slow_cases = env.path("slow.json")
    with open(slow_cases, "w") as fh:
        json.dump({"description": "Slow cases.", "cases": [
            {"id": f"s.{i}", "description": "slow", "spec": ["T-STR-1"], "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "hang"}}]} for i in range(6)]}, fh)
    slow = ("--hang-seconds", "0.5")
    rc1s, _, _ = env.run(["run", "--cases", slow_cases, "--adapter-cmd", fake_cmd(*slow),
                          "--jobs", "1", "--no-tap", "--report", env.path("h1s.json")])
    st1s = statuses(load_report(env.path("h1s.json")))
    state2 = env.path("hellos-2")
    rc, out, err = env.run(["run", "--cases", slow_cases, "--adapter-cmd",
                            fake_cmd("--state", state2, "--later-features", fewer, *slow),
                            "--jobs", "2", "--no-tap", "--report", env.path("h2.json")])
    st2 = statuses(load_report(env.path("h2.json")))
    check(rc == rc1s and st2 == st1s and "worker 2 could not start" in err and
          'differs from the run\'s first in "features"' in err,
          "--jobs 2: a worker claiming fewer features is refused, the cases run as with --jobs 1",
          (rc1s, "refused"), (rc, err[-400:], [k for k in st1s if st1s[k] != st2.get(k)]))
    # Item: a worker whose start hangs is not waited for once the cases are done (the run took
    # the whole --start-timeout, 20 s against 2.6).
    state4 = env.path("hellos-4")
    t0 = time.time()
    rc, out, err = env.run(["run", "--cases", good_cases, "--adapter-cmd",
                            fake_cmd("--state", state4, "--hang-later-hello"), "--jobs", "2",
                            "--start-timeout", "60", "--no-tap", "--report", env.path("h4.json")])
    took = time.time() - t0
    check(rc == rc1 and statuses(load_report(env.path("h4.json"))) == st1 and took < 30 and
          "could not start" not in err,
          "--jobs 2 with a second worker hanging in hello: the run ends when its cases are done",
          "well under the 60 s start timeout", (rc, round(took, 1), err[-300:]))
    crash_cases = env.path("crash-then.json")
    with open(crash_cases, "w") as fh:
        json.dump({"description": "A crash, then more.", "cases": [
            {"id": "c.crash", "description": "crash", "spec": ["T-STR-1"], "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "crash"}}]},
            {"id": "c.after", "description": "after", "spec": ["T-STR-1"], "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]}]}, fh)
    state3 = env.path("hellos-3")
    rc, out, err = env.run(["run", "--cases", crash_cases, "--adapter-cmd",
                            fake_cmd("--state", state3, "--later-features", fewer),
                            "--jobs", "1", "--no-tap", "--report", env.path("h3.json")])
    r = load_report(env.path("h3.json"))
    check(rc == 3 and r["footer"]["complete"] is False and
          'differs from the run\'s first in "features"' in r["footer"].get("incomplete_reason", ""),
          "--jobs 1: a restarted worker claiming fewer features stops the run, naming the difference",
          3, (rc, r["footer"].get("incomplete_reason"), err[-300:]))
    state = env.path("hellos")
    rep = env.path("bad.json")
    t0 = time.time()
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--timeout", "1",
                            "--adapter-cmd", fake_cmd("--state", state), "--report", rep,
                            "--junit", env.path("bad.xml"), "--jobs", "1"])
    elapsed = time.time() - t0
    check(rc == 1, "misbehaving adapter: exit 1 (unexpected crash, timeout, error)", 1, (rc, err))
    r = load_report(rep)
    st = statuses(r)
    want = {"bad.first-passes": "pass", "bad.segv": "crash", "bad.after-segv": "pass",
            "bad.abort": "crash", "bad.exit": "crash", "bad.hang": "timeout",
            "bad.garbage": "error", "bad.wrong-id": "error", "bad.no-ok": "error",
            "bad.partial": "crash", "bad.last-passes": "pass"}
    for k, v in want.items():
        check(st.get(k) == v, f"misbehave: {k} is {v}", v, st.get(k))
    cases = {c["id"]: c for c in r["cases"]}
    check("signal 11 (SIGSEGV)" in cases["bad.segv"]["reason"], "a crash names the signal",
          "signal 11 (SIGSEGV)", cases["bad.segv"]["reason"])
    check("about to crash" in cases["bad.segv"].get("stderr", ""), "a crash keeps the tail of stderr",
          "fake: about to crash", cases["bad.segv"].get("stderr"))
    check("signal 6 (SIGABRT)" in cases["bad.abort"]["reason"], "an abort is SIGABRT",
          "SIGABRT", cases["bad.abort"]["reason"])
    check("exited with status 3" in cases["bad.exit"]["reason"], "an exit names the status",
          "exited with status 3", cases["bad.exit"]["reason"])
    check("partial line" in cases["bad.partial"]["reason"], "a partial line is reported",
          "partial line", cases["bad.partial"]["reason"])
    check("has id" in cases["bad.wrong-id"]["reason"], "a wrong reply id is a protocol violation",
          "has id", cases["bad.wrong-id"]["reason"])
    check("not a JSON object" in cases["bad.garbage"]["reason"], "garbage is a protocol violation",
          "not a JSON object", cases["bad.garbage"]["reason"])
    restarts = r["footer"]["restarts"]
    check(restarts == 8, "one restart per crash, timeout and protocol violation", 8, restarts)
    hellos = open(state).read().count("hello")
    check(hellos == restarts + 1, "the handshake is replayed after every restart", restarts + 1, hellos)
    check(elapsed < 30, "the hang costs about one --timeout, not forever", "< 30 s", elapsed)
    check_schema(env, rep, env.path("bad.jsonl"), "misbehave")
    check_junit(env.path("bad.xml"), r, "misbehave")
    check_tap(env, out, "misbehave run", False)

    # --jobs 2: the same results in the same order, the same restarts (one per crash,
    # timeout and violation, counted over the workers), one handshake more per worker.
    state3, rep3 = env.path("hellos3"), env.path("bad3.json")
    rc3, out3, err3 = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--timeout", "1",
                               "--adapter-cmd", fake_cmd("--state", state3), "--report", rep3,
                               "--jobs", "2"])
    r3 = load_report(rep3)
    check(rc3 == 1 and report_core(r3) == report_core(r),
          "misbehave --jobs 2: the report of --jobs 1 apart from timings", "identical",
          (rc3, err3[-500:]))
    check(r3["footer"]["restarts"] == 8 and open(state3).read().count("hello") == 8 + 2,
          "misbehave --jobs 2: 8 restarts over the workers, 2 first handshakes", (8, 10),
          (r3["footer"]["restarts"], open(state3).read().count("hello")))
    check(drop_timing_lines(out3) == drop_timing_lines(out), "misbehave --jobs 2: the TAP of --jobs 1",
          "identical", out3[:500])

    # Bounded restarts: the run stops as incomplete (exit 3).
    rep = env.path("bounded.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--timeout", "1",
                            "--max-restarts", "2", "--adapter-cmd", fake_cmd(), "--report", rep,
                            "--jobs", "1"])
    r = load_report(rep)
    check(rc == 3, "past --max-restarts the run is incomplete: exit 3", 3, rc)
    check(r["footer"]["complete"] is False and "restarts" in r["footer"]["incomplete_reason"],
          "the footer says why it is incomplete", "complete false", r["footer"])
    check([c["id"] for c in r["cases"]] == ["bad.first-passes", "bad.segv", "bad.after-segv",
                                            "bad.abort", "bad.exit"],
          "cases up to the last crash are reported, none after", 5, [c["id"] for c in r["cases"]])
    check("Bail out!" in out, "TAP says Bail out! when the run stops", "Bail out!", out[-300:])

    # An adapter that exits right after hello: every case crashes until the bound.
    rep = env.path("after-hello.json")
    # (--jobs 1: with more workers, the cases in flight on the others when the limit is
    # reached are reported too.)
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--max-restarts", "3",
                            "--adapter-cmd", fake_cmd("--exit-after-hello"), "--report", rep,
                            "--jobs", "1"])
    r = load_report(rep)
    st = list(statuses(r).values())
    check(rc == 3 and st == ["crash"] * 4, "exit after hello: 4 crashes (3 restarts), then exit 3",
          (3, ["crash"] * 4), (rc, st))

    # An adapter that cannot start.
    rep = env.path("nostart.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"),
                            "--adapter", env.path("no-such-adapter"), "--report", rep,
                            "--junit", env.path("nostart.xml")])
    check(rc == 3, "an adapter that cannot start: exit 3", 3, rc)
    # Never an empty success: the last line, TAP, JUnit and the report say no case ran, and why.
    last = err.rstrip("\n").split("\n")[-1]
    check(last.startswith("no case ran: the adapter did not start: ") and " passed, " not in err,
          "a run that never started ends 'no case ran: the adapter did not start: <reason>'",
          "no case ran: ...", err[-400:])
    check("Bail out! no case ran: the adapter did not start: " in out, "TAP bails out saying so",
          "Bail out! no case ran: ...", out)
    with open(env.path("nostart.xml")) as f:
        xml = f.read()
    check('errors="1"' in xml and 'message="no case ran: the adapter did not start: ' in xml,
          "JUnit has one testcase in error saying so", "an <error>", xml)
    r = load_report(rep)
    check(r["footer"]["complete"] is False and "error" in r["header"]["adapter"] and r["cases"] == [],
          "its report says complete false and why", "complete false, adapter.error",
          r["header"]["adapter"])
    check(r["footer"]["incomplete_reason"].startswith("no case ran: the adapter did not start: "),
          "the report's footer says no case ran, and why", "no case ran: ...",
          r["footer"].get("incomplete_reason"))
    check("Bail out!" in out, "TAP says Bail out! when the adapter cannot start", "Bail out!", out)
    check_schema(env, rep, env.path("nostart.jsonl"), "no start")
    t0 = time.time()
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--start-timeout", "1",
                            "--adapter-cmd", fake_cmd("--hang-hello", "--hang-seconds", "30"),
                            "--report", env.path("slow.json")])
    check(rc == 3 and "--start-timeout" in err and time.time() - t0 < 15,
          "a hello past --start-timeout: exit 3, promptly", 3, (rc, err, time.time() - t0))
    for opts, what in ((("--protocol", "2"), "another protocol version"),
                       (("--hello-garbage",), "garbage instead of hello")):
        rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"),
                                "--adapter-cmd", fake_cmd(*opts), "--report", env.path("x.json")])
        check(rc == 3, f"an adapter answering hello with {what}: exit 3", 3, (rc, err))


def group_expectations(env):
    exp = env.path("fake.txt")
    with open(exp, "w") as f:
        f.write("# fake adapter's known results\n"
                "fail.wrong-dtype fail   # float32 by default\n"
                "fail.value-where-error crash # was a crash once; now a fail: a new failure\n"
                "pass.describe-default fail  # fixed since: an unexpected pass\n"
                "fail.negative-zero   skip   # quarantined\n"
                "fail.other-*  fail\n"
                "nothing.matches.* fail # stale\n")
    files = ["--cases", os.path.join(CASES, "pass.json"), "--cases", os.path.join(CASES, "fail.json")]
    rep = env.path("exp.json")
    rc, out, err = env.run(["run"] + files + ["--adapter-cmd", fake_cmd(), "--expectations", exp,
                                              "--report", rep, "--junit", env.path("exp.xml")])
    r = load_report(rep)
    st = statuses(r)
    cases = {c["id"]: c for c in r["cases"]}
    check(st["fail.wrong-dtype"] == "xfail", "an expected fail that fails is xfail", "xfail",
          st["fail.wrong-dtype"])
    check(st["fail.other-device"] == "xfail", "a glob entry matches", "xfail", st["fail.other-device"])
    check(st["fail.value-where-error"] == "fail" and cases["fail.value-where-error"]["observed_status"] == "fail",
          "an expected crash that fails is still an unexpected fail", "fail",
          st["fail.value-where-error"])
    check(st["pass.describe-default"] == "xpass", "an expected failure that passes is xpass",
          "xpass", st["pass.describe-default"])
    check(st["fail.negative-zero"] == "skip" and cases["fail.negative-zero"]["skip_source"] == "expectations",
          "a skip entry does not run the case", "skip", cases["fail.negative-zero"])
    stale = [s["pattern"] for s in r["footer"]["stale_expectations"]]
    check(stale == ["nothing.matches.*"], "an entry matching no case is stale", ["nothing.matches.*"], stale)
    check(r["header"]["config"]["expectations"]["sha256"] ==
          __import__("hashlib").sha256(open(exp, "rb").read()).hexdigest(),
          "the report records the expectations file's SHA-256", "sha256", r["header"]["config"])
    check(rc == 1, "unexpected failures remain: exit 1", 1, rc)
    check("# TODO expected fail: float32 by default" in out, "TAP marks xfail with # TODO and the reason",
          "# TODO", out[:4000])
    check_schema(env, rep, env.path("exp.jsonl"), "expectations")
    check_junit(env.path("exp.xml"), r, "expectations")
    check_tap(env, out, "expectations run", False)

    # Only an xpass and a stale entry: 0 normally, 1 with --strict.
    exp2 = env.path("fake2.txt")
    with open(exp2, "w") as f:
        f.write("pass.describe-default fail # fixed\nnothing.* error\n")
    args = ["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd", fake_cmd(),
            "--expectations", exp2, "--report", env.path("exp2.json")]
    rc, out, err = env.run(args)
    check(rc == 0, "xpass and stale entries alone: exit 0", 0, rc)
    check_tap(env, out, "xpass run", True)
    rc, out, err = env.run(args + ["--strict", "--junit", env.path("strict.xml")])
    check(rc == 1, "xpass and stale entries with --strict: exit 1", 1, rc)
    tc = [c for c in ET.parse(env.path("strict.xml")).getroot().iter("testcase")
          if c.get("name") == "pass.describe-default"][0]
    check(tc.find("failure") is not None and tc.find("failure").get("type") == "xpass",
          "JUnit with --strict: an xpass is a failure of type xpass", "xpass", ET.tostring(tc))
    # devspec expectations REPORT regenerates a baseline; with it the same run exits 0.
    base = env.path("base.json")
    env.run(["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
             "--report", base])
    rc, out, err = env.run(["expectations", base], spec=False)
    gen = env.path("generated.txt")
    with open(gen, "w") as f:
        f.write(out)
    entries = [l.split()[:2] for l in out.splitlines() if l and not l.startswith("#")]
    check(rc == 0 and ["fail.wrong-dtype", "fail"] in entries and ["error.protocol-origin", "error"] in entries
          and len(entries) == 10, "devspec expectations lists every failure with its status", 10,
          (rc, entries))
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
                            "--expectations", gen, "--report", env.path("again.json"), "--strict"])
    check(rc == 0 and set(statuses(load_report(env.path("again.json"))).values()) == {"xfail", "skip"},
          "the regenerated expectations make the same run pass, even with --strict", 0, (rc, err))

    # A timeout is written as a comment, never as an entry: it depends on the machine's load.
    hang = env.path("hang.json")
    env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--case", "bad.hang",
             "--timeout", "0.5", "--adapter-cmd", fake_cmd(), "--report", hang])
    rc, out, err = env.run(["expectations", hang], spec=False)
    lines = [l for l in out.splitlines() if "bad.hang" in l]
    check(rc == 0 and lines and all(l.startswith("# TIMEOUT") for l in lines) and
          "1 timeout written as comments" in err,
          "devspec expectations writes a timeout as a comment and says so on stderr",
          "# TIMEOUT ... bad.hang timeout", (rc, lines, err))

    # An expected fail that becomes a crash is a new failure (not xfail), and vice versa.
    exp3 = env.path("fake3.txt")
    with open(exp3, "w") as f:
        f.write("bad.segv fail # used to fail\nbad.abort crash # known abort\n")
    rep = env.path("exp3.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "misbehave.json"), "--case", "bad.segv",
                            "--case", "bad.abort", "--adapter-cmd", fake_cmd(), "--expectations", exp3,
                            "--report", rep])
    st = statuses(load_report(rep))
    check(st == {"bad.segv": "crash", "bad.abort": "xfail"} and rc == 1,
          "an expected fail that crashes is an unexpected crash; an expected crash is xfail",
          {"bad.segv": "crash", "bad.abort": "xfail"}, (rc, st))
    bad = env.path("bad-exp.txt")
    with open(bad, "w") as f:
        f.write("pass.x sometimes\n")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd",
                            fake_cmd(), "--expectations", bad, "--report", env.path("x.json")])
    check(rc == 2 and f"{bad}:1:" in err, "a bad expectations line is exit 2 with file:line", 2, err)


def group_sigint(env):
    d = _hang_suite(env, "hang", then=[
        {"id": "h.never", "description": "never runs", "spec": ["T-EQ-1"], "features": ["device-eq"],
         "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]}])
    rep = env.path("int.json")
    e = dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build)
    p = subprocess.Popen([env.devspec, "run", "--spec", TEST_SPEC, "--cases", d, "--timeout", "60",
                          "--adapter-cmd", fake_cmd(), "--report", rep], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
    jsonl = env.path("int.jsonl")
    # Wait until the first case is recorded, so the hang is in flight.
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(jsonl) and '"h.pass"' in open(jsonl).read():
            break
        time.sleep(0.05)
    time.sleep(0.3)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    check(p.returncode == 3, "SIGINT: exit 3", 3, (p.returncode, err))
    check(time.time() - t0 < 10, "SIGINT stops the run promptly", "< 10 s", time.time() - t0)
    r = load_report(rep)
    check(r["footer"]["complete"] is False and r["footer"]["interrupted"] is True,
          "SIGINT: the report says complete false, interrupted", "complete false", r["footer"])
    check([c["id"] for c in r["cases"]] == ["h.pass", "h.hang"],
          "SIGINT: the finished case and the interrupted one are kept, nothing after them",
          ["h.pass", "h.hang"], [c["id"] for c in r["cases"]])
    hung = r["cases"][-1] if r["cases"] else {}
    check(hung.get("status") == "skip" and hung.get("skip_source") == "interrupted" and
          hung.get("reason") == "interrupted (SIGINT) at step 0 (device.parse)",
          "SIGINT: the case in flight is recorded as interrupted, at its step",
          "skip, interrupted (SIGINT) at step 0 (device.parse)", hung)
    lines = load_jsonl(jsonl)
    check(lines[0]["type"] == "header" and lines[-1]["type"] == "footer" and
          lines[-1]["complete"] is False, "SIGINT: the JSON Lines end with a footer, complete false",
          "header ... footer", [l["type"] for l in lines])
    check(not os.path.exists(rep + ".tmp"), "no temporary report is left behind", "absent", rep + ".tmp")
    check_schema(env, rep, jsonl, "interrupted")

    # A runner killed outright leaves readable JSON Lines without a footer, and no report
    # that looks complete.
    with open(rep, "w") as f:
        f.write('{"stale": true}')
    os.unlink(jsonl)
    # The orphaned worker's hang is short, so it leaves soon after its stdin closes.
    p = subprocess.Popen([env.devspec, "run", "--spec", TEST_SPEC, "--cases", d, "--timeout", "60",
                          "--adapter-cmd", fake_cmd("--hang-seconds", "3"), "--report", rep],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(jsonl) and '"h.pass"' in open(jsonl).read():
            break
        time.sleep(0.05)
    p.kill()
    p.communicate()
    lines = load_jsonl(jsonl)
    check([l["type"] for l in lines] == ["header", "case"],
          "a killed runner leaves JSON Lines that parse, without a footer", ["header", "case"],
          [l["type"] for l in lines])
    check(not os.path.exists(rep), "a killed runner leaves no complete-looking report", "absent",
          os.path.exists(rep))


def group_inprocess(env):
    results = {}
    for label, adapter in (("in process", env.null_so), ("out of process", env.null_prog)):
        rep = env.path(f"null-{label[:2]}.json")
        rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "null.json"), "--adapter", adapter,
                                "--report", rep, "--trace", rep[:-5] + ".trace"],
                               env={"DEVSPEC_NULL_FEATURES": "device-attr"})
        r = load_report(rep)
        results[label] = statuses(r)
        check(rc == 0, f"null adapter {label}: exit 0", 0, (rc, err))
        check(r["header"]["adapter"]["transport"] == ("in-process" if label == "in process" else "out-of-process"),
              f"null adapter {label}: the transport is recorded", label, r["header"]["adapter"])
        check_schema(env, rep, rep[:-5] + ".jsonl", f"null {label}")
        # The null adapter answers null for an array too: the case's next request then
        # carries null where a handle goes, so only the replies are checked here.
        check_trace(env, rep[:-5] + ".trace", f"null {label}", requests=False)
    check(results["in process"] == results["out of process"] == {"null.one": "pass", "null.three": "pass"},
          "both transports give the same results", "same", results)
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "null.json"),
                            "--adapter", env.path("missing.so"), "--report", env.path("m.json")])
    check(rc == 3 and "cannot load" in err, "a .so that cannot be loaded: exit 3", 3, (rc, err))


def group_filters(env):
    allc = ["--cases", os.path.join(CASES, "pass.json")]

    def ids(extra):
        rep = env.path("f.json")
        rc, out, err = env.run(["run"] + allc + ["--adapter-cmd", fake_cmd(), "--report", rep] + extra)
        return rc, [c["id"] for c in load_report(rep)["cases"]], load_report(rep)

    rc, got, _ = ids(["--case", "pass.raises-*"])
    check(got == ["pass.raises-kind", "pass.raises-any"], "--case GLOB selects by ID",
          ["pass.raises-kind", "pass.raises-any"], got)
    rc, got, _ = ids(["--feature", "mixed-device-raises", "--feature", "to-device"])
    check(got == ["pass.to-device", "pass.mixed-devices-raise", "pass.output-follows-input"],
          "--feature F (repeated) selects cases with any of them", 3, got)
    rc, got, _ = ids(["--feature", "device-string", "--exclude-feature", "creation-device-kw"])
    check(got == ["pass.raises-kind", "pass.raises-any", "pass.either", "pass.literal-dollar"],
          "--exclude-feature is applied last", 4, got)
    rep = env.path("none.json")
    rc, out, err = env.run(["run"] + allc + ["--adapter-cmd", fake_cmd(), "--report", rep, "--case", "nothing.*"])
    check(rc == 0 and "no case ran" in err and out.rstrip().endswith("1..0"),
          "no case selected: a warning, the plan 1..0, exit 0", "warning", (rc, err, out))
    rc, got, r = ids(["--profile", "test-multi"])
    check(got == ["pass.mixed-devices-raise"], "--profile P runs the cases that count for it",
          ["pass.mixed-devices-raise"], got)
    rc, got, r = ids([])
    prof = r["footer"]["profiles"]
    check(prof["test-core"]["verdict"] == "conforms" and prof["test-core"]["cases"] == 7 and
          prof["test-core"]["optional"]["cases"] == 5,
          "profile verdict: conforms; required-only cases decide, optional ones beside",
          ("conforms", 7, 5), prof["test-core"])
    check(prof["test-utils"]["verdict"] == "does-not-conform" and
          prof["test-utils"]["missing_features"] == ["device-utils"],
          "profile verdict: a required feature not claimed does not conform", "device-utils",
          prof["test-utils"])
    check(prof["test-multi"]["verdict"] == "conforms", "profile verdict for test-multi", "conforms",
          prof["test-multi"])
    sts = r["footer"]["statements"]
    check(sts["T-STR-1"]["pass"] == 4 and sts["T-CREATE-1"]["pass"] == 2,
          "per-statement counts", (4, 2), (sts["T-STR-1"], sts["T-CREATE-1"]))
    feats = r["footer"]["features"]
    check(feats["device-string"]["pass"] == 5, "per-feature counts", 5, feats["device-string"])
    rc, got, r = ids(["--case", "pass.describe-default", "--case", "pass.to-device"])
    check(r["footer"]["profiles"]["test-core"]["verdict"] == "undetermined" and
          r["footer"]["not_run"] == 12, "a filtered run leaves the verdict undetermined",
          "undetermined", r["footer"]["profiles"]["test-core"])
    r2 = env.path("fail-v.json")
    env.run(["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
             "--report", r2])
    check(load_report(r2)["footer"]["profiles"]["test-core"]["verdict"] == "does-not-conform",
          "a failing case of a required feature: does not conform", "does-not-conform",
          load_report(r2)["footer"]["profiles"]["test-core"])


def group_coverage(env):
    rc, out, err = env.run(["coverage", "--cases", CASES, "--core", "--fail-uncovered", "must"])
    check(rc == 0, "coverage: every must statement of the core profile has a case: exit 0", 0,
          (rc, out, err))
    rc, out, err = env.run(["coverage", "--cases", CASES, "--core", "--fail-uncovered", "must,should"])
    check(rc == 1 and "T-ATTR-2" in out and "UNCOVERED (gating)" in out,
          "coverage: an uncovered should statement fails with --fail-uncovered must,should", 1, (rc, out))
    rc, out, err = env.run(["coverage", "--cases", CASES, "--profile", "test-core", "--json"])
    cov = json.loads(out)
    st = {s["id"]: s for s in cov[0]["statements"]}
    check(st["T-TODEV-1"]["cases"] == ["pass.to-device"], "coverage lists the cases that cite a statement",
          ["pass.to-device"], st["T-TODEV-1"])
    check(st["T-CREATE-2"]["cases"] == [] and not st["T-CREATE-2"]["covered"],
          "coverage marks uncovered statements", [], st["T-CREATE-2"])
    check("pass.output-follows-input" not in st["T-TODEV-1"]["cases"],
          "only cases that count for the profile cover its statements", "absent", st["T-TODEV-1"])
    rc, out, err = env.run(["coverage", "--cases", CASES, "--fail-uncovered", "sometimes"])
    check(rc == 2, "coverage: an unknown level is a usage error", 2, rc)


def old_python():
    """An interpreter older than 3.10 that runs, with the environment it needs (a pyenv shim
    needs PYENV_VERSION), or None."""
    for name in ("python3.9", "python3.8"):
        path = shutil.which(name)
        if not path:
            continue
        envs = [{}]
        if shutil.which("pyenv"):
            p = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True)
            envs += [{"PYENV_VERSION": v} for v in p.stdout.split() if v.startswith(name[6:] + ".")]
        for extra in envs:
            p = subprocess.run([path, "-c", "import sys; print(sys.version_info < (3, 10))"],
                               capture_output=True, text=True, env=dict(os.environ, **extra))
            if p.returncode == 0 and p.stdout.strip() == "True":
                return path, extra
    return None


def group_cli(env):
    # Item: python:MODULE on a Python older than the adapter's (3.10) is refused with a clear
    # message, not a traceback (pip accepts 3.9 for the runner's own package).
    old = old_python()
    if old is None:
        skip("python:MODULE on Python 3.9", "no Python older than 3.10 here")
    else:
        py, extra_env = old
        rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter",
                                "python:json", "--python", py, "--no-tap",
                                "--report", env.path("old-python.json")], env=extra_env)
        check(rc == 3 and "too old: the Python adapter needs Python 3.10 or newer" in err and
              "Traceback" not in err, "python:MODULE on Python 3.9: refused, clearly", 3,
              (rc, err[-400:]))
    # Item: --jobs beyond twice the cores is capped, and said; the run is the same.
    cores = os.cpu_count() or 1
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter-cmd",
                            fake_cmd(), "--no-tap", "--jobs", "1000000", "--report",
                            env.path("jobs-capped.json")])
    check(rc == 0 and f"at most {min(2 * cores, 64)} workers" in err,
          "--jobs 1000000: capped at twice the cores, said on stderr", min(2 * cores, 64), (rc, err))
    rc, out, err = env.run(["--help"])
    check(rc == 0 and "not isolated" in out.lower() and "exit status" in out.lower(),
          "--help explains isolation and exit statuses", 0, out)
    rc, out, err = env.run(["--version"])
    check(rc == 0 and out.startswith("devspec "), "--version", "devspec X", out)
    for args, what in ((["run", "--bogus"], "an unknown option"),
                       (["run", "--cases", CASES], "run without an adapter"),
                       (["run", "--cases", CASES, "--adapter-cmd", "x", "--feature", "no-such"], "an unknown feature"),
                       (["run", "--cases", CASES, "--adapter-cmd", "x", "--timeout", "soon"], "a bad timeout"),
                       (["run", "--cases", CASES, "--adapter-cmd", "x", "--tap-version", "12"], "a bad TAP version"),
                       (["frobnicate"], "an unknown command"),
                       (["run", "--cases", CASES, "--adapter-cmd", "x", "--profile", "no-such"], "an unknown profile"),
                       (["run", "--report"], "an option without its value")):
        rc, out, err = env.run(args)
        check(rc == 2 and err.startswith("devspec: "), f"{what}: exit 2 with a message", 2, (rc, err))
    for what in ("cases", "features", "profiles"):
        rc, out, err = env.run(["list", what, "--cases", CASES])
        check(rc == 0 and out, f"list {what}", 0, (rc, err))
    rc, out, err = env.run(["list", "cases", "--cases", CASES, "--json"])
    every = 0
    for name in os.listdir(CASES):
        if name.endswith(".json"):
            with open(os.path.join(CASES, name)) as f:
                every += len(json.load(f)["cases"])
    check(rc == 0 and len(json.loads(out)) == every, "list cases --json lists every case", every,
          len(json.loads(out)) if rc == 0 else err)
    rc, out, err = env.run(["run", "--cases", CASES, "--adapter", "no-such-name"], spec=True)
    check(rc == 3 and "no-such-name" in err, "an unknown adapter name: exit 3 naming it", 3, (rc, err))
    rc, out, err = env.run(["list", "adapters"], spec=False)
    check(rc == 0 and "refarray" in out, "list adapters reads adapters/adapters.json", "refarray", out)
    # An adapters file of one's own, outside the suite: relative paths are relative to it.
    own = env.path("vendor")
    os.makedirs(os.path.join(own, "bin"), exist_ok=True)
    shutil.copy(FAKE, os.path.join(own, "bin", "fake.py"))
    with open(os.path.join(own, "known.txt"), "w") as f:
        f.write("pass.raises-kind fail # a reason of our own\n")
    with open(os.path.join(own, "adapters.json"), "w") as f:
        json.dump({"description": "a vendor's adapters", "adapters": [
            {"name": "mine", "description": "the fake adapter, registered from outside",
             "command": [sys.executable, "bin/fake.py"], "env": {}, "expectations": "known.txt"}]}, f)
    for how, args, extra in (("--adapters FILE", ["--adapters", os.path.join(own, "adapters.json")], None),
                             ("DEVSPEC_ADAPTERS", [], {"DEVSPEC_ADAPTERS": os.path.join(own, "adapters.json")})):
        rep = env.path("mine.json")
        rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter", "mine",
                                "--report", rep] + args, env=extra, cwd=env.tmp)
        r = load_report(rep) if os.path.exists(rep) else {"header": {}}
        exp = r["header"].get("config", {}).get("expectations", {}).get("path")
        check(rc == 0 and exp == os.path.join(own, "known.txt"),
              f"{how}: a vendor's adapter and its expectations, paths relative to its file",
              os.path.join(own, "known.txt"), (rc, exp, err[-400:]))
        rc, out, err = env.run(["list", "adapters"] + args, spec=False, env=extra)
        check(rc == 0 and "mine" in out and "refarray" in out, f"{how}: list adapters shows both files",
              "mine and refarray", out)
    # Item: an adapters file of one's own that takes over a name of the suite's (refarray) is
    # said, and the report records the file; the entry's report header says so.
    with open(os.path.join(own, "takeover.json"), "w") as f:
        json.dump({"adapters": [{"name": "refarray", "command": [sys.executable, "bin/fake.py"]}]}, f)
    rep = env.path("takeover-report.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter",
                            "refarray", "--report", rep, "--no-tap", "--adapters",
                            os.path.join(own, "takeover.json")])
    ad = load_report(rep)["header"]["adapter"] if os.path.exists(rep) else {}
    check(rc in (0, 1) and "replaces the suite's adapter of that name" in err and
          ad.get("adapters_file") == os.path.join(own, "takeover.json") and
          ad.get("replaces_suite_entry") is True,
          "an adapters file of one's own taking over 'refarray': said, and in the report",
          "said and recorded", (rc, err[-400:], ad))
    # Item: a key given twice in an adapters file is refused at its place; the message names
    # that file, not the suite's adapters.json.
    with open(os.path.join(own, "twice.json"), "w") as f:
        f.write('{"adapters": [{"name": "two", "command": ["a"], "command": ["b"]}]}')
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter",
                            "two", "--no-tap", "--adapters", os.path.join(own, "twice.json")])
    check(rc == 3 and "the key \"command\" is given twice" in err and "twice.json:1:" in err and
          "the adapters file " + os.path.join(own, "twice.json") + " cannot be used" in err,
          "a key given twice in an adapters file: refused at its place, the file named", 3,
          (rc, err[-500:]))
    # Item: only command words that are paths of files next to the adapters file are made
    # relative to it; sh -c "exec /x ..." is passed as written.
    with open(os.path.join(own, "words.json"), "w") as f:
        json.dump({"adapters": [{"name": "words", "command": [
            "sh", "-c", f"exec {sys.executable} \"$0\" \"$@\"", "bin/fake.py"]}]}, f)
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "pass.json"), "--adapter",
                            "words", "--no-tap", "--report", env.path("words.json"), "--adapters",
                            os.path.join(own, "words.json")])
    check(rc == 0, "sh -c 'exec /path ...' in an adapters file runs as written (bin/fake.py "
          "made relative to the file)", 0, (rc, err[-500:]))

    # A report path that is no regular file (here a pipe, as /dev/null or /dev/stdout would
    # be) is written in place: not unlinked, not replaced, no .jsonl stream created beside it.
    fifo = env.path("report-pipe")
    os.mkfifo(fifo)
    got = []
    with subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE, text=True) as reader:
        rc, out, err = env.run(["run", "--cases", CASES, "--adapter-cmd", fake_cmd(), "--no-tap",
                                "--report", fifo, "--expectations", os.devnull])
        got.append(reader.communicate(timeout=60)[0])
    check(rc in (0, 1) and json.loads(got[0])["type"] == "devspec-report" and
          stat.S_ISFIFO(os.stat(fifo).st_mode) and not os.path.exists(fifo + ".jsonl"),
          "--report to a pipe writes the report into it and leaves the pipe in place",
          "the report through the pipe", (rc, err[-500:], got[0][:200]))


def run_on_tty(env, args, extra_env):
    """Runs devspec with its stderr on a pseudo-terminal; returns (rc, what the tty saw)."""
    import pty
    master, slave = pty.openpty()
    e = dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build)
    e.pop("NO_COLOR", None)
    e.update(extra_env)
    p = subprocess.Popen([env.devspec] + args + ["--spec", TEST_SPEC], stdout=subprocess.DEVNULL,
                         stderr=slave, env=e, cwd=env.tmp)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait()
    os.close(master)
    return p.returncode, seen.decode("utf-8", "replace")


def group_progress(env):
    args = ["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
            "--report", env.path("p.json")]
    rc, seen = run_on_tty(env, args, {})
    check("[1/12]" in seen and "\r" in seen, "a progress line on stderr when it is a terminal",
          "[1/12] with carriage returns", seen[:300])
    check("\033[31m" in seen, "the progress line uses colour on a terminal", "red", seen[:300])
    rc, seen = run_on_tty(env, args, {"NO_COLOR": "1"})
    check("[1/12]" in seen and "\033[31m" not in seen, "NO_COLOR: progress without colour",
          "no colour", seen[:300])
    rc, seen = run_on_tty(env, args + ["--no-progress"], {})
    check("[1/12]" not in seen, "--no-progress: no progress line", "none", seen[:300])
    rc, out, err = env.run(args)
    check("[1/12]" not in err, "no progress line when stderr is not a terminal", "none", err[:300])


SCHEMA_VERDICTS = r'''
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
docs = json.load(open(sys.argv[2]))
print(json.dumps([v.is_valid(d) for d in docs]))
'''


def mutations(schema_ops=()):
    """Case files around one valid case, each changed in one way that spec/schema/case.json
    decides: (name, document). Statement IDs and feature names exist in tests/spec, so the
    loader's extra rules (names must exist, IDs unique, references bound) never fire."""
    import copy
    base = {"description": "d", "cases": [{
        "id": "m.case", "description": "one case", "spec": ["T-ATTR-1"], "features": ["device-attr"],
        "steps": [{"op": "array.create", "args": {"fn": "zeros", "shape": [1]}, "as": "x"},
                  {"op": "array.describe", "args": {"array": "$x"}, "expect": {"shape": [1]}}]}]}
    out = [("the base case", base)]

    def mut(name, f):
        d = copy.deepcopy(base)
        f(d)
        out.append((name, d))

    case = lambda d: d["cases"][0]
    step = lambda d: d["cases"][0]["steps"][1]
    for k in ("description", "cases"):
        mut(f"file without {k}", lambda d, k=k: d.pop(k))
    mut("file with $schema", lambda d: d.update({"$schema": "x"}))
    mut("file description empty", lambda d: d.update(description=""))
    mut("file description a number", lambda d: d.update(description=1))
    mut("cases empty", lambda d: d.update(cases=[]))
    mut("cases an object", lambda d: d.update(cases={}))
    mut("a case that is a string", lambda d: d.update(cases=["x"]))
    for k in ("id", "description", "spec", "features", "steps"):
        mut(f"case without {k}", lambda d, k=k: case(d).pop(k))
    mut("case with an unknown field", lambda d: case(d).update(notes="x"))
    for v in ("a", "a.b-c_d", "0.9", "a..b", "A.b", "a.", ".a", "a b", "-a", "a.-b", "", 5):
        mut(f"case id {v!r}", lambda d, v=v: case(d).update(id=v))
    mut("case description empty", lambda d: case(d).update(description=""))
    mut("case description a list", lambda d: case(d).update(description=["x"]))
    for v in ([], ["T-ATTR-1", "T-ATTR-1"], ["lower-1"], ["T-1"], ["TT-ATTR-1a"], [1], "T-ATTR-1"):
        mut(f"spec {v!r}", lambda d, v=v: case(d).update(spec=v))
    for v in ([], ["device-attr", "device-attr"], ["Device-attr"], ["device_attr"], [True]):
        mut(f"features {v!r}", lambda d, v=v: case(d).update(features=v))
    for v in (1, 2, 1.0, 0, -1, 2.5, "2", True, None):
        mut(f"devices {v!r}", lambda d, v=v: case(d).update(devices=v))
    for v in (1, 4, 1024, 0, 1025, -1, 2.5, "2", None):
        mut(f"ranks {v!r}", lambda d, v=v: case(d).update(ranks=v))
    mut("expect_ranks of one rank", lambda d: step(d).update(expect_ranks=[{"shape": [1]}]))
    mut("expect_ranks empty", lambda d: step(d).update(expect_ranks=[]))
    mut("expect_ranks not a list", lambda d: step(d).update(expect_ranks={"shape": [1]}))
    mut("expect_ranks beside expect", lambda d: step(d).update(expect={"shape": [1]},
                                                                 expect_ranks=[{"shape": [1]}]))
    mut("steps empty", lambda d: case(d).update(steps=[]))
    mut("a step that is a list", lambda d: case(d)["steps"].append([]))
    mut("step without op", lambda d: step(d).pop("op"))
    mut("step with an unknown field", lambda d: step(d).update(expects=1))
    # Every op the schema allows, and some it does not.
    for v in tuple(schema_ops) + ("hello", "reset", "bye", "array.nope", 3):
        mut(f"op {v!r}", lambda d, v=v: step(d).update(op=v))
    for v in ({}, [], None, "x"):
        mut(f"args {v!r}", lambda d, v=v: step(d).update(args=v))
    # The op's own arguments (spec/ops.json, case.json's $defs/step_args).
    mut("args with a name the op does not define", lambda d: step(d)["args"].update(arr=1))
    mut("no args for an op that needs one", lambda d: step(d).pop("args"))
    mut("args for an op that takes none", lambda d: step(d).update(op="util.num_gpus"))
    mut("no args for an op that takes none", lambda d: (step(d).update(op="util.num_gpus"),
                                                        step(d).pop("args")))
    for v in ("y", "_y", "y_2", "Y", "2y", "y-z", "", 3):
        mut(f"as {v!r}", lambda d, v=v: step(d).update({"as": v}))
    for v in (None, 0, [], "anything"):
        mut(f"expect {v!r}", lambda d, v=v: step(d).update(expect=v))
    for v in ("any", "ValueError", "Value_Error2", "valueError", "Value-Error", "ANY", "", 1):
        mut(f"raises {v!r}", lambda d, v=v: (step(d).pop("expect"), step(d).update(raises=v)))
    for v in ([], [{}], [{"expect": 1}], [{"raises": "any"}, {"expect": None}],
              [{"expect": 1, "raises": "ValueError"}], [{"expect": 1, "why": "x"}], [{"raises": "x"}],
              {"expect": 1}, ["x"]):
        mut(f"either {v!r}", lambda d, v=v: (step(d).pop("expect"), step(d).update(either=v)))
    # Matchers (spec/case-format.md, "Matchers"), in an expect and inside an alternative.
    for v in ({"$len_min": 0}, {"$len_min": 3}, {"$len_min": 2.0}, {"$len_min": -1},
              {"$len_min": 1.5}, {"$len_min": "1"}, {"$len_min": True}, {"$len_min": None},
              {"$contains": 1}, {"$contains": "$D0"}, {"$contains": {"$range": [0, None]}},
              {"$contains": {"$range": [0]}}, {"$contains": {"$nope": 1}},
              {"$contains": {"a": {"$type": "int"}}}, {"$contains": [{"$type": "nope"}]},
              {"$range": [0, 100]}, {"$range": [None, 1.5]}, {"$range": [-1, None]},
              {"$range": [None, None]}, {"$range": [0]}, {"$range": [0, 1, 2]}, {"$range": []},
              {"$range": ["0", 1]}, {"$range": [0, True]}, {"$range": 5}, {"$range": {"lo": 0}},
              {"$type": "int"}, {"$type": "number"}, {"$type": "bool"}, {"$type": "string"},
              {"$type": "list"}, {"$type": "object"}, {"$type": "null"}, {"$type": "float"},
              {"$type": "Int"}, {"$type": ["int"]}, {"$type": None},
              {"$nope": 1}, {"$": 1}, {"$len_min": 1, "$type": "list"}, {"$type": "int", "a": 1},
              {"a": 1, "$type": "int"}, {"$$type": "int"}, {"$$": 1}, {"$$len_min": {"$type": "x"}},
              {"$$len_min": {"$type": "int"}}, {"shape": {"$len_min": 1}}, {"shape": [{"$type": "int"}]},
              [{"$range": [0, 1]}, {"$contains": 2}], [{"$bad": 1}],
              {"dtype": "int8", "shape": [1], "data": [1]},
              {"dtype": "int8", "shape": [1], "data": [{"$type": "int"}]},
              {"dtype": "int8", "shape": [{"$range": [1, 1]}], "data": [1]},
              {"dtype": "int8", "shape": [1], "data": [[{"$type": "int"}, 0]]},
              {"dtype": "int8", "shape": [1], "data": [1], "note": {"$type": "int"}},
              {"dtype": "int8", "shape": [1], "data": [{"$$type": "int"}]},
              {"dtype": {"$type": "string"}, "shape": [1], "data": [1]},
              {"dtype": "int8", "shape": {"$len_min": 1}, "data": [{"$type": "int"}]},
              {"dtype": 8, "shape": [1], "data": [{"$type": "int"}]},
              {"x": {"dtype": "int8", "shape": [], "data": [{"$range": [0, 1]}]}}):
        mut(f"expect {v!r}", lambda d, v=v: step(d).update(expect=v))
        mut(f"either expect {v!r}", lambda d, v=v: (step(d).pop("expect"),
                                                    step(d).update(either=[{"raises": "any"}, {"expect": v}])))
    # "stop" on an alternative.
    for v in (True, False, None, 1, "true", [], {}):
        mut(f"either stop {v!r} on an expect", lambda d, v=v: (step(d).pop("expect"),
                                                               step(d).update(either=[{"expect": 1, "stop": v}])))
        mut(f"either stop {v!r} on a raises", lambda d, v=v: (step(d).pop("expect"),
                                                              step(d).update(either=[{"raises": "any", "stop": v}])))
    # "as" on a step that may raise (case.json's $defs/step_may_raise).
    for v in ([{"raises": "any"}], [{"raises": "any", "stop": True}], [{"raises": "any", "stop": False}],
              [{"expect": 1}, {"raises": "ValueError"}], [{"expect": 1}, {"raises": "ValueError", "stop": True}],
              [{"expect": 1, "stop": True}]):
        mut(f"as on either {v!r}", lambda d, v=v: (step(d).pop("expect"),
                                                   step(d).update({"as": "y", "either": v})))
    mut("as on a raises", lambda d: (step(d).pop("expect"), step(d).update({"as": "y", "raises": "any"})))
    mut("stop on a step", lambda d: step(d).update(stop=True))
    mut("stop alone in an alternative", lambda d: (step(d).pop("expect"), step(d).update(either=[{"stop": True}])))
    mut("expect and raises", lambda d: step(d).update(raises="ValueError"))
    mut("expect and either", lambda d: step(d).update(either=[{"expect": 1}]))
    mut("raises and either", lambda d: (step(d).pop("expect"),
                                        step(d).update(raises="any", either=[{"expect": 1}])))
    return out


def group_schema(env):
    """The C loader accepts exactly what spec/schema/case.json accepts (spec/case-format.md)."""
    py = schema_validators(env)
    if not py:
        skip("the loader agrees with spec/schema/case.json", "jsonschema is not installed")
        return
    with open(os.path.join(env.source, "spec", "schema", "case.json")) as f:
        ops = json.load(f)["$defs"]["op"]["enum"]
    muts = mutations(ops)
    docs = env.path("docs.json")
    with open(docs, "w") as f:
        json.dump([d for _, d in muts], f)
    p = subprocess.run([py, "-c", SCHEMA_VERDICTS, os.path.join(env.source, "spec", "schema", "case.json"),
                        docs], capture_output=True, text=True)
    if p.returncode != 0:
        check(False, "jsonschema judged the mutations", 0, p.stderr)
        return
    verdicts = json.loads(p.stdout)
    for (name, doc), schema_ok in zip(muts, verdicts):
        path = env.path("m.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        rc, out, err = env.run(["validate", "--cases", path])
        check((rc == 0) == schema_ok and rc in (0, 2),
              f"{name}: {'accepted' if schema_ok else 'rejected'} as by the schema",
              "accepted" if schema_ok else "rejected (exit 2)", (rc, err.strip()[:300]))


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
by_id = {s["id"]: (i, dict(s, features=[f["name"] for f in fe["features"] if s["id"] in f["statements"]]))
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


def group_validators(env):
    """The two case validators, the runner's loader (devspec validate) and
    spec/tools/check.py, give the same verdict on every file: the invalid fixtures, the
    valid ones and the schema mutations."""
    py = schema_validators(env)
    if not py:
        skip("devspec validate and spec/tools/check.py agree", "jsonschema is not installed")
        return
    files = []  # (name, path, what both must say: True valid, False invalid, None either)
    inv = os.path.join(HERE, "invalid")
    files += [(f"invalid/{f}", os.path.join(inv, f), False) for f in sorted(os.listdir(inv))
              if f.endswith(".json")]
    files += [(f"cases/{f}", os.path.join(CASES, f), True) for f in sorted(os.listdir(CASES))
              if f.endswith(".json")]
    with open(os.path.join(env.source, "spec", "schema", "case.json")) as f:
        ops = json.load(f)["$defs"]["op"]["enum"]
    for i, (name, doc) in enumerate(mutations(ops)):
        path = env.path(f"mutation-{i}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        files.append((f"mutation {name}", path, None))
    p = subprocess.run([py, "-c", CHECK_VERDICTS, env.source, TEST_SPEC] + [f[1] for f in files],
                       capture_output=True, text=True)
    if p.returncode != 0:
        check(False, "spec/tools/check.py judged the files", 0, p.stderr[-2000:])
        return
    problems = json.loads(p.stdout)

    def said(ok):
        return "valid" if ok else "invalid"

    for (name, path, want), found in zip(files, problems):
        rc, out, err = env.run(["validate", "--cases", path])
        loader_ok, check_ok = rc == 0, not found
        check(rc in (0, 2) and loader_ok == check_ok and (want is None or loader_ok == want),
              f"{name}: the loader and check.py both say {said(check_ok if want is None else want)}",
              f"both {said(want) if want is not None else 'the same'}",
              f"loader: {said(loader_ok)} (exit {rc}) {err.strip()[:300]}; check.py: {found[:3]}")
    # A case that cites an informative statement alone is valid (both validators say so
    # above, cases/informative.json), runs, and counts for no profile.
    rep = env.path("informative.json")
    rc, out, err = env.run(["run", "--cases", os.path.join(CASES, "informative.json"),
                            "--adapter-cmd", fake_cmd(), "--report", rep])
    r = load_report(rep)
    check(rc == 0 and statuses(r) == {"informative.alone": "pass"} and
          all(p["cases"] + p["optional"]["cases"] == 0 for p in r["footer"]["profiles"].values()),
          "a case citing an informative statement alone runs and counts for no profile",
          "pass, 0 cases in every profile", (rc, statuses(r), r["footer"]["profiles"]))


def group_suite(env):
    rc, out, err = env.run(["validate"], spec=False)
    check(rc == 0, "the suite's case files load and validate against the real spec", 0, err[-2000:])
    so = os.path.join(env.build, "adapters", "refarray", "devspec_adapter_refarray.so")
    host = os.path.join(env.build, "adapters", "host", "devspec-adapter-host")
    if not (os.path.exists(so) and os.path.exists(host)):
        skip("devspec run --adapter refarray runs the whole suite", "refarray's adapter is not built")
        return
    statuses, reports = {}, {}
    for mode in (["--jobs", "1"], ["--jobs", "2"], ["--in-process"]):
        rep = env.path("refarray%s.json" % "".join(mode))
        junit = env.path("refarray.xml")
        trace = rep[:-5] + ".trace"
        rc, out, err = env.run(["run", "--adapter", "refarray", "--report", rep, "--junit", junit,
                                "--trace", trace] + mode,
                               spec=False, timeout=900, env={"POCL_DEVICES": os.environ.get("POCL_DEVICES", "pthread pthread")})
        what = "in process" if mode == ["--in-process"] else "out of process " + " ".join(mode)
        r = load_report(rep)
        bad = {c["id"]: (c["status"], c.get("reason", "")[:200]) for c in r["cases"]
               if c["status"] in ("fail", "error", "crash", "timeout")}
        # The runner's part: the exit status is the gate over what the report says.
        check(rc == (1 if r["footer"]["unexpected"] else 0),
              f"refarray ({what}): exit status {rc} agrees with the report's unexpected results",
              1 if r["footer"]["unexpected"] else 0, rc)
        # refarray is the suite's reference: every case passes against it, in both transports
        # (its expectations file lists nothing).
        check(rc == 0 and not bad, f"refarray ({what}): the whole suite passes, exit 0",
              "exit 0, no failing case", f"exit {rc}, {len(bad)} failing: {bad}")
        statuses[what] = {c["id"]: (c["status"], c.get("reason", "")) for c in r["cases"]}
        reports[what] = (report_core(r), drop_timing_lines(out))
        check(r["footer"]["complete"] and r["footer"]["total"] > 0,
              f"refarray ({what}): complete, every case reported", "complete", r["footer"]["counts"])
        check_schema(env, rep, rep[:-5] + ".jsonl", f"refarray {what}")
        check_junit(junit, r, f"refarray {what}")
        check_trace(env, trace, f"refarray {what}")
        check_tap(env, out, f"refarray {what}", rc == 0)
    one, two = reports["out of process --jobs 1"], reports["out of process --jobs 2"]
    check(one[0] == two[0], "refarray: --jobs 2 writes the report of --jobs 1 (apart from timings)",
          "identical", [k for k in one[0] if one[0][k] != two[0][k]])
    check(one[1] == two[1], "refarray: --jobs 2 writes the TAP of --jobs 1 (apart from timings)",
          "identical", "differs")
    a, b = statuses["out of process --jobs 2"], statuses["in process"]
    differ = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    check(a and not differ, "refarray: every case has the same status and reason in both transports",
          "identical", differ)


def _hang_suite(env, name, then=()):
    """A folder with one passing case and then one that hangs (the fake adapter's "hang"),
    followed by the cases THEN."""
    d = env.path(name)
    os.makedirs(d)
    with open(os.path.join(d, "hang.json"), "w") as f:
        json.dump({"description": "One pass, then a hang.", "cases": [
            {"id": "h.pass", "description": "passes", "spec": ["T-EQ-1"], "features": ["device-eq"],
             "steps": [{"op": "device.parse", "args": {"text": "cpu"}, "expect": "$D0"}]},
            {"id": "h.hang", "description": "hangs", "spec": ["T-STR-1"], "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "hang"}}]}] + list(then)}, f)
    return d


def group_reliability(env):
    """Bad files, bad paths, signals, concurrent runs (the runner's robustness)."""
    good = os.path.join(CASES, "pass.json")
    base = ["run", "--cases", good, "--adapter-cmd", fake_cmd(), "--no-tap"]

    # Item: nothing the runner writes replaces a file that is not regular.
    fifo = env.path("report-fifo.json")
    os.mkfifo(fifo)
    got = []
    import threading
    t = threading.Thread(target=lambda: got.append(open(fifo).read()))
    t.start()
    rc, out, err = env.run(base + ["--report", fifo], timeout=60)
    t.join(30)
    import stat as st_
    check(st_.S_ISFIFO(os.stat(fifo).st_mode), "a FIFO given as --report stays a FIFO",
          "FIFO", oct(os.stat(fifo).st_mode))
    check(rc == 0 and got and json.loads(got[0])["type"] == "devspec-report",
          "the report is written into the FIFO in place", "a report", (rc, err, got[:1]))
    check(not os.path.exists(env.path("report-fifo.jsonl")),
          "a report path that is not a regular file gets no journal beside it", "absent",
          os.listdir(env.tmp))
    rc, out, err = env.run(base + ["--report", "/dev/null", "--junit", "/dev/null"], timeout=60)
    check(rc == 0 and st_.S_ISCHR(os.stat("/dev/null").st_mode),
          "--report /dev/null --junit /dev/null: written in place, exit 0", 0, (rc, err))
    d = env.path("report-dir.json")
    os.mkdir(d)
    rc, out, err = env.run(base + ["--report", d], timeout=60)
    check(rc == 3 and "is a directory" in err.lower() and os.path.isdir(d),
          "a directory given as --report is refused, exit 3", 3, (rc, err))
    leftovers = [n for n in os.listdir(env.tmp) if ".tmp" in n]
    check(not leftovers, "no temporary file is left behind", [], leftovers)

    # Item: two runs with the same --report: the second is refused while the first writes.
    hang = _hang_suite(env, "hang")
    rep = env.path("shared.json")
    e = dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build)
    first = subprocess.Popen([env.devspec, "run", "--spec", TEST_SPEC, "--cases", hang, "--timeout", "3",
                              "--adapter-cmd", fake_cmd(), "--report", rep, "--no-tap"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
    jsonl = env.path("shared.jsonl")
    wait_for(lambda: os.path.exists(jsonl) and '"h.pass"' in open(jsonl).read())
    rc, out, err = env.run(["run", "--cases", good, "--adapter-cmd", fake_cmd(), "--report", rep,
                            "--no-tap"], timeout=60)
    check(rc == 3 and "another run is writing" in err,
          "a second run on a report path in use is refused, exit 3", 3, (rc, err))
    first.communicate(timeout=60)
    lines = load_jsonl(jsonl)
    check([l["type"] for l in lines] == ["header", "case", "case", "footer"] and
          [c["id"] for c in load_report(rep)["cases"]] == ["h.pass", "h.hang"],
          "the first run's journal and report are whole", "header case case footer",
          [l["type"] for l in lines])

    # Item: symbolic link loops in a case folder are searched once; no case is read twice.
    d = env.path("loop")
    os.makedirs(d)
    shutil.copy(good, d)
    os.symlink(".", os.path.join(d, "s1"))
    os.symlink(".", os.path.join(d, "s2"))
    t0 = time.time()
    rc, out, err = env.run(["validate", "--cases", d], timeout=60)
    check(rc == 0 and "1 case file" in out and "duplicate" not in err and time.time() - t0 < 10,
          "a folder with two self-links: each file once, valid, promptly", "valid", (rc, out, err[-300:]))
    rc, out, err = env.run(["validate", "--cases", d, "--cases", os.path.join(d, "s1", "pass.json")],
                           timeout=60)
    check(rc == 0 and "duplicate" not in err, "a file named again is not read twice", 0, (rc, err[-300:]))

    # Item: outputs are written through links, never over them. A link to the runner's own
    # stdout (as /dev/stdout is) gets the report on that stream and stays a link; a link to a
    # regular file elsewhere stays a link and the file it names gets the report, its journal
    # beside that file. /dev/stdout itself too (the runner must not replace it: as root it
    # could).
    links = env.path("links")
    os.makedirs(links)
    out_link, err_link = os.path.join(links, "out.json"), os.path.join(links, "err.xml")
    os.symlink("/proc/self/fd/1", out_link)
    os.symlink("/proc/self/fd/2", err_link)
    p = subprocess.run([env.devspec, "run", "--spec", TEST_SPEC, "--cases", good, "--adapter-cmd",
                        fake_cmd(), "--tap", "--report", out_link, "--junit", err_link],
                       capture_output=True, text=True, cwd=env.tmp,
                       env=dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build))
    check(p.returncode == 0 and os.path.islink(out_link) and os.path.islink(err_link) and
          re.search(r'"type":\s*"devspec-report"', p.stdout) and "<testsuites" in p.stderr and
          sorted(os.listdir(links)) == ["err.xml", "out.json"],
          "--report and --junit through links to the runner's stdout and stderr: written there, "
          "the links kept, nothing beside them", "links kept", (p.returncode, os.listdir(links),
                                                                p.stderr[-300:]))
    target = env.path("real-report.json")
    link = env.path("report-link.json")
    os.symlink(target, link)
    rc, out, err = env.run(base + ["--report", link])
    check(rc == 0 and os.path.islink(link) and load_report(target)["type"] == "devspec-report" and
          os.path.exists(env.path("real-report.jsonl")),
          "--report through a link to a file: the file written, the link kept, the journal "
          "beside the file", "a link", (rc, os.path.islink(link), err[-300:]))
    with open(env.path("stdout-report.txt"), "w") as fh:
        p = subprocess.run([env.devspec, "run", "--spec", TEST_SPEC, "--cases", good, "--adapter-cmd",
                            fake_cmd(), "--tap", "--report", "/dev/stdout"], stdout=fh,
                           stderr=subprocess.PIPE, text=True, cwd=env.tmp,
                           env=dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build))
    with open(env.path("stdout-report.txt")) as fh:
        written = fh.read()
    check(p.returncode == 0 and os.path.islink("/dev/stdout") and
          re.search(r'"type":\s*"devspec-report"', written),
          "--report /dev/stdout > FILE: the report reaches FILE, /dev/stdout stays a link", 0,
          (p.returncode, os.path.islink("/dev/stdout"), p.stderr[-300:]))

    # Item: outputs never overwrite inputs: --report onto the case file or the expectations
    # file, --junit onto the report or its journal, compare --html onto a report: exit 2,
    # the input intact.
    mine = env.path("mine-cases.json")
    shutil.copy(good, mine)
    exp_file = env.path("mine-expectations.txt")
    with open(exp_file, "w") as fh:
        fh.write("pass.raises-kind fail # kept\n")
    with open(mine, "rb") as fh:
        mine_before = fh.read()
    attempts = [
        (["--report", mine], "is the case file"),
        (["--report", exp_file, "--expectations", exp_file], "is the expectations file"),
        (["--report", env.path("o.json"), "--junit", env.path("o.json")], "is also --report"),
        (["--report", env.path("o.json"), "--junit", env.path("o.jsonl")],
         "is also the report's journal"),
    ]
    for extra, want in attempts:
        rc, out, err = env.run(["run", "--cases", mine, "--adapter-cmd", fake_cmd(), "--no-tap"] + extra)
        with open(mine, "rb") as fh:
            intact = fh.read() == mine_before
        with open(exp_file) as fh:
            intact = intact and fh.read() == "pass.raises-kind fail # kept\n"
        check(rc == 2 and want in err and intact, f"run {' '.join(extra[:2])}...: refused ({want})",
              2, (rc, err[-300:], intact))
    rc, out, err = env.run(base + ["--report", env.path("ra.json")])
    shutil.copy(env.path("ra.json"), env.path("rb.json"))
    with open(env.path("ra.json"), "rb") as fh:
        ra = fh.read()
    rc, out, err = env.run(["compare", env.path("ra.json"), env.path("rb.json"), "--html",
                            env.path("ra.json"), "--spec", TEST_SPEC, "--cases", good])
    with open(env.path("ra.json"), "rb") as fh:
        same = fh.read() == ra
    check(rc == 2 and "is the report" in err and same,
          "compare A B --html A: refused, A intact", 2, (rc, err[-300:], same))

    # Item: C1 controls and bidirectional overrides in a library's text are shown escaped
    # (\u009b, \u202e) in TAP, the summary and compare's table, never passed to the terminal.
    bidi_case = env.path("bidi.json")
    with open(bidi_case, "w") as fh:
        json.dump({"description": "A message with hidden controls.", "cases": [
            {"id": "b.bidi", "description": "bidi", "spec": ["T-STR-1"], "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "bidi"}}]}]}, fh)
    rc, out, err = env.run(["run", "--cases", bidi_case, "--adapter-cmd", fake_cmd(), "--tap",
                            "--report", env.path("bidi-report.json")])
    rc2, table, err2 = env.run(["compare", env.path("bidi-report.json"), "--by", "case", "--details", "--plain",
                                "--spec", TEST_SPEC, "--cases", bidi_case])
    hidden = ["\u009b", "\u202e", "\u202c", "\u2066"]
    shown = ["\\u009b", "\\u202e", "\\u202c", "\\u2066"]
    check(rc == 1 and rc2 == 0 and not any(h in out + err + table for h in hidden) and
          all(w in out and w in err and w in table for w in shown),
          "C1 and bidirectional controls from a library: escaped in TAP, the summary and compare",
          shown, (rc, rc2, [h for h in hidden if h in out + err + table], out[-300:], table[-300:]))

    # Item: an adapter that exits while a child it forked still holds its stdout is a crash,
    # not a timeout, and without a timeout (--timeout 0) the run does not wait for ever.
    fork_case = env.path("fork-exit.json")
    with open(fork_case, "w") as fh:
        json.dump({"description": "An adapter that exits leaving a child.", "cases": [
            {"id": "f.exit", "description": "fork, then exit", "spec": ["T-STR-1"],
             "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "fork-exit"}}]},
            {"id": "f.after", "description": "the next case runs", "spec": ["T-STR-1"],
             "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "cpu"}}]}]}, fh)
    for timeout in ("0", "30"):
        t0 = time.time()
        rep = env.path(f"fork-{timeout}.json")
        rc, out, err = env.run(["run", "--cases", fork_case, "--adapter-cmd", fake_cmd(), "--no-tap",
                                "--jobs", "1", "--timeout", timeout, "--report", rep], timeout=60)
        r = load_report(rep) if os.path.exists(rep) else {"cases": []}
        st = {c["id"]: (c["status"], c.get("reason", "")) for c in r["cases"]}
        check(rc == 1 and st.get("f.exit", ("",))[0] == "crash" and
              "still held its stdout" in st["f.exit"][1] and "status 4" in st["f.exit"][1] and
              st.get("f.after", ("",))[0] == "pass" and time.time() - t0 < 20,
              f"--timeout {timeout}: an adapter that exits leaving a child holding stdout is a "
              "crash, at once; the next case runs", "crash, pass", (rc, st, err[-300:]))

    # Item: a link to a folder outside the folder given (here to /) is not followed, and is
    # named; a link to a folder inside it is.
    d = env.path("link-out")
    os.makedirs(os.path.join(d, "sub"))
    shutil.copy(good, os.path.join(d, "sub"))
    os.symlink("/", os.path.join(d, "root"))
    os.symlink("sub", os.path.join(d, "inner"))
    rc, out, err = env.run(["validate", "--cases", d], timeout=60)
    check(rc == 0 and "1 case file" in out and "root: not searched: a symbolic link to /" in err,
          "a case folder holding a link to /: not followed, named, the run goes on", 0,
          (rc, out, err[-400:]))

    # Item: only regular files are case files (a FIFO would block open() forever).
    f = env.path("fifo.json")
    os.mkfifo(f)
    rc, out, err = env.run(["validate", "--cases", f], timeout=20)
    check(rc == 2 and "not a regular file" in err, "a FIFO as --cases: exit 2, not a regular file", 2, (rc, err))
    d = env.path("fifo-dir")
    os.makedirs(d)
    shutil.copy(good, d)
    os.mkfifo(os.path.join(d, "g.json"))
    rc, out, err = env.run(["validate", "--cases", d], timeout=20)
    check(rc == 2 and "g.json: not a regular file" in err, "a *.json FIFO in a case folder: exit 2, named",
          2, (rc, err))

    # Item: loading is linear: 200k keys in one object, 20k cases in one file.
    big = env.path("keys.json")
    with open(big, "w") as fh:
        keys = ",".join(f'"k{i}": {i}' for i in range(200000))
        fh.write('{"description": "many keys", "cases": [{"id": "k.one", "spec": ["T-EQ-1"], '
                 '"features": ["device-eq"], "steps": [{"op": "device.parse", "args": {"text": "cpu"}, '
                 '"expect": {"$$": 1, ' + keys + '}}]}]}')
    t0 = time.time()
    rc, out, err = env.run(["validate", "--cases", big], timeout=300)
    dt_keys = time.time() - t0
    check(dt_keys < 10, f"an object of 200k keys loads in {dt_keys:.2f} s (< 10 s)", "< 10 s", (rc, err[-300:]))
    many = env.path("cases.json")
    with open(many, "w") as fh:
        json.dump({"description": "many cases", "cases": [
            {"id": f"m.c{i}", "spec": ["T-EQ-1"], "features": ["device-eq"],
             "steps": [{"op": "device.parse", "args": {"text": "cpu"}, "expect": "$D0"}]}
            for i in range(20000)]}, fh)
    t0 = time.time()
    rc, out, err = env.run(["validate", "--cases", many], timeout=300)
    dt_cases = time.time() - t0
    check(rc == 0 and dt_cases < 2, f"20k cases load in {dt_cases:.2f} s (< 2 s)", "< 2 s", (rc, err[-300:]))
    print(f"# loading: 200k keys {dt_keys:.3f} s, 20k cases {dt_cases:.3f} s")

    # Item: a NUL anywhere is an error naming file, line and column.
    nul = env.path("nul.json")
    with open(good, "rb") as fh, open(nul, "wb") as out_:
        data = fh.read()
        out_.write(data + b"\0\n{}")
    lines_before = data.count(b"\n") + 1
    rc, out, err = env.run(["validate", "--cases", nul])
    check(rc == 2 and f"nul.json:{lines_before}:" in err and "NUL" in err,
          "a NUL after a valid case document is an error with its line", f"nul.json:{lines_before}:", err)
    ex = env.path("nul.txt")
    with open(ex, "wb") as fh:
        fh.write(b"x pass\0\nrel.bad.one fail\n")
    rc, out, err = env.run(base + ["--expectations", ex, "--report", env.path("n.json")])
    check(rc == 2 and "nul.txt:1:7:" in err and "NUL" in err,
          "a NUL in an expectations file is an error with line and column", "nul.txt:1:7: NUL", (rc, err))

    # Item: expectations files are UTF-8; a directory is named as one; a case file is not a report.
    with open(ex, "wb") as fh:
        fh.write(b"pass.* fail # caf\xe9\n")
    rc, out, err = env.run(base + ["--expectations", ex, "--report", env.path("n.json")])
    check(rc == 2 and "nul.txt:1:" in err and "UTF-8" in err, "invalid UTF-8 in an expectations file: exit 2",
          2, (rc, err))
    rc, out, err = env.run(base + ["--expectations", env.tmp, "--report", env.path("n.json")])
    check(rc == 2 and "Is a directory" in err, "--expectations DIR says it is a directory", "Is a directory", err)
    rc, out, err = env.run(["expectations", good])
    check(rc == 2 and "not a devspec JSON report" in err, "devspec expectations CASEFILE: exit 2", 2, (rc, err))

    # Item: timeouts must be finite numbers in range.
    for opt in ("--timeout", "--start-timeout"):
        for v in ("nan", "inf", "1e400", "-1", "1e7"):
            rc, out, err = env.run(base + [opt, v, "--report", env.path("t.json")])
            check(rc == 2 and opt in err, f"{opt} {v} is refused, exit 2", 2, (rc, err))

    # Item: list, coverage and validate stop on SIGTERM and SIGINT.
    sig_dir = env.path("sig-cases")
    os.makedirs(sig_dir)
    for i in range(40):
        with open(os.path.join(sig_dir, f"c{i:02}.json"), "w") as fh:
            json.dump({"description": "many cases", "cases": [
                {"id": f"s{i}.c{k}", "spec": ["T-EQ-1"], "features": ["device-eq"],
                 "steps": [{"op": "device.parse", "args": {"text": "cpu"}, "expect": "$D0"}]}
                for k in range(20000)]}, fh)
    for cmd in ("validate", "list", "coverage"):
        for sig in (signal.SIGTERM, signal.SIGINT):
            p = subprocess.Popen([env.devspec, cmd, "--spec", TEST_SPEC, "--cases", sig_dir],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e, cwd=env.tmp)
            time.sleep(0.3)
            t0 = time.time()
            p.send_signal(sig)
            try:
                p.communicate(timeout=10)
                stopped = time.time() - t0
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                stopped = None
            check(stopped is not None and stopped < 5, f"{cmd} stops promptly on {sig.name}", "< 5 s", stopped)
    shutil.rmtree(sig_dir)

    # Item: the signal is recorded as the one that came; SIGINT during hello is an interruption.
    # One worker and two: the case in flight is recorded in both paths of the runner.
    for sig, jobs in ((signal.SIGTERM, "1"), (signal.SIGINT, "2")):
        rep = env.path(f"sig-{sig.name}.json")
        p = subprocess.Popen([env.devspec, "run", "--spec", TEST_SPEC, "--cases", hang, "--timeout", "60",
                              "--jobs", jobs, "--adapter-cmd", fake_cmd(), "--report", rep, "--no-tap"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
        jl = rep[:-5] + ".jsonl"
        wait_for(lambda: os.path.exists(jl) and '"h.pass"' in open(jl).read())
        time.sleep(0.3)
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        r = load_report(rep)
        check(p.returncode == 3 and r["footer"].get("incomplete_reason") == f"interrupted ({sig.name})",
              f"{sig.name} is recorded as {sig.name}", f"interrupted ({sig.name})",
              r["footer"].get("incomplete_reason"))
        check("no case ran" not in err, f"{sig.name}: no false 'no case ran' warning", "", err)
        last = r["cases"][-1] if r["cases"] else {}
        check(last.get("id") == "h.hang" and last.get("skip_source") == "interrupted" and
              last.get("reason", "").startswith(f"interrupted ({sig.name}) at step 0"),
              f"{sig.name}, --jobs {jobs}: the case in flight is kept as interrupted",
              f"h.hang interrupted ({sig.name})", last)
    rep = env.path("sig-hello.json")
    p = subprocess.Popen([env.devspec, "run", "--spec", TEST_SPEC, "--cases", hang, "--adapter-cmd",
                          fake_cmd("--hang-hello"), "--report", rep, "--no-tap"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    r = load_report(rep)
    check(p.returncode == 3 and r["footer"]["interrupted"] is True and "could not start" not in err,
          "SIGINT during hello: interrupted, not 'could not start'", "interrupted", (r["footer"], err))

    # Item: a runner killed outright takes its worker with it, and the worker's children:
    # an --adapter-cmd shell that does not exec runs the adapter as its child, in its group.
    def kill_runner(name, command, what):
        """Kills a runner whose one worker hangs; checks WHAT (the worker, or the children of
        a worker's shell) dies too. The worker writes its pid to NAME.pid."""
        pidf = env.path(name + ".pid")
        p = subprocess.Popen([env.devspec, "run", "--spec", TEST_SPEC, "--cases", hang, "--timeout",
                              "60", "--jobs", "1", "--adapter-cmd", f"echo $$ > {pidf}; " + command,
                              "--report", env.path(name + ".json"), "--no-tap"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
        jl = env.path(name + ".jsonl")
        wait_for(lambda: os.path.exists(jl) and '"h.pass"' in open(jl).read())
        time.sleep(0.3)
        wpid = int(open(pidf).read())
        watched = [wpid] if what == "worker" else children(wpid)
        p.kill()
        p.communicate()
        gone = wait_for(lambda: not any(alive(k) for k in watched), 10)
        check(len(watched) == 1 and gone, f"SIGKILL of the runner: the hung {what} dies too",
              f"one {what}, gone", watched)
        for k in watched:
            if alive(k):
                os.kill(k, signal.SIGKILL)
    kill_runner("killed", fake_cmd(), "worker")
    kill_runner("killed-shell", fake_cmd()[len("exec "):] + "; true", "child of the worker's shell")

    # Item: adapters/adapters.json is checked like a case file, every problem located.
    src = env.path("fake-source")
    os.makedirs(os.path.join(src, "adapters"))
    ok_entry = {"name": "x", "description": "d", "command": [sys.executable, FAKE]}
    bad = [
        ('{"adapters": [', "invalid JSON", ":1:"),
        ({"adapters": [dict(ok_entry, command="python3 fake.py")]}, "adapters[0].command: must be a non-empty list", ":1:"),
        ({"adapters": [dict(ok_entry, command=[sys.executable, 7])]}, "adapters[0].command[1]: must be a string", ":1:"),
        ({"adapters": [dict(ok_entry, env=["A=1"])]}, "adapters[0].env: must be an object", ":1:"),
        ({"adapters": [dict(ok_entry, env={"A": 1})]}, "adapters[0].env.A: must be a string", ":1:"),
        ({"adapters": [dict(ok_entry, command=[sys.executable + "\u0000x", FAKE])]},
         "adapters[0].command[0]: must be a string without NUL", ":1:"),
        ({"adapters": [ok_entry, ok_entry]}, "adapters[1].name: the name \"x\" is given twice", ":1:"),
        ({"adapters": [dict(ok_entry, comand=["x"])]}, "adapters[0].comand: unknown field", ":1:"),
    ]
    for doc, want, loc in bad:
        text = doc if isinstance(doc, str) else json.dumps(doc).replace("\\\\u0000", "\\u0000")
        with open(os.path.join(src, "adapters", "adapters.json"), "w") as fh:
            fh.write(text)
        rc, out, err = env.run(["run", "--cases", good, "--adapter", "x", "--no-tap",
                                "--report", env.path("a.json")], env={"DEVSPEC_SOURCE": src})
        check(rc == 3 and want in err and "adapters.json" + loc in err and "unknown adapter" not in err,
              f"adapters.json: {want}", want, (rc, err[-400:]))
    with open(os.path.join(src, "adapters", "adapters.json"), "w") as fh:
        json.dump({"adapters": [dict(ok_entry, env={"A": "1"})]}, fh)
    rc, out, err = env.run(["run", "--cases", good, "--adapter", "x", "--no-tap",
                            "--report", env.path("a.json")], env={"DEVSPEC_SOURCE": src})
    check(rc == 0, "a valid adapters.json entry runs", 0, (rc, err[-400:]))

    # Item: a reply over the protocol's 64 MiB limit is a protocol violation however it
    # arrives (here in one write), not accepted because one read happened to end the line.
    big_case = env.path("oversized.json")
    with open(big_case, "w") as fh:
        json.dump({"description": "An oversized reply.", "cases": [
            {"id": "o.big", "description": "65 MiB", "spec": ["T-STR-1"], "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "oversized"}}]}]}, fh)
    rc, out, err = env.run(["run", "--cases", big_case, "--adapter-cmd", fake_cmd(), "--no-tap",
                            "--report", env.path("big.json")], timeout=120)
    r = load_report(env.path("big.json"))
    check(rc == 1 and r["cases"][0]["status"] == "error" and "limit" in r["cases"][0]["reason"],
          "a 65 MiB reply is a protocol error naming the limit", "error", (rc, r["cases"][0].get("reason"), err[-300:]))

    # Item: a journal that cannot be written (a full disk: here a file size limit, with
    # SIGXFSZ ignored so that write() fails with EFBIG) is said and exits 3.
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    p = subprocess.run([env.devspec, "run", "--spec", TEST_SPEC, "--cases", good, "--adapter-cmd",
                        fake_cmd(), "--no-tap", "--report", env.path("full.json")],
                       capture_output=True, text=True, env=e, cwd=env.tmp, preexec_fn=small_files,
                       timeout=120)
    check(p.returncode == 3 and "cannot write" in p.stderr and "full.jsonl" in p.stderr,
          "a journal cut short by a full disk: said, exit 3", 3, (p.returncode, p.stderr[-400:]))

    # Item: every failed write changes the exit status.
    if os.path.exists("/dev/full"):
        rc, out, err = env.run(base + ["--report", env.path("w.json")])
        with open(env.path("w.json")) as fh:
            pass
        with open("/dev/full", "w") as full:
            p = subprocess.run([env.devspec, "expectations", env.path("w.json")], stdout=full,
                               stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
        check(p.returncode == 3 and "standard output" in p.stderr,
              "devspec expectations > /dev/full: exit 3, said", 3, (p.returncode, p.stderr))
        with open("/dev/full", "w") as full:
            p = subprocess.run([env.devspec] + base[:1] + ["--spec", TEST_SPEC] + base[1:-1] +
                               ["--tap", "--report", env.path("w2.json")], stdout=full,
                               stderr=subprocess.PIPE, text=True, env=e, cwd=env.tmp)
        check(p.returncode == 3 and "standard output" in p.stderr,
              "TAP to /dev/full: exit 3, said", 3, (p.returncode, p.stderr))
        rc, out, err = env.run(base + ["--report", "/dev/full"])
        check(rc == 3 and "/dev/full" in err, "--report /dev/full: exit 3, named", 3, (rc, err))
    else:
        skip("write failures", "no /dev/full")


def peak_run(env, args, timeout=600):
    """Runs the runner with ARGS as env.run does; returns (exit status, stdout, stderr, its
    peak resident memory in bytes: VmHWM sampled from /proc while it runs)."""
    e = dict(os.environ, DEVSPEC_SOURCE=env.source, DEVSPEC_BUILD=env.build)
    cmd = [env.devspec] + args + ["--spec", TEST_SPEC]
    out_path, err_path = env.path("peak.out"), env.path("peak.err")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=e, cwd=env.tmp)
        hwm, t0 = 0, time.time()
        while p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/status") as fh:
                    for line in fh:
                        if line.startswith("VmHWM:"):
                            hwm = max(hwm, int(line.split()[1]) * 1024)
            except (OSError, ValueError):
                pass
            if time.time() - t0 > timeout:
                p.kill()
            time.sleep(0.002)
    with open(out_path) as o, open(err_path) as r:
        return p.returncode, o.read(), r.read(), hwm


def big_cases(path, kind, size, copies=1):
    """A case file of COPIES cases, each one step answered by a typed array of about SIZE
    bytes whose last element differs (the fake adapter's "big-KIND:SIZE")."""
    dtype, each = {"int": ("int64", 0), "float": ("float64", 0.30000000000000004),
                   "bool": ("bool", True)}[kind]
    cases = [{"id": f"big.{kind}.{i}", "description": "a large reply", "spec": ["T-STR-1"],
              "features": ["device-string"],
              "steps": [{"op": "device.parse", "args": {"text": f"big-{kind}:{size}"},
                         "expect": {"dtype": dtype, "data": {"$each": each}}}]}
             for i in range(copies)]
    with open(path, "w") as fh:
        json.dump({"description": "Large replies.", "cases": cases}, fh)


def group_memory(env):
    """The runner's memory is bounded by the reply, not by its elements or its failures."""
    with open(env.devspec, "rb") as fh:
        sanitized = b"__asan_init" in fh.read()
    limit = 64 << 20
    size = limit - 4096
    for kind in ("int", "float", "bool"):
        cases = env.path(f"big-{kind}.json")
        big_cases(cases, kind, size)
        report = env.path(f"big-{kind}-report.json")
        rc, out, err, peak = peak_run(env, ["run", "--cases", cases, "--adapter-cmd", fake_cmd(),
                                            "--no-tap", "--jobs", "1", "--timeout", "300",
                                            "--report", report])
        r = load_report(report)
        c = r["cases"][0]
        n = c.get("observed", {}).get("shape", [0])[0]
        summary = c.get("observed", {}).get("data", {}).get("$summary", {})
        check(rc == 1 and c["status"] == "fail" and f".data[{n - 1}]" in c["reason"],
              f"a {kind} reply at the limit is read whole and fails at its last element",
              f"fail at .data[{n - 1}]", (rc, c.get("reason"), err[-300:]))
        check(summary.get("count") == n and len(summary.get("first", [])) == 8 and
              len(summary.get("last", [])) == 8 and len(summary.get("sha256", "")) == 64,
              f"{kind}: the report keeps a summary of the observed data (count, ends, hash)",
              n, summary)
        check(os.path.getsize(report) < 65536,
              f"{kind}: the report stays small ({os.path.getsize(report)} bytes)", "< 64 KiB",
              os.path.getsize(report))
        print(f"# {kind}: reply {size} bytes, runner peak {peak / 2**20:.1f} MiB = "
              f"{peak / size:.2f} x the reply")
        if sanitized:
            skip(f"{kind}: peak memory <= 3 x the reply", "AddressSanitizer's own memory")
        else:
            check(peak <= 3 * size, f"{kind}: the runner's peak memory is at most 3 x the reply",
                  f"<= {3 * size}", peak)

    # Failed cases keep summaries only: four failing 16 MB replies cost what one does. TAP and
    # JUnit quote values within bounds too.
    one, four = env.path("big-one.json"), env.path("big-four.json")
    big_cases(one, "int", 16 << 20, 1)
    big_cases(four, "int", 16 << 20, 4)
    rc1, out1, err1, peak1 = peak_run(env, ["run", "--cases", one, "--adapter-cmd", fake_cmd(),
                                            "--no-tap", "--jobs", "1", "--report",
                                            env.path("one.json")])
    rc4, out4, err4, peak4 = peak_run(env, ["run", "--cases", four, "--adapter-cmd", fake_cmd(),
                                            "--tap", "--jobs", "1", "--report",
                                            env.path("four.json"), "--junit",
                                            env.path("four.xml")])
    print(f"# one failing 16 MiB reply: peak {peak1 / 2**20:.1f} MiB; four: {peak4 / 2**20:.1f} MiB")
    if sanitized:
        skip("four failing cases cost what one does", "AddressSanitizer's own memory")
    else:
        check(rc1 == 1 and rc4 == 1 and peak4 <= peak1 + (4 << 20),
              "four failing large replies: the peak does not grow with the failures",
              f"<= {peak1 + (4 << 20)}", (rc1, rc4, peak4))
    check(len(out4) < 65536 and os.path.getsize(env.path("four.xml")) < 65536 and
          os.path.getsize(env.path("four.jsonl")) < 65536,
          "TAP, JUnit and the journal of four large failures stay small", "< 64 KiB each",
          (len(out4), os.path.getsize(env.path("four.xml")), os.path.getsize(env.path("four.jsonl"))))

    # Outside the data of typed arrays a reply holds at most 65536 values.
    lst = env.path("big-list.json")
    with open(lst, "w") as fh:
        json.dump({"description": "A long plain list.", "cases": [
            {"id": "big.list", "description": "100k values", "spec": ["T-STR-1"],
             "features": ["device-string"],
             "steps": [{"op": "device.parse", "args": {"text": "big-list:200000"}}]}]}, fh)
    rc, out, err = env.run(["run", "--cases", lst, "--adapter-cmd", fake_cmd(), "--no-tap",
                            "--report", env.path("list.json")])
    c = load_report(env.path("list.json"))["cases"][0]
    check(rc == 1 and c["status"] == "error" and "65536 values" in c["reason"],
          "a reply of 100k values outside typed arrays is a protocol error naming the limit",
          "error", (rc, c.get("reason")))


def group_lacks(env):
    """A library that lacks a function (the fake adapter's --lacks ones): the adapter's error
    carries "lacks"; it never satisfies raises nor an either alternative; the case's status is
    lacks, unexpected unless an expectations entry covers it; a case whose features are not
    all claimed is a skip as before; the closing line, TAP, JUnit, the report and the profile
    verdict say what is lacking."""
    cases = os.path.join(CASES, "lacks.json")
    feats = "device-attr,device-eq,creation-device-kw,to-device"
    rep, junit, trace = env.path("lacks.json"), env.path("lacks.xml"), env.path("lacks.trace")
    rc, out, err = env.run(["run", "--cases", cases, "--adapter-cmd",
                            fake_cmd("--lacks", "ones", "--features", feats),
                            "--report", rep, "--junit", junit, "--trace", trace])
    r = load_report(rep)
    st = statuses(r)
    want = {"lacks.plain": "lacks", "lacks.not-a-raise": "lacks", "lacks.not-an-alternative": "lacks",
            "lacks.not-needed": "pass", "lacks.unclaimed": "skip"}
    check(st == want, "what the library lacks is neither an expected error nor an either alternative: "
          "status lacks; an unclaimed feature is still a skip", want, st)
    check(rc == 1 and r["footer"]["gate"]["exit_status"] == 1, "lacks is unexpected: exit 1", 1, rc)
    by = {c["id"]: c for c in r["cases"]}
    check(by["lacks.plain"].get("lacks") == ["ones"] and by["lacks.plain"].get("step") == 0,
          "the case record names what is lacking, and the step", ["ones"], by["lacks.plain"])
    check(r["footer"]["counts"]["lacks"] == 3, "the footer counts lacks", 3, r["footer"]["counts"])
    core = r["footer"]["profiles"]["test-core"]
    check(core["verdict"] == "does-not-conform" and core["lacks"] == ["ones"],
          "a profile that needs what the library lacks does not conform, and says what it lacks",
          "does-not-conform, lacks ones", core)
    check_schema(env, rep, rep[:-5] + ".jsonl", "lacks.json")
    check_trace(env, trace, "lacks.json (replies with lacks)")
    check_junit(junit, r, "lacks.json")
    with open(junit) as f:
        xml = f.read()
    check('<failure type="lacks"' in xml, "JUnit: a lacks is a failure of type lacks", "type=lacks", xml[:300])
    check('status: "lacks"' in out and 'lacks: "ones"' in out, "TAP: the YAML block says lacks and what",
          'lacks: "ones"', out[-800:])
    check_tap(env, out, "lacks run", False)
    last = err.rstrip("\n").split("\n")[-1]
    check(re.fullmatch(r"1 passed, 0 failed, 1 skipped, 0 errors, 3 lacking in \d+\.\d\d s", last) is not None,
          "the closing line counts the cases lacking", "1 passed, ..., 3 lacking in T s", last)
    check("\n  3 x lacks at step 0 (array.create): the library lacks ones" in err and
          "\n      e.g. lacks.plain: " in err,
          "the summary groups the unexpected results by cause, with a count and an example",
          "3 x lacks at step 0 ...", err[:800])
    check("test-core" in err and "does-not-conform: lacks ones" in err,
          "the summary's verdict says what the library lacks", "does-not-conform: lacks ones", err[-800:])
    # An expectations entry covers it: then an expected failure of that class.
    exp = env.path("lacks.txt")
    with open(exp, "w") as f:
        f.write("lacks.plain lacks # the library has no ones\nlacks.not-a-raise fail # not that class\n")
    rc, out, err = env.run(["run", "--cases", cases, "--adapter-cmd",
                            fake_cmd("--lacks", "ones", "--features", feats),
                            "--expectations", exp, "--report", env.path("lacks-x.json")])
    st = statuses(load_report(env.path("lacks-x.json")))
    check(st["lacks.plain"] == "xfail" and st["lacks.not-a-raise"] == "lacks",
          "an expectations entry 'lacks' covers a lacks (xfail); a 'fail' entry does not", "xfail lacks",
          (st["lacks.plain"], st["lacks.not-a-raise"]))
    # A library that has ones passes the same cases: the lack is the only difference.
    rc, out, err = env.run(["run", "--cases", cases, "--adapter-cmd", fake_cmd("--features", feats),
                            "--report", env.path("has.json")])
    st = statuses(load_report(env.path("has.json")))
    check(rc == 1 and st["lacks.plain"] == "pass" and st["lacks.not-an-alternative"] == "pass",
          "the same cases pass against the library that has ones (not-a-raise fails: ones([-1]) works there)",
          "pass", st)


GROUPS = {"load": group_load, "judge": group_judge, "ranks": group_ranks, "spmd": group_spmd, "isolation": group_isolation,
          "expectations": group_expectations, "sigint": group_sigint,
          "inprocess": group_inprocess, "filters": group_filters, "coverage": group_coverage,
          "cli": group_cli, "progress": group_progress, "schema": group_schema,
          "validators": group_validators, "suite": group_suite,
          "reliability": group_reliability, "memory": group_memory, "lacks": group_lacks}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devspec", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--null-program")
    ap.add_argument("--null-so")
    ap.add_argument("group", choices=sorted(GROUPS))
    a = ap.parse_args()
    env = Env(a)
    print("TAP version 13")
    try:
        GROUPS[a.group](env)
    except Exception as e:  # a broken expectation of the test itself is a failure, not a crash
        import traceback
        check(False, f"group {a.group} ran to the end", "no exception",
              repr(e) + " " + traceback.format_exc()[-600:])
    finally:
        shutil.rmtree(env.tmp, ignore_errors=True)
    sys.exit(plan())


if __name__ == "__main__":
    main()
