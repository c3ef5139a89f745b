"""refarray's DLPack tensors crossing to real libraries and back (TAP).

    python dlpack_peers.py LIBREFARRAY.so DLPACK_CAPSULE.so PEER...

PEER is numpy, torch or jax: each that imports in this interpreter is checked, the others
are reported as skipped. refarray is driven through ctypes (the capsules' destructor is
dlpack_capsule.c's, in C, since CPython may call it with an exception pending); its arrays get
__dlpack__ and __dlpack_device__ (versioned capsules for a consumer that passes max_version,
unversioned ones otherwise, as the array API asks of a producer), and the peers' own arrays
come back through ra_from_dlpack_tensor. Values are compared exactly with what was written, devices
with where they should land; every array refarray made is released by the deleter
(ra_util_arrays_on_device counts none alive at the end), and a refused export leaks
nothing. Run with POCL_DEVICES set for the OpenCL cases (kDLOpenCL offered to NumPy).
"""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

RA_OK = 0
RA_E_BUFFER = -14
RA_FLOAT64, RA_INT32 = 11, 4
RA_DEVICE_CPU, RA_DEVICE_GPU = 1, 2
COPY = {None: 1, True: 2, False: 3}  # ra_copy: RA_COPY_IF_NEEDED, ALWAYS, NEVER
VERSIONED, UNVERSIONED = b"dltensor_versioned", b"dltensor"


# refarray's ra_device and ra_opts and DLPack's managed tensors, as the Python adapter's
# refarray peer declares them (adapters/python/devspec_py/refarray_peer.py): one layout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "python"))
from devspec_py.dlpack import _Version  # noqa: E402
from devspec_py.refarray_peer import Deleter, Device, Opts, Unversioned, Versioned  # noqa: E402

IS_COPIED, READ_ONLY = 2, 1

api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
api.PyCapsule_GetName.restype = ctypes.c_char_p
api.PyCapsule_GetName.argtypes = [ctypes.c_void_p]
api.PyCapsule_IsValid.restype = ctypes.c_int
api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p


class Ref:
    """refarray through ctypes: a context and arrays with the DLPack protocol."""

    def __init__(self, path: str) -> None:
        lib = ctypes.CDLL(path)
        self.lib = lib
        for name, res, args in [
                ("ra_ctx_create", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
                ("ra_ctx_destroy", None, [ctypes.c_void_p]),
                ("ra_ctx_message", ctypes.c_char_p, [ctypes.c_void_p]),
                ("ra_asarray_buffer", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                  ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]),
                ("ra_array_read", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
                ("ra_array_nbytes", ctypes.c_size_t, [ctypes.c_void_p]),
                ("ra_array_release", None, [ctypes.c_void_p]),
                ("ra_array_dlpack_device", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
                ("ra_array_device", Device, [ctypes.c_void_p]),
                ("ra_to_dlpack", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                  ctypes.c_void_p]),
                ("ra_to_dlpack_unversioned", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                  ctypes.c_void_p]),
                ("ra_from_dlpack_tensor", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
                ("ra_util_arrays_on_device", ctypes.c_int,
                 [ctypes.c_void_p, Device, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
                ("ra_info_devices", ctypes.c_int,
                 [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p])]:
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        ctx = ctypes.c_void_p()
        assert lib.ra_ctx_create(None, ctypes.byref(ctx)) == RA_OK
        self.ctx = ctx
        devs = (Device * 16)()
        n = ctypes.c_size_t()
        lib.ra_info_devices(ctx, devs, 16, ctypes.byref(n))
        self.devices = [(d.type, d.index) for d in devs[: n.value]]

    def message(self) -> str:
        return (self.lib.ra_ctx_message(self.ctx) or b"").decode()

    def alive(self) -> int:
        total = 0
        for t, i in self.devices:
            n = ctypes.c_size_t()
            assert self.lib.ra_util_arrays_on_device(self.ctx, Device(t, i), None, 0,
                                                     ctypes.byref(n)) == RA_OK
            total += n.value
        return total

    def array(self, values: list[float], device: str) -> RefArray:
        buf = (ctypes.c_double * len(values))(*values)
        shape = (ctypes.c_int64 * 1)(len(values))
        opts = Opts(ctypes.sizeof(Opts), 0, device.encode(), None, 0)
        out = ctypes.c_void_p()
        st = self.lib.ra_asarray_buffer(self.ctx, buf, RA_FLOAT64, shape, 1, ctypes.byref(opts),
                                        ctypes.byref(out))
        assert st == RA_OK, self.message()
        return RefArray(self, out)

    def take(self, capsule: Any) -> RefArray:
        """from_dlpack of a peer's capsule: versioned or not, the tensor is consumed."""
        out = ctypes.c_void_p()
        if api.PyCapsule_IsValid(capsule, VERSIONED):
            ptr = api.PyCapsule_GetPointer(ctypes.c_void_p(id(capsule)), VERSIONED)
            api.PyCapsule_SetName(capsule, b"used_dltensor_versioned")
            st = self.lib.ra_from_dlpack_tensor(self.ctx, ptr, None, ctypes.byref(out))
        else:
            assert api.PyCapsule_IsValid(capsule, UNVERSIONED), "no DLPack capsule"
            ptr = api.PyCapsule_GetPointer(ctypes.c_void_p(id(capsule)), UNVERSIONED)
            api.PyCapsule_SetName(capsule, b"used_dltensor")
            old = Unversioned.from_address(ptr)
            v = Versioned(_Version(1, 0), None, None, 0, old.dl_tensor)  # no deleter: called below
            st = self.lib.ra_from_dlpack_tensor(self.ctx, ctypes.byref(v), None,
                                                ctypes.byref(out))
            if old.deleter:
                Deleter(old.deleter)(ptr)
        if st != RA_OK:
            raise BufferError(self.message()) if st == RA_E_BUFFER else RuntimeError(
                self.message())
        return RefArray(self, out)


class RefArray:
    """One refarray array with the array API's DLPack methods."""

    def __init__(self, ref: Ref, ptr: ctypes.c_void_p) -> None:
        self.ref, self.ptr = ref, ptr

    def __del__(self) -> None:
        self.ref.lib.ra_array_release(self.ptr)

    def values(self) -> list[float]:
        n = self.ref.lib.ra_array_nbytes(self.ptr) // 8
        buf = (ctypes.c_double * n)()
        assert self.ref.lib.ra_array_read(self.ref.ctx, self.ptr, buf, n * 8) == RA_OK
        return list(buf)

    def __dlpack_device__(self) -> tuple[int, int]:
        t, i = ctypes.c_int32(), ctypes.c_int32()
        assert self.ref.lib.ra_array_dlpack_device(self.ptr, ctypes.byref(t),
                                                   ctypes.byref(i)) == RA_OK
        return (t.value, i.value)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: bool | None = None) -> Any:
        dev = (ctypes.c_int32 * 2)(*dl_device) if dl_device is not None else None
        out = ctypes.c_void_p()
        versioned = max_version is not None and max_version[0] >= 1
        fn = self.ref.lib.ra_to_dlpack if versioned else self.ref.lib.ra_to_dlpack_unversioned
        st = fn(self.ref.ctx, self.ptr, dev, COPY[copy], ctypes.byref(out))
        if st == RA_E_BUFFER:
            raise BufferError(self.ref.message())
        if st != RA_OK:
            raise RuntimeError(self.ref.message())
        name = VERSIONED if versioned else UNVERSIONED
        self.last_flags = Versioned.from_address(out.value or 0).flags if versioned else None
        return api.PyCapsule_New(out, name, DESTRUCTOR)


DESTRUCTOR: int | None = None

VALUES = [0.0, 1.5, -2.25, 1e300, 5e-324, -0.0]
results: list[str] = []


def check(ok: bool, name: str, detail: str = "") -> None:
    results.append(("ok" if ok else "not ok") + " %d - %s" % (len(results) + 1, name)
                   + ("" if ok or not detail else "\n# " + detail))


def same(got: Sequence[float], want: Sequence[float]) -> bool:
    return [float(g).hex() for g in got] == [float(w).hex() for w in want]


def peer_numpy(ref: Ref) -> None:
    import numpy as np
    v2 = int(np.__version__.split(".")[0]) >= 2
    x = ref.array(VALUES, "cpu")
    a = np.from_dlpack(x)
    check(same(a.tolist(), VALUES), "numpy %s reads refarray's cpu array exactly" % np.__version__,
          repr(a.tolist()))
    if v2:
        check(not a.flags.writeable, "numpy sees the shared buffer read-only")
    back = ref.take(np.asarray(VALUES).__dlpack__(max_version=(1, 0)) if v2
                    else np.asarray(VALUES).__dlpack__())
    check(same(back.values(), VALUES), "refarray reads numpy's array exactly", repr(back.values()))
    strided = np.arange(12.0).reshape(3, 4).T
    s = ref.take(strided.__dlpack__(max_version=(1, 0)) if v2 else strided.__dlpack__())
    check(same(s.values(), strided.flatten().tolist()),
          "refarray reads a transposed numpy array by its strides", repr(s.values()))
    gpus = [d for d in ref.devices if d[0] == RA_DEVICE_GPU]
    if gpus:
        g = ref.array(VALUES, "gpu:%d" % gpus[0][1])
        # NumPy reads host memory only: it must refuse the OpenCL tensor, and the tensor
        # must still be deleted (the alive count below). NumPy 2.4 and 1.24 raise
        # RuntimeError ("Unsupported device in DLTensor."), not BufferError: the kind is
        # reported, not required.
        try:
            np.from_dlpack(g)
            check(False, "numpy refuses a kDLOpenCL tensor", "it took it")
        except Exception as e:
            check(True, "numpy refuses a kDLOpenCL tensor (%s: %s)" % (type(e).__name__, e))
        if v2:
            c = np.from_dlpack(g, device="cpu")
            check(same(c.tolist(), VALUES) and g.last_flags == IS_COPIED,
                  "numpy's from_dlpack(device='cpu') asks dl_device=(kDLCPU, 0): a copy, "
                  "IS_COPIED", "%r flags %r" % (c.tolist(), g.last_flags))
            try:
                np.from_dlpack(g, device="cpu", copy=False)
                check(False, "copy=False across devices is BufferError", "no error")
            except BufferError:
                check(True, "copy=False across devices is BufferError")
        del g
    del a, x, back, s


def peer_torch(ref: Ref) -> None:
    import torch
    x = ref.array(VALUES, "cpu")
    t = torch.from_dlpack(x)
    check(same(t.tolist(), VALUES) and t.device.type == "cpu",
          "torch %s reads refarray's cpu array exactly, on cpu" % torch.__version__,
          repr(t.tolist()))
    back = ref.take(torch.tensor(VALUES, dtype=torch.float64).__dlpack__())
    check(same(back.values(), VALUES), "refarray reads torch's tensor exactly",
          repr(back.values()))
    strided = torch.arange(12, dtype=torch.float64).reshape(3, 4).t()
    s = ref.take(torch.utils.dlpack.to_dlpack(strided))
    check(same(s.values(), strided.contiguous().flatten().tolist()),
          "refarray reads a transposed torch tensor by its strides", repr(s.values()))
    del t, x, back, s


def peer_jax(ref: Ref) -> None:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    x = ref.array(VALUES, "cpu")
    a = jnp.from_dlpack(x)
    check(same([float(v) for v in a.tolist()], VALUES)
          and next(iter(a.devices())).platform == "cpu",
          "jax %s reads refarray's cpu array exactly, on cpu" % jax.__version__, repr(a))
    back = ref.take(jnp.asarray(VALUES).__dlpack__(max_version=(1, 0)))
    check(same(back.values(), VALUES), "refarray reads jax's array exactly", repr(back.values()))
    del a, x, back


PEERS: dict[str, Callable[[Ref], None]] = {"numpy": peer_numpy, "torch": peer_torch,
                                            "jax": peer_jax}


def main(argv: list[str]) -> int:
    global DESTRUCTOR
    ref = Ref(argv[1])
    DESTRUCTOR = ctypes.cast(ctypes.PyDLL(argv[2]).dlpack_capsule_destructor, ctypes.c_void_p).value
    for peer in argv[3:]:
        try:
            __import__(peer)
        except ImportError:
            results.append("ok %d - %s # SKIP not importable by %s" % (len(results) + 1, peer,
                                                                     sys.executable))
            continue
        PEERS[peer](ref)
        gc.collect()
        check(ref.alive() == 0, "after %s: every refarray array is released (deleters ran)" % peer,
              "%d alive" % ref.alive())
    x = ref.array(VALUES, "cpu")
    try:
        x.__dlpack__(max_version=(1, 0), dl_device=(16, 0))
        check(False, "a device refarray has not (kDLHexagon) is BufferError", "no error")
    except BufferError:
        check(True, "a device refarray has not (kDLHexagon) is BufferError")
    cap = x.__dlpack__(max_version=(1, 0))
    del cap, x  # a capsule nobody consumed: its destructor calls the deleter
    gc.collect()
    check(ref.alive() == 0, "an unconsumed capsule's tensor is deleted with it")
    print("1..%d" % len(results))
    print("\n".join(results))
    ref.lib.ra_ctx_destroy(ref.ctx)
    return 0 if all(r.startswith("ok") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
