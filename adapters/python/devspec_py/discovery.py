"""Finding an array API namespace and what a maintainer says about it, for the zero-code
backend (`devspec_adapter.py --module SPEC`, `devspec run --adapter python:SPEC`).

- `resolve(spec)`: SPEC is `MODULE` (a module that is a namespace), `MODULE.attr` (an
  attribute of a module that is one), or `MODULE:FACTORY` / `MODULE:FACTORY(ARG, ...)` (a
  function of MODULE that returns one; each ARG a Python literal or a module name, which is
  imported and passed as the module). A module that is no namespace but whose arrays name
  theirs (`x.__array_namespace__()`) is driven through that; with `compat`, a module that
  is no namespace through array-api-compat's `array_namespace(x)` (a namespace stays itself:
  `compat` then changes only how devices are read and arrays moved). Where none of this
  works the error says what to try instead, from what the module holds.
- `identity(...)`: the library's name and version are those of the top-level package of its
  arrays' class; a namespace from another package (array-api-compat, a wrapper) is the
  wrapper, reported apart.
- `Overrides`: the claims, devices and `compat` a maintainer sets without code: a
  `[tool.devspec]` table in the library's pyproject.toml, a `--claims FILE`, and command-line
  flags, later ones winning.
- `standard_params` and `param_by_standard`: where the standard puts a function's
  parameters (spec/signatures.json), so that a parameter is found by position and kind, and
  a misnamed one is reported as such.

Standard-library only (tomllib: Python 3.11; an older interpreter reads no TOML, and says so).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


class NotANamespace(ImportError):
    """SPEC names something that is no array API namespace; the message says what to try."""


@dataclass
class Resolved:
    xp: Any                 # the namespace
    spec: str               # as given
    module: ModuleType      # the module SPEC starts with
    how: str                # how the namespace was reached, for the report's notes


# Functions that make a small array, tried in order to reach a namespace through its arrays.
_MAKERS = (("asarray", ([0, 1],)), ("array", ([0, 1],)), ("zeros", ((2,),)),
           ("ones", ((2,),)), ("tensor", ([0, 1],)), ("Tensor", ([0, 1],)))


def _literal_or_module(text: str) -> Any:
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return importlib.import_module(text)


def _import_attr(path: str) -> tuple[ModuleType, Any]:
    """The object PATH names (`a.b.c`): the longest importable module prefix, then
    attributes. Returns (that module, the object)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # Only "this very module does not exist" means: try a shorter prefix.
            if exc.name is not None and name.startswith(exc.name) and i > 1:
                continue
            raise
        obj: Any = module
        for j, attr in enumerate(parts[i:]):
            if not hasattr(obj, attr):
                raise NotANamespace("%s has no attribute %s" % (".".join(parts[:i + j]), attr))
            obj = getattr(obj, attr)
        return module, obj
    raise ModuleNotFoundError("No module named %r" % parts[0], name=parts[0])


def is_namespace(obj: Any) -> bool:
    return isinstance(getattr(obj, "__array_api_version__", None), str)


def small_array(obj: Any) -> Any:
    """An array made by one of OBJ's creation functions, or None."""
    for name, args in _MAKERS:
        make = getattr(obj, name, None)
        if callable(make):
            try:
                return make(*args)
            except Exception:
                continue
    return None


def resolve(spec: str, compat: bool) -> Resolved:
    """The namespace SPEC names (see the module's docstring)."""
    if ":" in spec:
        path, _, call = spec.partition(":")
        factory_name, args = call, []
        if "(" in call:
            if not call.endswith(")"):
                raise NotANamespace("%s: a factory's arguments go in parentheses, "
                                    "MODULE:FACTORY(ARG, ...)" % spec)
            factory_name, _, inside = call[:-1].partition("(")
            args = [_literal_or_module(a) for a in inside.split(",") if a.strip()]
        module, _ = _import_attr(path)
        _, factory = _import_attr(path + "." + factory_name) if factory_name else (module, None)
        if not callable(factory):
            raise NotANamespace("%s: %s is not callable" % (spec, factory_name))
        xp = factory(*args)
        if not is_namespace(xp):
            raise NotANamespace("%s returned %s, which has no __array_api_version__"
                                % (spec, type(xp).__name__))
        return Resolved(xp, spec, module, "the namespace %s returns" % spec)
    module, obj = _import_attr(spec)
    if compat and not is_namespace(obj):
        # A library without a namespace of its own: array-api-compat's for its arrays.
        x = small_array(obj)
        if x is None:
            raise NotANamespace("%s: --compat needs arrays to ask array-api-compat about, and "
                                "%s makes none with asarray, array, zeros or ones" % (spec, spec))
        import array_api_compat
        return Resolved(array_api_compat.array_namespace(x), spec, module,
                        "array_api_compat.array_namespace(x) for %s's arrays (--compat)" % spec)
    if is_namespace(obj):
        return Resolved(obj, spec, module, "the module %s" % spec)
    x = small_array(obj)
    through = getattr(x, "__array_namespace__", None) if x is not None else None
    if callable(through):
        try:
            xp = through()
        except Exception:
            xp = None
        if is_namespace(xp):
            return Resolved(xp, spec, module, "x.__array_namespace__() of %s's arrays" % spec)
    raise NotANamespace(not_a_namespace_hint(spec, obj, x))


def arrays_namespace_said(x: Any) -> str:
    """What the arrays' own __array_namespace__ gave, said as it is: absent, raising, or a
    namespace without a declared version (which the adapter cannot scope to a version)."""
    through = getattr(x, "__array_namespace__", None)
    if not callable(through):
        return ", and its arrays have no __array_namespace__()"
    try:
        got = through()
    except Exception as e:  # the library's own refusal, named
        return ", and its arrays' __array_namespace__() raises %s: %s" % (type(e).__name__, e)
    return (", and its arrays' __array_namespace__() returns %s, which declares no "
            "__array_api_version__ either" % getattr(got, "__name__", type(got).__name__))


def not_a_namespace_hint(spec: str, obj: Any, x: Any) -> str:
    """Why SPEC is no namespace, and what to try, from what it holds."""
    tries: list[str] = []
    for name in sorted(dir(obj)):
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:
            continue
        if is_namespace(value):
            tries.append("python:%s.%s (it has __array_api_version__)" % (spec, name))
        elif callable(value) and "namespace" in name.lower() and not inspect.isclass(value) \
                and getattr(value, "__module__", None) == getattr(obj, "__name__", None):
            sig = signature_of(value)
            needed = [p.name for p in sig.parameters.values()
                      if p.default is inspect.Parameter.empty and p.kind in (
                          inspect.Parameter.POSITIONAL_ONLY,
                          inspect.Parameter.POSITIONAL_OR_KEYWORD)] if sig else []
            tries.append("python:%s:%s%s (a function that may return a namespace%s)" % (
                spec, name, "(%s)" % ", ".join(a.upper() for a in needed) if needed else "",
                "; each argument a literal or a module name, e.g. numpy" if needed else ""))
    if x is not None:
        try:
            import array_api_compat
            found = array_api_compat.array_namespace(x)
            tries.append("--compat, or python:%s (array-api-compat wraps %s's arrays)"
                         % (found.__name__, spec))
        except Exception:
            pass
    text = "%s has no __array_api_version__, so it is not an array API namespace" % spec
    if x is not None:
        text += arrays_namespace_said(x)
    if tries:
        return text + "; try " + "; or ".join(tries)
    return text + ("; a library without a namespace of its own needs a backend "
                   "(adapters/python/README.md, \"Adding a library\")")


# -- identity ------------------------------------------------------------------------------

def top_package(obj: Any) -> str | None:
    mod = obj.__module__ if not isinstance(obj, ModuleType) else obj.__name__
    return mod.split(".")[0] if isinstance(mod, str) else None


def package_version(name: str | None) -> str:
    module = sys.modules.get(name) if name else None
    version = getattr(module, "__version__", None)
    if version is None and name:
        try:
            from importlib.metadata import version as dist_version
            version = dist_version(name)
        except Exception:
            version = None
    return str(version) if version is not None else "unknown"


def exports_base_of(package: str, array_type: type | None) -> bool:
    """Whether PACKAGE's top level names a class of its own that ARRAY_TYPE derives from:
    the arrays are then that package's, made by a compiled part of another name (JAX's
    jax.Array, whose instances are jaxlib's ArrayImpl)."""
    module = sys.modules.get(package)
    if module is None or array_type is None:
        return False
    for value in vars(module).values():
        if isinstance(value, type) and top_package(value) == package and \
                issubclass(array_type, value):
            return True
    return False


def identity(xp: Any, array_type: type | None, spec: str) -> tuple[str, str, dict[str, str]
                                                                    | None]:
    """(library name, its version, the wrapper {name, version} or None): the library is the
    top-level package of its arrays' class; a namespace from another package wraps it."""
    ns_top = top_package(xp) if isinstance(xp, ModuleType) else \
        top_package(type(xp)) if type(xp).__module__ != "builtins" else None
    ns_top = ns_top or spec.split(":")[0].split(".")[0]
    lib_top = top_package(array_type) if array_type is not None else None
    if lib_top is None or lib_top == "builtins" or lib_top == ns_top or \
            exports_base_of(ns_top, array_type):
        return ns_top, package_version(ns_top), None
    return lib_top, package_version(lib_top), {"name": ns_top,
                                                "version": package_version(ns_top)}


# -- what a maintainer says: [tool.devspec], --claims FILE, flags ----------------------------

@dataclass
class Overrides:
    """Claims and devices set without code. `claim`/`unclaim`: feature -> where it was said;
    `devices`: binding ("D0", "D1", ...) -> device text; `sources`: the files read."""

    claim: dict[str, str] = field(default_factory=dict)
    unclaim: dict[str, str] = field(default_factory=dict)
    devices: dict[str, str] = field(default_factory=dict)
    compat: bool | None = None
    sources: list[str] = field(default_factory=list)

    def merge_table(self, table: Any, where: str) -> None:
        """A [tool.devspec] table: claim = [...], unclaim = [...], devices = {D0 = "..."},
        compat = bool. A bad entry is ValueError naming WHERE and the key."""
        if not isinstance(table, dict):
            raise ValueError("%s: [tool.devspec] must be a table" % where)
        for key, value in table.items():
            if key in ("claim", "unclaim"):
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ValueError("%s: %s must be a list of feature names" % (where, key))
                for feature in value:
                    self.set_claim(feature, key == "claim", where)
            elif key == "devices":
                if not isinstance(value, dict) or not all(
                        isinstance(v, str) for v in value.values()):
                    raise ValueError("%s: devices must be a table of binding = \"device\" "
                                     "(D0 = \"cpu\")" % where)
                for binding, text in value.items():
                    self.set_device(binding, text, where)
            elif key == "compat":
                if not isinstance(value, bool):
                    raise ValueError("%s: compat must be true or false" % where)
                self.compat = value
            else:
                raise ValueError("%s: [tool.devspec] has no key %r (claim, unclaim, devices, "
                                 "compat)" % (where, key))
        self.sources.append(where)

    def set_claim(self, feature: str, claimed: bool, where: str) -> None:
        (self.claim if claimed else self.unclaim)[feature] = where
        (self.unclaim if claimed else self.claim).pop(feature, None)

    def set_device(self, binding: str, text: str, where: str) -> None:
        if not (binding.startswith("D") and binding[1:].isdigit()):
            raise ValueError("%s: %r is not a device binding (D0, D1, ...)" % (where, binding))
        self.devices[binding] = text

    def read_file(self, path: str) -> None:
        """A claims file: TOML with a [tool.devspec] table, or the table's keys at the top."""
        data = read_toml(path)
        table = data.get("tool", {}).get("devspec") if "tool" in data else data
        self.merge_table(table if table is not None else {}, path)


def read_toml(path: str) -> Any:
    """The TOML file PATH, read with tomllib (Python 3.11), or tomli where it is installed."""
    toml: Any
    try:
        import tomllib as toml
    except ImportError:
        try:
            toml = importlib.import_module("tomli")
        except ImportError as exc:
            raise ValueError("%s: this Python (%s) cannot read TOML (tomllib came in 3.11; "
                             "or install tomli)" % (path, sys.version.split()[0])) from exc
    with open(path, "rb") as f:
        return toml.load(f)


def find_pyproject(module: ModuleType) -> str | None:
    """The pyproject.toml of the source tree MODULE was imported from (its nearest folder
    above that has one), or None (an installed wheel usually has none)."""
    where = getattr(module, "__file__", None)
    if not where:
        return None
    folder = os.path.dirname(os.path.abspath(where))
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def pyproject_table(path: str) -> Any:
    return read_toml(path).get("tool", {}).get("devspec")


# -- the standard's signatures: where each parameter stands ----------------------------------

# Per function the standard names: (positional parameters, keyword-only parameters), in the
# standard's order; arrays' methods are "Array.NAME", without self.
Params = dict[str, tuple[tuple[str, ...], tuple[str, ...]]]


def signatures_file() -> str | None:
    """spec/signatures.json: three folders up from this file, in the source tree
    (adapters/python/devspec_py) as in an installation (share/devspec/adapters/python)."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, os.pardir, os.pardir, os.pardir, "spec", "signatures.json")
    return os.path.normpath(path) if os.path.isfile(path) else None


def standard_params(version: str, path: str | None = None) -> Params:
    """Each function's parameters as the standard of VERSION states them (its signature
    there: the last one from VERSION or earlier), read from spec/signatures.json (PATH), the
    one list of the standard's signatures. Empty where the file is missing: parameters are
    then looked up by name only."""
    path = path or signatures_file()
    if path is None:
        return {}
    import json
    with open(path, encoding="utf-8") as f:
        functions = json.load(f)["functions"]
    out: Params = {}
    for fn in functions:
        known = [sg for sg in fn.get("signatures", []) if sg["from"] <= version]
        if not known:
            continue
        params = known[-1]["params"]
        out[fn["name"]] = (
            tuple(p["name"] for p in params
                  if p["kind"] in ("positional-only", "positional-or-keyword")),
            tuple(p["name"] for p in params if p["kind"] == "keyword-only"))
    return out


@dataclass(frozen=True)
class Found:
    """How a library's signature takes one of the standard's parameters: `name` is the
    library's name for it (None: absent), `param` its inspect.Parameter, `var_keyword`
    whether **kwargs would take it."""

    name: str | None
    param: inspect.Parameter | None
    var_keyword: bool


def signature_of(f: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def param_by_standard(fn: str, sig: inspect.Signature, wanted: str,
                      table: Params) -> Found:
    """The parameter of SIG that stands where the standard puts WANTED in FN: by name when
    the library uses the standard's name; else, where the standard's list for FN is known,
    the library's parameter of the same kind at the same position (a misnamed parameter)."""
    params = list(sig.parameters.values())
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    if wanted in sig.parameters:
        return Found(wanted, sig.parameters[wanted], var_kw)
    standard = table.get(fn)
    if standard is None:
        return Found(None, None, var_kw)
    positional, keyword = standard
    if fn.startswith("Array.") and params and params[0].name == "self":
        params = params[1:]
    if wanted in keyword:
        mine = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
        at = keyword.index(wanted)
        # Only a name the standard does not use elsewhere in the list can stand for WANTED.
        if at < len(mine) and mine[at].name not in keyword:
            return Found(mine[at].name, mine[at], var_kw)
        return Found(None, None, var_kw)
    at = positional.index(wanted) if wanted in positional else -1
    mine = [p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                            inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if 0 <= at < len(mine) and mine[at].name not in positional + keyword:
        return Found(mine[at].name, mine[at], var_kw)
    return Found(None, None, var_kw)
