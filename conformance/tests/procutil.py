"""Processes, for the runner's tests: whether one runs (`alive`) and its children, from
Linux's /proc. Used by the checks that kill a runner or a probe outright and look for what
it left running."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Whether PID runs (a zombie is dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """PID's children (none once it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(k) for k in f.read().split()]
    except OSError:
        return []

