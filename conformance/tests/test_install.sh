#!/usr/bin/env bash
# cmake --install gives a self-contained devspec: installed into a fresh prefix and run from
# another folder with no DEVSPEC_SOURCE/DEVSPEC_BUILD, it finds its spec, cases, adapters.json
# and Python adapter under PREFIX/share/devspec, and gives the verdicts of the build tree's
# runner: refarray (installed host and adapter), and python:array_api_strict against the
# named backend array-api-strict when the project's environment has it. The SPMD host is
# installed where adapters.json names it; the entries that need the project's .venv are listed
# as unavailable with the reason, and a run of one says so (exit 3).
#
#   test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
unset DEVSPEC_SOURCE DEVSPEC_BUILD
fail=0
same() { # WHAT REPORT_A REPORT_B: every case has the same observed status in both
    python3 - "$@" <<'PY' || fail=1
import json, sys
what, a, b = sys.argv[1:]
st = lambda p: {c["id"]: c["observed_status"] for c in json.load(open(p))["cases"]}
x, y = st(a), st(b)
d = sorted(k for k in x.keys() | y.keys() if x.get(k) != y.get(k))
print(("ok - " if x and not d else "not ok - ") + what + f": {len(x)} cases, {len(d)} differ {d[:5]}")
sys.exit(1 if d or not x else 0)
PY
}
"$tmp/prefix/bin/devspec" run --adapter refarray --no-tap --no-progress --report installed.json >/dev/null || true
DEVSPEC_SOURCE=$source DEVSPEC_BUILD=$build "$build/conformance/devspec" run --adapter refarray \
    --no-tap --no-progress --report tree.json >/dev/null || true
same "installed refarray = build tree's refarray" installed.json tree.json
# The commit is stamped at build time: the installed runner, with no git checkout beside it,
# reports the commit its source was at (when the source is one).
if git -C "$source" rev-parse HEAD >/dev/null 2>&1; then
    python3 - installed.json <<'PY' || fail=1
import json, re, sys
c = json.load(open(sys.argv[1]))["header"]["suite"]["commit"]
ok = isinstance(c, str) and re.fullmatch(r"[0-9a-f]{40}", c)
print(("ok - " if ok else "not ok - ") + f"the installed runner reports the commit it was built from: {c!r}")
sys.exit(0 if ok else 1)
PY
fi
# The SPMD host is installed where the installed adapters.json names it (refarray-mpi4).
if [ -x "$tmp/prefix/bin/devspec-adapter-mpi-host" ] &&
    grep -q "$tmp/prefix/bin/devspec-adapter-mpi-host\|\${BUILD}/bin/devspec-adapter-mpi-host" \
        "$tmp/prefix/share/devspec/adapters/adapters.json"; then
    echo "ok - devspec-adapter-mpi-host is installed where adapters.json names it"
else
    echo "not ok - devspec-adapter-mpi-host is installed where adapters.json names it"
    fail=1
fi
# Entries whose program is the project's .venv (numpy, jax, ...) are listed as unavailable,
# with the reason, and a run of one says so instead of failing to start.
list=$("$tmp/prefix/bin/devspec" list adapters)
if grep -q '^numpy .*\[unavailable: .*\.venv/bin/python does not exist\]' <<<"$list"; then
    echo "ok - list adapters marks the .venv entries unavailable, with the reason"
else
    echo "not ok - list adapters marks the .venv entries unavailable: $(grep '^numpy' <<<"$list")"
    fail=1
fi
rc=0
err=$("$tmp/prefix/bin/devspec" run --adapter numpy --no-tap --no-progress --report np.json 2>&1 >/dev/null) || rc=$?
if [ "$rc" = 3 ] && grep -q "the adapter 'numpy' is not available here" <<<"$err"; then
    echo "ok - run --adapter numpy from an install: exit 3, not available here"
else
    echo "not ok - run --adapter numpy from an install: exit $rc: $err"
    fail=1
fi
py=$source/.venv/bin/python
if [ -x "$py" ] && "$py" -c 'import array_api_strict' 2>/dev/null; then
    "$tmp/prefix/bin/devspec" run --adapter python:array_api_strict --python "$py" --no-tap \
        --no-progress --report strict.json >/dev/null || true
    DEVSPEC_SOURCE=$source DEVSPEC_BUILD=$build "$build/conformance/devspec" run \
        --adapter array-api-strict --no-tap --no-progress --report named.json >/dev/null || true
    same "installed python:array_api_strict = the named backend array-api-strict" strict.json named.json
else
    echo "ok - # SKIP python:array_api_strict: the project's .venv has no array_api_strict"
fi
exit $fail
