"""devspec as a pytest plugin: `pytest --devspec=python:mylib` runs the suite against a library
and shows one pytest item per case, so -k, --lf, -x, --junitxml and pytest's summary work.

Installed with the package (entry point pytest11) and inert unless an adapter is given: on the
command line (--devspec=ADAPTER) or in pytest's ini settings (devspec = ADAPTER, and
devspec_expectations, devspec_strict, devspec_lacks, devspec_runner, devspec_report,
devspec_args, under [tool.pytest.ini_options] in pyproject.toml or in pytest.ini); the
command line wins. pyproject.toml's [tool.devspec] table stays the Python adapter's (claims,
devices, compat: adapters/python/README.md), which refuses keys it does not know, so none of
these settings goes there.

The runner judges, the plugin only reports: collection asks `devspec list cases --json` for the
cases (one item each, named by the case ID, grouped under its first feature), the first item
that runs starts one `devspec run --report FILE` for the items selected (--case ID for each
where -k or --lf chose fewer than all), and each item shows its case's status from the report:

    pass          passed
    fail, error,  failed, with the statement, the step and its arguments, expected and
    crash,        observed values with the devices by their names, the library's
    timeout       traceback where the report has it, and the command that writes the
                  case's reproducer
    lacks         failed, shown as LACKS (the runner's gate counts it, as JUnit's
                  <failure type="lacks">); --devspec-lacks=skip makes it a skip instead
    skip          skipped, with the runner's reason (feature not claimed, too few devices,
                  the declared array API version)
    xfail         xfailed, with the expectations file's reason
    xpass         XPASS; with --devspec-strict (the runner's --strict) a failure
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from typing import Any

import pytest

_LACKS_CHOICES = ("fail", "skip")
# The settings, each an option --devspec-KEY and an ini key devspec_KEY (the adapter's: devspec).
_SETTINGS = {
    "adapter": "the adapter: python:MODULE or a name from adapters.json",
    "expectations": "the library's expectations file (known failures, xfail)",
    "strict": "unexpected passes fail (strict xfail), as devspec run --strict",
    "lacks": "what a case whose function the library lacks shows: fail (default) or skip",
    "runner": "the devspec runner (default: the one installed with this package)",
    "report": "where the JSON report goes (default: pytest's cache, devspec/report.json)",
    "args": "more arguments for devspec run (--profile P, --feature F, --timeout S, ...)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("devspec", "devspec conformance suite")
    group.addoption("--devspec", dest="devspec_adapter", metavar="ADAPTER",
                    help="run the devspec suite against ADAPTER (python:MODULE or a named "
                    "adapter), one item per case")
    group.addoption("--devspec-expectations", dest="devspec_expectations", metavar="FILE",
                    help=_SETTINGS["expectations"])
    group.addoption("--devspec-strict", dest="devspec_strict", action="store_true",
                    default=None, help=_SETTINGS["strict"])
    group.addoption("--devspec-lacks", dest="devspec_lacks", choices=_LACKS_CHOICES,
                    help=_SETTINGS["lacks"])
    group.addoption("--devspec-runner", dest="devspec_runner", metavar="PATH",
                    help=_SETTINGS["runner"])
    group.addoption("--devspec-report", dest="devspec_report", metavar="PATH",
                    help=_SETTINGS["report"])
    group.addoption("--devspec-args", dest="devspec_args", metavar="ARGS",
                    help=_SETTINGS["args"])
    parser.addini("devspec", "devspec: " + _SETTINGS["adapter"])
    for key, text in _SETTINGS.items():
        if key != "adapter":
            parser.addini("devspec_" + key, "devspec: " + text)


def _setting(config: pytest.Config, key: str) -> Any:
    value = config.getoption("devspec_" + key)
    if value is not None:
        return value
    value = config.getini("devspec" if key == "adapter" else "devspec_" + key)
    return None if value in (None, "", []) else value


def _flag(value: Any, key: str) -> bool:
    if isinstance(value, bool) or value is None:
        return bool(value)
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise pytest.UsageError(f"devspec: {key} = {value!r} is neither true nor false")


class Settings:
    """What the session asked for, resolved once."""

    def __init__(self, config: pytest.Config, adapter: str) -> None:
        self.adapter = adapter
        self.expectations: str | None = _setting(config, "expectations")
        if self.expectations:
            self.expectations = os.path.abspath(str(self.expectations))
        self.strict = _flag(_setting(config, "strict"), "strict")
        self.lacks = str(_setting(config, "lacks") or "fail")
        if self.lacks not in _LACKS_CHOICES:
            raise pytest.UsageError(f"devspec: lacks = {self.lacks!r}: choose one of "
                                    f"{', '.join(_LACKS_CHOICES)}")
        runner = _setting(config, "runner")
        self.runner = str(runner) if runner else _installed_runner()
        args = _setting(config, "args")
        self.args = shlex.split(args) if isinstance(args, str) else list(args or [])
        report = _setting(config, "report")
        if report:
            self.report = os.path.abspath(str(report))
        else:
            # pytest's cache folder; -p no:cacheprovider leaves the attribute out.
            cache = getattr(config, "cache", None)
            self.report = (str(cache.mkdir("devspec") / "report.json") if cache is not None
                           else os.path.abspath(".devspec-report.json"))


def _installed_runner() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(here, "bin", "devspec")
    if os.access(exe, os.X_OK):
        return exe
    found = shutil.which("devspec")
    if found:
        return found
    raise pytest.UsageError("devspec: no runner: this devspec_cli has no bin/devspec and none "
                            "is on PATH (give --devspec-runner PATH)")


def _runner_env() -> dict[str, str]:
    # As the devspec command does: python:MODULE runs in this interpreter's environment.
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _data_root(runner: str) -> str | None:
    """The suite's data (spec/, conformance/cases/) for the runner: DEVSPEC_SOURCE, a build
    tree's devspec-tree file, or an installation's ../share/devspec."""
    if os.environ.get("DEVSPEC_SOURCE"):
        return os.environ["DEVSPEC_SOURCE"]
    here = os.path.dirname(os.path.realpath(runner))
    tree = os.path.join(here, "devspec-tree")
    if os.path.exists(tree):
        with open(tree, encoding="utf-8") as f:
            for line in f:
                if line.startswith("source="):
                    return line[len("source="):].strip()
    share = os.path.join(os.path.dirname(here), "share", "devspec")
    return share if os.path.isdir(share) else None


class Session:
    """One devspec run for the pytest session: the case list, then the report."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.report: dict[str, Any] | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.failure: str | None = None
        self.command: list[str] = []
        self.exit_status: int | None = None
        self.root = _data_root(settings.runner)
        self._statements: dict[str, str] | None = None
        self._case_files: dict[str, dict[str, Any]] = {}

    def list_cases(self) -> list[dict[str, Any]]:
        cmd = [self.settings.runner, "list", "cases", "--json"]
        done = subprocess.run(cmd, capture_output=True, text=True, env=_runner_env())
        if done.returncode != 0:
            raise pytest.UsageError(f"devspec: {shlex.join(cmd)} failed "
                                    f"(exit {done.returncode}): {done.stderr.strip()}")
        listed = json.loads(done.stdout)
        return list(listed["cases"] if isinstance(listed, dict) else listed)

    def run(self, ids: list[str] | None) -> None:
        s = self.settings
        cmd = [s.runner, "run", "--adapter", s.adapter, "--report", s.report, "--no-tap",
               "--no-progress"]
        if s.expectations:
            cmd += ["--expectations", s.expectations]
        if s.strict:
            cmd.append("--strict")
        cmd += s.args
        for case_id in ids or []:
            cmd += ["--case", case_id]
        self.command = cmd
        os.makedirs(os.path.dirname(s.report), exist_ok=True)
        done = subprocess.run(cmd, capture_output=True, text=True, env=_runner_env())
        self.exit_status = done.returncode
        if done.returncode == 2 or not os.path.exists(s.report):
            self.failure = (f"devspec run could not run (exit {done.returncode}): "
                            f"{done.stderr.strip()}\ncommand: {shlex.join(cmd)}")
            return
        with open(s.report, encoding="utf-8") as f:
            self.report = json.load(f)
        self.results = {c["id"]: c for c in self.report.get("cases", [])}
        footer = self.report.get("footer", {})
        if not footer.get("complete", True):
            self.failure = (f"the run is incomplete: {footer.get('incomplete_reason', '')}"
                            f"\ncommand: {shlex.join(cmd)}").strip()

    def statement(self, sid: str) -> str:
        if self._statements is None:
            self._statements = {}
            path = os.path.join(self.root or "", "spec", "statements.json")
            if self.root and os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    for st in json.load(f).get("statements", []):
                        self._statements[st["id"]] = st.get("text", "")
        return self._statements.get(sid, "")

    def case_steps(self, file: str, case_id: str) -> list[dict[str, Any]]:
        if file not in self._case_files:
            path = os.path.join(self.root or "", "conformance", "cases", file)
            cases: dict[str, Any] = {}
            if self.root and os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    cases = {c["id"]: c for c in json.load(f).get("cases", [])}
            self._case_files[file] = cases
        return list(self._case_files[file].get(case_id, {}).get("steps", []))


def pytest_configure(config: pytest.Config) -> None:
    adapter = _setting(config, "adapter")
    if not adapter:
        return
    config.stash[_SESSION] = Session(Settings(config, str(adapter)))
    config.addinivalue_line("markers", "devspec: a case of the devspec conformance suite")


_SESSION = pytest.StashKey[Session]()


def _session(config: pytest.Config) -> Session | None:
    return config.stash.get(_SESSION, None)


class FeatureGroup(pytest.Collector):
    """The cases whose first feature is this one (the case's primary feature)."""

    def collect(self) -> list[pytest.Item]:
        return []


class SuiteNode(pytest.Collector):
    """The suite against one adapter: devspec(ADAPTER)."""

    def collect(self) -> list[pytest.Item]:
        return []


class CaseItem(pytest.Item):
    """One case of the suite; its outcome is the runner's."""

    def __init__(self, *, case: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.add_marker("devspec")
        for feature in case.get("features", []):
            self.keywords[feature] = True

    def runtest(self) -> None:
        ds = _session(self.config)
        assert ds is not None
        if ds.report is None and ds.failure is None:
            selected = [i.name for i in self.session.items if isinstance(i, CaseItem)]
            everything = len(selected) == self.config.stash.get(_COLLECTED, -1)
            ds.run(None if everything else selected)
        result = ds.results.get(self.name)
        if result is None and ds.failure is None:
            # A complete run without this case: the runner's own filters left it out.
            pytest.skip("not selected by devspec run " + shlex.join(ds.settings.args))
        if result is None:
            raise CaseFailed(str(ds.failure), "error")
        status = result.get("status")
        reason = result.get("reason", "")
        if status == "pass":
            return
        if status == "skip":
            pytest.skip(reason or "skipped by the runner")
        if status == "xfail":
            exp = result.get("expectation") or {}
            pytest.xfail(exp.get("reason") or reason or "expected to fail")
        if status == "xpass":
            exp = result.get("expectation") or {}
            if ds.settings.strict:
                raise CaseFailed("[XPASS(strict)] the expectations file says "
                                 f"{exp.get('status', 'fail')} (line {exp.get('line', '?')}: "
                                 f"{exp.get('reason', '')}), and the case passed", "xpass")
            self.user_properties.append(("devspec_xpass", exp.get("reason", "")))
            raise CaseXPassed(exp.get("reason", ""))
        if status == "lacks" and ds.settings.lacks == "skip":
            pytest.skip("lacks: " + reason)
        raise CaseFailed(failure_text(ds, result), str(status))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            return excinfo.value.text
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return (self.case.get("file", "devspec"), None, f"devspec case {self.name}")


_COLLECTED = pytest.StashKey[int]()


class CaseFailed(Exception):
    def __init__(self, text: str, status: str) -> None:
        super().__init__(text)
        self.text = text
        self.status = status


class CaseXPassed(Exception):
    pass


def _devices(report: dict[str, Any] | None) -> dict[str, str]:
    """Device handles and $D bindings to the library's own names for them."""
    names: dict[str, str] = {}
    for d in (report or {}).get("header", {}).get("devices", []):
        name = d.get("str", d.get("handle", "?"))
        names["$" + d.get("binding", "")] = name
        if d.get("handle"):
            names[d["handle"]] = name
    return names


def _show(value: Any, devices: dict[str, str]) -> str:
    text = json.dumps(value, sort_keys=False)
    for key, name in sorted(devices.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(json.dumps(key), f"{json.dumps(key)} ({name})")
    return text


def failure_text(ds: Session, result: dict[str, Any]) -> str:
    """What a maintainer needs to act on a failing case."""
    devices = _devices(ds.report)
    lines = [f"devspec case {result['id']} ({result.get('file', '?')}): "
             f"{str(result.get('status', '?')).upper()}"]
    if result.get("status") == "lacks":
        lines[0] += f" (the library lacks {', '.join(result.get('lacks', [])) or 'a function'})"
    lines.append(f"  {result.get('reason', '')}")
    lines.append("statements:")
    for sid in result.get("spec", []):
        lines.append(f"  {sid}: {ds.statement(sid)}")
    step = result.get("step")
    if step is not None:
        steps = ds.case_steps(result.get("file", ""), result["id"])
        spec_step = steps[step] if isinstance(step, int) and step < len(steps) else {}
        args = result.get("args", spec_step.get("args"))
        lines.append(f"failing step {step}: {result.get('op', spec_step.get('op', '?'))} "
                     f"{_show(args, devices)}")
    if "expected" in result:
        lines.append(f"expected: {_show(result['expected'], devices)}")
    if "observed" in result:
        lines.append(f"observed: {_show(result['observed'], devices)}")
    error = result.get("observed", {}).get("error", {}) if isinstance(
        result.get("observed"), dict) else {}
    traceback = result.get("traceback") or error.get("traceback")
    if traceback:
        lines.append("library traceback:")
        # The Python adapter sends the last frames as a list (spec/protocol.md, errors).
        frames = traceback if isinstance(traceback, list) else str(traceback).splitlines()
        lines += ["  " + str(t) for t in frames]
    if devices:
        bound = [f"{k[1:]} = {v}" for k, v in devices.items() if k.startswith("$")]
        lines.append("devices: " + ", ".join(bound))
    out_dir = os.path.join(os.path.dirname(ds.settings.report), "repro",
                           result["id"].replace("/", "_"))
    lines.append("reproducer: " + shlex.join(["devspec", "repro", ds.settings.report, "--case",
                                              result["id"], "--out", out_dir]))
    if ds.command:
        lines.append("run: " + shlex.join(ds.command[:ds.command.index("--no-tap")]))
    return "\n".join(lines)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    ds = _session(config)
    if ds is None:
        return
    # Named from the root (devspec(ADAPTER)::FEATURE::CASE-ID), as a file's tests are; not
    # devspec[ADAPTER], which --junitxml would read as a parametrization and cut short.
    name = f"devspec({ds.settings.adapter})"
    suite = SuiteNode.from_parent(session, name=name, nodeid=name)
    groups: dict[str, FeatureGroup] = {}
    made: list[pytest.Item] = []
    cases = ds.list_cases()
    for case in cases:
        feature = (case.get("features") or ["no-feature"])[0]
        if feature not in groups:
            groups[feature] = FeatureGroup.from_parent(suite, name=feature)
        made.append(CaseItem.from_parent(groups[feature], name=case["id"], case=case))
    config.stash[_COLLECTED] = len(cases)
    # Reported as collected (pytest's "collected N items", --lf's bookkeeping), then offered
    # to -k, --lf and the rest like any other items.
    config.hook.pytest_collectreport(
        report=pytest.CollectReport(name, "passed", None, list(made)))
    items.extend(made)


def pytest_report_teststatus(report: pytest.TestReport,
                             config: pytest.Config) -> tuple[str, str, str] | None:
    status = getattr(report, "devspec_status", None)
    if status == "lacks" and report.when == "call" and report.failed:
        return "lacks", "L", "LACKS"
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if isinstance(item, CaseItem) and call.excinfo is not None:
        exc = call.excinfo.value
        if isinstance(exc, CaseXPassed):
            # The runner judged it an unexpected pass: pytest's own XPASS outcome.
            report.outcome = "passed"
            report.wasxfail = str(exc)
            report.longrepr = None
        elif isinstance(exc, CaseFailed):
            report.devspec_status = exc.status


def pytest_report_header(config: pytest.Config) -> str | None:
    ds = _session(config)
    if ds is None:
        return None
    s = ds.settings
    return (f"devspec: {s.adapter} with {s.runner}; expectations {s.expectations or 'none'}; "
            f"{'strict' if s.strict else 'lenient'} xpass; lacks {s.lacks}; report {s.report}")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    ds = _session(config)
    if ds is None or ds.report is None:
        return
    # Lacking cases are failures of their own category, which pytest's FAILURES section does
    # not list: their texts are shown here.
    lacking = terminalreporter.stats.get("lacks", [])
    if lacking and config.getoption("tbstyle", "auto") != "no":
        terminalreporter.write_sep("=", "LACKS")
        for rep in lacking:
            terminalreporter.write_sep("_", rep.head_line or rep.nodeid)
            terminalreporter.write_line(rep.longreprtext)
    footer = ds.report.get("footer", {})
    counts = footer.get("counts", {})
    shown = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
    terminalreporter.write_line(f"devspec run: {shown} (report {ds.settings.report})")
    for e in footer.get("stale_expectations", []):
        terminalreporter.write_line(f"devspec: stale expectation (matches no case): "
                                    f"{e.get('pattern')} {e.get('status')} "
                                    f"(line {e.get('line')} of {ds.settings.expectations})")
    gate = footer.get("gate", {})
    if ds.exit_status and gate:
        terminalreporter.write_line(f"devspec run's gate: exit {ds.exit_status}, "
                                    f"{gate.get('rule', '')}")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The gate is the runner's: where it fails on what no item shows (a stale expectation
    # under --devspec-strict), pytest fails too.
    ds = _session(session.config)
    if ds is not None and _gate_failed(ds) and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _gate_failed(ds: Session) -> bool:
    """Whether the runner's exit status fails the session: always, but where the only
    unexpected results are lacking cases that --devspec-lacks=skip shows as skips."""
    if not ds.exit_status or ds.report is None or ds.settings.lacks != "skip":
        return bool(ds.exit_status)
    footer = ds.report.get("footer", {})
    others = [i for i in footer.get("unexpected", [])
              if ds.results.get(i, {}).get("status") != "lacks"]
    stale = ds.settings.strict and (footer.get("stale_expectations") or footer.get("xpass"))
    return bool(others or stale)
