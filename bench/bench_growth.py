"""Growth classes from CPU time per call: how steady they are run after run, and what
the scaling series costs.

Runs functions of known complexity (work in C and in Python, constant to quadratic) in the
strict sandbox ``--rounds`` times and prints, per function, the classes it got (``?``: not
judged, the timings too noisy) and the spread of its exponent; then what the timing
costs: the wall time of each function's sandboxed run of the three sizes timed (a series)
as a ratio to the same run untimed, both measured in the same process. With ``--load N``
the rounds run twice in the same process, idle and then beside N busy processes (a loop
each, at the same priority), and both are reported: a wrong class under load is a wrong
verdict on a busy laptop; a class not judged is only a note.

    .venv/bin/python bench/bench_growth.py [--rounds 5] [--jobs 2] [--load 4]
    .venv/bin/python bench/bench_growth.py --smoke   # one round of two functions, no target
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.input_plan import DEFAULT_SIZES
from codequorum.behaviour.sandbox.supervisor import run_candidate
from codequorum.core.model import TestCase as Case
from codequorum.core.model import VersionSet
from codequorum.judge.dynamic_rules import growth_text
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


Outcome = tuple[float | None, float | None]  # (class judged, slope)


def _run(codes: list[str], options: DynamicOptions) -> list[Outcome]:
    """Per function, its judged class and the slope itself, before it is rounded."""
    report = run_dynamic(VersionSet.from_codes("growth", codes, entry_point="f"), options)
    out: list[Outcome] = []
    for c in report.candidates:
        sizes, costs = zip(*c.growth_points, strict=True) if c.growth_points else ((), ())
        out.append((c.growth, growth_exponent(np.array(sizes), np.array(costs))))
    return out


@contextmanager
def _busy(n: int) -> Iterator[None]:
    """``n`` processes spinning a loop each for the duration, ended after it."""
    procs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(n)]
    try:
        time.sleep(0.5 if n else 0.0)
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def _report(label: str, functions: list[tuple[str, str]],
            rounds: list[list[Outcome]]) -> tuple[int, int]:
    """Print per function what it got; return (classes right, classes wrong)."""
    right = wrong = 0
    for k, (body, want) in enumerate(functions):
        got = [r[k] for r in rounds]
        classes = Counter(growth_text(g) if g is not None else "?" for g, _ in got)
        right += classes[want]
        wrong += sum(v for c, v in classes.items() if c not in (want, "?"))
        values = [e for _, e in got if e is not None]
        spread = f"{min(values):.2f}..{max(values):.2f}" if values else "-"
        print(f"{label:6s} {body:50s} want {want:8s} got {dict(classes)} exponent {spread}")
    return right, wrong


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
    ap.add_argument("--smoke", action="store_true", help="one round of two functions")
    ap.add_argument("--load", type=int, default=0,
                    help="also run the rounds beside this many busy processes")
    args = ap.parse_args(argv)
    functions = FUNCTIONS[:2] if args.smoke else FUNCTIONS
    if args.smoke:
        args.rounds = 1
    codes = [f"def f(xs: list[int]):\n    {body}\n" for body, _ in functions]
    timed = DynamicOptions(jobs=args.jobs, use_hypothesis=False, test_timeout_seconds=10.0,
                           timeout_seconds=30.0)
    loads = [0, args.load] if args.load else [0]
    tally: dict[int, tuple[int, int]] = {}
    for load in loads:
        with _busy(load):
            rounds = [_run(codes, timed) for _ in range(args.rounds)]
        tally[load] = _report("idle" if load == 0 else f"load {load}", functions, rounds)
    ratios = [_timing_cost(code, args.rounds) for code in codes]
    total = args.rounds * len(functions)
    for load, (right, wrong) in tally.items():
        label = "idle" if load == 0 else f"beside {load} busy processes"
        print(f"classes right {label}: {right}/{total}, wrong {wrong}, "
              f"not judged {total - right - wrong}")
    print(f"timed / untimed wall of a version's three sizes: median "
          f"{statistics.median(ratios):.2f}, worst {max(ratios):.2f}")
    return 0 if args.smoke or all(w == 0 for _, w in tally.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
