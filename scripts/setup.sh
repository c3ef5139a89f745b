#!/usr/bin/env bash
# Installs what devspec needs on a Debian 12 machine (only what is missing), creates the
# Python environment in .venv and builds everything into build/.
#
#   scripts/setup.sh [--no-build] [--no-python] [--minimal]
#
#   --minimal   only what running the suite against refarray needs: the compiler, CMake,
#               pkg-config, cJSON and OpenCL (PoCL) packages, no Python environment, and
#               only the runner, the adapter host and refarray's adapter built (no tests,
#               benchmarks or MPI); scripts/run-suite.sh uses it when it runs refarray
#               alone. Everything else (Python libraries, PyTorch, clang, Chromium, MPI)
#               comes with the full set-up (scripts/test.sh, run-suite.sh --all).
#
# Environment: DEVSPEC_BUILD (the build folder, default build), DEVSPEC_CMAKE_ARGS (extra -D
# options), DEVSPEC_JOBS (default: number of cores); README.md, "Configuration".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

build=1
python=1
minimal=0
for arg in "$@"; do
    case "$arg" in
    --no-build) build=0 ;;
    --no-python) python=0 ;;
    --minimal) minimal=1 python=0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
    esac
done

# System packages, all from Debian. Each is installed only if it is missing.
packages=(cmake make gcc pkg-config git libcjson-dev ocl-icd-opencl-dev opencl-headers
    pocl-opencl-icd clinfo python3 python3-venv python3-pip perl libxml2-utils valgrind
    libclang-rt-14-dev python3-torch clang clang-format chromium libopenmpi-dev openmpi-bin
    libclblast-dev universal-ctags)
if [ "$minimal" -eq 1 ]; then
    packages=(cmake make gcc libc6-dev pkg-config libcjson-dev ocl-icd-opencl-dev opencl-headers
        pocl-opencl-icd)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Python: a virtual environment on Debian's interpreter with the pinned packages from PyPI.
# It does not see the system site-packages: Debian's python3-torch needs Debian's NumPy 1.x,
# so the torch adapter runs on /usr/bin/python3 itself (see adapters/adapters.json).
if [ "$python" -eq 1 ]; then
    if [ ! -x .venv/bin/python ]; then
        /usr/bin/python3 -m venv .venv
    fi
    stamp=.venv/.requirements.sha256
    want=$(sha256sum requirements.txt | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
        echo "$want" >"$stamp"
    fi
    # OneFlow's own environment (Python 3.10), for the oneflow adapters; cached.
    bash scripts/setup-oneflow.sh
fi

if [ "$build" -eq 1 ]; then
    dir=${DEVSPEC_BUILD:-build}
    # shellcheck disable=SC2086
    if [ "$minimal" -eq 1 ] && [ ! -f "$dir/CMakeCache.txt" ]; then
        # shellcheck disable=SC2086
        cmake --preset default -B "$dir" -DDEVSPEC_BUILD_TESTS=OFF -DDEVSPEC_BUILD_BENCH=OFF \
            -DDEVSPEC_MPI=OFF ${DEVSPEC_CMAKE_ARGS:-} >/dev/null
    elif [ "$minimal" -eq 0 ]; then
        # shellcheck disable=SC2086
        cmake --preset default -B "$dir" -DDEVSPEC_BUILD_TESTS=ON -DDEVSPEC_BUILD_BENCH=ON -UDEVSPEC_MPI \
            ${DEVSPEC_CMAKE_ARGS:-} >/dev/null
    fi
    if [ "$minimal" -eq 1 ]; then
        cmake --build "$dir" -j "${DEVSPEC_JOBS:-$(nproc)}" --target devspec devspec-adapter-host \
            devspec_adapter_refarray
    else
        cmake --build "$dir" -j "${DEVSPEC_JOBS:-$(nproc)}"
    fi
fi
