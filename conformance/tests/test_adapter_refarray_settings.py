"""refarray's adapter reads its settings from DEVSPEC_REFARRAY_* (adapters/refarray/adapter.c,
read_settings): a value outside a variable's choices is refused at hello, naming the variable,
the value and every choice; each choice is taken."""

from __future__ import annotations

import os

import pytest
from support import Env

CHOICES = {
    "DEVSPEC_REFARRAY_INFERENCE": ('"legacy" or "2025"', ["legacy", "2025"]),
    "DEVSPEC_REFARRAY_SHARD_UNEVEN": ('"refuse" or "ceil"', ["refuse", "ceil"]),
    "DEVSPEC_REFARRAY_SOFT": ('"move-all" or "move-mixed"', ["move-all", "move-mixed"]),
    "DEVSPEC_REFARRAY_PROMOTION": ('"array-api", "category" or "category-examples"',
                                   ["array-api", "category", "category-examples"]),
    "DEVSPEC_REFARRAY_OUT_CASTING": ('"stated", "no-narrowing" or "oneflow"',
                                     ["stated", "no-narrowing", "oneflow"]),
}


def cases(env: Env) -> str:
    return os.path.join(env.source, "conformance", "cases", "device-attr.json")


def run(env: Env, var: str, value: str) -> tuple[int, str]:
    rc, _, err = env.run(["run", "--adapter", "refarray", "--cases", cases(env), "--no-tap",
                          "--no-progress", "--report", env.path("r.json")],
                         env={var: value, "POCL_DEVICES": "pthread pthread"}, spec=False)
    return rc, err


@pytest.mark.parametrize("var", sorted(CHOICES))
def test_a_value_outside_the_choices_is_refused_by_name(env: Env, var: str) -> None:
    rc, err = run(env, var, "bogus")
    listed, _ = CHOICES[var]
    assert rc != 0, err
    assert '%s is "bogus"; it must be %s' % (var, listed) in err, err


@pytest.mark.parametrize("var", sorted(CHOICES))
def test_each_choice_is_taken(env: Env, var: str) -> None:
    for value in CHOICES[var][1]:
        rc, err = run(env, var, value)
        assert "it must be" not in err, (value, err)
        assert rc == 0, (value, err[-500:])


def test_a_memory_limit_that_is_not_a_number_is_refused(env: Env) -> None:
    for value in ("-1", "", "12k"):
        rc, err = run(env, "DEVSPEC_REFARRAY_MAX_BYTES", value)
        assert rc != 0 and "DEVSPEC_REFARRAY_MAX_BYTES is" in err, (value, err)
