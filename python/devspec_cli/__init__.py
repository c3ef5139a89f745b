"""The `devspec` command of a pip-installed devspec: runs the runner that the wheel carries.

The CMake build installs into this package's folder (bin/devspec, share/devspec/...), and
the runner finds its spec, cases and adapters relative to its own executable. The folder of
the interpreter that installed it goes first on PATH, so `--adapter python:MODULE` runs in
this environment's Python unless --python says otherwise.
"""

import os
import sys


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(here, "bin", "devspec")
    if not os.access(exe, os.X_OK):
        sys.exit(f"devspec: the runner is missing from the installation ({exe})")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    os.execve(exe, [exe, *sys.argv[1:]], env)


if __name__ == "__main__":
    main()
