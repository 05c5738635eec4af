"""TSED speed: the published ``tsed`` 0.1.0 (APTED in pure Python) against codequorum.

Usage: ``.venv/bin/python bench/bench_tsed.py [--reference-pairs N] [--set-index K]``

1. Pairs of 30-line functions: the five hand-written samples (``structural_samples``), all
   20 ordered pairs, costs (1, 1, 1) and (1, 0.8, 1). Both sides do the whole job per pair
   (parse both texts, build both trees, edit distance). Values are checked to 1e-9.
2. A 100-sample set from ``humaneval_codegen16b_t0.8.jsonl``: codequorum's full 100 x 100
   matrix for both cost settings, and the reference on a few of its pairs (its full matrix
   would take hours; the figure given is the extrapolation).

Both run in this process; the reference imports ``tree_sitter_language_pack`` from
``bench/_refshim`` so that both use the same pinned grammars.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(HERE / "_refshim"))
sys.path.insert(0, str(REPO / "server"))

import numpy as np  # noqa: E402
import tree_sitter_language_pack as _shim  # noqa: E402

from codequorum.metrics.tree_edit import build_tree, tsed, tsed_matrix  # noqa: E402

if not hasattr(_shim, "SupportedLanguage"):  # the published module imports this name too
    _shim.SupportedLanguage = str

import TSED as reference  # noqa: E402

COSTS: list[tuple[float, float, float]] = [(1.0, 1.0, 1.0), (1.0, 0.8, 1.0)]


def _timed(fn: Callable[..., Any], *args: Any, repeats: int = 1) -> tuple[Any, float]:
    """``fn(*args)`` and the seconds one call took (mean over ``repeats`` calls)."""
    value = None
    start = time.perf_counter()
    for _ in range(repeats):
        value = fn(*args)
    return value, (time.perf_counter() - start) / repeats


def bench_pairs() -> tuple[float, float]:
    """Per-pair seconds (reference, ours) over the 40 ordered pairs x costs."""
    folder = SHARED / "fixtures" / "reference" / "structural_samples"
    samples = [(folder / f"s{i}.py").read_text() for i in range(1, 6)]
    nodes = [build_tree(s, "python").n_nodes for s in samples]
    print(f"samples s1..s5: {[len(s.splitlines()) for s in samples]} lines, {nodes} nodes")
    tsed("x = 1", "y = 2", "python")  # compile (or load the cached compiled code) first
    ref_times: list[float] = []
    our_times: list[float] = []
    worst = 0.0
    for costs in COSTS:
        for i, a in enumerate(samples):
            for j, b in enumerate(samples):
                if i == j:
                    continue
                expected, t_ref = _timed(reference.Calculate, "python", a, b, *costs)
                ours, t_ours = _timed(tsed, a, b, "python", costs, repeats=20)
                worst = max(worst, abs(ours - expected))
                ref_times.append(t_ref)
                our_times.append(t_ours)
    ref, ours = statistics.mean(ref_times), statistics.mean(our_times)
    ratios = [r / o for r, o in zip(ref_times, our_times, strict=True)]
    print(f"ordered pairs x cost settings: {len(ref_times)}; max |ours - reference| = {worst:.1e}")
    print(f"per pair: reference {ref * 1e3:.1f} ms, codequorum {ours * 1e3:.2f} ms")
    print(
        f"speed ratio: mean {ref / ours:.0f}x, "
        f"per-pair ratios median {statistics.median(ratios):.0f}x, min {min(ratios):.0f}x; "
        f"slowest pair ours {max(our_times) * 1e3:.2f} ms"
    )
    assert worst <= 1e-9, worst
    return ref, ours


def bench_set(index: int, reference_pairs: int) -> None:
    """A 100-sample set: our full matrix, the reference on a few of its pairs."""
    path = SHARED / "data" / "humaneval_codegen16b_t0.8.jsonl"
    with path.open() as fh:
        for _ in range(index):
            fh.readline()
        record = json.loads(fh.readline())
    codes = [record["prompt"] + s for s in record["samples"]]
    n = len(codes)
    nodes = [build_tree(c, "python").n_nodes for c in codes]
    print(
        f"\n{record['task_id']}: {n} samples, nodes mean {np.mean(nodes):.0f}, max {max(nodes)}, "
        f"lines mean {np.mean([len(c.splitlines()) for c in codes]):.0f}"
    )
    rng = np.random.default_rng(0)
    for costs in COSTS:
        matrix, t_ours = _timed(tsed_matrix, codes, "python", costs)
        pairs = [tuple(rng.choice(n, 2, replace=False)) for _ in range(reference_pairs)]
        t_ref = 0.0
        for i, j in pairs:
            expected, dt = _timed(reference.Calculate, "python", codes[i], codes[j], *costs)
            t_ref += dt
            assert abs(matrix[i, j] - expected) <= 1e-9, (i, j, matrix[i, j], expected)
        per_ref = t_ref / max(1, len(pairs))
        ordered = n * (n - 1)
        print(
            f"costs {costs}: codequorum {n}x{n} matrix {t_ours:.2f} s "
            f"({t_ours / ordered * 1e3:.3f} ms per ordered pair); reference {per_ref * 1e3:.0f} ms "
            f"per pair on {len(pairs)} pairs -> about {per_ref * ordered / 60:.0f} min for the "
            f"matrix ({per_ref * ordered / t_ours:.0f}x)"
        )


def main() -> None:
    """Run both benchmarks and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-pairs", type=int, default=10)
    parser.add_argument("--set-index", type=int, default=0, help="HumanEval problem (line) index")
    args = parser.parse_args()
    ref, ours = bench_pairs()
    bench_set(args.set_index, args.reference_pairs)
    if ref / ours < 100:
        raise SystemExit(f"speed ratio {ref / ours:.0f}x is below 100x")


if __name__ == "__main__":
    main()
