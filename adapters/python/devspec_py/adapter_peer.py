"""A C adapter as a peer of array.exchange: its in-process shared object (built on the shim:
refarray's, the template's, any vendor's) loaded into the adapter's own process and driven
through the protocol, its one entry point devspec_adapter_call. Tensors cross as DLPack's
DLManagedTensorVersioned by address, with the two ops a session asks for at hello
(`dlpack_addresses`): array.dlpack_export_address hands over the tensor the C library's
dlpack_export made, array.dlpack_import_address gives its dlpack_import a tensor of the
library under test. So the C adapter's own DLPack slots meet another library's arrays.

Ownership is DLPack's, as in refarray_peer.py: a capsule a consumer renamed ("used_...") is
the consumer's; one left as made (a refusal) has its tensor deleted here, once, when the
exchange ends (settle). A consumer that asks for no max_version gets an unversioned capsule
whose deleter deletes the versioned tensor it wraps. The peer `c:refarray` is refarray's
adapter: DEVSPEC_C_PEER_REFARRAY when set, else $DEVSPEC_BUILD/adapters/refarray, else the
source tree's build, else, installed, PREFIX/LIBDIR/devspec; when it does not load, the peer
is not there and nothing is claimed.
"""

from __future__ import annotations

import ctypes
import json
import os
from pathlib import Path
from typing import Any

from .dlpack import _Managed, _ManagedVersioned
from .refarray_peer import (
    UNVERSIONED,
    USED_UNVERSIONED,
    USED_VERSIONED,
    VERSIONED,
    Deleter,
    _api,
    _sanitizer_missing,
)

KDL_CPU = 1
_KINDS = {"BufferError": BufferError, "ValueError": ValueError, "TypeError": TypeError,
          "MemoryError": MemoryError, "IndexError": IndexError,
          "NotImplementedError": NotImplementedError, "OverflowError": OverflowError}


class AdapterPeer:
    """One C adapter in this process: a session of its own, opened with dlpack_addresses."""

    def __init__(self, path: Path) -> None:
        lib = ctypes.CDLL(str(path))
        self.call = lib.devspec_adapter_call
        self.call.restype = ctypes.c_void_p
        self.call.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                              ctypes.POINTER(ctypes.c_size_t)]
        self.free = lib.devspec_adapter_free
        self.free.restype, self.free.argtypes = None, [ctypes.c_void_p]
        self.lib, self.next_id = lib, 1
        self.pending: list[Any] = []  # capsules made by an exchange until settle()
        self.keep: dict[int, Any] = {}  # unversioned wrappers and their deleters, by address
        self.hello()

    def hello(self) -> None:
        """Starts the session afresh, asking for the address ops."""
        hello = self.request("hello", {"protocol": 1, "dlpack_addresses": True})
        self.name = str(hello["library"]["name"])
        self.version = str(hello["library"]["version"])
        self.devices: list[str] = list(hello["devices"])
        self.dl_devices: dict[tuple[int, int], str] = {}

    def request(self, op: str, args: dict[str, Any] | None = None) -> Any:
        """The op's result; the adapter's error raised as the exception its kind names."""
        line = json.dumps({"id": self.next_id, "op": op, "args": args or {}}).encode()
        self.next_id += 1
        n = ctypes.c_size_t()
        ptr = self.call(line, len(line), ctypes.byref(n))
        try:
            reply = json.loads(ctypes.string_at(ptr, n.value))
        finally:
            self.free(ptr)
        if reply.get("ok"):
            return reply.get("result")
        err = reply.get("error") or {}
        kind, message = str(err.get("kind")), str(err.get("message"))
        raise _KINDS.get(kind, RuntimeError)(message if kind in _KINDS else
                                            "%s: %s" % (kind, message))

    def device_for(self, dl_device: tuple[int, int] | None) -> str:
        """The adapter's device handle for a DLPack device (None: its default device, which
        must be host memory); ValueError for one it has not."""
        if not self.dl_devices:
            for h in self.devices:
                x = self.request("array.create", {"fn": "zeros", "shape": [1], "device": h})
                pair = tuple(self.request("array.dlpack_device", {"array": x}))
                self.dl_devices.setdefault((int(pair[0]), int(pair[1])), h)
            self.request("reset")
        want = (KDL_CPU, 0) if dl_device is None else (int(dl_device[0]), int(dl_device[1]))
        if want not in self.dl_devices:
            raise ValueError("the %s adapter has no device for DLPack device %r (its devices: "
                             "%s)" % (self.name, want, sorted(self.dl_devices)))
        return self.dl_devices[want]

    def begin(self) -> None:
        """Starts an exchange: the handles of the last one are dropped (an array a consumer
        took through DLPack lives on in its tensor)."""
        self.pending.clear()
        self.request("reset")

    def array(self, typed: dict[str, Any], device: str) -> AdapterArray:
        return AdapterArray(self, self.request("array.asarray", {"obj": typed,
                                                                 "device": device}))

    def from_dlpack(self, x: Any, device: str | None = None) -> AdapterArray:
        """The C library's dlpack_import of any producer's tensor, with device= when a device
        handle is given: max_version=(1, 0) first, then without it for a producer older than
        DLPack 1.0 (DEV-DLP-13)."""
        try:
            capsule = x.__dlpack__(max_version=(1, 0))
        except TypeError:
            capsule = x.__dlpack__()
        if _api.PyCapsule_IsValid(capsule, VERSIONED):
            ptr = _api.PyCapsule_GetPointer(capsule, VERSIONED)
            _api.PyCapsule_SetName(capsule, USED_VERSIONED)
        elif _api.PyCapsule_IsValid(capsule, UNVERSIONED):
            old_ptr = _api.PyCapsule_GetPointer(capsule, UNVERSIONED)
            _api.PyCapsule_SetName(capsule, USED_UNVERSIONED)
            ptr = self._versioned(old_ptr)
        else:
            raise TypeError("from_dlpack: __dlpack__ gave no DLPack capsule")
        args = {"address": str(ptr)}
        if device is not None:
            args["device"] = device
        return AdapterArray(self, self.request("array.dlpack_import_address", args))

    def _versioned(self, old_ptr: int) -> int:
        """A versioned tensor for an unversioned one (the same DLTensor), whose deleter calls
        the old one's: the C library deletes what it takes exactly once."""
        old = _Managed.from_address(old_ptr)
        v = _ManagedVersioned()
        v.version.major, v.version.minor, v.dl_tensor = 1, 0, old.dl_tensor
        addr = ctypes.addressof(v)

        def delete(_: Any) -> None:
            if old.deleter:
                Deleter(old.deleter)(old_ptr)
            self.keep.pop(addr, None)

        cb = Deleter(delete)
        v.deleter = ctypes.cast(cb, ctypes.c_void_p).value
        self.keep[addr] = (v, cb)
        return addr

    def settle(self) -> None:
        """Deletes the tensor of every capsule of this exchange that no consumer took."""
        for capsule in self.pending:
            for name, struct in ((VERSIONED, _ManagedVersioned), (UNVERSIONED, _Managed)):
                if _api.PyCapsule_IsValid(capsule, name):
                    ptr = _api.PyCapsule_GetPointer(capsule, name)
                    _api.PyCapsule_SetName(capsule, b"used_" + name)
                    deleter = struct.from_address(ptr).deleter
                    if deleter:
                        Deleter(deleter)(ptr)
        self.pending.clear()


class AdapterArray:
    """One array of the C adapter's (a handle), with the array API's DLPack methods."""

    def __init__(self, peer: AdapterPeer, handle: str) -> None:
        self.peer, self.handle = peer, handle

    @property
    def shape(self) -> tuple[int, ...]:
        d = self.peer.request("array.describe", {"array": self.handle})
        return tuple(int(n) for n in d["shape"])

    def read(self) -> dict[str, Any]:
        """The elements as the adapter writes them: a typed array."""
        result: dict[str, Any] = self.peer.request("array.read", {"array": self.handle})
        return result

    def __dlpack_device__(self) -> tuple[int, int]:
        t, i = self.peer.request("array.dlpack_device", {"array": self.handle})
        return (int(t), int(i))

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: bool | None = None) -> Any:
        args: dict[str, Any] = {"array": self.handle, "copy": copy, "stream": stream}
        if dl_device is not None:
            args["dl_device"] = [int(dl_device[0]), int(dl_device[1])]
        ptr = int(self.peer.request("array.dlpack_export_address", args)["address"])
        if max_version is not None and max_version[0] >= 1:
            capsule = _api.PyCapsule_New(ptr, VERSIONED, None)
        else:
            capsule = _api.PyCapsule_New(self._unversioned(ptr), UNVERSIONED, None)
        self.peer.pending.append(capsule)
        return capsule

    def _unversioned(self, ptr: int) -> int:
        """An unversioned tensor for a consumer without max_version: the same DLTensor, its
        deleter deleting the versioned one."""
        v = _ManagedVersioned.from_address(ptr)
        m = _Managed()
        m.dl_tensor = v.dl_tensor
        addr = ctypes.addressof(m)
        keep = self.peer.keep

        def delete(_: Any) -> None:
            if v.deleter:
                Deleter(v.deleter)(ptr)
            keep.pop(addr, None)

        cb = Deleter(delete)
        m.deleter = ctypes.cast(cb, ctypes.c_void_p).value
        keep[addr] = (m, cb)
        return addr


def library_paths(name: str) -> list[Path]:
    """Where the C adapter `name` (refarray) may be, in the order tried."""
    env = os.environ.get("DEVSPEC_C_PEER_" + name.upper())
    if env:
        return [Path(env)]
    so = "devspec_adapter_%s.so" % name
    if os.environ.get("DEVSPEC_BUILD"):
        return [Path(os.environ["DEVSPEC_BUILD"]) / "adapters" / name / so]
    up = Path(__file__).resolve().parent.parents
    tree = [up[2] / "build" / "adapters" / name / so] if len(up) > 2 else []
    # Installed, this file is PREFIX/share/devspec/adapters/python/devspec_py/ and the C
    # adapters are PREFIX/LIBDIR/devspec/ (LIBDIR lib, lib64 or lib/<multiarch>).
    prefix = up[4] if len(up) > 4 else None
    installed = (sorted(prefix.glob("lib*/devspec/" + so)) +
                 sorted(prefix.glob("lib/*/devspec/" + so))) if prefix else []
    return tree + installed


_PEERS: dict[str, AdapterPeer | None] = {}


def peer(name: str, path: Path | None = None) -> AdapterPeer | None:
    """The C adapter `name` in this process (from `path` when given), or None when it is not
    to be found or does not load."""
    if name not in _PEERS:
        found = None
        for p in [path] if path is not None else library_paths(name):
            if p.is_file() and not _sanitizer_missing(p):
                try:
                    found = AdapterPeer(p)
                    break
                except (OSError, AttributeError, RuntimeError, ValueError, KeyError):
                    continue
        _PEERS[name] = found
    return _PEERS[name]
