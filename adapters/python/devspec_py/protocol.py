"""The devspec adapter protocol, version 1, for Python libraries (spec/protocol.md).

This module is standard-library only: it runs under the project's virtual environment and
under Debian's own interpreter (for Debian's PyTorch) alike. It owns everything that is not
about a particular library: reading request lines, checking their arguments, keeping
handles, decoding and encoding typed arrays and scalars, and turning exceptions into error
kinds. A backend (see backends.py) maps each op to one library's public API.
"""

import builtins
import json
import math
import struct

PROTOCOL_VERSION = 1
ADAPTER_NAME = "devspec-python"
ADAPTER_VERSION = "1.0.0"
MAX_LINE = 1 << 20  # DS_PROTOCOL_MAX_LINE

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DTYPES = ("float32", "float64")
COMPLEX_DTYPES = ("complex64", "complex128")
INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1),
    "uint8": (0, (1 << 8) - 1), "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1), "uint64": (0, (1 << 64) - 1),
}
EXACT_INT = 1 << 53  # beyond this, integers travel as decimal strings
MAX_READ = 1 << 24  # array.read refuses larger arrays (spec/protocol.md)

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
KIND_CLASSES = tuple((name, getattr(builtins, name)) for name in KINDS)


class ProtocolError(Exception):
    """A malformed request: origin "protocol"."""

    def __init__(self, message, kind="ValueError"):
        super().__init__(message)
        self.kind = kind


class AdapterLimit(Exception):
    """A request the adapter refuses for its own limits: origin "adapter", kind as given."""

    def __init__(self, message, kind="MemoryError"):
        super().__init__(message)
        self.kind = kind


class Unsupported(Exception):
    """The library cannot express this op (or this form of it): kind NotImplementedError,
    origin "adapter". Distinct from a NotImplementedError the library raises itself."""


def error_kind(exc):
    """The protocol kind of a library exception, by class."""
    for name, cls in KIND_CLASSES:
        if isinstance(exc, cls):
            return name
    return "Exception"


def native_name(exc):
    cls = type(exc)
    mod = cls.__module__
    return cls.__qualname__ if mod in ("builtins", None) else mod + "." + cls.__qualname__


# ---------------------------------------------------------------------------------------
# Argument checks. Each names the argument and the reason.

_MISSING = object()


def arg(args, name, kinds, default=_MISSING, what=None):
    """args[name], checked to be an instance of kinds (bool is never an int here)."""
    if name not in args:
        if default is _MISSING:
            raise ProtocolError("missing argument '%s'" % name)
        return default
    value = args[name]
    ok = isinstance(value, kinds)
    if ok and isinstance(value, bool) and bool not in _as_tuple(kinds):
        ok = False
    if not ok:
        raise ProtocolError("argument '%s' must be %s, got %s" %
                            (name, what or _kind_names(kinds), _json_type(value)), "TypeError")
    return value


def _as_tuple(kinds):
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _kind_names(kinds):
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "an object", type(None): "null"}
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kinds))


def _json_type(value):
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


def int_arg(args, name, default=_MISSING, minimum=None):
    value = arg(args, name, int, default)
    if value is not default and minimum is not None and value < minimum:
        raise ProtocolError("argument '%s' must be >= %d, got %d" % (name, minimum, value))
    return value


def shape_arg(args, name="shape"):
    """A list of non-negative integers; a single integer is a 1-D shape, as in zeros(3)."""
    if isinstance(args.get(name), int) and not isinstance(args.get(name), bool):
        shape = [args[name]]
    else:
        shape = arg(args, name, list)
    for i, n in enumerate(shape):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ProtocolError("argument '%s'[%d] must be a non-negative integer" % (name, i),
                                "TypeError")
    return tuple(shape)


def dtype_arg(args, name="dtype", required=False):
    if name not in args or (args[name] is None and not required):
        if required:
            raise ProtocolError("missing argument '%s'" % name)
        return None
    value = arg(args, name, str)
    if value not in DTYPES:
        raise ProtocolError("argument '%s': unknown dtype '%s'" % (name, value))
    return value


# ---------------------------------------------------------------------------------------
# Elements and scalars.

def decode_float(value, where):
    if isinstance(value, bool):
        raise ProtocolError("%s: expected a float, got a boolean" % where, "TypeError")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        try:  # C strtod also reads hexadecimal floats
            return float.fromhex(text)
        except ValueError:
            raise ProtocolError("%s: '%s' is not a float" % (where, value)) from None
    raise ProtocolError("%s: expected a float, got %s" % (where, _json_type(value)), "TypeError")


def decode_element(dtype, value, where):
    if dtype == "bool":
        if not isinstance(value, bool):
            raise ProtocolError("%s: expected true or false" % where, "TypeError")
        return value
    if dtype in INT_DTYPES:
        if isinstance(value, bool):
            raise ProtocolError("%s: expected an integer, got a boolean" % where, "TypeError")
        if isinstance(value, int):
            if not -EXACT_INT <= value <= EXACT_INT:
                raise ProtocolError("%s: the integer %d is beyond 2^53; write it as a decimal "
                                    "string" % (where, value))
            n = value
        elif isinstance(value, str):
            try:
                n = int(value.strip(), 10)
            except ValueError:
                raise ProtocolError("%s: '%s' is not an integer" % (where, value)) from None
        elif isinstance(value, float) and value.is_integer() and abs(value) <= EXACT_INT:
            n = int(value)
        else:
            raise ProtocolError("%s: expected an integer" % where, "TypeError")
        lo, hi = INT_RANGES[dtype]
        if not lo <= n <= hi:
            raise ProtocolError("%s: %d is out of range for %s" % (where, n, dtype))
        return n
    if dtype in FLOAT_DTYPES:
        x = decode_float(value, where)
        if dtype == "float32" and math.isfinite(x):
            try:
                struct.pack("<f", x)
            except OverflowError:
                raise ProtocolError("%s: %r is beyond the float32 range" % (where, x)) from None
        return x
    if not isinstance(value, list) or len(value) != 2:
        raise ProtocolError("%s: a complex element is a [re, im] pair" % where, "TypeError")
    return complex(decode_float(value[0], where + ".re"), decode_float(value[1], where + ".im"))


def encode_float(x, single=False):
    """A float element as written: NaN, infinities and -0.0 as strings; integral values below
    1e16 as integers; others as the shortest decimal that reads back to the same float32
    (single) or float64."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0 and math.copysign(1.0, x) < 0:
        return "-0.0"
    if x.is_integer() and abs(x) < 1e16:
        return int(x)
    if single:
        for digits in range(1, 10):
            y = float("%.*g" % (digits, x))
            if struct.unpack("<f", struct.pack("<f", y))[0] == x:
                return y
    return x


def encode_element(dtype, x):
    if dtype == "bool":
        return bool(x)
    if dtype in INT_DTYPES:
        n = int(x)
        return n if -EXACT_INT <= n <= EXACT_INT else str(n)
    if dtype in FLOAT_DTYPES:
        return encode_float(x, dtype == "float32")
    z = complex(x)
    single = dtype == "complex64"
    return [encode_float(z.real, single), encode_float(z.imag, single)]


def decode_scalar(value, where):
    """A Python scalar operand: a JSON number or boolean, or {"scalar": TEXT}. A number with
    an integral value within int64 is an int, any other a float (JSON readers do not keep
    1.0 apart from 1); TEXT is an int when it is a decimal integer, else a float."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer() and -(1 << 63) <= value < (1 << 63):
            return int(value)
        return value
    if isinstance(value, dict) and set(value) == {"scalar"} and isinstance(value["scalar"], str):
        text = value["scalar"].strip()
        try:
            return int(text, 10)
        except ValueError:
            return decode_float(text, where)
    raise ProtocolError("%s: expected a scalar" % where, "TypeError")


class TypedArray:
    """A decoded typed array: dtype name, shape, flat elements in C order."""

    __slots__ = ("dtype", "shape", "data")

    def __init__(self, dtype, shape, data):
        self.dtype, self.shape, self.data = dtype, tuple(shape), data

    @classmethod
    def decode(cls, obj, where):
        for key in ("dtype", "shape", "data"):
            if key not in obj:
                raise ProtocolError("%s: typed array without '%s'" % (where, key))
        dtype = dtype_arg(obj, "dtype", required=True)
        shape = shape_arg(obj, "shape")
        data = arg(obj, "data", list)
        count = 1
        for n in shape:
            count *= n
        if len(data) != count:
            raise ProtocolError("%s: shape %s needs %d elements, data has %d" %
                                (where, list(shape), count, len(data)))
        return cls(dtype, shape, [decode_element(dtype, v, "%s.data[%d]" % (where, i))
                                  for i, v in enumerate(data)])

    def encode(self):
        return {"dtype": self.dtype, "shape": list(self.shape),
                "data": [encode_element(self.dtype, v) for v in self.data]}


def nest(flat, shape):
    """Flat C-order elements as nested lists of the given shape (a scalar for shape ())."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def flatten(nested):
    if not isinstance(nested, list):
        return [nested]
    out = []
    stack = [iter(nested)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, list):
                stack.append(iter(item))
                break
            out.append(item)
        else:
            stack.pop()
    return out


# ---------------------------------------------------------------------------------------
# The server.

HANDLE_TYPES = ("device", "array", "stream")


class Server:
    """Answers requests for one backend. One instance per adapter process."""

    def __init__(self, backend):
        self.backend = backend
        self.started = False
        self.exiting = False
        self.objects = {}          # handle -> library object
        self.counters = {t: 0 for t in HANDLE_TYPES}
        self.session_devices = []  # [(handle, device)] listed by hello; survive reset

    # -- handles --------------------------------------------------------------------------

    def new_handle(self, htype, obj):
        handle = "%s#%d" % (htype, self.counters[htype])
        self.counters[htype] += 1
        self.objects[handle] = obj
        return handle

    def device_handle(self, dev):
        """A new handle for a library device (handles are never shared or reused)."""
        return self.new_handle("device", dev)

    def lookup(self, value, htype, name):
        if not isinstance(value, str) or "#" not in value:
            raise ProtocolError("argument '%s' must be a %s handle" % (name, htype), "TypeError")
        prefix = value.split("#", 1)[0]
        if prefix != htype:
            raise ProtocolError("argument '%s': '%s' is a %s handle, expected a %s handle" %
                                (name, value, prefix, htype), "TypeError")
        if value not in self.objects:
            raise ProtocolError("argument '%s': unknown handle '%s'" % (name, value))
        return self.objects[value]

    def array(self, args, name):
        return self.lookup(arg(args, name, str, what="an array handle"), "array", name)

    def device(self, args, name="device", required=False):
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

    def operand(self, args, name):
        """An array handle or a scalar."""
        value = args.get(name, _MISSING)
        if value is _MISSING:
            raise ProtocolError("missing argument '%s'" % name)
        if isinstance(value, str):
            return self.lookup(value, "array", name)
        return decode_scalar(value, "argument '%s'" % name)

    def reply_array(self, x):
        return self.new_handle("array", x)

    # -- the loop ------------------------------------------------------------------------

    def handle_line(self, line):
        """One request line in, one reply object out (None: no reply, exit)."""
        try:
            request = json.loads(line)
        except ValueError as exc:
            return self.failure(None, "ValueError", "request is not valid JSON: %s" % exc,
                                "protocol")
        if not isinstance(request, dict):
            return self.failure(None, "TypeError", "request must be a JSON object", "protocol")
        rid = request.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool) or not 0 <= rid < EXACT_INT:
            return self.failure(None, "ValueError",
                                "request 'id' must be an integer in [0, 2^53)", "protocol")
        op = request.get("op")
        args = request.get("args")
        if args is None:
            args = {}
        if not isinstance(op, str):
            return self.failure(rid, "TypeError", "request 'op' must be a string", "protocol")
        if not isinstance(args, dict):
            return self.failure(rid, "TypeError", "request 'args' must be an object",
                                "protocol")
        return self.call(rid, op, args)

    def call(self, rid, op, args):
        try:
            if op != "hello" and not self.started:
                raise ProtocolError("'%s' before a successful 'hello'" % op, "RuntimeError")
            method = OPS.get(op)
            if method is None:
                raise Unsupported("unknown op '%s'" % op)
            allowed = ARGS.get(op)
            if allowed is not None:
                for name in args:
                    if name not in allowed:
                        raise ProtocolError("'%s' takes no argument '%s'" % (op, name),
                                            "TypeError")
            result = method(self, args)
        except ProtocolError as exc:
            return self.failure(rid, exc.kind, str(exc), "protocol")
        except Unsupported as exc:
            return self.failure(rid, "NotImplementedError", str(exc), "adapter")
        except AdapterLimit as exc:
            return self.failure(rid, exc.kind, str(exc), "adapter")
        except Exception as exc:  # the library's own error: the behaviour under test
            message = "%s: %s" % (native_name(exc), exc)
            return self.failure(rid, error_kind(exc), message, "library")
        return {"id": rid, "ok": True, "result": result}

    @staticmethod
    def failure(rid, kind, message, origin):
        return {"id": rid, "ok": False,
                "error": {"kind": kind, "message": message, "origin": origin}}

    def serve(self, infile, outfile):
        """Answers every request line until end of input or 'bye'. Returns the exit status."""
        while True:
            line = infile.readline(MAX_LINE + 1)
            if not line:
                return 0
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while True:  # skip the rest of the over-long line
                    rest = infile.readline(MAX_LINE)
                    if not rest or rest.endswith(b"\n"):
                        break
                reply = self.failure(None, "ValueError",
                                     "request line longer than %d bytes" % MAX_LINE, "protocol")
            else:
                text = line.strip()
                if not text:
                    continue
                try:
                    text = text.decode("utf-8")
                except UnicodeDecodeError:
                    reply = self.failure(None, "ValueError", "request is not UTF-8", "protocol")
                else:
                    reply = self.handle_line(text)
            outfile.write(json.dumps(reply, separators=(",", ":"), allow_nan=False)
                          .encode("utf-8") + b"\n")
            outfile.flush()
            if self.exiting:
                return 0

    # -- session ops ---------------------------------------------------------------------

    def op_hello(self, args):
        version = arg(args, "protocol", int)
        if version != PROTOCOL_VERSION:
            raise ProtocolError("protocol version %d is not spoken here (this adapter speaks %d)"
                                % (version, PROTOCOL_VERSION))
        b = self.backend
        # A second hello starts the session afresh: every handle of the old one is dropped.
        self.started = False
        self.objects.clear()
        b.reset()
        self.session_devices = [(self.device_handle(d), d) for d in b.devices()]
        default = b.default_device()
        result = {
            "protocol": PROTOCOL_VERSION,
            "library": {"name": b.library_name, "version": b.library_version()},
            "adapter": {"name": ADAPTER_NAME, "version": ADAPTER_VERSION},
            "features": list(b.features),
            "devices": [h for h, _ in self.session_devices],
            "device_strs": [b.device_str(d) for _, d in self.session_devices],
            "default_device": None if default is None else self._session_handle(default),
            "max_line": MAX_LINE,
        }
        self.started = True
        return result

    def _session_handle(self, dev):
        """The handle hello gave for dev (the default device is one of the listed ones)."""
        for handle, known in self.session_devices:
            if known is dev or (type(known) is type(dev) and bool(known == dev)):
                return handle
        return self.device_handle(dev)

    def op_reset(self, args):
        keep = {h for h, _ in self.session_devices}
        for handle in list(self.objects):
            if handle not in keep:
                del self.objects[handle]
        self.backend.reset()
        return None

    def op_bye(self, args):
        self.exiting = True
        return None


OPS = {}

# The arguments each op defines (spec/schema/request.json); any other is a protocol error.
ARGS = {
    "hello": {"protocol"}, "reset": set(), "bye": set(),
    "device.parse": {"text"}, "device.describe": {"device"}, "device.equal": {"a", "b"},
    "device.from_type_index": {"type", "index"}, "device.from_ordinal": {"ordinal"},
    "info.devices": set(), "info.default_device": set(), "info.default_dtypes": {"device"},
    "info.dtypes": {"device", "kind"},
    "array.create": {"fn", "dtype", "device", "shape", "fill_value", "start", "stop", "step",
                     "num", "endpoint", "n_rows", "n_cols", "k", "x", "n", "d"},
    "array.asarray": {"obj", "dtype", "device", "copy"},
    "array.astype": {"x", "dtype", "copy", "device"},
    "array.describe": {"array"}, "array.read": {"array"},
    "array.to_device": {"array", "device", "stream"}, "array.same": {"a", "b"},
    "array.binary": {"fn", "x1", "x2"}, "array.unary": {"fn", "x"},
    "array.reduce": {"fn", "x", "axis"}, "array.matmul": {"x1", "x2"},
    "array.stack": {"arrays", "axis"}, "array.dlpack_device": {"array"},
    "array.from_dlpack": {"x", "device", "copy"}, "stream.default": {"device"},
    "default.get": set(), "default.set": {"device"}, "default.unset": set(),
    "default.push": {"device"}, "default.pop": set(),
    "soft.get": set(), "soft.set": {"enabled"}, "soft.unset": set(),
    "util.num_gpus": set(), "util.num_cpu_cores": set(), "util.total_memory": {"device"},
    "util.used_memory": {"device"}, "util.utilisation": {"device"},
    "util.arrays_on_device": {"device"},
    "dtype.can_cast": {"from_", "to"}, "dtype.result_type": {"args"},
    "array.tril": {"x", "k"}, "array.triu": {"x", "k"},
}


def op(name):
    """Registers fn(server, args) as the handler of op `name`."""
    def register(fn):
        OPS[name] = fn
        return fn
    return register


op("hello")(Server.op_hello)
op("reset")(Server.op_reset)
op("bye")(Server.op_bye)
