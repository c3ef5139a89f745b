#!/usr/bin/env bash
# The binary wheel works where there is no compiler: scripts/build-wheel.sh builds it, then,
# with a PATH on which no cc, gcc, clang or cmake can be found, from a folder outside the
# source tree and with no DEVSPEC_SOURCE/DEVSPEC_BUILD:
#   - pip installs it into a fresh virtual environment (with numpy, array-api-strict and
#     pytest, pinned as requirements.txt pins them, wheels only);
#   - no program or library of the wheel needs anything of the build tree or outside the wheel
#     but the C library (ldd);
#   - devspec --version says what the wheel leaves out (OpenCL, MPI);
#   - devspec run --adapter python:numpy and python:array_api_strict pass their gate with the
#     expectations files the wheel carries;
#   - pytest --devspec=python:array_api_strict shows the same counts as devspec run;
#   - README.md's recipe for a library's CI runs as written (scripts/tests/test_readme_ci_recipe.py).
# It prints the wheel's size and the times taken.
#
#   scripts/test-wheel.sh [--compare-source] [WHEEL]
#     WHEEL             an already built wheel (default: build one into dist/)
#     --compare-source  also time `pip install .` (today's source build) into another fresh
#                       virtual environment, for the comparison of install times (minutes)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
compare=0
if [ "${1:-}" = --compare-source ]; then
    compare=1
    shift
fi
if [ $# -gt 0 ]; then
    whl=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
    t0=$(date +%s)
    whl=$(bash "$top/scripts/build-wheel.sh" "$top/dist" | tail -1)
    echo "ok - scripts/build-wheel.sh: $(($(date +%s) - t0)) s"
fi
[ -f "$whl" ] || { echo "not ok - no wheel at $whl"; exit 1; }
echo "ok - wheel $(basename "$whl"): $(du -k "$whl" | cut -f1) KiB"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok - $*"; }
notok() {
    echo "not ok - $*"
    fails=$((fails + 1))
}

# A PATH of the few programs a run needs, none of them a compiler or CMake.
mkdir "$tmp/bin" "$tmp/elsewhere"
for p in sh bash env cat ls mkdir rm grep sed tail head uname dirname basename readlink; do
    ln -s "$(command -v "$p")" "$tmp/bin/$p"
done
python3 -m venv "$tmp/venv"
bare="$tmp/venv/bin:$tmp/bin"
for cc in cc gcc clang cmake c99 make; do
    if PATH=$bare command -v "$cc" >/dev/null; then notok "$cc is reachable"; fi
done
pins=$(grep -i -E '^(numpy|array-api-strict|pytest)==' "$top/requirements.txt" | tr '\n' ' ')
cd "$tmp/elsewhere"
run() { env -u DEVSPEC_SOURCE -u DEVSPEC_BUILD PATH="$bare" HOME="$tmp" "$@"; }
t0=$(date +%s.%N)
run pip install -q --only-binary=:all: "$whl" >"$tmp/pip.log" 2>&1 ||
    { cat "$tmp/pip.log"; echo "not ok - pip install of the wheel"; exit 1; }
t1=$(date +%s.%N)
ok "pip install of the wheel with no compiler: $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
# shellcheck disable=SC2086
run pip install -q --only-binary=:all: $pins >>"$tmp/pip.log" 2>&1 ||
    { cat "$tmp/pip.log"; echo "not ok - pip install $pins"; exit 1; }

pkg=$(run python -c 'import devspec_cli, os; print(os.path.dirname(devspec_cli.__file__))')
case "$pkg" in "$tmp/venv/"*) ;; *) notok "devspec_cli imported from $pkg, not the venv" ;; esac
bad=$(find "$pkg" "$pkg/../devspec.libs" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
    xargs -0 -r ldd 2>/dev/null | grep -E 'not found|build' || true)
if [ -z "$bad" ]; then ok "the wheel's programs need nothing outside it but the C library"; else
    notok "the wheel's programs need: $bad"; fi

said=$(run devspec --version 2>&1 || true)
case "$said" in
    *"built without refarray's OpenCL backend"*"built without refarray's global arrays over MPI"*)
        ok "devspec --version says what the wheel leaves out" ;;
    *) notok "devspec --version does not say what the wheel leaves out: $said" ;;
esac

ex=$pkg/share/devspec/conformance/expectations
for lib in numpy:numpy array_api_strict:array-api-strict; do
    mod=${lib%%:*}
    t0=$(date +%s.%N)
    if run devspec run --adapter "python:$mod" --expectations "$ex/${lib#*:}.txt" --no-tap \
        --no-progress --report "$mod.json" >"$mod.log" 2>&1; then
        ok "devspec run --adapter python:$mod from the wheel: $(tail -1 "$mod.log")" \
            "($(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s)"
    else
        cat "$mod.log"
        notok "devspec run --adapter python:$mod from the wheel"
    fi
done

# The pytest form, in the same environment: the same counts as devspec run.
t0=$(date +%s.%N)
run python -m pytest -q -p no:randomly --devspec=python:array_api_strict \
    --devspec-expectations="$ex/array-api-strict.txt" >pytest.log 2>&1 || true
t1=$(date +%s.%N)
line=$(grep -E '^[0-9]+ passed' pytest.log | tail -1 || true)
want=$(python3 - array_api_strict.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["footer"]["counts"]
print(f"{c['pass']} passed, {c['skip']} skipped, {c['xfail']} xfailed")
PY
)
case "$line" in
    "$want in "*) ok "pytest --devspec=python:array_api_strict: $line (devspec run: $want)" \
        "($(python3 -c "print(f'{$t1 - $t0:.1f}')") s)" ;;
    *) tail -20 pytest.log; notok "pytest --devspec counts '$line', devspec run's '$want'" ;;
esac

# README.md's recipe for a library's CI, line by line, with this wheel (it looks in dist/).
case "$whl" in
    "$top/dist/"*)
        "$top/.venv/bin/python" -m pytest -q "$top/scripts/tests/test_readme_ci_recipe.py" \
            >"$tmp/recipe.log" 2>&1 && ok "README.md's CI recipe runs as written" ||
            { tail -30 "$tmp/recipe.log"; notok "README.md's CI recipe"; } ;;
esac

if [ "$compare" = 1 ]; then
    python3 -m venv "$tmp/venv-src"
    t0=$(date +%s.%N)
    "$tmp/venv-src/bin/pip" install -q "$top" >"$tmp/pip-src.log" 2>&1 ||
        { tail -30 "$tmp/pip-src.log"; notok "pip install . (source build)"; }
    t1=$(date +%s.%N)
    ok "pip install . from source (scikit-build-core, CMake, the C compiler):" \
        "$(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
fi
[ "$fails" -eq 0 ]
