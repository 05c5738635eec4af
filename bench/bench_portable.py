"""The portable sandbox against the strict one: start per version, first compile, cache.

Runs the same trivial version (one call test) ``--runs`` times in each level, interleaved,
and prints p50/p95 of the wall time of one ``run_candidate`` (start, run, grade, end).
With ``--compile`` it also compiles the interpreter module into a fresh folder and prints
the time and the cache's size (the one-time cost a user pays on first use).

    .venv/bin/python bench/bench_portable.py [--runs 30] [--compile]
    .venv/bin/python bench/bench_portable.py --smoke   # one run each

The 164 x 10 HumanEval run in either level: ``bench_dynamic_humaneval.py --sandbox
portable`` against ``--sandbox strict``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from codequorum.behaviour.sandbox.portable import interpreter
from codequorum.behaviour.sandbox.runner import run_candidate
from codequorum.core.model import TestCase

CODE = "def f(n):\n    return n * n\n"
TESTS = [TestCase("call", args=(3,), expected=9, has_expected=True)]


def one(level: str) -> float:
    """Wall seconds of one version's run in ``level``."""
    started = time.perf_counter()
    result = run_candidate(CODE, TESTS, "f", sandbox=level)
    elapsed = time.perf_counter() - started
    if result.status != "ok" or not result.tests[0].passed:
        raise SystemExit(f"{level}: {result.status} {result.detail}")
    return elapsed


def quantiles(values: list[float]) -> tuple[float, float]:
    """p50 and p95 in milliseconds."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def first_compile() -> None:
    """Compile the interpreter into an empty folder; print time and size."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        path = interpreter.compiled_module(Path(folder))
        elapsed = time.perf_counter() - started
        size = sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())
        print(f"first compile: {elapsed:.1f} s, cache {size / 2 ** 20:.1f} MiB ({path.name})")


def main() -> None:
    """Print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="one run in each level")
    args = ap.parse_args()
    if args.smoke:
        args.runs = 1
    if args.compile:
        first_compile()
    interpreter.compiled_module()  # the user's cache (or $CODEQUORUM_WASM_CACHE)
    for level in ("strict", "portable"):  # warm: fork server, page cache
        one(level)
    times: dict[str, list[float]] = {"strict": [], "portable": []}
    for _ in range(args.runs):
        for level in times:
            times[level].append(one(level))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.runs} runs each, interleaved")
    for level, values in times.items():
        p50, p95 = quantiles(values)
        print(f"{level:>9}: p50 {p50:7.1f} ms  p95 {p95:7.1f} ms")
    ratio = statistics.median(times["portable"]) / statistics.median(times["strict"])
    print(f"portable / strict, p50: {ratio:.1f}x")


if __name__ == "__main__":
    main()
