"""The SPMD transport (spec/protocol.md): a rank that hangs or crashes costs its case, the job
(mpirun and every rank) is restarted; a merged reply over the limit is the host's
MemoryError; no process a rank starts outlives the job (that no rank does, and nothing a rank
forks in the module form, is test_spmd_cleanup.py's). Skipped without MPI."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from support import (
    CASES,
    Env,
    check_trace,
    load_report,
    statuses,
    wait_until,
    why,
)


@dataclass
class Mpi:
    host: str  # the SPMD host
    one: str  # the one-process host
    so: str  # the fixture module (fixtures/spmd_adapter.c)
    env: dict[str, str]


@pytest.fixture
def mpi(env: Env) -> Mpi:
    host = os.path.join(env.build, "adapters", "host", "devspec-adapter-mpi-host")
    so = os.path.join(env.build, "conformance", "devspec_spmd_fixture.so")
    if not (os.path.exists(host) and os.path.exists(so) and shutil.which("mpirun")):
        pytest.skip("built without MPI")
    mpi_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_mca_base_component_disable_dlclose="1")
    # Under AddressSanitizer, leak reports of OpenMPI's own state name its libraries only when
    # the slow unwinder follows its frames (.ci/lsan.supp suppresses them by library).
    if "ASAN_OPTIONS" in mpi_env:
        mpi_env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
    one = os.path.join(env.build, "adapters", "host", "devspec-adapter-host")
    return Mpi(host, one, so, mpi_env)


def pids_with_env(entry: str) -> list[int]:
    """The processes whose environment holds the entry NAME=VALUE (zombies hold none)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as fh:
                if entry.encode() in fh.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            pass
    return found


def sleepers(entry: str, n: int) -> Callable[[], bool]:
    """A condition for wait_until: at least N processes hold ENTRY."""
    return lambda: len(pids_with_env(entry)) >= n


def no_sleepers(entry: str) -> Callable[[], bool]:
    """A condition for wait_until: no process holds ENTRY."""
    return lambda: not pids_with_env(entry)


def job(how: str, m: Mpi) -> str:
    """The same job three ways: under mpirun loading the module, under mpirun with each rank
    running the one-process host as a child, and with the host starting its ranks itself
    (each the one-process host serving the fixture, told its rank through RANK)."""
    return {"mpirun": "exec mpirun -np 3 --oversubscribe %s %s" % (m.host, m.so),
            "mpirun --": "exec mpirun -np 3 --oversubscribe %s -- %s %s" % (m.host, m.one, m.so),
            "--ranks": "exec %s --ranks 3 -- sh -c 'OMPI_COMM_WORLD_RANK=$RANK exec \"$0\" "
                       "\"$@\"' %s %s" % (m.host, m.one, m.so)}[how]


@pytest.mark.parametrize("how", ["mpirun", "mpirun --", "--ranks"])
def test_hang_and_crash(env: Env, mpi: Mpi, how: str) -> None:
    cmd = job(how, mpi)
    rep = env.path("spmd.json")
    rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "spmd.json"),
                          "--adapter-cmd", cmd, "--timeout", "5", "--report", rep,
                          "--trace", env.path("spmd.trace")], env=mpi.env, timeout=300)
    st = statuses(load_report(rep))
    assert (
        st == {"spmd.before": "pass", "spmd.hang": "timeout", "spmd.after-hang": "pass",
               "spmd.crash": "crash", "spmd.after-crash": "pass"}
    ), why(
        "%s: a hung rank times out its case, a crashed rank crashes its case, the job "
        "restarts" % how, "pass timeout pass crash pass", (rc, st, err[-500:]))
    check_trace(env, env.path("spmd.trace"), f"{how}: the SPMD host's replies")
    # Three legal 20 MB replies that differ merge into one over the 64 MiB limit: the host
    # answers MemoryError (origin adapter), not a reply the runner must refuse; the same job
    # answers the next case.
    rep = env.path("spmd-big.json")
    rc, _, err = env.run(["run", "--cases", os.path.join(CASES, "spmd-big.json"),
                          "--adapter-cmd", cmd, "--timeout", "120", "--report", rep],
                         env=mpi.env, timeout=600)
    report = load_report(rep)
    big = [c for c in report["cases"] if c["id"] == "spmd.big"]
    assert (
        big and big[0]["status"] == "fail" and "MemoryError" in big[0]["reason"] and
        "over the protocol's limit" in big[0]["reason"] and
        statuses(report).get("spmd.after-big") == "pass"
    ), why(
        "%s: a merged reply over the limit is the host's MemoryError" % how,
        "fail: MemoryError", big and (big[0]["status"], big[0].get("reason")))


KID_JOBS = {
    "mpirun --": "exec mpirun -np 3 --oversubscribe %s -- sh -c '%s exec \"$0\" \"$@\"' "
                 "%s %s",
    "--ranks": "exec %s --ranks 3 -- sh -c '%s OMPI_COMM_WORLD_RANK=$RANK exec \"$0\" "
               "\"$@\"' %s %s"}


@pytest.mark.parametrize("how", list(KID_JOBS))
def test_rank_children(env: Env, mpi: Mpi, how: str) -> None:
    """A process a rank starts (here a sleeper each rank forks before it becomes the adapter)
    dies with the job, after a normal end and after a SIGKILL of the runner. Each sleeper
    carries a token of this test in its environment, so only they are looked for."""
    form = KID_JOBS[how]
    host, one, so = mpi.host, mpi.one, mpi.so
    token = "DEVSPEC_TEST_KID=%s-%d-%d" % (os.path.basename(env.tmp), os.getpid(), len(how))
    sleeper = "%s sleep 600 </dev/null >/dev/null 2>&1 &" % token
    cmd = form % (host, sleeper, one, so)
    args = ["run", "--cases", os.path.join(CASES, "spmd.json"), "--adapter-cmd", cmd,
            "--timeout", "5", "--report", env.path("spmd-kid.json")]
    rc, _, err = env.run(args, env=mpi.env, timeout=300)
    st = statuses(load_report(env.path("spmd-kid.json")))
    assert st.get("spmd.after-crash") == "pass", why(
        "%s: the job with sleepers runs" % how, "pass", (rc, st, err[-500:]))
    assert wait_until(no_sleepers(token), 30), why(
        "%s: a rank's child does not outlive the job's normal end" % how, "none",
        pids_with_env(token))
    if how != "--ranks":
        return
    # The host on its own, without the runner's cleanup of its worker's process group:
    # a session that ends at once, and a host killed with SIGKILL.
    for ending in ("normal end", "SIGKILL"):
        token = "%s-%s" % (token, ending[0])
        kid = token
        cmd = form % (host, "%s sleep 600 </dev/null >/dev/null 2>&1 &" % kid, one, so)
        h = subprocess.Popen(["sh", "-c", cmd], env=mpi.env, cwd=env.tmp,
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        started = wait_until(sleepers(kid, 3), 60)
        if ending == "SIGKILL":
            h.kill()
        else:
            assert h.stdin is not None
            h.stdin.close()
        h.wait(timeout=60)
        assert started and wait_until(no_sleepers(kid), 30), why(
            "the host alone: a rank's child does not outlive the host's %s" % ending,
            "3 sleepers seen, then none", (started, pids_with_env(kid)))
    kid = token + "-k"
    args[args.index("--adapter-cmd") + 1] = form % (
        host, "%s sleep 600 </dev/null >/dev/null 2>&1 &" % kid, one, so)
    runner = env.start(args, env=mpi.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = wait_until(sleepers(kid, 3), 60)
    runner.kill()
    runner.wait()
    assert started and wait_until(no_sleepers(kid), 30), why(
        "%s: a rank's child does not outlive a SIGKILL of the runner" % how,
        "3 sleepers seen, then none", (started, pids_with_env(kid)))
