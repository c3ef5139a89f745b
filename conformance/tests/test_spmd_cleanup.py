"""No process of an SPMD job outlives it (adapters/host/README.md), in each of the three
forms: the ranks, and the processes a rank's library forks, after a normal end (hangs and
crashes on the way, each a restart of the job) and after a SIGKILL of the runner.

The fixture (fixtures/spmd_adapter.c) forks, at each hello, a child that never execs and
keeps the rank's descriptors, as a library's worker would, and marks it with a file named by
its pid. The test process makes itself a child subreaper (Linux's PR_SET_CHILD_SUBREAPER),
so every process the job starts stays in the test's own process tree when its parent dies,
and only that tree is looked at: what other tests or builds on the machine run can neither
fail nor pass these checks. Nothing waits a fixed time; each check waits for its condition.
Skipped without MPI."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
TEST_SPEC = os.path.join(HERE, "spec")
CASES = os.path.join(HERE, "cases", "spmd.json")
PR_SET_CHILD_SUBREAPER = 36


@dataclass
class Mpi:
    devspec: str
    host: str  # the SPMD host
    one: str  # the one-process host
    so: str  # the fixture module
    env: dict[str, str]


def option(config: pytest.Config, name: str) -> str | None:
    """A path option conftest.py may declare (--devspec, --build)."""
    value = config.getoption(name, default=None)
    return str(value) if value else None


@pytest.fixture(scope="module", autouse=True)
def subreaper() -> Iterator[None]:
    """Orphans of the jobs below are re-parented to this process, not to init, while this
    file's tests run; after them the process is an ordinary one again, its dead orphans
    reaped (other tests in the same session see orphans go to init as usual)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        pytest.skip("no PR_SET_CHILD_SUBREAPER here (errno %d)" % ctypes.get_errno())
    yield
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    reap_orphans()


@pytest.fixture
def mpi(request: pytest.FixtureRequest) -> Mpi:
    build = option(request.config, "--build") or os.environ.get("DEVSPEC_BUILD") or \
        os.path.join(SOURCE, "build")
    devspec = option(request.config, "--devspec") or \
        os.path.join(build, "conformance", "devspec")
    host = os.path.join(build, "adapters", "host", "devspec-adapter-mpi-host")
    one = os.path.join(build, "adapters", "host", "devspec-adapter-host")
    so = os.path.join(build, "conformance", "devspec_spmd_fixture.so")
    if not (os.path.exists(host) and os.path.exists(so) and shutil.which("mpirun")):
        pytest.skip("built without MPI")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_mca_base_component_disable_dlclose="1", DEVSPEC_SOURCE=SOURCE,
               DEVSPEC_BUILD=build)
    # Under AddressSanitizer, leak reports of OpenMPI's own state name its libraries only when
    # the slow unwinder follows its frames (.ci/lsan.supp suppresses them by library).
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
    return Mpi(devspec, host, one, so, env)


def job(how: str, m: Mpi) -> str:
    """The same job three ways: under mpirun loading the module into each rank, under mpirun
    with each rank running the one-process host as its child, and with the host starting its
    ranks itself (each the one-process host, told its rank through RANK)."""
    return {"mpirun": "exec mpirun -np 3 --oversubscribe %s %s" % (m.host, m.so),
            "mpirun --": "exec mpirun -np 3 --oversubscribe %s -- %s %s" % (m.host, m.one, m.so),
            "--ranks": "exec %s --ranks 3 -- sh -c 'OMPI_COMM_WORLD_RANK=$RANK exec \"$0\" "
                       "\"$@\"' %s %s" % (m.host, m.one, m.so)}[how]


def processes() -> dict[int, tuple[int, str, str]]:
    """Every process: pid -> (parent pid, state, name)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        head, _, tail = stat.rpartition(")")
        fields = tail.split()
        found[int(name)] = (int(fields[1]), fields[0], head.partition("(")[2])
    return found


def descendants() -> list[tuple[int, str]]:
    """The live processes of this test's own tree (zombies are dead): (pid, name)."""
    procs = processes()
    me = os.getpid()
    live = []
    for pid, (_, state, name) in procs.items():
        p = pid
        for _ in range(len(procs)):
            p = procs[p][0] if p in procs else 0
            if p == me:
                if state not in "ZX":
                    live.append((pid, name))
                break
            if p <= 1:
                break
    return sorted(live)


def reap_orphans() -> None:
    """Reaps the dead orphans handed to this process (none of them is a child it waits for:
    every child it started itself has been waited for)."""
    me = os.getpid()
    for pid, (ppid, state, _) in processes().items():
        if ppid == me and state == "Z":
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def wait_until(holds: Callable[[], bool], limit: float) -> bool:
    """Polls holds() until it is true or limit seconds have passed; returns its last value."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if holds():
            return True
        time.sleep(0.05)
    return holds()


def kids(d: Path) -> list[int]:
    """The pids of the fixture's children so far (each marks itself with a file)."""
    return sorted(int(p.name) for p in d.iterdir()) if d.exists() else []


HOWS = ["mpirun", "mpirun --", "--ranks"]


@pytest.mark.parametrize("how", HOWS)
def test_nothing_outlives_a_normal_end(mpi: Mpi, how: str, tmp_path: Path) -> None:
    """The job hangs once and crashes once (the job is restarted each time) and then ends
    normally: no rank, host, keeper or child of a rank is left."""
    marks = tmp_path / "kids"
    marks.mkdir()
    env = dict(mpi.env, DEVSPEC_SPMD_FIXTURE_KID=str(marks))
    report = tmp_path / "spmd.json"
    r = subprocess.run([mpi.devspec, "run", "--spec", TEST_SPEC, "--cases", CASES,
                        "--adapter-cmd", job(how, mpi), "--timeout", "5", "--no-progress",
                        "--report", str(report)], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-800:])
    seen = kids(marks)
    # Three jobs (the first, and the restarts after the hang and the crash), each rank's hello
    # forking a child; a rank killed at once by the job's end may not have got to it.
    assert len(seen) >= 3, ("every rank of a job forks a child at hello", seen)
    gone = wait_until(lambda: not descendants(), 30)
    left = descendants()
    reap_orphans()
    assert gone, ("%s: nothing of the job outlives its normal end" % how, left)


@pytest.mark.parametrize("how", HOWS)
def test_nothing_outlives_a_sigkill_of_the_runner(mpi: Mpi, how: str, tmp_path: Path) -> None:
    """The runner is killed (SIGKILL) while every rank of the job has answered hello and
    forked its child: the runner's keeper ends the job's process group, and nothing of the
    job is left."""
    marks = tmp_path / "kids"
    marks.mkdir()
    env = dict(mpi.env, DEVSPEC_SPMD_FIXTURE_KID=str(marks))
    runner = subprocess.Popen([mpi.devspec, "run", "--spec", TEST_SPEC, "--cases", CASES,
                               "--case", "spmd.hang", "--adapter-cmd", job(how, mpi),
                               "--timeout", "600", "--no-progress",
                               "--report", str(tmp_path / "spmd.json")],
                              env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    started = wait_until(lambda: len(kids(marks)) >= 3, 120)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    gone = wait_until(lambda: not descendants(), 30)
    left = descendants()
    reap_orphans()
    assert started, ("%s: every rank forked its child" % how, kids(marks))
    assert gone, ("%s: nothing of the job outlives a SIGKILL of the runner" % how, left)
