import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from adapter_client import close_sessions
    bad = {lib: rc for lib, rc in close_sessions().items() if rc != 0}
    if bad:  # the adapter must exit 0 at end of input (spec/protocol.md, transports)
        sys.stderr.write("adapters exited non-zero at end of input: %s\n" % bad)
        session.exitstatus = 1
