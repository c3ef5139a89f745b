"""The bound on a library's on-disk compilation cache (devspec_py/disk_cache.py), and JAX's
cache as adapters.json configures it: written by a run, read by the next, held to its bound."""

from __future__ import annotations

import os
import tempfile
import time

import pytest
from adapter_client import LIBRARIES, Adapter, importable

from devspec_py import disk_cache


def make(folder: str, name: str, size: int, when: float) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(b"x" * size)
    os.utime(path, (when, when))
    return path


def test_prune_deletes_least_recently_used_first() -> None:
    with tempfile.TemporaryDirectory() as d:
        for i, name in enumerate(["a-cache", "b-cache", "c-atime", "d-cache"]):
            make(d, name, 100, 1_000_000 + i)
        # "a" is the oldest by modification but was read last
        os.utime(os.path.join(d, "a-cache"), (2_000_000, 1_000_000))
        deleted = disk_cache.prune(d, 250)
        assert deleted == ["b-cache", "c-atime"]
        assert sorted(os.listdir(d)) == ["a-cache", "d-cache"]


def test_prune_under_the_bound_deletes_nothing() -> None:
    with tempfile.TemporaryDirectory() as d:
        for i in range(3):
            make(d, "e%d-cache" % i, 10, 1_000_000 + i)
        assert disk_cache.prune(d, 30) == []
        assert len(os.listdir(d)) == 3
        assert disk_cache.prune(d, 29) == ["e0-cache"]


def test_prune_leaves_folders_and_links_and_a_missing_folder_is_empty() -> None:
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "sub-cache"))
        target = make(d, "old-cache", 50, 1_000_000)
        os.symlink(target, os.path.join(d, "link-cache"))
        make(d, "new-atime", 50, 2_000_000)
        make(d, "notes.txt", 50, 500_000)  # not an entry: never counted nor deleted
        assert disk_cache.prune(d, 0) == ["old-cache", "new-atime"]
        assert sorted(os.listdir(d)) == ["link-cache", "notes.txt", "sub-cache"]
        assert disk_cache.prune(os.path.join(d, "absent"), 0) == []


def test_prune_unless_recent_lists_the_folder_once_a_minute() -> None:
    with tempfile.TemporaryDirectory() as d:
        make(d, "a-cache", 100, 1_000_000)
        assert disk_cache.prune_unless_recent(d, 1000) == []
        stamp = os.path.join(d, disk_cache.STAMP)
        assert os.path.isfile(stamp)
        # Pruned a moment ago (another worker of the same run): not listed again, though
        # the folder is now over the bound.
        make(d, "b-cache", 2000, 1_000_001)
        assert disk_cache.prune_unless_recent(d, 1000) is None
        assert sorted(os.listdir(d)) == ["a-cache", "b-cache", disk_cache.STAMP]
        # A minute later the next start prunes; the stamp itself is never an entry.
        old = os.stat(stamp).st_mtime - disk_cache.PRUNE_INTERVAL_S - 1
        os.utime(stamp, (old, old))
        assert disk_cache.prune_unless_recent(d, 1000) == ["a-cache", "b-cache"]
        assert os.listdir(d) == [disk_cache.STAMP]
        # A stamp from the future (a clock set back) is not recent.
        os.utime(stamp, (4e9, 4e9))
        make(d, "c-cache", 2000, 1_000_002)
        assert disk_cache.prune_unless_recent(d, 1000) == ["c-cache"]


def age(stamp: str) -> None:
    old = os.stat(stamp).st_mtime - disk_cache.PRUNE_INTERVAL_S - 1
    os.utime(stamp, (old, old))


def test_prune_unless_recent_lists_an_unchanged_folder_once() -> None:
    with tempfile.TemporaryDirectory() as d:
        stamp = os.path.join(d, disk_cache.STAMP)
        make(d, "a-cache", 100, 1_000_000)
        assert disk_cache.prune_unless_recent(d, 1000) == []
        age(stamp)
        # nothing added or deleted since a listing found it within the bound: not listed
        assert disk_cache.prune_unless_recent(d, 1000) is None
        age(stamp)
        # a smaller bound is listed again
        assert disk_cache.prune_unless_recent(d, 50) == ["a-cache"]
        age(stamp)
        # a listing that deleted is followed by one more listing
        assert disk_cache.prune_unless_recent(d, 50) == []
        age(stamp)
        assert disk_cache.prune_unless_recent(d, 50) is None
        age(stamp)
        make(d, "b-cache", 100, 1_000_001)  # an entry written: the folder changed
        assert disk_cache.prune_unless_recent(d, 50) == ["b-cache"]


def test_prune_unless_recent_skips_while_another_prunes() -> None:
    fcntl = pytest.importorskip("fcntl")
    with tempfile.TemporaryDirectory() as d:
        make(d, "a-cache", 100, 1_000_000)
        with open(os.path.join(d, disk_cache.STAMP), "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            assert disk_cache.prune_unless_recent(d, 0) is None
        assert disk_cache.prune_unless_recent(d, 0) == ["a-cache"]
        assert disk_cache.prune_unless_recent(os.path.join(d, "absent"), 0) == []


@pytest.mark.parametrize("text,why", [("lots", "not a whole number"), ("-1", "negative"),
                                      ("1.5", "not a whole number")])
def test_a_bad_bound_names_the_variable(text: str, why: str) -> None:
    with pytest.raises(ValueError) as e:
        disk_cache.max_bytes_from_env({disk_cache.ENV_MAX_BYTES: text})
    assert disk_cache.ENV_MAX_BYTES in str(e.value) and why in str(e.value)


def test_the_bound_is_optional() -> None:
    assert disk_cache.max_bytes_from_env({}) is None
    assert disk_cache.max_bytes_from_env({disk_cache.ENV_MAX_BYTES: "4096"}) == 4096


def add_on_device_1(a: Adapter) -> None:
    """Two float32 arrays on the second device and their sum: JAX compiles programs."""
    dev = a.ok("hello", {"protocol": 1})["devices"][1]
    x = a.ok("array.asarray", {"obj": {"dtype": "float32", "shape": [3], "data": [1, 2, 3]},
                               "device": dev})
    y = a.ok("array.binary", {"fn": "add", "x1": x, "x2": x})
    assert a.ok("array.read", {"array": y})["data"] == [2, 4, 6]


def test_jax_cache_as_configured_is_written_then_read_and_bounded() -> None:
    ok, why = importable("jax")
    if not ok:
        pytest.skip(why)
    env = LIBRARIES["jax"]
    assert "JAX_COMPILATION_CACHE_DIR" in env and disk_cache.ENV_MAX_BYTES in env
    # JAX's own bound needs a package the project does not install and is quadratic in the
    # entries (disk_cache.py): the configuration must not turn it on.
    assert "JAX_COMPILATION_CACHE_MAX_SIZE" not in env
    with tempfile.TemporaryDirectory() as d:
        a = Adapter("jax", {"JAX_COMPILATION_CACHE_DIR": d})
        add_on_device_1(a)
        assert a.close() == 0
        stderr_first = a.stderr_text
        written = sorted(os.listdir(d))
        assert written, "JAX wrote no cache entry; its stderr: %s" % stderr_first[-2000:]
        assert "compilation cache" not in stderr_first, stderr_first[-2000:]
        # a second run reads them: nothing new is written
        a = Adapter("jax", {"JAX_COMPILATION_CACHE_DIR": d})
        add_on_device_1(a)
        assert a.close() == 0
        assert sorted(os.listdir(d)) == written, a.stderr_text[-2000:]
        # a start with a bound of 0 deletes every entry; what that start compiles itself
        # (hello makes arrays) is written again, the sum is not
        assert any(n.startswith("jit_add") for n in written), written
        # (a start within a minute of the last pruning leaves the folder alone: the last
        # pruning, the first run's, is made older than that)
        assert disk_cache.STAMP in written
        old = time.time() - 2 * disk_cache.PRUNE_INTERVAL_S
        os.utime(os.path.join(d, disk_cache.STAMP), (old, old))
        a = Adapter("jax", {"JAX_COMPILATION_CACHE_DIR": d, disk_cache.ENV_MAX_BYTES: "0"})
        a.ok("hello", {"protocol": 1})
        assert a.close() == 0
        left = os.listdir(d)
        assert len(left) < len(written)
        assert not any(n.startswith("jit_add") for n in left), left
