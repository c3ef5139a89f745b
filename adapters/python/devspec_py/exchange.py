"""array.exchange: an array crossing through DLPack between the library under test and a peer
library in the same process (NumPy, torch, JAX), both ways, and the features that say which
peers this interpreter can reach (dlpack-exchange-PEER).

to_peer: the peer's from_dlpack takes the library's array (through a proxy that asks the
producer for the request's dl_device and copy); the result is what the peer holds: its
__dlpack_device__() and its values. from_peer: the peer makes an array of the same values on
its cpu, the library's from_dlpack takes it, and the result adds the library's new array.
A refusal by either side is that library's error (origin library); a peer that does not
import here is NotImplementedError with lacks "peer NAME".

refarray is a peer too: its shared library through ctypes (refarray_peer.py), with real
DLPack capsules both ways; peer_device (from_peer) puts its array on one of its OpenCL
devices, (kDLOpenCL, N), so that a library's from_dlpack meets device memory it cannot hold.
With to_peer, peer_device is the device= of the peer's from_dlpack (the peer c:refarray only).

A C adapter is a peer as `c:NAME` (`c:refarray`: refarray's adapter): its in-process shared
object driven through the protocol in this process (adapter_peer.py), so that the C
adapter's own DLPack slots (dlpack_export, dlpack_import) take and give the library's arrays.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import adapter_peer, refarray_peer
from .args import Args, arg, choice
from .errors import AdapterLimit, Lacks, LibraryError, ProtocolError
from .protocol import MAX_READ
from .server import OPS, Server, op
from .values import TypedArray

PEERS = ("numpy", "torch", "jax")
C_PEERS = ("c:refarray",)  # C adapters, by their names in adapters.json


def _peer_module(name: str) -> Any:
    """The peer's module, or None when this interpreter cannot import it. The peer is taken
    as it is configured: the adapter never changes a library's settings (JAX's 64-bit mode
    among them, which would change the library under test too when that is JAX)."""
    try:
        return importlib.import_module("jax.numpy" if name == "jax" else name)
    except Exception:  # any failure to import means the peer is not here
        return None


def _peer_holds(peer: str, dtype: str) -> None:
    """Lacks when the peer, as configured, cannot hold dtype: JAX without 64-bit mode (its
    default) makes a float64 array float32, so an exchange of one would compare the peer's
    narrowing, not the crossing."""
    if peer != "jax" or dtype not in ("int64", "uint64", "float64", "complex128"):
        return
    jax = importlib.import_module("jax")
    if not jax.config.jax_enable_x64:
        raise Lacks("peer jax dtype %s" % dtype, "JAX here runs without 64-bit mode "
                    "(jax_enable_x64 off, its default), so it holds no %s; the adapter "
                    "never turns the mode on" % dtype)


def reachable_peers() -> list[str]:
    """The features dlpack-exchange-PEER this interpreter can serve.

    refarray's context is made here, at hello, not at the first exchange: whether refarray
    has an OpenCL device (dlpack-exchange-refarray-opencl) is known only from its own
    discovery, which a context runs (opencl_discover.c: the devices that are available and
    have a compiler, in a build with OpenCL). Of the context's 24 to 39 ms of CPU, the OpenCL
    loader's listing of platforms and devices alone is about 20 ms (PoCL loads and probes the
    host), so listing the devices apart, in Python, would save the rest only at the price of a
    second copy of refarray's rule that could disagree with it."""
    peers = [p for p in PEERS if _peer_module(p) is not None]
    ref = refarray_peer.peer()
    if ref is not None:
        peers.append("refarray")
        if ref.has_opencl():
            peers.append("refarray-opencl")
    peers += [p.replace(":", "-") for p in C_PEERS if adapter_peer.peer(p[2:]) is not None]
    return peers


class _Asked:
    """x as a DLPack producer that passes the request's dl_device and copy to x.__dlpack__
    whatever the consumer asks (the consumer's own keywords are kept otherwise)."""

    def __init__(self, x: Any, forced: dict[str, Any]) -> None:
        self.x, self.forced = x, forced

    def __dlpack_device__(self) -> Any:
        return self.x.__dlpack_device__()

    def __dlpack__(self, **kw: Any) -> Any:
        kw.update(self.forced)
        return self.x.__dlpack__(**kw)


def _readable(shape: Any, what: str) -> None:
    """Refuses, as a limit of the adapter (origin adapter, MemoryError), to read an array of
    more elements than one reply carries: a broadcast view of 2^40 elements is a valid array
    that the adapter cannot read, not a failure of the library."""
    count = 1
    for n in shape:
        count *= int(n)
    if count > MAX_READ:
        raise AdapterLimit("array.exchange: %s has %d elements, more than the %d this adapter "
                           "reads into one reply (a limit of the adapter, not of the library)"
                           % (what, count, MAX_READ))


def _read(server: Server, x: Any, what: str) -> tuple[str, tuple[int, ...], list[Any]]:
    """server.backend.read(x), bounded first (_readable)."""
    _readable(server.backend.array_shape(x), what)
    dtype, shape, flat = server.backend.read(x)
    return dtype, tuple(shape), flat


def _peer_values(peer: str, y: Any) -> TypedArray:
    """The peer's array y as a typed array, read by the peer itself."""
    import numpy as np
    _readable(y.shape, "the peer's array")
    if peer == "torch":
        a = np.asarray(y.detach().cpu().numpy())
    else:
        a = np.asarray(y)
    name = {"bool": "bool"}.get(a.dtype.name, a.dtype.name)
    return TypedArray(name, tuple(int(n) for n in a.shape), a.ravel().tolist())


def _peer_array(peer: str, mod: Any, dtype: str, shape: tuple[int, ...],
                flat: list[Any]) -> Any:
    """An array of the peer's on its cpu holding flat (C order)."""
    import numpy as np
    a = np.asarray(flat, dtype=dtype).reshape(shape)
    if peer == "torch":
        return mod.from_numpy(a.copy())
    return mod.asarray(a)


def _dl_pair(args: Args, name: str) -> tuple[int, int] | None:
    dl = args.get(name)
    if dl is None:
        return None
    if (not isinstance(dl, list) or len(dl) != 2 or
            any(isinstance(v, bool) or not isinstance(v, int) for v in dl)):
        raise ProtocolError("argument '%s' must be null or [device_type, device_id]" % name,
                            "TypeError")
    return (dl[0], dl[1])


def _dl_kw(args: Args) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    dl = _dl_pair(args, "dl_device")
    if dl is not None:
        kw["dl_device"] = dl
    if args.get("copy") is not None:
        kw["copy"] = arg(args, "copy", bool, what="a boolean or null")
    return kw


def _typed(dtype: str, shape: tuple[int, ...], data: bytes) -> TypedArray:
    """refarray's elements (native bytes, C order) as a typed array."""
    import numpy as np
    a = np.frombuffer(data, dtype=dtype).reshape(shape)
    return TypedArray(dtype, shape, a.ravel().tolist())


def _exchange_refarray(server: Server, x: Any, direction: str, forced: dict[str, Any],
                       peer_device: tuple[int, int] | None) -> dict[str, Any]:
    """array.exchange with refarray (through ctypes) as the peer; every capsule refarray made
    and no consumer took is deleted before the reply (Peer.settle)."""
    ref = refarray_peer.peer()
    if ref is None:
        raise Lacks("peer refarray", "refarray's shared library is not found or does not load "
                    "in this interpreter (DEVSPEC_REFARRAY_LIB names it)")
    result: dict[str, Any] = {"peer": {"name": "refarray", "version": ref.version}}
    refusal: Exception | None = None
    if direction == "to_peer" and peer_device is not None:
        raise Lacks("peer refarray's from_dlpack with device=", "the ctypes peer passes no "
                    "options to ra_from_dlpack_tensor; the peer c:refarray does")
    try:
        if direction == "to_peer":
            try:
                y = ref.from_dlpack(_Asked(x, forced))
            except Exception as e:  # refarray's refusal, or the producer's passed on
                raise LibraryError(e) from e
            result["device"] = list(y.__dlpack_device__())
            _readable(y.shape, "refarray's array")
            result["value"] = _typed(*y.read()).encode()
            return result
        try:
            where = ref.device_string(peer_device)
        except ValueError as e:
            raise Lacks("peer refarray on DLPack device %r" % (peer_device,), str(e)) from e
        dtype, shape, flat = _read(server, x, "the array")
        import numpy as np
        data = np.asarray(flat, dtype=dtype).reshape(tuple(shape)).tobytes()
        p = ref.array(dtype, tuple(shape), data, where)
        ref.begin()
        try:
            z = server.backend.from_dlpack(_Asked(p, forced) if forced else p, {})
        except Exception as e:  # the library's refusal, or refarray's passed on
            refusal = e
            raise
        result["device"] = [int(v) for v in z.__dlpack_device__()]
        dtype2, shape2, flat2 = _read(server, z, "the array made from refarray's")
        result["value"] = TypedArray(dtype2, tuple(shape2), flat2).encode()
        result["array"] = server.reply_array(z)
        return result
    except (LibraryError, AdapterLimit):
        raise
    except Exception as e:
        raise LibraryError(e) from e
    finally:
        note = ref.settle()
        if note is not None and refusal is not None:  # said with the library's refusal
            err = refusal.error if isinstance(refusal, LibraryError) else refusal
            err.args = ("%s; and %s" % (err.args[0] if err.args else "", note), *err.args[1:])


def _exchange_adapter(server: Server, x: Any, name: str, direction: str,
                      forced: dict[str, Any], peer_device: tuple[int, int] | None
                      ) -> dict[str, Any]:
    """array.exchange with a C adapter (through the protocol, in this process) as the peer;
    every capsule it made that no consumer took is deleted before the reply."""
    c = adapter_peer.peer(name)
    if c is None:
        raise Lacks("peer c:%s" % name, "the C adapter %s's shared object is not found or "
                    "does not load in this interpreter (DEVSPEC_C_PEER_%s names it)"
                    % (name, name.upper()))
    result: dict[str, Any] = {"peer": {"name": "c:" + name, "version": c.version}}
    try:
        c.begin()
        if direction == "to_peer":
            into = None
            if peer_device is not None:  # the device= of the C library's from_dlpack
                try:
                    into = c.device_for(peer_device)
                except ValueError as e:
                    raise Lacks("peer c:%s on DLPack device %r" % (name, peer_device),
                                str(e)) from e
            try:
                y = c.from_dlpack(_Asked(x, forced), into)
            except Exception as e:  # the C library's refusal, or the producer's passed on
                raise LibraryError(e) from e
            result["device"] = list(y.__dlpack_device__())
            _readable(y.shape, "the C adapter's array")
            result["value"] = y.read()
            return result
        try:
            where = c.device_for(peer_device)
        except ValueError as e:
            raise Lacks("peer c:%s on DLPack device %r" % (name, peer_device), str(e)) from e
        dtype, shape, flat = _read(server, x, "the array")
        p = c.array(TypedArray(dtype, tuple(shape), flat).encode(), where)
        try:
            z = server.backend.from_dlpack(_Asked(p, forced) if forced else p, {})
        except LibraryError:
            raise
        except Exception as e:  # the library's refusal, or the C library's passed on
            raise LibraryError(e) from e
        result["device"] = [int(v) for v in z.__dlpack_device__()]
        dtype2, shape2, flat2 = _read(server, z, "the array made from the C adapter's")
        result["value"] = TypedArray(dtype2, tuple(shape2), flat2).encode()
        result["array"] = server.reply_array(z)
        return result
    finally:
        c.settle()


@op("array.exchange")
def array_exchange(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    peer = choice(args, "peer", (*PEERS, "refarray", *C_PEERS))
    direction = choice(args, "direction", ("to_peer", "from_peer"))
    forced = _dl_kw(args)
    peer_device = _dl_pair(args, "peer_device")
    if peer == "refarray":
        return _exchange_refarray(server, x, direction, forced, peer_device)
    if peer in C_PEERS:
        return _exchange_adapter(server, x, peer[2:], direction, forced, peer_device)
    mod = _peer_module(peer)
    if mod is None:
        raise Lacks("peer %s" % peer, "the peer library %s cannot be imported beside the "
                    "library under test in this interpreter" % peer)
    if peer_device is not None and peer_device != (1, 0):
        raise Lacks("peer %s on DLPack device %r" % (peer, peer_device),
                    "the exchange makes %s's arrays on its cpu only" % peer)
    result: dict[str, Any] = {"peer": {"name": peer, "version": str(getattr(
        importlib.import_module(peer), "__version__", "unknown"))}}
    _peer_holds(peer, server.backend.array_dtype(x))
    if direction == "to_peer":
        try:
            y = mod.from_dlpack(_Asked(x, forced))
        except Exception as e:  # the peer's refusal, or the producer's passed on
            raise LibraryError(e) from e
        result["device"] = [int(v) for v in y.__dlpack_device__()]
        result["value"] = _peer_values(peer, y).encode()
        return result
    dtype, shape, flat = _read(server, x, "the array")
    p = _peer_array(peer, mod, dtype, tuple(shape), flat)
    try:
        z = server.backend.from_dlpack(_Asked(p, forced) if forced else p, {})
    except LibraryError:
        raise
    except Exception as e:
        raise LibraryError(e) from e
    result["device"] = [int(v) for v in z.__dlpack_device__()]
    dtype2, shape2, flat2 = _read(server, z, "the array made from the peer's")
    result["value"] = TypedArray(dtype2, tuple(shape2), flat2).encode()
    result["array"] = server.reply_array(z)
    return result


def _hello_with_peers(hello: Any) -> Any:
    """hello, claiming dlpack-exchange-PEER for each peer this interpreter imports when the
    library claims dlpack-device (it has from_dlpack and __dlpack_device__)."""

    def run(server: Server, args: Args) -> Any:
        result = hello(server, args)
        if isinstance(result, dict) and "dlpack-device" in result.get("features", []):
            # The library itself among them too: NumPy to NumPy is a crossing as well, and
            # a namespace that wraps a peer's arrays is told apart by nothing but its name.
            result["features"] = list(result["features"]) + [
                "dlpack-exchange-%s" % p for p in reachable_peers()]
        return result

    return run


OPS["hello"] = _hello_with_peers(OPS["hello"])
