#!/usr/bin/env bash
# Checks that the project's C files are laid out as .clang-format says: prints each file that
# differs and exits 1 when one does, 0 when all agree, 2 when clang-format is missing. It
# changes nothing; `clang-format -i FILE` rewrites a file.
#
#   scripts/check-format.sh            every tracked .c and .h file
#   scripts/check-format.sh FILE...    only these
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

if ! command -v clang-format >/dev/null; then
    echo "check-format: clang-format is not installed (Debian package clang-format)" >&2
    exit 2
fi
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(git ls-files '*.c' '*.h')
fi
bad=0
for f in "${files[@]}"; do
    if [ ! -f "$f" ]; then
        echo "check-format: $f: no such file" >&2
        exit 2
    fi
    if ! clang-format --style="file:$top/.clang-format" "$f" | cmp -s - "$f"; then
        echo "$f"
        bad=$((bad + 1))
    fi
done
if [ "$bad" -gt 0 ]; then
    echo "check-format: $bad of ${#files[@]} C files differ from .clang-format" >&2
    exit 1
fi
echo "check-format: all ${#files[@]} C files agree with .clang-format"
