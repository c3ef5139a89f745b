"""A namespace whose zeros names its device parameter `dev` (keyword-only, where the standard
puts `device`): the adapter must report zeros(device=) as lacking, saying the parameter is
misnamed, instead of a TypeError counted as the library's behaviour."""

from __future__ import annotations

from typing import Any

from . import base_module, copy_namespace, module_level


def namespace(base: Any = None) -> Any:
    b = base_module(base)
    ns = copy_namespace(b, __name__)

    def zeros(shape: Any, *, dtype: Any = None, dev: Any = None) -> Any:
        return b.zeros(shape, dtype=dtype, device=dev)
    ns.zeros = zeros
    return ns


__getattr__ = module_level(namespace)
