"""Benchmark: ``codequorum score --scheduler local:N`` on a synthetic corpus many times the
bundled data, and what one set costs, metric by metric.

The corpus repeats tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz (164 tasks x 100
CodeGen-16B samples) ``F`` times with distinct task ids (``HumanEval/0@r3``), streamed to a
temporary file a line at a time.

1. ``scaling``: the ``--factor`` corpus (default 10: 1,640 sets x 100) on 1 and 2 worker
   processes, end to end (process start, cluster start, reading, scoring, writing JSON
   Lines), in sets per second.
2. ``memory``: the peak resident memory of the driver process (``VmHWM`` of the
   process that reads, submits, reorders and writes, on a scheduler and two workers
   started with the ``dask`` command) at corpus sizes 1x, 2x, 5x, 10x, against a local
   ``--jobs 2`` run, which holds every set and report; in each output format of
   ``--formats`` (JSON Lines by default; ``json`` and ``html`` are written a set at a
   time too, their end from figures summed or filed as the sets pass).
3. ``costs``: per-set time of each metric on the first sets of the data, at 20 and 100
   samples a set, each stage in a fresh process and each set timed once (as a worker
   meets it): parsing and the structural matrices, TSED with (1, 1, 1) and (1, 0.8, 1),
   static SCTD, the ``--textual`` metrics, a set scored as ``score`` scores it with and
   without TSED, and with ``--dynamic`` (the sandboxed run, one version at a time).

The load average is printed with every figure: this machine's two cores are shared.

Run: .venv/bin/python bench/bench_scale.py [scaling] [memory] [costs] [--factor F]
     [--tsed] [--sizes 1,10] [--formats jsonl,json,html] [--json FILE] [--smoke]

``--smoke`` runs every part once on two sets of three versions: the cost stages in this
process, scaling and memory on one worker, memory on the cluster only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from reference_data import DATA, REPO, open_text

BASE_SETS = 164
#: Sets of the data each corpus copy takes (all of them but in a smoke run).
corpus_sets: int | None = None

#: Runs ``codequorum`` in a child and reports that child's own peak resident memory (KiB,
#: ``VmHWM``: unlike ``ru_maxrss`` it starts afresh at exec) on standard error.
DRIVER = (
    "import re, sys\n"
    "from codequorum.cli.main import main\n"
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
            with open_text(DATA) as source:
                for k, line in enumerate(source):
                    if not line.strip() or (corpus_sets is not None and k >= corpus_sets):
                        continue
                    row = json.loads(line)
                    row["task_id"] = f"{row['task_id']}@r{r}"
                    out.write(json.dumps(row) + "\n")
                    sets += 1
    return sets


def run_score(corpus: Path, out: Path, extra: list[str], fmt: str = "jsonl"
              ) -> tuple[float, int]:
    """Wall seconds and the driver's peak memory (KiB) of one ``codequorum score`` run."""
    cmd = [sys.executable, "-c", DRIVER, "score", str(corpus), "-q", "--format", fmt,
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


def scaling(factor: int, tsed: bool, versions: int | None, tmp: Path) -> list[dict[str, Any]]:
    """The corpus on 1 and 2 workers."""
    corpus = tmp / f"corpus{factor}.jsonl"
    sets = build_corpus(factor, corpus)
    flags = ([] if tsed else ["--no-tsed"]) + ([] if versions is None else
                                              ["--versions", str(versions)])
    rows = []
    for workers in (1, 2) if corpus_sets is None else (1,):
        before = load()
        seconds, rss = run_score(corpus, tmp / "out.jsonl", [*flags, "--scheduler",
                                                               f"local:{workers}"])
        assert count_lines(tmp / "out.jsonl") == sets
        row = {"what": "scaling", "factor": factor, "sets": sets, "workers": workers,
               "tsed": tsed, "samples": versions or 100, "seconds": round(seconds, 2),
               "sets_per_s": round(sets / seconds, 2), "driver_maxrss_kib": rss,
               "load_before": before, "load_after": load()}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def _scheduler_address(info: Path, scheduler: subprocess.Popen[bytes], deadline: float) -> str:
    """The address in the scheduler's file once it is whole: the scheduler creates the
    file before it writes it, so an empty or half-written file is read again."""
    while time.monotonic() < deadline:
        if scheduler.poll() is not None:
            raise SystemExit(f"the dask scheduler exited ({scheduler.returncode}); "
                             f"see {info.parent / 'dask.log'}")
        try:
            return str(json.loads(info.read_text())["address"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            time.sleep(0.2)
    raise SystemExit(f"the dask scheduler wrote no address to {info} within 60 s")


@contextlib.contextmanager
def tcp_cluster(workers: int, tmp: Path) -> Iterator[str]:
    """A scheduler and ``workers`` worker processes started with the ``dask`` command, as
    on a real cluster; yields the scheduler's address."""
    dask = Path(sys.executable).parent / "dask"
    info = tmp / "scheduler.json"
    info.unlink(missing_ok=True)
    logs = (tmp / "dask.log").open("w")
    procs = [subprocess.Popen([str(dask), "scheduler", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(info)], stdout=logs, stderr=logs)]
    try:
        address = _scheduler_address(info, procs[0], time.monotonic() + 60)
        procs.append(subprocess.Popen([str(dask), "worker", address, "--nworkers",
                                       str(workers), "--nthreads", "1", "--no-dashboard"],
                                      stdout=logs, stderr=logs))
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(timeout=30)
        logs.close()


def memory(factors: list[int], versions: int, tmp: Path, formats: list[str]
           ) -> list[dict[str, Any]]:
    """Driver peak memory against corpus size, streamed on the cluster and local (every
    set is read whole; ``--samples`` keeps the scoring short: what grows with the corpus
    is the number of sets, not their cost)."""
    rows = []
    workers = 2 if corpus_sets is None else 1
    with tcp_cluster(workers, tmp) as address:
        for factor in factors:
            corpus = tmp / f"corpus{factor}.jsonl"
            sets = build_corpus(factor, corpus)
            for fmt in formats:
                rows += _memory_rows(corpus, sets, factor, versions, fmt, address, workers)
            corpus.unlink()
    return rows


def _memory_rows(corpus: Path, sets: int, factor: int, versions: int, fmt: str,
                 address: str, workers: int = 2) -> list[dict[str, Any]]:
    """The rows of :func:`memory` for one corpus and format, on the cluster at
    ``address`` and (up to 5x) local."""
    rows = []
    modes: list[tuple[str, list[str]]] = [(f"cluster tcp, {workers} workers",
                                           ["--scheduler", address])]
    if factor <= 5 and corpus_sets is None:
        modes.append(("local --jobs 2", ["--jobs", "2"]))
    for mode, extra in modes:
        before = load()
        seconds, rss = run_score(corpus, corpus.with_suffix(f".out.{fmt}"),
                                 ["--no-tsed", "--versions", str(versions), *extra], fmt)
        corpus.with_suffix(f".out.{fmt}").unlink()
        row = {"what": "memory", "mode": mode, "format": fmt, "factor": factor,
               "sets": sets, "samples": versions, "seconds": round(seconds, 2),
               "maxrss_kib": rss, "load_before": before, "load_after": load()}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


#: The stages of ``costs``: what each times on one set.
STAGES: tuple[str, ...] = (
    "parse + structural (SCE, JSD)",
    "TSED (1, 1, 1)",
    "TSED (1, 0.8, 1) (--tsed-08)",
    "static SCTD (compiled opcodes)",
    "token LCS / LED (--textual)",
    "unified / tree diff (--textual)",
    "score, --no-tsed",
    "score, defaults (TSED)",
    "score --dynamic (sandboxed run + analysis)",
)


def _stage_function(stage: str) -> Callable[[Any], object]:
    """What ``stage`` runs on one sample set."""
    sys.path.insert(0, str(REPO / "server"))
    from codequorum.metrics.structural import structural_matrices
    from codequorum.metrics.textual import textual_summary
    from codequorum.metrics.tree_edit import tsed_matrix
    from codequorum.pipeline.analyze import analyze, static_sctd
    from codequorum.pipeline.config import AnalysisConfig

    cli = AnalysisConfig(metrics=("tsed",), keep_matrices=False)  # the command line's defaults
    no_tsed = AnalysisConfig(metrics=(), keep_matrices=False)
    if stage == "unified / tree diff (--textual)":
        from codequorum.metrics.pycode_similar import pycode_similar_matrices

        return lambda s: pycode_similar_matrices(s.codes)
    if stage.startswith("score --dynamic"):
        from codequorum.pipeline.score import score_one

        return lambda s: score_one(s, cli, True)
    functions: dict[str, Callable[[Any], object]] = {
        "parse + structural (SCE, JSD)": lambda s: structural_matrices(s.codes, "python"),
        "TSED (1, 1, 1)": lambda s: tsed_matrix(s.codes, "python"),
        "TSED (1, 0.8, 1) (--tsed-08)": lambda s: tsed_matrix(s.codes, "python",
                                                              (1.0, 0.8, 1.0)),
        "static SCTD (compiled opcodes)": lambda s: static_sctd(s.codes),
        "token LCS / LED (--textual)": lambda s: textual_summary(s.codes),
        "score, --no-tsed": lambda s: analyze(s, no_tsed),
        "score, defaults (TSED)": lambda s: analyze(s, cli),
    }
    return functions[stage]


def time_stage(stage: str, versions: int, tasks: int) -> dict[str, Any]:
    """In this (fresh) process: ``stage`` once on each of the first ``tasks`` sets, after
    one untimed set that loads the compiled kernels and caches a worker would already have
    loaded. Each set is timed once: a worker meets every set once."""
    from codequorum.core.model import VersionSet
    from codequorum.ingest.version_files import ReadOptions, read_version_sets

    fn = _stage_function(stage)
    sets = [s for s in read_version_sets(DATA, ReadOptions(limit=tasks + 1, max_versions=versions))
            if isinstance(s, VersionSet)]
    fn(sets[-1])
    before = load()
    per_set = []
    for s in sets[:-1]:
        t0 = time.perf_counter()
        fn(s)
        per_set.append(time.perf_counter() - t0)
    per_set.sort()
    return {"what": "cost", "samples": versions, "stage": stage, "sets": len(per_set),
            "ms_per_set": round(1000 * sum(per_set) / len(per_set), 2),
            "ms_median": round(1000 * per_set[len(per_set) // 2], 2),
            "ms_max": round(1000 * per_set[-1], 2), "load_before": before,
            "load_after": load()}


def costs(tasks: int, dynamic_tasks: int, sizes: tuple[int, ...] = (20, 100)
          ) -> list[dict[str, Any]]:
    """Per-set time of each stage at 20 and 100 samples a set, each stage in a fresh
    process (caches of one stage never serve another)."""
    rows = []
    for n in sizes:
        for stage in STAGES:
            count = dynamic_tasks if stage.startswith("score --dynamic") else tasks
            if count <= 0:
                continue
            if corpus_sets is not None:  # a smoke run: every stage, in this process
                rows.append(time_stage(stage, n, count))
                print(json.dumps(rows[-1]), flush=True)
                continue
            proc = subprocess.run([sys.executable, __file__, "_stage", stage, str(n),
                                   str(count)], capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                print(f"{stage}: failed: {proc.stderr[-500:]}", file=sys.stderr)
                if corpus_sets is not None:  # a smoke run stops at the first failure
                    raise SystemExit(1)
                continue
            row = json.loads(proc.stdout.splitlines()[-1])
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "_stage":  # one stage, in a child
        print(json.dumps(time_stage(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("parts", nargs="*", metavar="scaling|memory|costs",
                        help="the parts to run (default all three)")
    parser.add_argument("--factor", type=int, default=10, help="corpus size for scaling")
    parser.add_argument("--sizes", default="1,2,5,10", help="corpus sizes for memory")
    parser.add_argument("--formats", default="jsonl",
                        help="output formats for memory, comma separated (jsonl, json, html, "
                        "table, csv)")
    parser.add_argument("--tsed", action="store_true", help="scaling with TSED (slow)")
    parser.add_argument("--samples", type=int, default=None,
                        help="scaling: first K samples of each set (default all 100)")
    parser.add_argument("--memory-samples", type=int, default=10,
                        help="memory: first K samples of each set")
    parser.add_argument("--tasks", type=int, default=20, help="sets timed per cost")
    parser.add_argument("--dynamic-tasks", type=int, default=5, help="sets run for --dynamic")
    parser.add_argument("--json", type=Path, default=None, help="also write rows here")
    parser.add_argument("--smoke", action="store_true", help="every part on a tiny corpus")
    args = parser.parse_args()
    args.parts = args.parts or ["scaling", "memory", "costs"]
    if unknown := set(args.parts) - {"scaling", "memory", "costs"}:
        parser.error(f"unknown part: {', '.join(sorted(unknown))}")
    global corpus_sets
    cost_sizes: tuple[int, ...] = (20, 100)
    if args.smoke:
        corpus_sets, cost_sizes = 2, (3,)
        args.factor, args.sizes, args.samples, args.memory_samples = 1, "1", 3, 3
        args.tasks, args.dynamic_tasks = 1, 1
    print(json.dumps({"python": sys.version.split()[0], "cpus": os.cpu_count(),
                      "load": load(), "when": time.strftime("%Y-%m-%d %H:%M UTC",
                                                            time.gmtime())}), flush=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="cq-scale-") as folder:
        tmp = Path(folder)
        if "costs" in args.parts:
            rows += costs(args.tasks, args.dynamic_tasks, cost_sizes)
        if "scaling" in args.parts:
            rows += scaling(args.factor, args.tsed, args.samples, tmp)
        if "memory" in args.parts:
            rows += memory([int(f) for f in args.sizes.split(",")], args.memory_samples, tmp,
                           args.formats.split(","))
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
