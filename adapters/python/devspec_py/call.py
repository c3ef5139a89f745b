"""The generic call (spec/protocol.md, "call"): any function of the standard, of its linalg
and fft extensions, or any array method or operator, by name, with positional and keyword
call values. The function is looked up in the backend's namespace (the array's own
attribute for `Array.NAME`) and called with exactly the arguments given; what the library
does not have is a Lacks error naming it as the standard does. Standard-library only.
"""

from __future__ import annotations

import inspect
import math
import re
import types
from typing import Any

from .args import Args, arg
from .errors import AdapterLimit, Lacks, LibraryError, ProtocolError
from .protocol import DTYPES, MAX_CALL_ITEMS, MAX_REPLY
from .server import Server, op
from .values import EXACT_INT, decode_scalar

_HANDLE = re.compile(r"^(array|device|stream)#(0|[1-9][0-9]*)$")
_SCALAR_KEYS = ({"scalar"}, {"complex"})


def decode(server: Server, value: Any, where: str) -> Any:
    """A call value of the request as the Python object it stands for."""
    if value is None or isinstance(value, (bool, int, float)):
        return decode_scalar(value, where) if value is not None else None
    if isinstance(value, str):
        m = _HANDLE.match(value)
        return server.lookup(value, m.group(1), where) if m else value
    if isinstance(value, list):
        raise ProtocolError("%s: a list is written {\"list\": [...]} or {\"tuple\": [...]}" % where,
                            "TypeError")
    if not isinstance(value, dict) or len(value) != 1:
        raise ProtocolError("%s: not a call value" % where, "TypeError")
    if set(value) in _SCALAR_KEYS:
        return decode_scalar(value, where)
    key, inner = next(iter(value.items()))
    if key == "dtype":
        if inner not in DTYPES:
            raise ProtocolError("%s: unknown dtype %r" % (where, inner))
        return dtype_object(server, inner)
    if key == "str":
        if not isinstance(inner, str):
            raise ProtocolError("%s: a device string is {\"str\": text}" % where, "TypeError")
        return inner
    if key in ("tuple", "list"):
        if not isinstance(inner, list):
            raise ProtocolError("%s: {\"%s\": ...} takes a list" % (where, key), "TypeError")
        items = [decode(server, v, "%s[%d]" % (where, i)) for i, v in enumerate(inner)]
        return tuple(items) if key == "tuple" else items
    if key == "slice":
        if (not isinstance(inner, list) or len(inner) != 3
                or not all(v is None or (isinstance(v, int) and not isinstance(v, bool))
                           for v in inner)):
            raise ProtocolError("%s: {\"slice\": [start, stop, step]}, each an int or null"
                                % where, "TypeError")
        return slice(*inner)
    if key == "ellipsis":
        if inner is not True:
            raise ProtocolError("%s: the ellipsis is {\"ellipsis\": true}" % where, "TypeError")
        return Ellipsis
    raise ProtocolError("%s: unknown call value {\"%s\": ...}" % (where, key), "TypeError")


def dtype_object(server: Server, name: str) -> Any:
    """The library's dtype NAME; one it does not have is lacking."""
    try:
        return server.backend.dtype(name)
    except LibraryError as exc:
        raise Lacks("dtype %s" % name, "the library has no dtype %s: %s" % (name, exc.error)) \
            from exc
    except Exception as exc:
        raise Lacks("dtype %s" % name, "the library has no dtype %s: %s" % (name, exc)) from exc


def lone_surrogate(text: str) -> str | None:
    """A description of the first lone surrogate in TEXT (which UTF-8, and so a reply, cannot
    carry), or None when it has none."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return "a lone surrogate U+%04X at index %d" % (ord(text[exc.start]), exc.start)
    return None


def encode(server: Server, obj: Any, where: str = "result",
           inside: frozenset[int] = frozenset()) -> Any:
    """A result as a call value: arrays and devices as new handles, tuples as lists. What a
    reply cannot carry (a str with a lone surrogate or longer than a reply, a list that
    contains itself) is refused as a limit of the adapter that names what the library
    returned."""
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, str):
        if len(obj) > MAX_REPLY:
            raise AdapterLimit("%s: the library returned a str of %d characters; a reply "
                               "carries at most %d bytes" % (where, len(obj), MAX_REPLY),
                               "MemoryError")
        bad = lone_surrogate(obj)
        if bad is not None:
            raise AdapterLimit("%s: the library returned a str holding %s, which a reply "
                               "(UTF-8 JSON) cannot carry" % (where, bad), "ValueError")
        return obj
    if isinstance(obj, int):
        return obj if -EXACT_INT < obj < EXACT_INT else {"scalar": str(obj)}
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {"scalar": repr(obj)}
    if isinstance(obj, complex):
        return {"complex": [encode(server, obj.real), encode(server, obj.imag)]}
    if isinstance(obj, (tuple, list)):
        if id(obj) in inside:
            raise AdapterLimit("%s: the library returned a %s that contains itself, which a "
                               "reply cannot carry" % (where, type(obj).__name__), "ValueError")
        within = inside | {id(obj)}
        return [encode(server, v, "%s[%d]" % (where, i), within) for i, v in enumerate(obj)]
    if hasattr(obj, "shape") and hasattr(obj, "dtype"):
        return server.reply_array(obj)
    for name in DTYPES:
        try:
            if obj == server.backend.dtype(name):
                return {"dtype": name}
        except Exception:  # the library lacks that dtype, or its == refuses a foreign object
            continue
    for dev in server.backend.devices():
        try:
            if obj == dev:
                return server.device_handle(obj)
        except Exception:  # a device type whose == refuses other objects
            continue
    raise AdapterLimit("%s: a %s, which the protocol cannot carry" % (where, type(obj).__name__),
                       "NotImplementedError")


def resolve(server: Server, fn: str, args: list[Any]) -> tuple[Any, list[Any], bool]:
    """The callable FN names, the positional arguments left for it, and whether it is a
    property (read, not called)."""
    if fn.startswith("Array."):
        name = fn[len("Array."):]
        if not args:
            raise ProtocolError("call %s: the first of args is the array" % fn)
        self_, rest = args[0], args[1:]
        try:
            attr = getattr(self_, name)
        except AttributeError as exc:
            raise Lacks(fn, "the library's array has no %s" % name) from exc
        except Exception as exc:  # a property that raised: the library's answer
            raise LibraryError(exc) from exc
        prop = not callable(attr) or isinstance(getattr(type(self_), name, None), property)
        return attr, rest, prop
    ns = server.backend.namespace()
    obj = ns
    for part in fn.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise Lacks(fn, "the namespace has no %s" % fn)
    return obj, args, False


def check_keywords(fn: str, f: Any, kwargs: dict[str, Any]) -> bool:
    """A keyword the library's own signature does not take is lacking (`argsort(stable=)`);
    a callable whose signature cannot be read is called as it is (False: its refusal of a
    keyword is read from its error, refused_keyword)."""
    keywords = _keywords(f)
    if keywords is None:
        return False
    for name in kwargs:
        if name not in keywords:
            raise Lacks("%s(%s=)" % (fn, name), "%s takes no keyword %s" % (fn, name))
    return True


# A callable's key -> the keywords its signature takes, or None where the signature cannot
# be read or takes **kwargs: reading a signature costs more than most calls of a compiled
# library, and a function's signature does not change.
_KEYWORDS: dict[Any, frozenset[str] | None] = {}


def _signature_key(f: Any) -> Any:
    """What F's signature depends on, never an array (a key keeps what it holds alive): a
    bound method's function, a builtin bound method's type and name, else F itself (a
    function of the library's namespace); None for anything else, read each time."""
    if inspect.ismethod(f):
        return (f.__func__, "method")
    owner = getattr(f, "__self__", None)
    if owner is None or isinstance(owner, (type, types.ModuleType)):
        return f
    name = getattr(f, "__name__", None)
    return (type(owner), name, "builtin") if isinstance(name, str) else None


def _keywords(f: Any) -> frozenset[str] | None:
    key = _signature_key(f)
    try:
        if key is not None:
            return _KEYWORDS[key]
    except TypeError:  # unhashable: read each time
        key = None
    except KeyError:
        pass
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        found = None
    else:
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            found = None  # **kwargs: what it refuses, its error says
        else:
            found = frozenset(n for n, p in params.items()
                              if p.kind is not inspect.Parameter.POSITIONAL_ONLY)
    if key is not None:
        _KEYWORDS[key] = found
    return found


_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")
_EXPECTED_ONE_OF = "but expected one of:"


def refused_keyword(exc: Exception, kwargs: dict[str, Any]) -> str | None:
    """The keyword of kwargs that a callable with no readable signature (a builtin: torch's
    functions) refused by its own TypeError, or None: Python's "unexpected keyword argument
    'NAME'", or an "invalid combination of arguments" error whose listed signatures ("but
    expected one of: * (Tensor input, int dim)") name the keyword in none of them."""
    if not isinstance(exc, TypeError) or not kwargs:
        return None
    text = str(exc)
    m = _UNEXPECTED.search(text)
    if m and m.group(1) in kwargs:
        return m.group(1)
    if _EXPECTED_ONE_OF not in text:
        return None
    named: set[str] = set()
    for line in text.split(_EXPECTED_ONE_OF, 1)[1].splitlines():
        inner = line.strip().lstrip("*").strip()
        if inner.startswith("(") and inner.endswith(")"):
            for item in inner[1:-1].split(","):
                words = item.replace("=", " ").split()
                if words and words[0] != "*":
                    named.add(words[-1] if "=" not in item else item.split("=")[0].split()[-1])
    for name in kwargs:
        if name not in named:
            return name
    return None


@op("call")
def call(server: Server, args: Args) -> Any:
    fn = arg(args, "fn", str)
    raw_args = args.get("args", [])
    raw_kwargs = args.get("kwargs", {})
    if not isinstance(raw_args, list):
        raise ProtocolError("argument 'args' must be a list", "TypeError")
    if not isinstance(raw_kwargs, dict):
        raise ProtocolError("argument 'kwargs' must be an object", "TypeError")
    pick = args.get("pick")
    if pick is not None and (not isinstance(pick, int) or isinstance(pick, bool) or pick < 0):
        raise ProtocolError("argument 'pick' must be an int >= 0", "TypeError")
    pos = [decode(server, v, "args[%d]" % i) for i, v in enumerate(raw_args)]
    kw = {k: decode(server, v, "kwargs.%s" % k) for k, v in raw_kwargs.items()}
    f, rest, prop = resolve(server, fn, pos)
    if prop:
        if rest or kw:
            raise ProtocolError("call %s: a property takes no arguments" % fn, "TypeError")
        if fn == "Array.device":  # a device, whatever the library's device object is
            return server.device_handle(f)
        result = f
    else:
        readable = check_keywords(fn, f, kw)
        try:
            result = server.backend.call_result(f(*rest, **kw))
        except Exception as exc:
            refused = None if readable else refused_keyword(exc, kw)
            if refused is not None:  # spec/decisions.md, Python libraries 18
                raise Lacks("%s(%s=)" % (fn, refused), "%s takes no keyword %s: %s: %s"
                            % (fn, refused, type(exc).__name__, exc)) from exc
            raise LibraryError(exc) from exc
    if isinstance(result, (tuple, list)) and len(result) > MAX_CALL_ITEMS:
        raise AdapterLimit("%s: the result is a tuple of %d items; a reply carries at most %d"
                           % (fn, len(result), MAX_CALL_ITEMS), "MemoryError")
    if pick is not None:
        if not isinstance(result, (tuple, list)):
            raise AdapterLimit("pick %d: the result of %s is not a tuple" % (pick, fn),
                               "IndexError")
        if pick >= len(result):
            raise AdapterLimit("pick %d: the result of %s has %d items" % (pick, fn, len(result)),
                               "IndexError")
        result = result[pick]
    try:
        return encode(server, result)
    except RecursionError:
        raise AdapterLimit("%s: the library returned a value nested deeper than the adapter "
                           "can write (Python's recursion limit)" % fn, "ValueError") from None

# The features of spec/signatures.json's families (one per family, spec/features.json): a
# backend whose library has a namespace of the standard's functions claims them all, and
# what the library does not have is lacking (a test checks this list against the table).
FEATURES = (
    "functions-creation", "functions-data-type", "functions-elementwise", "functions-indexing",
    "functions-linear-algebra", "functions-manipulation", "functions-searching",
    "functions-set", "functions-sorting", "functions-statistical", "functions-utility",
    "functions-linalg", "functions-fft", "array-methods",
)
