"""Any array API namespace: no code per library (`devspec_adapter.py --module SPEC`,
`devspec run --adapter python:SPEC`).

SPEC is found as discovery.py says (`MODULE`, `MODULE.attr`, `MODULE:FACTORY`, through the
arrays' `__array_namespace__()`, or with `--compat` through array-api-compat). At start-up,
before `hello` is answered, the backend finds out what the library does, each question a probe
of its own: a probe that raises is written down ("could not determine info.dtypes(): TypeError:
...") and whatever depends on it is not claimed; the run goes on. Then:

- devices: every device the inspection namespace lists is tried (an array created on it, read
  back, moved to the default device and back); one that fails is left out of `devices`, with
  the reason. `D0` is the default device, `D1`, ... the others in the library's order, unless
  the maintainer binds them (`--device D1=TEXT`, `[tool.devspec] devices`).
- claims: the features the declared `__array_api_version__` makes non-optional (those that
  need the inspection namespace only when its probes answered); the optional ones only when a
  probe called the function once on a tiny array and it answered; then the maintainer's
  `claim`/`unclaim`. Each feature's reason travels in `hello` ("claims").
- warm-up: one call of the common functions on every bound device, so that a library that
  compiles on first use does it before the first case (under the runner's --start-timeout).

While the cases run, whatever the library does not provide (a function, a method, a dtype, a
keyword; a parameter under another name than the standard's) answers the LACKS error
(`Lacks`: kind NotImplementedError, origin library, `lacks` naming it as the standard does).
By default the arrays' own `.device` and `.to_device` are used; with `--compat`,
array-api-compat's `device(x)` and `to_device(x, d)`, and the notes say so.
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from .. import dlpack
from ..array_api import NEEDS_INFO, REQUIRED, ArrayAPIBackend
from ..backend import Array, Device, DType, Kw
from ..call import FEATURES as CALL_FEATURES
from ..discovery import (
    NotANamespace,
    Overrides,
    find_pyproject,
    identity,
    param_by_standard,
    pyproject_table,
    resolve,
    signature_of,
    standard_params,
)
from ..errors import Lacks, Unsupported, native_name
from ..protocol import DTYPES
from ..values import TypedArray, nest

__all__ = ["NamespaceBackend", "NotANamespace", "claimed_version"]

FAILED: Any = object()  # a probe's answer when it raised


def claimed_version(declared: str) -> str | None:
    """The version whose required features a module declaring DECLARED claims: the declared
    one, or for a later version than devspec knows, the latest devspec knows."""
    if declared in REQUIRED:
        return declared
    known = sorted(REQUIRED)
    if declared > known[-1] and declared[:4].isdigit():
        return known[-1]
    return None


def load_overrides(spec: str, claims_file: str | None, cli: Overrides) -> Overrides:
    """The maintainer's settings: [tool.devspec] of the pyproject.toml above SPEC's module,
    then a devspec.toml in the current folder (where `devspec run` was started: the way to
    give settings through `--adapter python:SPEC`, which passes no flags), then --claims
    FILE, then the command line's flags (CLI), each later one winning."""
    from ..discovery import _import_attr
    module, _ = _import_attr(spec.split(":")[0])
    merged = Overrides()
    found = find_pyproject(module)
    if found is not None:
        table = pyproject_table(found)
        if table is not None:
            merged.merge_table(table, "[tool.devspec] in " + found)
    here = os.path.abspath("devspec.toml")
    if os.path.isfile(here):
        merged.read_file(here)
    if claims_file is not None:
        merged.read_file(claims_file)
    for feature, where in cli.claim.items():
        merged.set_claim(feature, True, where)
    for feature, where in cli.unclaim.items():
        merged.set_claim(feature, False, where)
    for binding, text in cli.devices.items():
        merged.set_device(binding, text, "--device")
    if cli.compat is not None:
        merged.compat = cli.compat
    return merged


class NamespaceBackend(ArrayAPIBackend):
    """The ops of an array API namespace, with what it claims found out at start-up."""

    def __init__(self, spec: str, overrides: Overrides | None = None,
                 warm_up: bool = True) -> None:
        self.spec = spec
        self.overrides = overrides or Overrides()
        self.compat = bool(self.overrides.compat)
        self.notes: list[str] = []
        self.claims: dict[str, dict[str, Any]] = {}
        self.excluded: list[dict[str, str]] = []
        self.probed: dict[str, bool] = {}  # what a probe asked -> whether it answered
        self.listed_dtypes: frozenset[str] | None = None  # info.dtypes() over the devices
        self._signatures: dict[Any, inspect.Signature | None] = {}
        resolved = resolve(spec, self.compat)
        self.xp = resolved.xp
        self.module = spec
        self.declared = str(self.xp.__array_api_version__)
        self.params = standard_params(claimed_version(self.declared) or self.declared)
        if not self.params:
            self.notes.append("spec/signatures.json not found: parameters are looked up by "
                              "name only")
        self.notes.append("namespace: %s, array API version %s" % (resolved.how, self.declared))
        self.helpers: Any = None
        if self.compat:
            import array_api_compat
            self.helpers = array_api_compat
            self.notes.append("devices through array-api-compat %s's device(x) and "
                              "to_device(x, device) (--compat), not the arrays' own .device "
                              "and .to_device" % array_api_compat.__version__)
        for where in self.overrides.sources:
            self.notes.append("settings read from " + where)
        sample = self.probe("an array from asarray([0, 1])", lambda: self.xp.asarray([0, 1]))
        self.array_type: type | None = None if sample is FAILED else type(sample)
        self.library_name, self.version, self.wrapper = identity(self.xp, self.array_type, spec)
        self.info_ns = self.probe_info()
        self.default, self.bound = self.choose_devices()
        self.features = self.discover_features()
        if warm_up:
            self.warm_up()

    # -- probes ----------------------------------------------------------------------------
    def probe(self, what: str, fn: Callable[[], Any]) -> Any:
        """fn(), or FAILED with "could not determine WHAT: Error: message" in the notes."""
        try:
            found = fn()
        except Exception as exc:
            self.notes.append("could not determine %s: %s: %s" % (what, native_name(exc), exc))
            self.probed[what] = False
            return FAILED
        self.probed[what] = True
        return found

    def probe_info(self) -> Any:
        make = getattr(self.xp, "__array_namespace_info__", None)
        if not callable(make):
            self.notes.append("the namespace has no __array_namespace_info__: its devices "
                              "are not listed")
            return None
        found = self.probe("__array_namespace_info__()", make)
        return None if found is FAILED else found

    # -- devices ---------------------------------------------------------------------------
    def choose_devices(self) -> tuple[Device, list[Device]]:
        """(the default device, the devices to bind: D0 first), each checked usable."""
        listed: list[Device] = []
        default: Any = FAILED
        if self.info_ns is not None:
            got = self.probe("info.devices()", lambda: list(self.info_ns.devices()))
            if got is not FAILED:
                # JAX lists None (an uncommitted placement): no device of its own.
                listed = [d for d in got if d is not None]
            default = self.probe("info.default_device()", self.info_ns.default_device)
        if default is FAILED or default is None:
            default = self.probe("the default device (empty(()).device)",
                                 lambda: self.device_of(self.xp.empty(())))
        if default is FAILED:
            default = listed[0] if listed else None
        if default is None and not listed and not self.overrides.devices:
            # No device to bind at all (no inspection namespace, arrays without .device, as
            # mlx.core in a namespace of two lines): D0 is None, the library's default
            # placement, so that the cases run and charge what the library lacks
            # (Array.device, the device keyword) instead of all being skipped for want of a
            # device, which left every profile undetermined.
            self.notes.append("no device found (no inspection namespace lists one, and the "
                              "default device could not be read from an array): D0 is None, "
                              "the library's default placement")
            self.default = None
            return None, [None]
        if default is not None and not any(self.same(default, d) for d in listed):
            listed.insert(0, default)
        self.default = default  # reading an array elsewhere copies it here
        usable = []
        for dev in listed:
            why = self.check_device(dev, default)
            if why is None:
                usable.append(dev)
            else:
                self.excluded.append({"str": self.device_str(dev), "why": why})
                self.notes.append("device %s left out: %s" % (self.device_str(dev), why))
        bound = self.bind(usable, listed)
        if not bound:
            self.notes.append("no usable device: no case can bind D0")
            return default, []
        if default is None or not self.same(bound[0], default):
            self.notes.append("D0 is %s%s" % (self.device_str(bound[0]),
                                              "" if default is None else ", not the default "
                                              "device %s" % self.device_str(default)))
        return bound[0], bound

    def bind(self, usable: list[Device], listed: list[Device]) -> list[Device]:
        """The devices in binding order: the maintainer's D0, D1, ... first, then the usable
        ones in the library's order (D0 the default when nothing else is said)."""
        chosen: dict[int, Device] = {}
        if self.overrides.devices and not listed:
            raise ValueError("the settings bind %s, but the library lists no device"
                             % ", ".join(sorted(self.overrides.devices)))
        for binding, text in sorted(self.overrides.devices.items()):
            match = [d for d in listed if self.device_str(d) == text or repr(d) == text]
            if not match:
                raise ValueError("--device %s=%s: the library lists no such device (it lists "
                                 "%s)" % (binding, text,
                                          ", ".join(self.device_str(d) for d in listed)))
            if not any(self.same(match[0], u) for u in usable):
                self.notes.append("%s is %s as the settings say, though the check failed"
                                  % (binding, text))
            chosen[int(binding[1:])] = match[0]
            self.notes.append("%s bound to %s by the settings" % (binding, text))
        rest = [d for d in usable if not any(self.same(d, c) for c in chosen.values())]
        out: list[Device] = []
        for i in range(len(chosen) + len(rest)):
            if i in chosen:
                out.append(chosen[i])
            elif rest:
                out.append(rest.pop(0))
            else:
                raise ValueError("the settings bind D%d, but no usable device is left for D%d"
                                 % (max(chosen), i))
        return out

    def same(self, a: Device, b: Device) -> bool:
        try:
            return a is b or bool(a == b)
        except Exception:
            return False

    def check_device(self, dev: Device, default: Device) -> str | None:
        """None when an array can be created on dev, read back, and moved to and from the
        default device; else why not, naming the step that failed."""
        step = "creating asarray([1, 2], device=it)"
        try:
            x = self.fn("asarray", [1, 2], device=dev)
            step = "asking the array's device"
            where = self.device_of(x)
            if not self.same(where, dev):
                return "an array created on it reports device %s" % self.device_str(where)
            step = "reading the array back"
            got = self.values(x)
            if got != [1, 2]:
                return "an array [1, 2] created on it reads back as %r" % (got,)
            if default is not None and not self.same(dev, default):
                step = "moving the array to the default device %s" % self.device_str(default)
                y = self.move(x, default)
                if self.values(y) != [1, 2]:
                    return "moved to %s it reads %r" % (self.device_str(default),
                                                        self.values(y))
                step = "moving it back from the default device"
                z = self.move(y, dev)
                if not self.same(self.device_of(z), dev) or self.values(z) != [1, 2]:
                    return "moved back from %s it is not [1, 2] on it" % (
                        self.device_str(default))
        except Lacks as exc:
            # The default device needs no move to be read, and its cases report the lack;
            # any other device whose arrays cannot be placed, read or moved is of no use.
            if self.same(dev, default):
                return None
            return "%s: %s" % (step, exc)
        except Exception as exc:
            return "%s: %s: %s" % (step, native_name(exc), exc)
        return None

    def values(self, x: Array) -> list[Any]:
        return list(self.read(x)[2])

    # -- claims ----------------------------------------------------------------------------
    def claim(self, feature: str, claimed: bool, why: str) -> None:
        self.claims[feature] = {"claimed": claimed, "why": why}

    def discover_features(self) -> tuple[str, ...]:
        version = claimed_version(self.declared)
        if version is None:
            self.notes.append("array API version %r is not one devspec knows: no feature of "
                              "a version is claimed" % self.declared)
        else:
            for f in REQUIRED[version]:
                self.claim(f, True, "array API %s requires it (declared %s)"
                           % (version, self.declared))
            self.claim_info(version)
            self.claim_optional(version)
            for f in CALL_FEATURES:
                self.claim(f, True, "the generic call reaches the namespace's functions by name; "
                           "what it lacks answers lacks")
        for feature, where in self.overrides.claim.items():
            self.claim(feature, True, "claimed by " + where)
        for feature, where in self.overrides.unclaim.items():
            self.claim(feature, False, "not claimed: " + where)
        return tuple(f for f, c in self.claims.items() if c["claimed"])

    def claim_info(self, version: str) -> None:
        info = self.info_ns
        if info is None:
            for f in NEEDS_INFO:
                self.claim(f, False, "no inspection namespace (__array_namespace_info__)")
            return
        d0 = self.default
        answered = {}
        for name, call in (("info.devices()", lambda: info.devices()),
                           ("info.default_device()", lambda: info.default_device()),
                           ("info.dtypes()", lambda: info.dtypes()),
                           ("info.default_dtypes()", lambda: info.default_dtypes()),
                           ("info.dtypes(device=D0)", lambda: info.dtypes(device=d0))):
            if name in self.probed:
                answered[name] = self.probed[name]
            else:
                answered[name] = self.probe(name, call) is not FAILED
        for feature, needs in (("info-devices", ("info.devices()", "info.default_device()")),
                               ("info-dtypes", ("info.dtypes()", "info.default_dtypes()",
                                                "info.dtypes(device=D0)"))):
            failed = [n for n in needs if not answered[n]]
            if failed:
                self.claim(feature, False, "%s raised (see the notes)" % ", ".join(failed))
            else:
                self.claim(feature, True, "array API %s requires it and %s answered"
                           % (version, ", ".join(needs)))
        if self.claims["info-devices"]["claimed"] and version >= "2023.12":
            f = "info-devices-list" if version < "2025.12" else "info-devices-tuple"
            self.claim(f, True, "array API %s says devices() returns a %s"
                       % (version, "list" if version < "2025.12" else "tuple"))
        if answered["info.dtypes(device=D0)"] and self.bound:
            seen = self.probe("info.dtypes(device=D) for each device", lambda: {
                frozenset(info.dtypes(device=d)) for d in self.bound})
            if seen is not FAILED:
                # A dtype no device lists is one the library says it lacks (JAX without
                # 64-bit mode lists no int64, though jax.numpy.int64 exists and means int32).
                self.listed_dtypes = frozenset().union(*seen)
                missing = [n for n in DTYPES if n != "float16" and n not in self.listed_dtypes]
                if missing:
                    self.notes.append("no device lists the dtypes %s: they are lacked"
                                      % ", ".join(missing))
            if seen is FAILED or len(self.bound) < 2:
                pass
            elif len(seen) > 1:
                self.claim("dtype-device-support", True,
                           "info.dtypes(device=) lists different dtypes on different devices")
            elif seen is not FAILED:
                self.claim("dtype-device-support", False,
                           "info.dtypes(device=) lists the same dtypes on every device")

    def claim_optional(self, version: str) -> None:
        xp = self.xp
        d0 = self.default
        fft = getattr(xp, "fft", None)
        if version == "2021.12":
            self.claim("fft-freq-device", False, "array API 2021.12 has no fft extension")
        elif fft is None or not callable(getattr(fft, "fftfreq", None)):
            self.claim("fft-freq-device", False, "the namespace has no fft.fftfreq")
        else:
            got = self.probe("fft.fftfreq(4, device=D0)", lambda: self.values(
                self.call("fft.fftfreq", fft.fftfreq, 4, device=d0)))
            self.claim("fft-freq-device", got is not FAILED,
                       "fft.fftfreq(4, device=D0) answered" if got is not FAILED
                       else "fft.fftfreq(4, device=D0) raised (see the notes)")
        x = self.probe("asarray([1.0, 2.0], device=D0)",
                       lambda: xp.asarray([1.0, 2.0], device=d0))
        if x is FAILED:
            for f in ("dlpack-device", "dlpack-export", "device-keyword-only"):
                self.claim(f, False, "asarray([1.0, 2.0], device=D0) raised (see the notes)")
            return
        if not callable(getattr(xp, "from_dlpack", None)):
            self.claim("dlpack-device", False, "the namespace has no from_dlpack")
        else:
            got = self.probe("x.__dlpack_device__() and from_dlpack(x)", lambda: (
                tuple(x.__dlpack_device__()), self.values(xp.from_dlpack(x))))
            ok = got is not FAILED and len(got[0]) == 2 and got[1] == [1.0, 2.0]
            self.claim("dlpack-device", ok,
                       "x.__dlpack_device__() gave %r and from_dlpack(x) read back" % (got[0],)
                       if ok else "x.__dlpack_device__() or from_dlpack(x) failed (see the "
                       "notes)")
        if version < "2023.12":
            self.claim("dlpack-export", False, "__dlpack__(dl_device=, copy=) came in 2023.12")
        else:
            got = self.probe("x.__dlpack__(max_version=(1, 0), dl_device=, copy=None)",
                             lambda: dlpack.export(x, {"dl_device": tuple(
                                 x.__dlpack_device__()), "copy": None}))
            self.claim("dlpack-export", got is not FAILED,
                       "x.__dlpack__(dl_device=its own device, copy=None) exported" if got
                       is not FAILED else "x.__dlpack__(dl_device=, copy=) raised (see the "
                       "notes)")
        sig = signature_of(getattr(xp, "zeros", None))
        # The functions the standard gives a device parameter (creation functions,
        # from_dlpack, astype, fft.fftfreq, ...): their signatures must all be readable.
        unreadable = [fn for fn, (pos, kw) in self.params.items()
                      if "device" in pos + kw and not fn.startswith(("info.", "Array."))
                      and self.has(fn) and signature_of(self.need(fn)) is None]
        if sig is None or unreadable:
            self.claim("device-keyword-only", False, "the signature of %s cannot be read"
                       % ", ".join(unreadable or ["zeros"]))
        else:
            # The feature is about the signatures the library declares: readable ones are
            # claimed, and a device parameter missing or under another name is then lacked.
            found = param_by_standard("zeros", sig, "device", self.params)
            self.claim("device-keyword-only", True, "the signature of zeros can be read%s" % (
                "" if found.name == "device" else
                " (its parameter %r stands where the standard puts device)" % found.name
                if found.name else " (it has no parameter device)"))

    # -- warm-up ---------------------------------------------------------------------------
    def warm_up(self) -> None:
        """One call of the functions most cases use, on each bound device, so that a
        library that compiles on first use does so before hello is answered."""
        start = time.perf_counter()
        calls = 0
        for dev in self.bound:
            for fn in (
                    lambda d: self.xp.zeros((2,), device=d),
                    lambda d: self.xp.asarray([1.0, 2.0], device=d),
                    lambda d: self.xp.add(self.xp.asarray([1, 2], device=d), 1),
                    lambda d: self.xp.multiply(self.xp.asarray([1.0, 2.0], device=d), 2.0),
                    lambda d: self.xp.sum(self.xp.asarray([1.0, 2.0], device=d)),
                    lambda d: self.values(self.xp.ones((2,), device=d))):
                try:
                    fn(dev)
                    calls += 1
                except Exception:  # what fails here is for the cases to report
                    pass
        self.notes.append("warm-up: %d calls on %d device%s in %.3f s" % (
            calls, len(self.bound), "" if len(self.bound) == 1 else "s",
            time.perf_counter() - start))

    # -- session ---------------------------------------------------------------------------
    def library_version(self) -> str:
        return self.version

    def hello_extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"notes": list(self.notes), "claims": dict(self.claims),
                                 "excluded_devices": list(self.excluded)}
        if self.wrapper is not None:
            extra["wrapper"] = dict(self.wrapper)
        return extra

    def devices(self) -> list[Device]:
        return list(self.bound)

    def default_device(self) -> Device | None:
        return self.default

    # -- what the library has --------------------------------------------------------------
    def has(self, name: str) -> bool:
        try:
            self.need(name)
        except Lacks:
            return False
        return True

    def need(self, name: str) -> Any:
        """The namespace's NAME ("tril", "fft.fftfreq"), or Lacks naming it."""
        obj = self.xp
        for part in name.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                raise Lacks(name, "%s has no %s" % (self.spec, name))
        return obj

    def signature(self, f: Any) -> inspect.Signature | None:
        """f's signature, kept per function (a bound method's by its function, whose
        signature without self is the same for every instance)."""
        key = (getattr(f, "__func__", f), hasattr(f, "__func__"))
        try:
            return self._signatures[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable callable
            return signature_of(f)
        found = self._signatures[key] = signature_of(f)
        return found

    def call(self, name: str, f: Any, *args: Any, **kw: Any) -> Any:
        """f(*args, **kw), where f is the library's NAME; a keyword its signature has no
        parameter for (nor **kwargs) is Lacks("NAME(keyword=)"), also when the parameter
        the standard puts there has another name."""
        sig = self.signature(f) if kw else None
        if sig is not None:
            for key in kw:
                found = param_by_standard(name, sig, key, self.params)
                if found.name == key or (found.name is None and found.var_keyword):
                    continue
                if found.name is not None:
                    raise Lacks("%s(%s=)" % (name, key),
                                "%s's parameter %r stands where the standard puts %s: a "
                                "misnamed parameter (%s%s)" % (name, found.name, key, name, sig))
                raise Lacks("%s(%s=)" % (name, key), "%s takes no keyword %s (%s%s)"
                            % (name, key, name, sig))
        return f(*args, **kw)

    def fn(self, name: str, *args: Any, **kw: Any) -> Any:
        return self.call(name, self.need(name), *args, **kw)

    def device_of(self, x: Array) -> Device:
        if self.helpers is not None:
            return self.helpers.device(x)
        if not hasattr(x, "device") and self.is_array(x):
            raise Lacks("Array.device", "%s arrays have no .device" % self.library_name)
        return x.device  # on anything else, the library's answer was no array: its error

    def move(self, x: Array, dev: Device, **kw: Any) -> Array:
        if self.helpers is not None:
            return self.helpers.to_device(x, dev, **kw)
        method = getattr(x, "to_device", None)
        if method is None and self.is_array(x):
            raise Lacks("Array.to_device", "%s arrays have no .to_device" % self.library_name)
        return self.call("Array.to_device", x.to_device, dev, **kw)

    def is_array(self, x: Any) -> bool:
        """Whether x is one of the library's arrays (of the class asarray gave at start-up):
        only such an array's missing attribute is the library lacking it; on anything else
        (None from a to_device that returns nothing) the library's answer was wrong."""
        return self.array_type is None or isinstance(x, self.array_type)

    # -- dtypes ----------------------------------------------------------------------------
    def dtype(self, name: str) -> DType:
        dt = getattr(self.xp, name, None)
        if self.listed_dtypes is not None and name in DTYPES and name != "float16" and \
                name not in self.listed_dtypes:
            raise Lacks("dtype " + name, "%s's inspection namespace lists no %s on any device"
                        % (self.spec, name))
        if dt is None:
            if name not in DTYPES or name == "float16":
                raise Unsupported("%s has no dtype %s" % (self.spec, name))
            raise Lacks("dtype " + name, "%s has no dtype %s" % (self.spec, name))
        return dt

    def can_cast(self, from_: Any, to: Any) -> bool:
        return bool(self.fn("can_cast", from_, to))

    def result_type(self, objs: list[Any]) -> Any:
        return self.fn("result_type", *objs)

    # -- info ------------------------------------------------------------------------------
    def info(self) -> Any:
        make = getattr(self.xp, "__array_namespace_info__", None)
        if make is None:
            raise Lacks("__array_namespace_info__", "%s has no inspection namespace "
                        "(__array_namespace_info__)" % self.spec)
        return make()

    def info_fn(self, name: str) -> Any:
        f = getattr(self.info(), name, None)
        if f is None:
            raise Lacks("info." + name, "%s's inspection namespace has no %s"
                        % (self.spec, name))
        return f

    def info_devices(self) -> list[Device | None]:
        return list(self.info_fn("devices")())

    def info_default_device(self) -> Device | None:
        return self.info_fn("default_device")()

    def info_default_dtypes(self, **kw: Any) -> dict[str, str]:
        d = self.call("info.default_dtypes", self.info_fn("default_dtypes"), **kw)
        return {k: self.dtype_name(v) for k, v in d.items()}

    def info_dtypes(self, **kw: Any) -> list[str]:
        return list(self.call("info.dtypes", self.info_fn("dtypes"), **kw))

    def info_devices_type(self) -> str:
        return type(self.info_fn("devices")()).__name__

    def info_capabilities(self) -> dict[str, Any]:
        return dict(self.info_fn("capabilities")())

    def function(self, fn: str) -> Any:
        if fn.startswith("info."):
            return self.info_fn(fn[5:])
        if fn.startswith("Array."):
            f = getattr(self.array_type, fn[6:], None)
            if f is None:
                raise Lacks(fn, "%s arrays have no %s" % (self.library_name, fn[6:]))
            return f
        return self.need(fn)

    def device_param(self, fn: str) -> dict[str, Any]:
        f = self.function(fn)
        sig = self.signature(f)
        if sig is None:
            raise Unsupported("the signature of %s cannot be read" % fn)
        found = param_by_standard(fn, sig, "device", self.params)
        if found.name is None:
            if found.var_keyword:
                return {"kind": "var-keyword", "default": None}
            raise Lacks("%s(device=)" % fn, "%s has no parameter device (%s%s)" % (fn, fn, sig))
        if found.name != "device":
            raise Lacks("%s(device=)" % fn, "%s's parameter %r stands where the standard puts "
                        "device: a misnamed parameter (%s%s)" % (fn, found.name, fn, sig))
        assert found.param is not None
        kinds = {"POSITIONAL_ONLY": "positional-only",
                 "POSITIONAL_OR_KEYWORD": "positional-or-keyword",
                 "KEYWORD_ONLY": "keyword-only", "VAR_KEYWORD": "var-keyword",
                 "VAR_POSITIONAL": "var-positional"}
        default = None if found.param.default is inspect.Parameter.empty \
            else repr(found.param.default)
        return {"kind": kinds[found.param.kind.name], "default": default}

    # -- arrays ----------------------------------------------------------------------------
    def array_device(self, x: Array) -> Device | None:
        return self.device_of(x)

    def default_get(self) -> Device:
        return self.device_of(self.fn("empty", ()))

    def create(self, fn: str, a: Kw, kw: Kw) -> Array:
        kw = self._kw(kw)
        if fn in ("zeros", "ones", "empty"):
            return self.fn(fn, a["shape"], **kw)
        if fn == "full":
            return self.fn(fn, a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            pos = [a["start"]] + [a[k] for k in ("stop",) if k in a]
            if "step" in a:
                if "stop" not in a:
                    pos.append(None)
                kw["step"] = a["step"]
            return self.fn(fn, *pos, **kw)
        if fn == "linspace":
            return self.fn(fn, a["start"], a["stop"], a["num"], endpoint=a["endpoint"], **kw)
        if fn == "eye":
            return self.fn(fn, a["n_rows"], a.get("n_cols"), k=a["k"], **kw)
        if fn in ("zeros_like", "ones_like", "empty_like"):
            return self.fn(fn, a["x"], **kw)
        if fn == "full_like":
            return self.fn(fn, a["x"], a["fill_value"], **kw)
        if "d" in a:
            kw["d"] = a["d"]
        return self.fn("fft." + fn, a["n"], **kw)

    def asarray_typed(self, typed: TypedArray, kw: Kw) -> Array:
        kw = dict(kw)
        kw["dtype"] = self.dtype(kw.get("dtype") or typed.dtype)
        if 0 in typed.shape:
            return self.fn("reshape", self.fn("asarray", typed.data, **kw), typed.shape)
        return self.fn("asarray", nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value: bool | int | float | complex, kw: Kw) -> Array:
        return self.fn("asarray", value, **self._kw(kw))

    def asarray_array(self, x: Array, kw: Kw) -> Array:
        return self.fn("asarray", x, **self._kw(kw))

    def astype(self, x: Array, dtype: str, kw: Kw) -> Array:
        return self.fn("astype", x, self.dtype(dtype), **kw)

    def to_device(self, x: Array, dev: Device, kw: Kw) -> Array:
        return self.move(x, dev, **kw)

    def binary(self, fn: str, x1: Any, x2: Any) -> Array:
        op = self.scalar_operator(fn, x1, x2)
        if op is not None:
            return op(x1, x2)
        return self.fn(fn, x1, x2)

    def unary(self, fn: str, x: Array) -> Array:
        return self.fn(fn, x)

    def reduce(self, fn: str, x: Array, axis: int | None) -> Array:
        return self.fn(fn, x, axis=axis)

    def matmul(self, x1: Array, x2: Array) -> Array:
        return self.fn("matmul", x1, x2)

    def stack(self, arrays: list[Array], axis: int) -> Array:
        return self.fn("stack", arrays, axis=axis)

    def dlpack_device(self, x: Array) -> tuple[int, int]:
        method = getattr(x, "__dlpack_device__", None)
        if method is None:
            raise Lacks("Array.__dlpack_device__", "%s arrays have no __dlpack_device__"
                        % self.library_name)
        kind, index = method()
        return kind, index

    def from_dlpack(self, x: Array, kw: Kw) -> Array:
        return self.fn("from_dlpack", x, **kw)

    def dlpack_export(self, x: Array, kw: Kw) -> dict[str, Any]:
        if getattr(x, "__dlpack__", None) is None:
            raise Lacks("Array.__dlpack__", "%s arrays have no __dlpack__" % self.library_name)
        return dlpack.export(x, kw)

    def tril(self, x: Array, k: int) -> Array:
        return self.fn("tril", x, k=k)

    def triu(self, x: Array, k: int) -> Array:
        return self.fn("triu", x, k=k)

    # -- reading ---------------------------------------------------------------------------
    def read(self, x: Array) -> tuple[str, tuple[int, ...], list[Any]]:
        """The values of x without moving it: through NumPy (by DLPack, else by NumPy's own
        conversion) where x's device allows it, else from a copy on the default device, else
        element by element through the standard's __bool__, __int__, __float__ and
        __complex__ (also where NumPy is not installed)."""
        dtype = self.array_dtype(x)
        shape = self.array_shape(x)
        h = self.to_numpy(x)
        if h is None and self.default is not None:
            try:
                here = self.device_of(x)
            except Lacks:
                here = self.default
            if not self.same(here, self.default):
                h = self.to_numpy(self.move(x, self.default))
        if h is None:
            return dtype, shape, self.read_elements(x, dtype)
        return dtype, tuple(int(n) for n in h.shape), h.reshape(-1).tolist()

    @staticmethod
    def to_numpy(x: Array) -> Any:
        """x as a NumPy array, or None where NumPy cannot take it."""
        try:
            import numpy
        except ImportError:
            return None
        try:
            return numpy.from_dlpack(x)
        except Exception:
            pass
        try:
            h = numpy.asarray(x)
        except Exception:
            return None
        return None if h.dtype == object else h

    def read_elements(self, x: Array, dtype: str) -> list[Any]:
        flat = self.xp.reshape(x, (-1,))
        convert: Any = bool if dtype == "bool" else int if dtype.startswith(("int", "uint")) \
            else complex if dtype.startswith("complex") else float
        return [convert(flat[i]) for i in range(int(flat.shape[0]))]


def log(text: str) -> None:
    sys.stderr.write("devspec_adapter: %s\n" % text)
