#!/usr/bin/env python3
"""devspec's out-of-process adapter for Python array libraries.

    devspec_adapter.py --library NAME     (numpy, array-api-strict, jax, torch, tinygrad, ivy)
    devspec_adapter.py --module SPEC      (any array API namespace: MODULE, MODULE.attr,
                                           MODULE:FACTORY; --compat, --claims FILE,
                                           --claim F, --unclaim F, --device Dn=DEVICE)
    devspec_adapter.py --library jax --ranks N   (JAX's first N devices play N ranks)

Speaks spec/protocol.md on stdin/stdout, one JSON object per line; logs go to stderr.
Standard-library only: the library is imported by its backend, after the arguments are
checked. --library drives one of the named backends (devspec_py/backends/); --module drives
any array API namespace with no code of its own (devspec_py/backends/namespace.py). --ranks N
makes one process play N ranks of OneFlow's global arrays, one device each, for a library
that has global arrays over devices (JAX); hello then says "ranks": N. Exit status: 0 at end
of input or after 'bye'; 2 for a bad command line; 3 when the library cannot be imported (or
the module is no array API namespace, or the library cannot play the ranks).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# The oldest Python the adapter runs on: devspec_py uses X | Y unions at run time (3.10).
# pip accepts an older Python for the runner's own package; python:MODULE on it is refused
# here, before an import fails with a traceback.
if sys.version_info < (3, 10):  # noqa: UP036 (the check is for the Python it runs on)
    sys.stderr.write(
        "devspec_adapter: Python %d.%d is too old: the Python adapter needs Python 3.10 or newer "
        "(give the runner --python PATH to another interpreter)\n" % sys.version_info[:2])
    sys.exit(3)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from devspec_py import selfcheck
from devspec_py.backend import BaseBackend
from devspec_py.backends import BACKENDS, backend_class
from devspec_py.ops import make_server


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line; a bad one exits 2 with the usage on stderr."""
    parser = argparse.ArgumentParser(
        prog="devspec_adapter.py",
        description="devspec's adapter for Python array libraries (spec/protocol.md on "
                    "stdin/stdout).")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--library", choices=list(BACKENDS), metavar="NAME",
                       help="a library with a backend of its own: %s" % ", ".join(BACKENDS))
    which.add_argument("--module", metavar="MODULE",
                       help="any module that is an array API namespace (it has "
                            "__array_api_version__), e.g. array_api_strict, numpy, "
                            "array_api_compat.torch")
    parser.add_argument("--ranks", type=int, metavar="N",
                        help="play N ranks of global arrays, one device each (jax)")
    module = parser.add_argument_group(
        "with --module", "settings a maintainer gives without code; they win over a "
        "[tool.devspec] table in the library's pyproject.toml and over --claims FILE")
    module.add_argument("--compat", action="store_true", default=None,
                        help="use array-api-compat's device(x) and to_device(x, d) instead of "
                             "the arrays' own .device and .to_device (said in the report)")
    module.add_argument("--claims", metavar="FILE",
                        help="a TOML file with a [tool.devspec] table (claim, unclaim, devices, "
                             "compat), or those keys at its top")
    module.add_argument("--claim", action="append", default=[], metavar="FEATURE",
                        help="claim FEATURE whatever the probes found (repeatable)")
    module.add_argument("--unclaim", action="append", default=[], metavar="FEATURE",
                        help="never claim FEATURE (repeatable)")
    module.add_argument("--device", action="append", default=[], metavar="Dn=DEVICE",
                        help="bind $Dn to the listed device whose str() is DEVICE "
                             "(repeatable: --device D0=cpu --device D1=cuda:1)")
    options = parser.parse_args(argv)
    if options.module is None:
        for flag in ("compat", "claims"):
            if getattr(options, flag) is not None:
                parser.error("--%s goes with --module" % flag)
        for flag in ("claim", "unclaim", "device"):
            if getattr(options, flag):
                parser.error("--%s goes with --module" % flag)
    for item in options.device:
        binding, eq, _ = item.partition("=")
        if not eq or not binding.startswith("D") or not binding[1:].isdigit():
            parser.error("--device %s: expected Dn=DEVICE, e.g. D1=cuda:1" % item)
    if options.ranks is not None and options.ranks < 1:
        parser.error("--ranks must be at least 1")
    if options.ranks is not None and options.module is not None:
        parser.error("--ranks needs --library (a backend with global arrays)")
    return options


def load(options: argparse.Namespace) -> BaseBackend:
    """The backend the command line names (this imports the library)."""
    if options.module is not None:
        from devspec_py.backends.namespace import NamespaceBackend, load_overrides
        from devspec_py.discovery import Overrides
        cli = Overrides(compat=options.compat)
        for feature in options.claim:
            cli.set_claim(feature, True, "--claim " + feature)
        for feature in options.unclaim:
            cli.set_claim(feature, False, "--unclaim " + feature)
        for item in options.device:
            binding, _, text = item.partition("=")
            cli.set_device(binding, text, "--device")
        return NamespaceBackend(options.module,
                                load_overrides(options.module, options.claims, cli))
    backend = backend_class(options.library)()
    if options.ranks is not None:
        backend.play_ranks(options.ranks)
    return backend


def main(argv: list[str]) -> int:
    options = parse(argv)
    name: str = options.library or options.module
    # Stdout carries only protocol replies: keep a private copy of it, and send whatever
    # the library or its C code prints to fd 1 to stderr instead.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    start = time.perf_counter()
    try:
        backend = load(options)
    except Exception as exc:
        sys.stderr.write("devspec_adapter: cannot load %s: %s: %s\n" %
                         (name, type(exc).__name__, exc))
        return 3
    sys.stderr.write("devspec_adapter: %s %s loaded in %.3f s\n" %
                     (name, backend.library_version(), time.perf_counter() - start))
    server = make_server(backend)
    recorder = selfcheck.recorder_from_env(options.library, options.module)
    if recorder is not None:
        # What the library reports about itself at start, after hello and at the end
        # (devspec_py/selfcheck.py): the test that the adapter never reconfigures it.
        recorder.record("start")
        server.after_hello = lambda: recorder.record("hello")
        status = server.serve(sys.stdin.buffer, out)
        recorder.record("end")
        return status
    return server.serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
