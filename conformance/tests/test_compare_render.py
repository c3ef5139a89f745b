"""`devspec compare`'s page in headless Chromium (`chromium --headless --dump-dom`, and
driven over the DevTools protocol): the published reports' rows, cells and filters, a
reader's clicks and typing; reports with hostile names and types; real runs of a
misbehaving adapter whose error message is markup staying inert text; the page size and
time to first paint of a matrix of thousands of cases (printed). Skipped without Chromium
(scripts/setup.sh installs it)."""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from typing import Any

import pytest
from compare_support import (
    HOSTILE,
    Cdp,
    case_rows,
    chromium,
    devspec,
    disagreeing,
    dump,
    write_made,
)
from support import FAKE, TEST_SPEC, Env, wait_until, why

FCP = ("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null")


@pytest.fixture
def browser() -> str:
    b = chromium()
    if not b:
        pytest.skip("chromium is not installed")
    return b


def published(env: Env) -> tuple[list[str], list[str], list[dict[str, Any]], list[str]]:
    """The published reports, in adapters.json's order: (the adapters' names, the reports'
    paths, the reports, the case IDs in order); skips the test where there are none."""
    with open(os.path.join(env.source, "adapters", "adapters.json")) as f:
        names = [a["name"] for a in json.load(f)["adapters"]]
    paths = [os.path.join(env.source, "reports", n + ".json") for n in names]
    paths = [p for p in paths if os.path.exists(p)]
    if not paths:
        pytest.skip("no published reports")
    reps = []
    for p in paths:
        with open(p) as f:
            reps.append(json.load(f))
    ids: list[str] = []
    for r in reps:
        for c in r["cases"]:
            if c["id"] not in ids:
                ids.append(c["id"])
    return names, paths, reps, ids


def test_hostile_names_and_types(env: Env, browser: str) -> None:
    """The page renders whatever names and types the reports hold: case files named
    "constructor", "toString" and "__proto__", fields of the wrong type, a broken escape in
    the link, C1 and bidirectional controls in a library's message (shown as \\uXXXX)."""
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
    bad["header"]["suite"]["commit"] = 12345
    bad["header"]["devices"] = {"D0": "cpu"}
    bad["cases"][2]["status"] = "fail"
    bad["cases"][2]["observed_status"] = "fail"
    bad["cases"][2]["observed"] = {"error": {"kind": "ValueError", "origin": "library",
                                             "message": "csi \u009b31m, rlo \u202eevil"}}
    hp, bp = os.path.join(hd, "proto.json"), os.path.join(hd, "types.json")
    for path, doc in ((hp, rep), (bp, bad)):
        with open(path, "w") as f:
            json.dump(doc, f)
    page = os.path.join(env.tmp, "hostile-model.html")
    rc, _, errtext = devspec(env, ["compare", "--quiet", "--spec", TEST_SPEC, "--html", page,
                                   hp, bp])
    assert rc == 0, why(
        "compare --html of reports with hostile names and types", 0, (rc, errtext[-300:]))
    # Checked against spec/schema/report.json on read: each field of the wrong type is named.
    for field in ("header.suite.commit", "header.devices", "header.adapter.label"):
        assert f"{bp}: {field}" in errtext, why(
            f"compare names {field}, of the wrong type", field, errtext[-1500:])
    for frag in ("view=cases&group=none&limit=100000", "view=statements&group=file",
                 "q=%", "q=%E0%A4%A&open=%zz", "view=cases&group=file&libs=constructor,__proto__"):
        d = dump(browser, page, env.tmp, frag)
        text = "".join(d.text)
        assert (
            d.root.get("data-ready") == "1" and "\u202e" not in text and "\u009b" not in text
        ), why(
            f"#{frag}: the page renders (prototype-free maps, checked model, escapes kept)",
            "data-ready 1", (d.root.get("data-ready"), len(text)))
    # The page itself trusts no field's type either: a model whose library header holds a
    # number as suite_commit and an object as devices (as compare's check would not let
    # through) still renders.
    with open(page, encoding="utf-8") as f:
        html = f.read()
    start = html.index('id="devspec-data">') + len('id="devspec-data">')
    end = html.index("</script>", start)
    model = json.loads(html[start:end])
    for lib in model["libraries"]:
        lib.update(suite_commit=12345, devices={"D0": "cpu"}, library=["x"], complete="yes",
                   counts=[1], report=None)
    raw = os.path.join(env.tmp, "hostile-raw.html")
    with open(raw, "w", encoding="utf-8") as f:
        f.write(html[:start] + json.dumps(model).replace("<", "\\u003c") + html[end:])
    for frag in ("view=cases&group=none", "view=statements&group=feature"):
        d = dump(browser, raw, env.tmp, frag)
        assert d.root.get("data-ready") == "1" and len("".join(d.text)) > 100, why(
            f"#{frag}: a model of the wrong types still renders", "data-ready 1",
            (d.root.get("data-ready"), "".join(d.text)[:300]))
    d = dump(browser, page, env.tmp, "view=cases&group=none&limit=100000&open=" +
             ",".join(c["id"] for c in bad["cases"][:3]), budget=5000)
    text = "".join(d.text)
    assert (
        "\\u202e" in text and "\u202e" not in text
    ), why(
        "a right-to-left override in a library's message is shown as \\u202e on the page",
        "\\u202e", text[:300])


def test_published_reports(env: Env, browser: str) -> None:
    """The published reports, in adapters.json's order: rows, cells, the filters, and a
    reader's clicks and typing."""
    names, paths, reps, ids = published(env)
    page = os.path.join(env.tmp, "published.html")
    rc, _, errtext = devspec(env, ["compare", "--quiet", "--html", page, *paths])
    assert rc == 0, why("compare --html of the published reports", 0, (rc, errtext))
    d = dump(browser, page, env.tmp, "view=cases&group=none&limit=100000")
    rows = case_rows(d)
    assert d.root.get("data-ready") == "1", why(
        "the page renders (script ran to the end)", "1", d.root)
    assert [r[1].get("data-id") for r in rows] == ids, why(
        "one row per case of the reports, in order", len(ids), len(rows))
    status = {(i, c["id"]): c["status"] for i, r in enumerate(reps) for c in r["cases"]}
    want = [[status.get((i, cid), "none") for i in range(len(reps))] for cid in ids]
    got = [r[2] for r in rows]
    assert got == want, why(
        "every cell shows the report's status for its case and library", want[:3], got[:3])
    dis = disagreeing(reps)
    d2 = dump(browser, page, env.tmp, "view=cases&group=none&disagree=1&limit=100000")
    got_dis = {r[1].get("data-id") for r in case_rows(d2)}
    assert (
        got_dis == dis and all(r[1].get("data-disagree") == "1" for r in case_rows(d2))
    ), why(
        "the filter 'only where libraries disagree' keeps exactly those cases", len(dis),
        len(got_dis))
    fails = {cid for cid, row in zip(ids, want, strict=False) if "fail" in row}
    d3 = dump(browser, page, env.tmp, "view=cases&group=none&status=fail&limit=100000")
    assert (
        {r[1].get("data-id") for r in case_rows(d3)} == fails
    ), why(
        "the status filter keeps the cases where some library has that status", len(fails),
        len(case_rows(d3)))
    keep = names[:2]
    d4 = dump(browser, page, env.tmp, "view=cases&group=none&limit=5&libs=" + ",".join(keep))
    assert (
        all(len(r[2]) == 2 for r in case_rows(d4)) and 5 <= len(case_rows(d4)) < len(ids)
    ), why(
        "the library filter hides the other columns; rows render in chunks", "rows x 2",
        [len(r[2]) for r in case_rows(d4)])
    cited = {s for r in reps for c in r["cases"] for s in c["spec"]}
    d5 = dump(browser, page, env.tmp, "view=statements&group=none&limit=100000")
    stmts = {r[1].get("data-stmt") for r in d5.rows if r[0].startswith("stmt")}
    assert stmts == cited, why(
        "the statements view has one row per statement a case cites", len(cited), len(stmts))
    # A reader's clicks and typing, through the DevTools protocol.
    cdp = Cdp(browser, "file://" + page + "#view=cases&group=none", env.tmp)
    try:
        assert cdp.ready(), why("the page is ready under the DevTools protocol", True, False)

        def rows_now() -> Any:
            return cdp.eval(
                "+document.getElementById('summary').getAttribute('data-rows')")

        n = rows_now()
        assert n == len(ids), why("the cases view starts with every case", len(ids), n)
        cdp.eval("document.getElementById('disagree').click()")
        assert (
            rows_now() == len(dis) and
            cdp.eval("[...document.querySelectorAll('tr.case')]"
                     ".every(r => r.dataset.disagree === '1')")
        ), why(
            "clicking 'only where libraries disagree' keeps those cases", len(dis), rows_now())
        cdp.eval("document.getElementById('disagree').click()")
        for st in ("pass", "error", "skip", "xfail", "xpass", "crash", "timeout"):
            cdp.eval(f"document.getElementById('status-{st}').click()")
        assert (
            rows_now() == len(fails)
        ), why(
            "unticking every status but fail keeps the cases some library failed",
            len(fails), rows_now())
        for st in ("pass", "error", "skip", "xfail", "xpass", "crash", "timeout"):
            cdp.eval(f"document.getElementById('status-{st}').click()")
        cdp.eval("document.getElementById('lib-0').click()")
        heads = cdp.eval("document.querySelectorAll('th.lib').length")
        assert heads == len(reps) - 1, why(
            "unticking a library removes its column", len(reps) - 1, heads)
        cdp.eval("document.getElementById('lib-0').click()")
        target = next((cid for cid, row in zip(ids, want, strict=True)
                       if "fail" in row or "xfail" in row), ids[0])
        opened = cdp.eval(f"""(() => {{
            const tr = document.querySelector('tr.case[data-id="{target}"]');
            tr.click();
            const d = tr.nextElementSibling;
            return d && d.classList.contains('detail') ? d.textContent : null; }})()""")
        assert (
            opened is not None and "expected" in opened and "observed" in opened
        ), why(
            "clicking a case shows what each library returned beside what was expected",
            "expected ... observed", (opened or "")[:500])
        # An ID that is part of no other ID (Find matches parts of IDs and descriptions).
        model = json.loads(devspec(env, ["compare", "--json", *paths])[1])
        descs = [c.get("description") or "" for c in model["cases"]]
        alone = next(i for i in ids if not any(i in j for j in ids if j != i) and
                     not any(i in t for t in descs))
        cdp.eval(f"""(() => {{ const s = document.getElementById('search');
            s.value = {json.dumps(alone)}; s.dispatchEvent(new Event('input')); }})()""")

        def shown_rows() -> Any:
            return cdp.eval("[...document.querySelectorAll('tr.case')].map(r => r.dataset.id)")

        # Find filters as the reader types: wait for the rows to follow.
        wait_until(lambda: shown_rows() == [alone])
        shown = shown_rows()
        assert shown == [alone], why("typing a case ID in Find keeps that case", [alone], shown)
    finally:
        cdp.close()

    index = os.path.join(env.source, "reports", "index.html")
    assert os.path.exists(index), why(
        "reports/index.html exists", "reports/index.html", "missing")
    d6 = dump(browser, index, env.tmp, "view=cases&group=none&limit=3")
    assert d6.root.get("data-ready") == "1" and len(case_rows(d6)) >= 3, why(
        "reports/index.html opens from disk and renders", ">= 3 rows", len(case_rows(d6)))


def test_misbehaving_library(env: Env, browser: str) -> None:
    """A misbehaving library: real runs of the fake adapter, whose error message is
    markup."""
    runs = os.path.join(env.tmp, "hostile")
    os.makedirs(runs)
    for n in (2, 3):
        rc, _, errtext = devspec(env, ["run", "--spec", TEST_SPEC, "--cases", HOSTILE, "--no-tap",
                                  "--adapter-cmd", f"exec {sys.executable} {FAKE} --devices {n}",
                                       "--adapter", f"fake-{n}", "--report",
                                       os.path.join(runs, f"fake-{n}.json")])
        assert rc == 1, why(
            f"the fake adapter with {n} devices runs the hostile cases", 1, (rc, errtext))
    page = os.path.join(env.tmp, "hostile.html")
    rc, _, errtext = devspec(env, ["compare", "--spec", TEST_SPEC, "--cases", HOSTILE, "--quiet",
                              "--html", page, runs])
    assert rc == 0, why("compare --html of the hostile runs", 0, (rc, errtext))
    d = dump(browser, page, env.tmp,
             "view=cases&group=none&open=hostile.message,hostile.two-devices", budget=2000)
    text = "".join(d.text)
    assert d.root.get("data-ready") == "1", why("the hostile page renders", "1", d.root)
    assert (
        "data-pwned" not in d.root and d.imgs == 0 and d.scripts == 2
    ), why(
        "a library's markup stays inert: nothing ran, no element was added",
        "no data-pwned, no img, 2 scripts", (d.root, d.imgs, d.scripts))
    assert (
        "<script>document.documentElement.setAttribute('data-pwned','script')</script></table>"
        in text
    ), why(
        "the hostile message shows as text in the opened case", "<script>...</table>", text[-2000:])
    assert (
        "</table><script>document.documentElement.setAttribute('data-pwned','description')"
        "</script>" in text
    ), why(
        "a case's markup in its description shows as text", "description", "")
    rows = case_rows(d)
    assert (
        [r[1].get("data-id") for r in rows] ==
        ["hostile.message", "hostile.two-devices", "hostile.passes", "hostile.skipped"] and
        [r[2] for r in rows]
        == [["fail", "fail"], ["pass", "fail"], ["pass", "pass"], ["skip", "skip"]]
    ), why(
        "the hostile runs' rows and cells", "4 rows", [(r[1].get("data-id"), r[2]) for r in rows])
    assert (
        "['cpu', 'gpu:0', 'gpu:1']" not in text
        and '["cpu","gpu:0","gpu:1"]' in text
    ), why(
        "an opened case shows the observed value, in the library's device names, beside the "
        "expected one", "observed list",
        text[-1500:])
    cdp = Cdp(browser, "file://" + page + "#view=cases&group=none", env.tmp)
    try:
        cdp.ready()
        res = cdp.eval("""(() => {
            document.querySelector('tr.case[data-id="hostile.message"]').click();
            return {pwned: document.documentElement.getAttribute('data-pwned'),
                    imgs: document.images.length, scripts: document.scripts.length,
                    text: document.querySelector('tr.detail').textContent}; })()""")
        assert (
            res["pwned"] is None and res["imgs"] == 0 and res["scripts"] == 2 and
            "<img src=x onerror=" in res["text"]
        ), why(
            "clicking the hostile case shows its markup as text and runs nothing",
            "inert", {k: v for k, v in res.items() if k != "text"})
    finally:
        cdp.close()
    d2 = dump(browser, page, env.tmp, "view=cases&group=none&disagree=1")
    assert (
        [r[1].get("data-id") for r in case_rows(d2)] == ["hostile.two-devices"]
    ), why(
        "only where libraries disagree: the case one adapter passes and the other fails",
        ["hostile.two-devices"], [r[1].get("data-id") for r in case_rows(d2)])


def test_scale(env: Env, browser: str) -> None:
    """Size: thousands of cases x the published libraries."""
    _names, paths, _reps, ids = published(env)

    def page_of(times: int) -> tuple[str, float, int, str]:
        """The page of the published reports with each case repeated TIMES times (IDs made
        distinct): its path, how long compare took, its exit status and its stderr."""
        big = os.path.join(env.tmp, "big%d" % times)
        os.makedirs(big)
        for p in paths:
            with open(p) as f:
                r = json.load(f)
            cases = []
            for k in range(times):
                for c in r["cases"]:
                    c = dict(c)
                    c["id"] = f"{c['id']}.x{k}"
                    cases.append(c)
            r["cases"] = cases
            with open(os.path.join(big, os.path.basename(p)), "w") as f:
                json.dump(r, f)
        out = os.path.join(env.tmp, "big%d.html" % times)
        t0 = time.monotonic()
        code, _, err = devspec(env, ["compare", "--quiet", "--html", out,
                                     *[os.path.join(big, os.path.basename(p)) for p in paths]])
        return out, time.monotonic() - t0, code, err

    half, _, rc_half, _ = page_of(10)
    times = 20
    page, secs, rc, errtext = page_of(times)
    size = os.path.getsize(page)
    half_size = os.path.getsize(half) if rc_half == 0 else 0
    ncases = len(ids) * times
    assert rc == 0, why(
        f"compare --html of {ncases} cases x {len(paths)} libraries", 0, (rc, errtext))
    d = dump(browser, page, env.tmp, "view=cases&group=file")
    cdp = Cdp(browser, "file://" + page + "#view=cases&group=file", env.tmp)
    try:
        cdp.ready()
        # The first contentful paint is recorded once the page has painted.
        wait_until(lambda: cdp.eval(FCP) is not None)
        fcp = cdp.eval(FCP)
        timing = cdp.eval("({s: document.documentElement.dataset.scriptMs,"
                          " r: document.documentElement.dataset.renderMs,"
                          " p: document.documentElement.dataset.paintMs})")
    finally:
        cdp.close()
    print(f"# scale (DevTools): first contentful paint {fcp} ms, script {timing['s']} ms, "
          f"first rows {timing['r']} ms, painted {timing['p']} ms")
    script_ms = float(d.root.get("data-script-ms") or "nan")
    render_ms = float(d.root.get("data-render-ms") or "nan")
    paint_ms = float(d.root.get("data-paint-ms") or "nan")
    print(f"# scale: {ncases} cases x {len(paths)} libraries: page {size / 1e6:.2f} MB, "
          f"written in {secs:.2f} s; in headless Chromium, from navigation start: script "
          f"starts {script_ms:.0f} ms, first rows in the document {render_ms:.0f} ms, "
          f"painted {paint_ms:.0f} ms")
    # The page's size grows with its cells (a case of one library): twice the cases make at
    # most a little more than twice the page (the script and the page's frame are fixed), a
    # check of the growth that does not depend on what one cell holds; and a budget per cell
    # against a page that grows linearly but wastefully: 96 bytes a cell (56 were measured at
    # 3,330 cases x 14 libraries, 72 at 3,542 with the function cases' longer outcomes).
    budget = 96 * ncases * len(paths) + 2e6
    # Its times are printed above, not asserted (STYLE.md, Tests): what keeps it usable is
    # checked instead, a size linear in its cells and a first render of a fraction of its rows.
    assert rc_half == 0 and size < 2.1 * half_size, why(
        "twice the cases make at most 2.1 times the page (linear growth)",
        f"< {2.1 * half_size / 1e6:.1f} MB", (rc_half, size, half_size))
    assert size < budget and len(case_rows(d)) < ncases / 4, why(
        "a page of thousands of cases stays usable: bounded size, rows rendered lazily",
        f"< {budget / 1e6:.1f} MB (96 bytes a cell + 2 MB), a fraction of the rows at first",
        (size, len(case_rows(d))))
