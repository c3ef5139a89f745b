"""The devspec adapter protocol, version 1 (spec/protocol.md): its constants, its dtype names
and the arguments each op defines. Standard-library only, like the rest of this package
except the backends: it runs under the project's virtual environment and under Debian's own
interpreter (for Debian's PyTorch) alike.

The rest of the package: errors.py (error kinds), args.py (argument checks), values.py
(numbers, elements, typed arrays: every value on the wire), server.py (the request loop and
handles), ops.py (one handler per op), backend.py (the backend interface), array_api.py (the
backend shared by every library with an array API namespace) and backends/ (one module per
library).
"""

from __future__ import annotations

from pathlib import Path

from . import ops_table

PROTOCOL_VERSION = ops_table.PROTOCOL_VERSION
ADAPTER_NAME = "devspec-python"


def _version() -> str:
    """The project's one version number: the file VERSION at the top of the source tree, or,
    for a copy installed without the tree, the version it was installed as."""
    try:
        return (Path(__file__).resolve().parents[3] / "VERSION").read_text().strip()
    except OSError:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("devspec-py")
        except PackageNotFoundError:
            return "unknown"


ADAPTER_VERSION = _version()
MAX_LINE = 64 << 20  # the protocol's maximum request line, in bytes (spec/protocol.md)
MAX_REPLY = 64 << 20  # the protocol's maximum reply line, in bytes (spec/protocol.md)
MAX_READ = 1 << 24  # array.read refuses larger arrays (spec/protocol.md)
MAX_CALL_ITEMS = 1 << 15  # the most items of a call result's tuple (spec/protocol.md)

# The array API's dtypes, then float16 (OneFlow's half; not an array API dtype).
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128", "float16")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DTYPES = ("float32", "float64", "float16")
COMPLEX_DTYPES = ("complex64", "complex128")
HANDLE_TYPES = ("device", "array", "stream")

# The arguments each op defines (spec/ops.json, through the generated ops_table.py); any
# other is a protocol error.
ARGS: dict[str, frozenset[str]] = ops_table.ARGS
