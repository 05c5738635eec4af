"""Growth classes from CPU time per call: how steady they are run after run, and what
the scaling series costs.

Runs functions of known complexity (work in C and in Python, constant to quadratic) in the
strict sandbox ``--rounds`` times and prints, per function, the classes it got and the
spread of its exponent; then what the timing costs: the wall time of each function's
sandboxed run of the three sizes timed (a series) as a ratio to the same run untimed,
both measured in the same process.

    .venv/bin/python bench/bench_growth.py [--rounds 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

import numpy as np

from codequorum.behaviour.run import DynamicOptions, run_dynamic
from codequorum.behaviour.sandbox import run_candidate
from codequorum.behaviour.test_inputs import DEFAULT_SIZES
from codequorum.core.model import SampleSet
from codequorum.core.model import TestCase as Case
from codequorum.judge.dynamic import growth_text
from codequorum.metrics.growth import growth_exponent

#: (body of ``f(xs: list[int])``, its class)
FUNCTIONS = [
    ("return xs[0] if xs else None", "constant"),
    ("return len(set(xs)) <= 1", "n"),
    ("return all(a == a for a in xs)", "n"),
    ("return sum(xs)", "n"),
    ("return xs.count(7)", "n"),
    ("return sorted(xs)", "n"),
    ("return sum(1 for a in xs for b in xs if a < b)", "n²"),
]


def _run(codes: list[str], options: DynamicOptions) -> tuple[float, list[float | None]]:
    started = time.perf_counter()
    report = run_dynamic(SampleSet.from_codes("growth", codes, entry_point="f"), options)
    slopes = []
    for c in report.candidates:  # the slope itself, before it is rounded to a class
        sizes, costs = zip(*c.growth_points, strict=True) if c.growth_points else ((), ())
        slopes.append(growth_exponent(np.array(sizes), np.array(costs)))
    return time.perf_counter() - started, slopes


def _timing_cost(code: str, rounds: int) -> float:
    """Median wall of the three sizes run as a series (traced and timed) over the same
    run untimed (traced only)."""
    import random

    rng = random.Random(0)
    tests = [Case("call", args=([rng.randint(-100, 100) for _ in range(n)],))
             for n in DEFAULT_SIZES]
    walls: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for timed in (True, False):
            started = time.perf_counter()
            run_candidate(code, tests, "f", series=["scaling"] * len(tests) if timed else None)
            walls[timed].append(time.perf_counter() - started)
    return statistics.median(walls[True]) / statistics.median(walls[False])


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns a process exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    codes = [f"def f(xs: list[int]):\n    {body}\n" for body, _ in FUNCTIONS]
    timed = DynamicOptions(jobs=args.jobs, use_hypothesis=False, test_timeout_seconds=10.0,
                           timeout_seconds=30.0)
    slopes: list[list[float | None]] = []
    for _ in range(args.rounds):
        slopes.append(_run(codes, timed)[1])
    ratios = [_timing_cost(code, args.rounds) for code in codes]
    right = 0
    for k, (body, want) in enumerate(FUNCTIONS):
        got = [s[k] for s in slopes]
        classes = Counter(growth_text(g) if g is not None else "?" for g in got)
        right += classes[want]
        values = [g for g in got if g is not None]
        spread = f"{min(values):.2f}..{max(values):.2f}" if values else "-"
        print(f"{body:50s} want {want:8s} got {dict(classes)} exponent {spread}")
    total = args.rounds * len(FUNCTIONS)
    print(f"classes right: {right}/{total}")
    print(f"timed / untimed wall of a version's three sizes: median "
          f"{statistics.median(ratios):.2f}, worst {max(ratios):.2f}")
    return 0 if right == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
