"""Benchmark: the whole data set through ``codequorum score --jobs 2``.

tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz: 164 HumanEval tasks x 100 CodeGen-16B
samples, all 4,950 pairs per task, every default metric (TSED included), clusters, medoids
and verdicts, written as JSON; and the same with ``--no-tsed``, the two runs interleaved so
that other load on the machine meets both alike. Target: the default run under 10 s wall
clock, measured end to end (process start, reading, scoring, writing) with the installed
``codequorum`` script. ``--src DIR`` also runs another checkout's ``server`` folder (e.g.
an older commit exported with ``git archive``) through ``python -m codequorum``, in the
same rounds, for a before / after under the same load.

With ``--breakdown`` it also times, in this process on the first tasks, where one set's
time goes: parsing and counting subtrees, the four pair matrices, and the analysis on top
(pair means, typicality, clusters, verdicts).

Run: .venv/bin/python bench/bench_score_all.py [--runs N] [--jobs N] [--src DIR] [--breakdown]
[--smoke] (``--smoke``: the default metrics once on two sets of three versions, the
breakdown on one)
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reference_data import DATA, REPO

TARGET_SECONDS = 10.0


def run_once(jobs: int, out: Path, *, tsed: bool = True, src: Path | None = None,
             extra: tuple[str, ...] = (), expected: int = 164) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system, all processes of the run) of one
    end-to-end run; checks that every set was scored. ``src``: run that ``server`` folder
    instead of the installed package. CPU time moves less with other load than wall."""
    script = Path(sys.executable).parent / "codequorum"
    head = [sys.executable, "-m", "codequorum"] if src else [str(script)]
    cmd = [*head, "score", str(DATA), "--jobs", str(jobs), "--quiet",
           "--format", "json", "-o", str(out), *extra]
    if not tsed:
        cmd.append("--no-tsed")
    env = dict(os.environ, PYTHONPATH=str(src)) if src else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"codequorum score failed ({proc.returncode}): {proc.stderr}")
    doc = json.loads(out.read_text())
    scored = [s for s in doc["sets"] if s["status"] == "ok"]
    if len(doc["sets"]) != expected or len(scored) != expected:
        raise SystemExit(f"expected {expected} scored sets, got {len(scored)} of "
                         f"{len(doc['sets'])}")
    return seconds, cpu


def breakdown(tasks: int, versions: int | None = None) -> None:
    """Per-set time of each stage, single process, first ``tasks`` tasks (best of three
    per set, so other load on the machine counts less)."""
    sys.path.insert(0, str(REPO / "server"))
    from codequorum.core.model import VersionSet
    from codequorum.ingest.version_files import ReadOptions, read_version_sets
    from codequorum.metrics.structural import structural_matrices, subtree_counts
    from codequorum.pipeline.analyze import analyze
    from codequorum.pipeline.config import AnalysisConfig

    t0 = time.perf_counter()
    sets = [s for s in read_version_sets(DATA, ReadOptions(limit=tasks, max_versions=versions))
            if isinstance(s, VersionSet)]
    read_s = time.perf_counter() - t0
    chosen = sets[:tasks]
    structural_matrices(chosen[0].codes, "python")  # warm the grammar
    opts = AnalysisConfig(metrics=(), keep_matrices=False)

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
    print(f"reading the first {len(sets)} sets: {read_s:.2f} s")
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
    parser.add_argument("--src", type=Path, default=None,
                        help="also run this checkout's server folder (before / after)")
    parser.add_argument("--smoke", action="store_true", help="two sets of three versions")
    args = parser.parse_args()
    extra: tuple[str, ...] = ()
    expected, versions = 164, None
    if args.smoke:
        args.runs, args.breakdown, args.breakdown_tasks = 1, True, 1
        extra, expected, versions = ("--limit", "2", "--versions", "3"), 2, 3
    kinds: list[tuple[str, bool, Path | None]] = [("default metrics", True, None),
                                                  ("--no-tsed", False, None)]
    if args.smoke:
        kinds = kinds[:1]
    if args.src is not None:
        kinds.append((f"default metrics, {args.src}", True, args.src.resolve()))
    times: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for name, tsed, src in kinds:
                loads.append(os.getloadavg()[0])
                wall, cpu = run_once(args.jobs, Path(tmp) / "out.json", tsed=tsed, src=src,
                                     extra=extra, expected=expected)
                times[name].append(wall)
                cpus[name].append(cpu)
    print(f"codequorum score, {expected} tasks x {versions or 100} versions, --jobs {args.jobs} "
          f"(load average {min(loads):.1f}-{max(loads):.1f}):")
    for name, _, _ in kinds:
        print(f"  {name}: " + ", ".join(f"{t:.2f} s" for t in times[name])
              + f" (best {min(times[name]):.2f} s); CPU (user + sys) "
              + ", ".join(f"{c:.1f} s" for c in cpus[name]))
    best = min(times["default metrics"])
    if "--no-tsed" in times:
        print(f"TSED adds {best - min(times['--no-tsed']):.2f} s to the best run; target for "
              f"the default run: < {TARGET_SECONDS:.0f} s")
    print(f"per set: {1000 * best / expected:.1f} ms wall")
    if args.breakdown:
        breakdown(args.breakdown_tasks, versions)
    return 0 if args.smoke or best < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
