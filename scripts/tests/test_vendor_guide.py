"""The vendor guide (adapters/README.md, "For vendors") against the suite and the runner: every
figure it gives is the suite's today (the `call` cases that need a second device, the template's
counts), the features it names for a library with no host device are those of every case that
names `cpu`, and what it says of the closing line and of an expectations file's statuses is
what the runner writes and reads. A figure that goes stale fails here, naming the new value."""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(TOP, os.environ.get("DEVSPEC_BUILD", "build"))
DEVSPEC = os.path.join(BUILD, "conformance", "devspec")
TOY = os.path.join(BUILD, "adapters", "tests", "devspec_adapter_toy.so")


def guide() -> str:
    with open(os.path.join(TOP, "adapters", "README.md"), encoding="utf-8") as f:
        text = f.read()
    return " ".join(text.split("## For vendors", 1)[1].split())


def read(rel: str) -> str:
    with open(os.path.join(TOP, rel), encoding="utf-8") as f:
        return f.read()


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(glob.glob(os.path.join(TOP, "conformance", "cases", "*.json"))):
        with open(path, encoding="utf-8") as f:
            out.extend(json.load(f).get("cases", []))
    return out


def test_call_cases_needing_two_devices_are_counted_as_the_suite_has_them() -> None:
    calls = [c for c in cases() if any(s.get("op") == "call" for s in c.get("steps", []))]
    two = [c for c in calls if "$D1" in json.dumps(c) or "$D2" in json.dumps(c)]
    m = re.search(r"(\d+) of the (\d+) cases that use `call` put an argument on `\$D1`", guide())
    assert m is not None, "the guide says how many `call` cases need a second device"
    assert (int(m.group(1)), int(m.group(2))) == (len(two), len(calls)), (
        f"the guide says {m.group(1)} of {m.group(2)}; the suite has {len(two)} of {len(calls)}")


def test_cases_naming_cpu_need_a_feature_the_guide_names() -> None:
    m = re.search(r"every case that names the device `cpu` .*? needs one of the features "
                  r"(.*?) \(the draft", guide())
    assert m is not None, "the guide names the features of the cases that assume a host device"
    named = set(re.findall(r"`([a-z0-9-]+)`", m.group(1)))
    cpu = re.compile(r'"(?:text|str|type)": "cpu(?::\d+)?"|"device": "cpu')
    missing = sorted(c["id"] for c in cases()
                     if cpu.search(json.dumps(c.get("steps", [])))
                     and not named & set(c.get("features", [])))
    assert missing == [], ("cases that name cpu and need none of the guide's features "
                           f"{sorted(named)}: {missing[:10]}")


def test_closing_line_parts_are_the_runners() -> None:
    text, summary = guide(), read("conformance/src/summary.c")
    for part in ["crashed", "timed out", "lacking", "xfailed", "xpassed"]:
        assert f" {part}" in summary, f"the runner's closing line has no '{part}'"
        assert re.search(r"closing line.*\b" + part, text), f"the guide's step 6 omits '{part}'"


def test_step7_lists_every_status_an_expectations_entry_may_give() -> None:
    names = re.search(r"STATUS_NAMES\[DSR_STATUS_COUNT\] = \{(.*?)\};",
                      read("conformance/src/expectations.c"), re.S)
    assert names is not None
    statuses = set(re.findall(r'"(\w+)"', names.group(1))) - {"xfail", "xpass"}
    m = re.search(r"`<case id or glob> <status> \[# reason\]`; statuses (.*?)\. Pass it", guide())
    assert m is not None, "the guide's step 7 lists the statuses of an entry"
    listed = set(re.findall(r"`(\w+)`", m.group(1)))
    assert statuses <= listed, f"step 7 omits {sorted(statuses - listed)}"


@pytest.mark.skipif(not (os.access(DEVSPEC, os.X_OK) and os.path.exists(TOY)),
                    reason=f"the runner or the template's adapter is not built ({BUILD})")
def test_template_counts_are_todays(tmp_path: Path) -> None:
    r = subprocess.run([DEVSPEC, "run", "--adapter", TOY, "--no-progress", "--no-tap",
                        "--report", str(tmp_path / "toy.json")],
                       capture_output=True, text=True, timeout=300, check=False)
    last = (r.stdout + r.stderr).strip().splitlines()[-1]
    got = re.match(r"(\d+) passed, 0 failed, (\d+) skipped, 0 errors in ", last)
    assert got is not None, last
    passed, skipped = int(got.group(1)), int(got.group(2))
    m = re.search(r"today it passes (\d+) cases, and the other (\d+) of the suite's (\d+) skip",
                  guide())
    assert m is not None, "the guide gives the template's counts"
    assert tuple(int(g) for g in m.groups()) == (passed, skipped, passed + skipped), (
        f"the guide says {m.groups()}; the run gives {passed} passed, {skipped} skipped")


def test_no_host_device_features_are_what_device_parse_needs() -> None:
    """The guide's features for the cases that name `cpu` are the ones spec/step-features.json
    lets a device.parse step use (spec/tools/case_features.py checks every case against it)."""
    with open(os.path.join(TOP, "spec", "step-features.json"), encoding="utf-8") as f:
        rules = json.load(f)["ops"]["device.parse"]
    group = {feature for rule in rules for feature in rule.get("any_of", [])}
    m = re.search(r"every case that names the device `cpu` .*? needs one of the features "
                  r"(.*?) \(the draft", guide())
    assert m is not None
    named = set(re.findall(r"`([a-z0-9-]+)`", m.group(1)))
    assert named == group, f"the guide names {sorted(named)}; device.parse needs {sorted(group)}"


def test_one_rule_for_cannot() -> None:
    """The guide, the header and the template say one thing of what a library cannot do: it is
    lacking (ds_lacks, or DS_NOT_IMPLEMENTED naming the op), never a failure."""
    text = guide()
    rule = re.search(r"\*\*One way to say \"cannot\"\*\*(.*?)\n- \*\*|\*\*One way to say "
                     r"\"cannot\"\*\*(.*?) - \*\*", text)
    assert rule is not None, "the guide states the rule"
    said = rule.group(1) or rule.group(2)
    for part in ("ds_lacks", "DS_NOT_IMPLEMENTED", "**lacking**", "fft.fft(n=17)"):
        assert part in said, f"the guide's rule does not mention {part}"
    assert "still a **failure**" not in text, "the guide still calls a gap a failure"
    header = " ".join(read("adapters/shim/include/devspec_shim.h").split())
    assert "One rule for \"cannot\"" in header and "NAME(PARAM=VALUE)" in header, (
        "devspec_shim.h states the rule and the form of an argument value")
    template = read("adapters/template/adapter.c")
    assert "ds_lacks(what, \"toylib cannot convert" in template and (
        'ds_lacks(fn == DS_ONES ? "ones" : "empty"' in template), (
        "the template says what toylib lacks with ds_lacks")
