"""Runs pytest with the arguments given, or, where this interpreter has no pytest, says so and
exits 77 (CTest's SKIP_RETURN_CODE for the runner's tests): a missing tool skips visibly
outside CI and fails in it (CI=true), as STYLE.md says of every tool a test needs."""

import os
import sys

try:
    import pytest
except ImportError:
    WHY = ("pytest is not installed for %s (scripts/setup.sh puts it, with jsonschema, in the "
           "project's .venv)" % sys.executable)
    if os.environ.get("CI") == "true":
        sys.stderr.write("error: %s\n" % WHY)
        sys.exit(1)
    print("SKIP: " + WHY)
    sys.exit(77)

sys.exit(pytest.main(sys.argv[1:]))
