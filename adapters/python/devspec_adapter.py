#!/usr/bin/env python3
"""devspec's out-of-process adapter for Python array libraries.

    devspec_adapter.py --library NAME     (numpy, array-api-strict, jax, torch, tinygrad, ivy)

Speaks spec/protocol.md on stdin/stdout, one JSON object per line; logs go to stderr.
Standard-library only: the library is imported by its backend, after the arguments are
checked. Exit status: 0 at end of input or after 'bye'; 2 for a bad command line; 3 when
the library cannot be imported.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from devspec_py.libraries import BACKENDS  # noqa: E402
from devspec_py.ops import make_server  # noqa: E402

USAGE = "usage: devspec_adapter.py --library NAME   (NAME: %s)" % ", ".join(BACKENDS)


def parse(argv):
    name = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if a == "--library" and i + 1 < len(argv):
            name = argv[i + 1]
            i += 2
        elif a.startswith("--library="):
            name = a.split("=", 1)[1]
            i += 1
        else:
            sys.stderr.write("devspec_adapter: unknown argument '%s'\n%s\n" % (a, USAGE))
            sys.exit(2)
    if name is None:
        sys.stderr.write("devspec_adapter: --library is required\n%s\n" % USAGE)
        sys.exit(2)
    if name not in BACKENDS:
        sys.stderr.write("devspec_adapter: unknown library '%s'\n%s\n" % (name, USAGE))
        sys.exit(2)
    return name


def main(argv):
    name = parse(argv)
    # Stdout carries only protocol replies: keep a private copy of it, and send whatever
    # the library or its C code prints to fd 1 to stderr instead.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    start = time.perf_counter()
    try:
        backend = BACKENDS[name]()
    except Exception as exc:
        sys.stderr.write("devspec_adapter: cannot load %s: %s: %s\n" %
                         (name, type(exc).__name__, exc))
        return 3
    sys.stderr.write("devspec_adapter: %s %s loaded in %.3f s\n" %
                     (name, backend.library_version(), time.perf_counter() - start))
    return make_server(backend).serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
