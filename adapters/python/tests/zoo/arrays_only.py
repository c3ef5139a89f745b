"""A module without __array_api_version__ whose arrays know their namespace: only asarray and
zeros, from ZOO_BASE; `python:zoo.arrays_only` reaches the namespace through
x.__array_namespace__()."""

from __future__ import annotations

from . import base_module

_base = base_module()
asarray = _base.asarray
zeros = _base.zeros
