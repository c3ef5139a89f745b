"""Drives the adapter program through a pipe, as the runner does (spec/protocol.md)."""

import functools
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(os.path.dirname(HERE), "devspec_adapter.py")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
VENV_PYTHON = os.path.join(TOP, ".venv", "bin", "python")

# Where each library's adapter runs and with what environment (as in adapters/adapters.json).
LIBRARIES = {
    "numpy": {},
    "array-api-strict": {},
    "jax": {"XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_ENABLE_X64": "1",
            "JAX_PLATFORMS": "cpu"},
    "torch": {},
    "tinygrad": {"DEV": "CPU"},
    "ivy": {},
}


def interpreter(library):
    """torch runs on Debian's interpreter (python3-torch); the others on the venv's, or on
    the interpreter running the tests when there is no venv."""
    if library == "torch":
        return "/usr/bin/python3"
    return VENV_PYTHON if os.path.exists(VENV_PYTHON) else sys.executable


@functools.lru_cache(maxsize=None)
def importable(library):
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
    def __init__(self, library, extra_env=None):
        env = dict(os.environ, **LIBRARIES[library])
        env.update(extra_env or {})
        self.proc = subprocess.Popen([interpreter(library), PROGRAM, "--library", library],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.next_id = 0

    def send_raw(self, line):
        """Writes one raw line and returns the decoded reply."""
        self.proc.stdin.write(line if isinstance(line, bytes) else line.encode())
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        assert reply, "adapter closed stdout; stderr: %s" % self.stderr_tail()
        return json.loads(reply)

    def request(self, op, args=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"id": rid, "op": op}
        if args is not None:
            msg["args"] = args
        reply = self.send_raw(json.dumps(msg) + "\n")
        assert reply["id"] == rid, reply
        return reply

    def ok(self, op, args=None):
        reply = self.request(op, args)
        assert reply["ok"], "%s %s -> %s" % (op, args, reply)
        return reply["result"]

    def err(self, op, args=None):
        reply = self.request(op, args)
        assert not reply["ok"], "%s %s unexpectedly succeeded: %s" % (op, args, reply)
        return reply["error"]

    def stderr_tail(self):
        try:
            self.proc.stdin.close()
        except Exception:
            pass
        return self.proc.stderr.read()[-2000:].decode(errors="replace")

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode
