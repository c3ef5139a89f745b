"""The protocol's ops (spec/protocol.md, "Ops"): argument checks, then one backend call.

Each handler reads its arguments with the checks of protocol.py (a missing or mistyped
argument is a protocol error naming it), calls the backend, and turns the library's objects
into handles. Standard-library only.
"""

from __future__ import annotations

from typing import Any

from . import dlpack, ops_table
from .args import Args, arg, choice, dtype_arg, int_arg, shape_arg
from .backend import Backend, GlobalArg, GlobalInfo, Piece, PlacementArg, Sbp
from .errors import AdapterLimit, LibraryError, ProtocolError, Unsupported
from .protocol import DTYPES, MAX_READ
from .server import PerRank, Server, op
from .values import Scalar, TypedArray, decode_scalar

# The functions each op's fn argument may name, and array.create's arguments per function
# (spec/ops.json, through the generated ops_table.py).
BINARY = ops_table.FUNCTIONS["array.binary"]
GLOBAL_BINARY = ops_table.FUNCTIONS["global.binary"]
UNARY = ops_table.FUNCTIONS["array.unary"]
REDUCE = ops_table.FUNCTIONS["array.reduce"]
CREATE = ops_table.FUNCTIONS["array.create"]
CREATE_ARGS = ops_table.FUNCTION_ARGS["array.create"]
NUMBER = (int, float)


def number(args: Args, name: str, default: Any = None, required: bool = False) -> Any:
    if name not in args or args[name] is None:
        if required:
            raise ProtocolError("missing argument '%s'" % name)
        return default
    value = args[name]
    if isinstance(value, dict):
        return decode_scalar(value, "argument '%s'" % name)
    return arg(args, name, NUMBER, what="a number")


def device_kw(server: Server, args: Args, name: str = "device") -> dict[str, Any]:
    """{} when the argument is absent, else {"device": the library's device or None}."""
    if name not in args:
        return {}
    return {"device": server.device(args, name)}


# -- device.* -----------------------------------------------------------------------------

@op("device.parse")
def device_parse(server: Server, args: Args) -> Any:
    return server.new_handle("device", server.backend.parse_device(arg(args, "text", str)))


def device_object(server: Server, args: Args, name: str) -> Any:
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
def device_describe(server: Server, args: Args) -> Any:
    return server.backend.describe_device(device_object(server, args, "device"))


@op("device.equal")
def device_equal(server: Server, args: Args) -> Any:
    a = device_object(server, args, "a")
    b = device_object(server, args, "b")
    return bool(server.backend.device_equal(a, b))


@op("device.from_type_index")
def device_from_type_index(server: Server, args: Args) -> Any:
    dev = server.backend.device_from_type_index(arg(args, "type", str), int_arg(args, "index"))
    return server.new_handle("device", dev)


@op("device.from_ordinal")
def device_from_ordinal(server: Server, args: Args) -> Any:
    return server.new_handle("device", server.backend.device_from_ordinal(int_arg(args, "ordinal")))


@op("device.parse_current")
def device_parse_current(server: Server, args: Args) -> Any:
    text = arg(args, "text", str)
    return server.new_handle("device", server.backend.parse_current_device(text))


@op("device.set_current")
def device_set_current(server: Server, args: Args) -> Any:
    server.backend.set_current_device(device_object(server, args, "device"))


# -- info.* -------------------------------------------------------------------------------

@op("info.devices")
def info_devices(server: Server, args: Args) -> Any:
    # JAX lists None among its devices (an uncommitted placement): it travels as null.
    return [None if d is None else server.device_handle(d) for d in server.backend.info_devices()]


@op("info.devices_type")
def info_devices_type(server: Server, args: Args) -> Any:
    return server.backend.info_devices_type()


@op("info.device_param")
def info_device_param(server: Server, args: Args) -> Any:
    return server.backend.device_param(arg(args, "fn", str))


@op("info.capabilities")
def info_capabilities(server: Server, args: Args) -> Any:
    # capabilities() as the library returns it (DEV-INFO-2): the standard's keys and any of
    # the library's own; a value JSON has no form for is answered as its repr.
    caps = server.backend.info_capabilities()
    return {str(k): v if v is None or isinstance(v, (bool, int, float, str)) else repr(v)
            for k, v in caps.items()}


@op("info.default_device")
def info_default_device(server: Server, args: Args) -> Any:
    dev = server.backend.info_default_device()
    return None if dev is None else server.device_handle(dev)


@op("info.default_dtypes")
def info_default_dtypes(server: Server, args: Args) -> Any:
    return server.backend.info_default_dtypes(**device_kw(server, args))


@op("info.dtypes")
def info_dtypes(server: Server, args: Args) -> Any:
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
def array_create(server: Server, args: Args) -> Any:
    fn = choice(args, "fn", CREATE)
    for name in args:
        if name not in CREATE_ARGS[fn]:
            raise ProtocolError("array.create with fn '%s' takes no argument '%s'" % (fn, name),
                                "TypeError")
    kw = device_kw(server, args)
    dtype = dtype_arg(args)
    if dtype is not None:
        kw["dtype"] = dtype
    a: dict[str, Any] = {}
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


def number_or_bool(args: Args, name: str) -> Any:
    if name not in args:
        raise ProtocolError("missing argument '%s'" % name)
    if isinstance(args[name], bool):
        return args[name]
    return number(args, name, required=True)


@op("array.asarray")
def array_asarray(server: Server, args: Args) -> Any:
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
    value: Scalar = decode_scalar(obj, "argument 'obj'")
    return server.reply_array(server.backend.asarray_scalar(value, kw))


@op("array.astype")
def array_astype(server: Server, args: Args) -> Any:
    x = server.array(args, "x")
    dtype = str(dtype_arg(args, required=True))
    kw = device_kw(server, args)
    kw["copy"] = arg(args, "copy", bool, True)
    return server.reply_array(server.backend.astype(x, dtype, kw))


@op("array.describe")
def array_describe(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    b = server.backend
    dev = b.array_device(x)
    # tinygrad's constants (arange, eye, 0-d scalars) have no device: .device is None.
    return {"device": None if dev is None else server.device_handle(dev),
            "dtype": b.array_dtype(x), "shape": list(b.array_shape(x))}


@op("array.get_device")
def array_get_device(server: Server, args: Args) -> Any:
    return int(server.backend.array_get_device(server.array(args, "array")))


@op("array.read")
def array_read(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    count = 1
    for n in server.backend.array_shape(x):
        count *= n
    if count > MAX_READ:
        raise AdapterLimit("array.read: %d elements is more than the %d this adapter writes in "
                           "one reply (a limit of the adapter, not of the library)"
                           % (count, MAX_READ))
    dtype, shape, flat = server.backend.read(x)
    if dtype not in DTYPES:
        raise Unsupported("the array's dtype %s has no protocol name" % dtype)
    return TypedArray(dtype, shape, flat).encode()


@op("array.to_device")
def array_to_device(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    dev = server.device(args, required=True)
    kw: dict[str, Any] = {}
    if "stream" in args:
        kw["stream"] = None if args["stream"] is None else \
            server.lookup(args["stream"], "stream", "stream")
    return server.reply_array(server.backend.to_device(x, dev, kw))


@op("array.same")
def array_same(server: Server, args: Args) -> Any:
    return server.array(args, "a") is server.array(args, "b")


@op("array.binary")
def array_binary(server: Server, args: Args) -> Any:
    fn = choice(args, "fn", BINARY)
    return server.reply_array(server.backend.binary(fn, server.operand(args, "x1"),
                                                    server.operand(args, "x2")))


@op("array.binary_into")
def array_binary_into(server: Server, args: Args) -> Any:
    fn = choice(args, "fn", BINARY[:4])
    server.backend.binary_into(fn, server.operand(args, "x1"), server.operand(args, "x2"),
                               server.array(args, "out"))
    return None


@op("array.unary")
def array_unary(server: Server, args: Args) -> Any:
    fn = choice(args, "fn", UNARY)
    return server.reply_array(server.backend.unary(fn, server.array(args, "x")))


@op("array.reduce")
def array_reduce(server: Server, args: Args) -> Any:
    fn = choice(args, "fn", REDUCE)
    axis = arg(args, "axis", (int, type(None)), None, what="an integer or null")
    return server.reply_array(server.backend.reduce(fn, server.array(args, "x"), axis))


@op("array.matmul")
def array_matmul(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.matmul(server.array(args, "x1"),
                                                    server.array(args, "x2")))


@op("array.stack")
def array_stack(server: Server, args: Args) -> Any:
    handles = arg(args, "arrays", list)
    arrays = [server.lookup(h, "array", "arrays[%d]" % i) for i, h in enumerate(handles)]
    axis = int_arg(args, "axis", 0)
    return server.reply_array(server.backend.stack(arrays, axis))


def devices_arg(server: Server, args: Args, name: str = "devices") -> list[Any]:
    """A non-empty list of device arguments (handles or {"str": text}), as the library's
    devices."""
    items = arg(args, name, list, what="a list of devices")
    if not items:
        raise ProtocolError("argument '%s' must name at least one device" % name, "ValueError")
    return [device_object(server, {"%s[%d]" % (name, i): v}, "%s[%d]" % (name, i))
            for i, v in enumerate(items)]


def shard_args(server: Server, args: Args) -> tuple[Any, list[Any], int | None]:
    return (server.array(args, "x"), devices_arg(server, args),
            arg(args, "axis", (int, type(None)), None, what="an integer or null"))


@op("array.shard")
def array_shard(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.shard(*shard_args(server, args)))


@op("array.shard_inplace")
def array_shard_inplace(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.shard_inplace(*shard_args(server, args)))


@op("array.shard_describe")
def array_shard_describe(server: Server, args: Args) -> Any:
    info = server.backend.shard_describe(server.array(args, "array"))
    info["devices"] = [server.device_handle(d) for d in info["devices"]]
    return info


@op("array.shard_piece")
def array_shard_piece(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.shard_piece(server.array(args, "array"),
                                                         int_arg(args, "index", minimum=0)))


@op("array.to_devices")
def array_to_devices(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.to_devices(server.array(args, "array"),
                                                        devices_arg(server, args)))


@op("array.dlpack_device")
def array_dlpack_device(server: Server, args: Args) -> Any:
    kind, index = server.backend.dlpack_device(server.array(args, "array"))
    return [int(kind), int(index)]


@op("array.dlpack")
def array_dlpack(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    kw: dict[str, Any] = {}
    if "dl_device" in args:
        dl = args["dl_device"]
        if dl is not None:
            if (not isinstance(dl, list) or len(dl) != 2 or
                    any(isinstance(v, bool) or not isinstance(v, int) for v in dl)):
                raise ProtocolError("argument 'dl_device' must be null or [device_type, "
                                    "device_id]", "TypeError")
            dl = (dl[0], dl[1])
        kw["dl_device"] = dl
    if "copy" in args:
        kw["copy"] = arg(args, "copy", (bool, type(None)), what="a boolean or null")
    if isinstance(args.get("stream"), str):  # a stream handle: the library's stream object
        kw["stream"] = server.lookup(args["stream"], "stream", "stream")
    elif "stream" in args:
        kw["stream"] = arg(args, "stream", (int, type(None)),
                           what="an integer, a stream handle or null")
    return server.backend.dlpack_export(x, kw)


@op("array.dlpack_c_exchange_api")
def array_dlpack_c_exchange_api(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    try:
        return dlpack.read_exchange_api(type(x))
    except dlpack.CapsuleError as e:  # the library's attribute is not what DLPack says
        raise LibraryError(e) from e


@op("array.from_dlpack")
def array_from_dlpack(server: Server, args: Args) -> Any:
    x = server.array(args, "x")
    kw = device_kw(server, args)
    if "copy" in args:
        kw["copy"] = arg(args, "copy", (bool, type(None)), what="a boolean or null")
    return server.reply_array(server.backend.from_dlpack(x, kw))


@op("stream.default")
def stream_default(server: Server, args: Args) -> Any:
    device = server.device(args, required=True)
    return server.new_handle("stream", server.backend.default_stream(device))


# -- default.* and soft.* -------------------------------------------------------------------

@op("default.get")
def default_get(server: Server, args: Args) -> Any:
    return server.device_handle(server.backend.default_get())


@op("default.set")
def default_set(server: Server, args: Args) -> Any:
    server.backend.default_set(server.device(args, required=True))


@op("default.unset")
def default_unset(server: Server, args: Args) -> Any:
    server.backend.default_unset()


@op("default.push")
def default_push(server: Server, args: Args) -> Any:
    server.backend.default_push(server.device(args, required=True))


@op("default.pop")
def default_pop(server: Server, args: Args) -> Any:
    server.backend.default_pop()


@op("soft.get")
def soft_get(server: Server, args: Args) -> Any:
    return bool(server.backend.soft_get())


@op("soft.set")
def soft_set(server: Server, args: Args) -> Any:
    server.backend.soft_set(arg(args, "enabled", bool))


@op("soft.unset")
def soft_unset(server: Server, args: Args) -> Any:
    server.backend.soft_unset()


# -- util.* -------------------------------------------------------------------------------

@op("util.num_gpus")
def util_num_gpus(server: Server, args: Args) -> Any:
    return int(server.backend.num_gpus())


@op("util.num_cpu_cores")
def util_num_cpu_cores(server: Server, args: Args) -> Any:
    return int(server.backend.num_cpu_cores())


@op("util.total_memory")
def util_total_memory(server: Server, args: Args) -> Any:
    return int(server.backend.total_memory(server.device(args)))


@op("util.used_memory")
def util_used_memory(server: Server, args: Args) -> Any:
    return int(server.backend.used_memory(server.device(args)))


@op("util.utilisation")
def util_utilisation(server: Server, args: Args) -> Any:
    return float(server.backend.utilisation(server.device(args)))


@op("util.arrays_on_device")
def util_arrays_on_device(server: Server, args: Args) -> Any:
    found = server.backend.arrays_on_device(server.device(args, required=True))
    handles: list[str] = []
    for x in found:
        # An array already handed out keeps its oldest handle; any other gets a new one.
        known = [h for h, obj in server.objects.items()
                 if obj is x and h.startswith("array#")]
        handles.append(min(known, key=lambda h: int(h.split("#")[1])) if known
                       else server.new_handle("array", x))
    return {"count": len(handles), "arrays": handles}


# -- dtype.* ------------------------------------------------------------------------------

def dtype_or_array(server: Server, value: object, name: str) -> Any:
    """A dtype name is the library's dtype; any other string must be an array handle."""
    if isinstance(value, str) and value in DTYPES:
        return server.backend.dtype(value)
    if isinstance(value, str):
        return server.lookup(value, "array", name)
    raise ProtocolError("argument '%s' must be a dtype name or an array handle" % name,
                        "TypeError")


@op("dtype.can_cast")
def dtype_can_cast(server: Server, args: Args) -> Any:
    if "from_" not in args:
        raise ProtocolError("missing argument 'from_'")
    from_ = dtype_or_array(server, args["from_"], "from_")
    to = server.backend.dtype(str(dtype_arg(args, "to", required=True)))
    return bool(server.backend.can_cast(from_, to))


@op("dtype.result_type")
def dtype_result_type(server: Server, args: Args) -> Any:
    items = arg(args, "args", list)
    if not items:
        raise ProtocolError("argument 'args' must not be empty")
    objs = [dtype_or_array(server, v, "args[%d]" % i) for i, v in enumerate(items)]
    name = server.backend.dtype_name(server.backend.result_type(objs))
    if name not in DTYPES:
        raise Unsupported("the result dtype %s has no protocol name" % name)
    return name


@op("dtype.describe")
def dtype_describe(server: Server, args: Args) -> Any:
    name = arg(args, "name", str)
    dt, floating = server.backend.dtype_describe(name)
    canonical = server.backend.dtype_name(dt)
    if canonical not in DTYPES:
        raise Unsupported("the dtype %s has no protocol name" % canonical)
    return {"name": canonical, "is_floating_point": bool(floating)}


@op("array.tril")
def array_tril(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.tril(server.array(args, "x"), int_arg(args, "k", 0)))


@op("array.triu")
def array_triu(server: Server, args: Args) -> Any:
    return server.reply_array(server.backend.triu(server.array(args, "x"), int_arg(args, "k", 0)))


# -- global.* (OneFlow's global arrays; spec/protocol.md, "global.*") ------------------------
# The arguments are decoded and checked for their JSON form here; what they mean (duplicate
# ranks, ragged rows, ranks beyond the world, split dims) is the library's to judge.

GLOBAL_KEYS = ("value", "locals", "placement", "sbp")


def is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def placement_of(value: object, where: str) -> PlacementArg:
    """{"type": str, "ranks": [int...] or [[int...]...]}."""
    if not isinstance(value, dict):
        raise ProtocolError("%s must be a placement {\"type\", \"ranks\"}" % where, "TypeError")
    for key in value:
        if key not in ("type", "ranks"):
            raise ProtocolError("%s: a placement has no '%s'" % (where, key), "TypeError")
    type_ = arg(value, "type", str)
    return PlacementArg(type_, ranks_of(value.get("ranks"), where + ".ranks"))


def ranks_of(ranks: object, where: str) -> list[Any]:
    if not isinstance(ranks, list):
        raise ProtocolError("%s must be a list of ranks or of lists of ranks" % where,
                            "TypeError")
    flat = all(is_int(r) for r in ranks)
    rows = all(isinstance(r, list) and all(is_int(v) for v in r) for r in ranks)
    if not (flat or rows):
        raise ProtocolError("%s must be a list of integers or a list of lists of integers"
                            % where, "TypeError")
    return ranks


def sbp_of(value: object, where: str) -> Sbp:
    if value in ("broadcast", "partial_sum"):
        return Sbp(str(value))
    if isinstance(value, dict) and set(value) == {"split"} and is_int(value["split"]):
        return Sbp("split", value["split"])
    raise ProtocolError("%s must be {\"split\": dim}, \"broadcast\" or \"partial_sum\""
                        % where, "TypeError")


def sbp_list(value: object, where: str) -> list[Sbp]:
    if not isinstance(value, list) or not 1 <= len(value) <= 2:
        raise ProtocolError("%s must be a list of 1 or 2 sbp values" % where, "TypeError")
    return [sbp_of(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]


def global_of(value: object, where: str) -> GlobalArg:
    """global.make's first four arguments, as global.make takes them or as one object."""
    if not isinstance(value, dict):
        raise ProtocolError("%s must be a global array object" % where, "TypeError")
    for key in value:
        if key not in GLOBAL_KEYS:
            raise ProtocolError("%s: a global array has no '%s'" % (where, key), "TypeError")
    if ("value" in value) == ("locals" in value):
        raise ProtocolError("%s: give exactly one of 'value' and 'locals'" % where)
    for key in ("placement", "sbp"):
        if key not in value:
            raise ProtocolError("%s: missing '%s'" % (where, key))
    whole = None
    pieces = None
    if "value" in value:
        whole = typed_of(value["value"], where + ".value")
    else:
        items = value["locals"]
        if not isinstance(items, list) or not items:
            raise ProtocolError("%s.locals must be a non-empty list of typed arrays" % where,
                                "TypeError")
        pieces = [typed_of(v, "%s.locals[%d]" % (where, i)) for i, v in enumerate(items)]
    return GlobalArg(placement_of(value["placement"], where + ".placement"),
                     sbp_list(value["sbp"], where + ".sbp"), whole, pieces)


def typed_of(value: object, where: str) -> TypedArray:
    if not isinstance(value, dict):
        raise ProtocolError("%s must be a typed array" % where, "TypeError")
    return TypedArray.decode(value, where)


def piece_json(piece: Piece | None) -> Any:
    if piece is None:
        return None
    dtype, shape, flat = piece
    if dtype not in DTYPES:
        raise Unsupported("the dtype %s has no protocol name" % dtype)
    return TypedArray(dtype, shape, flat).encode()


def global_result(info: GlobalInfo) -> PerRank:
    """global.make's result for each rank: the same but for `local`."""
    common = {"dtype": info.dtype, "shape": list(info.shape), "placement": info.placement,
              "sbp": info.sbp, "value": piece_json(info.value)}
    return PerRank({**common, "local": piece_json(local)} for local in info.locals)


@op("global.placement")
def global_placement(server: Server, args: Args) -> Any:
    type_ = arg(args, "type", str)
    all_ = args.get("all")
    if all_ is not None and all_ not in ("placement.all", "env.all_device_placement"):
        raise ProtocolError("argument 'all' must be \"placement.all\" or "
                            "\"env.all_device_placement\"", "TypeError")
    if all_ is None and "ranks" not in args:
        raise ProtocolError("missing argument 'ranks' (or 'all')")
    p = None if all_ is not None else PlacementArg(type_, ranks_of(args["ranks"], "ranks"))
    return server.backend.placement_describe(p, type_, all_)


@op("global.placement_equal")
def global_placement_equal(server: Server, args: Args) -> Any:
    for name in ("a", "b"):
        if name not in args:
            raise ProtocolError("missing argument '%s'" % name)
    a = placement_of(args["a"], "a")
    b = placement_of(args["b"], "b")
    return bool(server.backend.placement_equal(a, b))


@op("global.sbp")
def global_sbp(server: Server, args: Args) -> Any:
    if "sbp" not in args:
        raise ProtocolError("missing argument 'sbp'")
    return str(server.backend.sbp_describe(sbp_of(args["sbp"], "sbp")))


@op("global.make")
def global_make(server: Server, args: Args) -> Any:
    x = global_of({k: v for k, v in args.items() if k != "to"}, "arguments")
    to = sbp_list(args["to"], "to") if args.get("to") is not None else None
    b = server.backend
    return global_result(b.global_describe(b.global_make(x, to)))


@op("global.binary")
def global_binary(server: Server, args: Args) -> Any:
    fn = choice(args, "fn", GLOBAL_BINARY)
    for name in ("x1", "x2"):
        if name not in args:
            raise ProtocolError("missing argument '%s'" % name)
    b = server.backend
    y = b.global_binary(fn, global_of(args["x1"], "x1"), global_of(args["x2"], "x2"))
    return global_result(b.global_describe(y))


@op("global.sum")
def global_sum(server: Server, args: Args) -> Any:
    if "x" not in args:
        raise ProtocolError("missing argument 'x'")
    axis = int_arg(args, "axis", None) if args.get("axis") is not None else None
    b = server.backend
    return global_result(b.global_describe(b.global_sum(global_of(args["x"], "x"), axis)))


def make_server(backend: Backend) -> Server:
    """A protocol server for backend with every op of this module registered
    (and of call.py, the generic call, which registers itself on import)."""
    from . import call  # noqa: F401
    return Server(backend)

# array.exchange (DLPack with a peer library) and the dlpack-exchange-PEER features it claims.
from . import exchange as exchange  # noqa: E402
