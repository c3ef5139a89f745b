"""C adapters as array.exchange's peers (devspec_py/adapter_peer.py): refarray's adapter and
the template's, each loaded into this process and driven through the protocol, take NumPy's
arrays into their own dlpack_import (array.dlpack_import_address) and give NumPy their
dlpack_export's tensors (array.dlpack_export_address), values compared exactly, devices
checked, and every tensor deleted exactly once (refarray's adapter counts its arrays alive
through util.arrays_on_device). The address ops are refused to a session whose hello did not
ask for them. Skipped where the adapters are not built."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from devspec_py import adapter_peer

BUILD = Path(os.environ.get("DEVSPEC_BUILD", Path(__file__).resolve().parents[3] / "build"))
TOY = BUILD / "adapters" / "tests" / "devspec_adapter_toy.so"
VALUES = [0.0, 1.5, -2.25, 1e300, 5e-324, -0.0]


def _refarray() -> adapter_peer.AdapterPeer:
    c = adapter_peer.peer("refarray")
    if c is None:
        pytest.skip("refarray's adapter is not built")
    return c


def _alive(c: adapter_peer.AdapterPeer) -> int:
    """refarray's arrays alive on its cpu device (the handles of the session dropped)."""
    gc.collect()
    c.request("reset")
    got: int = c.request("util.arrays_on_device", {"device": c.device_for(None)})["count"]
    c.request("reset")
    return got


def _same(got: Any, want: list[float]) -> bool:
    return [float(v).hex() for v in np.asarray(got).ravel()] == [float(v).hex() for v in want]


def test_numpy_into_refarrays_adapter_and_back() -> None:
    c = _refarray()
    base = _alive(c)
    c.begin()
    y = c.from_dlpack(np.asarray(VALUES))
    assert y.__dlpack_device__() == (1, 0)
    read = y.read()
    assert read["dtype"] == "float64" and read["shape"] == [6]
    assert [float(v) for v in read["data"]] == [float(v) for v in VALUES[:5]] + [-0.0]
    p = c.array({"dtype": "int32", "shape": [2, 2], "data": [1, -2, 3, 4]}, c.device_for(None))
    a = np.from_dlpack(p)
    c.settle()
    assert a.tolist() == [[1, -2], [3, 4]] and a.__dlpack_device__() == (1, 0)
    del y, p
    assert _alive(c) == base + 1, "NumPy's array still holds the adapter's"
    del a
    assert _alive(c) == base, "every tensor deleted, none twice"


def test_an_unconsumed_capsule_is_deleted_once_and_an_unversioned_one_works() -> None:
    c = _refarray()
    base = _alive(c)
    c.begin()
    p = c.array({"dtype": "float32", "shape": [3], "data": [1, 2, 3]}, c.device_for(None))
    p.__dlpack__(max_version=(1, 0))  # made, never consumed: settle deletes it
    c.settle()

    class Legacy:
        """A producer of DLPack before 1.0: its capsule is unversioned."""

        def __init__(self, capsule: Any) -> None:
            self.capsule = capsule

        def __dlpack__(self, **kw: Any) -> Any:
            return self.capsule

        def __dlpack_device__(self) -> tuple[int, int]:
            return (1, 0)

    a = np.from_dlpack(Legacy(p.__dlpack__()))  # no max_version: the unversioned form
    c.settle()
    assert a.tolist() == [1.0, 2.0, 3.0]
    del p, a
    assert _alive(c) == base


def test_refarrays_opencl_array_is_refused_by_numpy_and_copied_on_request() -> None:
    c = _refarray()
    c.begin()
    try:
        where = c.device_for((4, 0))
    except ValueError:
        pytest.skip("refarray has no OpenCL device here (POCL_DEVICES)")
    p = c.array({"dtype": "float64", "shape": [2], "data": [0.5, -1]}, where)
    assert p.__dlpack_device__() == (4, 0)
    with pytest.raises((RuntimeError, BufferError, TypeError)):  # NumPy: RuntimeError
        np.from_dlpack(p)
    assert np.from_dlpack(p, device="cpu").tolist() == [0.5, -1.0]
    c.settle()


def test_the_template_is_a_peer_too() -> None:
    if not TOY.is_file():
        pytest.skip("the template's toy adapter is not built")
    c = adapter_peer.peer("toy", TOY)
    assert c is not None, "the toy adapter loads and says hello with dlpack_addresses"
    c.begin()
    y = c.from_dlpack(np.asarray([1.5, -2.0, 0.25], dtype=np.float32))
    assert y.read()["data"] == [1.5, -2, 0.25]
    p = c.array({"dtype": "float32", "shape": [2], "data": [3, 4]}, c.device_for(None))
    assert np.from_dlpack(p).tolist() == [3.0, 4.0]
    c.settle()


def test_the_address_ops_need_hellos_consent() -> None:
    c = _refarray()
    c.request("hello", {"protocol": 1})
    try:
        with pytest.raises(ValueError, match="dlpack_addresses"):
            c.request("array.dlpack_import_address", {"address": "4096"})
    finally:
        c.hello()
