"""The adapter's rule that it never reconfigures the library it drives, checked on a real
run: the adapter records what the library reports about itself at start, after hello and at
the end of the run (devspec_py/selfcheck.py, DEVSPEC_PY_SELFCHECK), and each record must
equal what the library reports in a plain interpreter with the same environment."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from typing import Any

from adapter_client import HERE

ADAPTER_DIR = os.path.dirname(HERE)


def plain_fingerprint(python: str, name: str, env: Mapping[str, str]) -> dict[str, Any]:
    """What the library (a backend name or a module) reports in a fresh interpreter that
    imports nothing of devspec's but selfcheck.py."""
    proc = subprocess.run([python, "-m", "devspec_py.selfcheck", name], capture_output=True,
                          text=True, env=dict(env), cwd=ADAPTER_DIR, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return found


def recorded(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def assert_unchanged(path: str, plain: dict[str, Any]) -> None:
    """Every record of the run at path is the plain interpreter's fingerprint; the run has
    each moment (start, hello, end) at least once."""
    records = recorded(path)
    moments = {r["at"] for r in records}
    assert {"start", "hello", "end"} <= moments, "moments recorded: %s" % sorted(moments)
    for r in records:
        got = r["fingerprint"]
        differ = {k: (plain.get(k), got.get(k)) for k in set(plain) | set(got)
                  if plain.get(k) != got.get(k)}
        assert not differ, "at %s (pid %s) the library reports otherwise than in a plain " \
            "interpreter (plain, in the adapter): %s" % (r["at"], r.get("pid"),
                                                         json.dumps(differ)[:3000])
