"""devspec repro for a C adapter: refarray run on cases with deliberately wrong expectations
(repro/wrong.json), each failing case given its reproducer in the report and the summary, and
`devspec repro` writing each as a replay file of requests that devspec-adapter-host feeds to
the adapter without the runner, getting the replies of the run; the usage errors of
`devspec repro`. The Python path is adapters/python/tests/test_repro.py."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest
from support import HANG, Env, check_schema, load_report, why

WRONG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro", "wrong.json")
FAILING = {"repro.wrong-dtype", "repro.wrong-raises"}


def refarray(env: Env) -> tuple[str, str]:
    host = os.path.join(env.build, "adapters", "host", "devspec-adapter-host")
    so = os.path.join(env.build, "adapters", "refarray", "devspec_adapter_refarray.so")
    if not (os.access(host, os.X_OK) and os.path.exists(so)):
        pytest.skip("refarray's adapter is not built")
    return host, so


def run_wrong(env: Env, *extra: str) -> tuple[str, str]:
    """Runs refarray on repro/wrong.json; returns (the report's path, the summary)."""
    report = env.path("refarray.json")
    rc, out, err = env.run(["run", "--adapter", "refarray", "--cases", WRONG, "--report", report,
                            "--no-tap", "--no-progress", "--jobs", "1", *extra], spec=False)
    assert rc == 1, why("the wrong cases fail the run", 1, (rc, err[-2000:]))
    return report, out + err


def replies(host: str, so: str, requests: str) -> list[dict[str, Any]]:
    p = subprocess.run([host, so], input=requests, capture_output=True, text=True, timeout=HANG)
    assert p.returncode == 0, why("the host replays the file and exits 0", 0, p.stderr[-2000:])
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_each_failure_names_its_reproducer(env: Env) -> None:
    refarray(env)
    report, summary = run_wrong(env)
    doc = load_report(report)
    named = {c["id"]: c.get("reproducer") for c in doc["cases"]}
    base = report[:-len(".json")] + "-repro"
    for cid in FAILING:
        assert named[cid] == {"command": "devspec repro %s --case %s" % (report, cid),
                              "file": "%s/%s.jsonl" % (base, cid)}, why(
            "a failing case's reproducer in the report", cid, named[cid])
    assert named["repro.right-device"] is None, why("a pass has none", None, named)
    line = "reproducers: devspec repro %s writes %s/<case id>.jsonl for each of the 2 failures" % (
        report, base)
    assert line in summary, why("the summary names the reproducers", line, summary[-2000:])
    check_schema(env, report, report[:-len(".json")] + ".jsonl", "repro")


def test_replay_files_replay_the_failure_without_the_runner(env: Env) -> None:
    host, so = refarray(env)
    report, _ = run_wrong(env)
    rc, out, err = env.run(["repro", report])
    assert rc == 0, why("devspec repro succeeds", 0, (rc, err))
    files = sorted(out.split())
    base = report[:-len(".json")] + "-repro"
    assert files == sorted("%s/%s.jsonl" % (base, c) for c in FAILING), why(
        "one replay file per failing case", FAILING, files)
    assert "devspec-adapter-host" in err and "< %s/CASE.jsonl" % base in err, why(
        "the command that replays a file is printed", "devspec-adapter-host ... < FILE", err)
    assert sorted(os.listdir(base)) == sorted(os.path.basename(f) for f in files), why(
        "nothing but the replay files is left", files, os.listdir(base))
    for path in files:
        cid = os.path.basename(path)[:-len(".jsonl")]
        with open(path, encoding="utf-8") as f:
            text = f.read()
        sent = [json.loads(line) for line in text.splitlines()]
        assert sent[0]["op"] == "hello" and sent[-1]["op"] == "bye", why(
            "a session from hello to bye", "hello ... bye", [r["op"] for r in sent])
        # The same case run by the runner alone, traced: the replay gets the same replies.
        trace = env.path(cid + ".trace")
        env.run(["run", "--adapter", "refarray", "--cases", WRONG, "--case", cid, "--jobs", "1",
                 "--trace", trace, "--report", env.path(cid + ".json"), "--no-tap",
                 "--no-progress"], spec=False)
        with open(trace, encoding="utf-8") as f:
            traced = [json.loads(line[2:]) for line in f if line.startswith("< ")]
        got = replies(host, so, text)
        assert got == traced, why("the replay's replies are the run's", traced, got)
    with open("%s/repro.wrong-dtype.jsonl" % base, encoding="utf-8") as f:
        got = replies(host, so, f.read())
    described = [r["result"] for r in got
                 if isinstance(r.get("result"), dict) and "dtype" in r["result"]]
    assert described and described[0]["dtype"] == "float32", why(
        "the replay shows what the report observed (float32 where float64 was wanted)",
        "float32", described)


def test_case_glob_and_out(env: Env) -> None:
    refarray(env)
    report, _ = run_wrong(env)
    out_dir = env.path("mine")
    rc, out, err = env.run(["repro", report, "--case", "*-dtype", "--out", out_dir])
    assert rc == 0 and out.split() == [out_dir + "/repro.wrong-dtype.jsonl"], why(
        "--case picks the failures it matches, --out where they go",
        out_dir + "/repro.wrong-dtype.jsonl", (rc, out, err))


@pytest.mark.parametrize("args, message", [
    ([], "needs one report"),
    (["nowhere.json"], "cannot read the report nowhere.json"),
    (["notjson.json"], "notjson.json is not JSON"),
    (["other.json"], "other.json is not a devspec report"),
])
def test_usage_errors(env: Env, args: list[str], message: str) -> None:
    with open(env.path("notjson.json"), "w") as f:
        f.write("{")
    with open(env.path("other.json"), "w") as f:
        f.write('{"cases": 1}')
    rc, _, err = env.run(["repro", *args])
    assert rc == 2 and message in err, why("devspec repro refuses it, naming why", message,
                                           (rc, err))


def test_relative_case_paths_are_found_from_the_source_tree(env: Env) -> None:
    """A run given --cases relative to the checkout, reproduced from elsewhere: the report's
    relative path is looked up in the source tree."""
    refarray(env)
    report = env.path("relative.json")
    rel = os.path.relpath(WRONG, env.source)
    rc, _, err = env.run(["run", "--adapter", "refarray", "--cases", rel, "--report", report,
                          "--no-tap", "--no-progress", "--jobs", "1"], spec=False, cwd=env.source)
    assert rc == 1, why("the wrong cases fail the run", 1, (rc, err[-2000:]))
    assert load_report(report)["header"]["config"]["cases"] == [rel]
    rc, out, err = env.run(["repro", report, "--out", env.path("rel")])
    assert rc == 0 and len(out.split()) == 2, why("both failures are run again from the "
                                                  "checkout's case file", 2, (rc, out, err))
