"""TSED speed: the published ``tsed`` 0.1.0 (APTED in pure Python) against codequorum.

Usage: ``.venv/bin/python bench/bench_tsed.py [--reference-pairs N] [--set-index K]``
       ``.venv/bin/python bench/bench_tsed.py --data [--every K]``
       ``.venv/bin/python bench/bench_tsed.py --smoke`` (two pairs, one reference pair of a
       set, one set of the data; no speed target)

1. Pairs of 30-line functions: the five hand-written samples (``structural_samples``), all
   20 ordered pairs, costs (1, 1, 1) and (1, 0.8, 1). Both sides do the whole job per pair
   (parse both texts, build both trees, edit distance). Values are checked to 1e-9.
2. A 100-sample set from ``tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz``:
   codequorum's full 100 x 100 matrix for both cost settings, and the reference on a few of
   its pairs (its full matrix would take hours; the figure given is the extrapolation).
3. ``--data``: the whole data set (every ``--every``-th of the 164 sets), trees built once
   per set, each matrix computed pair by pair (``method="pairs"``, Zhang-Shasha per pair)
   and in one shared pass (``method="auto"``), interleaved set by set, CPU time of this
   process; every value of the two is compared.

Both run in this process; the reference imports ``tree_sitter_language_pack`` from
``bench/_refshim`` so that both use the same pinned grammars.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE / "_refshim"))
sys.path.insert(0, str(REPO / "server"))

import numpy as np  # noqa: E402
import tree_sitter_language_pack as _shim  # noqa: E402

from codequorum.metrics.tree_edit import (  # noqa: E402
    build_tree,
    tsed,
    tsed_matrix,
    tsed_tree_matrix,
    warm_up,
)

if not hasattr(_shim, "SupportedLanguage"):  # the published module imports this name too
    _shim.SupportedLanguage = str

import TSED as reference  # noqa: E402

from reference_data import DATA, STRUCTURAL_SAMPLES, rows  # noqa: E402

COSTS: list[tuple[float, float, float]] = [(1.0, 1.0, 1.0), (1.0, 0.8, 1.0)]


def _timed(fn: Callable[..., Any], *args: Any, repeats: int = 1) -> tuple[Any, float]:
    """``fn(*args)`` and the seconds one call took (mean over ``repeats`` calls)."""
    value = None
    start = time.perf_counter()
    for _ in range(repeats):
        value = fn(*args)
    return value, (time.perf_counter() - start) / repeats


def bench_pairs(limit: int | None = None) -> tuple[float, float]:
    """Per-pair seconds (reference, ours) over the 40 ordered pairs x costs (the first
    ``limit`` of them)."""
    versions = [(STRUCTURAL_SAMPLES / f"s{i}.py").read_text() for i in range(1, 6)]
    nodes = [build_tree(s, "python").n_nodes for s in versions]
    print(f"samples s1..s5: {[len(s.splitlines()) for s in versions]} lines, {nodes} nodes")
    tsed("x = 1", "y = 2", "python")  # compile (or load the cached compiled code) first
    ref_times: list[float] = []
    our_times: list[float] = []
    worst = 0.0
    for costs in COSTS:
        for i, a in enumerate(versions):
            for j, b in enumerate(versions):
                if i == j or (limit is not None and len(ref_times) >= limit):
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
    record = next(r for k, r in enumerate(rows(DATA)) if k == index)
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


def bench_data(every: int) -> None:
    """Whole data set: per-pair matrices against the shared pass, CPU seconds."""
    records = list(rows(DATA))[::every]
    warm_up()
    build = 0.0
    seconds = {(costs, method): 0.0 for costs in COSTS for method in ("pairs", "auto")}
    worst = {costs: 0.0 for costs in COSTS}
    for record in records:
        codes = [record["prompt"] + s for s in record["samples"]]
        start = time.process_time()
        trees = [build_tree(c, "python") for c in codes]
        build += time.process_time() - start
        for costs in COSTS:
            results = {}
            for method in ("pairs", "auto"):
                start = time.process_time()
                results[method] = tsed_tree_matrix(trees, costs, method=method)
                seconds[(costs, method)] += time.process_time() - start
            diff = np.abs(results["auto"] - results["pairs"])
            worst[costs] = max(worst[costs], float(np.nanmax(diff)))
            assert np.array_equal(np.isnan(results["auto"]), np.isnan(results["pairs"]))
    scale = 164 / max(1, len(records))
    print(f"\nwhole data set, {len(records)} of 164 sets (every {every}), CPU seconds of this "
          "process (scaled to all 164 sets in brackets):")
    print(f"  trees (parse, S-expression, decompositions): {build:.2f} s [{build * scale:.1f} s]")
    for costs in COSTS:
        pairs, shared = seconds[(costs, "pairs")], seconds[(costs, "auto")]
        print(f"  costs {costs}: pairs {pairs:.2f} s [{pairs * scale:.1f} s], shared pass "
              f"{shared:.2f} s [{shared * scale:.1f} s], {pairs / shared:.1f}x; "
              f"max |shared - pairs| = {worst[costs]:.1e}")
        assert worst[costs] <= 1e-12, worst[costs]


def main() -> None:
    """Run the benchmarks and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-pairs", type=int, default=10)
    parser.add_argument("--set-index", type=int, default=0, help="HumanEval problem (line) index")
    parser.add_argument("--data", action="store_true",
                        help="only the whole data set: per pair against the shared pass")
    parser.add_argument("--every", type=int, default=4, help="with --data: every K-th set")
    parser.add_argument("--smoke", action="store_true", help="every part on the least input")
    args = parser.parse_args()
    if args.smoke:
        bench_pairs(limit=2)
        bench_set(args.set_index, 1)
        bench_data(164)
        return
    if args.data:
        bench_data(args.every)
        return
    ref, ours = bench_pairs()
    bench_set(args.set_index, args.reference_pairs)
    if ref / ours < 100:
        raise SystemExit(f"speed ratio {ref / ours:.0f}x is below 100x")


if __name__ == "__main__":
    main()
