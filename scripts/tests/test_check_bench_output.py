"""scripts/check_bench_output.py, the bench phase's judge: a bench fails it only by printing
nothing or a figure that makes no sense (negative, NaN, infinite), never by a timing."""

import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(TOP, "scripts", "check_bench_output.py")


def check(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, CHECK, "bench"], input=text, capture_output=True,
                          text=True, timeout=60)


def test_missed_goals_and_options_pass() -> None:
    out = ("add on cpu   65.0 ns   vs malloc + loop + free   6.2 ns   10.55x   goal <= 2x: "
           "GOAL MISSED\nbuilt -O3 on x86-64, --jobs 1, 2^-24, | refarray | 1 | - |\n")
    p = check(out)
    assert p.returncode == 0, p.stdout
    assert p.stdout == out


def test_negative_nan_and_infinite_figures_fail() -> None:
    for line, word in [("runner overhead per request  -3.20 us = -0.26 x", "negative figure -3.20"),
                       ("ratio nan  goal met", "nan as a figure"),
                       ("steps/s (inf)", "inf as a figure"),
                       ("| numpy | 2 | 6.66 | 6.07 | -7.24 |", "negative figure -7.24")]:
        p = check(line + "\n")
        assert p.returncode == 1 and word in p.stdout, (line, p.stdout)


def test_a_bench_that_prints_nothing_fails() -> None:
    p = check("")
    assert p.returncode == 1 and "printed nothing" in p.stdout
