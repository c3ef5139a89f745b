"""Waiting on processes, for the runner's Python tests (test_runner.py, test_compare.py).
Standard library only, Linux's /proc."""
import os
import time


def wait_for(pred, seconds=30):
    """Polls PRED until it holds (True) or SECONDS pass (False)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def alive(pid):
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


def children(pid):
    """PID's children (none once it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(k) for k in f.read().split()]
    except OSError:
        return []
