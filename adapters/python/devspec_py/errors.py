"""The errors of the adapter itself, and the protocol's error kinds (spec/protocol.md,
"Messages"). Standard-library only."""

from __future__ import annotations

import builtins
import traceback

# The error kinds, most specific first. An exception's kind is the first of these it is an
# instance of, so a subclass of ValueError is ValueError, and NotImplementedError (itself a
# RuntimeError) keeps its own name.
KINDS = (
    "NotImplementedError", "RecursionError", "ModuleNotFoundError", "ImportError",
    "ZeroDivisionError", "OverflowError", "FloatingPointError", "ArithmeticError",
    "IndexError", "KeyError", "LookupError", "ValueError", "TypeError",
    "BufferError", "MemoryError", "AttributeError", "AssertionError", "OSError",
    "RuntimeError",
)
KIND_CLASSES: tuple[tuple[str, type[BaseException]], ...] = tuple(
    (name, getattr(builtins, name)) for name in KINDS)


class ProtocolError(Exception):
    """A malformed request, or a value the adapter cannot carry: origin "protocol"."""

    def __init__(self, message: str, kind: str = "ValueError") -> None:
        super().__init__(message)
        self.kind = kind


class AdapterLimit(Exception):
    """A request the adapter refuses for its own limits: origin "adapter", kind as given."""

    def __init__(self, message: str, kind: str = "MemoryError") -> None:
        super().__init__(message)
        self.kind = kind


class Unsupported(Exception):
    """The library cannot express this op (or this form of it): kind NotImplementedError,
    origin "adapter". Distinct from a NotImplementedError the library raises itself."""


class Lacks(Exception):
    """The library does not provide a function, method, dtype or keyword that the request
    needs: kind NotImplementedError, origin "library", and `lacks` naming the missing thing
    as the standard names it ("arange", "Array.to_device", "linalg.solve", "dtype uint16",
    "zeros(device=)"). The runner reports such a case as lacking, never as a wrong answer
    (spec/protocol.md, "Messages")."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


class LibraryError(Exception):
    """An exception the library raised while the adapter called it: the behaviour under test
    (origin "library"). `error` is the library's own exception."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def error_kind(exc: BaseException) -> str:
    """The protocol kind of an exception, by class."""
    for name, cls in KIND_CLASSES:
        if isinstance(exc, cls):
            return name
    return "Exception"


def native_name(exc: BaseException) -> str:
    """The exception's class as `module.Class` (`Class` for a built-in)."""
    cls = type(exc)
    mod = cls.__module__
    return cls.__qualname__ if mod in ("builtins", None) else mod + "." + cls.__qualname__


# How many frames of a library's traceback an error reply carries: the innermost, where the
# library raised, which is what a maintainer reads first (spec/protocol.md, "Messages").
TRACEBACK_FRAMES = 4


def _own(filename: str) -> bool:
    """Whether a frame's file is the library's (or anything's but the adapter's)."""
    return "devspec_py" not in filename.replace("\\", "/").split("/")


def last_frames(exc: BaseException, limit: int = TRACEBACK_FRAMES) -> list[str]:
    """The innermost LIMIT frames of EXC's traceback, innermost last, each as
    `FILE:LINE in FUNCTION: SOURCE` (no source where Python has none), for an error reply's
    `traceback`. The adapter's own frames (the call into the library) are left out when the
    library's own frames follow them.

    The traceback is walked first and only the frames kept are summarised: a library's
    traceback is often tens of frames deep, and a summary reads each frame's source line."""
    tbs = []
    tb = exc.__traceback__
    while tb is not None:
        tbs.append(tb)
        tb = tb.tb_next
    own = [t for t in tbs if _own(t.tb_frame.f_code.co_filename)]
    chosen = (own or tbs)[-limit:]
    frames = traceback.StackSummary.extract((t.tb_frame, t.tb_lineno) for t in chosen)
    lines = []
    for f in frames:
        # A file of an installed package is named from its package on, as Python's own
        # tracebacks name it to a reader who knows where packages live.
        path = f.filename.replace("\\", "/")
        cut = path.rfind("-packages/")
        line = "%s:%s in %s" % (path[cut + 10:] if cut >= 0 else f.filename, f.lineno, f.name)
        if f.line:
            line += ": " + f.line.strip()
        lines.append(line)
    return lines
