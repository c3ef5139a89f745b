"""A library's on-disk cache of compiled programs, held to a size at the adapter's start.

JAX keeps its persistent compilation cache in the folder JAX_COMPILATION_CACHE_DIR names
(adapters.json puts it in the build folder). JAX's own bound, JAX_COMPILATION_CACHE_MAX_SIZE,
lists and reads the whole folder on every entry it writes, which makes a cold run's writes
quadratic in the entries (spec/decisions.md, "Python libraries", 12); the adapter bounds the
folder at its start instead, which is linear and leaves JAX's writes as cheap as with no
bound.

Once per run, not once per worker (prune_unless_recent): the workers of one run start
together, and each listing the folder cost every worker about 30 ms of CPU (2,400 entries).
The first worker to take the stamp file's lock prunes and marks the stamp; a worker that
finds the lock taken (another is pruning now) or the stamp marked within the last
PRUNE_INTERVAL_S seconds does not list the folder. The bound is then held at the start of a
run unless the folder was pruned within the last minute: it can exceed the bound by what the
runs of that minute wrote, as it can by what one run writes. Nor is the folder listed when
its modification time is the one the stamp recorded before a listing that deleted nothing:
no entry was added or deleted since it held at most the bound (a warm run writes none)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping

try:
    import fcntl
    HAVE_FLOCK = True
except ImportError:  # not POSIX: every start prunes
    HAVE_FLOCK = False

ENV_MAX_BYTES = "DEVSPEC_JAX_CACHE_MAX_BYTES"
# The names of the cache's entries (JAX's: an executable NAME-cache, its access time
# NAME-atime): nothing else in the folder is counted or deleted, wherever the folder is set.
ENTRY_SUFFIXES = ("-cache", "-atime")
# The stamp file of the last pruning (its modification time), in the folder; not an entry.
STAMP = "devspec-pruned.stamp"
PRUNE_INTERVAL_S = 60.0


def max_bytes_from_env(environ: Mapping[str, str]) -> int | None:
    """The bound ENV_MAX_BYTES gives, None when it is unset; a ValueError naming the variable
    when it is not a whole number of bytes of at least 0."""
    text = environ.get(ENV_MAX_BYTES)
    if text is None or text == "":
        return None
    try:
        value = int(text, 10)
    except ValueError:
        raise ValueError("%s=%r: not a whole number of bytes" % (ENV_MAX_BYTES, text)) from None
    if value < 0:
        raise ValueError("%s=%r: a size cannot be negative" % (ENV_MAX_BYTES, text))
    return value


def prune(folder: str, max_bytes: int) -> list[str]:
    """Deletes the least recently used entries of `folder` (files named as ENTRY_SUFFIXES say;
    the later of a file's access and modification times) until the entries left hold at most
    `max_bytes` together; returns the names deleted. Other files, subfolders and links are
    left alone. A file another process deleted or
    replaced meanwhile (several workers start at once) is skipped, not an error; a folder that
    does not exist holds nothing."""
    entries: list[tuple[float, str, int]] = []
    try:
        scan = os.scandir(folder)
    except FileNotFoundError:
        return []
    with scan:
        for entry in scan:
            with contextlib.suppress(FileNotFoundError):
                if not entry.is_file(follow_symlinks=False) or not entry.name.endswith(
                        ENTRY_SUFFIXES):
                    continue
                st = entry.stat(follow_symlinks=False)
                entries.append((max(st.st_atime, st.st_mtime), entry.name, st.st_size))
    total = sum(size for _, _, size in entries)
    deleted: list[str] = []
    for _, name, size in sorted(entries):
        if total <= max_bytes:
            break
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(folder, name))
            deleted.append(name)
        total -= size
    return deleted


def prune_unless_recent(folder: str, max_bytes: int,
                        interval: float = PRUNE_INTERVAL_S) -> list[str] | None:
    """prune(folder, max_bytes), unless the folder was pruned within the last `interval`
    seconds, another process is pruning it now, or no entry was added or deleted since a
    listing found it within this bound (the module's docstring says why): then None, and the
    folder is not listed. Where the stamp cannot be written (a read-only folder, a system
    without fcntl), it prunes as prune() does."""
    if not HAVE_FLOCK:
        return prune(folder, max_bytes)
    try:
        fd = os.open(os.path.join(folder, STAMP), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:  # no folder (nothing to prune) or not writable
        return prune(folder, max_bytes)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return None  # another process is pruning it now
        st = os.fstat(fd)
        now = time.time()
        # A stamp of size 0 was just created, never marked; a stamp from the future (a clock
        # set back) does not count as recent.
        if st.st_size > 0 and now - interval < st.st_mtime <= now:
            return None
        # The folder's modification time before the listing, and the bound: when a listing
        # deleted nothing, the folder held at most the bound then, and holds the same entries
        # while its modification time is the same (an entry added, deleted or renamed
        # changes it; JAX writes each entry once, under a new name).
        mark = b"unchanged since %d within %d\n" % (os.stat(folder).st_mtime_ns, max_bytes)
        if os.read(fd, 256) == mark:
            os.utime(fd)
            return None
        deleted = prune(folder, max_bytes)
        os.ftruncate(fd, 0)
        # the stamp's modification time: now
        os.pwrite(fd, b"pruned\n" if deleted else mark, 0)
        return deleted
    finally:
        os.close(fd)
