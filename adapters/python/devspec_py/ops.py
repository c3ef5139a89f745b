"""The protocol's ops (spec/protocol.md, "Ops"): argument checks, then one backend call.

Each handler reads its arguments with the checks of protocol.py (a missing or mistyped
argument is a protocol error naming it), calls the backend, and turns the library's objects
into handles. Standard-library only.
"""

from .protocol import (MAX_READ, AdapterLimit, ProtocolError, Server, TypedArray, Unsupported,
                       arg, dtype_arg, int_arg, op, shape_arg, DTYPES)

BINARY = ("add", "subtract", "multiply", "divide", "equal", "less", "maximum")
UNARY = ("negative", "abs", "sqrt")
REDUCE = ("sum", "max")
CREATE = ("zeros", "ones", "empty", "full", "arange", "linspace", "eye", "zeros_like",
          "ones_like", "empty_like", "full_like", "fftfreq", "rfftfreq")
NUMBER = (int, float)
_COMMON = {"fn", "dtype", "device"}
CREATE_ARGS = {
    "zeros": {"shape"}, "ones": {"shape"}, "empty": {"shape"}, "full": {"shape", "fill_value"},
    "arange": {"start", "stop", "step"}, "linspace": {"start", "stop", "num", "endpoint"},
    "eye": {"n_rows", "n_cols", "k"}, "zeros_like": {"x"}, "ones_like": {"x"},
    "empty_like": {"x"}, "full_like": {"x", "fill_value"}, "fftfreq": {"n", "d"},
    "rfftfreq": {"n", "d"},
}
CREATE_ARGS = {fn: names | _COMMON for fn, names in CREATE_ARGS.items()}


def choice(args, name, choices):
    value = arg(args, name, str)
    if value not in choices:
        raise ProtocolError("argument '%s': '%s' is not one of %s" %
                            (name, value, ", ".join(choices)))
    return value


def number(args, name, default=None, required=False):
    if name not in args or args[name] is None:
        if required:
            raise ProtocolError("missing argument '%s'" % name)
        return default
    value = args[name]
    if isinstance(value, dict):
        from .protocol import decode_scalar
        return decode_scalar(value, "argument '%s'" % name)
    return arg(args, name, NUMBER, what="a number")


def device_kw(server, args, name="device"):
    """{} when the argument is absent, else {"device": the library's device or None}."""
    if name not in args:
        return {}
    return {"device": server.device(args, name)}


# -- device.* -----------------------------------------------------------------------------

@op("device.parse")
def device_parse(server, args):
    return server.new_handle("device", server.backend.parse_device(arg(args, "text", str)))


def device_object(server, args, name):
    """A device argument that must name a device: a handle, or {"str": text}, which becomes
    the library's device for that text (its device constructor, as device.parse)."""
    if name not in args or args[name] is None:
        raise ProtocolError("argument '%s' must be a device handle or {\"str\": text}" % name,
                            "TypeError" if name in args else "ValueError")
    dev = server.device(args, name)
    if isinstance(args[name], dict):
        dev = server.backend.parse_device(dev)
    return dev


@op("device.describe")
def device_describe(server, args):
    return server.backend.describe_device(device_object(server, args, "device"))


@op("device.equal")
def device_equal(server, args):
    a = device_object(server, args, "a")
    b = device_object(server, args, "b")
    return bool(server.backend.device_equal(a, b))


@op("device.from_type_index")
def device_from_type_index(server, args):
    dev = server.backend.device_from_type_index(arg(args, "type", str), int_arg(args, "index"))
    return server.new_handle("device", dev)


@op("device.from_ordinal")
def device_from_ordinal(server, args):
    return server.new_handle("device", server.backend.device_from_ordinal(int_arg(args, "ordinal")))


# -- info.* -------------------------------------------------------------------------------

@op("info.devices")
def info_devices(server, args):
    # JAX lists None among its devices (an uncommitted placement): it travels as null.
    return [None if d is None else server.device_handle(d) for d in server.backend.info_devices()]


@op("info.default_device")
def info_default_device(server, args):
    dev = server.backend.info_default_device()
    return None if dev is None else server.device_handle(dev)


@op("info.default_dtypes")
def info_default_dtypes(server, args):
    return server.backend.info_default_dtypes(**device_kw(server, args))


@op("info.dtypes")
def info_dtypes(server, args):
    kw = device_kw(server, args)
    if "kind" in args and args["kind"] is not None:
        kind = args["kind"]
        if isinstance(kind, list):
            if not all(isinstance(k, str) for k in kind):
                raise ProtocolError("argument 'kind' must be a string or a list of strings",
                                    "TypeError")
            kind = tuple(kind)
        elif not isinstance(kind, str):
            raise ProtocolError("argument 'kind' must be a string or a list of strings",
                                "TypeError")
        kw["kind"] = kind
    return sorted(server.backend.info_dtypes(**kw))


# -- array.* ------------------------------------------------------------------------------

@op("array.create")
def array_create(server, args):
    fn = choice(args, "fn", CREATE)
    for name in args:
        if name not in CREATE_ARGS[fn]:
            raise ProtocolError("array.create with fn '%s' takes no argument '%s'" % (fn, name),
                                "TypeError")
    kw = device_kw(server, args)
    dtype = dtype_arg(args)
    if dtype is not None:
        kw["dtype"] = dtype
    a = {}
    if fn in ("zeros", "ones", "empty"):
        a["shape"] = shape_arg(args)
    elif fn == "full":
        a["shape"] = shape_arg(args)
        a["fill_value"] = number_or_bool(args, "fill_value")
    elif fn == "arange":
        a["start"] = number(args, "start", required=True)
        for name in ("stop", "step"):
            if args.get(name) is not None:
                a[name] = number(args, name)
    elif fn == "linspace":
        a["start"] = number(args, "start", required=True)
        a["stop"] = number(args, "stop", required=True)
        a["num"] = int_arg(args, "num", minimum=0)
        a["endpoint"] = arg(args, "endpoint", bool, True)
    elif fn == "eye":
        a["n_rows"] = int_arg(args, "n_rows", minimum=0)
        if args.get("n_cols") is not None:
            a["n_cols"] = int_arg(args, "n_cols", minimum=0)
        a["k"] = int_arg(args, "k", 0)
    elif fn in ("zeros_like", "ones_like", "empty_like"):
        a["x"] = server.array(args, "x")
    elif fn == "full_like":
        a["x"] = server.array(args, "x")
        a["fill_value"] = number_or_bool(args, "fill_value")
    else:  # fftfreq, rfftfreq
        a["n"] = int_arg(args, "n", minimum=1)
        if args.get("d") is not None:
            a["d"] = number(args, "d")
    return server.reply_array(server.backend.create(fn, a, kw))


def number_or_bool(args, name):
    if name not in args:
        raise ProtocolError("missing argument '%s'" % name)
    if isinstance(args[name], bool):
        return args[name]
    return number(args, name, required=True)


@op("array.asarray")
def array_asarray(server, args):
    if "obj" not in args:
        raise ProtocolError("missing argument 'obj'")
    obj = args["obj"]
    kw = device_kw(server, args)
    dtype = dtype_arg(args)
    if dtype is not None:
        kw["dtype"] = dtype
    if "copy" in args:
        kw["copy"] = arg(args, "copy", (bool, type(None)), what="a boolean or null")
    if isinstance(obj, str):
        return server.reply_array(server.backend.asarray_array(server.array(args, "obj"), kw))
    if isinstance(obj, dict) and "data" in obj:
        typed = TypedArray.decode(obj, "argument 'obj'")
        return server.reply_array(server.backend.asarray_typed(typed, kw))
    from .protocol import decode_scalar
    return server.reply_array(server.backend.asarray_scalar(decode_scalar(obj, "argument 'obj'"),
                                                            kw))


@op("array.astype")
def array_astype(server, args):
    x = server.array(args, "x")
    dtype = dtype_arg(args, required=True)
    kw = device_kw(server, args)
    kw["copy"] = arg(args, "copy", bool, True)
    return server.reply_array(server.backend.astype(x, dtype, kw))


@op("array.describe")
def array_describe(server, args):
    x = server.array(args, "array")
    b = server.backend
    dev = b.array_device(x)
    # tinygrad's constants (arange, eye, 0-d scalars) have no device: .device is None.
    return {"device": None if dev is None else server.device_handle(dev),
            "dtype": b.array_dtype(x), "shape": list(b.array_shape(x))}


@op("array.read")
def array_read(server, args):
    x = server.array(args, "array")
    count = 1
    for n in server.backend.array_shape(x):
        count *= n
    if count > MAX_READ:
        raise AdapterLimit("array.read: %d elements is more than the %d this adapter writes in "
                           "one reply" % (count, MAX_READ))
    dtype, shape, flat = server.backend.read(x)
    if dtype not in DTYPES:
        raise Unsupported("the array's dtype %s has no protocol name" % dtype)
    return TypedArray(dtype, shape, flat).encode()


@op("array.to_device")
def array_to_device(server, args):
    x = server.array(args, "array")
    dev = server.device(args, required=True)
    kw = {}
    if "stream" in args:
        kw["stream"] = None if args["stream"] is None else \
            server.lookup(args["stream"], "stream", "stream")
    return server.reply_array(server.backend.to_device(x, dev, kw))


@op("array.same")
def array_same(server, args):
    return server.array(args, "a") is server.array(args, "b")


@op("array.binary")
def array_binary(server, args):
    fn = choice(args, "fn", BINARY)
    return server.reply_array(server.backend.binary(fn, server.operand(args, "x1"),
                                                    server.operand(args, "x2")))


@op("array.unary")
def array_unary(server, args):
    fn = choice(args, "fn", UNARY)
    return server.reply_array(server.backend.unary(fn, server.array(args, "x")))


@op("array.reduce")
def array_reduce(server, args):
    fn = choice(args, "fn", REDUCE)
    axis = arg(args, "axis", (int, type(None)), None, what="an integer or null")
    return server.reply_array(server.backend.reduce(fn, server.array(args, "x"), axis))


@op("array.matmul")
def array_matmul(server, args):
    return server.reply_array(server.backend.matmul(server.array(args, "x1"),
                                                    server.array(args, "x2")))


@op("array.stack")
def array_stack(server, args):
    handles = arg(args, "arrays", list)
    arrays = [server.lookup(h, "array", "arrays[%d]" % i) for i, h in enumerate(handles)]
    axis = int_arg(args, "axis", 0)
    return server.reply_array(server.backend.stack(arrays, axis))


@op("array.dlpack_device")
def array_dlpack_device(server, args):
    kind, index = server.backend.dlpack_device(server.array(args, "array"))
    return [int(kind), int(index)]


@op("array.from_dlpack")
def array_from_dlpack(server, args):
    x = server.array(args, "x")
    kw = device_kw(server, args)
    if "copy" in args:
        kw["copy"] = arg(args, "copy", (bool, type(None)), what="a boolean or null")
    return server.reply_array(server.backend.from_dlpack(x, kw))


@op("stream.default")
def stream_default(server, args):
    device = server.device(args, required=True)
    return server.new_handle("stream", server.backend.default_stream(device))


# -- default.* and soft.* -------------------------------------------------------------------

@op("default.get")
def default_get(server, args):
    return server.device_handle(server.backend.default_get())


@op("default.set")
def default_set(server, args):
    server.backend.default_set(server.device(args, required=True))


@op("default.unset")
def default_unset(server, args):
    server.backend.default_unset()


@op("default.push")
def default_push(server, args):
    server.backend.default_push(server.device(args, required=True))


@op("default.pop")
def default_pop(server, args):
    server.backend.default_pop()


@op("soft.get")
def soft_get(server, args):
    return bool(server.backend.soft_get())


@op("soft.set")
def soft_set(server, args):
    server.backend.soft_set(arg(args, "enabled", bool))


@op("soft.unset")
def soft_unset(server, args):
    server.backend.soft_unset()


# -- util.* -------------------------------------------------------------------------------

@op("util.num_gpus")
def util_num_gpus(server, args):
    return int(server.backend.num_gpus())


@op("util.num_cpu_cores")
def util_num_cpu_cores(server, args):
    return int(server.backend.num_cpu_cores())


@op("util.total_memory")
def util_total_memory(server, args):
    return int(server.backend.total_memory(server.device(args)))


@op("util.used_memory")
def util_used_memory(server, args):
    return int(server.backend.used_memory(server.device(args)))


@op("util.utilisation")
def util_utilisation(server, args):
    return float(server.backend.utilisation(server.device(args)))


@op("util.arrays_on_device")
def util_arrays_on_device(server, args):
    found = server.backend.arrays_on_device(server.device(args, required=True))
    handles = []
    for x in found:
        # An array already handed out keeps its oldest handle; any other gets a new one.
        known = [h for h, obj in server.objects.items()
                 if obj is x and h.startswith("array#")]
        handles.append(min(known, key=lambda h: int(h.split("#")[1])) if known
                       else server.new_handle("array", x))
    return {"count": len(handles), "arrays": handles}


# -- dtype.* ------------------------------------------------------------------------------

def dtype_or_array(server, value, name):
    """A dtype name is the library's dtype; any other string must be an array handle."""
    if isinstance(value, str) and value in DTYPES:
        return server.backend.dtype(value)
    if isinstance(value, str):
        return server.lookup(value, "array", name)
    raise ProtocolError("argument '%s' must be a dtype name or an array handle" % name,
                        "TypeError")


@op("dtype.can_cast")
def dtype_can_cast(server, args):
    if "from_" not in args:
        raise ProtocolError("missing argument 'from_'")
    from_ = dtype_or_array(server, args["from_"], "from_")
    to = server.backend.dtype(dtype_arg(args, "to", required=True))
    return bool(server.backend.can_cast(from_, to))


@op("dtype.result_type")
def dtype_result_type(server, args):
    items = arg(args, "args", list)
    if not items:
        raise ProtocolError("argument 'args' must not be empty")
    objs = [dtype_or_array(server, v, "args[%d]" % i) for i, v in enumerate(items)]
    name = server.backend.dtype_name(server.backend.result_type(objs))
    if name not in DTYPES:
        raise Unsupported("the result dtype %s has no protocol name" % name)
    return name


@op("array.tril")
def array_tril(server, args):
    return server.reply_array(server.backend.tril(server.array(args, "x"), int_arg(args, "k", 0)))


@op("array.triu")
def array_triu(server, args):
    return server.reply_array(server.backend.triu(server.array(args, "x"), int_arg(args, "k", 0)))


def make_server(backend):
    """A protocol server for backend with every op of this module registered."""
    return Server(backend)
