"""scripts/zero-code.py's judgement of a reproducer: a lack's script counts as failing as
reported when a step raises, never when it failed before any step, looking up the devices the
run bound (NumPy 1.26's numpy.array_api has no inspection namespace, and its fft scripts
failed there, which passed for "lacks fft")."""

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("zero_code",
                                               os.path.join(TOP, "scripts", "zero-code.py"))
assert _spec is not None and _spec.loader is not None
zero_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(zero_code)

# The shape of a script `devspec repro` writes: devices bound first, then the steps; an
# exception a step raises where the case wants a result becomes an AssertionError naming it.
SCRIPT = '''import types
xp = types.SimpleNamespace(%s)
CASE = "fn.fft.fft.expect"


def main():
    D0 = _device("cpu")
    y = xp.fft(D0)


def _info():
    return xp.__array_namespace_info__()


def _device(text):
    for d in _info().devices():
        if str(d) == text:
            return d


if __name__ == "__main__":
    try:
        main()
    except (AssertionError, NotImplementedError):
        raise
    except Exception as exc:
        raise AssertionError("%%s: %%s: %%s where the case wants a result" %% (
            CASE, type(exc).__name__, exc)) from exc
'''
LACKS: dict[str, Any] = {"id": "fn.fft.fft.expect", "observed_status": "lacks",
                         "observed": {"error": {"kind": "NotImplementedError"}}}


def check(tmp_path: Path, namespace: str) -> str | None:
    path = tmp_path / "repro.py"
    path.write_text(SCRIPT % namespace)
    result: str | None = zero_code.check_reproducer(sys.executable, str(path), LACKS,
                                                     dict(os.environ))
    return result


def test_a_lack_raised_by_a_step_is_as_reported(tmp_path: Path) -> None:
    info = "__array_namespace_info__=lambda: types.SimpleNamespace(devices=lambda: ['cpu'])"
    assert check(tmp_path, info) is None  # xp.fft is missing: the step raises


def test_a_failure_while_binding_the_devices_is_not(tmp_path: Path) -> None:
    why = check(tmp_path, "fft=lambda d: d")  # no inspection namespace: _device raises
    assert why is not None and why.startswith("could not bind the run's devices: "
                                              "AttributeError"), why


def test_the_librarys_not_implemented_error_in_a_step_is_as_reported(tmp_path: Path) -> None:
    # ndonnx's atan2 raises a bare NotImplementedError, which the script lets through
    # unwrapped; devspec reported the same kind at that step.
    info = "__array_namespace_info__=lambda: types.SimpleNamespace(devices=lambda: ['cpu'])"
    raises = "fft=lambda d: (_ for _ in ()).throw(NotImplementedError())"
    failed = dict(LACKS, observed_status="fail")
    path = tmp_path / "repro.py"
    path.write_text(SCRIPT % (info + ", " + raises))
    assert zero_code.check_reproducer(sys.executable, str(path), failed,
                                      dict(os.environ)) is None
    other = dict(failed, observed={"error": {"kind": "TypeError"}})
    assert zero_code.check_reproducer(sys.executable, str(path), other,
                                      dict(os.environ)) is not None
