"""The `devspec` command of a pip-installed devspec: runs the runner that the wheel carries.

The CMake build installs into this package's folder (bin/devspec, share/devspec/...), and
the runner finds its spec, cases and adapters relative to its own executable. The folder of
the interpreter that installed it goes first on PATH, so `--adapter python:MODULE` runs in
this environment's Python unless --python says otherwise. A build that left a part out
(share/devspec/left-out.txt) says so for --help; the runner's --version says it itself.
"""

import os
import sys


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(here, "bin", "devspec")
    if not os.access(exe, os.X_OK):
        sys.exit(f"devspec: the runner is missing from the installation ({exe})")
    # A build without a part (refarray's OpenCL backend where OpenCL was not found) says so
    # where a person asks what this devspec is.
    left_out = os.path.join(here, "share", "devspec", "left-out.txt")
    # (`devspec --version` is the runner's own: it prints the same lines itself.)
    if os.path.exists(left_out) and sys.argv[1:2] in ([], ["version"], ["--help"], ["-h"],
                                                     ["help"]):
        with open(left_out, encoding="utf-8") as f:
            for line in f.read().splitlines():
                sys.stderr.write(f"devspec: built without {line}\n")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    os.execve(exe, [exe, *sys.argv[1:]], env)


if __name__ == "__main__":
    main()
