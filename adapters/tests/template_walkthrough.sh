#!/bin/sh
# The vendor guide's walk-through (adapters/README.md, steps 2, 4 and 5), followed literally
# from an installed prefix with the source tree moved away: devspec is installed into
# $HOME/devspec-prefix as step 1 ends, then the guide's own shell blocks of steps 2, 4 and 5
# run, word for word, in a mount namespace where the source tree (and the build tree) are
# hidden under an empty tmpfs, so that nothing they do can read them. Prints TAP; exit 77
# (skip) where a mount namespace cannot be made or in a sanitizer build.
#
#   template_walkthrough.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
if grep -q '^DEVSPEC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    echo "1..0 # SKIP a sanitizer build's runner and shim need the sanitizer runtime"
    exit 77
fi
if ! unshare --mount true 2>/dev/null; then
    echo "1..0 # SKIP unshare --mount is not permitted here (the source tree is hidden in a mount namespace)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# The ```sh blocks of the guide's step $1 ("### $1. ..."), in order.
blocks() {
    awk -v head="### $1." '
        index($0, head) == 1 { in_step = 1; next }
        /^### / { in_step = 0 }
        in_step && code && /^```$/ { code = 0; next }
        in_step && code { print; next }
        in_step && /^```sh$/ { code = 1 }
    ' "$source/adapters/README.md"
}

home=$tmp/home
mkdir -p "$home/work"
if cmake --install "$build" --prefix "$home/devspec-prefix" >"$tmp/install.log" 2>&1; then
    echo "ok 1 - step 1: devspec installed into \$HOME/devspec-prefix"
else
    echo "not ok 1 - step 1: devspec installed into \$HOME/devspec-prefix"
    sed 's/^/#   /' "$tmp/install.log"
    echo "1..1"
    exit 1
fi
{
    echo 'set -e'
    echo 'export PATH="$HOME/devspec-prefix/bin:$PATH"'
    echo 'export PKG_CONFIG_PATH="$HOME/devspec-prefix/lib/pkgconfig"'
    echo 'cd "$HOME/work"'
    blocks 2
    blocks 4
    blocks 5
} >"$tmp/guide.sh"
if [ "$(grep -c 'devspec run' "$tmp/guide.sh")" -lt 2 ] || ! grep -q 'cp -r' "$tmp/guide.sh"; then
    echo "not ok 2 - the guide's steps 2, 4 and 5 have their shell blocks"
    sed 's/^/#   /' "$tmp/guide.sh"
    echo "1..2"
    exit 1
fi
echo "ok 2 - the guide's steps 2, 4 and 5 have their shell blocks"

# Hide the source tree (and a build tree outside it) under empty tmpfs mounts, then run the
# guide's commands as written, with no DEVSPEC_SOURCE or DEVSPEC_BUILD to point back.
hide="mount -t tmpfs none '$source'"
case "$build" in "$source"/*) ;; *) hide="$hide && mount -t tmpfs none '$build'" ;; esac
if env -u DEVSPEC_SOURCE -u DEVSPEC_BUILD HOME="$home" \
    unshare --mount sh -c "$hide && test ! -e '$source/adapters' && sh '$tmp/guide.sh'" \
    >"$tmp/guide.log" 2>&1; then
    echo "ok 3 - steps 2, 4 and 5 run as written with the source tree moved away"
else
    echo "not ok 3 - steps 2, 4 and 5 run as written with the source tree moved away"
    sed 's/^/#   /' "$tmp/guide.log" | tail -60
    fail=1
fi
# Both runs of step 5 end with nothing failed: the out-of-process one's closing line, and the
# in-process one's report.
closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/guide.log" | head -1)
case "$closing" in
*" passed, 0 failed, "*) echo "ok 4 - step 5 passes out of process: $closing" ;;
*)
    echo "not ok 4 - step 5 passes out of process"
    echo "#   closing line: $closing"
    fail=1
    ;;
esac
if [ -s "$home/work/reports/mylib.json" ] &&
    python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["footer"]; sys.exit(f["gate"]["exit_status"])' \
        "$home/work/reports/mylib.json"; then
    echo "ok 5 - the in-process run of step 5 writes its report, exit status 0"
else
    echo "not ok 5 - the in-process run of step 5 writes its report, exit status 0"
    fail=1
fi
echo "1..5"
exit $fail
