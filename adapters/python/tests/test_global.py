"""OneFlow's global arrays on JAX (the jax-mesh4 adapter, `--library jax --ranks 4`): one
process plays 4 ranks, JAX's device r standing for rank r. The mapping (spec/decisions.md,
"OneFlow devices and global arrays"): a placement is a Mesh shaped as its ranks' nesting,
split(d) names the placement dimension's mesh axis at array dim d of the PartitionSpec,
broadcast leaves it out, partial_sum makes it unreduced. Expected pieces are worked out by
hand from OneFlow's statements (OF-SBP-2..6); JAX's printed forms are never compared.
The replies carry per-rank outcomes as the SPMD transport does (spec/protocol.md)."""

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from adapter_client import PROGRAM, TOP, Adapter, importable, interpreter

from devspec_py.server import PerRank, Server

FLAT = {"type": "cpu", "ranks": [0, 1, 2, 3]}
MESH = {"type": "cpu", "ranks": [[0, 1], [2, 3]]}
S0, S1 = {"split": 0}, {"split": 1}


def typed(shape: Any, data: Any, dtype: str = "int32") -> dict[str, Any]:
    return {"dtype": dtype, "shape": shape, "data": data}


@pytest.fixture(scope="module")
def mesh4() -> Iterator[tuple[Any, Any]]:
    ok, why = importable("jax")
    if not ok:
        pytest.skip(why)
    a = Adapter("jax", extra_args=("--ranks", "4"))
    hello = a.ok("hello", {"protocol": 1})
    yield a, hello
    assert a.close() == 0


def per_rank(a: Any, op: str, args: Any) -> list[Any]:
    """Each rank's result of op: the reply's "ranks" when the ranks differ, else rank 0's
    result for every rank (as the runner reads an SPMD reply)."""
    reply = a.request(op, args)
    assert reply["ok"], reply
    if "ranks" not in reply:
        return [reply["result"]] * 4
    assert all(o["ok"] for o in reply["ranks"]) and len(reply["ranks"]) == 4
    assert reply["ranks"][0]["result"] == reply["result"]
    return [o["result"] for o in reply["ranks"]]


# -- the per-rank reply, without a library -------------------------------------------------

def test_per_rank_reply_lists_ranks_only_when_they_differ() -> None:
    same = Server.per_rank(7, PerRank([{"v": 1}, {"v": 1}]))
    assert same == {"id": 7, "ok": True, "result": {"v": 1}}
    differ = Server.per_rank(8, PerRank([{"v": 1}, {"v": 2}]))
    assert differ["result"] == {"v": 1}
    assert differ["ranks"] == [{"ok": True, "result": {"v": 1}},
                               {"ok": True, "result": {"v": 2}}]


# -- hello and placements --------------------------------------------------------------------

def test_hello_says_four_ranks_and_claims_the_global_features(mesh4: tuple[Any, Any]) -> None:
    _, hello = mesh4
    assert hello["ranks"] == 4
    assert {"placement", "sbp", "sbp-convert"} <= set(hello["features"])


def test_placement_is_a_mesh_shaped_as_the_ranks(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    flat = a.ok("global.placement", FLAT)
    assert (flat["type"], flat["shape"]) == ("cpu", [4])
    assert a.ok("global.placement", MESH)["shape"] == [2, 2]
    assert a.ok("global.placement", {"type": "cpu", "all": "placement.all"})["shape"] == [4]


def test_placement_equality_is_the_mesh_equality(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    assert a.ok("global.placement_equal", {"a": FLAT, "b": dict(FLAT)}) is True
    assert a.ok("global.placement_equal",
                {"a": FLAT, "b": {"type": "cpu", "ranks": [3, 2, 1, 0]}}) is False
    assert a.ok("global.placement_equal", {"a": FLAT, "b": MESH}) is False


def test_a_rank_beyond_the_four_and_ragged_rows_cannot_be_written_in_jax(
        mesh4: tuple[Any, Any]) -> None:
    # JAX is never asked (no device object for rank 4, no ndarray of ragged rows): the
    # adapter says it cannot express the request; crediting JAX with a refusal would be false.
    a, _ = mesh4
    for ranks in ([0, 1, 2, 4], [[0, 1], [2]]):
        err = a.err("global.placement", {"type": "cpu", "ranks": ranks})
        assert err["kind"] == "NotImplementedError" and err["origin"] == "adapter", err


def test_a_split_beyond_the_array_is_refused_by_jax(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    err = a.err("global.make", {"value": VALUE, "placement": FLAT, "sbp": [{"split": 2}]})
    assert err["origin"] == "library", err


def test_sbp_alone_has_no_jax_object(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    err = a.err("global.sbp", {"sbp": "broadcast"})
    assert (err["kind"], err["origin"]) == ("NotImplementedError", "adapter")


# -- making and converting global arrays -----------------------------------------------------

VALUE = typed([4, 2], [0, 1, 2, 3, 4, 5, 6, 7])


def test_split0_gives_each_rank_its_row(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    results = per_rank(a, "global.make", {"value": VALUE, "placement": FLAT, "sbp": [S0]})
    for r, res in enumerate(results):
        assert res["value"] == VALUE and res["shape"] == [4, 2] and res["dtype"] == "int32"
        assert res["local"] == typed([1, 2], [2 * r, 2 * r + 1])
        assert len(res["sbp"]) == 1 and isinstance(res["placement"], str)


def test_broadcast_gives_every_rank_the_whole_value_and_one_outcome(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    reply = a.request("global.make", {"value": VALUE, "placement": FLAT, "sbp": ["broadcast"]})
    assert reply["ok"] and "ranks" not in reply, reply
    assert reply["result"]["local"] == VALUE


def test_split0_split1_on_the_2x2_mesh_gives_blocks(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    value = typed([2, 4], list(range(8)))
    results = per_rank(a, "global.make", {"value": value, "placement": MESH, "sbp": [S0, S1]})
    # rank 2i+j holds row i, columns 2j and 2j+1 (rows split along p0, columns along p1)
    for r, res in enumerate(results):
        i, j = divmod(r, 2)
        assert res["local"] == typed([1, 2], [4 * i + 2 * j, 4 * i + 2 * j + 1]), r
        assert len(res["sbp"]) == 2


def test_split0_split0_on_the_2x2_mesh_splits_rows_in_rank_order(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    results = per_rank(a, "global.make", {"value": VALUE, "placement": MESH, "sbp": [S0, S0]})
    for r, res in enumerate(results):
        assert res["local"] == typed([1, 2], [2 * r, 2 * r + 1]), r


def test_partial_sum_is_unreduced_and_sums_when_broadcast(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    pieces = [typed([2], [r + 1, 10 * (r + 1)]) for r in range(4)]
    made = per_rank(a, "global.make", {"locals": pieces, "placement": FLAT,
                                       "sbp": ["partial_sum"]})
    for r, res in enumerate(made):
        assert res["local"] == pieces[r]
        assert res["value"] == typed([2], [10, 100])   # 1+2+3+4, 10+20+30+40
        assert "unreduced" in res["sbp"][0]
    to_b = per_rank(a, "global.make", {"locals": pieces, "placement": FLAT,
                                       "sbp": ["partial_sum"], "to": ["broadcast"]})
    assert all(res["local"] == typed([2], [10, 100]) for res in to_b)


def test_broadcast_to_partial_sum_keeps_the_value(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    results = per_rank(a, "global.make", {"value": VALUE, "placement": FLAT,
                                          "sbp": ["broadcast"], "to": ["partial_sum"]})
    total = [0] * 8
    for res in results:
        assert res["value"] == VALUE and res["local"]["shape"] == [4, 2]
        total = [t + v for t, v in zip(total, res["local"]["data"], strict=True)]
    assert total == VALUE["data"]   # OF-SBP-6: the pieces still sum to the value


def test_split_to_split_on_another_dim(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    results = per_rank(a, "global.make", {"value": typed([4, 4], list(range(16))),
                                          "placement": FLAT, "sbp": [S0], "to": [S1]})
    for r, res in enumerate(results):
        assert res["local"] == typed([4, 1], [r, 4 + r, 8 + r, 12 + r])


def test_binary_and_sum_keep_the_value(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    x = {"value": VALUE, "placement": FLAT, "sbp": [S0]}
    added = per_rank(a, "global.binary", {"fn": "add", "x1": x, "x2": x})
    assert added[3]["value"] == typed([4, 2], [0, 2, 4, 6, 8, 10, 12, 14])
    assert added[3]["local"] == typed([1, 2], [12, 14])
    # The array API's sum of int32 gives the default integer dtype: int64 in 64-bit mode.
    summed = per_rank(a, "global.sum", {"x": x, "axis": 1})
    assert [res["local"] for res in summed] == [typed([1], [4 * r + 1], "int64")
                                               for r in range(4)]
    assert summed[0]["value"] == typed([4], [1, 5, 9, 13], "int64")


def test_mixed_placements_are_refused(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    x1 = {"value": VALUE, "placement": FLAT, "sbp": ["broadcast"]}
    x2 = {"value": VALUE, "placement": {"type": "cpu", "ranks": [3, 2, 1, 0]},
          "sbp": ["broadcast"]}
    err = a.err("global.binary", {"fn": "add", "x1": x1, "x2": x2})
    assert err["origin"] == "library" and "incompatible devices" in err["message"]


def test_global_arguments_are_checked(mesh4: tuple[Any, Any]) -> None:
    a, _ = mesh4
    both = {"value": VALUE, "locals": [VALUE] * 4, "placement": FLAT, "sbp": [S0]}
    err = a.err("global.make", both)
    assert (err["origin"], err["kind"]) == ("protocol", "ValueError")
    err = a.err("global.make", {"value": VALUE, "placement": FLAT, "sbp": [{"split": "0"}]})
    assert (err["origin"], err["kind"]) == ("protocol", "TypeError")
    err = a.err("global.make", {"value": VALUE, "placement": {"type": "cpu", "ranks": [0, [1]]},
                                "sbp": [S0]})
    assert (err["origin"], err["kind"]) == ("protocol", "TypeError")
    err = a.err("global.make", {"value": VALUE, "placement": FLAT, "sbp": [S0, S1]})
    assert (err["origin"], err["kind"]) == ("adapter", "NotImplementedError")  # 2 sbp, 1-D


# -- other adapters and command lines --------------------------------------------------------

def test_a_backend_without_global_arrays_answers_not_implemented() -> None:
    ok, why = importable("numpy")
    if not ok:
        pytest.skip(why)
    a = Adapter("numpy")
    hello = a.ok("hello", {"protocol": 1})
    assert "ranks" not in hello
    for op, args in (("global.placement", FLAT), ("global.placement_equal", {"a": FLAT, "b": FLAT}),
                     ("global.sbp", {"sbp": S0}),
                     ("global.make", {"value": VALUE, "placement": FLAT, "sbp": [S0]}),
                     ("global.sum", {"x": {"value": VALUE, "placement": FLAT, "sbp": [S0]}})):
        err = a.err(op, args)
        assert (err["kind"], err["origin"]) == ("NotImplementedError", "adapter"), (op, err)
    assert a.close() == 0


def test_ranks_command_lines() -> None:
    ok, why = importable("jax")
    if not ok:
        pytest.skip(why)
    for argv, status in ((["--library", "jax", "--ranks", "0"], 2),
                         (["--module", "numpy", "--ranks", "2"], 2),
                         (["--library", "jax", "--ranks", "5"], 3),
                         (["--library", "numpy", "--ranks", "2"], 3)):
        env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4",
                   JAX_PLATFORMS="cpu")
        proc = subprocess.run([interpreter("jax"), PROGRAM, *argv], capture_output=True,
                              text=True, input="", env=env)
        assert proc.returncode == status, (argv, proc.stderr[-500:])
        assert proc.stdout == ""


def test_global_cases_have_nothing_unexpected() -> None:
    """The generated OneFlow global cases against jax-mesh4 with its expectations file."""
    ok, why = importable("jax")
    if not ok:
        pytest.skip(why)
    build = os.environ.get("DEVSPEC_BUILD") or os.path.join(TOP, "build")
    devspec = os.path.join(build, "conformance", "devspec")
    if not os.access(devspec, os.X_OK):
        pytest.skip("the runner is not built (no %s)" % os.path.relpath(devspec, TOP))
    env = dict(os.environ, DEVSPEC_SOURCE=TOP, DEVSPEC_BUILD=build)
    report = os.path.join(build, "jax-mesh4-global.json")
    proc = subprocess.run([devspec, "run", "--adapter", "jax-mesh4", "--cases",
                           os.path.join(TOP, "conformance", "cases", "oneflow-global.json"),
                           "--report", report, "--no-tap", "--no-progress"],
                          capture_output=True, text=True, env=env, cwd=TOP, timeout=600)
    with open(report, encoding="utf-8") as f:
        footer = json.load(f)["footer"]
    assert proc.returncode == 0 and not footer["unexpected"], proc.stderr[-2000:]
    assert footer["counts"]["pass"] > 0 and footer["counts"]["skip"] == 0
