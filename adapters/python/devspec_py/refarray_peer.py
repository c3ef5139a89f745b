"""refarray as a peer of array.exchange: refarray's shared library, driven through ctypes in
the adapter's own process, so that arrays cross between refarray and the library under test
(NumPy, torch, JAX, ...) through real DLPack capsules, both ways.

refarray's arrays get __dlpack__ (a versioned capsule for a consumer that passes max_version,
an unversioned one otherwise, as the array API asks of a producer) and __dlpack_device__
((kDLCPU, 0) for cpu, (kDLOpenCL, N) for gpu:N); from_dlpack takes any producer's capsule
through ra_from_dlpack_tensor. Ownership is DLPack's: a capsule the consumer renamed
("used_...") is the consumer's, whose deleter call releases refarray's array; one it left
as made (a refusal) is deleted here, exactly once, when the exchange ends
(Peer.settle). The library is DEVSPEC_REFARRAY_LIB when set, else the one in
$DEVSPEC_BUILD/reference when that is set, else the source tree's build/reference or the
installation's lib/ (the adapter's files are under share/devspec); when none loads, the peer
is not there and nothing is claimed.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any

from .dlpack import _Managed, _ManagedVersioned, _Version

RA_OK = 0
RA_DEVICE_CPU, RA_DEVICE_GPU = 1, 2
KDL_CPU, KDL_OPENCL = 1, 4
COPY = {None: 1, True: 2, False: 3}  # ra_copy: RA_COPY_IF_NEEDED, ALWAYS, NEVER
VERSIONED, UNVERSIONED = b"dltensor_versioned", b"dltensor"
USED_VERSIONED, USED_UNVERSIONED = b"used_dltensor_versioned", b"used_dltensor"


class Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("index", ctypes.c_int32)]


class Opts(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("dtype", ctypes.c_int),
                ("device", ctypes.c_char_p), ("device_value", ctypes.c_void_p),
                ("copy", ctypes.c_int)]


# DLPack's managed tensors, as dlpack.py (the capsule reader of array.dlpack) lays them out.
Versioned, Unversioned = _ManagedVersioned, _Managed


Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_SIGNATURES: list[tuple[str, Any, list[Any]]] = [
    ("ra_ctx_create", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
    ("ra_ctx_message", ctypes.c_char_p, [ctypes.c_void_p]),
    ("ra_status_kind", ctypes.c_char_p, [ctypes.c_int]),
    ("ra_version", ctypes.c_char_p, []),
    ("ra_dtype_name", ctypes.c_char_p, [ctypes.c_int]),
    ("ra_asarray_buffer", ctypes.c_int,
     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
      ctypes.c_void_p, ctypes.c_void_p]),
    ("ra_array_read", ctypes.c_int,
     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    ("ra_array_nbytes", ctypes.c_size_t, [ctypes.c_void_p]),
    ("ra_array_dtype", ctypes.c_int, [ctypes.c_void_p]),
    ("ra_array_ndim", ctypes.c_size_t, [ctypes.c_void_p]),
    ("ra_array_shape", ctypes.POINTER(ctypes.c_int64), [ctypes.c_void_p]),
    ("ra_array_release", None, [ctypes.c_void_p]),
    ("ra_array_dlpack_device", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
    ("ra_to_dlpack", ctypes.c_int,
     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]),
    ("ra_to_dlpack_unversioned", ctypes.c_int,
     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]),
    ("ra_from_dlpack_tensor", ctypes.c_int,
     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
    ("ra_util_arrays_on_device", ctypes.c_int,
     [ctypes.c_void_p, Device, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    ("ra_info_devices", ctypes.c_int,
     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
]


def library_paths() -> list[Path]:
    """Where refarray's shared library may be, in the order tried. A library or build folder
    the user names is the only place looked at: a sanitizer build named by DEVSPEC_BUILD that
    cannot load here means no peer, never another build's library found beside it."""
    if os.environ.get("DEVSPEC_REFARRAY_LIB"):
        return [Path(os.environ["DEVSPEC_REFARRAY_LIB"])]
    if os.environ.get("DEVSPEC_BUILD"):
        return [Path(os.environ["DEVSPEC_BUILD"]) / "reference" / "librefarray.so"]
    here = Path(__file__).resolve().parent  # .../adapters/python/devspec_py
    paths = []
    up = here.parents
    if len(up) > 2:  # the source tree: adapters/python/devspec_py
        paths.append(up[2] / "build" / "reference" / "librefarray.so")
    if len(up) > 4:  # an installation: PREFIX/share/devspec/adapters/python/devspec_py
        paths.append(up[4] / "lib" / "librefarray.so")
    return paths


class RefArrayError(Exception):
    """A refarray status as the exception kind refarray names for it (BufferError, ...)."""


def _raise(peer: Peer, status: int) -> None:
    kind = (peer.lib.ra_status_kind(status) or b"RuntimeError").decode()
    message = peer.message()
    exc = {"BufferError": BufferError, "ValueError": ValueError, "TypeError": TypeError,
           "MemoryError": MemoryError}.get(kind)
    raise exc(message) if exc else RuntimeError("%s: %s" % (kind, message))


class Peer:
    """refarray in this process: one context for the process's life (the arrays a consumer
    holds through DLPack may outlive any exchange)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        for name, res, args in _SIGNATURES:
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        ctx = ctypes.c_void_p()
        st = lib.ra_ctx_create(None, ctypes.byref(ctx))
        if st != RA_OK:
            raise RuntimeError("refarray's context: status %d" % st)
        self.ctx = ctx
        devs = (Device * 64)()
        n = ctypes.c_size_t()
        lib.ra_info_devices(ctx, devs, 64, ctypes.byref(n))
        self.devices = [(d.type, d.index) for d in devs[: min(n.value, 64)]]
        self.dtypes = {}
        for code in range(1, 64):
            name = lib.ra_dtype_name(code)
            if name is None:
                break
            self.dtypes[name.decode()] = code
        # capsules made here until settle(), each with whether its export made an array, and
        # the arrays alive before the first of them
        self.pending: list[tuple[Any, bool]] = []
        self.alive_before = 0
        self.version = (lib.ra_version() or b"unknown").decode()

    def message(self) -> str:
        return (self.lib.ra_ctx_message(self.ctx) or b"").decode()

    def alive(self) -> int:
        """The arrays of refarray's alive in this process (every device)."""
        total = 0
        for t, i in self.devices:
            n = ctypes.c_size_t()
            if self.lib.ra_util_arrays_on_device(self.ctx, Device(t, i), None, 0,
                                                 ctypes.byref(n)) == RA_OK:
                total += n.value
        return total

    def device_string(self, dl_device: tuple[int, int] | None) -> str:
        """refarray's device for a DLPack device (None: cpu); ValueError for one it has not."""
        if dl_device is None or tuple(dl_device) == (KDL_CPU, 0):
            return "cpu"
        if dl_device[0] == KDL_OPENCL and (RA_DEVICE_GPU, dl_device[1]) in self.devices:
            return "gpu:%d" % dl_device[1]
        raise ValueError("refarray has no device for DLPack device %r (its devices: %s)"
                         % (tuple(dl_device), ", ".join(
                             "cpu" if t == RA_DEVICE_CPU else "gpu:%d" % i
                             for t, i in self.devices)))

    def has_opencl(self) -> bool:
        return any(t == RA_DEVICE_GPU for t, _ in self.devices)

    def array(self, dtype: str, shape: tuple[int, ...], data: bytes,
              device: str = "cpu") -> RefArray:
        """A refarray array of dtype and shape holding data (C order, native bytes)."""
        code = self.dtypes.get(dtype)
        if code is None:
            raise TypeError("refarray has no dtype %s" % dtype)
        buf = ctypes.create_string_buffer(data, max(len(data), 1))
        cshape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        opts = Opts(ctypes.sizeof(Opts), 0, device.encode(), None, 0)
        out = ctypes.c_void_p()
        st = self.lib.ra_asarray_buffer(self.ctx, buf, code, cshape, len(shape),
                                        ctypes.byref(opts), ctypes.byref(out))
        if st != RA_OK:
            _raise(self, st)
        return RefArray(self, out)

    def from_dlpack(self, x: Any) -> RefArray:
        """refarray's from_dlpack of any producer: max_version=(1, 0) first, then without it
        for a producer older than DLPack 1.0 (DEV-DLP-13); the tensor is taken either way."""
        try:
            capsule = x.__dlpack__(max_version=(1, 0))
        except TypeError:
            capsule = x.__dlpack__()
        return self.take(capsule)

    def take(self, capsule: Any) -> RefArray:
        out = ctypes.c_void_p()
        if _api.PyCapsule_IsValid(capsule, VERSIONED):
            ptr = _api.PyCapsule_GetPointer(capsule, VERSIONED)
            _api.PyCapsule_SetName(capsule, USED_VERSIONED)
            st = self.lib.ra_from_dlpack_tensor(self.ctx, ptr, None, ctypes.byref(out))
        elif _api.PyCapsule_IsValid(capsule, UNVERSIONED):
            ptr = _api.PyCapsule_GetPointer(capsule, UNVERSIONED)
            _api.PyCapsule_SetName(capsule, USED_UNVERSIONED)
            old = Unversioned.from_address(ptr)
            v = Versioned(_Version(1, 0), None, None, 0, old.dl_tensor)  # no deleter: old's, below
            st = self.lib.ra_from_dlpack_tensor(self.ctx, ctypes.byref(v), None,
                                                ctypes.byref(out))
            if old.deleter:
                Deleter(old.deleter)(ptr)
        else:
            raise TypeError("from_dlpack: __dlpack__ gave no DLPack capsule")
        if st != RA_OK:
            _raise(self, st)
        return RefArray(self, out)

    def settle(self) -> str | None:
        """Deletes the tensor of every capsule made here that no consumer took (a refusal):
        its deleter runs here, once; a consumed one is its consumer's. A consumer that called
        the deleter of a tensor whose capsule it left unconsumed (torch 1.13 refusing a
        kDLOpenCL tensor does) would make this a second deletion: when every capsule is
        unconsumed and each held a copy of its own, the arrays alive tell whether the copies
        are already gone; then none is deleted again and the return value says so."""
        unconsumed = [(c, made) for c, made in self.pending
                      if _api.PyCapsule_IsValid(c, VERSIONED)
                      or _api.PyCapsule_IsValid(c, UNVERSIONED)]
        note = None
        if (unconsumed and len(unconsumed) == len(self.pending)
                and all(made for _, made in unconsumed)
                and self.alive() < self.alive_before + len(unconsumed)):
            note = ("the consumer called the deleter of %d DLPack tensor(s) whose capsule it left "
                    "unconsumed (DLPack: a consumer that takes a tensor renames its capsule; "
                    "one it refuses it leaves alone): the producer would have deleted them "
                    "twice" % (self.alive_before + len(unconsumed) - self.alive()))
            for c, _ in unconsumed:  # gone already: mark them so that no one deletes again
                _api.PyCapsule_SetName(c, USED_VERSIONED if _api.PyCapsule_IsValid(
                    c, VERSIONED) else USED_UNVERSIONED)
            unconsumed = []
        for capsule, _ in unconsumed:
            for name, struct in ((VERSIONED, Versioned), (UNVERSIONED, Unversioned)):
                if _api.PyCapsule_IsValid(capsule, name):
                    ptr = _api.PyCapsule_GetPointer(capsule, name)
                    _api.PyCapsule_SetName(capsule, b"used_" + name)
                    deleter = struct.from_address(ptr).deleter
                    if deleter:
                        Deleter(deleter)(ptr)
        self.pending.clear()
        return note

    def begin(self) -> None:
        """Marks the start of an exchange (settle ends it)."""
        self.pending.clear()


class RefArray:
    """One array of refarray's, with the array API's DLPack methods."""

    def __init__(self, peer: Peer, ptr: ctypes.c_void_p) -> None:
        self.peer, self.ptr = peer, ptr

    def __del__(self) -> None:
        self.peer.lib.ra_array_release(self.ptr)

    @property
    def shape(self) -> tuple[int, ...]:
        lib = self.peer.lib
        ndim = lib.ra_array_ndim(self.ptr)
        shape_p = lib.ra_array_shape(self.ptr)
        return tuple(shape_p[k] for k in range(ndim)) if ndim else ()

    def read(self) -> tuple[str, tuple[int, ...], bytes]:
        """dtype name, shape and the elements' bytes (C order)."""
        lib = self.peer.lib
        dtype = (lib.ra_dtype_name(lib.ra_array_dtype(self.ptr)) or b"").decode()
        ndim = lib.ra_array_ndim(self.ptr)
        shape_p = lib.ra_array_shape(self.ptr)
        shape = tuple(shape_p[k] for k in range(ndim)) if ndim else ()
        n = lib.ra_array_nbytes(self.ptr)
        buf = ctypes.create_string_buffer(max(n, 1))
        st = lib.ra_array_read(self.peer.ctx, self.ptr, buf, n)
        if st != RA_OK:
            _raise(self.peer, st)
        return dtype, shape, buf.raw[:n]

    def __dlpack_device__(self) -> tuple[int, int]:
        t, i = ctypes.c_int32(), ctypes.c_int32()
        self.peer.lib.ra_array_dlpack_device(self.ptr, ctypes.byref(t), ctypes.byref(i))
        return (t.value, i.value)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: bool | None = None) -> Any:
        if stream is not None and stream != -1:
            # refarray's OpenCL queues are no stream a consumer can name by an integer
            raise BufferError("refarray takes stream=None only (got %r)" % (stream,))
        dev = (ctypes.c_int32 * 2)(*dl_device) if dl_device is not None else None
        out = ctypes.c_void_p()
        versioned = max_version is not None and max_version[0] >= 1
        lib = self.peer.lib
        fn = lib.ra_to_dlpack if versioned else lib.ra_to_dlpack_unversioned
        before = self.peer.alive()
        if not self.peer.pending:  # the first export of an exchange: settle's baseline
            self.peer.alive_before = before
        st = fn(self.peer.ctx, self.ptr, dev, COPY[copy], ctypes.byref(out))
        if st != RA_OK:
            _raise(self.peer, st)
        capsule = _api.PyCapsule_New(out, VERSIONED if versioned else UNVERSIONED, None)
        self.peer.pending.append((capsule, self.peer.alive() > before))
        return capsule


_PEER: list[Peer | None] = []


def _sanitizer_missing(path: Path) -> bool:
    """Whether the library was built with AddressSanitizer or ThreadSanitizer whose runtime
    this process has not loaded first: loading it then would end the process, not fail."""
    try:
        data = path.read_bytes()
        maps = Path("/proc/self/maps").read_text(errors="replace")
    except OSError:
        return False
    return any(lib in data and lib.decode() not in maps for lib in (b"libasan.so", b"libtsan.so"))


def peer() -> Peer | None:
    """refarray in this process, or None when its library is not to be found or loaded."""
    if not _PEER:
        found = None
        for path in library_paths():
            if path.is_file() and not _sanitizer_missing(path):
                try:
                    found = Peer(ctypes.CDLL(str(path)))
                    break
                except (OSError, AttributeError, RuntimeError):
                    continue
        _PEER.append(found)
    return _PEER[0]
