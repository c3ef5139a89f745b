#!/usr/bin/env python3
"""Tests of `devspec compare` and `devspec probe`. Prints TAP.

    test_compare.py --devspec PATH --source DIR --null-program PATH GROUP

GROUP is one of:
  model   the matrix model (`compare --json`) of hand-made reports whose answers are known:
          disagreement, outcomes, cells, determinism, column order, folders, errors; the
          terminal table's filters and escaping; the data embedded in the HTML page
  render  the published reports and real runs of a misbehaving adapter rendered by headless
          Chromium (`chromium --headless --dump-dom`): rows, cells, filters, and a library's
          hostile error message staying inert text; page size and time to first paint of a
          matrix of thousands of cases (reported as TAP comments)
  probe   `devspec probe` with real adapters (the fake adapter and the null adapter)

Standard library only. The expected matrices come from the reports themselves, read here
with a separate implementation of the outcome rule (conformance/README.md, devspec compare).
"""
import argparse
import copy
import fcntl
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from procutil import alive, children, wait_for
from taputil import check, plan, skip

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_SPEC = os.path.join(HERE, "spec")
HOSTILE = os.path.join(HERE, "compare", "hostile.json")
FAKE = os.path.join(HERE, "fixtures", "fake_adapter.py")

SCRATCH = None  # the test's own temporary folder


class Env:
    def __init__(self, a):
        self.devspec = os.path.abspath(a.devspec)
        self.source = os.path.abspath(a.source)
        self.null_prog = os.path.abspath(a.null_program) if a.null_program else None
        self.tmp = tempfile.mkdtemp(prefix="devspec-compare-test-")

    def run(self, args, timeout=300, cwd=None):
        e = dict(os.environ)
        e["DEVSPEC_SOURCE"] = self.source
        e.pop("NO_COLOR", None)
        p = subprocess.run([self.devspec] + args, capture_output=True, timeout=timeout, env=e,
                           cwd=cwd or self.tmp)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---- hand-made reports --------------------------------------------------------------------

def report(label, cases, claimed=("device-attr", "device-string"), devices=None):
    """A report as `devspec run` writes it, with only what compare reads filled in."""
    counts = {s: 0 for s in ("pass", "fail", "error", "skip", "xfail", "xpass", "crash", "timeout")}
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


def case(cid, status, observed_status=None, step=None, op="device.parse", observed=None,
         expected="device#0", features=("device-string",), spec=("T-STR-1",), **extra):
    c = {"id": cid, "file": "made.json", "features": list(features), "spec": list(spec),
         "status": status, "observed_status": observed_status or status, "duration": 0.001}
    if step is not None:
        c.update({"step": step, "op": op, "expected": expected, "observed": observed,
                  "reason": "made by the test"})
    c.update(extra)
    return c


def err(kind, message="message", origin="library"):
    return {"error": {"kind": kind, "message": message, "origin": origin}}


# Each row: the case ID, the cell of libraries A, B and C (None: not in that report), and
# whether the libraries disagree (their observed results differ, skipped cells left out).
def made_rows():
    F = lambda step, obs, **k: case("", "fail", step=step, observed=obs, **k)  # noqa: E731
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


def write_made(d):
    rows = made_rows()
    libs = {"A": [], "B": [], "C": []}
    for cid, a, b, c, _ in rows:
        for label, cell in zip("ABC", (a, b, c)):
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

def canon(v):
    if isinstance(v, str) and re.fullmatch(r"(device|array)#[0-9]+", v):
        return v.split("#")[0] + "#"
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return {k: canon(x) for k, x in sorted(v.items())}
    return v


def outcome(c):
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
        what = ("raises", e.get("kind"), e.get("origin", "library") != "library" and e.get("origin"))
    else:
        what = ("returns", json.dumps(canon(obs), sort_keys=True))
    return (c.get("step"), c.get("op"), what)


def disagreeing(reports):
    """The case IDs on which the reports' observed results differ."""
    by_id = {}
    for r in reports:
        for c in r["cases"]:
            by_id.setdefault(c["id"], []).append(outcome(c))
    return {cid for cid, outs in by_id.items() if len({json.dumps(o) for o in outs if o is not None}) > 1}


# ---- group model ----------------------------------------------------------------------------

def group_model(env):
    d = os.path.join(env.tmp, "made")
    os.makedirs(d)
    rows, paths = write_made(d)
    # Item: 3000 reports of one label get labels NAME, NAME (2), ... NAME (3000), in time
    # linear in their number (the time is printed, not asserted).
    many = os.path.join(env.tmp, "many")
    os.makedirs(many)
    with open(paths[0]) as f:
        one = json.load(f)
    one["cases"] = one["cases"][:1]
    for i in range(3000):
        with open(os.path.join(many, f"r{i:04d}.json"), "w") as f:
            json.dump(one, f)
    t0 = time.time()
    rc, out, errtext = env.run(["compare", "--spec", TEST_SPEC, "--json", many])
    took = time.time() - t0
    labels = [l["label"] for l in json.loads(out)["libraries"]] if rc == 0 else []
    first = one["header"]["adapter"]["label"]
    check(rc == 0 and labels == [first] + [f"{first} ({k})" for k in range(2, 3001)],
          "3000 reports of one label: NAME, NAME (2) ... NAME (3000)", 3000, (rc, labels[:3], errtext[-300:]))
    print(f"# 3000 reports of one label compared in {took:.2f} s")
    # Item: a report of another suite or report version, or listing a case twice, is compared
    # with a warning naming it.
    other = copy.deepcopy(one)
    other["header"]["suite"]["name"] = "another-suite"
    other["header"]["report_version"] = 99
    other["cases"] = one["cases"] * 2
    op = os.path.join(env.tmp, "other.json")
    with open(op, "w") as f:
        json.dump(other, f)
    rc, out, errtext = env.run(["compare", "--spec", TEST_SPEC, "--json", paths[0], op])
    check(rc == 0 and "warning: " + op + " has report_version 99" in errtext and
          "has suite.name \"another-suite\"" in errtext and
          "lists the case " + one["cases"][0]["id"] + " more than once" in errtext,
          "reports of another suite or report version, and a case listed twice: warned",
          "three warnings", (rc, errtext[-600:]))
    rc, out, errtext = env.run(["compare", "--spec", TEST_SPEC, "--json"] + paths)
    check(rc == 0, "compare --json exits 0", 0, (rc, errtext))
    m = json.loads(out)
    ids = [c["id"] for c in m["cases"]]
    check(ids == [r[0] for r in rows], "one row per case, in the first report's order",
          [r[0] for r in rows], ids)
    check([l["label"] for l in m["libraries"]] == ["A", "B", "C"], "one column per report, in order",
          "A B C", [l["label"] for l in m["libraries"]])
    for (cid, *_, want), c in zip(rows, m["cases"]):
        check(c["disagree"] is want, f"disagreement of {cid}", want, c["disagree"])
    want_dis = sum(1 for r in rows if r[4])
    check(m["summary"]["disagree"] == want_dis, "the summary counts the disagreements", want_dis,
          m["summary"])
    by = {c["id"]: c for c in m["cases"]}
    check(by["all-pass"]["cells"] == ["pass", "pass", "pass"], "a pass is the string \"pass\"",
          "pass x3", by["all-pass"]["cells"])
    check(by["only-in-a"]["cells"][1:] == [None, None], "a case not in a report is null",
          [None, None], by["only-in-a"]["cells"])
    check(by["skip-left-out"]["cells"][1] == "skip" and by["one-ran"]["cells"][1]["status"] == "skip"
          and "needs 2 devices" in by["one-ran"]["cells"][1]["reason"],
          "an unsupported skip is \"skip\"; another skip keeps its reason", "skip / reason",
          by["one-ran"]["cells"])
    x = by["xfail-like-fail"]["cells"][0]
    check(x["status"] == "xfail" and x["observed_status"] == "fail" and x["expectation"]["reason"] == "known",
          "an xfail keeps its observed status and the expectation's reason", "xfail/fail/known", x)
    o = by["other-kind"]["cells"]
    check(o[0]["outcome"] == "fail at step 0 (device.parse): raises ValueError" and
          o[1]["outcome"] == "fail at step 0 (device.parse): raises TypeError",
          "a failing cell's outcome names the step, the op and the error kind", "raises ...", o)
    h = by["handles-differ"]["cells"]
    check(h[0]["observed"]["device"] == "device#8" and h[0]["outcome"] == h[1]["outcome"],
          "handles are compared without their numbers but shown as they were", "device#8", h)
    check(by["one-ran"]["outcomes"] == 1 and by["crash-vs-timeout"]["outcomes"] == 2,
          "outcomes counts the different outcomes of the libraries that ran", "1, 2",
          (by["one-ran"]["outcomes"], by["crash-vs-timeout"]["outcomes"]))
    # The independent rule agrees with the model on every case.
    reps = [json.load(open(p)) for p in paths]
    mine = disagreeing(reps)
    theirs = {c["id"] for c in m["cases"] if c["disagree"]}
    check(mine == theirs, "the model's disagreements are those of the rule written again here",
          sorted(mine), sorted(theirs))

    # Determinism and column order.
    rc2, out2, _ = env.run(["compare", "--spec", TEST_SPEC, "--json"] + paths)
    check(rc2 == 0 and out2 == out, "the same reports give the same matrix, byte for byte", "same",
          "differs")
    rc3, out3, _ = env.run(["compare", "--spec", TEST_SPEC, "--json"] + paths[::-1])
    m3 = json.loads(out3)
    same = all(c3["disagree"] == by[c3["id"]]["disagree"] and
               c3["cells"] == by[c3["id"]]["cells"][::-1] for c3 in m3["cases"])
    check(rc3 == 0 and same and len(m3["cases"]) == len(m["cases"]),
          "reports in the other order give the same matrix with its columns reversed", "same", out3[:500])
    rc4, out4, _ = env.run(["compare", "--spec", TEST_SPEC, "--json", d])
    check(rc4 == 0 and out4 == out, "a folder is its *.json reports in name order", "same as a b c",
          out4[:300])
    rc5, out5, _ = env.run(["compare", "--spec", TEST_SPEC, "--json", paths[0], paths[0]])
    labels = [l["label"] for l in json.loads(out5)["libraries"]] if rc5 == 0 else None
    check(labels == ["A", "A (2)"], "two reports of one label stay apart", ["A", "A (2)"], labels)
    rc6, out6, _ = env.run(["compare", "--spec", TEST_SPEC, "--json", "--library", "C",
                            "--library", "A", d])
    m6 = json.loads(out6) if rc6 == 0 else {"libraries": []}
    check([l["label"] for l in m6["libraries"]] == ["C", "A"], "--library keeps the named, in order",
          ["C", "A"], [l["label"] for l in m6["libraries"]])
    check(rc6 == 0 and {c["id"] for c in m6["cases"] if c["disagree"]} == disagreeing([reps[2], reps[0]]),
          "disagreement is computed over the libraries compared", "", "")

    # The terminal table.
    rc, out, _ = env.run(["compare", "--spec", TEST_SPEC, "--plain", "--by", "case", "--disagree"] + paths)
    shown = set(re.findall(r"^(\S+) +\* ", out, re.M))
    check(rc == 0 and shown == {r[0] for r in rows if r[4]},
          "--by case --disagree lists exactly the cases where the libraries disagree",
          sorted(r[0] for r in rows if r[4]), out)
    rc, out, _ = env.run(["compare", "--spec", TEST_SPEC, "--plain", "--by", "case", "--status", "crash"] + paths)
    check(rc == 0 and re.findall(r"^(\S+) ", out.split("\n\n")[1], re.M)[1:] == ["crash-vs-timeout"],
          "--status crash keeps the rows where some library crashed", ["crash-vs-timeout"], out)
    rc, out, _ = env.run(["compare", "--spec", TEST_SPEC, "--plain", "--by", "case", "--details"] + paths)
    check(rc == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b[31mred" in out,
          "--details shows control characters of a message as \\xNN", "\\x1b[31mred", out[-3000:])
    check("skip: B (needs 2 devices, library has 1); C\n" in out,
          "--details names the libraries that skipped a case, with the reason", "skip: B (...); C",
          out[-3000:])
    check("raises ValueError: one wording" in out and "expected  \"device#0\"" in out,
          "--details shows what each library returned beside what the case expected",
          "raises ValueError: one wording", out[:3000])
    rc, out, _ = env.run(["compare", "--spec", TEST_SPEC, "--plain"] + paths)
    check(rc == 0 and re.search(r"^T-STR-1 +\* +\d+/\d+ ", out, re.M) is not None,
          "the default rows are statements, with passed/ran per library", "T-STR-1 * n/m", out)
    st = json.load(open(os.path.join(TEST_SPEC, "statements.json")))["statements"]
    t_str_1 = [s for s in st if s["id"] == "T-STR-1"][0]
    rc, out, _ = env.run(["compare", "--spec", TEST_SPEC, "--plain", "--details"] + paths)
    check(rc == 0 and re.search(r"^T-STR-1 .*\n +" + re.escape(t_str_1["level"] + ": " + t_str_1["text"]) +
                                r"\n +source: ", out, re.M) is not None,
          "--details under a statement row: its level, text and source", t_str_1["text"], out[:1500])
    rc, out, _ = env.run(["compare", "--spec", TEST_SPEC, "--color", "--by", "case"] + paths)
    check(rc == 0 and "\x1b[32mpass" in out, "--color colours the statuses", "ESC[32mpass", out[:800])

    # The HTML page carries the same model, escaped.
    page = os.path.join(env.tmp, "page", "made.html")
    rc, out, errtext = env.run(["compare", "--spec", TEST_SPEC, "--quiet", "--html", page] + paths)
    check(rc == 0 and out == "" and os.path.exists(page), "--html --quiet writes the page and no table",
          "page", (rc, out, errtext))
    text = open(page, encoding="utf-8").read()
    blob = re.search(r'<script type="application/json" id="devspec-data">(.*?)</script>', text, re.S)
    check(blob is not None and json.loads(blob.group(1)) == m,
          "the page embeds the model that --json prints", "same model", blob and blob.group(1)[:300])
    check(not re.search(r"<(link|img|iframe)\b|\bsrc=|https?://", text.replace(blob.group(1), "") if blob else text),
          "the page loads nothing: no links, images, frames or URLs outside the data", "none", "")

    # Bad input: a clear error naming the input.
    notrep = os.path.join(env.tmp, "not-a-report.json")
    with open(notrep, "w") as f:
        json.dump({"cases": []}, f)
    for args, what, needle in [
            ([notrep], "a file that is not a report", "not-a-report.json"),
            ([os.path.join(env.tmp, "missing.json")], "a missing file", "missing.json"),
            (["--status", "great"] + paths, "an unknown status", "great"),
            (["--library", "Z"] + paths, "an unknown library", "'Z'"),
            (["--by", "colour"] + paths, "an unknown --by", "colour"),
            ([], "no reports", "needs reports")]:
        rc, out, errtext = env.run(["compare", "--spec", TEST_SPEC] + args)
        check(rc == 2 and needle in errtext, f"{what}: exit 2 with a message naming it", needle,
              (rc, errtext))
    mixed = os.path.join(env.tmp, "mixed")
    os.makedirs(mixed)
    shutil.copy(paths[0], mixed)
    shutil.copy(notrep, mixed)
    rc, out, errtext = env.run(["compare", "--spec", TEST_SPEC, "--json", mixed])
    check(rc == 0 and len(json.loads(out)["libraries"]) == 1 and "left out" in errtext,
          "in a folder, a JSON file that is not a report is left out with a note", "1 library",
          (rc, errtext))


# ---- group render -----------------------------------------------------------------------------

def chromium():
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

    def __init__(self):
        super().__init__()
        self.rows = []  # (class, attrs, [cell statuses])
        self.root = {}
        self.imgs = 0
        self.scripts = 0
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.root = a
        if tag == "img":
            self.imgs += 1
        if tag == "script":
            self.scripts += 1
        if tag == "tr":
            self.rows.append((a.get("class", ""), a, []))
        if tag == "td" and self.rows and "data-status" in a:
            self.rows[-1][2].append(a["data-status"])

    def handle_data(self, data):
        self.text.append(data)


def dump(browser, page, fragment="", budget=None):
    url = "file://" + page + ("#" + fragment if fragment else "")
    # A profile of its own in the test's folder (removed at the end), so parallel tests
    # do not share one and nothing is left behind.
    profile = tempfile.mkdtemp(prefix="chromium-", dir=SCRATCH)
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--user-data-dir=" + profile]
    if budget:
        args.append(f"--virtual-time-budget={budget}")
    p = subprocess.run(args + ["--dump-dom", url], capture_output=True, timeout=180)
    shutil.rmtree(profile, ignore_errors=True)
    d = Dom()
    d.feed(p.stdout.decode("utf-8", "replace"))
    return d


class Cdp:
    """Drives one headless Chromium page over the DevTools protocol on a pipe
    (--remote-debugging-pipe: JSON messages ended by NUL, commands on the browser's fd 3,
    replies on its fd 4), so a test can click and type like a reader."""

    def __init__(self, browser, url):
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()

        def child():
            # Moved above 10 first, so that placing them on 3 and 4 cannot clobber either.
            a, b = fcntl.fcntl(r1, fcntl.F_DUPFD, 10), fcntl.fcntl(w2, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.profile = tempfile.mkdtemp(prefix="chromium-", dir=SCRATCH)
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
        self.page = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def call(self, method, params=None, page=None, timeout=120):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params or {}}
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

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, self.page)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"].get("value")

    def ready(self, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:  # while the page loads, the document may not exist yet
                if self.eval("document.documentElement && document.documentElement.getAttribute('data-ready')") == "1":
                    return True
            except RuntimeError:
                pass
            time.sleep(0.05)
        return False

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)


def case_rows(d):
    return [r for r in d.rows if r[0].split()[:1] == ["case"]]


def group_render(env):
    browser = chromium()
    if not browser:
        skip("render the published reports in Chromium", "chromium is not installed")
        return
    # Item: the page renders whatever names and types the reports hold: case files named
    # "constructor", "toString" and "__proto__", fields of the wrong type, a broken escape in
    # the link, C1 and bidirectional controls in a library's message (shown as \uXXXX).
    hd = os.path.join(env.tmp, "hostile-model")
    os.makedirs(hd)
    _, hpaths = write_made(hd)
    with open(hpaths[0]) as f:
        rep = json.load(f)
    names = ["constructor", "toString", "__proto__", "hasOwnProperty"]
    for i, c in enumerate(rep["cases"]):
        c["file"] = names[i % len(names)]
    bad = copy.deepcopy(rep)
    bad["cases"][0]["spec"] = "T-STR-1"
    bad["cases"][0]["features"] = 5
    bad["cases"][1]["reason"] = {"not": "a string"}
    bad["header"]["features_claimed"] = "device-string"
    bad["header"]["adapter"]["label"] = 7
    bad["cases"][2]["status"] = "fail"
    bad["cases"][2]["observed_status"] = "fail"
    bad["cases"][2]["observed"] = {"error": {"kind": "ValueError", "origin": "library",
                                             "message": "csi \u009b31m, rlo \u202eevil"}}
    hp, bp = os.path.join(hd, "proto.json"), os.path.join(hd, "types.json")
    for path, doc in ((hp, rep), (bp, bad)):
        with open(path, "w") as f:
            json.dump(doc, f)
    page = os.path.join(env.tmp, "hostile-model.html")
    rc, _, errtext = env.run(["compare", "--quiet", "--spec", TEST_SPEC, "--html", page, hp, bp])
    check(rc == 0, "compare --html of reports with hostile names and types", 0, (rc, errtext[-300:]))
    for frag in ("view=cases&group=none&limit=100000", "view=statements&group=file",
                 "q=%", "q=%E0%A4%A&open=%zz", "view=cases&group=file&libs=constructor,__proto__"):
        d = dump(browser, page, frag)
        text = "".join(d.text)
        check(d.root.get("data-ready") == "1" and "\u202e" not in text and "\u009b" not in text,
              f"#{frag}: the page renders (prototype-free maps, checked model, escapes kept)",
              "data-ready 1", (d.root.get("data-ready"), len(text)))
    d = dump(browser, page, "view=cases&group=none&limit=100000&open=" +
             ",".join(c["id"] for c in bad["cases"][:3]), budget=5000)
    text = "".join(d.text)
    check("\\u202e" in text and "\u202e" not in text,
          "a right-to-left override in a library's message is shown as \\u202e on the page",
          "\\u202e", text[:300])

    # The published reports, in adapters.json's order.
    names = [a["name"] for a in json.load(open(os.path.join(env.source, "adapters", "adapters.json")))["adapters"]]
    paths = [os.path.join(env.source, "reports", n + ".json") for n in names]
    paths = [p for p in paths if os.path.exists(p)]
    if not paths:
        skip("render the published reports in Chromium", "no published reports")
    else:
        reps = [json.load(open(p)) for p in paths]
        page = os.path.join(env.tmp, "published.html")
        rc, _, errtext = env.run(["compare", "--quiet", "--html", page] + paths)
        check(rc == 0, "compare --html of the published reports", 0, (rc, errtext))
        ids = []
        for r in reps:
            for c in r["cases"]:
                if c["id"] not in ids:
                    ids.append(c["id"])
        d = dump(browser, page, "view=cases&group=none&limit=100000")
        rows = case_rows(d)
        check(d.root.get("data-ready") == "1", "the page renders (script ran to the end)", "1", d.root)
        check([r[1].get("data-id") for r in rows] == ids, "one row per case of the reports, in order",
              len(ids), len(rows))
        status = {(i, c["id"]): c["status"] for i, r in enumerate(reps) for c in r["cases"]}
        want = [[status.get((i, cid), "none") for i in range(len(reps))] for cid in ids]
        got = [r[2] for r in rows]
        check(got == want, "every cell shows the report's status for its case and library",
              want[:3], got[:3])
        dis = disagreeing(reps)
        d2 = dump(browser, page, "view=cases&group=none&disagree=1&limit=100000")
        got_dis = {r[1].get("data-id") for r in case_rows(d2)}
        check(got_dis == dis and all(r[1].get("data-disagree") == "1" for r in case_rows(d2)),
              "the filter 'only where libraries disagree' keeps exactly those cases", len(dis), len(got_dis))
        fails = {cid for cid, row in zip(ids, want) if "fail" in row}
        d3 = dump(browser, page, "view=cases&group=none&status=fail&limit=100000")
        check({r[1].get("data-id") for r in case_rows(d3)} == fails,
              "the status filter keeps the cases where some library has that status", len(fails),
              len(case_rows(d3)))
        keep = names[:2]
        d4 = dump(browser, page, "view=cases&group=none&limit=5&libs=" + ",".join(keep))
        check(all(len(r[2]) == 2 for r in case_rows(d4)) and 5 <= len(case_rows(d4)) < len(ids),
              "the library filter hides the other columns; rows render in chunks", "rows x 2",
              [len(r[2]) for r in case_rows(d4)])
        cited = {s for r in reps for c in r["cases"] for s in c["spec"]}
        d5 = dump(browser, page, "view=statements&group=none&limit=100000")
        stmts = {r[1].get("data-stmt") for r in d5.rows if r[0].startswith("stmt")}
        check(stmts == cited, "the statements view has one row per statement a case cites",
              len(cited), len(stmts))
        # A reader's clicks and typing, through the DevTools protocol.
        cdp = Cdp(browser, "file://" + page + "#view=cases&group=none")
        try:
            check(cdp.ready(), "the page is ready under the DevTools protocol", True, False)
            rows_now = lambda: cdp.eval("+document.getElementById('summary').getAttribute('data-rows')")  # noqa: E731
            n = rows_now()
            check(n == len(ids), "the cases view starts with every case", len(ids), n)
            cdp.eval("document.getElementById('disagree').click()")
            check(rows_now() == len(dis) and
                  cdp.eval("[...document.querySelectorAll('tr.case')].every(r => r.dataset.disagree === '1')"),
                  "clicking 'only where libraries disagree' keeps those cases", len(dis), rows_now())
            cdp.eval("document.getElementById('disagree').click()")
            for st in ("pass", "error", "skip", "xfail", "xpass", "crash", "timeout"):
                cdp.eval(f"document.getElementById('status-{st}').click()")
            check(rows_now() == len(fails), "unticking every status but fail keeps the cases some library failed",
                  len(fails), rows_now())
            for st in ("pass", "error", "skip", "xfail", "xpass", "crash", "timeout"):
                cdp.eval(f"document.getElementById('status-{st}').click()")
            cdp.eval("document.getElementById('lib-0').click()")
            heads = cdp.eval("document.querySelectorAll('th.lib').length")
            check(heads == len(reps) - 1, "unticking a library removes its column", len(reps) - 1, heads)
            cdp.eval("document.getElementById('lib-0').click()")
            target = next((cid for cid, row in zip(ids, want) if "fail" in row or "xfail" in row), ids[0])
            opened = cdp.eval(f"""(() => {{
                const tr = document.querySelector('tr.case[data-id="{target}"]');
                tr.click();
                const d = tr.nextElementSibling;
                return d && d.classList.contains('detail') ? d.textContent : null; }})()""")
            check(opened is not None and "expected" in opened and "observed" in opened,
                  "clicking a case shows what each library returned beside what was expected",
                  "expected ... observed", (opened or "")[:500])
            # An ID that is part of no other ID (Find matches parts of IDs and descriptions).
            descs = [c.get("description") or "" for c in json.loads(env.run(["compare", "--json"] + paths)[1])["cases"]]
            alone = next(i for i in ids if not any(i in j for j in ids if j != i) and
                         not any(i in t for t in descs))
            cdp.eval(f"""(() => {{ const s = document.getElementById('search');
                s.value = {json.dumps(alone)}; s.dispatchEvent(new Event('input')); }})()""")
            time.sleep(0.6)
            shown = cdp.eval("[...document.querySelectorAll('tr.case')].map(r => r.dataset.id)")
            check(shown == [alone], "typing a case ID in Find keeps that case", [alone], shown)
        finally:
            cdp.close()

        published = os.path.join(env.source, "reports", "index.html")
        if os.path.exists(published):
            d6 = dump(browser, published, "view=cases&group=none&limit=3")
            check(d6.root.get("data-ready") == "1" and len(case_rows(d6)) >= 3,
                  "reports/index.html opens from disk and renders", ">= 3 rows", len(case_rows(d6)))
        else:
            check(False, "reports/index.html exists", "reports/index.html", "missing")

    # A misbehaving library: real runs of the fake adapter, whose error message is markup.
    runs = os.path.join(env.tmp, "hostile")
    os.makedirs(runs)
    for n in (2, 3):
        rc, _, errtext = env.run(["run", "--spec", TEST_SPEC, "--cases", HOSTILE, "--no-tap",
                                  "--adapter-cmd", f"exec {sys.executable} {FAKE} --devices {n}",
                                  "--adapter", f"fake-{n}", "--report", os.path.join(runs, f"fake-{n}.json")])
        check(rc == 1, f"the fake adapter with {n} devices runs the hostile cases", 1, (rc, errtext))
    page = os.path.join(env.tmp, "hostile.html")
    rc, _, errtext = env.run(["compare", "--spec", TEST_SPEC, "--cases", HOSTILE, "--quiet",
                              "--html", page, runs])
    check(rc == 0, "compare --html of the hostile runs", 0, (rc, errtext))
    d = dump(browser, page, "view=cases&group=none&open=hostile.message,hostile.two-devices", budget=2000)
    text = "".join(d.text)
    check(d.root.get("data-ready") == "1", "the hostile page renders", "1", d.root)
    check("data-pwned" not in d.root and d.imgs == 0 and d.scripts == 2,
          "a library's markup stays inert: nothing ran, no element was added",
          "no data-pwned, no img, 2 scripts", (d.root, d.imgs, d.scripts))
    check("<script>document.documentElement.setAttribute('data-pwned','script')</script></table>" in text,
          "the hostile message shows as text in the opened case", "<script>...</table>", text[-2000:])
    check("</table><script>document.documentElement.setAttribute('data-pwned','description')</script>" in text,
          "a case's markup in its description shows as text", "description", "")
    rows = case_rows(d)
    check([r[1].get("data-id") for r in rows] ==
          ["hostile.message", "hostile.two-devices", "hostile.passes", "hostile.skipped"] and
          [r[2] for r in rows] == [["fail", "fail"], ["pass", "fail"], ["pass", "pass"], ["skip", "skip"]],
          "the hostile runs' rows and cells", "4 rows", [(r[1].get("data-id"), r[2]) for r in rows])
    check("['device#0', 'device#1', 'device#2']" not in text and '["device#0","device#1","device#2"]' in text,
          "an opened case shows the observed value beside the expected one", "observed list", text[-1500:])
    cdp = Cdp(browser, "file://" + page + "#view=cases&group=none")
    try:
        cdp.ready()
        res = cdp.eval("""(() => {
            document.querySelector('tr.case[data-id="hostile.message"]').click();
            return {pwned: document.documentElement.getAttribute('data-pwned'),
                    imgs: document.images.length, scripts: document.scripts.length,
                    text: document.querySelector('tr.detail').textContent}; })()""")
        check(res["pwned"] is None and res["imgs"] == 0 and res["scripts"] == 2 and
              "<img src=x onerror=" in res["text"],
              "clicking the hostile case shows its markup as text and runs nothing",
              "inert", {k: v for k, v in res.items() if k != "text"})
    finally:
        cdp.close()
    d2 = dump(browser, page, "view=cases&group=none&disagree=1")
    check([r[1].get("data-id") for r in case_rows(d2)] == ["hostile.two-devices"],
          "only where libraries disagree: the case one adapter passes and the other fails",
          ["hostile.two-devices"], [r[1].get("data-id") for r in case_rows(d2)])

    # Size: thousands of cases x the published libraries.
    if paths:
        big = os.path.join(env.tmp, "big")
        os.makedirs(big)
        times = 20
        for p in paths:
            r = json.load(open(p))
            cases = []
            for k in range(times):
                for c in r["cases"]:
                    c = dict(c)
                    c["id"] = f"{c['id']}.x{k}"
                    cases.append(c)
            r["cases"] = cases
            with open(os.path.join(big, os.path.basename(p)), "w") as f:
                json.dump(r, f)
        page = os.path.join(env.tmp, "big.html")
        t0 = time.monotonic()
        rc, _, errtext = env.run(["compare", "--quiet", "--html", page] + [os.path.join(big, os.path.basename(p)) for p in paths])
        secs = time.monotonic() - t0
        size = os.path.getsize(page)
        ncases = len(ids) * times
        check(rc == 0, f"compare --html of {ncases} cases x {len(paths)} libraries", 0, (rc, errtext))
        d = dump(browser, page, "view=cases&group=file")
        cdp = Cdp(browser, "file://" + page + "#view=cases&group=file")
        try:
            cdp.ready()
            time.sleep(0.2)
            fcp = cdp.eval("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null")
            timing = cdp.eval("({s: document.documentElement.dataset.scriptMs, r: document.documentElement.dataset.renderMs,"
                              " p: document.documentElement.dataset.paintMs})")
        finally:
            cdp.close()
        print(f"# scale (DevTools): first contentful paint {fcp} ms, script {timing['s']} ms, "
              f"first rows {timing['r']} ms, painted {timing['p']} ms")
        script_ms = float(d.root.get("data-script-ms", "nan"))
        render_ms = float(d.root.get("data-render-ms", "nan"))
        paint_ms = float(d.root.get("data-paint-ms", "nan"))
        print(f"# scale: {ncases} cases x {len(paths)} libraries: page {size / 1e6:.2f} MB, "
              f"written in {secs:.2f} s; in headless Chromium, from navigation start: script "
              f"starts {script_ms:.0f} ms, first rows in the document {render_ms:.0f} ms, "
              f"painted {paint_ms:.0f} ms")
        # The page's size grows with its cells (a case of one library), so its bound is a
        # budget per cell plus a fixed part for the script and the page, not one figure that
        # the suite outgrows as cases and libraries are added: 64 bytes a cell (about 56 were
        # measured at 3,330 cases x 14 libraries, times 20).
        budget = 64 * ncases * len(paths) + 2e6
        check(size < budget and len(case_rows(d)) < ncases / 4 and render_ms < 10000,
              "a page of thousands of cases stays usable: bounded size, rows rendered lazily",
              f"< {budget / 1e6:.1f} MB (64 bytes a cell + 2 MB), a fraction of the rows at "
              "first, < 10 s", (size, len(case_rows(d)), render_ms))


# ---- group probe ------------------------------------------------------------------------------

def group_probe(env):
    out = os.path.join(env.tmp, "probe")
    fake = FAKE
    adapters = ["--adapter", fake]
    if env.null_prog:
        adapters += ["--adapter", env.null_prog]
    rc, text, errtext = env.run(["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out, "--plain",
                                 "--timeout", "20"] + adapters)
    check(rc == 0, "probe runs the case file against each adapter and exits 0", 0, (rc, errtext[-2000:]))
    names = ["fake_adapter"] + (["devspec-null-adapter"] if env.null_prog else [])
    for n in names:
        check(os.path.exists(os.path.join(out, n + ".json")), f"probe wrote {n}'s report", n,
              os.listdir(out) if os.path.isdir(out) else None)
    check(os.path.exists(os.path.join(out, "index.html")), "probe wrote the page", "index.html",
          os.listdir(out) if os.path.isdir(out) else None)
    header = re.search(r"^case +(.*)$", text, re.M)
    check(header is not None and header.group(1).split() == names,
          "the table has one column per adapter, in the order given", names, text[:1500])
    for cid in ("hostile.message", "hostile.two-devices", "hostile.passes", "hostile.skipped"):
        check(re.search(r"^" + re.escape(cid) + r" ", text, re.M) is not None,
              f"the table has a row for {cid}", cid, text[:2000])
    check("observed  raises ValueError: <script>" in text and "\\x1b[31mred" in text,
          "what each library returned is shown under its case, escaped for the terminal",
          "observed  raises ValueError", text[-3000:])
    rc, text, errtext = env.run(["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out, "--json",
                                 "--adapter", fake])
    m = json.loads(text) if rc == 0 else {}
    check(rc == 0 and [l["label"] for l in m.get("libraries", [])] == ["fake_adapter"] and
          len(m.get("cases", [])) == 4, "probe --json prints the model", "1 library, 4 cases",
          (rc, errtext[-1000:]))
    bad = os.path.join(env.tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"description": "x", "cases": [{"id": "x", "description": "x", "spec": ["T-STR-1"], '
                '"features": ["device-string"], "steps": [{"op": "array.frobnicate"}]}]}')
    out2 = os.path.join(env.tmp, "probe-bad")
    rc, text, errtext = env.run(["probe", bad, "--spec", TEST_SPEC, "--out", out2, "--adapter", fake])
    check(rc == 2 and "array.frobnicate" in errtext and not os.path.exists(out2),
          "an invalid case file: exit 2, the problem named, no adapter started", 2, (rc, errtext))
    rc, text, errtext = env.run(["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out, "--plain",
                                 "--adapter", fake, "--adapter", "no-such-adapter"])
    check(rc == 3 and "no-such-adapter" in errtext and re.search(r"^case +fake_adapter *$", text, re.M),
          "an adapter that cannot start: exit 3, and the table of the others", 3, (rc, errtext, text[:500]))

    # Item: outputs never destroy inputs. A report that would be the case file (probe
    # CASES/fake_adapter.json --out CASES) or lie inside a cases folder is refused, and the
    # case file is left as it was.
    inputs = os.path.join(env.tmp, "inputs")
    os.makedirs(inputs)
    mine = os.path.join(inputs, "fake_adapter.json")
    shutil.copy(HOSTILE, mine)
    with open(mine, "rb") as f:
        before = f.read()
    rc, text, errtext = env.run(["probe", mine, "--spec", TEST_SPEC, "--out", inputs,
                                 "--adapter", fake])
    with open(mine, "rb") as f:
        after = f.read()
    check(rc == 2 and "is the case file" in errtext and after == before,
          "probe whose report would be the case file: refused (exit 2), the file intact", 2,
          (rc, errtext[-600:], len(after)))
    rc, text, errtext = env.run(["probe", inputs, "--spec", TEST_SPEC, "--out",
                                 os.path.join(inputs, "out"), "--adapter", fake])
    check(rc == 2 and "lies inside the case folder" in errtext and
          not os.path.exists(os.path.join(inputs, "out")),
          "probe whose reports would go inside the cases folder: refused", 2, (rc, errtext[-600:]))
    rc, text, errtext = env.run(["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out,
                                 "--html", os.path.join(out, "fake_adapter.json"), "--adapter", fake])
    check(rc == 2 and "two outputs are one file" in errtext,
          "probe whose page would be a report: refused", 2, (rc, errtext[-600:]))

    # Item: two adapters of one base name (a/x, b/x) get a report each.
    for d in ("a", "b"):
        os.makedirs(os.path.join(env.tmp, d))
        with open(os.path.join(env.tmp, d, "x"), "w") as f:
            f.write(f"#!/bin/sh\nexec {sys.executable} {FAKE}\n")
        os.chmod(os.path.join(env.tmp, d, "x"), 0o755)
    out3 = os.path.join(env.tmp, "probe-same-name")
    rc, text, errtext = env.run(["probe", HOSTILE, "--spec", TEST_SPEC, "--out", out3, "--plain",
                                 "--adapter", os.path.join(env.tmp, "a", "x"),
                                 "--adapter", os.path.join(env.tmp, "b", "x")])
    check(rc == 0 and os.path.exists(os.path.join(out3, "x.json")) and
          os.path.exists(os.path.join(out3, "x-2.json")),
          "two adapters of one base name: x.json and x-2.json", ["x.json", "x-2.json"],
          (rc, os.listdir(out3) if os.path.isdir(out3) else None, errtext[-500:]))
    # Item: the runs share the cores: each gets --jobs cores / runs at a time.
    cores = os.cpu_count() or 1
    check(f"2 runs at a time with --jobs {max(1, cores // 2)} each" in errtext,
          "probe gives each of its runs a share of the cores, and says so",
          f"--jobs {max(1, cores // 2)}", errtext[:400])

    # A probe killed outright stops its runs, and they their workers: nothing is left behind.
    hang = os.path.join(env.tmp, "hang-adapter")
    with open(hang, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {FAKE} --hang-hello\n")
    os.chmod(hang, 0o755)
    p = subprocess.Popen([env.devspec, "probe", HOSTILE, "--spec", TEST_SPEC, "--out",
                          os.path.join(env.tmp, "probe-killed"), "--plain",
                          "--adapter", hang], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tree = []

    def descendants():
        found, todo = [], [p.pid]
        while todo:
            kids = children(todo.pop())
            found += kids
            todo += kids
        return found

    def started():
        tree[:] = descendants()
        return len(tree) >= 2  # the run and its worker
    ok = wait_for(started)
    p.kill()
    p.communicate()
    gone = wait_for(lambda: not any(alive(k) for k in tree), 15)
    check(ok and gone, "SIGKILL of probe: its runs and their workers stop", "all gone",
          [(k, alive(k)) for k in tree])
    for k in tree:
        if alive(k):
            os.kill(k, 9)


GROUPS = {"model": group_model, "render": group_render, "probe": group_probe}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devspec", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--null-program")
    ap.add_argument("group", choices=sorted(GROUPS))
    a = ap.parse_args()
    env = Env(a)
    global SCRATCH
    SCRATCH = env.tmp
    try:
        GROUPS[a.group](env)
    except Exception as e:  # a crash of the test is a failure, not a silent pass
        check(False, f"group {a.group} ran to the end", "no exception", repr(e))
        raise
    finally:
        shutil.rmtree(env.tmp, ignore_errors=True)
    return plan()


if __name__ == "__main__":
    sys.exit(main())
