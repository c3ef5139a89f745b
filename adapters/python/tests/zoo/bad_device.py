"""A namespace whose inspection namespace lists, second, a device "meta" on which no array can
be created (the base refuses it): the adapter must leave it out, with the reason, instead of
binding it to D1."""

from __future__ import annotations

from typing import Any

from . import Info, base_module, copy_namespace, module_level


class ListsMeta(Info):
    def devices(self) -> Any:
        found = list(self.base.devices())
        return type(self.base.devices())([found[0], "meta", *found[1:]])


def namespace(base: Any = None) -> Any:
    b = base_module(base)
    ns = copy_namespace(b, __name__)
    ns.__array_namespace_info__ = lambda: ListsMeta(b)
    return ns


__getattr__ = module_level(namespace)
