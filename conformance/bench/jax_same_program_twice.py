#!/usr/bin/env python3
"""JAX compiles the same XLA program twice in one process, no adapter involved.

    python jax_same_program_twice.py


Two eager calls whose jit cache keys differ (static arguments that are not equal, or two
different Python functions) but that lower to the same module: JAX's in-memory caches miss
on the second, so it lowers again and looks the program up in (or compiles it into) the
persistent cache again. The persistent cache is set up as devspec's adapters.json sets it,
by environment variables, only to log each program's key; jax.config is not touched. The
calls are those of suite cases whose programs JAX compiled twice in one worker
(spec/decisions.md, Runner and reports 20). The last line counts the programs compiled and
the distinct ones. Standard-library Python and JAX.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable

os.environ.update(JAX_COMPILATION_CACHE_DIR=tempfile.mkdtemp(), JAX_PLATFORMS="cpu",
                  JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
                  JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0", JAX_ENABLE_X64="1")
import jax
import jax.numpy as jnp

seen: list[str] = []
shown: list[str] = []


class Keys(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        m = record.getMessage()
        if m.startswith(("Persistent compilation cache hit for ",
                         "PERSISTENT COMPILATION CACHE MISS for ")):
            seen.append(m.split(" with key ")[1][:50] if " with key " in m else m)


log = logging.getLogger("jax._src.compiler")
log.addHandler(Keys())
log.setLevel(logging.DEBUG)


def show(what: str, thunk: Callable[[], object]) -> None:
    before = len(seen)
    jax.block_until_ready(thunk())
    new = seen[before:]
    shown.extend(new)
    print("%-58s %d program(s): %s" % (what, len(new), ", ".join(new) or "-"))


x = jnp.asarray([1.0, 2.0, 3.0, 4.0])
c = jnp.asarray([1 + 1j, 2, 3, 4])
m = jnp.ones((2, 2))
show("moveaxis(x, -1, 0)  (1-d: the identity)", lambda: jnp.moveaxis(x, -1, 0))
show("moveaxis(x, 0, -1)  (the same program)", lambda: jnp.moveaxis(x, 0, -1))
show("moveaxis(x, 0, -1)  again (the in-memory cache hits)", lambda: jnp.moveaxis(x, 0, -1))
show("fft.fft(c)  (moveaxis -1 -> 0 and back)", lambda: jnp.fft.fft(c))
show("matmul(m, m)", lambda: jnp.matmul(m, m))
show("m @ m  (Array.__matmul__)", lambda: m @ m)
show("linalg.matmul(m, m)", lambda: jnp.linalg.matmul(m, m))
show("sort(x)  (axis=-1)", lambda: jnp.sort(x))
show("sort(x, axis=0)  (1-d: the same axis)", lambda: jnp.sort(x, axis=0))
show("fft.fftshift(x)", lambda: jnp.fft.fftshift(x))
show("fft.ifftshift(x)  (4 elements: the same roll)", lambda: jnp.fft.ifftshift(x))
show("tril(m)", lambda: jnp.tril(m))
show("tril(m, k=0)  (the default given as a keyword)", lambda: jnp.tril(m, k=0))
print("the calls above: %d programs compiled, %d distinct; JAX %s"
      % (len(shown), len(set(shown)), jax.__version__))
