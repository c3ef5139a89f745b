"""A namespace whose asarray and add sleep on their first call in a process, as a library
that compiles a function on first use: ZOO_SLEEP seconds (default 3), longer than the case
timeout the test gives the runner. The adapter must warm up before it answers hello."""

from __future__ import annotations

import functools
import os
import time
from typing import Any

from . import base_module, copy_namespace, module_level


def first_call_sleeps(f: Any) -> Any:
    done: list[bool] = []

    @functools.wraps(f)
    def wrapper(*args: Any, **kw: Any) -> Any:
        if not done:
            time.sleep(float(os.environ.get("ZOO_SLEEP", "3")))
            done.append(True)
        return f(*args, **kw)
    return wrapper


def namespace(base: Any = None) -> Any:
    ns = copy_namespace(base_module(base), __name__)
    ns.asarray = first_call_sleeps(ns.asarray)
    ns.add = first_call_sleeps(ns.add)
    return ns


__getattr__ = module_level(namespace)
