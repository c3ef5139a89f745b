"""A namespace whose inspection namespace's dtypes() requires kind (the standard's default is
None): the probe that asks dtypes() raises TypeError, which must be a note in the report, with
info-dtypes not claimed, and the run going on."""

from __future__ import annotations

from typing import Any

from . import Info, base_module, copy_namespace, module_level


class KindRequired(Info):
    def dtypes(self, *, device: Any = None, kind: Any) -> Any:  # type: ignore[override]
        return self.base.dtypes(device=device, kind=kind)


def namespace(base: Any = None) -> Any:
    b = base_module(base)
    ns = copy_namespace(b, __name__)
    ns.__array_namespace_info__ = lambda: KindRequired(b)
    return ns


__getattr__ = module_level(namespace)
