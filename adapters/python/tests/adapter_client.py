"""Drives the adapter program through a pipe, as the runner does (spec/protocol.md)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(os.path.dirname(HERE), "devspec_adapter.py")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
VENV_PYTHON = os.path.join(TOP, ".venv", "bin", "python")
LIBRARY_NAMES = ("numpy", "array-api-strict", "jax", "torch", "tinygrad", "ivy")


# The build folder, as scripts/run-suite.sh names it (${BUILD} in adapters.json).
BUILD = os.path.join(TOP, os.environ.get("DEVSPEC_BUILD", "build"))


def _registry() -> dict[str, tuple[str, dict[str, str]]]:
    """Each library's interpreter and environment, as adapters/adapters.json starts it."""
    with open(os.path.join(TOP, "adapters", "adapters.json"), encoding="utf-8") as f:
        entries = {a["name"]: a for a in json.load(f)["adapters"]}
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for name in LIBRARY_NAMES:
        entry = entries[name]
        command = [c.replace("${SOURCE}", TOP) for c in entry["command"]]
        assert command[1:] == [PROGRAM, "--library", name], command
        out[name] = (command[0], {k: v.replace("${SOURCE}", TOP).replace("${BUILD}", BUILD)
                                  for k, v in entry.get("env", {}).items()})
    return out


REGISTRY = _registry()
LIBRARIES = {name: env for name, (_, env) in REGISTRY.items()}


def interpreter(library: str) -> str:
    """The interpreter adapters.json names (Debian's for torch, the venv's for the others);
    the one running the tests when the venv does not exist."""
    python = REGISTRY[library][0]
    if python == VENV_PYTHON and not os.path.exists(VENV_PYTHON):
        return sys.executable
    return python


@functools.cache
def importable(library: str) -> tuple[bool, str]:
    """(True, "") when the library loads under its interpreter, else (False, why)."""
    module = {"array-api-strict": "array_api_strict"}.get(library, library)
    if library == "tinygrad" and shutil.which(os.environ.get("CC", "clang")) is None:
        return False, "tinygrad's CPU backend needs clang, which is not installed"
    env = dict(os.environ, **LIBRARIES[library])
    proc = subprocess.run([interpreter(library), "-c", "import " + module],
                          capture_output=True, text=True, env=env)
    if proc.returncode == 0:
        return True, ""
    lines = proc.stderr.strip().splitlines()
    return False, "%s does not import under %s: %s" % (library, interpreter(library),
                                                       lines[-1] if lines else "?")


class Adapter:
    def __init__(self, library: str, extra_env: Mapping[str, str] | None = None,
                 extra_args: Sequence[str] = ()) -> None:
        env = dict(os.environ, **LIBRARIES[library])
        env.update(extra_env or {})
        self.proc = subprocess.Popen([interpreter(library), PROGRAM, "--library", library,
                                      *extra_args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.next_id = 0
        self.stderr_text = ""  # what the program wrote to stderr, once closed

    def _pipe(self, stream: IO[bytes] | None) -> IO[bytes]:
        assert stream is not None  # every stream of the process is a pipe
        return stream

    def send_raw(self, line: str | bytes) -> Any:
        """Writes one raw line and returns the decoded reply."""
        stdin = self._pipe(self.proc.stdin)
        stdin.write(line if isinstance(line, bytes) else line.encode())
        stdin.flush()
        reply = self._pipe(self.proc.stdout).readline()
        assert reply, "adapter closed stdout; stderr: %s" % self.stderr_tail()
        return json.loads(reply)

    def request(self, op: str, args: Any = None) -> Any:
        rid = self.next_id
        self.next_id += 1
        msg: dict[str, Any] = {"id": rid, "op": op}
        if args is not None:
            msg["args"] = args
        reply = self.send_raw(json.dumps(msg) + "\n")
        assert reply["id"] == rid, reply
        return reply

    def ok(self, op: str, args: Any = None) -> Any:
        reply = self.request(op, args)
        assert reply["ok"], "%s %s -> %s" % (op, args, reply)
        return reply["result"]

    def err(self, op: str, args: Any = None) -> Any:
        reply = self.request(op, args)
        assert not reply["ok"], "%s %s unexpectedly succeeded: %s" % (op, args, reply)
        return reply["error"]

    def stderr_tail(self) -> str:
        with contextlib.suppress(Exception):
            self._pipe(self.proc.stdin).close()
        return self._pipe(self.proc.stderr).read()[-2000:].decode(errors="replace")

    def close(self) -> int:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self._pipe(self.proc.stdin).close()
            self.proc.wait(timeout=30)
        self._pipe(self.proc.stdout).close()
        self.stderr_text = self._pipe(self.proc.stderr).read().decode(errors="replace")
        self._pipe(self.proc.stderr).close()
        return self.proc.returncode


_SESSIONS: dict[str, tuple[Adapter, Any]] = {}


def shared_session(library: str) -> tuple[Adapter, Any]:
    """One adapter process per library for a whole test run, as the runner uses one per run:
    (adapter, hello result), after a reset."""
    if library not in _SESSIONS or _SESSIONS[library][0].proc.poll() is not None:
        a = Adapter(library)
        _SESSIONS[library] = (a, a.ok("hello", {"protocol": 1}))
    a, hello = _SESSIONS[library]
    a.ok("reset")
    return a, hello


def close_sessions() -> dict[str, int]:
    """Ends every shared session; returns {library: exit status}."""
    statuses = {}
    while _SESSIONS:
        library, (a, _) = _SESSIONS.popitem()
        statuses[library] = a.close()
    return statuses
