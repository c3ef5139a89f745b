"""What a library reports about itself, so that a test can hold the adapter to its rule: an
adapter observes the library it drives and never reconfigures it (spec/decisions.md,
"Python libraries: the adapter never changes the library").

fingerprint(module) answers, for an array API namespace (or a library without one): its
declared version; its inspection namespace's devices, default device, default dtypes,
dtypes (over all, and per device) and capabilities; and the configuration flags of the
libraries that have them (JAX's 64-bit mode and default device, torch's default dtype,
NumPy's error state, array-api-strict's flags, tinygrad's default device, Ivy's backend and
defaults). Every value is text or plain JSON, so two fingerprints compare with ==.

The adapter writes one line of JSON per moment to the file DEVSPEC_PY_SELFCHECK names: at
start (the library loaded, before the first request), after hello, and at bye (after the
last case). `python -m devspec_py.selfcheck MODULE` prints the fingerprint in a plain
interpreter, with this module as the only thing of devspec's imported, for the comparison.

A backend whose documented set-up configures the library (Ivy's NumPy backend) declares it
in SETUP, the one place where such a choice is written; the plain interpreter makes the same
call, so the comparison still catches anything else.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

# The backend names of devspec_py.backends and the namespace each one drives.
NAMESPACES = {
    "numpy": "numpy",
    "array-api-strict": "array_api_strict",
    "jax": "jax.numpy",
    "torch": "torch",
    "tinygrad": "tinygrad",
    "ivy": "ivy",
    "oneflow": "oneflow",
}

# What a backend's documented set-up does to its library, as code the plain interpreter runs
# too (backends/ivy.py: Ivy computes nothing until a backend is set).
SETUP: dict[str, Callable[[Any], None]] = {
    "ivy": lambda ivy: ivy.set_backend("numpy"),
}


def _text(value: Any) -> Any:
    """value as JSON: containers kept, everything else its str (devices, dtypes)."""
    if isinstance(value, dict):
        return {str(k): _text(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_text(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _ask(out: dict[str, Any], key: str, fn: Callable[[], Any]) -> None:
    """out[key] = what fn answers, or the exception it raised (a probe that fails is part
    of what the library reports)."""
    try:
        out[key] = _text(fn())
    except Exception as e:  # the library's own refusal is a fact about it
        out[key] = "raises %s: %s" % (type(e).__name__, e)


def _namespace_facts(xp: Any, out: dict[str, Any]) -> None:
    if hasattr(xp, "__array_api_version__"):
        out["__array_api_version__"] = _text(xp.__array_api_version__)
    make_info = getattr(xp, "__array_namespace_info__", None)
    if make_info is None:
        return
    info = make_info()
    for name in ("devices", "default_device", "default_dtypes", "dtypes", "capabilities"):
        if hasattr(info, name):
            _ask(out, "info." + name, getattr(info, name))
    devices = out.get("info.devices")
    if isinstance(devices, list) and hasattr(info, "dtypes"):
        listed: list[Any] = []
        try:
            listed = list(info.devices())
        except Exception:  # already recorded above
            listed = []
        for dev in listed:
            _ask(out, "info.dtypes(device=%s)" % dev, functools.partial(info.dtypes, device=dev))
            if hasattr(info, "default_dtypes"):
                _ask(out, "info.default_dtypes(device=%s)" % dev,
                     functools.partial(info.default_dtypes, device=dev))


def _jax_flags(out: dict[str, Any]) -> None:
    jax = sys.modules["jax"]
    for flag in ("jax_enable_x64", "jax_default_device", "jax_default_matmul_precision",
                 "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion", "jax_platforms",
                 "jax_default_prng_impl", "jax_disable_jit"):
        _ask(out, "jax.config." + flag, functools.partial(getattr, jax.config, flag))
    _ask(out, "jax.devices()", jax.devices)


def _torch_flags(out: dict[str, Any]) -> None:
    torch = sys.modules["torch"]
    _ask(out, "torch.get_default_dtype()", torch.get_default_dtype)
    if hasattr(torch, "get_default_device"):
        _ask(out, "torch.get_default_device()", torch.get_default_device)
    _ask(out, "torch.are_deterministic_algorithms_enabled()",
         torch.are_deterministic_algorithms_enabled)
    _ask(out, "torch.is_grad_enabled()", torch.is_grad_enabled)


def _numpy_flags(out: dict[str, Any]) -> None:
    np = sys.modules["numpy"]
    _ask(out, "numpy.geterr()", np.geterr)
    _ask(out, "numpy.get_printoptions()", np.get_printoptions)


def _strict_flags(out: dict[str, Any]) -> None:
    strict = sys.modules["array_api_strict"]
    _ask(out, "array_api_strict.get_array_api_strict_flags()",
         strict.get_array_api_strict_flags)


def _tinygrad_flags(out: dict[str, Any]) -> None:
    tinygrad = sys.modules["tinygrad"]
    _ask(out, "tinygrad.Device.DEFAULT", lambda: tinygrad.Device.DEFAULT)


def _ivy_flags(out: dict[str, Any]) -> None:
    ivy = sys.modules["ivy"]
    _ask(out, "ivy.current_backend_str()", ivy.current_backend_str)
    _ask(out, "ivy.default_device()", ivy.default_device)
    _ask(out, "ivy.soft_device_mode", lambda: ivy.soft_device_mode)
    _ask(out, "ivy.default_float_dtype()", ivy.default_float_dtype)
    _ask(out, "ivy.default_int_dtype()", ivy.default_int_dtype)


# Flags by the top-level package of the namespace (and of the library an array API wrapper
# such as array_api_compat.torch drives, when that library is loaded).
FLAGS: dict[str, Callable[[dict[str, Any]], None]] = {
    "jax": _jax_flags,
    "torch": _torch_flags,
    "numpy": _numpy_flags,
    "array_api_strict": _strict_flags,
    "tinygrad": _tinygrad_flags,
    "ivy": _ivy_flags,
}


def fingerprint(namespace: str) -> dict[str, Any]:
    """What the library behind the namespace `namespace` (a module name, or MODULE.attr)
    reports about itself now. Flags are read for the packages the module's name is made of
    (array_api_compat.torch: torch), and only when already imported, so that asking imports
    nothing new."""
    module, _, attr = namespace.partition(":")
    xp: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        xp = getattr(xp, part)
    out: dict[str, Any] = {"namespace": namespace}
    _namespace_facts(xp, out)
    for part in dict.fromkeys(module.split(".")):
        read = FLAGS.get(part)
        if read is not None and part in sys.modules:
            read(out)
    return out


def namespace_of(library: str | None, module: str | None) -> str:
    """The namespace the adapter's command line drives (--library NAME or --module SPEC)."""
    if module is not None:
        return module
    assert library is not None
    return NAMESPACES[library]


class Recorder:
    """Writes fingerprints to the file DEVSPEC_PY_SELFCHECK names, one JSON line per moment."""

    def __init__(self, path: str, namespace: str) -> None:
        self.path, self.namespace = path, namespace

    def record(self, moment: str) -> None:
        line = json.dumps({"at": moment, "pid": os.getpid(),
                           "fingerprint": fingerprint(self.namespace)}) + "\n"
        # One write of the whole line in append mode: workers of one run share the file.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)


def recorder_from_env(library: str | None, module: str | None) -> Recorder | None:
    path = os.environ.get("DEVSPEC_PY_SELFCHECK")
    if not path:
        return None
    return Recorder(path, namespace_of(library, module))


def plain(library_or_module: str) -> dict[str, Any]:
    """The fingerprint in this interpreter, with the documented set-up (SETUP) only."""
    namespace = NAMESPACES.get(library_or_module, library_or_module)
    setup = SETUP.get(library_or_module)
    if setup is not None:
        setup(importlib.import_module(namespace.split(":")[0]))
    else:
        importlib.import_module(namespace.partition(":")[0])
    return fingerprint(namespace)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python -m devspec_py.selfcheck LIBRARY|MODULE\n")
        sys.exit(2)
    print(json.dumps(plain(sys.argv[1])))
