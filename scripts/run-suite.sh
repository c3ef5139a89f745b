#!/usr/bin/env bash
# The main job: set-up, then the whole conformance suite against refarray, in both
# transports, writing reports/refarray.json, reports/refarray.junit.xml and TAP on stdout.
#
#   scripts/run-suite.sh [--no-setup] [ADAPTER...]   (default adapter: refarray)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ "${1:-}" = "--no-setup" ]; then
    shift
else
    bash scripts/setup.sh || exit 3
fi
export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}"
adapters=("$@")
[ ${#adapters[@]} -gt 0 ] || adapters=(refarray)
devspec=build/conformance/devspec
if [ ! -x "$devspec" ]; then
    echo "run-suite: $devspec is not built" >&2
    exit 3
fi
status=0
for a in "${adapters[@]}"; do
    "$devspec" run --adapter "$a" --report "reports/$a.json" --junit "reports/$a.junit.xml" || status=$?
done
exit "$status"
