"""reports/summary.py --relativise: a published report names no path of the machine that ran
it, inside a text too (a traceback's "raised at" frame), and a reproducer's command names the
report where it is published, not the folder the run wrote it in."""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "reports"))

import summary  # noqa: E402


def test_paths_inside_texts_and_moved_reports() -> None:
    top = os.path.join(os.sep, "srv", "checkout")
    moved = os.path.join(os.sep, "var", "run-1")
    report = {"header": {"adapter": {"program": top + "/adapters/python/devspec_adapter.py",
                                     "cwd": top}},
              "cases": [{"reason": "raised at %s/adapters/python/x.py:3 in f" % top,
                         "reproducer": {"command": "devspec repro %s/numpy.json --case c" % moved,
                                        "file": moved + "/numpy-repro/c.py"}}]}
    got = summary.relativise(report, top, moved)
    assert got["header"]["adapter"] == {"program": "adapters/python/devspec_adapter.py",
                                        "cwd": "."}
    case = got["cases"][0]
    assert case["reason"] == "raised at adapters/python/x.py:3 in f"
    assert case["reproducer"] == {"command": "devspec repro reports/numpy.json --case c",
                                  "file": "reports/numpy-repro/c.py"}
    # A path that is neither stays as it is.
    assert summary.relativise("/usr/lib/python3/x.py", top) == "/usr/lib/python3/x.py"
