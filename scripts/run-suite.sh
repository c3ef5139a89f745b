#!/usr/bin/env bash
# The main job: set-up, then the whole conformance suite against refarray (or the adapters
# named), each with its expectations file from adapters/adapters.json. Writes
# OUT/NAME.json (the report), OUT/NAME.junit.xml and TAP on stdout.
#
#   scripts/run-suite.sh [--no-setup] [--out DIR] [--all] [--in-process] [ADAPTER...]
#
#   --out DIR      where the reports go (default: reports/runs)
#   --all          every adapter of adapters/adapters.json
#   --in-process   also run each adapter that has a shared object in process, and check
#                  that both transports gave the same status for every case
# The published reports in reports/ are made by scripts/publish-reports.sh instead.
# Exit status: the worst of the runs (0 nothing unexpected, 1 unexpected results, 2 bad
# case files, 3 an adapter could not start or a run is incomplete).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 3
setup=1
out=reports/runs
all=0
inproc=0
adapters=()
while [ $# -gt 0 ]; do
    case "$1" in
    --no-setup) setup=0 ;;
    --out) out=$2; shift ;;
    --all) all=1 ;;
    --in-process) inproc=1 ;;
    -*) echo "run-suite.sh: unknown option '$1'" >&2; exit 2 ;;
    *) adapters+=("$1") ;;
    esac
    shift
done
if [ "$setup" -eq 1 ]; then
    # refarray alone needs only the C build (setup.sh --minimal: seconds, not minutes).
    if [ "$all" -eq 0 ] && { [ ${#adapters[@]} -eq 0 ] ||
        { [ ${#adapters[@]} -eq 1 ] && [ "${adapters[0]}" = refarray ]; }; }; then
        bash scripts/setup.sh --minimal || exit 3
    else
        bash scripts/setup.sh || exit 3
    fi
fi
export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}"
# The build folder: DEVSPEC_BUILD (relative to the repository root, or absolute), else build/.
build=${DEVSPEC_BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
export DEVSPEC_SOURCE="$top" DEVSPEC_BUILD="$build"
devspec=$build/conformance/devspec
if [ ! -x "$devspec" ]; then
    echo "run-suite: $devspec is not built (run scripts/setup.sh)" >&2
    exit 3
fi
if [ "$all" -eq 1 ]; then
    mapfile -t adapters < <("$devspec" list adapters | awk '{print $1}')
fi
[ ${#adapters[@]} -gt 0 ] || adapters=(refarray)
mkdir -p "$out"

# The reason an adapter is unavailable on this machine, from its report, or nothing: its
# launcher said "NAME is unavailable: WHY" and exited before hello (adapters/python/
# oneflow-python, where scripts/setup-oneflow.sh found no Python 3.10). Such a run is reported
# with its reason and does not fail the suite.
unavailable() {
    python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["header"]["adapter"].get("error") or ""
mark = " is unavailable: "
print(e[e.find(mark) + len(mark):].strip().splitlines()[0] if mark in e else "")' "$1" 2>/dev/null
}
# How many cases of report R crashed and were run again, an intermittent-crash entry of the
# expectations file covering them (the footer's reruns), or nothing when none was.
reruns() {
    python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["footer"].get("reruns") or "")' "$1" 2>/dev/null
}
worst=0
note() { [ "$1" -gt "$worst" ] && worst=$1; }
summary=()
# The reason a C adapter this build left out is unavailable (its shared object was not built:
# CLBlast's where libclblast-dev is missing; devspec --version says why), or nothing.
not_built() {
    python3 -c 'import json, os, sys
for a in json.load(open("adapters/adapters.json"))["adapters"]:
    so = a.get("shared_object") or ""
    so = so.replace("${BUILD}", os.environ["DEVSPEC_BUILD"]).replace("${SOURCE}", os.environ["DEVSPEC_SOURCE"])
    if a["name"] == sys.argv[1] and so and not os.path.exists(so):
        print(f"{so} was not built (devspec --version says why)")' "$1"
}
for a in "${adapters[@]}"; do
    why=$(not_built "$a")
    if [ -n "$why" ]; then
        echo "# $a is unavailable: $why" >&2
        summary+=("$a: unavailable: $why")
        continue
    fi
    echo "# devspec run --adapter $a" >&2
    "$devspec" run --adapter "$a" --no-progress --report "$out/$a.json" --junit "$out/$a.junit.xml"
    rc=$?
    why=""
    [ "$rc" -eq 3 ] && why=$(unavailable "$out/$a.json")
    if [ -n "$why" ]; then
        echo "# $a is unavailable: $why" >&2
        summary+=("$a: unavailable: $why")
        continue
    fi
    # A crash that the library's expectations file says strikes at random (intermittent-crash)
    # the runner itself runs again; the summary says so.
    n=$(reruns "$out/$a.json")
    [ -n "$n" ] && summary+=("$a: $n case(s) crashed and were run again (intermittent-crash; the report's first_run)")
    note "$rc"
    summary+=("$a: exit $rc")
    if [ "$inproc" -eq 1 ] && grep -q "\"name\": \"$a\"" adapters/adapters.json &&
        python3 -c 'import json,sys
a=[x for x in json.load(open("adapters/adapters.json"))["adapters"] if x["name"]==sys.argv[1]]
sys.exit(0 if a and a[0].get("shared_object") else 1)' "$a"; then
        echo "# devspec run --adapter $a --in-process" >&2
        "$devspec" run --adapter "$a" --in-process --no-progress --no-tap \
            --report "$out/$a.inprocess.json"
        rc=$?
        note "$rc"
        summary+=("$a (in process): exit $rc")
        python3 - "$out/$a.json" "$out/$a.inprocess.json" <<'PY' || { note 1; summary+=("$a: transports differ"); }
import json, sys
def statuses(path):
    return {c["id"]: c["status"] for c in json.load(open(path))["cases"]}
a, b = statuses(sys.argv[1]), statuses(sys.argv[2])
diff = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
for k in diff:
    print(f"transports differ: {k}: out of process {a.get(k)}, in process {b.get(k)}", file=sys.stderr)
sys.exit(1 if diff else 0)
PY
    fi
done
printf '# %s\n' "${summary[@]}" >&2
exit "$worst"
