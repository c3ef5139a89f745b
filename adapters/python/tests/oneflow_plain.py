"""Every entry of OneFlow's expectations files, checked against plain OneFlow 0.9.0.

    .venv-oneflow/bin/python oneflow_plain.py [--ranks] [FILE...]

For each entry of conformance/expectations/oneflow.txt (and oneflow-4.txt), the check its case
ID selects makes the calls a OneFlow user would make, with OneFlow alone (no devspec code),
and confirms that OneFlow does what the entry's reason says: the name it lacks is absent and
the one the reason names instead exists, the call raises the error the reason quotes, the
result has the dtype the reason gives, the process aborts. An entry no check covers, or one
whose reason OneFlow contradicts, is printed and the exit status is 1; so is a check that
matched nothing. With --ranks the entries that need a global job (the aborts of oneflow-4.txt)
are checked on 4 ranks started as devspec-adapter-mpi-host --ranks 4 starts them (slow: a
OneFlow job takes 10 to 30 s to start on a loaded 2-core machine); without it they are
listed as not checked. test_oneflow.py runs it.
"""

from __future__ import annotations

import fnmatch
import os
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import oneflow as flow

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FILES = [os.path.join(TOP, "conformance", "expectations", n)
         for n in ("oneflow.txt", "oneflow-4.txt")]
T = flow.Tensor
DTYPES = ("bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64")


def resolve(path: str) -> Any:
    """oneflow.a.b or Tensor.a: the object, or None where OneFlow has no such name."""
    head, _, rest = path.partition(".")
    obj: Any = flow if head == "oneflow" else T
    for part in rest.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def raises(kind: type[BaseException], text: str, fn: Callable[[], Any]) -> str:
    try:
        got = fn()
    except kind as e:
        assert text in str(e), "raised %s without %r: %s" % (kind.__name__, text, str(e)[:200])
        return "%s (%s)" % (kind.__name__, text)
    raise AssertionError("returned %r where %s (%r) was expected" % (got, kind.__name__, text))


def tensor(dtype: str, device: str = "cpu:0", n: int = 2) -> Any:
    data = [True, False][:n] if dtype == "bool" else [1, 2][:n]
    return flow.tensor(data, dtype=getattr(flow, dtype), device=device)


# ---- the checks: (case ID glob, status, check(case id, reason) -> what OneFlow did) ------

def lacks_name(cid: str, why: str) -> str:
    m = re.search(r"under the standard's name it has no ((?:oneflow|Tensor)\.[\w.]+): (.*)", why)
    assert m, "the reason names nothing OneFlow lacks"
    assert resolve(m.group(1)) is None, "%s exists" % m.group(1)
    rest = m.group(2)
    for neg in re.findall(r"nor (oneflow\.\w+)", rest):
        assert resolve(neg) is None, "%s exists" % neg
    for torch_name in re.findall(r"nor torch's (\w+)", rest):
        assert not hasattr(flow, torch_name), "oneflow.%s exists" % torch_name
    for alt in re.findall(r"(?<!nor )(?<!no )(oneflow\.[\w.]+\w)", rest):
        assert resolve(alt) is not None, "%s, named as OneFlow's form, does not exist" % alt
    if "Tensor has the " in rest:
        op = {"&": "__and__", "|": "__or__", "^": "__xor__", "~": "__invert__"}[
            rest.split("Tensor has the ")[1][0]]
        assert hasattr(T, op), "Tensor has no " + op
    if "oneflow.linalg has only" in rest:
        have = sorted(n for n in dir(flow.linalg) if not n.startswith("_") and n != "flow")
        assert have == ["cross", "diagonal", "inv", "matrix_norm", "norm", "vector_norm"], have
    if "no fft module" in rest:
        assert not hasattr(flow, "fft")
    return "%s absent" % m.group(1)


def lacks_keyword(cid: str, why: str) -> str:
    if "squeeze" in why:
        return raises(TypeError, "unexpected keyword argument 'axis'",
                      lambda: flow.squeeze(flow.ones(1, 2), axis=0))
    return raises(TypeError, "unexpected keyword argument 'axes'",
                  lambda: flow.tensordot(flow.ones(2, 2), flow.ones(2, 2), axes=1))


def lacks_dtype(cid: str, why: str) -> str:
    m = re.search(r"(?:no dtype|the case's input is) (\w+)", why)
    assert m, "the reason names no dtype"
    assert not hasattr(flow, m.group(1)), "oneflow.%s exists" % m.group(1)
    assert all(isinstance(getattr(flow, d), flow.dtype) for d in DTYPES)
    assert isinstance(flow.bfloat16, flow.dtype)
    if "no fft module" in why:
        assert not hasattr(flow, "fft")
    if "nor conj, real or imag" in why:
        assert not any(hasattr(flow, n) for n in ("conj", "real", "imag"))
    return "no %s" % m.group(1)


def invert(cid: str, why: str) -> str:
    assert bool((~tensor("bool")).tolist() == [False, True])
    assert not hasattr(flow, "bitwise_not")
    return raises(RuntimeError, "is only implemented on integer and Boolean-type tensors",
                  lambda: ~tensor("int32"))


def from_dlpack(cid: str, why: str) -> str:
    assert not hasattr(T, "__dlpack__")
    return raises(RuntimeError, "from_dlpack received an invalid capsule",
                  lambda: flow.from_dlpack(tensor("float32")))


def scalar_arg(cid: str, why: str) -> str:
    fn = getattr(flow, cid.split(".")[1])
    x = tensor("float32")
    first = cid.endswith("scalar-x1")
    m = re.search(r"TypeError \(?['\"](.*?)['\"]", why)
    text = m.group(1).split(",")[0] if m else "must be tensor"
    if "invalid combination" in why:
        text = "received an invalid combination of arguments"
    return raises(TypeError, text.replace("<class 'float'>", "").strip(),
                  lambda: fn(1.5, x) if first else fn(x, 1.5))


def clip(cid: str, why: str) -> str:
    x = tensor("float32")
    if "opt-min" in cid:
        return raises(TypeError, "argument 'min' must be scalar", lambda: flow.clip(x, min=x))
    if "opt-max" in cid:
        return raises(TypeError, "argument 'max' must be scalar", lambda: flow.clip(x, max=x))
    return raises(RuntimeError, "Requires one of argument `min` and `max` at least",
                  lambda: flow.clip(x))


def searchsorted(cid: str, why: str) -> str:
    x = tensor("int64")
    return raises(TypeError, "received an invalid combination of arguments",
                  lambda: flow.searchsorted(x, x, sorter=x))


def equal(cid: str, why: str) -> str:
    x = tensor("float32")
    got = flow.equal(x, x)
    assert got is True, "equal gave %r" % (got,)
    return "equal(x, x) is True"


def diagonal(cid: str, why: str) -> str:
    return raises(TypeError, "missing 1 required positional argument: 'input'",
                  lambda: flow.linalg.diagonal(flow.ones(2, 2)))


def flip(cid: str, why: str) -> str:
    return raises(TypeError, "missing required argument dims", lambda: flow.flip(tensor("int32")))


def repeat(cid: str, why: str) -> str:
    x = tensor("int32")
    raises(TypeError, "'repeat_shape' must be shape", lambda: flow.repeat(x, x))
    return raises(TypeError, "'repeat_shape' must be shape", lambda: flow.repeat(x, 2))


def nonzero(cid: str, why: str) -> str:
    got = flow.nonzero(flow.tensor([3, 0, 2]))
    assert isinstance(got, T) and tuple(got.shape) == (2, 1) and got.dtype == flow.int64, got
    return "one (2, 1) int64 tensor"


def sort(cid: str, why: str) -> str:
    got = flow.sort(tensor("int32"))
    assert isinstance(got, tuple) and len(got) == 2 and hasattr(got, "indices"), type(got)
    return "(values, indices)"


def meshgrid(cid: str, why: str) -> str:
    a, b = flow.tensor([1.0, 2.0], device="cpu:0"), flow.tensor([1.0, 2.0], device="cpu:1")
    got = [str(t.device) for t in flow.meshgrid(a, b)]
    assert got == ["cpu:0", "cpu:1"], got
    return "outputs on cpu:0 and cpu:1"


def zero_d(cid: str, why: str) -> str:
    got = flow.tensor([1.0, 2.0, 3.0], device="cpu:0") * flow.tensor(2.0, device="cpu:1")
    assert str(got.device) == "cpu:0", got.device
    return "result on cpu:0"


def cuda_abort(cid: str, why: str) -> str:
    assert not flow.cuda.is_available(), \
        "a CUDA driver is present: the entry is for a machine without one"
    p = subprocess.run([sys.executable, "-c", "import oneflow; oneflow.zeros(1, device='cuda:0')"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == -6, "exit %d" % p.returncode
    assert "cudaGetDevice" in p.stderr, p.stderr[-300:]
    return "SIGABRT, cudaGetDevice"


def negative_index(cid: str, why: str) -> str:
    assert flow.device("cuda:-1") == flow.device("cuda", 0)
    return raises(Exception, "Device ID should be non-negative", lambda: flow.device("cuda", -1))


def ordinal(cid: str, why: str) -> str:
    raises(TypeError, "incompatible constructor arguments", lambda: flow.device(1))
    if "forms-agree" in cid:
        raises(TypeError, "incompatible constructor arguments", lambda: flow.device(0))
        return raises(TypeError, "argument 'device' must be device",
                      lambda: flow.zeros(2, device=0))
    return "device(1) TypeError"


def add_inplace(cid: str, why: str) -> str:
    a, b = cid.split(".")[3:5]
    x = tensor(a)
    x += tensor(b)
    assert x.dtype == getattr(flow, a), x.dtype
    y = tensor(a)

    def mul() -> None:
        nonlocal y
        y *= tensor(b)
    raises(RuntimeError, "can't be cast to the desired output type", mul)
    return "%s += %s stays %s; *= refuses" % (a, b, a)


def no_out(cid: str, why: str) -> str:
    x = tensor("float32")
    for fn in (flow.mul, flow.add, flow.sub, flow.div):
        raises(TypeError, "received an invalid combination of arguments",
               lambda fn=fn: fn(x, x, out=flow.zeros(2)))  # type: ignore[misc]
    return "mul/add/sub/div(out=) TypeError"


OPS = {"add": flow.add, "subtract": flow.sub, "multiply": flow.mul, "divide": flow.div}


def zero_d_promotion(cid: str, why: str) -> str:
    op, a, b = cid.split(".")[2:5]
    got = OPS[op](tensor(a), flow.tensor(1, dtype=getattr(flow, b)))
    m = re.search(r"0-d %s tensor gives (\w+)" % b, why)
    assert m, "the reason gives no result dtype"
    assert got.dtype == getattr(flow, m.group(1)), "gives %s" % got.dtype
    return "%s %s 0-d %s gives %s" % (a, op, b, m.group(1))


def int16_kernel(cid: str, why: str) -> str:
    a, b = cid.split(".")[3:5]
    op = cid.split(".")[2]
    assert str(flow.div(tensor(a), tensor(b)).dtype) == "oneflow.float32"
    return raises(RuntimeError, "Cannot find the kernel matching Current OperatorConf",
                  lambda: OPS[op](tensor(a), tensor(b)))


def bool_scalar(cid: str, why: str) -> str:
    op, a = cid.split(".")[2:4]
    flow.add(tensor(a), True)
    flow.sub(tensor(a), True)
    kernel = "scalar_mul" if op == "multiply" else "scalar_div"
    return raises(NotImplementedError, "The scalar in %s should be float or int" % kernel,
                  lambda: OPS[op](tensor(a), True))


# Run on 4 ranks (--ranks): the snippet each rank runs, and what one rank's stderr must say.
RANKED = {
    "oneflow.placement.bad-duplicate":
        ("oneflow.placement('cpu', [0, 1, 1, 2])", "Check failed"),
    "oneflow.sbp.dtype.float16.p-to-b":
        ("import numpy\nv = oneflow.tensor(numpy.ones((4, 8), numpy.float16))\n"
         "v = v if oneflow.env.get_rank() == 0 else oneflow.zeros_like(v)\n"
         "g = v.to_global(placement=oneflow.placement('cpu', [0, 1, 2, 3]), "
         "sbp=oneflow.sbp.partial_sum)\ng.to_global(sbp=oneflow.sbp.broadcast).to_local()",
         "map::at"),
    "oneflow.sbp.fewer-rows.make-s0":
        ("oneflow.tensor([7, -8, 9], dtype=oneflow.int32, placement=oneflow.placement('cpu', "
         "[0, 1, 2, 3]), sbp=oneflow.sbp.split(0)).to_local()", "bs.At(id).size() > 0"),
    "oneflow.sbp.fewer-rows.b-to-s0":
        ("b = oneflow.tensor([7, -8, 9], dtype=oneflow.int32, placement=oneflow.placement("
         "'cpu', [0, 1, 2, 3]), sbp=oneflow.sbp.broadcast)\n"
         "b.to_global(sbp=oneflow.sbp.split(0)).to_local()", "bs.At(id).size() > 0"),
}


def on_ranks(cid: str, why: str) -> str:
    code, said = RANKED[cid]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(4):
            env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                       WORLD_SIZE="4", RANK=str(r), LOCAL_RANK=str(r))
            with open(os.path.join(tmp, "%d.err" % r), "w", encoding="utf-8") as err:
                procs.append(subprocess.Popen([sys.executable, "-c", "import oneflow\n" + code],
                                              env=env, stdout=subprocess.DEVNULL, stderr=err))
        codes, text = [], ""
        for r, p in enumerate(procs):
            try:
                codes.append(p.wait(timeout=300))
            except subprocess.TimeoutExpired:
                p.kill()
                codes.append(p.wait())
            with open(os.path.join(tmp, "%d.err" % r), encoding="utf-8") as f:
                text += f.read()
    assert all(c != 0 for c in codes), "rank exits %s: the job survived" % codes
    assert -6 in codes or 134 in codes, "no rank aborted: %s" % codes
    assert said in text, "no rank said %r" % said
    return "every rank ended (%s), one said %r" % (codes, said)


# ---- the function cases' keyword, values, 0-d and empty entries --------------------------

def fn_name(cid: str) -> str:
    """fn.linalg.matrix_norm.v2021-12.kw-k -> linalg.matrix_norm."""
    return re.sub(r"\.v\d{4}-\d\d\..*$", "", cid)[3:]


KW_VALUES: dict[str, Any] = {"axis": 0, "keepdims": True, "correction": 1, "k": 1,
                             "stable": True, "copy": True, "endpoint": False,
                             "include_initial": True, "dtype": flow.float64}


def missing_keyword(cid: str, why: str) -> str:
    """oneflow.NAME takes no keyword KW: calling it with KW is refused by OneFlow itself."""
    m = re.search(r"oneflow\.([\w.]+) takes no keyword (\w+)", why)
    assert m, "the reason names no function and keyword"
    fn = resolve("oneflow." + m.group(1))
    assert fn is not None, "oneflow.%s does not exist" % m.group(1)
    kw = m.group(2)
    args: tuple[Any, ...] = (flow.ones(2, 3),)
    if m.group(1) in ("concat", "stack"):
        args = ([flow.ones(2, 3), flow.ones(2, 3)],)
    elif m.group(1) == "linspace":
        args = (0.0, 1.0, 5)
    elif m.group(1) in ("reshape",):
        args = (flow.ones(2, 3), (3, 2))
    elif m.group(1) == "linalg.cross":
        args = (flow.ones(2, 3), flow.ones(2, 3))
    elif m.group(1) == "roll":
        args = (flow.ones(2, 3), 1)
    try:
        fn(*args, **{kw: KW_VALUES.get(kw, 1)})
    except TypeError as e:
        assert kw in str(e) or "invalid combination" in str(e), str(e)[:200]
        return "TypeError for %s=" % kw
    raise AssertionError("oneflow.%s(%s=) was accepted" % (m.group(1), kw))


def reduce_keyword(cid: str, why: str) -> str:
    """OneFlow's reductions are torch's: axis= and keepdims= (and sum's dtype=) refused."""
    name = fn_name(cid)
    kw = cid.rsplit("kw-", 1)[1]
    return raises(TypeError, "invalid combination of arguments",
                  lambda: getattr(flow, name)(flow.ones(2, 3), **{kw: KW_VALUES[kw]}))


def bitwise_bool(cid: str, why: str) -> str:
    op = {"and": "__and__", "or": "__or__", "xor": "__xor__"}[cid.split(".")[2]]
    x = flow.tensor([3, -1, 2], dtype=flow.int32)
    y = flow.tensor([-1, 2, -4], dtype=flow.int32)
    got = getattr(x, op)(y)
    assert got.dtype == flow.bool, got.dtype
    return "int32 %s gives bool" % op


def float_mod(cid: str, why: str) -> str:
    got = (flow.tensor([0.5]) % flow.tensor([-1.25])).tolist()
    assert got == [0.5], got
    return "0.5 %% -1.25 is %r" % got


def size_method(cid: str, why: str) -> str:
    x = flow.ones(2, 3)
    assert callable(x.size) and tuple(x.size()) == (2, 3)
    return "Tensor.size() is the shape"


def meshgrid_ij(cid: str, why: str) -> str:
    a, b = flow.ones(3), flow.ones(2)
    got = tuple(flow.meshgrid(a, b)[0].shape)
    assert got == (3, 2), got
    return "meshgrid of [3] and [2] gives %r" % (got,)


def raises_text(kind: type[BaseException], text: str, make: Callable[[], Any]) -> Callable[
        [str, str], str]:
    return lambda cid, why: raises(kind, text, make)


def killed_by_sigfpe(cid: str, why: str) -> str:
    """argsort of an empty tensor kills the process: run it in a child."""
    code = "import oneflow\noneflow.argsort(oneflow.zeros(0)).tolist()\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert r.returncode == -8, "exited with %d" % r.returncode
    return "SIGFPE"


def empty_prod(cid: str, why: str) -> str:
    got = flow.prod(flow.zeros(0)).tolist()
    assert got == 0.0, got
    return "prod of empty is %r" % got


def unbiased(cid: str, why: str) -> str:
    x = flow.tensor([[0.5, -1.25, 2.0], [-0.75, 1.5, 0.5]], dtype=flow.float64)
    name = fn_name(cid)
    got = getattr(flow, name)(x).tolist()
    n = 6
    mean = sum(x.flatten().tolist()) / n
    var1 = sum((v - mean) ** 2 for v in x.flatten().tolist()) / (n - 1)
    want = var1 if name == "var" else var1 ** 0.5
    assert abs(got - want) < 1e-12, (got, want)
    return "%s uses n - 1" % name


def std_zero_d_device(cid: str, why: str) -> str:
    got = flow.std(flow.tensor(1.5, device="cpu:1")).device
    assert str(got) == "cpu:0", got
    return "std of a 0-d on cpu:1 is on %s" % got


def sort_empty_dies_in_wait(cid: str, why: str) -> str:
    """sort of an empty tensor kills the process with SIGFPE from a thread of OneFlow's virtual
    machine, most often after the call has returned: run it in a child that then waits for
    OneFlow's eager work (eager.Sync, as the adapter does after each operation), and check
    that the child dies before the wait returns, every time of several."""
    assert "SIGFPE" in why and "waits" in why
    code = ("import oneflow\noneflow.sort(oneflow.zeros(0))\nprint('returned', flush=True)\n"
            "oneflow._oneflow_internal.eager.Sync()\nprint('waited', flush=True)\n")
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == -8 and "waited" not in r.stdout, \
            "printed %r, exited with %d" % (r.stdout, r.returncode)
    return "SIGFPE before the wait returned, 3 of 3"


CHECKS: list[tuple[str, str, Callable[[str, str], str]]] = [
    ("fn.*", "lacks", lambda c, w: missing_keyword(c, w) if " takes no keyword " in w else
     lacks_keyword(c, w) if "keyword argument" in w else
     lacks_dtype(c, w) if "the case's input is" in w else lacks_name(c, w)),
    *(("fn.%s.*.kw-%s" % (f, kw), "fail", reduce_keyword)
      for f in ("all", "any", "max", "min", "mean", "prod", "sum", "std", "var")
      for kw in ("axis", "keepdims")),
    ("fn.sum.*.kw-dtype", "fail", reduce_keyword),
    ("fn.array.and.*", "fail", bitwise_bool),
    ("fn.array.or.*", "fail", bitwise_bool),
    ("fn.array.xor.*", "fail", bitwise_bool),
    ("fn.array.mod.*", "fail", float_mod),
    ("fn.array.size.*", "fail", size_method),
    ("fn.meshgrid.*", "fail", lambda c, w: meshgrid(c, w) if "mixed-" in c else meshgrid_ij(c, w)),
    ("fn.eye.*.kw-k", "fail", raises_text(TypeError, "invalid combination of arguments",
                                           lambda: flow.eye(3, k=1))),
    ("fn.atan2.*.empty", "fail", raises_text(RuntimeError, "the size of input should be > 0",
                                              lambda: flow.atan2(flow.zeros(0), flow.zeros(0)))),
    ("fn.logaddexp.*.empty", "fail", raises_text(
        RuntimeError, "do not support 0-size tensor",
        lambda: flow.logaddexp(flow.zeros(0), flow.zeros(0)))),
    ("fn.linalg.matrix_norm.*.kw-ord-nuc", "fail", raises_text(
        Exception, "Not support ord is nuc",
        lambda: flow.linalg.matrix_norm(flow.ones(2, 2), ord="nuc"))),
    ("fn.argsort.*.empty", "crash", killed_by_sigfpe),
    ("fn.sort.*.empty", "crash", sort_empty_dies_in_wait),
    ("fn.prod.*.empty", "fail", empty_prod),
    ("fn.std.*.zero-d", "fail", std_zero_d_device),
    ("fn.var.*.zero-d", "fail", raises_text(RuntimeError, "reduce_axes.empty",
                                             lambda: flow.var(flow.tensor(1.5)))),
    ("fn.std.*", "fail", unbiased),
    ("fn.var.*", "fail", unbiased),
    ("fn.array.invert.*", "fail", invert),
    ("fn.from_dlpack.*", "fail", from_dlpack),
    ("fn.*.scalar-x?", "fail", scalar_arg),
    ("fn.clip.*", "fail", clip),
    ("fn.searchsorted.*", "fail", searchsorted),
    ("fn.equal.*", "fail", equal),
    ("fn.linalg.diagonal.*", "fail", diagonal),
    ("fn.flip.*", "fail", flip),
    ("fn.repeat.*", "fail", repeat),
    ("fn.nonzero.*", "fail", nonzero),
    ("fn.sort.*", "fail", sort),
    ("fn.meshgrid.*.mixed-*", "fail", meshgrid),
    ("mixed.binary.zero-d", "fail", zero_d),
    ("oneflow.device.get-device-gpu", "crash", cuda_abort),
    ("oneflow.device.negative-index-refused", "fail", negative_index),
    ("oneflow.device.legacy-ordinal", "fail", ordinal),
    ("oneflow.device.forms-agree", "fail", ordinal),
    ("oneflow.promotion.*complex*", "lacks", lacks_dtype),
    ("oneflow.sbp.dtype.*", "lacks", lacks_dtype),
    ("out.inplace.add.*", "fail", add_inplace),
    ("out.*", "lacks", no_out),
    ("mixed.out.*", "lacks", no_out),
    ("promotion.category.*.0d*", "fail", zero_d_promotion),
    ("promotion.category.*.int8.uint8.array", "fail", int16_kernel),
    ("promotion.category.*.uint8.int8.array", "fail", int16_kernel),
    ("promotion.category.*.scalar-bool*", "fail", bool_scalar),
    *((cid, "crash", on_ranks) for cid in RANKED),
]


def entries(path: str) -> list[tuple[str, str, str]]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                head, _, why = line.partition(" # ")
                cid, status = head.split()
                out.append((cid, status, why.strip()))
    return out


def main(argv: list[str]) -> int:
    ranks = "--ranks" in argv
    files = [a for a in argv if a != "--ranks"] or FILES
    bad = unchecked = 0
    counts: dict[str, int] = {}
    for path in files:
        for cid, status, why in entries(path):
            check = next((c for g, s, c in CHECKS
                          if s == status and fnmatch.fnmatchcase(cid, g)), None)
            if check is None:
                print("NO CHECK %s %s # %s" % (cid, status, why[:100]))
                bad += 1
                continue
            if check is on_ranks and not ranks:
                unchecked += 1
                continue
            try:
                check(cid, why)
            except Exception as e:  # a check's failure, or OneFlow's unexpected error
                print("WRONG %s %s: %s: %s\n  reason: %s" % (cid, status, type(e).__name__, e,
                                                              why[:200]))
                bad += 1
                continue
            counts[check.__name__] = counts.get(check.__name__, 0) + 1
    total = sum(counts.values())
    print("oneflow_plain: %d entries confirmed in plain OneFlow %s, %d wrong or unchecked, "
          "%d need --ranks" % (total, flow.__version__, bad, unchecked))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
