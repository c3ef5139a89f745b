"""What the generators of checked-in files share: each file is written, or with --check
compared with what is there, and every one that differs is named with the command that
rewrites it."""

import os
import sys


def current(root, rel):
    """The text of ROOT/REL, or None when it cannot be read."""
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def stale(root, files):
    """The paths of FILES ({path relative to ROOT: text}) whose text differs from it."""
    return [rel for rel, text in files.items() if current(root, rel) != text]


def write_or_check(root, files, check, generator):
    """Writes FILES ({path relative to ROOT: text}), or with CHECK writes nothing and names
    on stderr each that is out of date, saying to run GENERATOR. Returns the exit status:
    1 when CHECK found one out of date, else 0."""
    if not check:
        for rel, text in files.items():
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    bad = stale(root, files)
    for rel in bad:
        print("%s: out of date; run %s" % (rel, generator), file=sys.stderr)
    return 1 if bad else 0
