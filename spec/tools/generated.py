"""What every generator of checked-in files shares, so that all of them work alike: run as it
is, a generator rewrites each of its files that is out of date (and only those); with --check
it writes nothing, names on stderr each file that is out of date with the command that
rewrites it, and exits 1. --root DIR names another copy of the repository.

    main(DESCRIPTION, build, GENERATOR)  where build(root) -> {path relative to root: text}
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping

# The repository root, two folders above this file.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class GenerateError(Exception):
    """A generator's input is unusable, or a target lacks the place its part goes."""


def current(root: str, rel: str) -> str | None:
    """The text of ROOT/REL, or None when it cannot be read."""
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def stale(root: str, files: Mapping[str, str]) -> list[str]:
    """The paths of FILES ({path relative to ROOT: text}) whose text differs from it."""
    return [rel for rel, text in files.items() if current(root, rel) != text]


def write_file(path: str, text: str) -> None:
    """Writes TEXT to PATH through a temporary file beside it, so that PATH is either the old
    file or the whole new one, never a part."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".",
                               prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # The file keeps its mode (a generated part of a script stays executable); a new one
        # gets the usual 0644 rather than the temporary file's 0600.
        os.chmod(tmp, os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write(root: str, files: Mapping[str, str]) -> list[str]:
    """Rewrites each of FILES that is out of date; returns their paths."""
    changed = stale(root, files)
    for rel in changed:
        write_file(os.path.join(root, rel), files[rel])
    return changed


def write_or_check(root: str, files: Mapping[str, str], check: bool, generator: str) -> int:
    """Writes FILES ({path relative to ROOT: text}) that are out of date, naming each on
    stdout; or, with CHECK, writes nothing and names on stderr each that is out of date,
    saying to run GENERATOR. Returns the exit status: 1 when CHECK found one out of date,
    else 0."""
    if not check:
        for rel in write(root, files):
            print("%s: wrote %s" % (generator, rel))
        return 0
    bad = stale(root, files)
    for rel in bad:
        print("%s: out of date; run %s" % (rel, generator), file=sys.stderr)
    return 1 if bad else 0


def main(description: str, build: Callable[[str], Mapping[str, str]], generator: str,
         argv: Iterable[str] | None = None) -> int:
    """The command line of a generator: [--root DIR] [--check]. BUILD(root) gives the files;
    a GenerateError, OSError or ValueError it raises is printed (exit 2)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--root", default=ROOT,
                    help="the repository root (default: the one this script is in)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a generated file is out of date")
    args = ap.parse_args(None if argv is None else list(argv))
    try:
        return write_or_check(args.root, build(args.root), args.check, generator)
    except (GenerateError, OSError, ValueError) as e:
        print("%s: %s" % (generator, e), file=sys.stderr)
        return 2
