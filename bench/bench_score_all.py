"""Benchmark: the whole data set through ``codequorum score --jobs 2``.

../shared/data/humaneval_codegen16b_t0.8.jsonl: 164 HumanEval tasks x 100 CodeGen-16B
samples, all 4,950 pairs per task, the four structural metrics (SCE and JSD, structure-only
and structure+value; no TSED), clusters, medoids and verdicts, written as JSON.
Target: under 20 s wall clock, measured end to end (process start, reading, scoring,
writing) with the installed ``codequorum`` script.

With ``--breakdown`` it also times, in this process on the first tasks, where one set's
time goes: parsing and counting subtrees, the four pair matrices, and the analysis on top
(pair means, typicality, clusters, verdicts).

Run: .venv/bin/python bench/bench_score_all.py [--runs N] [--jobs N] [--breakdown]
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
DATA = SHARED / "data" / "humaneval_codegen16b_t0.8.jsonl"
TARGET_SECONDS = 20.0


def run_once(jobs: int, out: Path) -> float:
    """Seconds for one end-to-end run; checks that every set was scored."""
    script = Path(sys.executable).parent / "codequorum"
    cmd = [str(script), "score", str(DATA), "--jobs", str(jobs), "--no-tsed", "--quiet",
           "--format", "json", "-o", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"codequorum score failed ({proc.returncode}): {proc.stderr}")
    doc = json.loads(out.read_text())
    scored = [s for s in doc["sets"] if s["status"] == "ok"]
    if len(doc["sets"]) != 164 or len(scored) != 164:
        raise SystemExit(f"expected 164 scored sets, got {len(scored)} of {len(doc['sets'])}")
    return seconds


def breakdown(tasks: int) -> None:
    """Per-set time of each stage, single process, first ``tasks`` tasks (best of three
    per set, so other load on the machine counts less)."""
    sys.path.insert(0, str(REPO / "server"))
    from codequorum.analysis import AnalysisOptions, analyze
    from codequorum.formats import read_sample_sets
    from codequorum.metrics.structural import structural_matrices, subtree_counts
    from codequorum.model import SampleSet

    t0 = time.perf_counter()
    sets = [s for s in read_sample_sets(DATA) if isinstance(s, SampleSet)]
    read_s = time.perf_counter() - t0
    chosen = sets[:tasks]
    structural_matrices(chosen[0].codes, "python")  # warm the grammar
    opts = AnalysisOptions(tsed=False, textual=False, keep_matrices=False)

    def best(fn: Callable[[], object]) -> float:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    counts = matrices = whole = 0.0
    for s in chosen:
        codes = [c for c in s.codes if c.strip()]
        counts += best(functools.partial(subtree_counts, codes, "python"))
        matrices += best(functools.partial(structural_matrices, codes, "python"))
        whole += best(functools.partial(analyze, s, opts))
    k = 1000 / len(chosen)
    print(f"reading all 164 sets: {read_s:.2f} s")
    print(f"per set (best of 3, first {len(chosen)} tasks, one process):")
    print(f"  subtree counts (parse + walk)      {k * counts:7.1f} ms")
    print(f"  four pair matrices, counts included {k * matrices:6.1f} ms")
    print(f"  analyze (matrices + report)        {k * whole:7.1f} ms")
    print(f"  report on top of the matrices      {k * (whole - matrices):7.1f} ms "
          f"({100 * (whole - matrices) / matrices:.0f} %)")


def main() -> int:
    """Measure, print, and fail (exit 1) when over the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--breakdown-tasks", type=int, default=20)
    args = parser.parse_args()
    if not DATA.is_file():
        raise SystemExit(f"data not found: {DATA}")
    with tempfile.TemporaryDirectory() as tmp:
        times = [run_once(args.jobs, Path(tmp) / "out.json") for _ in range(args.runs)]
    best = min(times)
    print(f"codequorum score, 164 tasks x 100 samples, --jobs {args.jobs}, no TSED: "
          + ", ".join(f"{t:.2f} s" for t in times) + f" (best {best:.2f} s; target "
          f"< {TARGET_SECONDS:.0f} s)")
    print(f"per set: {1000 * best / 164:.1f} ms wall, 4,950 pairs x 4 metrics each")
    if args.breakdown:
        breakdown(args.breakdown_tasks)
    return 0 if best < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
