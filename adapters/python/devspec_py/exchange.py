"""array.exchange: an array crossing through DLPack between the library under test and a peer
library in the same process (NumPy, torch, JAX), both ways, and the features that say which
peers this interpreter can reach (dlpack-exchange-PEER).

to_peer: the peer's from_dlpack takes the library's array (through a proxy that asks the
producer for the request's dl_device and copy); the result is what the peer holds: its
__dlpack_device__() and its values. from_peer: the peer makes an array of the same values on
its cpu, the library's from_dlpack takes it, and the result adds the library's new array.
A refusal by either side is that library's error (origin library); a peer that does not
import here is NotImplementedError with lacks "peer NAME".
"""

from __future__ import annotations

import importlib
from typing import Any

from .args import Args, arg, choice
from .errors import Lacks, LibraryError, ProtocolError
from .server import OPS, Server, op
from .values import TypedArray

PEERS = ("numpy", "torch", "jax")


def _peer_module(name: str) -> Any:
    """The peer's module, or None when this interpreter cannot import it."""
    try:
        if name == "jax":
            jax = importlib.import_module("jax")
            jax.config.update("jax_enable_x64", True)
            return importlib.import_module("jax.numpy")
        return importlib.import_module(name)
    except Exception:  # any failure to import means the peer is not here
        return None


def reachable_peers() -> list[str]:
    return [p for p in PEERS if _peer_module(p) is not None]


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


def _peer_values(peer: str, y: Any) -> TypedArray:
    """The peer's array y as a typed array, read by the peer itself."""
    import numpy as np
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


def _dl_kw(args: Args) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    dl = args.get("dl_device")
    if dl is not None:
        if (not isinstance(dl, list) or len(dl) != 2 or
                any(isinstance(v, bool) or not isinstance(v, int) for v in dl)):
            raise ProtocolError("argument 'dl_device' must be null or [device_type, device_id]",
                                "TypeError")
        kw["dl_device"] = (dl[0], dl[1])
    if args.get("copy") is not None:
        kw["copy"] = arg(args, "copy", bool, what="a boolean or null")
    return kw


@op("array.exchange")
def array_exchange(server: Server, args: Args) -> Any:
    x = server.array(args, "array")
    peer = choice(args, "peer", (*PEERS, "refarray"))
    direction = choice(args, "direction", ("to_peer", "from_peer"))
    forced = _dl_kw(args)
    mod = _peer_module(peer) if peer != "refarray" else None
    if mod is None:
        raise Lacks("peer %s" % peer, "the peer library %s cannot be imported beside the "
                    "library under test in this interpreter" % peer)
    result: dict[str, Any] = {"peer": {"name": peer, "version": str(getattr(
        importlib.import_module(peer), "__version__", "unknown"))}}
    if direction == "to_peer":
        try:
            y = mod.from_dlpack(_Asked(x, forced))
        except Exception as e:  # the peer's refusal, or the producer's passed on
            raise LibraryError(e) from e
        result["device"] = [int(v) for v in y.__dlpack_device__()]
        result["value"] = _peer_values(peer, y).encode()
        return result
    dtype, shape, flat = server.backend.read(x)
    p = _peer_array(peer, mod, dtype, tuple(shape), flat)
    try:
        z = server.backend.from_dlpack(_Asked(p, forced) if forced else p, {})
    except LibraryError:
        raise
    except Exception as e:
        raise LibraryError(e) from e
    result["device"] = [int(v) for v in z.__dlpack_device__()]
    dtype2, shape2, flat2 = server.backend.read(z)
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
