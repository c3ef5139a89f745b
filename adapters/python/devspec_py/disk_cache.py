"""A library's on-disk cache of compiled programs, held to a size at the adapter's start.

JAX keeps its persistent compilation cache in the folder JAX_COMPILATION_CACHE_DIR names
(adapters.json puts it in the build folder). JAX's own bound, JAX_COMPILATION_CACHE_MAX_SIZE,
lists and reads the whole folder on every entry it writes, which makes a cold run's writes
quadratic in the entries (spec/decisions.md, "Python libraries", 12); the adapter bounds the
folder once per start instead, which is linear and leaves JAX's writes as cheap as with no
bound."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping

ENV_MAX_BYTES = "DEVSPEC_JAX_CACHE_MAX_BYTES"
# The names of the cache's entries (JAX's: an executable NAME-cache, its access time
# NAME-atime): nothing else in the folder is counted or deleted, wherever the folder is set.
ENTRY_SUFFIXES = ("-cache", "-atime")


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
