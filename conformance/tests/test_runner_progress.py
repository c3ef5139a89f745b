"""The progress line: on a terminal only, coloured unless NO_COLOR, off with --no-progress."""

from __future__ import annotations

import os
import pty
import subprocess

from support import CASES, TEST_SPEC, Env, fake_cmd, why


def run_on_tty(env: Env, args: list[str], extra_env: dict[str, str]) -> tuple[int, str]:
    """Runs devspec with its stderr on a pseudo-terminal; returns (rc, what the tty saw)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([env.devspec, *args, "--spec", TEST_SPEC], stdout=subprocess.DEVNULL,
                         stderr=slave, env=env.environ(extra_env), cwd=env.tmp)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait()
    os.close(master)
    return p.returncode, seen.decode("utf-8", "replace")


def args(env: Env) -> list[str]:
    return ["run", "--cases", os.path.join(CASES, "fail.json"), "--adapter-cmd", fake_cmd(),
            "--report", env.path("p.json")]


def test_terminal(env: Env) -> None:
    _, seen = run_on_tty(env, args(env), {})
    assert "[1/12]" in seen and "\r" in seen, why(
        "a progress line on stderr when it is a terminal", "[1/12] with carriage returns",
        seen[:300])
    assert "\033[31m" in seen, why("the progress line uses colour on a terminal", "red", seen[:300])


def test_no_color(env: Env) -> None:
    _, seen = run_on_tty(env, args(env), {"NO_COLOR": "1"})
    assert "[1/12]" in seen and "\033[31m" not in seen, why(
        "NO_COLOR: progress without colour", "no colour", seen[:300])


def test_no_progress(env: Env) -> None:
    _, seen = run_on_tty(env, [*args(env), "--no-progress"], {})
    assert "[1/12]" not in seen, why("--no-progress: no progress line", "none", seen[:300])


def test_not_a_terminal(env: Env) -> None:
    _, _, err = env.run(args(env))
    assert "[1/12]" not in err, why(
        "no progress line when stderr is not a terminal", "none", err[:300])
