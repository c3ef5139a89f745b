"""Checks of request arguments. Each names the argument and the reason, and raises
ProtocolError (origin "protocol"): a bad request is never reported as the library's
behaviour. Standard-library only."""

from __future__ import annotations

from typing import Any, TypeVar

from .errors import ProtocolError
from .protocol import DTYPES

Args = dict[str, Any]
T = TypeVar("T")


class _Missing:
    """The marker of an argument without a default."""


MISSING: Any = _Missing()
_NAMES: dict[type, str] = {bool: "a boolean", int: "an integer", float: "a number",
                           str: "a string", list: "a list", dict: "an object",
                           type(None): "null"}


def as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def kind_names(kinds: type | tuple[type, ...]) -> str:
    return " or ".join(_NAMES.get(k, k.__name__) for k in as_tuple(kinds))


def json_type(value: object) -> str:
    """What a decoded JSON value is, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def arg(args: Args, name: str, kinds: type | tuple[type, ...], default: Any = MISSING,
        what: str | None = None) -> Any:
    """args[name], checked to be an instance of kinds (bool is never an int here)."""
    if name not in args:
        if default is MISSING:
            raise ProtocolError("missing argument '%s'" % name)
        return default
    value = args[name]
    ok = isinstance(value, kinds)
    if ok and isinstance(value, bool) and bool not in as_tuple(kinds):
        ok = False
    if not ok:
        raise ProtocolError("argument '%s' must be %s, got %s" %
                            (name, what or kind_names(kinds), json_type(value)), "TypeError")
    if isinstance(value, float) and type(value) is not float:
        return float(value)  # a float as read (values.Number) is given on as a plain float
    return value


def int_arg(args: Args, name: str, default: Any = MISSING, minimum: int | None = None) -> Any:
    """An integer argument (the default, when absent, is returned unchecked)."""
    value = arg(args, name, int, default)
    if value is not default and minimum is not None and value < minimum:
        raise ProtocolError("argument '%s' must be >= %d, got %d" % (name, minimum, value))
    return value


def shape_arg(args: Args, name: str = "shape") -> tuple[int, ...]:
    """A list of non-negative integers; a single integer is a 1-D shape, as in zeros(3)."""
    value = args.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        shape = [value]
    else:
        shape = arg(args, name, list)
    for i, n in enumerate(shape):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ProtocolError("argument '%s'[%d] must be a non-negative integer" % (name, i),
                                "TypeError")
    return tuple(shape)


def dtype_arg(args: Args, name: str = "dtype", required: bool = False) -> str | None:
    """A dtype name of the protocol; absent or null is None unless required."""
    if name not in args or (args[name] is None and not required):
        if required:
            raise ProtocolError("missing argument '%s'" % name)
        return None
    value: str = arg(args, name, str)
    if value not in DTYPES:
        raise ProtocolError("argument '%s': unknown dtype '%s'" % (name, value))
    return value


def choice(args: Args, name: str, choices: tuple[str, ...]) -> str:
    """A string argument that must be one of choices."""
    value: str = arg(args, name, str)
    if value not in choices:
        raise ProtocolError("argument '%s': '%s' is not one of %s" %
                            (name, value, ", ".join(choices)))
    return value
