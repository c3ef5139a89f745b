"""Selecting cases (--case, --feature, --exclude-feature, --profile) and what a run says of
the profiles, statements and features: the verdicts and counts."""

from __future__ import annotations

import os

from support import CASES, Env, Report, fake_cmd, load_report, why

ALL = ["--cases", os.path.join(CASES, "pass.json")]


def selected(env: Env, extra: list[str]) -> tuple[list[str], Report]:
    """Runs pass.json with EXTRA; returns the IDs of the cases reported, and the report."""
    rep = env.path("f.json")
    env.run(["run", *ALL, "--adapter-cmd", fake_cmd(), "--report", rep, *extra])
    r = load_report(rep)
    return [c["id"] for c in r["cases"]], r


def test_case_glob(env: Env) -> None:
    got, _ = selected(env, ["--case", "pass.raises-*"])
    assert got == ["pass.raises-kind", "pass.raises-any"], why(
        "--case GLOB selects by ID", ["pass.raises-kind", "pass.raises-any"], got)


def test_feature(env: Env) -> None:
    got, _ = selected(env, ["--feature", "mixed-device-raises", "--feature", "to-device"])
    assert got == ["pass.to-device", "pass.mixed-devices-raise", "pass.output-follows-input"], why(
        "--feature F (repeated) selects cases with any of them", 3, got)


def test_exclude_feature(env: Env) -> None:
    got, _ = selected(env, ["--feature", "device-string", "--exclude-feature",
                            "creation-device-kw"])
    want = ["pass.raises-kind", "pass.raises-any", "pass.either", "pass.literal-dollar"]
    assert got == want, why("--exclude-feature is applied last", 4, got)


def test_nothing_selected(env: Env) -> None:
    rep = env.path("none.json")
    rc, out, err = env.run(["run", *ALL, "--adapter-cmd", fake_cmd(), "--report", rep,
                            "--case", "nothing.*"])
    assert rc == 0 and "no case ran" in err and out.rstrip().endswith("1..0"), why(
        "no case selected: a warning, the plan 1..0, exit 0", "warning", (rc, err, out))


def test_profile(env: Env) -> None:
    got, _ = selected(env, ["--profile", "test-multi"])
    assert got == ["pass.mixed-devices-raise"], why(
        "--profile P runs the cases that count for it", ["pass.mixed-devices-raise"], got)


def test_verdicts_and_counts(env: Env) -> None:
    _, r = selected(env, [])
    prof = r["footer"]["profiles"]
    assert (
        prof["test-core"]["verdict"] == "conforms" and prof["test-core"]["cases"] == 7 and
        prof["test-core"]["optional"]["cases"] == 5
    ), why(
        "profile verdict: conforms; required-only cases decide, optional ones beside",
        ("conforms", 7, 5), prof["test-core"])
    assert (
        prof["test-utils"]["verdict"] == "does-not-conform" and
        prof["test-utils"]["missing_features"] == ["device-utils"]
    ), why(
        "profile verdict: a required feature not claimed does not conform", "device-utils",
        prof["test-utils"])
    assert prof["test-multi"]["verdict"] == "conforms", why(
        "profile verdict for test-multi", "conforms", prof["test-multi"])
    sts = r["footer"]["statements"]
    assert sts["T-STR-1"]["pass"] == 4 and sts["T-CREATE-1"]["pass"] == 2, why(
        "per-statement counts", (4, 2), (sts["T-STR-1"], sts["T-CREATE-1"]))
    feats = r["footer"]["features"]
    assert feats["device-string"]["pass"] == 5, why("per-feature counts", 5, feats["device-string"])


def test_filtered_run_undetermined(env: Env) -> None:
    _, r = selected(env, ["--case", "pass.describe-default", "--case", "pass.to-device"])
    assert (
        r["footer"]["profiles"]["test-core"]["verdict"] == "undetermined" and
        r["footer"]["not_run"] == 12
    ), why(
        "a filtered run leaves the verdict undetermined",
        "undetermined", r["footer"]["profiles"]["test-core"])


def test_failing_required_feature(env: Env) -> None:
    r2 = env.path("fail-v.json")
    env.run(["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
             "--report", r2])
    assert (
        load_report(r2)["footer"]["profiles"]["test-core"]["verdict"] == "does-not-conform"
    ), why(
        "a failing case of a required feature: does not conform", "does-not-conform",
        load_report(r2)["footer"]["profiles"]["test-core"])
