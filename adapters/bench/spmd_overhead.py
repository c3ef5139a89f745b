#!/usr/bin/env python3
"""What one request costs through the SPMD transport against the plain out-of-process one,
on the same adapter in the same run (standard library only).

    spmd_overhead.py BUILD_DIR [ITERATIONS] [RANKS]

Sends ITERATIONS small requests (soft.get) one at a time, waiting for each reply, through
devspec-adapter-host and through `mpirun -np RANKS --oversubscribe devspec-adapter-mpi-host`
(both serving the refarray adapter), alternately for three rounds, and prints the best
microseconds per request of each and their ratio (SPMD / out of process).
"""

import os
import subprocess
import sys
import time


def per_request(cmd: list[str], n: int, env: dict[str, str]) -> float:
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)
    assert p.stdin is not None and p.stdout is not None  # both are PIPE
    p.stdin.write('{"id":1,"op":"hello","args":{"protocol":1}}\n')
    p.stdin.flush()
    if '"ok":true' not in p.stdout.readline():
        raise SystemExit("hello failed: %s" % " ".join(cmd))
    t0 = time.perf_counter()
    for _ in range(n):
        p.stdin.write('{"id":2,"op":"soft.get"}\n')
        p.stdin.flush()
        if '"ok":true' not in p.stdout.readline():
            raise SystemExit("a request failed: %s" % " ".join(cmd))
    dt = (time.perf_counter() - t0) / n
    p.stdin.close()
    p.wait()
    return dt


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    ranks = sys.argv[3] if len(sys.argv) > 3 else "4"
    so = os.path.join(build, "adapters", "refarray", "devspec_adapter_refarray.so")
    host = [os.path.join(build, "adapters", "host", "devspec-adapter-host"), so]
    spmd = ["mpirun", "-np", ranks, "--oversubscribe",
            os.path.join(build, "adapters", "host", "devspec-adapter-mpi-host"), so]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    best = [float("inf"), float("inf")]
    for _ in range(3):
        best[0] = min(best[0], per_request(host, n, env))
        best[1] = min(best[1], per_request(spmd, n, env))
    print("# out of process: %.1f us/request; SPMD on %s ranks: %.1f us/request" %
          (best[0] * 1e6, ranks, best[1] * 1e6))
    print("# ratio SPMD / out of process: %.2f" % (best[1] / best[0]))


if __name__ == "__main__":
    main()
