"""The request loop: one JSON line in, one reply line out (spec/protocol.md, "Messages"),
the handles of a session, and the session ops (hello, reset, bye). Standard-library only."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any, cast

from .args import MISSING, Args, arg
from .backend import Backend, Device
from .errors import (
    AdapterLimit,
    Lacks,
    LibraryError,
    ProtocolError,
    Unsupported,
    error_kind,
    last_frames,
    native_name,
)
from .protocol import (
    ADAPTER_NAME,
    ADAPTER_VERSION,
    ARGS,
    HANDLE_TYPES,
    MAX_LINE,
    MAX_REPLY,
    PROTOCOL_VERSION,
)
from .values import EXACT_INT, Scalar, decode_scalar, dumps, loads

Handler = Callable[["Server", Args], Any]
Reply = dict[str, Any]

# op name -> handler; filled by op() (the session ops below, the others in ops.py).
OPS: dict[str, Handler] = {}


class PerRank(list[Any]):
    """A handler's result that differs per rank (a global array's local piece): item r is
    rank r's result. The reply carries rank 0's, and every rank's outcome in "ranks" when
    some differs from rank 0's, as the SPMD transport does (spec/protocol.md, "SPMD
    transport"). One process plays every rank, so an error is every rank's alike."""


def op(name: str) -> Callable[[Handler], Handler]:
    """Registers fn(server, args) as the handler of op `name`."""
    def register(fn: Handler) -> Handler:
        OPS[name] = fn
        return fn
    return register


class LibraryCalls:
    """The backend, with every method call guarded: an exception raised inside it (the
    library's, or the library mapping's) leaves as LibraryError, the behaviour under test.
    Any other exception of a request comes from the adapter's own code (decoding arguments,
    encoding results) and is reported as the adapter's failure, never as the library's."""

    _PASS = (ProtocolError, Unsupported, AdapterLimit, LibraryError, Lacks)

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._backend, name)
        if not callable(attr):
            return attr

        def guarded(*args: Any, **kw: Any) -> Any:
            try:
                return attr(*args, **kw)
            except LibraryCalls._PASS:
                raise
            except Exception as exc:
                raise LibraryError(exc) from exc
        # A method of the backend's class, not set on the backend itself, is the same method
        # at every later look-up: its guard is kept, so that the next look-up finds it
        # without coming here (a request calls the backend a few times).
        if name not in getattr(self._backend, "__dict__", {}) and callable(
                getattr(type(self._backend), name, None)):
            self.__dict__[name] = guarded
        return guarded


_INT64 = 1 << 63
_CONSTANT_REPLY = {None: b'{"id":%d,"ok":true,"result":null}\n',
                   True: b'{"id":%d,"ok":true,"result":true}\n',
                   False: b'{"id":%d,"ok":true,"result":false}\n'}


class Server:
    """Answers requests for one backend. One instance per adapter process."""

    def __init__(self, backend: Backend) -> None:
        self.backend = cast(Backend, LibraryCalls(backend))
        self.started = False
        self.exiting = False
        # Called after each successful hello (devspec_py/selfcheck.py records what the
        # library reports about itself then).
        self.after_hello: Callable[[], None] | None = None
        self.objects: dict[str, Any] = {}          # handle -> library object
        self.counters = dict.fromkeys(HANDLE_TYPES, 0)
        self.session_devices: list[tuple[str, Device]] = []  # listed by hello; survive reset

    # -- handles --------------------------------------------------------------------------

    def new_handle(self, htype: str, obj: Any) -> str:
        handle = "%s#%d" % (htype, self.counters[htype])
        self.counters[htype] += 1
        self.objects[handle] = obj
        return handle

    def device_handle(self, dev: Device) -> str:
        """A new handle for a library device (handles are never shared or reused)."""
        return self.new_handle("device", dev)

    def lookup(self, value: object, htype: str, name: str) -> Any:
        if not isinstance(value, str) or "#" not in value:
            raise ProtocolError("argument '%s' must be a %s handle" % (name, htype), "TypeError")
        prefix = value.split("#", 1)[0]
        if prefix != htype:
            raise ProtocolError("argument '%s': '%s' is a %s handle, expected a %s handle" %
                                (name, value, prefix, htype), "TypeError")
        if value not in self.objects:
            raise ProtocolError("argument '%s': unknown handle '%s'" % (name, value))
        return self.objects[value]

    def array(self, args: Args, name: str) -> Any:
        return self.lookup(arg(args, name, str, what="an array handle"), "array", name)

    def device(self, args: Args, name: str = "device", required: bool = False) -> Any:
        """A device argument: absent or null (None), a handle, or {"str": text}. With
        required=True the argument must be present (null still means None)."""
        if required and name not in args:
            raise ProtocolError("missing argument '%s'" % name)
        if name not in args or args[name] is None:
            return None
        value = args[name]
        if isinstance(value, dict):
            if set(value) != {"str"} or not isinstance(value["str"], str):
                raise ProtocolError("argument '%s': a device string is {\"str\": text}" % name,
                                    "TypeError")
            return value["str"]
        return self.lookup(value, "device", name)

    def operand(self, args: Args, name: str) -> Any:
        """An array handle or a scalar."""
        value = args.get(name, MISSING)
        if value is MISSING:
            raise ProtocolError("missing argument '%s'" % name)
        if isinstance(value, str):
            return self.lookup(value, "array", name)
        scalar: Scalar = decode_scalar(value, "argument '%s'" % name)
        return scalar

    def reply_array(self, x: Any) -> str:
        return self.new_handle("array", x)

    # -- the loop ------------------------------------------------------------------------

    def handle_line(self, line: str) -> Reply:
        """One request line in, one reply object out."""
        try:
            request = loads(line)
        except ValueError as exc:
            return self.failure(None, "ValueError", "request is not valid JSON: %s" % exc,
                                "protocol")
        if not isinstance(request, dict):
            return self.failure(None, "TypeError", "request must be a JSON object", "protocol")
        rid = request.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool) or not 0 <= rid < EXACT_INT:
            return self.failure(None, "ValueError",
                                "request 'id' must be an integer in [0, 2^53)", "protocol")
        name = request.get("op")
        args = request.get("args")
        if args is None:
            args = {}
        if not isinstance(name, str):
            return self.failure(rid, "TypeError", "request 'op' must be a string", "protocol")
        if not isinstance(args, dict):
            return self.failure(rid, "TypeError", "request 'args' must be an object",
                                "protocol")
        return self.call(rid, name, args)

    def call(self, rid: int, name: str, args: Args) -> Reply:
        try:
            if name != "hello" and not self.started:
                raise ProtocolError("'%s' before a successful 'hello'" % name, "RuntimeError")
            method = OPS.get(name)
            if method is None:
                raise Unsupported("unknown op '%s'" % name)
            allowed = ARGS.get(name)
            if allowed is not None and not allowed.issuperset(args):
                for key in args:
                    if key not in allowed:
                        raise ProtocolError("'%s' takes no argument '%s'" % (name, key),
                                            "TypeError")
            result = method(self, args)
            if name == "hello" and self.after_hello is not None:
                self.after_hello()
            if isinstance(result, PerRank):
                return self.per_rank(rid, result)
        except ProtocolError as exc:
            return self.failure(rid, exc.kind, str(exc), "protocol")
        except Unsupported as exc:
            return self.failure(rid, "NotImplementedError", str(exc), "adapter")
        except Lacks as exc:  # the library has no such function, method, dtype or keyword
            reply = self.failure(rid, "NotImplementedError", str(exc), "library")
            reply["error"]["lacks"] = exc.name
            return reply
        except AdapterLimit as exc:
            return self.failure(rid, exc.kind, str(exc), "adapter")
        except LibraryError as exc:  # the library's own error: the behaviour under test
            message = "%s: %s" % (native_name(exc.error), exc.error)
            reply = self.failure(rid, error_kind(exc.error), message, "library")
            frames = last_frames(exc.error)
            if frames:
                reply["error"]["traceback"] = frames
            return reply
        except Exception as exc:  # the adapter's own code failed: never the library's doing
            return self.adapter_failure(rid, "%s failed in the adapter" % name, exc)
        return {"id": rid, "ok": True, "result": result}

    @staticmethod
    def per_rank(rid: int, results: PerRank) -> Reply:
        reply: Reply = {"id": rid, "ok": True, "result": results[0]}
        outcomes = [{"ok": True, "result": r} for r in results]
        first = dumps(outcomes[0])
        if any(dumps(o) != first for o in outcomes[1:]):
            reply["ranks"] = outcomes
        return reply

    def adapter_failure(self, rid: int | None, what: str, exc: Exception) -> Reply:
        """A reply for an exception of the adapter's own code: origin "protocol", so that the
        runner records an error of the run, not a behaviour of the library."""
        return self.failure(rid, error_kind(exc), "%s: %s: %s" % (what, native_name(exc), exc),
                            "protocol")

    @staticmethod
    def failure(rid: int | None, kind: str, message: str, origin: str) -> Reply:
        # A message (the library's own, often) with a lone surrogate keeps it as \udXXX text.
        message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        return {"id": rid, "ok": False,
                "error": {"kind": kind, "message": message, "origin": origin}}

    def reply_bytes(self, reply: Reply) -> bytes:
        """The reply's line; where the reply cannot be one (what the library returned holds
        a lone surrogate, contains itself, or makes a line longer than the protocol's 64 MiB)
        an error of origin adapter that says what, and NaN or a type JSON has not one of
        origin protocol (the adapter's encoding failed)."""
        rid = reply.get("id")
        if len(reply) == 3 and reply.get("ok") is True and type(rid) is int:
            # The commonest replies (a handle, null, true or false, an integer), written
            # directly: the bytes dumps() writes for them (a str of printable ASCII with no
            # '"' or '\\' is written as it is, between quotes).
            result = reply["result"]
            kind = type(result)
            if kind is str:
                if (result.isascii() and result.isprintable() and '"' not in result
                        and "\\" not in result and len(result) < MAX_REPLY // 2):
                    return b'{"id":%d,"ok":true,"result":"%s"}\n' % (rid, result.encode())
            elif result is None or kind is bool:
                return _CONSTANT_REPLY[result] % rid
            elif kind is int and -_INT64 <= result < _INT64:
                return b'{"id":%d,"ok":true,"result":%d}\n' % (rid, result)
        try:
            data = dumps(reply)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start] if isinstance(exc.object, str) else "?"
            return dumps(self.failure(rid, "ValueError", "the reply cannot be written: the "
                                      "library returned a str holding a lone surrogate U+%04X, "
                                      "which UTF-8 cannot carry" % ord(bad), "adapter"))
        except (RecursionError, ValueError) as exc:
            if isinstance(exc, RecursionError) or "Circular reference" in str(exc):
                return dumps(self.failure(rid, "ValueError", "the reply cannot be written: the "
                                          "library returned a value that contains itself or is "
                                          "nested too deep (%s)" % native_name(exc), "adapter"))
            return dumps(self.adapter_failure(rid, "the reply cannot be written as JSON", exc))
        except Exception as exc:  # a result JSON cannot hold (NaN, a library's type)
            return dumps(self.adapter_failure(rid, "the reply cannot be written as JSON", exc))
        if len(data) - 1 > MAX_REPLY:
            return dumps(self.failure(rid, "MemoryError", "the reply would be %d bytes, more "
                                      "than the protocol's %d (a limit of the adapter)"
                                      % (len(data) - 1, MAX_REPLY), "adapter"))
        return data

    def serve(self, infile: IO[bytes], outfile: IO[bytes]) -> int:
        """Answers every request line until end of input or 'bye'. Returns the exit status."""
        while True:
            # A line is at most MAX_LINE bytes before its "\n", and a "\r" before the "\n" is
            # not part of it: read room for both, so a full-length line ending "\r\n" is whole.
            line = infile.readline(MAX_LINE + 2)
            if not line:
                return 0
            ended = line.endswith(b"\n")
            body = line[:-1] if ended else line
            if ended and body.endswith(b"\r"):
                body = body[:-1]
            if len(body) > MAX_LINE:
                while not ended:  # skip the rest of the over-long line
                    rest = infile.readline(MAX_LINE)
                    ended = not rest or rest.endswith(b"\n")
                reply = self.failure(None, "ValueError",
                                     "request line longer than %d bytes" % MAX_LINE, "protocol")
            else:
                text = body.strip()
                if not text:
                    continue
                try:
                    decoded = text.decode("utf-8")
                except UnicodeDecodeError:
                    reply = self.failure(None, "ValueError", "request is not UTF-8", "protocol")
                else:
                    reply = self.handle_line(decoded)
            data = self.reply_bytes(reply)
            outfile.write(data)
            outfile.flush()
            if self.exiting:
                return 0

    # -- session ops ---------------------------------------------------------------------

    def session_handle(self, dev: Device) -> str:
        """The handle hello gave for dev (the default device is one of the listed ones)."""
        for handle, known in self.session_devices:
            if known is dev or (type(known) is type(dev) and
                                self.backend.device_equal(known, dev)):
                return handle
        return self.device_handle(dev)


@op("hello")
def op_hello(server: Server, args: Args) -> Any:
    version = arg(args, "protocol", int)
    if version != PROTOCOL_VERSION:
        raise ProtocolError("protocol version %d is not spoken here (this adapter speaks %d)"
                            % (version, PROTOCOL_VERSION))
    b = server.backend
    # A second hello starts the session afresh: every handle of the old one is dropped.
    server.started = False
    server.objects.clear()
    b.reset()
    server.session_devices = [(server.device_handle(d), d) for d in b.devices()]
    default = b.default_device()
    result: dict[str, Any] = {
        "protocol": PROTOCOL_VERSION,
        "library": {"name": b.library_name, "version": b.library_version()},
        # The interpreter, which devspec repro writes the run's reproducers with.
        "adapter": {"name": ADAPTER_NAME, "version": ADAPTER_VERSION, "python": sys.executable},
        "features": list(b.features),
        "devices": [h for h, _ in server.session_devices],
        "device_strs": [b.device_str(d) for _, d in server.session_devices],
        "default_device": None if default is None else server.session_handle(default),
        "max_line": MAX_LINE,
    }
    no_data = [h for h, d in server.session_devices if not b.holds_data(d)]
    if no_data:  # bound only by the cases that read nothing back (spec/protocol.md)
        result["devices_without_data"] = no_data
    declared = b.declared_version()
    if declared is not None:  # the runner judges the library by it (spec/protocol.md)
        result["library"]["array_api_version"] = declared
    extra = b.hello_extra()
    if "wrapper" in extra:
        result["library"]["wrapper"] = extra["wrapper"]
    for key in ("notes", "claims", "excluded_devices"):
        if key in extra:
            result[key] = extra[key]
    ranks = b.ranks()
    if ranks is not None:  # the SPMD transport's count of ranks (spec/protocol.md)
        result["ranks"] = ranks
    server.started = True
    return result


@op("reset")
def op_reset(server: Server, args: Args) -> None:
    keep = {h for h, _ in server.session_devices}
    for handle in list(server.objects):
        if handle not in keep:
            del server.objects[handle]
    server.backend.reset()


@op("bye")
def op_bye(server: Server, args: Args) -> None:
    server.exiting = True
