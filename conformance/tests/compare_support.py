"""What the tests of `devspec compare` and `devspec probe` share (test_compare_*.py):
running devspec, hand-made reports whose answers are known, the outcome rule written again
from conformance/README.md, and headless Chromium (a dumped DOM, or a page driven over the
DevTools protocol)."""

from __future__ import annotations

import contextlib
import copy
import fcntl
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from support import HERE, Env

HOSTILE = os.path.join(HERE, "compare", "hostile.json")

Case = dict[str, Any]


def devspec(env: Env, args: Sequence[str], timeout: float = 300,
            cwd: str | None = None) -> tuple[int, str, str]:
    """Runs `devspec ARGS` (no --spec added) in the test's folder; its outputs decoded as
    UTF-8, anything else replaced."""
    p = subprocess.run([env.devspec, *args], capture_output=True, timeout=timeout,
                       env=env.environ(), cwd=cwd or env.tmp)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


# ---- hand-made reports --------------------------------------------------------------------

def report(label: str, cases: list[Case], claimed: Sequence[str] = ("device-attr", "device-string"),
           devices: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A report as `devspec run` writes it, with only what compare reads filled in."""
    counts = dict.fromkeys(("pass", "fail", "error", "skip", "xfail", "xpass", "crash",
                            "timeout"), 0)
    for c in cases:
        counts[c["status"]] += 1
    return {
        "type": "devspec-report", "report_version": 1,
        "header": {
            "report_version": 1,
            "suite": {"name": "devspec", "version": "0", "commit": "0" * 40, "modified": False},
            "runner": {"name": "devspec", "version": "0", "protocol": 1},
            "started": "2026-01-01T00:00:00Z",
            "adapter": {"label": label, "given": label, "transport": "out-of-process",
                        "name": label, "version": "1"},
            "library": {"name": "lib-" + label, "version": "1.0"},
            "devices": devices or [{"binding": "D0", "handle": "device#0", "str": "cpu"}],
            "features_claimed": list(claimed), "features_unknown": [],
            "config": {}, "environment": {}},
        "cases": cases,
        "footer": {"complete": True, "counts": counts, "profiles": {}},
    }


def case(cid: str, status: str, observed_status: str | None = None, step: int | None = None,
         op: str = "device.parse", observed: object = None, expected: object = "device#0",
         features: Sequence[str] = ("device-string",), spec: Sequence[str] = ("T-STR-1",),
         **extra: Any) -> Case:
    """A case record of a report, with what compare reads."""
    c: Case = {"id": cid, "file": "made.json", "features": list(features), "spec": list(spec),
         "status": status, "observed_status": observed_status or status, "duration": 0.001}
    if step is not None:
        c.update({"step": step, "op": op, "expected": expected, "observed": observed,
                  "reason": "made by the test"})
    c.update(extra)
    return c


def err(kind: str, message: str = "message", origin: str = "library") -> dict[str, Any]:
    return {"error": {"kind": kind, "message": message, "origin": origin}}


# Each row: the case ID, the cell of libraries A, B and C (None: not in that report), and
# whether the libraries disagree (their observed results differ, skipped cells left out).
Row = tuple[str, Case | None, Case | None, Case | None, bool]


def made_rows() -> list[Row]:
    def F(step: int, obs: object, **k: Any) -> Case:  # a failing cell at STEP
        return case("", "fail", step=step, observed=obs, **k)

    return [
        ("all-pass", case("", "pass"), case("", "pass"), case("", "pass"), False),
        ("pass-vs-fail", case("", "pass"), F(1, err("ValueError")), case("", "pass"), True),
        ("same-kind-other-message", F(0, err("ValueError", "one wording")),
         F(0, err("ValueError", "another wording")), None, False),
        ("other-kind", F(0, err("ValueError")), F(0, err("TypeError")), None, True),
        ("handles-differ", F(2, {"device": "device#8", "dtype": "float32"}, op="array.describe"),
         F(2, {"device": "device#3", "dtype": "float32"}, op="array.describe"), None, False),
        ("values-differ", F(2, {"device": "device#8", "dtype": "float32"}, op="array.describe"),
         F(2, {"device": "device#8", "dtype": "float64"}, op="array.describe"), None, True),
        ("key-order", F(1, {"a": 1, "b": [1, 2]}), F(1, {"b": [1, 2], "a": 1}), None, False),
        ("skip-left-out", case("", "pass"), case("", "skip", skip_source="unsupported",
                                                  reason="unsupported: device-string"),
         case("", "pass"), False),
        ("xfail-like-fail", case("", "xfail", observed_status="fail", step=0,
                                 observed=err("ValueError"),
                                 expectation={"status": "fail", "reason": "known", "pattern": "x",
                                              "line": 1}),
         F(0, err("ValueError")), None, False),
        ("xpass-like-pass", case("", "xpass", observed_status="pass"), case("", "pass"), None,
         False),
        ("other-step", F(1, err("ValueError")), F(2, err("ValueError")), None, True),
        ("crash-vs-timeout", case("", "crash", reason="killed by signal 11"),
         case("", "timeout", reason="past 10 s"), None, True),
        ("adapter-origin", F(0, err("NotImplementedError", origin="adapter")),
         F(0, err("NotImplementedError")), None, True),
        ("only-in-a", F(0, err("ValueError")), None, None, False),
        ("one-ran", F(0, err("ValueError")), case("", "skip", skip_source="devices",
                                                  reason="needs 2 devices, library has 1"),
         case("", "skip", skip_source="unsupported", reason="unsupported: device-string"), False),
        ("control-chars", F(0, err("ValueError", "bell\x07 and \x1b[31mred\x1b[0m")),
         F(0, err("ValueError", "plain")), None, False),
    ]


def write_made(d: str) -> tuple[list[Row], list[str]]:
    """The reports of libraries A, B and C of made_rows() written into D: (rows, paths)."""
    rows = made_rows()
    libs: dict[str, list[Case]] = {"A": [], "B": [], "C": []}
    for cid, a, b, c, _ in rows:
        for label, cell in zip("ABC", (a, b, c), strict=True):
            if cell is not None:
                cell = copy.deepcopy(cell)
                cell["id"] = cid
                libs[label].append(cell)
    paths = []
    for label, cases in libs.items():
        p = os.path.join(d, f"{label.lower()}.json")
        with open(p, "w") as f:
            json.dump(report(label, cases), f)
        paths.append(p)
    return rows, paths


# ---- an outcome rule written again, from conformance/README.md ------------------------------

def canon(v: Any) -> Any:
    if isinstance(v, str) and re.fullmatch(r"(device|array)#[0-9]+", v):
        return v.split("#")[0] + "#"
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return {k: canon(x) for k, x in sorted(v.items())}
    return v


def outcome(c: Case | None) -> object:
    if c is None:
        return None
    raw = c.get("observed_status", c["status"])
    if raw == "skip":
        return None
    if raw in ("pass", "xpass"):
        return "pass"
    if raw != "fail":
        return raw
    obs = c.get("observed")
    if isinstance(obs, dict) and set(obs) == {"error"}:
        e = obs["error"]
        what: tuple[object, ...] = ("raises", e.get("kind"),
                                    e.get("origin", "library") != "library" and e.get("origin"))
    else:
        what = ("returns", json.dumps(canon(obs), sort_keys=True))
    return (c.get("step"), c.get("op"), what)


def disagreeing(reports: Sequence[dict[str, Any]]) -> set[str]:
    """The case IDs on which the reports' observed results differ."""
    by_id: dict[str, list[object]] = {}
    for r in reports:
        for c in r["cases"]:
            by_id.setdefault(c["id"], []).append(outcome(c))
    return {cid for cid, outs in by_id.items()
            if len({json.dumps(o) for o in outs if o is not None}) > 1}


def chromium() -> str | None:
    # Debian's /usr/bin/chromium is a shell script in front of this binary.
    if os.access("/usr/lib/chromium/chromium", os.X_OK):
        return "/usr/lib/chromium/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Dom(html.parser.HTMLParser):
    """The rows and cells of the matrix in a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, dict[str, str | None], list[str | None]]] = []
        self.root: dict[str, str | None] = {}
        self.imgs = 0
        self.scripts = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.root = a
        if tag == "img":
            self.imgs += 1
        if tag == "script":
            self.scripts += 1
        if tag == "tr":
            self.rows.append((a.get("class") or "", a, []))
        if tag == "td" and self.rows and "data-status" in a:
            self.rows[-1][2].append(a["data-status"])

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def dump(browser: str, page: str, scratch: str, fragment: str = "",
         budget: int | None = None) -> Dom:
    url = "file://" + page + ("#" + fragment if fragment else "")
    # A profile of its own in the test's folder SCRATCH (removed at the end), so parallel
    # tests do not share one and nothing is left behind.
    profile = tempfile.mkdtemp(prefix="chromium-", dir=scratch)
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--user-data-dir=" + profile]
    if budget:
        args.append(f"--virtual-time-budget={budget}")
    p = subprocess.run([*args, "--dump-dom", url], capture_output=True, timeout=180)
    shutil.rmtree(profile, ignore_errors=True)
    d = Dom()
    d.feed(p.stdout.decode("utf-8", "replace"))
    return d


class Cdp:
    """Drives one headless Chromium page over the DevTools protocol on a pipe
    (--remote-debugging-pipe: JSON messages ended by NUL, commands on the browser's fd 3,
    replies on its fd 4), so a test can click and type like a reader."""

    def __init__(self, browser: str, url: str, scratch: str) -> None:
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()

        def child() -> None:
            # Moved above 10 first, so that placing them on 3 and 4 cannot clobber either.
            a, b = fcntl.fcntl(r1, fcntl.F_DUPFD, 10), fcntl.fcntl(w2, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.profile = tempfile.mkdtemp(prefix="chromium-", dir=scratch)
        self.p = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile, "about:blank"],
            close_fds=False, preexec_fn=child, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.w, self.r = w1, r2
        self.n = 0
        self.buf = b""
        target = self.call("Target.createTarget", {"url": url})["targetId"]
        self.page: str = self.call("Target.attachToTarget",
                                   {"targetId": target, "flatten": True})["sessionId"]

    def call(self, method: str, params: dict[str, Any] | None = None, page: str | None = None,
             timeout: float = 120) -> Any:
        self.n += 1
        msg: dict[str, Any] = {"id": self.n, "method": method, "params": params or {}}
        if page:  # a command for the page rather than the browser
            msg["sessionId"] = page
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            while b"\0" not in self.buf:
                if time.monotonic() > end:
                    raise RuntimeError(f"no answer to {method}")
                chunk = os.read(self.r, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed its pipe")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\0", 1)
            m = json.loads(line)
            if m.get("id") == self.n:
                if "error" in m:
                    raise RuntimeError(m["error"])
                return m["result"]

    def eval(self, expr: str) -> Any:
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, self.page)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"].get("value")

    def ready(self, timeout: float = 60) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:  # while the page loads, the document may not exist yet
                if self.eval("document.documentElement && "
                             "document.documentElement.getAttribute('data-ready')") == "1":
                    return True
            except RuntimeError:
                pass
            time.sleep(0.05)
        return False

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("Browser.close", timeout=10)
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)


def case_rows(d: Dom) -> list[tuple[str, dict[str, str | None], list[str | None]]]:
    return [r for r in d.rows if r[0].split()[:1] == ["case"]]


