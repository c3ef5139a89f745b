"""Checks a bench's output for figures that make no sense: a negative number, NaN or an
infinity where a time, a rate or a ratio stands. Never a timing against a goal: a bench on a
busy machine may miss its goals, and the bench phase (scripts/test.sh bench) must not fail
for that.

    BENCH | python scripts/check_bench_output.py NAME

Prints the output through, then each nonsensical figure with its line; exits 1 when there
is one, or when the output is empty (the bench printed nothing)."""

import re
import sys

# A number standing alone (after a blank, '=', '(' or '['), negative; NaN or an infinity as
# a word. An option ("-O3", "--jobs") or a name with a hyphen ("x86-64") is not a number.
NEGATIVE = re.compile(r"(?:^|[\s=(\[])(-\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?=[\s,)\]x%]|$)")
NOT_A_NUMBER = re.compile(r"(?<![\w-])(-?(?:nan|inf|infinity))(?![\w-])", re.IGNORECASE)


def problems(text: str) -> list[str]:
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in NEGATIVE.finditer(line):
            found.append(f"line {n}: negative figure {m.group(1)}: {line.strip()}")
        for m in NOT_A_NUMBER.finditer(line):
            found.append(f"line {n}: {m.group(1)} as a figure: {line.strip()}")
    return found


def main() -> int:
    name = sys.argv[1] if len(sys.argv) > 1 else "bench"
    text = sys.stdin.read()
    sys.stdout.write(text)
    if not text.strip():
        print(f"{name}: printed nothing")
        return 1
    bad = problems(text)
    for b in bad:
        print(f"{name}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
