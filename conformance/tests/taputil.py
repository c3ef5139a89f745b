"""TAP for the runner's Python tests (test_runner.py, test_compare.py): numbered results, a
failure's expected and observed values with the file and line of the check, and the plan at
the end. Standard library only."""
import inspect
import json
import os

n_tests = 0
n_failed = 0


def check(cond, name, expected=None, observed=None):
    """Prints `ok N - NAME`, or `not ok` with what was expected and observed; returns COND."""
    global n_tests, n_failed
    n_tests += 1
    if cond:
        print(f"ok {n_tests} - {name}")
        return True
    n_failed += 1
    caller = inspect.stack()[1]
    print(f"not ok {n_tests} - {name}")
    print("  ---")
    print(f"  expected: {json.dumps(str(expected)[:2000])}")
    print(f"  observed: {json.dumps(str(observed)[:2000])}")
    print(f"  at: {json.dumps(os.path.basename(caller.filename) + ':' + str(caller.lineno))}")
    print("  ...")
    return False


def skip(name, why):
    global n_tests
    n_tests += 1
    print(f"ok {n_tests} - {name} # SKIP {why}")


def plan():
    """Prints the plan; returns the exit status: 1 when a check failed, else 0."""
    print(f"1..{n_tests}")
    return 1 if n_failed else 0
