"""How many sets of each model family get no input an editor has, and so no risk.

A set whose versions run on nothing gets no risk ("no input to run the versions on"). For
every task of the family sets (``family_cache.py``'s, read by path from ``--training`` and
``--codegen``), the inputs an editor has are collected as ``family_cache.py`` collects them
(the task id renamed, so no benchmark's hidden tests; no published examples), reading code
only: nothing runs. Reported per set: tasks, tasks without an input, their share, and with
``-v`` each such task and the note the plan gave.

    .venv/bin/python bench/bench_no_input.py [-v] [--json]
    .venv/bin/python bench/bench_no_input.py --smoke   # ten tasks a set
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from family_cache import SETS, editor_plan, read_set
from reference_data import REPO, skipped


@dataclass(frozen=True)
class SetCount:
    """One set: how many tasks, and those without an input (id, the plan's notes)."""

    tasks: int
    without_input: list[tuple[str, list[str]]]


def count(training: Path, codegen: Path, limit: int | None) -> dict[str, SetCount]:
    """Per set found: its tasks and those without an input."""
    out: dict[str, SetCount] = {}
    for name in SETS:
        path = codegen if name.startswith("codegen") else training / SETS[name][0]
        if not path.is_file():
            continue
        tasks = list(islice(read_set(name, training, codegen), limit))
        plans = [(t.task_id, editor_plan(t)) for t in tasks]
        out[name] = SetCount(len(tasks), [(tid, plan.notes) for tid, plan in plans
                                          if not plan.cases])
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the table (or JSON)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--training", type=Path, default=REPO.parent / "shared/data/training")
    ap.add_argument("--codegen", type=Path,
                    default=REPO.parent / "shared/data/humaneval_codegen16b_t0.8.jsonl")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the tasks")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="ten tasks a set")
    args = ap.parse_args(argv)
    if not args.training.is_dir():
        skipped(f"needs the training sets in {args.training}")
    result = count(args.training, args.codegen, 10 if args.smoke else None)
    if args.json:
        print(json.dumps({name: asdict(row) for name, row in result.items()}, indent=2))
        return 0
    print(f"{'set':<22}{'tasks':>7}{'no input':>10}{'share':>8}")
    for name, row in result.items():
        empty = len(row.without_input)
        print(f"{name:<22}{row.tasks:>7}{empty:>10}{empty / max(row.tasks, 1):>8.1%}")
        for task_id, notes in row.without_input if args.verbose else []:
            print(f"    {task_id}: {'; '.join(notes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
