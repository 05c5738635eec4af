"""Benchmark: ``codequorum score --scheduler local:N`` on a synthetic corpus many times the
bundled data, and what one set costs, metric by metric.

The corpus repeats ../shared/data/humaneval_codegen16b_t0.8.jsonl (164 tasks x 100
CodeGen-16B samples) ``F`` times with distinct task ids (``HumanEval/0@r3``), streamed to a
temporary file a line at a time.

1. ``scaling``: the ``--factor`` corpus (default 10: 1,640 sets x 100) on 1 and 2 worker
   processes, end to end (process start, cluster start, reading, scoring, writing JSON
   Lines), in sets per second.
2. ``memory``: the peak resident memory of the driver process (``VmHWM`` of the
   process that reads, submits, reorders and writes; the scheduler runs in it, the workers
   do not) at corpus sizes 1x, 2x, 5x, 10x, against a local ``--jobs 2`` run, which holds
   every set before scoring.
3. ``costs``: per-set time of each metric in this process on the first sets of the data,
   at 20 and 100 samples a set (best of three per set): parsing and the structural
   matrices, TSED with (1, 1, 1) and (1, 0.8, 1), the token metrics, the whole static
   analysis with and without TSED, and the sandboxed run of ``--dynamic``.

The load average is printed with every figure: this machine's two cores are shared.

Run: .venv/bin/python bench/bench_scale.py [scaling] [memory] [costs] [--factor F]
     [--tsed] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("CODEQUORUM_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data" / "humaneval_codegen16b_t0.8.jsonl"
BASE_SETS = 164

#: Runs ``codequorum`` in a child and reports that child's own peak resident memory (KiB,
#: ``VmHWM``: unlike ``ru_maxrss`` it starts afresh at exec) on standard error.
DRIVER = (
    "import re, sys\n"
    "from codequorum.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = open('/proc/self/status').read()\n"
    "print('maxrss_kib', re.search(r'VmHWM:\\s+(\\d+)', status).group(1), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def load() -> str:
    """The 1-minute load average, as text."""
    return f"{os.getloadavg()[0]:.2f}"


def build_corpus(factor: int, path: Path) -> int:
    """Write ``factor`` copies of the data with distinct task ids; the number of sets."""
    sets = 0
    with path.open("w", encoding="utf-8") as out:
        for r in range(factor):
            with DATA.open(encoding="utf-8") as source:
                for line in source:
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    row["task_id"] = f"{row['task_id']}@r{r}"
                    out.write(json.dumps(row) + "\n")
                    sets += 1
    return sets


def run_score(corpus: Path, out: Path, extra: list[str]) -> tuple[float, int]:
    """Wall seconds and the driver's peak memory (KiB) of one ``codequorum score`` run."""
    cmd = [sys.executable, "-c", DRIVER, "score", str(corpus), "-q", "--format", "jsonl",
           "-o", str(out), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"score failed ({proc.returncode}): {proc.stderr[-2000:]}")
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("maxrss_kib")]
    return seconds, int(lines[-1].split()[1])


def count_lines(path: Path) -> int:
    """Lines in a file."""
    with path.open("rb") as stream:
        return sum(1 for _ in stream)


def scaling(factor: int, tsed: bool, samples: int | None, tmp: Path) -> list[dict[str, Any]]:
    """The corpus on 1 and 2 workers."""
    corpus = tmp / f"corpus{factor}.jsonl"
    sets = build_corpus(factor, corpus)
    flags = ([] if tsed else ["--no-tsed"]) + ([] if samples is None else
                                              ["--samples", str(samples)])
    rows = []
    for workers in (1, 2):
        before = load()
        seconds, rss = run_score(corpus, tmp / "out.jsonl", [*flags, "--scheduler",
                                                               f"local:{workers}"])
        assert count_lines(tmp / "out.jsonl") == sets
        row = {"what": "scaling", "factor": factor, "sets": sets, "workers": workers,
               "tsed": tsed, "samples": samples or 100, "seconds": round(seconds, 2),
               "sets_per_s": round(sets / seconds, 2), "driver_maxrss_kib": rss,
               "load_before": before, "load_after": load()}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def memory(factors: list[int], samples: int, tmp: Path) -> list[dict[str, Any]]:
    """Driver peak memory against corpus size, streamed on the cluster and local (every
    set is read whole; ``--samples`` keeps the scoring short: what grows with the corpus
    is the number of sets, not their cost)."""
    rows = []
    for factor in factors:
        corpus = tmp / f"corpus{factor}.jsonl"
        sets = build_corpus(factor, corpus)
        modes: list[tuple[str, list[str]]] = [("cluster local:2", ["--scheduler", "local:2"])]
        if factor <= 5:
            modes.append(("local --jobs 2", ["--jobs", "2"]))
        for mode, extra in modes:
            before = load()
            seconds, rss = run_score(corpus, tmp / "out.jsonl",
                                     ["--no-tsed", "--samples", str(samples), *extra])
            row = {"what": "memory", "mode": mode, "factor": factor, "sets": sets,
                   "samples": samples,
                   "seconds": round(seconds, 2), "maxrss_kib": rss,
                   "load_before": before, "load_after": load()}
            print(json.dumps(row), flush=True)
            rows.append(row)
        corpus.unlink()
    return rows


def _best(fn: Callable[[], object], rounds: int = 3) -> float:
    """Best of ``rounds`` wall times of ``fn()``, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def costs(tasks: int, dynamic_tasks: int) -> list[dict[str, Any]]:
    """Per-set seconds of each metric at 20 and 100 samples a set."""
    sys.path.insert(0, str(REPO / "server"))
    from codequorum.analysis import AnalysisOptions, analyze, static_sctd
    from codequorum.dynamic_analysis import DynamicOptions, run_dynamic
    from codequorum.formats import ReadOptions, read_sample_sets
    from codequorum.metrics.structural import structural_matrices, warm_up
    from codequorum.metrics.textual import textual_summary
    from codequorum.metrics.tree_edit import tsed_matrix
    from codequorum.model import SampleSet

    warm_up()
    defaults = AnalysisOptions(textual=False, keep_matrices=False)  # the command line's
    no_tsed = AnalysisOptions(textual=False, keep_matrices=False, tsed=False)
    rows = []
    for n in (20, 100):
        sets = [s for s in read_sample_sets(DATA, ReadOptions(limit=tasks, max_samples=n))
                if isinstance(s, SampleSet)]
        tsed_matrix(sets[0].codes[:2], "python")  # load the compiled kernel first
        stages: dict[str, Callable[[SampleSet], object]] = {
            "parse + structural (SCE, JSD)": lambda s: structural_matrices(s.codes, "python"),
            "TSED (1, 1, 1)": lambda s: tsed_matrix(s.codes, "python"),
            "TSED (1, 0.8, 1) (--tsed-08)": lambda s: tsed_matrix(s.codes, "python",
                                                                  (1.0, 0.8, 1.0)),
            "static SCTD (compiled opcodes)": lambda s: static_sctd(s.codes),
            "token LCS / LED (--textual)": lambda s: textual_summary(s.codes),
        }
        try:
            from codequorum.metrics.pycode_similar import pycode_similar_matrices

            stages["unified / tree diff (--textual)"] = (
                lambda s: pycode_similar_matrices(s.codes))
        except ImportError:
            pass
        stages["score, --no-tsed"] = lambda s: analyze(s, no_tsed)
        stages["score, defaults (TSED)"] = lambda s: analyze(s, defaults)
        for stage, fn in stages.items():
            before = load()
            per_set = [_best(lambda s=s, fn=fn: fn(s)) for s in sets]  # type: ignore[misc]
            row = {"what": "cost", "samples": n, "stage": stage, "sets": len(sets),
                   "ms_per_set": round(1000 * sum(per_set) / len(per_set), 2),
                   "ms_max": round(1000 * max(per_set), 2), "load": before}
            print(json.dumps(row), flush=True)
            rows.append(row)
        if dynamic_tasks:
            chosen = sets[:dynamic_tasks]
            before = load()
            t0 = time.perf_counter()
            for s in chosen:
                run_dynamic(s, DynamicOptions(jobs=1))
            seconds = time.perf_counter() - t0
            row = {"what": "cost", "samples": n, "stage": "--dynamic sandboxed run (1 job)",
                   "sets": len(chosen), "ms_per_set": round(1000 * seconds / len(chosen), 2),
                   "load": before}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("parts", nargs="*", default=["scaling", "memory", "costs"],
                        choices=["scaling", "memory", "costs"])
    parser.add_argument("--factor", type=int, default=10, help="corpus size for scaling")
    parser.add_argument("--sizes", default="1,2,5,10", help="corpus sizes for memory")
    parser.add_argument("--tsed", action="store_true", help="scaling with TSED (slow)")
    parser.add_argument("--samples", type=int, default=None,
                        help="scaling: first K samples of each set (default all 100)")
    parser.add_argument("--memory-samples", type=int, default=10,
                        help="memory: first K samples of each set")
    parser.add_argument("--tasks", type=int, default=20, help="sets timed per cost")
    parser.add_argument("--dynamic-tasks", type=int, default=5, help="sets run for --dynamic")
    parser.add_argument("--json", type=Path, default=None, help="also write rows here")
    args = parser.parse_args()
    print(json.dumps({"python": sys.version.split()[0], "cpus": os.cpu_count(),
                      "load": load(), "when": time.strftime("%Y-%m-%d %H:%M UTC",
                                                            time.gmtime())}), flush=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="cq-scale-") as folder:
        tmp = Path(folder)
        if "costs" in args.parts:
            rows += costs(args.tasks, args.dynamic_tasks)
        if "scaling" in args.parts:
            rows += scaling(args.factor, args.tsed, args.samples, tmp)
        if "memory" in args.parts:
            rows += memory([int(f) for f in args.sizes.split(",")], args.memory_samples, tmp)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
