#!/usr/bin/env bash
# Regenerates the published reports: the whole suite against every adapter of
# adapters/adapters.json (or the NAMEs given), each with its expectations file, then the
# compliance summary and the side-by-side page of every published report (reports/NAME.json
# of an adapter not named is kept as it is, with its times in reports/timings.json). Writes reports/NAME.json for each adapter,
# reports/SUMMARY.md and reports/index.html (devspec compare of the published reports).
#
#   scripts/publish-reports.sh [--no-setup] [NAME...]   (default: every adapter of
#                                                        adapters/adapters.json)
#
# A report is moved into reports/ only when its run completed; a run that could not start
# or stopped early leaves the published report as it was and is named on stderr.
# Exit status: 0 every run complete with nothing unexpected; 1 some run had unexpected
# results; 3 some adapter could not start or its run is incomplete.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 3
if [ "${1:-}" = "--no-setup" ]; then
    shift
else
    bash scripts/setup.sh || exit 3
fi
export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}"
# The build folder: DEVSPEC_BUILD (relative to the repository root, or absolute), else build/.
build=${DEVSPEC_BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
export DEVSPEC_SOURCE="$top" DEVSPEC_BUILD="$build"
devspec="$build/conformance/devspec"
if [ ! -x "$devspec" ]; then
    echo "publish-reports: $devspec is not built (run scripts/setup.sh)" >&2
    exit 3
fi
python=.venv/bin/python
[ -x "$python" ] || python=/usr/bin/python3
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    # Every adapter adapters/adapters.json names, in its order.
    mapfile -t names < <("$python" -c 'import json, sys
for a in json.load(open(sys.argv[1]))["adapters"]: print(a["name"])' adapters/adapters.json)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
published=()
echo "{" >"$work/wall.json"
sep=""
for n in "${names[@]}"; do
    start=$(date +%s%N)
    "$devspec" run --adapter "$n" --report "$work/$n.json" --no-progress >"$work/$n.tap" 2>"$work/$n.err"
    rc=$?
    end=$(date +%s%N)
    # An adapter unavailable on this machine (its launcher said "NAME is unavailable: WHY"
    # before hello) is published as such, with its reason, in SUMMARY.md and the matrix.
    if [ "$rc" -eq 3 ] && grep -q ' is unavailable: ' "$work/$n.json" 2>/dev/null; then
        echo "publish-reports: $n: unavailable: $(grep -o ' is unavailable: [^"\\]*' "$work/$n.json" | head -n 1 | cut -c18-)" >&2
        mv "$work/$n.json" "reports/$n.json"
        published+=("reports/$n.json")
        continue
    fi
    if [ "$rc" -ge 2 ] || [ ! -s "$work/$n.json" ]; then
        echo "publish-reports: $n: run failed (exit $rc); reports/$n.json left as it was" >&2
        tail -n 5 "$work/$n.err" >&2
        status=3
        continue
    fi
    [ "$rc" -eq 1 ] && [ "$status" -eq 0 ] && status=1
    mv "$work/$n.json" "reports/$n.json"
    published+=("reports/$n.json")
    printf '%s"%s": %d.%09d\n' "$sep" "$n" $(((end - start) / 1000000000)) $(((end - start) % 1000000000)) >>"$work/wall.json"
    sep=","
    echo "publish-reports: $n: exit $rc" >&2
done
echo "}" >>"$work/wall.json"
[ ${#published[@]} -gt 0 ] || exit 3
"$python" reports/summary.py --source . --relativise --moved-from "$work" "${published[@]}" || exit 3
"$python" reports/summary.py --source . --build "$build" --measure-startup "${names[@]}" \
    >"$work/startup.json" || exit 3
# The times of this publication, merged into reports/timings.json, which keeps those of the
# adapters not run this time (publishing one adapter leaves the others' rows as they were).
"$python" - "$work/startup.json" "$work/wall.json" reports/timings.json <<'PY' || exit 3
import json, os, sys
startup, wall, path = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3])
kept = json.load(open(path)) if os.path.exists(path) else {"startup": {}, "wall": {}}
kept["startup"].update(startup)
kept["wall"].update(wall)
for key in ("startup", "wall"):
    json.dump(kept[key], open(os.path.join(os.path.dirname(sys.argv[1]), key + ".all.json"), "w"))
with open(path, "w") as f:
    json.dump(kept, f, indent=1, sort_keys=True)
    f.write("\n")
PY
# Every published report of an adapter adapters/adapters.json names, in its order, whether
# run this time or not.
mapfile -t all < <("$python" -c 'import json, sys
for a in json.load(open(sys.argv[1]))["adapters"]: print(a["name"])' adapters/adapters.json)
reports=()
for n in "${all[@]}"; do
    [ -f "reports/$n.json" ] && reports+=("reports/$n.json")
done
"$python" reports/summary.py --source . --build "$build" --startup "$work/startup.all.json" \
    --wall "$work/wall.all.json" --out reports/SUMMARY.md "${reports[@]}" || exit 3
echo "publish-reports: wrote reports/SUMMARY.md" >&2
"$devspec" compare --quiet --html reports/index.html "${reports[@]}" || exit 3
exit "$status"
