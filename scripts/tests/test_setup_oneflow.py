"""scripts/setup-oneflow.sh where no Python 3.10 exists: it says so, records the reason, and
the oneflow adapters are reported as unavailable with that reason, never dropped. Run on a
copy of the three files involved, with a PATH that holds no Python 3.10 and no pyenv, so the
real .venv-oneflow is never touched."""

import os
import shutil
import subprocess
from pathlib import Path

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ("scripts/setup-oneflow.sh", "adapters/python/requirements-oneflow.txt",
         "adapters/python/oneflow-python")


def tree(tmp_path: Path) -> dict[str, str]:
    for rel in FILES:
        dest = tmp_path / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(TOP, rel), dest)
    # Only the tools the two scripts use, so no python3.10 and no pyenv can be found.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "cat", "cut", "dirname", "ls", "rm", "sha256sum", "sort",
                 "date"):
        found = shutil.which(tool)
        assert found, tool
        os.symlink(found, bin_dir / tool)
    return dict(os.environ, PATH=str(bin_dir))


def test_no_python_310_is_said_and_recorded(tmp_path: Path) -> None:
    env = tree(tmp_path)
    setup = subprocess.run(["bash", str(tmp_path / "scripts/setup-oneflow.sh")], env=env,
                           capture_output=True, text=True, timeout=60)
    assert setup.returncode == 0, setup.stderr
    assert "no Python 3.10" in setup.stderr and "unavailable" in setup.stderr
    reason = (tmp_path / ".venv-oneflow.unavailable").read_text(encoding="utf-8")
    assert "no Python 3.10" in reason
    assert not (tmp_path / ".venv-oneflow").exists()
    # The adapters' interpreter says why and exits 3, before any request is read.
    run = subprocess.run([str(tmp_path / "adapters/python/oneflow-python"), "-c", "pass"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 3
    assert run.stderr.startswith("oneflow is unavailable: ") and reason.strip() in run.stderr


def test_unavailable_adapter_is_reported_not_dropped(tmp_path: Path) -> None:
    # run-suite.sh's reading of the runner's report for such an adapter.
    report = tmp_path / "oneflow.json"
    report.write_text('{"header": {"adapter": {"error": "hello failed: the adapter died '
                      'during hello: exited with status 3; stderr: oneflow is unavailable: '
                      'no Python 3.10 here\\n"}}}', encoding="utf-8")
    with open(os.path.join(TOP, "scripts/run-suite.sh"), encoding="utf-8") as f:
        script = f.read()
    start = script.index("unavailable() {")
    body = script[start:script.index("\n}\n", start) + 3]
    out = subprocess.run(["bash", "-c", body + 'unavailable "$1"', "_", str(report)],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "no Python 3.10 here"
