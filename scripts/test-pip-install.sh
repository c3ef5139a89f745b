#!/usr/bin/env bash
# `pip install .` gives a working devspec: into a fresh virtual environment (pip fetches
# scikit-build-core and builds the runner with CMake underneath), then, from another folder
# and with no DEVSPEC_SOURCE/DEVSPEC_BUILD, `devspec run --adapter python:array_api_strict`
# gives every case the observed status of the named backend array-api-strict run by the
# build tree's runner. Bounded: 600 s for the install.
#
#   scripts/test-pip-install.sh [BUILD_DIR]   (default build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
python3 - pip.json named.json <<'PY'
import json, sys
st = lambda p: {c["id"]: c["observed_status"] for c in json.load(open(p))["cases"]}
a, b = st(sys.argv[1]), st(sys.argv[2])
d = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
ok = a and not d
print(("ok" if ok else "not ok") + f" - pip-installed python:array_api_strict = the named backend: {len(a)} cases, {len(d)} differ {d[:5]}")
sys.exit(0 if ok else 1)
PY
