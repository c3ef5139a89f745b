#!/usr/bin/env bash
# `pip install .` gives a working devspec: into a fresh virtual environment (pip fetches
# scikit-build-core and builds the runner with CMake underneath), then, from another folder
# and with no DEVSPEC_SOURCE/DEVSPEC_BUILD, `devspec run --adapter python:array_api_strict`
# gives every case the observed status of the named backend array-api-strict run by the
# build tree's runner (every case whose features both runs claim: the peers of the DLPack
# exchange cases are the libraries each interpreter can import); then the same from an install on which CMake finds no OpenCL, which
# must succeed without refarray's OpenCL backend and say so. Bounded: 600 s each install.
#
#   scripts/test-pip-install.sh [BUILD_DIR]   (default build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# same_as_named REPORT TITLE: REPORT's observed statuses are the named backend's (named.json).
# The two interpreters differ in which peer libraries they can import (the fresh venv has
# array-api-strict and NumPy, the project's also JAX), so a dlpack-exchange-PEER feature can
# be claimed by one run alone: compare the cases whose features both runs claimed, and
# require the claims to agree apart from those features.
same_as_named() {
    python3 - "$1" named.json "$2" <<'PY'
import json, sys
rs = [json.load(open(p)) for p in sys.argv[1:3]]
claims = [set(r["header"]["features_claimed"]) for r in rs]
both = claims[0] & claims[1]
st = lambda r: {c["id"]: c["observed_status"] for c in r["cases"] if set(c["features"]) <= both}
a, b = st(rs[0]), st(rs[1])
d = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
d += sorted("claim " + f for f in claims[0] ^ claims[1] if not f.startswith("dlpack-exchange-"))
ok = a and not d
print(("ok" if ok else "not ok") + f" - {sys.argv[3]} = the named backend: {len(a)} cases, {len(d)} differ {d[:5]}")
sys.exit(0 if ok else 1)
PY
}
python3 -m venv "$tmp/venv"
t0=$(date +%s)
timeout 600 "$tmp/venv/bin/pip" install -q "$top" >"$tmp/pip.log" 2>&1 ||
    { tail -30 "$tmp/pip.log"; echo "not ok - pip install ."; exit 1; }
echo "ok - pip install . into a fresh venv ($(($(date +%s) - t0)) s)"
strict=$(grep -i '^array-api-strict==' "$top/requirements.txt")
"$tmp/venv/bin/pip" install -q "$strict"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
(unset DEVSPEC_SOURCE DEVSPEC_BUILD
 "$tmp/venv/bin/devspec" run --adapter python:array_api_strict --no-tap --no-progress \
     --report pip.json | tail -1) || true
DEVSPEC_SOURCE=$top DEVSPEC_BUILD=$build "$build/conformance/devspec" run --adapter array-api-strict \
    --no-tap --no-progress --report named.json >/dev/null || true
same_as_named pip.json "pip-installed python:array_api_strict"

# A machine without OpenCL's headers and loader (CMake told not to find them): pip install
# still succeeds, without refarray's OpenCL backend, and devspec --version says what it left
# out; python:MODULE is unaffected.
cd "$top"
python3 -m venv "$tmp/venv-nocl"
t0=$(date +%s)
timeout 600 "$tmp/venv-nocl/bin/pip" install -q \
    -C cmake.define.CMAKE_DISABLE_FIND_PACKAGE_OpenCL=TRUE "$top" >"$tmp/pip-nocl.log" 2>&1 ||
    { tail -30 "$tmp/pip-nocl.log"; echo "not ok - pip install . without OpenCL"; exit 1; }
echo "ok - pip install . without OpenCL ($(($(date +%s) - t0)) s)"
said=$("$tmp/venv-nocl/bin/devspec" --version 2>&1 || true)
case "$said" in
    *"built without refarray's OpenCL backend"*) echo "ok - devspec --version says what it left out";;
    *) echo "not ok - devspec --version does not say it was built without OpenCL: $said"; exit 1;;
esac
"$tmp/venv-nocl/bin/pip" install -q "$strict"
cd "$tmp/elsewhere"
(unset DEVSPEC_SOURCE DEVSPEC_BUILD
 "$tmp/venv-nocl/bin/devspec" run --adapter python:array_api_strict --no-tap --no-progress \
     --report nocl.json | tail -1) || true
same_as_named nocl.json "without OpenCL, python:array_api_strict"
