"""Runs reproducer scripts one after another in this one interpreter, each as `python SCRIPT`
runs it, and writes each one's outcome as that interpreter would give it, so that a test checks
many scripts for the cost of one interpreter and one import of the library.

    python -I run_scripts.py [--library NAME] [--env JSON] SCRIPT...

Each script runs as __main__ in a fresh namespace (runpy.run_path), with sys.argv [SCRIPT]
and, unless this interpreter runs with -I or -P (safe_path: no script's folder on sys.path),
the script's folder first on sys.path instead of this file's; what it writes to stdout and
stderr is caught. Its outcome
is one JSON line on stdout, written as soon as it ends (so a hang names the script that
hung): {"script": SCRIPT, "status": S, "stderr": TEXT, "exited": E}, S the exit status
`python SCRIPT` gives (0; a SystemExit's code; 1 after an uncaught exception), TEXT its
stderr with the traceback the interpreter prints, from the script's own frames down, and E
whether it ended through SystemExit (sys.exit) rather than at its end or by an exception,
which its exit status alone does not tell.

--env sets the environment variables of the object JSON before anything is imported (a named
adapter's, adapters.json). --library NAME undoes between scripts what a script of that library
leaves set and the adapter's reset undoes between cases (the default device), as RESETS says;
a library it does not name needs nothing undone.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import runpy
import sys
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any


def reset_tinygrad() -> Callable[[], None]:
    import tinygrad.helpers as helpers
    initial = helpers.DEV.value

    def reset() -> None:
        helpers.DEV.value = initial
    return reset


def reset_ivy() -> Callable[[], None]:
    import ivy

    def reset() -> None:
        while ivy.default_device_stack:
            ivy.unset_default_device()
        while ivy.soft_device_mode_stack:
            ivy.unset_soft_device_mode()
    return reset


# For a library whose scripts leave state behind: a function, called once before the first
# script, that returns the function undoing it.
RESETS: dict[str, Callable[[], Callable[[], None]]] = {
    "tinygrad": reset_tinygrad, "ivy": reset_ivy}


def own_frames(tb: TracebackType | None, script: str) -> TracebackType | None:
    """TB from the first frame of SCRIPT on: the traceback `python SCRIPT` prints, without
    this runner's and runpy's frames."""
    at = tb
    while at is not None and at.tb_frame.f_code.co_filename != script:
        at = at.tb_next
    return at or tb


def run(script: str) -> dict[str, Any]:
    """Runs SCRIPT as `python SCRIPT` would; its outcome."""
    err, out = io.StringIO(), io.StringIO()
    argv, path0 = sys.argv, sys.path[0]
    sys.argv = [script]
    if not sys.flags.safe_path:
        sys.path[0] = os.path.dirname(script)
    status, exited = 0, False
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as e:
                exited = True
                if e.code is None or isinstance(e.code, int):
                    status = e.code or 0
                else:  # the interpreter prints any other code and exits 1
                    print(e.code, file=sys.stderr)
                    status = 1
            except Exception as e:
                traceback.print_exception(type(e), e, own_frames(e.__traceback__, script))
                status = 1
    finally:
        sys.argv, sys.path[0] = argv, path0
    return {"script": script, "status": status, "stderr": err.getvalue(), "exited": exited}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", help="the library whose state is undone between scripts")
    ap.add_argument("--env", default="{}", help="environment variables, a JSON object")
    ap.add_argument("scripts", nargs="+", help="the scripts, run in this order")
    args = ap.parse_args()
    os.environ.update(json.loads(args.env))
    reset = RESETS[args.library]() if args.library in RESETS else None
    for script in args.scripts:
        outcome = run(os.path.abspath(script))
        if reset is not None:
            reset()
        print(json.dumps(outcome), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
