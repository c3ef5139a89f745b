"""refarray as array.exchange's peer (devspec_py/refarray_peer.py), in this process: its
arrays cross to NumPy and back through real DLPack capsules, with values compared exactly,
devices checked, and every tensor's deleter run exactly once (refarray counts its arrays
alive: none is left, and a second deletion would free an array twice). Skipped where
refarray's shared library is not built; the OpenCL checks where refarray has no OpenCL
device (POCL_DEVICES)."""

from __future__ import annotations

import ctypes
import gc
import struct
from typing import Any

import numpy as np
import pytest

from devspec_py import refarray_peer

PEER = refarray_peer.peer()
pytestmark = pytest.mark.skipif(PEER is None, reason="refarray's shared library is not built")
VALUES = [0.0, 1.5, -2.25, 1e300, 5e-324, -0.0]


def _peer() -> refarray_peer.Peer:
    assert PEER is not None
    return PEER


def _bytes(values: list[float]) -> bytes:
    return struct.pack("<%dd" % len(values), *values)


def _same(got: Any, want: list[float]) -> bool:
    return [float(v).hex() for v in np.asarray(got).ravel()] == [float(v).hex() for v in want]


def _settled(peer: refarray_peer.Peer) -> int:
    gc.collect()
    return peer.alive()


def test_refarray_to_numpy_shares_read_only_and_releases_once() -> None:
    peer = _peer()
    peer.begin()
    x = peer.array("float64", (6,), _bytes(VALUES))
    a = np.from_dlpack(x)
    assert peer.settle() is None
    assert _same(a, VALUES)
    assert a.__dlpack_device__() == (1, 0)
    assert not a.flags.writeable  # refarray's shared buffer comes read-only
    del x
    assert _settled(peer) == 1  # NumPy's array still holds refarray's
    del a
    assert _settled(peer) == 0


def test_numpy_to_refarray_by_strides() -> None:
    peer = _peer()
    t: Any = np.arange(12, dtype=np.int32).reshape(3, 4).T  # strides (4, 16) bytes
    y = peer.from_dlpack(t)
    dtype, shape, data = y.read()
    assert (dtype, shape) == ("int32", (4, 3))
    assert list(struct.unpack("<12i", data)) == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    assert y.__dlpack_device__() == (1, 0)
    del y
    assert _settled(peer) == 0


def test_an_unconsumed_capsule_is_deleted_once_by_settle() -> None:
    peer = _peer()
    peer.begin()
    x = peer.array("float64", (2,), _bytes([1.0, 2.0]))
    x.__dlpack__(max_version=(1, 0), copy=True)  # a copy nobody takes
    assert _settled(peer) == 2
    assert peer.settle() is None
    del x
    assert _settled(peer) == 0


def test_a_consumer_that_deletes_what_it_refused_is_named_and_not_deleted_twice() -> None:
    """A deliberately misbehaving consumer (what torch 1.13 does with a kDLOpenCL tensor): it
    calls the deleter of the tensor and leaves the capsule named as made, then raises."""
    peer = _peer()
    peer.begin()
    x = peer.array("float64", (2,), _bytes([1.0, 2.0]))
    cap = x.__dlpack__(copy=True)  # unversioned: always a copy of refarray's own
    ptr = ctypes.pythonapi.PyCapsule_GetPointer(ctypes.py_object(cap), refarray_peer.UNVERSIONED)
    refarray_peer.Deleter(refarray_peer.Unversioned.from_address(ptr).deleter)(ptr)
    note = peer.settle()
    assert note is not None and "unconsumed" in note
    del x, cap
    assert _settled(peer) == 0


def _gpu(peer: refarray_peer.Peer) -> refarray_peer.RefArray:
    if not peer.has_opencl():
        pytest.skip("refarray has no OpenCL device here (POCL_DEVICES)")
    return peer.array("float64", (6,), _bytes(VALUES), "gpu:0")


def test_numpy_refuses_a_kdlopencl_tensor_and_leaks_nothing() -> None:
    peer = _peer()
    g = _gpu(peer)
    assert g.__dlpack_device__() == (4, 0)
    peer.begin()
    with pytest.raises(Exception, match=r"Unsupported device|BufferError"):
        np.from_dlpack(g)
    assert peer.settle() is None  # NumPy left the capsule alone: deleted here, once
    del g
    assert _settled(peer) == 0


def test_numpy_asking_for_the_host_gets_a_copy() -> None:
    peer = _peer()
    g = _gpu(peer)
    peer.begin()
    a = np.from_dlpack(g, device="cpu")  # NumPy asks dl_device=(kDLCPU, 0)
    assert peer.settle() is None
    assert _same(a, VALUES) and a.__dlpack_device__() == (1, 0)
    del a, g
    assert _settled(peer) == 0
