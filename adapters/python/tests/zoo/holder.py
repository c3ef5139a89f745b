"""A module that is no namespace itself but holds one: the attribute `xp`
(`python:zoo.holder.xp`) and the factory `namespace` (`python:zoo.holder:namespace(numpy)`); for
`python:zoo.holder` the adapter must say to try those."""

from __future__ import annotations

from typing import Any

from . import base_module, copy_namespace


def namespace(base: Any = None) -> Any:
    """A namespace over BASE (a module, its name, or ZOO_BASE)."""
    return copy_namespace(base_module(base), "zoo.holder.namespace")


xp = namespace()
