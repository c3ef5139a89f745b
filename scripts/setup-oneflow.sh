#!/usr/bin/env bash
# Makes OneFlow's own environment, .venv-oneflow, for the oneflow and oneflow-4 adapters
# (adapters/adapters.json): a Python 3.10 interpreter (OneFlow 0.9.0 publishes wheels for
# 3.10 only) found on PATH or through pyenv, a virtual environment on it, and the pinned
# packages of adapters/python/requirements-oneflow.txt (about 1.8 GB downloaded, 3.9 GB on
# disk). Installs only what is missing: the environment is kept, and pip runs again only when
# the requirements file changes.
#
#   scripts/setup-oneflow.sh
#
# Where no Python 3.10 exists it says so, writes the reason to .venv-oneflow.unavailable and
# exits 0: the oneflow adapters then fail to start with that reason (adapters/python/
# oneflow-python prints it), and every run and report says so. Exit status 1 when the
# environment cannot be made although an interpreter exists (pip failed).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
venv=.venv-oneflow
reqs=adapters/python/requirements-oneflow.txt
unavailable=.venv-oneflow.unavailable

is_310() { [ -n "$1" ] && "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 10))' 2>/dev/null; }

if [ ! -x "$venv/bin/python" ]; then
    python=""
    candidate=$(command -v python3.10 || true)
    is_310 "$candidate" && python=$candidate
    if [ -z "$python" ] && command -v pyenv >/dev/null; then
        for candidate in $(ls -d "$(pyenv root)"/versions/3.10*/bin/python3.10 2>/dev/null | sort -V -r); do
            if is_310 "$candidate"; then python=$candidate; break; fi
        done
    fi
    if [ -z "$python" ]; then
        reason="no Python 3.10 interpreter on this machine (none on PATH, none in pyenv's versions); OneFlow 0.9.0 publishes wheels for Python 3.10 only"
        echo "setup-oneflow: $reason; the oneflow adapters are unavailable" >&2
        echo "$reason" >"$unavailable"
        exit 0
    fi
    echo "setup-oneflow: making $venv with $python" >&2
    "$python" -m venv "$venv" || exit 1
fi
rm -f "$unavailable"
stamp=$venv/.requirements.sha256
want=$(sha256sum "$reqs" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    start=$(date +%s)
    echo "setup-oneflow: installing $reqs into $venv" >&2
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$reqs" || exit 1
    echo "$want" >"$stamp"
    echo "setup-oneflow: installed in $(($(date +%s) - start)) s" >&2
fi
