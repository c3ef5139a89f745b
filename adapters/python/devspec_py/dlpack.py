"""Reading what an array's __dlpack__ exports, for the array.dlpack op: the device of the
capsule's tensor, its IS_COPIED flag and whether it shares the array's memory. The capsule
is only read, never consumed: its producer's destructor frees it. Standard-library only
(ctypes over the DLPack C structs, as dlpack.h lays them out, versions 0.x and 1.x).
"""

from __future__ import annotations

import ctypes
from typing import Any

# DLPack's flag bits (dlpack.h, DLPACK_FLAG_BITMASK_*).
FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
# The version the consumer asks for (the standard's consumers pass max_version=(1, 0)).
MAX_VERSION = (1, 0)


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    _fields_ = [("version", _Version), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", _Tensor)]


class _Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class CapsuleError(Exception):
    """The object __dlpack__ returned is not a DLPack capsule this reader knows."""


def read_capsule(capsule: Any) -> dict[str, Any]:
    """{"device": (type, id), "data": address of the first element, "flags": int or None}.
    flags is None for an unversioned capsule ("dltensor"), which carries none."""
    try:
        name = _get_name(capsule)
    except (TypeError, ValueError) as e:
        raise CapsuleError("__dlpack__ returned %s, not a capsule" % type(capsule).__name__) from e
    if name == b"dltensor_versioned":
        mt = ctypes.cast(_get_pointer(capsule, name), ctypes.POINTER(_ManagedVersioned)).contents
        flags: int | None = int(mt.flags)
        t = mt.dl_tensor
    elif name == b"dltensor":
        t = ctypes.cast(_get_pointer(capsule, name), ctypes.POINTER(_Managed)).contents.dl_tensor
        flags = None
    else:
        raise CapsuleError("__dlpack__ returned a capsule named %r, not a DLPack tensor" % name)
    data = (t.data or 0) + int(t.byte_offset)
    return {"device": (int(t.device.device_type), int(t.device.device_id)), "data": data,
            "flags": flags}


def export(x: Any, kw: dict[str, Any]) -> dict[str, Any]:
    """x.__dlpack__(max_version=(1, 0), **kw), described for the protocol: the exported
    device, the IS_COPIED flag (None when the capsule is unversioned) and whether the data
    is the memory a plain export shares (x.__dlpack__() with no arguments)."""
    got = read_capsule(x.__dlpack__(max_version=MAX_VERSION, **kw))
    try:
        plain = read_capsule(x.__dlpack__(max_version=MAX_VERSION))
    except TypeError:
        plain = read_capsule(x.__dlpack__())
    flags = got["flags"]
    return {"device": list(got["device"]),
            "copied": None if flags is None else bool(flags & FLAG_IS_COPIED),
            "shares_memory": got["data"] == plain["data"]}


# DLPack 1.3's C exchange API (DEV-DLP-23): a capsule named "dlpack_exchange_api" on an array
# type, pointing at a DLPackExchangeAPI (devspec_dlpack.h): the header (version, prev_api),
# then five function pointers, of which only dltensor_from_py_object_no_sync may be NULL.
EXCHANGE_API_FUNCTIONS = ("managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
                          "managed_tensor_to_py_object_no_sync",
                          "dltensor_from_py_object_no_sync", "current_work_stream")
EXCHANGE_API_OPTIONAL = ("dltensor_from_py_object_no_sync",)


class _ExchangeAPI(ctypes.Structure):
    _fields_ = [("version", _Version), ("prev_api", ctypes.c_void_p),
                *[(name, ctypes.c_void_p) for name in EXCHANGE_API_FUNCTIONS]]


def read_exchange_api(array_type: type) -> dict[str, Any]:
    """What array_type.__dlpack_c_exchange_api__ holds: {"present": False}, or the capsule's
    name, the table's version and whether every required function is set."""
    capsule = getattr(array_type, "__dlpack_c_exchange_api__", None)
    if capsule is None:
        return {"present": False}
    try:
        name = _get_name(capsule)
    except (TypeError, ValueError) as e:
        raise CapsuleError("__dlpack_c_exchange_api__ is %s, not a capsule"
                           % type(capsule).__name__) from e
    table = ctypes.cast(_get_pointer(capsule, name), ctypes.POINTER(_ExchangeAPI)).contents
    complete = all(getattr(table, f) for f in EXCHANGE_API_FUNCTIONS
                   if f not in EXCHANGE_API_OPTIONAL)
    return {"present": True, "capsule": (name or b"").decode("utf-8", "replace"),
            "version": [int(table.version.major), int(table.version.minor)],
            "complete": bool(complete)}
